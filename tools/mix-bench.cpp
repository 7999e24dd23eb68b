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

#include "compiler/CompiledNetwork.h"
#include "compiler/LayerProfile.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/Validate.h"
#include "mixrt/mixrt.h"
#include "support/CrashHandler.h"
#include "support/OutputFiles.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
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
  int32_t threads = 1;
  std::string jsonPath;
  bool profile = false;
  ValidationOptions validation;
  std::string quantiles;
  bool help = false, version = false;

  void bindOptions(OptionsBinder &b) {
    b.heading("Model (as mixc takes it)");
    b.opt("weights", compile.weightsPath, {"a file name"},
          cl::value_desc("FILE"),
          cl::desc("bind external weights from a safetensors file"));
    b.opt("precision-plan", compile.precisionPlanPath, {"a file name"},
          cl::value_desc("FILE"),
          cl::desc("precisions for an ONNX model (docs/onnx.md)"));
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
    b.flag("no-microkernels", compile.pipeline.microkernels.getValue(), false,
           cl::desc("keep the GEMM loops (no mixrt microkernels)"));
    b.flag("no-fusion", compile.pipeline.fuseElementwise.getValue(), false,
           cl::desc("run each elementwise layer as its own loop"));
    b.flag("no-fold-batch-norm", compile.pipeline.foldBatchNorm.getValue(),
           false, cl::desc("keep batch_norm layers after conv2d layers"));
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
    b.opt("threads", threads, {"a count"}, cl::value_desc("N"),
          cl::desc("threads of mixrt's microkernels (default: 1;\n"
                   "mixrt_set_num_threads)"));
    b.opt("batch", batch, {"a count"}, cl::value_desc("B"),
          cl::desc("samples per run of a network with a dynamic batch\n"
                   "(default: 1)"));
    b.flag("profile", profile, true,
           cl::desc("also time every layer (a second, instrumented\n"
                    "build) and print the per-layer profile"));
    b.heading("Accuracy");
    b.opt("validate", validation.samplesPath, {"a file name"},
          cl::value_desc("FILE"),
          cl::desc("run every sample of FILE (safetensors: input0, ...,\n"
                   "and target0 for a loss) compiled and through the f64\n"
                   "reference; print the errors per output and per layer"));
    b.opt("loss", validation.loss, {}, cl::value_desc("KIND"),
          cl::desc("with --validate: top1 (classifiers), mse or quantile\n"
                   "(regressors, against target0)"));
    b.opt("quantiles", quantiles, {}, cl::value_desc("Q1,Q2,..."),
          cl::desc("with --loss quantile: the quantiles of output 0's\n"
                   "last axis, e.g. 0.1,0.5,0.9"));
    b.opt("json", jsonPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("the figures as JSON ('-': stdout)"));
    b.flag("help", help, true, cl::desc("print this help"));
    b.alias("h", "help");
    b.flag("version", version, true, cl::desc("print the versions"));
  }
  std::string entry;
};

const char kOverview[] =
    "usage: mix-bench MODEL.mlir|MODEL.onnx [options]\n"
    "\n"
    "Compiles a network with mixc for this machine, loads the object into "
    "the\nprocess, runs it on generated inputs and prints its latency "
    "(min, P50,\nP95, P99, mean) and throughput; with --profile, the time "
    "of each layer.\n"
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
  if (options.threads < 1 || options.threads > 256)
    return llvm::createStringError("--threads must be in [1, 256]");
  if (!options.entry.empty())
    options.compile.entries.push_back(options.entry);
  ValidationOptions &v = options.validation;
  if (!v.loss.empty() && v.loss != "top1" && v.loss != "mse" &&
      v.loss != "quantile")
    return llvm::createStringError(
        "--loss must be top1, mse or quantile, got '" + v.loss + "'");
  if (!v.loss.empty() && v.samplesPath.empty())
    return llvm::createStringError("--loss needs --validate FILE");
  if ((v.loss == "quantile") != !options.quantiles.empty())
    return llvm::createStringError(
        "--quantiles goes with --loss quantile, and --loss quantile needs it");
  for (llvm::StringRef rest = options.quantiles; !rest.empty();) {
    auto [item, next] = rest.split(',');
    double q;
    if (item.trim().getAsDouble(q) || !(q > 0 && q < 1))
      return llvm::createStringError("--quantiles: '" + item.str() +
                                     "' is not a number in (0, 1)");
    v.quantiles.push_back(q);
    rest = next;
  }
  return options;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-bench: error: " << message << "\n";
  return 1;
}

struct FreeBuffer {
  void operator()(uint8_t *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t[], FreeBuffer>;

/// A buffer of one tensor for `batch` samples, filled with deterministic
/// values: floats uniform in [-1, 1) (f16/bf16 as their bit patterns),
/// integers 0 (valid embedding indices and labels). An error names the
/// tensor when its size overflows or the memory cannot be had.
llvm::Expected<Buffer> makeBuffer(const HeaderTensor &t, int64_t batch,
                                  uint64_t seed) {
  uint64_t elements = static_cast<uint64_t>(batch), bytes = 0;
  bool overflow = false;
  for (int64_t d : t.shape)
    overflow |=
        __builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements);
  overflow |= __builtin_mul_overflow(
      elements, static_cast<uint64_t>(elementBytes(t)), &bytes);
  auto *raw = overflow ? nullptr
                       : static_cast<uint8_t *>(
                             std::calloc(std::max<uint64_t>(bytes, 1), 1));
  if (!raw)
    return llvm::createStringError(
        "cannot allocate the buffer of '" + t.name + "' (" +
        (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
        " bytes for " + std::to_string(batch) + " sample(s))");
  Buffer data(raw);
  for (uint64_t i = 0; i < elements; ++i) {
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

  llvm::Expected<std::unique_ptr<CompiledNetwork>> compiled =
      CompiledNetwork::compile(options.compile, options.entry, llvm::errs());
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));
  const NetworkSignature &signature = (*compiled)->signature();
  const NetworkSignature *sig = &signature;
  const std::string &name = sig->name;
  if (options.batch != 1 && !sig->dynamicBatch)
    return fail("--batch " + llvm::Twine(options.batch) + ": network @" + name +
                " has a static batch");
  uint64_t wsBytes = (*compiled)->workspaceBytes();
  // The accuracy on a validation set of the object timed below (first: a
  // bad validation file fails before the timing).
  std::optional<Validation> validation;
  if (!options.validation.samplesPath.empty()) {
    auto checked = validate(**compiled, options.compile, options.entry,
                            options.validation);
    if (!checked)
      return fail(llvm::toString(checked.takeError()));
    validation = std::move(*checked);
  }

  // Buffers of the whole batch, the workspace, the descriptors (a dynamic
  // batch is one call per sample, as the header's entry does).
  std::vector<Buffer> buffers;
  std::vector<void *> pointers;
  uint64_t seed = 1;
  for (const auto *list : {&sig->inputs, &sig->outputs})
    for (const HeaderTensor &t : *list) {
      auto buffer = makeBuffer(t, t.batched ? options.batch : 1, seed++);
      if (!buffer)
        return fail(llvm::toString(buffer.takeError()));
      buffers.push_back(std::move(*buffer));
    }
  for (Buffer &b : buffers)
    pointers.push_back(b.get());
  void *workspace = nullptr;
  if (wsBytes && posix_memalign(&workspace, 64, wsBytes) != 0)
    return fail("cannot allocate the workspace of " + llvm::Twine(wsBytes) +
                " bytes");
  struct FreeWorkspace {
    void *p;
    ~FreeWorkspace() { std::free(p); }
  } freeWorkspace{workspace};
  int64_t samples = sig->dynamicBatch ? options.batch : 1;
  if (mixrt_set_num_threads(options.threads) != MIXRT_STATUS_OK)
    return fail(llvm::Twine("--threads: ") + mixrt_last_error_message());
  CompiledNetwork::Call call =
      (*compiled)->prepare(pointers, options.batch, workspace);
  auto run = [&]() -> mixrt_status_code {
    mixrt_check_reset();
    call();
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
      "{6} warm-up (compiled in {7:f2} s){8}\n",
      name, options.compile.modelPath, options.compile.optLevel,
      options.compile.pipeline.checkedCasts ? "on" : "off", samples,
      options.iterations, options.warmup, (*compiled)->compileSeconds(),
      options.threads > 1
          ? llvm::formatv(", {0} threads", options.threads).str()
          : std::string());
  llvm::outs() << llvm::formatv(
      "  latency us: min {0:f3}  P50 {1:f3}  P95 {2:f3}  P99 {3:f3}  mean "
      "{4:f3}\n",
      sorted.front(), percentile(50), percentile(95), percentile(99), mean);
  llvm::outs() << llvm::formatv("  throughput: {0:f1} samples/s\n", throughput);
  llvm::outs() << llvm::formatv("  workspace: {0} bytes\n", wsBytes);
  // The per-layer profile: the same model compiled again with every layer
  // bracketed by clock reads (mix-profile-layers), run as often.
  llvm::json::Array layersJson;
  if (options.profile) {
    CompileOptions profiled = options.compile;
    profiled.pipeline.profileLayers = true;
    llvm::Expected<std::unique_ptr<CompiledNetwork>> instrumented =
        CompiledNetwork::compile(profiled, options.entry, llvm::errs());
    if (!instrumented)
      return fail(llvm::toString(instrumented.takeError()));
    if ((*instrumented)->workspaceBytes() != wsBytes)
      return fail("internal error: the profiled build plans another workspace");
    CompiledNetwork::Call profiledCall =
        (*instrumented)->prepare(pointers, options.batch, workspace);
    for (unsigned i = 0; i < options.warmup; ++i)
      profiledCall();
    resetLayerProfile();
    auto start = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < options.iterations; ++i)
      profiledCall();
    double runs = static_cast<double>(options.iterations);
    double totalUs = std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start)
                         .count() /
                     runs;
    std::vector<LayerTime> times = layerProfile();
    MLIRContext context;
    loadMixDialects(context);
    std::map<std::string, LayerInfo> info;
    if (auto module = loadModel(options.compile.modelPath, context))
      info = describeLayers(**module);
    else
      llvm::consumeError(module.takeError());
    size_t width = 24;
    for (const LayerTime &t : times)
      width = std::max(width, t.where.size());
    llvm::outs() << llvm::formatv(
        "  per layer (a build with clock reads around each layer, mean of "
        "{0} runs: {1:f3} us per run):\n",
        options.iterations, totalUs);
    size_t opWidth = 12;
    for (const auto &[where, layer] : info)
      opWidth = std::max(opWidth, layer.op.size());
    llvm::outs() << "    " << llvm::left_justify("layer", width) << "  "
                 << llvm::left_justify("op", opWidth)
                 << "    us/run   share     GOP/s\n";
    double inLayers = 0;
    for (const LayerTime &t : times) {
      double us = t.seconds * 1e6 / runs;
      inLayers += us;
      const LayerInfo *layer =
          info.count(t.where) ? &info.at(t.where) : nullptr;
      std::string op = layer ? layer->op : "";
      std::optional<double> gops;
      if (layer && layer->ops && t.seconds > 0)
        gops = *layer->ops * static_cast<double>(t.calls) / t.seconds / 1e9;
      llvm::outs() << "    " << llvm::left_justify(t.where, width) << "  "
                   << llvm::left_justify(op, opWidth)
                   << llvm::formatv(" {0,9:f3} {1,6:f1}% {2,9}\n", us,
                                    100.0 * us / totalUs,
                                    gops ? llvm::formatv("{0:f1}", *gops).str()
                                         : std::string("-"));
      llvm::json::Object entry{
          {"layer", t.where},
          {"op", op},
          {"calls_per_run", static_cast<double>(t.calls) / runs},
          {"us_per_run", us},
          {"share", us / totalUs}};
      if (gops)
        entry["gops"] = *gops;
      layersJson.push_back(std::move(entry));
    }
    double outside = std::max(0.0, totalUs - inLayers);
    llvm::outs() << "    " << llvm::left_justify("(between the layers)", width)
                 << "  " << llvm::left_justify("", opWidth)
                 << llvm::formatv(" {0,9:f3} {1,6:f1}%\n", outside,
                                  100.0 * outside / totalUs);
  }

  if (validation)
    printValidation(llvm::outs(), *validation);

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
        {"workspace_bytes", static_cast<int64_t>(wsBytes)},
        {"compile_seconds", (*compiled)->compileSeconds()}};
    if (options.profile)
      json["layers"] = std::move(layersJson);
    if (validation)
      json["validation"] = validationToJson(*validation);
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
