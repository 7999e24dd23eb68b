//===- NetworkGenerator.cpp - synthetic mix networks for benchmarks -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "NetworkGenerator.h"

#include <algorithm>

using namespace mix::bench;

namespace {
constexpr const char *kT = "tensor<4x16xf32>";
constexpr unsigned kLayersPerLeaf = 25;

struct Writer {
  std::string out;
  unsigned nextValue = 0;
  unsigned nextBlock = 0;
  unsigned remaining;

  std::string value() { return "%v" + std::to_string(nextValue++); }
  void indent(unsigned level) { out.append(2 * level, ' '); }

  /// Emits up to kLayersPerLeaf layers consuming `in`; returns the last value.
  std::string layers(std::string in, unsigned level) {
    unsigned count = std::min(remaining, kLayersPerLeaf);
    for (unsigned i = 0; i < count; ++i, --remaining) {
      std::string v = value();
      indent(level);
      switch (i % 5) {
      case 0: {
        std::string w = value();
        out += w + " = mix.weight external \"w" + w.substr(2) +
               "\" : tensor<16x16xf32>\n";
        indent(level);
        out += v + " = mix.dense " + in + ", " + w +
               (i % 4 == 0 ? " precision(accumulator = f32)" : "") + " : (" +
               kT + ", tensor<16x16xf32>) -> " + kT + "\n";
        break;
      }
      case 1:
        out += v + " = mix.relu " + in + " : (" + kT + ") -> " + kT + "\n";
        break;
      case 2: {
        std::string g = value();
        out += g + " = mix.weight external \"g" + g.substr(2) +
               "\" : tensor<16xf32>\n";
        indent(level);
        out += v + " = mix.layer_norm " + in + ", " + g + ", " + g +
               " precision(f32) : (" + kT +
               ", tensor<16xf32>, tensor<16xf32>) -> " + kT + "\n";
        break;
      }
      case 3:
        out += v + " = mix.add " + in + ", " + in + " : (" + kT + ", " + kT +
               ") -> " + kT + "\n";
        break;
      default:
        out += v + " = mix.gelu " + in +
               (i % 2 ? " precision(output = f32)" : "") + " : (" + kT +
               ") -> " + kT + "\n";
        break;
      }
      in = v;
    }
    return in;
  }

  /// Emits a block nested `depth` deep around layers; returns its result.
  std::string block(const std::string &in, unsigned depth, unsigned level) {
    unsigned id = nextBlock++;
    static const char *precisions[] = {" precision(f16)", " precision(bf16)",
                                       ""};
    std::string result = value();
    std::string arg = "%a" + std::to_string(id);
    indent(level);
    out += result + " = mix.block @b" + std::to_string(id) +
           precisions[id % 3] + " (" + arg + " = " + in + ") : (" + kT +
           ") -> " + kT + " {\n";
    std::string last =
        depth > 1 ? block(arg, depth - 1, level + 1) : layers(arg, level + 1);
    // Layers after the nested block keep the inner levels busy too.
    if (depth > 1 && remaining)
      last = layers(last, level + 1);
    indent(level + 1);
    out += "mix.yield " + last + " : " + kT + "\n";
    indent(level);
    out += "}\n";
    return result;
  }
};
} // namespace

std::string mix::bench::generateNetwork(unsigned numLayers, unsigned depth) {
  Writer w;
  w.remaining = numLayers;
  w.out = "mix.network @generated precision(f32) (%x: " + std::string(kT) +
          ") -> " + kT + " {\n";
  std::string last = "%x";
  while (w.remaining)
    last = w.block(last, std::max(depth, 1u), 1);
  w.out += "  mix.return " + last + " : " + kT + "\n}\n";
  return w.out;
}
