//===- dsl_tiny.cpp - tiny.mlir's @tiny written with mix/dsl.h -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Built against the installed package (mixc::dsl): writes the network @tiny
// of tiny.mlir, renamed @dsl_tiny, to the file named by its argument. The
// app's build compiles that file with mixc_add_model, and main.cpp checks
// that dsl_tiny_run computes what tiny_run does.
//
//===----------------------------------------------------------------------===//

#include <mix/dsl.h>

#include <cstdio>

using namespace mix::dsl;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dsl_tiny OUT.mlir\n");
    return 2;
  }
  model m =
      network<f32>("dsl_tiny", input("image", {2, 4})).body([](tensor image) {
        tensor w = weight({4, 3}, {0.5, -1.0, 0.25, 1.0, 0.5, -0.5, -0.25, 1.0,
                                   1.0, 0.125, -0.5, 2.0});
        tensor b = weight({3}, {0.5, -1.0, 0.0});
        return relu(dense(image, w, b));
      });
  for (const std::string &error : m.errors())
    std::fprintf(stderr, "dsl_tiny: %s\n", error.c_str());
  if (!m.ok() || !m.write(argv[1]))
    return 1;
  return 0;
}
