//===- bench_util.h - helpers shared by the compiled-code benchmarks ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What compiled_bench.cpp (dense layers) and conv_bench.cpp (convolutions)
// share: the calling thread's CPU time, the fixed pseudo-random inputs, a
// safetensors writer for the weights the models reference
// (`mix.weight external`), and the compilation of a model text by the mixc
// driver, loaded in process (compiler/CompiledNetwork.h), with its 64-byte
// aligned workspace; the registration of manually timed benchmarks and the
// ratios their tables print (also attention_bench.cpp and train_bench.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_BENCH_COMPILER_BENCH_UTIL_H
#define MIXC_BENCH_COMPILER_BENCH_UTIL_H

#include "compiler/CompiledNetwork.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace mixbench {

inline double threadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

inline double processSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Best GOP/s per (kernel, shape) of the benchmarks run so far, for the
/// tables after the run.
inline std::map<std::string, double> &bestGops() {
  static std::map<std::string, double> r;
  return r;
}

/// The best GOP/s of `kernel` on `shape`, or 0 if it was not measured.
inline double bestOf(const std::string &kernel, const std::string &shape) {
  auto it = bestGops().find(kernel + " " + shape);
  return it == bestGops().end() ? 0.0 : it->second;
}

/// Runs `fn` once untimed (first-call setup), then under the benchmark loop
/// with manual (thread CPU) time; sets the GOPS counter (`ops` per call)
/// and cpu_ratio, the process's CPU time over the calling thread's: 1 when
/// nothing ran on another thread (a guard on the single-thread claim); and
/// keeps the best GOP/s of (kernel, shape).
template <class Fn>
void timeCalls(benchmark::State &state, const std::string &shape, double ops,
               const std::string &kernel, Fn fn) {
  fn();
  double seconds = 0.0;
  const double process = processSeconds();
  for (auto _ : state) {
    const double start = threadSeconds();
    fn();
    const double t = threadSeconds() - start;
    seconds += t;
    state.SetIterationTime(t);
  }
  const double gops =
      ops * static_cast<double>(state.iterations()) / seconds / 1e9;
  state.counters["GOPS"] = gops;
  state.counters["cpu_ratio"] = (processSeconds() - process) / seconds;
  double &best = bestGops()[kernel + " " + shape];
  best = std::max(best, gops);
}

/// Whether `got` agrees with the library's `want` within `tolerance` x
/// max |want| (both f32, summed in different orders): sets the max_diff
/// counter, or skips the benchmark with an error naming `what`.
inline bool agrees(benchmark::State &state, const std::vector<float> &got,
                   const std::vector<float> &want, float tolerance,
                   const char *what) {
  float scale = 0.0f, worst = 0.0f;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    scale = std::max(scale, std::fabs(want[i]));
    worst = std::max(worst, std::fabs(got[i] - want[i]));
  }
  if (got.size() != want.size() || !(worst <= tolerance * scale)) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "compiled and OpenBLAS differ by %g (max |%s| %g)", worst,
                  what, scale);
    state.SkipWithError(text);
    return false;
  }
  state.counters["max_diff"] = worst;
  return true;
}

/// A std::allocator that places its arrays on 64-byte (cache line)
/// boundaries, as a compiled network's workspace buffers are: inputs from a
/// plain std::vector are 16-byte aligned, and a kernel's 32- or 64-byte
/// loads from them split cache lines (up to 10% of a 1x1 convolution's time
/// on AVX2).
template <class T> struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U> CacheLineAllocator(const CacheLineAllocator<U> &) {}
  T *allocate(size_t n) {
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const CacheLineAllocator &) const { return true; }
  bool operator!=(const CacheLineAllocator &) const { return false; }
};

/// Floats on a 64-byte boundary.
using AlignedFloats = std::vector<float, CacheLineAllocator<float>>;

/// Values in [-0.5, 0.5), a fixed sequence per seed.
inline std::vector<float> values(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (float &x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<double>((seed >> 11) & 0xFFFFF) /
                               static_cast<double>(0x100000) -
                           0.5);
  }
  return v;
}

/// Registers `fn(state, args...)` as benchmark `name`, timed manually
/// (state.SetIterationTime), reported in milliseconds.
template <class Fn, class... Args>
void add(const std::string &name, Fn fn, Args... args) {
  benchmark::RegisterBenchmark(name.c_str(), fn, args...)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

/// "a/b" with `decimals` decimals, "-" if either was not measured (<= 0).
inline std::string ratio(double a, double b, int decimals = 2) {
  if (a <= 0 || b <= 0)
    return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f", decimals, a / b);
  return text;
}

/// One F32 tensor of a safetensors file.
struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  const std::vector<float> *data;
};

/// Writes `tensors` (little-endian F32, as on every host these benchmarks
/// run on: x86-64) to a new temporary safetensors file named after
/// `prefix`; its path, or empty with `error` set.
inline std::string writeSafetensors(const std::vector<NamedTensor> &tensors,
                                    const char *prefix, std::string &error) {
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile(prefix, "safetensors", path)) {
    error = "cannot create a temporary weights file";
    return "";
  }
  std::string header = "{";
  size_t offset = 0;
  for (const NamedTensor &t : tensors) {
    if (header.size() > 1)
      header += ",";
    header += "\"" + t.name + "\":{\"dtype\":\"F32\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    const size_t bytes = t.data->size() * sizeof(float);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (ec) {
    error = "cannot write " + path.str().str() + ": " + ec.message();
    llvm::sys::fs::remove(path);
    return "";
  }
  uint64_t length = header.size();
  char le[8];
  for (int i = 0; i < 8; ++i)
    le[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  file.write(le, 8);
  file << header;
  for (const NamedTensor &t : tensors)
    file.write(reinterpret_cast<const char *>(t.data->data()),
               t.data->size() * sizeof(float));
  file.close();
  if (file.has_error()) {
    error = "cannot write " + path.str().str();
    file.clear_error();
    llvm::sys::fs::remove(path);
    return "";
  }
  return path.str().str();
}

/// Network `name` of `source` compiled by the mixc driver (-O2, host CPU,
/// run-time checks on) with the weights of `weightsPath`, loaded in
/// process, with a workspace aligned to 64 bytes; `error` if it failed.
struct CompiledModel {
  std::unique_ptr<mix::CompiledNetwork> net;
  std::vector<uint8_t> workspace;
  void *ws = nullptr;
  std::string error;

  CompiledModel(const std::string &source, const std::string &name,
                const std::string &weightsPath, bool microkernels,
                const char *prefix) {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile(prefix, "mlir", path)) {
      error = "cannot create a temporary model file";
      return;
    }
    {
      std::error_code ec;
      llvm::raw_fd_ostream file(path, ec);
      file << source;
    }
    mix::CompileOptions options;
    options.modelPath = path.str().str();
    options.weightsPath = weightsPath;
    options.progress = mix::ProgressMode::never;
    // The policy check only reports (f32 on f32 is redundant); the code is
    // the same.
    options.pipeline.verifyPolicy = false;
    options.pipeline.microkernels = microkernels;
    auto compiled = mix::CompiledNetwork::compile(options, name, llvm::errs());
    llvm::sys::fs::remove(path);
    if (!compiled) {
      error = "compilation failed: " + llvm::toString(compiled.takeError());
      return;
    }
    net = std::move(*compiled);
    workspace.resize(net->workspaceBytes() + 64);
    ws = reinterpret_cast<void *>(
        (reinterpret_cast<uintptr_t>(workspace.data()) + 63) & ~uintptr_t(63));
  }
};

} // namespace mixbench

#endif // MIXC_BENCH_COMPILER_BENCH_UTIL_H
