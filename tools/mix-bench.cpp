//===- mix-bench.cpp - latency of a model as mixc compiles it -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix-bench compiles a model with mixc (the same library, options and
// target: the object mixc would write), loads that object into the process
// (LLVM's ORC JIT linker, no code generated again), runs its workspace
// entry on generated inputs with warm-up, and prints the latency
// percentiles and the throughput (docs/cli.md, "mix-bench").
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver.h"
#include "compiler/Header.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/Samples.h"
#include "mixrt/mixrt.h"
#include "support/CrashHandler.h"
#include "support/OutputFiles.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace mix;

namespace cl = llvm::cl;

namespace {

/// mix-bench's command line: what mixc takes to compile, and the run.
struct BenchOptions {
  CompileOptions compile;
  unsigned iterations = 200;
  unsigned warmup = 20;
  int64_t batch = 1;
  std::string jsonPath;
  bool help = false, version = false;

  void bindOptions(OptionsBinder &b) {
    b.heading("Model (as mixc takes it)");
    b.opt("weights", compile.weightsPath, {"a file name"},
          cl::value_desc("FILE"),
          cl::desc("bind external weights from a safetensors file"));
    b.opt("entry", entry, {"a network name"}, cl::value_desc("NAME"),
          cl::desc("network to run (default: the only one)"));
    b.opt("policy", compile.pipeline.policyPath.getValue(), {"a file name"},
          cl::value_desc("FILE"), cl::desc("precision policy"));
    b.flag("no-policy", compile.pipeline.verifyPolicy.getValue(), false,
           cl::desc("do not check the precision policy"));
    b.opt("calibration", compile.pipeline.calibrationPath.getValue(),
          {"a file name"}, cl::value_desc("FILE"),
          cl::desc("static int8 activation scales (default: dynamic)"));
    b.flag("no-checks", compile.pipeline.checkedCasts.getValue(), false,
           cl::desc("no run-time checks"));
    b.opt("target-cpu", compile.targetCPU, {}, cl::value_desc("CPU"),
          cl::desc("default: the host CPU and its features"));
    b.opt("O", compile.optLevel, optimizationLevelText(), cl::Prefix,
          cl::value_desc("N"),
          cl::desc("LLVM optimization level -O0 to -O3 (default: -O2)"));

    b.heading("Run");
    b.opt("iterations", iterations, {"a count"}, cl::value_desc("N"),
          cl::desc("timed runs (default: 200)"));
    b.opt("warmup", warmup, {"a count"}, cl::value_desc("N"),
          cl::desc("untimed runs first (default: 20)"));
    b.opt("batch", batch, {"a count"}, cl::value_desc("B"),
          cl::desc("samples per run of a network with a dynamic batch\n"
                   "(default: 1)"));
    b.opt("json", jsonPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("the figures as JSON ('-': stdout)"));
    b.flag("help", help, true, cl::desc("print this help"));
    b.alias("h", "help");
    b.flag("version", version, true, cl::desc("print the versions"));
  }
  std::string entry;
};

const char kOverview[] =
    "usage: mix-bench MODEL.mlir [options]\n"
    "\n"
    "Compiles a network with mixc for this machine, loads the object into "
    "the\nprocess, runs it on generated inputs and prints its latency "
    "(min, P50,\nP95, P99, mean) and throughput.\n"
    "Exit codes: 0 success, 1 error (compilation or run), 2 bad usage.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

llvm::Expected<BenchOptions> parseCommandLine(llvm::ArrayRef<const char *> args,
                                              llvm::raw_ostream &out) {
  BenchOptions options;
  std::vector<std::string> models;
  OptionsBinder binder;
  options.bindOptions(binder);
  binder.positional("MODEL.mlir", "the model", models);
  if (llvm::Error error = binder.parse(args))
    return std::move(error);
  if (options.help)
    binder.printHelp(out, kOverview);
  if (options.help || options.version)
    return options;
  if (models.size() != 1)
    return llvm::createStringError(
        models.empty() ? "no model given" : "more than one model given");
  if (models[0] == "-")
    return llvm::createStringError(
        "mix-bench reads the model from a file, not standard input");
  options.compile.modelPath = models[0];
  if (options.iterations < 1)
    return llvm::createStringError("--iterations must be at least 1");
  if (options.batch < 1)
    return llvm::createStringError("--batch must be at least 1");
  if (!options.entry.empty())
    options.compile.entries.push_back(options.entry);
  return options;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-bench: error: " << message << "\n";
  return 1;
}

/// Bytes of one element of a header tensor's C type.
size_t elementBytes(const HeaderTensor &t) {
  if (t.cType == "double" || t.cType == "int64_t")
    return 8;
  if (t.cType == "float" || t.cType == "int32_t")
    return 4;
  if (t.cType == "uint16_t" || t.cType == "int16_t")
    return 2;
  return 1;
}

/// A buffer of one tensor for `batch` samples, filled with deterministic
/// values: floats uniform in [-1, 1) (f16/bf16 as their bit patterns),
/// integers 0 (valid embedding indices and labels).
std::vector<uint8_t> makeBuffer(const HeaderTensor &t, int64_t batch,
                                uint64_t seed) {
  int64_t elements = batch;
  for (int64_t d : t.shape)
    elements *= d;
  std::vector<uint8_t> data(elements * elementBytes(t));
  for (int64_t i = 0; i < elements; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    float x = float(double(seed >> 40) / double(1ull << 24)) * 2.0f - 1.0f;
    if (t.mlirType == "f32")
      std::memcpy(&data[i * 4], &x, 4);
    else if (t.mlirType == "f64") {
      double d = x;
      std::memcpy(&data[i * 8], &d, 8);
    } else if (t.mlirType == "f16" || t.mlirType == "bf16") {
      uint16_t bits =
          t.mlirType == "f16" ? mixrt_f32_to_f16(x) : mixrt_f32_to_bf16(x);
      std::memcpy(&data[i * 2], &bits, 2);
    }
  }
  return data;
}

/// A memref descriptor of rank N as MLIR lays it out: two pointers, the
/// offset, N sizes and N strides (row-major, contiguous).
std::vector<int64_t> makeDescriptor(void *data, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> d(3 + 2 * shape.size());
  std::memcpy(&d[0], &data, sizeof(void *));
  std::memcpy(&d[1], &data, sizeof(void *));
  d[2] = 0;
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + shape.size() + i] = stride;
    stride *= shape[i];
  }
  return d;
}

/// Calls the C interface `fn` with `args` descriptor pointers.
bool callEntry(void *fn, llvm::ArrayRef<void *> a) {
  using P = void *;
  switch (a.size()) {
  case 1:
    reinterpret_cast<void (*)(P)>(fn)(a[0]);
    return true;
  case 2:
    reinterpret_cast<void (*)(P, P)>(fn)(a[0], a[1]);
    return true;
  case 3:
    reinterpret_cast<void (*)(P, P, P)>(fn)(a[0], a[1], a[2]);
    return true;
  case 4:
    reinterpret_cast<void (*)(P, P, P, P)>(fn)(a[0], a[1], a[2], a[3]);
    return true;
  case 5:
    reinterpret_cast<void (*)(P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3], a[4]);
    return true;
  case 6:
    reinterpret_cast<void (*)(P, P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                     a[4], a[5]);
    return true;
  case 7:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                        a[4], a[5], a[6]);
    return true;
  case 8:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    return true;
  case 9:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    return true;
  default:
    return false;
  }
}

/// `NAME_WORKSPACE_SIZE ((size_t)Nu)` of the generated header.
std::optional<uint64_t> workspaceSize(llvm::StringRef header,
                                      llvm::StringRef network) {
  std::string key = ("#define " + network + "_WORKSPACE_SIZE ((size_t)").str();
  size_t at = header.find(key);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  uint64_t size = 0;
  if (header.substr(at + key.size()).consumeInteger(10, size))
    return std::nullopt;
  return size;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mix::installCrashHandlers("mix-bench");
  llvm::Expected<BenchOptions> parsed = parseCommandLine(
      llvm::ArrayRef<const char *>(argv + 1, argc - 1), llvm::outs());
  if (!parsed) {
    llvm::errs() << "mix-bench: error: " << llvm::toString(parsed.takeError())
                 << "\nrun 'mix-bench --help' for usage\n";
    return 2;
  }
  BenchOptions &options = *parsed;
  if (options.help)
    return 0;
  if (options.version) {
    printToolVersion(llvm::outs());
    return 0;
  }

  // The signature of the network, as the header presents it.
  MLIRContext context;
  loadMixDialects(context);
  auto module = loadModel(options.compile.modelPath, context);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  llvm::Expected<NetworkOp> network = findNetwork(**module, options.entry);
  if (!network)
    return fail(llvm::toString(network.takeError()));
  std::string name = network->getSymName().str();
  llvm::Expected<std::vector<NetworkSignature>> signatures =
      collectNetworkSignatures(**module);
  if (!signatures)
    return fail(llvm::toString(signatures.takeError()));
  const NetworkSignature *sig = nullptr;
  for (const NetworkSignature &s : *signatures)
    if (s.name == name)
      sig = &s;
  if (!sig)
    return fail("no signature for network @" + name);
  if (options.batch != 1 && !sig->dynamicBatch)
    return fail("--batch " + llvm::Twine(options.batch) + ": network @" + name +
                " has a static batch");
  size_t numArgs = sig->inputs.size() + sig->outputs.size() + 1;
  if (numArgs > 9)
    return fail("network @" + name + " has " + llvm::Twine(numArgs - 1) +
                " inputs and outputs; mix-bench runs at most 8");

  // Compile with mixc into a temporary directory.
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("mix-bench", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  struct RemoveDir {
    std::string path;
    ~RemoveDir() { llvm::sys::fs::remove_directories(path); }
  } removeDir{dir.str().str()};
  options.compile.outputStem = (dir + "/model").str();
  options.compile.progress = ProgressMode::never;
  auto compileStart = std::chrono::steady_clock::now();
  if (int code = runMixc(options.compile, llvm::nulls(), llvm::errs()))
    return code == kMixcUsage ? 2 : 1;
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  auto object = llvm::MemoryBuffer::getFile(dir + "/model.o");
  auto header = llvm::MemoryBuffer::getFile(dir + "/model.h");
  if (!object || !header)
    return fail("mixc wrote no object and header");
  std::optional<uint64_t> wsBytes = workspaceSize((*header)->getBuffer(), name);
  if (!wsBytes)
    return fail("no workspace size for @" + name + " in the header");

  // Load the object; mixrt's symbols come from this process.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return fail("cannot create the JIT: " + llvm::toString(jit.takeError()));
  llvm::orc::JITDylib &dylib = (*jit)->getMainJITDylib();
  llvm::orc::SymbolMap runtime;
  auto &es = (*jit)->getExecutionSession();
  runtime[es.intern("mixrt_check_fail")] = {
      llvm::orc::ExecutorAddr::fromPtr(&mixrt_check_fail),
      llvm::JITSymbolFlags::Exported};
  if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(runtime)))
    return fail(llvm::toString(std::move(e)));
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return fail(llvm::toString(process.takeError()));
  dylib.addGenerator(std::move(*process));
  if (llvm::Error e = (*jit)->addObjectFile(std::move(*object)))
    return fail("cannot load the object: " + llvm::toString(std::move(e)));
  auto entry = (*jit)->lookup("_mlir_ciface_mixc_net_" + name);
  if (!entry)
    return fail(llvm::toString(entry.takeError()));
  void *fn = entry->toPtr<void *>();

  // Buffers, descriptors per sample (a dynamic batch is one call per
  // sample, as the header's entry does), the workspace.
  std::vector<std::vector<uint8_t>> buffers;
  uint64_t seed = 1;
  for (const auto *list : {&sig->inputs, &sig->outputs})
    for (const HeaderTensor &t : *list)
      buffers.push_back(makeBuffer(t, t.batched ? options.batch : 1, seed++));
  void *workspace = nullptr;
  if (*wsBytes && posix_memalign(&workspace, 64, *wsBytes) != 0)
    return fail("cannot allocate the workspace of " + llvm::Twine(*wsBytes) +
                " bytes");
  struct FreeWorkspace {
    void *p;
    ~FreeWorkspace() { std::free(p); }
  } freeWorkspace{workspace};
  int64_t samples = sig->dynamicBatch ? options.batch : 1;
  std::vector<std::vector<std::vector<int64_t>>> descriptors(samples);
  std::vector<std::vector<void *>> args(samples);
  for (int64_t s = 0; s < samples; ++s) {
    size_t index = 0;
    for (const auto *list : {&sig->inputs, &sig->outputs})
      for (const HeaderTensor &t : *list) {
        size_t perCall = elementBytes(t);
        for (int64_t d : t.shape)
          perCall *= d;
        uint8_t *base = buffers[index++].data() + (t.batched ? s * perCall : 0);
        descriptors[s].push_back(makeDescriptor(base, t.shape));
      }
    int64_t wsShape[] = {static_cast<int64_t>(*wsBytes)};
    descriptors[s].push_back(makeDescriptor(workspace, wsShape));
    for (std::vector<int64_t> &d : descriptors[s])
      args[s].push_back(d.data());
  }
  auto run = [&]() -> mixrt_status_code {
    mixrt_check_reset();
    for (int64_t s = 0; s < samples; ++s)
      callEntry(fn, args[s]);
    return mixrt_check_status();
  };

  for (unsigned i = 0; i < options.warmup; ++i)
    run();
  std::vector<double> us(options.iterations);
  for (unsigned i = 0; i < options.iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    mixrt_status_code status = run();
    us[i] = std::chrono::duration<double, std::micro>(
                std::chrono::steady_clock::now() - start)
                .count();
    if (status != MIXRT_STATUS_OK)
      return fail("the network failed a run-time check: " +
                  llvm::Twine(mixrt_last_error_message()));
  }
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  // Nearest rank: the smallest value with at least p% of the runs at or
  // below it.
  auto percentile = [&](double p) {
    size_t rank = static_cast<size_t>(
        std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::max<size_t>(rank, 1) - 1];
  };
  double mean = 0;
  for (double v : us)
    mean += v;
  mean /= static_cast<double>(us.size());
  double throughput = static_cast<double>(samples) / (mean / 1e6);

  llvm::outs() << llvm::formatv(
      "mix-bench: @{0} ({1}): -O{2}, checks {3}, batch {4}, {5} runs after "
      "{6} warm-up (compiled in {7:f2} s)\n",
      name, options.compile.modelPath, options.compile.optLevel,
      options.compile.pipeline.checkedCasts ? "on" : "off", samples,
      options.iterations, options.warmup, compileSeconds);
  llvm::outs() << llvm::formatv(
      "  latency us: min {0:f3}  P50 {1:f3}  P95 {2:f3}  P99 {3:f3}  mean "
      "{4:f3}\n",
      sorted.front(), percentile(50), percentile(95), percentile(99), mean);
  llvm::outs() << llvm::formatv("  throughput: {0:f1} samples/s\n", throughput);
  llvm::outs() << llvm::formatv("  workspace: {0} bytes\n", *wsBytes);
  if (!options.jsonPath.empty()) {
    llvm::json::Object json{
        {"network", name},
        {"batch", samples},
        {"iterations", static_cast<int64_t>(options.iterations)},
        {"warmup", static_cast<int64_t>(options.warmup)},
        {"checks", bool(options.compile.pipeline.checkedCasts)},
        {"opt_level", static_cast<int64_t>(options.compile.optLevel)},
        {"latency_us", llvm::json::Object{{"min", sorted.front()},
                                          {"p50", percentile(50)},
                                          {"p95", percentile(95)},
                                          {"p99", percentile(99)},
                                          {"mean", mean},
                                          {"max", sorted.back()}}},
        {"throughput_samples_per_s", throughput},
        {"workspace_bytes", static_cast<int64_t>(*wsBytes)},
        {"compile_seconds", compileSeconds}};
    std::string text =
        llvm::formatv("{0:2}", llvm::json::Value(std::move(json))).str() + "\n";
    if (options.jsonPath == "-") {
      llvm::outs() << text;
    } else {
      // All or nothing, as every tool writes its outputs.
      OutputFiles files;
      files.add(options.jsonPath, std::move(text));
      if (llvm::Error e = files.commit())
        return fail(llvm::toString(std::move(e)));
    }
  }
  return 0;
}
