//===- mix-onnx-conformance.cpp - ONNX's backend node tests against mixc --===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Runs ONNX's own backend node tests (Debian's libonnx-testdata: one
// directory per case with `model.onnx` and `test_data_set_*/input_*.pb`,
// `output_*.pb`) through mixc and prints a table per ONNX op
// (docs/onnx.md, "Conformance with ONNX's tests").
//
// A case is *claimed* when every node's op type is one the importer lists in
// getSupportedOnnxOps(). A claimed case is imported in process, compiled at
// f32 with mixc's library (no precision policy), loaded with the ORC JIT
// (CompiledNetwork) and run on every data set; each output must match
// ONNX's expected one with ONNX's backend tolerance. Any case the importer
// does not translate must be refused with its one-line diagnostic.
//
// Each case runs in a forked child with a time limit, so a crash or a hang
// is that case's result, not the runner's end.
//
//===----------------------------------------------------------------------===//

#include "compiler/CompiledNetwork.h"
#include "compiler/Options.h"
#include "compiler/onnx/OnnxImport.h"
#include "mixrt/mixrt.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <poll.h>
#include <set>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace mix;

namespace cl = llvm::cl;

namespace {

/// ONNX's backend tolerance: the loader of ONNX 1.12's backend tests
/// (onnx/backend/test/loader/__init__.py) gives every case with a model.onnx
/// rtol 1e-3 and atol 1e-7, and the runner compares with numpy's
/// assert_allclose: |got - expected| <= atol + rtol * |expected|.
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;

/// The node tests of ONNX 1.12 as Debian installs them.
const char kDefaultRoot[] = "/usr/share/libonnx-testdata/data/node";

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

struct RunnerOptions {
  std::string root = kDefaultRoot;
  std::string filter;
  std::string markdownPath;
  std::string expectedPath;
  unsigned timeoutSeconds = 60;
  unsigned jobs = 1;
  unsigned optLevel = 2;
  bool variants = true;
  bool verbose = false;
  bool help = false;

  void bindOptions(OptionsBinder &b) {
    b.opt("filter", filter, {"a substring"}, cl::value_desc("SUBSTR"),
          cl::desc("run only the cases whose name contains SUBSTR"));
    b.opt("expected", expectedPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("the cases that must pass, one name a line\n"
                   "(tests/onnx/conformance/expected-pass.txt)"));
    b.opt("markdown", markdownPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("also write the per-op table as markdown"));
    b.opt("timeout", timeoutSeconds, {"a count of seconds"},
          cl::value_desc("S"),
          cl::desc("time limit of one case (default: 60)"));
    b.opt("jobs", jobs, {"a count"}, cl::value_desc("N"),
          cl::desc("cases run at once (default: 1)"));
    b.alias("j", "jobs");
    b.opt("O", optLevel, optimizationLevelText(), cl::Prefix,
          cl::value_desc("N"),
          cl::desc("LLVM optimization level -O0 to -O3 (default: -O2)"));
    b.flag("no-variants", variants, false,
           cl::desc("do not run the constant-input variants (CASE+const)"));
    b.flag("verbose", verbose, true,
           cl::desc("print every case with its result and details"));
    b.alias("v", "verbose");
    b.flag("help", help, true, cl::desc("print this help"));
    b.alias("h", "help");
  }
};

const char kOverview[] =
    "usage: mix-onnx-conformance [ROOT] [options]\n"
    "\n"
    "Runs ONNX's backend node tests (every directory of ROOT with a "
    "model.onnx;\ndefault: /usr/share/libonnx-testdata/data/node) through "
    "mixc: the cases whose\nops the importer claims are compiled at f32 and "
    "run on every data set, the\nothers must be refused with a clear error. "
    "Prints a table per op.\n"
    "Exit codes: 0 no defect, 1 a crash, hang, wrong result, compile error "
    "or\nexpected pass that failed, 2 bad usage.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// What happened to one case.
enum class Outcome : int {
  pass,         ///< claimed, every output of every data set matched
  refused,      ///< the import failed with its one-line diagnostic
  mismatch,     ///< a wrong value, shape or element type
  compileError, ///< imported, but mixc could not compile it
  runError,     ///< a run-time check of the compiled code failed
  crash,        ///< the child died by a signal or without a result
  timeout,      ///< the child ran past --timeout
  badCase,      ///< unreadable test data, a refusal without a message, or
                ///< an unclaimed case that imports
  deviation,    ///< a mismatch listed in kKnownDeviations (set by the parent)
};

/// Cases where mix is right and ONNX 1.12's expected data is not (or the
/// data set does not fit the case's own model): their mismatch is reported
/// with the reason, not counted as a failure. A case listed here that
/// passes, or fails otherwise, is reported as usual.
const std::pair<llvm::StringLiteral, llvm::StringLiteral> kKnownDeviations[] = {
    {"test_cast_FLOAT_to_BFLOAT16",
     "the expected bfloat16 values are truncated; mix rounds to nearest "
     "even, as ONNX specifies from opset 19"},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded",
     "the expected bfloat16 values are truncated, and the data set's 'like' "
     "is [1] where the model declares [3, 4]"},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded",
     "the data set's 'like' is [1] where the model declares [3, 4]"},
    {"test_castlike_FLOAT_to_BFLOAT16",
     "the expected bfloat16 values are truncated, and the data set's 'like' "
     "is [1] where the model declares [3, 4]"},
    {"test_castlike_BFLOAT16_to_FLOAT",
     "the data set's 'like' is [1] where the model declares [3, 4]"},
};

/// The reason `name` (a case or its +const variant) deviates, or empty.
llvm::StringRef knownDeviation(llvm::StringRef name) {
  name.consume_back("+const");
  for (const auto &[test, reason] : kKnownDeviations)
    if (name == test)
      return reason;
  return {};
}

const char *outcomeName(Outcome o) {
  switch (o) {
  case Outcome::pass:
    return "pass";
  case Outcome::refused:
    return "refused";
  case Outcome::mismatch:
    return "mismatch";
  case Outcome::compileError:
    return "compile error";
  case Outcome::runError:
    return "run error";
  case Outcome::crash:
    return "crash";
  case Outcome::timeout:
    return "timeout";
  case Outcome::badCase:
    return "bad case";
  case Outcome::deviation:
    return "deviation";
  }
  llvm_unreachable("every outcome is named");
}

bool isFailure(Outcome o) {
  return o != Outcome::pass && o != Outcome::refused && o != Outcome::deviation;
}

struct CaseResult {
  Outcome outcome = Outcome::crash;
  /// One line: the refusal's diagnostic, the first mismatch, the signal.
  std::string message;
  double seconds = 0;
};

/// One case directory.
struct Case {
  std::string name;
  std::string dir;
  /// The distinct op types of its nodes (`domain.Op` outside the default
  /// domain), sorted.
  std::vector<std::string> ops;
  /// Every node is of an op the importer claims.
  bool claimed = false;
  /// The names of the graph inputs that are not initializers, in order:
  /// the network's inputs.
  std::vector<std::string> inputs;
  /// The variant `NAME+const` of a claimed case with several inputs: every
  /// input but the first is a constant (an initializer holding the first
  /// data set's tensor), so the importer's paths for constant weights,
  /// shapes and parameters (Conv, Gemm, BatchNormalization, Reshape, ...)
  /// meet ONNX's expected outputs too.
  bool constantInputs = false;
  /// For variants: the directory the runner gives it for its model.
  std::string workDir;
  CaseResult result;
};

/// The first line of `text`, without the model path the importer puts in
/// front of it.
std::string firstLine(llvm::StringRef text, llvm::StringRef path) {
  llvm::StringRef line = text.split('\n').first.trim();
  size_t at = line.find(path);
  if (at != llvm::StringRef::npos) {
    llvm::StringRef rest = line.substr(at + path.size());
    if (rest.consume_front(": "))
      line = rest;
  }
  return line.str();
}

/// The result of an import that failed: refused with its first line, which
/// must say something.
CaseResult refusal(llvm::Error error, llvm::StringRef modelPath) {
  std::string line = firstLine(llvm::toString(std::move(error)), modelPath);
  if (line.empty())
    return {Outcome::badCase, "the import failed without a message"};
  return {Outcome::refused, line};
}

//===----------------------------------------------------------------------===//
// Tensors of the test data
//===----------------------------------------------------------------------===//

/// A TensorProto of a data set, as the bytes of a C array.
struct Tensor {
  int32_t dtype = 0;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

/// The element type of a network's tensor in the generated header (`f32`,
/// `ui8`, ...) for an ONNX data type, and its size in bytes; nullptr for
/// types mixc's headers have no C type for.
const char *headerType(int32_t dtype, size_t &bytes) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    bytes = 4;
    return "f32";
  case onnx::TensorProto::DOUBLE:
    bytes = 8;
    return "f64";
  case onnx::TensorProto::FLOAT16:
    bytes = 2;
    return "f16";
  case onnx::TensorProto::BFLOAT16:
    bytes = 2;
    return "bf16";
  case onnx::TensorProto::INT64:
    bytes = 8;
    return "i64";
  case onnx::TensorProto::INT32:
    bytes = 4;
    return "i32";
  case onnx::TensorProto::INT16:
    bytes = 2;
    return "i16";
  case onnx::TensorProto::INT8:
    bytes = 1;
    return "i8";
  case onnx::TensorProto::UINT8:
    bytes = 1;
    return "ui8";
  case onnx::TensorProto::BOOL:
    bytes = 1;
    return "i1";
  default:
    bytes = 0;
    return nullptr;
  }
}

/// Stores the low `bytes` bytes of each value (little-endian host).
template <typename T>
void appendValues(std::vector<uint8_t> &out, const T &values, size_t bytes) {
  for (auto v : values) {
    auto wide = static_cast<uint64_t>(v);
    uint8_t b[8];
    std::memcpy(b, &wide, 8);
    out.insert(out.end(), b, b + bytes);
  }
}

/// Reads one `input_N.pb` / `output_N.pb`.
llvm::Expected<Tensor> readTensor(const std::string &path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   (path + ": " + why).str());
  };
  std::ifstream in(path, std::ios::binary);
  onnx::TensorProto proto;
  if (!in || !proto.ParseFromIstream(&in))
    return fail("not a serialized onnx.TensorProto");
  Tensor t;
  t.dtype = proto.data_type();
  // ONNX 1.12's test data stores bfloat16 tensors as UINT16 (its numpy
  // helpers had no bfloat16). mix takes no uint16 tensor, so a claimed case
  // never has a real one: a UINT16 tensor here holds bfloat16 bits.
  if (t.dtype == onnx::TensorProto::UINT16)
    t.dtype = onnx::TensorProto::BFLOAT16;
  t.dims.assign(proto.dims().begin(), proto.dims().end());
  size_t bytes = 0;
  if (!headerType(t.dtype, bytes))
    return fail("element type " + llvm::Twine(t.dtype) +
                " has no C type in mixc's headers");
  int64_t elements = 1;
  for (int64_t d : t.dims)
    elements *= d;
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    t.bytes.assign(raw.begin(), raw.end());
  } else if (t.dtype == onnx::TensorProto::FLOAT) {
    for (float f : proto.float_data()) {
      uint8_t b[4];
      std::memcpy(b, &f, 4);
      t.bytes.insert(t.bytes.end(), b, b + 4);
    }
  } else if (t.dtype == onnx::TensorProto::DOUBLE) {
    for (double f : proto.double_data()) {
      uint8_t b[8];
      std::memcpy(b, &f, 8);
      t.bytes.insert(t.bytes.end(), b, b + 8);
    }
  } else if (t.dtype == onnx::TensorProto::INT64) {
    appendValues(t.bytes, proto.int64_data(), 8);
  } else {
    // int32, int16, int8, uint8, float16 and bfloat16 (bit patterns) are
    // stored in int32_data.
    appendValues(t.bytes, proto.int32_data(), bytes);
  }
  if (static_cast<int64_t>(t.bytes.size()) != elements * int64_t(bytes))
    return fail("holds " + llvm::Twine(t.bytes.size()) + " bytes for " +
                llvm::Twine(elements) + " elements");
  return t;
}

/// Element `i` of a buffer of header type `type`, as a double.
double elementAt(llvm::StringRef type, const uint8_t *data, int64_t i) {
  auto load = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, data + i * sizeof(v), sizeof(v));
    return v;
  };
  if (type == "f32")
    return load(float());
  if (type == "f64")
    return load(double());
  if (type == "f16")
    return mixrt_f16_to_f64(load(uint16_t()));
  if (type == "bf16")
    return mixrt_bf16_to_f64(load(uint16_t()));
  if (type == "i64")
    return static_cast<double>(load(int64_t()));
  if (type == "i32")
    return load(int32_t());
  if (type == "i16")
    return load(int16_t());
  if (type == "i8")
    return load(int8_t());
  return load(uint8_t());
}

/// ONNX's comparison (numpy's assert_allclose with equal_nan): NaN matches
/// NaN, an infinity the same infinity.
bool close(double got, double expected) {
  if (std::isnan(got) || std::isnan(expected))
    return std::isnan(got) && std::isnan(expected);
  if (std::isinf(got) || std::isinf(expected))
    return got == expected;
  return std::fabs(got - expected) <= kAtol + kRtol * std::fabs(expected);
}

std::string shapeString(llvm::ArrayRef<int64_t> dims) {
  return "[" +
         llvm::join(
             llvm::map_range(dims, [](int64_t d) { return std::to_string(d); }),
             ", ") +
         "]";
}

//===----------------------------------------------------------------------===//
// One case, in the child
//===----------------------------------------------------------------------===//

/// The data sets of a case, sorted by name.
std::vector<std::string> dataSets(const std::string &dir) {
  std::vector<std::string> sets;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("test_data_set_"))
      sets.push_back(it->path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

/// `prefix_0.pb`, `prefix_1.pb`, ... of a data set, in order (at most
/// `limit` of them).
llvm::Expected<std::vector<Tensor>> readNumbered(const std::string &set,
                                                 llvm::StringRef prefix,
                                                 size_t limit = SIZE_MAX) {
  std::vector<Tensor> tensors;
  for (unsigned i = 0; i < limit; ++i) {
    std::string path =
        (set + "/" + prefix + "_" + llvm::Twine(i) + ".pb").str();
    if (!llvm::sys::fs::exists(path))
      return tensors;
    llvm::Expected<Tensor> t = readTensor(path);
    if (!t)
      return t.takeError();
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

/// Writes the model of a constant-input variant to `c.workDir`: the case's
/// model with every graph input but the first turned into an initializer
/// holding the first data set's tensor. Returns its path.
llvm::Expected<std::string> writeConstantInputModel(const Case &c) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why.str());
  };
  onnx::ModelProto model;
  std::ifstream in(c.dir + "/model.onnx", std::ios::binary);
  if (!in || !model.ParseFromIstream(&in))
    return fail("model.onnx is not an ONNX model");
  std::vector<std::string> sets = dataSets(c.dir);
  if (sets.empty())
    return fail("no test_data_set_* directory");
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringSet<> frozen;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    std::string path =
        (sets.front() + "/input_" + llvm::Twine(i) + ".pb").str();
    std::ifstream data(path, std::ios::binary);
    onnx::TensorProto *t = graph.add_initializer();
    if (!data || !t->ParseFromIstream(&data))
      return fail(path + ": not a serialized onnx.TensorProto");
    t->set_name(c.inputs[i]);
    // bfloat16 stored as UINT16 (see readTensor).
    if (t->data_type() == onnx::TensorProto::UINT16)
      t->set_data_type(onnx::TensorProto::BFLOAT16);
    frozen.insert(c.inputs[i]);
  }
  // Before IR version 4 every initializer must also be a graph input (the
  // checker refuses the model otherwise); the importer skips such inputs.
  bool listInitializers = model.ir_version() < 4;
  std::vector<onnx::ValueInfoProto> kept;
  for (const onnx::ValueInfoProto &v : graph.input())
    if (listInitializers || !frozen.contains(v.name()))
      kept.push_back(v);
  graph.clear_input();
  for (onnx::ValueInfoProto &v : kept)
    *graph.add_input() = std::move(v);
  if (std::error_code ec = llvm::sys::fs::create_directories(c.workDir))
    return fail("cannot create '" + c.workDir + "': " + ec.message());
  std::string path = c.workDir + "/model.onnx";
  std::ofstream out(path, std::ios::binary);
  if (!out || !model.SerializeToOstream(&out))
    return fail("cannot write '" + path + "'");
  return path;
}

/// Imports, compiles and runs a claimed case on every data set (a
/// constant-input variant on the first one, with its first input).
CaseResult runClaimed(const Case &c, const RunnerOptions &options) {
  std::string modelPath = c.dir + "/model.onnx";
  if (c.constantInputs) {
    llvm::Expected<std::string> written = writeConstantInputModel(c);
    if (!written)
      return {Outcome::badCase, llvm::toString(written.takeError())};
    modelPath = *written;
  }
  size_t numInputs = c.constantInputs ? 1 : c.inputs.size();
  {
    mlir::MLIRContext context;
    context.disableMultithreading();
    OnnxImportOptions importOptions;
    importOptions.inlineAll = true;
    llvm::Expected<ImportedOnnxModel> imported =
        importOnnxFile(modelPath, context, importOptions);
    if (!imported)
      return refusal(imported.takeError(), modelPath);
  }

  // What mixc does with the model, every precision f32 (the importer's
  // default) and no policy; the object loaded into this process.
  CompileOptions compile;
  compile.modelPath = modelPath;
  compile.pipeline.verifyPolicy = false;
  compile.optLevel = options.optLevel;
  compile.progress = ProgressMode::never;
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  llvm::Expected<std::unique_ptr<CompiledNetwork>> compiled =
      CompiledNetwork::compile(compile, "", diagStream);
  if (!compiled) {
    std::string error = llvm::toString(compiled.takeError());
    return {Outcome::compileError,
            firstLine(diagnostics.empty() ? error : diagnostics, modelPath)};
  }
  const NetworkSignature &sig = (*compiled)->signature();
  if (sig.inputs.size() != numInputs)
    return {Outcome::mismatch,
            llvm::formatv("the network has {0} inputs, the graph {1}",
                          sig.inputs.size(), numInputs)};

  std::vector<std::string> sets = dataSets(c.dir);
  if (sets.empty())
    return {Outcome::badCase, "no test_data_set_* directory"};
  if (c.constantInputs)
    sets.resize(1);
  std::vector<uint8_t> workspaceStorage((*compiled)->workspaceBytes() + 64);
  void *workspace =
      workspaceStorage.data() +
      (64 - reinterpret_cast<uintptr_t>(workspaceStorage.data()) % 64) % 64;
  for (const std::string &set : sets) {
    std::string setName = llvm::sys::path::filename(set).str();
    // A variant's other inputs are in its model.
    auto inputs = readNumbered(set, "input", c.constantInputs ? 1 : SIZE_MAX);
    auto outputs =
        inputs ? readNumbered(set, "output")
               : llvm::Expected<std::vector<Tensor>>(std::vector<Tensor>());
    if (!inputs || !outputs) {
      llvm::Error e = inputs ? outputs.takeError() : inputs.takeError();
      return {Outcome::badCase, llvm::toString(std::move(e))};
    }
    if (inputs->size() != sig.inputs.size() ||
        outputs->size() != sig.outputs.size())
      return {Outcome::mismatch,
              llvm::formatv("{0}: {1} inputs and {2} outputs for a network "
                            "of {3} inputs and {4} outputs",
                            setName, inputs->size(), outputs->size(),
                            sig.inputs.size(), sig.outputs.size())};

    // The batch of a network with a dynamic batch is that of its inputs.
    int64_t batch = 1;
    if (sig.dynamicBatch)
      for (auto [t, data] : llvm::zip(sig.inputs, *inputs))
        if (t.batched && !data.dims.empty())
          batch = data.dims[0];
    auto fullShape = [&](const HeaderTensor &t) {
      std::vector<int64_t> dims = t.shape;
      if (t.batched && !dims.empty())
        dims[0] *= batch;
      return dims;
    };

    std::vector<void *> buffers;
    for (auto [index, pair] : llvm::enumerate(llvm::zip(sig.inputs, *inputs))) {
      auto &[t, data] = pair;
      size_t bytes;
      const char *type = headerType(data.dtype, bytes);
      if (type != t.mlirType || fullShape(t) != data.dims)
        return {Outcome::mismatch,
                llvm::formatv("input {0} ('{1}'): the network takes {2} x {3}, "
                              "the data set has {4} x {5}",
                              index, c.inputs[index], shapeString(fullShape(t)),
                              t.mlirType, shapeString(data.dims), type)};
      buffers.push_back(data.bytes.data());
    }
    // Outputs start as all-ones bytes (NaN, -1), so an output the code
    // never writes does not pass by chance as zeros.
    std::vector<std::vector<uint8_t>> results;
    for (const HeaderTensor &t : sig.outputs) {
      int64_t elements = 1;
      for (int64_t d : fullShape(t))
        elements *= d;
      results.emplace_back(elements * elementBytes(t), 0xff);
    }
    for (std::vector<uint8_t> &r : results)
      buffers.push_back(r.data());

    CompiledNetwork::Call call =
        (*compiled)->prepare(buffers, batch, workspace);
    mixrt_check_reset();
    call();
    if (mixrt_check_status() != MIXRT_STATUS_OK)
      return {Outcome::runError, setName + ": " + mixrt_last_error_message()};

    for (auto [index, t] : llvm::enumerate(sig.outputs)) {
      const Tensor &expected = (*outputs)[index];
      size_t bytes;
      const char *type = headerType(expected.dtype, bytes);
      std::vector<int64_t> shape = fullShape(t);
      if (type != t.mlirType || shape != expected.dims)
        return {Outcome::mismatch,
                llvm::formatv("{0}: output {1} is {2} x {3}, ONNX expects "
                              "{4} x {5}",
                              setName, index, shapeString(shape), t.mlirType,
                              shapeString(expected.dims), type)};
      int64_t elements = static_cast<int64_t>(expected.bytes.size() / bytes);
      int64_t wrong = 0, first = -1;
      for (int64_t i = 0; i < elements; ++i)
        if (!close(elementAt(t.mlirType, results[index].data(), i),
                   elementAt(t.mlirType, expected.bytes.data(), i))) {
          ++wrong;
          if (first < 0)
            first = i;
        }
      if (wrong)
        return {
            Outcome::mismatch,
            llvm::formatv(
                "{0}: output {1}: {2} of {3} elements differ; first at "
                "index {4}: got {5}, expected {6}",
                setName, index, wrong, elements, first,
                llvm::format("%.9g", elementAt(t.mlirType,
                                               results[index].data(), first)),
                llvm::format("%.9g", elementAt(t.mlirType,
                                               expected.bytes.data(), first)))};
    }
  }
  return {Outcome::pass,
          llvm::formatv("{0} data set(s) match", sets.size()).str()};
}

/// A case with an op the importer does not claim must be refused.
CaseResult runUnclaimed(const Case &c) {
  std::string modelPath = c.dir + "/model.onnx";
  mlir::MLIRContext context;
  context.disableMultithreading();
  OnnxImportOptions importOptions;
  importOptions.inlineAll = true;
  llvm::Expected<ImportedOnnxModel> imported =
      importOnnxFile(modelPath, context, importOptions);
  if (!imported)
    return refusal(imported.takeError(), modelPath);
  return {Outcome::badCase,
          "imported although it has ops the importer does not claim"};
}

//===----------------------------------------------------------------------===//
// Children
//===----------------------------------------------------------------------===//

/// Result records on the pipe: the outcome's number, a space, the message.
void writeAll(int fd, llvm::StringRef text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0)
      return;
    text = text.drop_front(n);
  }
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  size_t caseIndex = 0;
  std::chrono::steady_clock::time_point start;
  std::string record;
  bool eof = false;
};

/// Forks a child that runs `c` and writes its result record.
llvm::Expected<Child> startCase(const Case &c, size_t index,
                                const RunnerOptions &options) {
  int fds[2];
  if (::pipe(fds) != 0)
    return llvm::createStringError("cannot create a pipe");
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return llvm::createStringError("cannot fork");
  }
  if (pid == 0) {
    // The child: its own process group (a timeout kills the group, with
    // libonnx's checker child), quiet unless --verbose.
    ::setpgid(0, 0);
    ::close(fds[0]);
    if (!options.verbose) {
      int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) {
        ::dup2(null, 1);
        ::dup2(null, 2);
      }
    }
    CaseResult r = c.claimed ? runClaimed(c, options) : runUnclaimed(c);
    std::string message = r.message;
    std::replace(message.begin(), message.end(), '\n', ' ');
    if (message.size() > 4000)
      message.resize(4000);
    writeAll(fds[1], std::to_string(int(r.outcome)) + " " + message);
    ::close(fds[1]);
    // No static destructors, no flushing of the parent's buffers.
    ::_exit(0);
  }
  ::setpgid(pid, pid);
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  Child child;
  child.pid = pid;
  child.fd = fds[0];
  child.caseIndex = index;
  child.start = std::chrono::steady_clock::now();
  return child;
}

void drain(Child &child) {
  char buffer[4096];
  while (true) {
    ssize_t n = ::read(child.fd, buffer, sizeof(buffer));
    if (n > 0) {
      child.record.append(buffer, n);
      continue;
    }
    if (n == 0)
      child.eof = true;
    return;
  }
}

/// The result of a child that ended with `status`.
CaseResult finish(Child &child, int status) {
  drain(child);
  ::close(child.fd);
  CaseResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            child.start)
                  .count();
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    r.outcome = Outcome::crash;
    const char *abbrev = sigabbrev_np(sig);
    r.message = llvm::formatv("killed by SIG{0} ({1})",
                              abbrev ? abbrev : std::to_string(sig).c_str(),
                              strsignal(sig));
    return r;
  }
  llvm::StringRef record(child.record);
  auto [number, message] = record.split(' ');
  int outcome;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      number.getAsInteger(10, outcome) || outcome < 0 ||
      outcome > int(Outcome::badCase)) {
    r.outcome = Outcome::crash;
    r.message = llvm::formatv("exited with status {0} without a result",
                              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return r;
  }
  r.outcome = static_cast<Outcome>(outcome);
  r.message = message.str();
  return r;
}

/// Runs every case, `options.jobs` at once, each in its own child.
llvm::Error runAll(std::vector<Case> &cases, const RunnerOptions &options,
                   llvm::function_ref<void(const Case &)> done) {
  std::vector<Child> running;
  size_t next = 0;
  auto limit = std::chrono::seconds(options.timeoutSeconds);
  while (next < cases.size() || !running.empty()) {
    while (next < cases.size() && running.size() < options.jobs) {
      llvm::Expected<Child> child = startCase(cases[next], next, options);
      if (!child)
        return child.takeError();
      running.push_back(std::move(*child));
      ++next;
    }
    // Wait for output (so the pipes never fill up) or 20 ms; a child whose
    // pipe is closed is exiting, and is waited for every millisecond.
    std::vector<pollfd> fds;
    bool exiting = false;
    for (Child &child : running) {
      if (!child.eof)
        fds.push_back({child.fd, POLLIN, 0});
      exiting |= child.eof;
    }
    ::poll(fds.data(), fds.size(), exiting ? 1 : 20);
    for (size_t i = 0; i < running.size();) {
      Child &child = running[i];
      drain(child);
      int status = 0;
      pid_t ended = ::waitpid(child.pid, &status, WNOHANG);
      Case &c = cases[child.caseIndex];
      if (ended == child.pid) {
        c.result = finish(child, status);
        llvm::StringRef reason = knownDeviation(c.name);
        if (c.result.outcome == Outcome::mismatch && !reason.empty())
          c.result = {Outcome::deviation,
                      (reason + " (" + c.result.message + ")").str(),
                      c.result.seconds};
      } else if (std::chrono::steady_clock::now() - child.start > limit) {
        ::kill(-child.pid, SIGKILL);
        ::waitpid(child.pid, &status, 0);
        ::close(child.fd);
        c.result = {
            Outcome::timeout,
            llvm::formatv("no result after {0} s", options.timeoutSeconds)
                .str(),
            double(options.timeoutSeconds)};
      } else {
        ++i;
        continue;
      }
      done(c);
      running.erase(running.begin() + i);
    }
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The cases, the table, the expectations
//===----------------------------------------------------------------------===//

/// The suffix of the name of a constant-input variant.
const char kVariantSuffix[] = "+const";

/// Every directory of `root` with a model.onnx, with its ops read from the
/// model, and (if `variants`) the constant-input variant of each claimed
/// case with several inputs; those whose name contains `filter`, sorted.
llvm::Expected<std::vector<Case>>
findCases(const std::string &root, llvm::StringRef filter, bool variants) {
  if (!llvm::sys::fs::is_directory(root))
    return llvm::createStringError("'" + root + "' is not a directory");
  llvm::StringSet<> supported;
  for (const std::string &op : getSupportedOnnxOps())
    supported.insert(op);
  std::vector<Case> cases;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; it != end && !ec;
       it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    std::string model = it->path() + "/model.onnx";
    if (!(llvm::StringRef(name).contains(filter) ||
          (variants &&
           llvm::StringRef(name + kVariantSuffix).contains(filter))) ||
        !llvm::sys::fs::exists(model))
      continue;
    Case c;
    c.name = name;
    c.dir = it->path();
    onnx::ModelProto proto;
    std::ifstream in(model, std::ios::binary);
    if (!in || !proto.ParseFromIstream(&in)) {
      c.result = {Outcome::badCase, "model.onnx is not an ONNX model"};
      cases.push_back(std::move(c));
      continue;
    }
    std::set<std::string> ops;
    c.claimed = true;
    for (const onnx::NodeProto &node : proto.graph().node()) {
      bool defaultDomain = node.domain().empty();
      ops.insert(defaultDomain ? node.op_type()
                               : node.domain() + "." + node.op_type());
      c.claimed &= defaultDomain && supported.contains(node.op_type());
    }
    c.ops.assign(ops.begin(), ops.end());
    llvm::StringSet<> initializers;
    for (const onnx::TensorProto &t : proto.graph().initializer())
      initializers.insert(t.name());
    for (const onnx::ValueInfoProto &v : proto.graph().input())
      if (!initializers.contains(v.name()))
        c.inputs.push_back(v.name());
    if (variants && c.claimed && c.inputs.size() > 1) {
      Case variant = c;
      variant.name += kVariantSuffix;
      variant.constantInputs = true;
      cases.push_back(std::move(variant));
    }
    cases.push_back(std::move(c));
  }
  if (ec)
    return llvm::createStringError("cannot list '" + root +
                                   "': " + ec.message());
  llvm::erase_if(cases, [&](const Case &c) {
    return !llvm::StringRef(c.name).contains(filter);
  });
  llvm::sort(cases,
             [](const Case &a, const Case &b) { return a.name < b.name; });
  return cases;
}

/// The names of expected-pass.txt: one a line, `#` starts a comment.
llvm::Expected<std::vector<std::string>> readExpected(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + buffer.getError().message());
  std::vector<std::string> names;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      names.push_back(line.str());
  }
  return names;
}

struct Row {
  unsigned cases = 0, passed = 0, refused = 0, failed = 0, deviated = 0;
  void add(Outcome o) {
    ++cases;
    if (o == Outcome::pass)
      ++passed;
    else if (o == Outcome::refused)
      ++refused;
    else if (o == Outcome::deviation)
      ++deviated;
    else
      ++failed;
  }
};

/// The table: one row per claimed op (a case counts in the row of each of
/// its ops), one for the cases with ops the importer does not claim, the
/// total.
using Table = std::vector<std::pair<std::string, Row>>;

Table makeTable(const std::vector<Case> &cases, bool constantInputs) {
  std::map<std::string, Row> perOp;
  Row unclaimed, total;
  for (const Case &c : cases) {
    if (c.constantInputs != constantInputs)
      continue;
    total.add(c.result.outcome);
    if (!c.claimed) {
      unclaimed.add(c.result.outcome);
      continue;
    }
    for (const std::string &op : c.ops)
      perOp[op].add(c.result.outcome);
  }
  Table rows(perOp.begin(), perOp.end());
  if (!constantInputs)
    rows.emplace_back("(other ops)", unclaimed);
  rows.emplace_back("total", total);
  return rows;
}

void printTable(llvm::raw_ostream &os, const Table &rows) {
  os << llvm::formatv("{0,-20} {1,6} {2,7} {3,8} {4,7} {5,9}\n", "op", "cases",
                      "passed", "refused", "failed", "deviates");
  for (const auto &[op, r] : rows)
    os << llvm::formatv("{0,-20} {1,6} {2,7} {3,8} {4,7} {5,9}\n", op, r.cases,
                        r.passed, r.refused, r.failed, r.deviated);
}

void markdownTable(llvm::raw_ostream &os, const Table &rows) {
  os << "| op | cases | passed | refused | failed | deviates |\n";
  os << "|----|------:|-------:|--------:|-------:|---------:|\n";
  for (const auto &[op, r] : rows) {
    std::string name = op.front() == '(' || op == "total" ? op : "`" + op + "`";
    os << "| " << name << " | " << r.cases << " | " << r.passed << " | "
       << r.refused << " | " << r.failed << " | " << r.deviated << " |\n";
  }
}

llvm::Expected<RunnerOptions>
parseCommandLine(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out) {
  RunnerOptions options;
  std::vector<std::string> roots;
  OptionsBinder binder;
  options.bindOptions(binder);
  binder.positional("ROOT", "the directory of the cases", roots);
  if (llvm::Error error = binder.parse(args))
    return std::move(error);
  if (options.help) {
    binder.printHelp(out, kOverview);
    return options;
  }
  if (roots.size() > 1)
    return llvm::createStringError("more than one ROOT given");
  if (!roots.empty())
    options.root = roots[0];
  if (options.jobs < 1 || options.jobs > 64)
    return llvm::createStringError("--jobs must be in [1, 64]");
  if (options.timeoutSeconds < 1)
    return llvm::createStringError("--timeout must be at least 1");
  return options;
}

} // namespace

int main(int argc, char **argv) {
  llvm::llvm_shutdown_obj shutdown;
  llvm::Expected<RunnerOptions> parsed = parseCommandLine(
      llvm::ArrayRef<const char *>(argv + 1, argc - 1), llvm::outs());
  if (!parsed) {
    llvm::errs() << "mix-onnx-conformance: error: "
                 << llvm::toString(parsed.takeError())
                 << "\nrun 'mix-onnx-conformance --help' for usage\n";
    return 2;
  }
  RunnerOptions &options = *parsed;
  if (options.help)
    return 0;
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "mix-onnx-conformance: error: " << message << "\n";
    return 2;
  };

  std::vector<std::string> expected;
  if (!options.expectedPath.empty()) {
    auto names = readExpected(options.expectedPath);
    if (!names)
      return fail(llvm::toString(names.takeError()));
    expected = std::move(*names);
  }
  llvm::Expected<std::vector<Case>> found =
      findCases(options.root, options.filter, options.variants);
  if (!found)
    return fail(llvm::toString(found.takeError()));
  std::vector<Case> &cases = *found;
  if (cases.empty())
    return fail("no case under '" + options.root + "'" +
                (options.filter.empty()
                     ? std::string()
                     : " matches --filter '" + options.filter + "'"));

  // The models of the variants go to a directory of their own, removed at
  // the end.
  llvm::SmallString<128> workRoot;
  if (llvm::any_of(cases, [](const Case &c) { return c.constantInputs; })) {
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
            "mix-onnx-conformance", workRoot))
      return fail("cannot create a temporary directory: " + ec.message());
    for (Case &c : cases)
      if (c.constantInputs)
        c.workDir = (workRoot + "/" + c.name).str();
  }
  struct RemoveWorkRoot {
    std::string path;
    ~RemoveWorkRoot() {
      if (!path.empty())
        llvm::sys::fs::remove_directories(path);
    }
  } removeWorkRoot{workRoot.str().str()};

  // Cases whose model cannot be read already have their result.
  std::vector<Case> toRun, unreadable;
  for (Case &c : cases)
    (c.result.outcome == Outcome::badCase ? unreadable : toRun)
        .push_back(std::move(c));
  auto start = std::chrono::steady_clock::now();
  auto variants =
      llvm::count_if(toRun, [](const Case &c) { return c.constantInputs; });
  llvm::outs() << llvm::formatv(
      "mix-onnx-conformance: {0} case(s) under {1}, {2} claimed, {3} "
      "constant-input variant(s); -O{4}, {5} job(s), {6} s per case\n",
      toRun.size() + unreadable.size() - variants, options.root,
      llvm::count_if(
          toRun, [](const Case &c) { return c.claimed && !c.constantInputs; }),
      variants, options.optLevel, options.jobs, options.timeoutSeconds);
  auto report = [&](const Case &c) {
    if (!options.verbose && !isFailure(c.result.outcome))
      return;
    llvm::outs() << llvm::formatv(
        "{0,-14} {1}{2}: {3}\n", outcomeName(c.result.outcome), c.name,
        c.claimed ? "" : " (not claimed)", c.result.message);
    if (options.verbose)
      llvm::outs() << llvm::formatv("{0,-14} ops {1}; {2:f2} s\n", "",
                                    llvm::join(c.ops, ", "), c.result.seconds);
    llvm::outs().flush();
  };
  for (const Case &c : unreadable)
    report(c);
  if (llvm::Error e = runAll(toRun, options, report))
    return fail(llvm::toString(std::move(e)));
  for (Case &c : unreadable)
    toRun.push_back(std::move(c));
  cases = std::move(toRun);
  llvm::sort(cases,
             [](const Case &a, const Case &b) { return a.name < b.name; });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  Table onnxTable = makeTable(cases, /*constantInputs=*/false);
  Table variantTable = makeTable(cases, /*constantInputs=*/true);
  const char kOnnxHeading[] = "ONNX's cases:";
  const char kVariantHeading[] =
      "Constant-input variants (CASE+const: every input but the first is a "
      "constant):";
  llvm::outs() << "\n" << kOnnxHeading << "\n";
  printTable(llvm::outs(), onnxTable);
  if (variants) {
    llvm::outs() << "\n" << kVariantHeading << "\n";
    printTable(llvm::outs(), variantTable);
  }

  // Expectations: every listed case (that --filter selects) must pass;
  // passing cases not listed are to be added.
  unsigned defects = 0;
  for (const Case &c : cases)
    defects += isFailure(c.result.outcome);
  unsigned regressions = 0;
  if (!options.expectedPath.empty()) {
    llvm::StringMap<const Case *> byName;
    for (const Case &c : cases)
      byName[c.name] = &c;
    llvm::StringSet<> listed;
    for (const std::string &name : expected) {
      listed.insert(name);
      if (!llvm::StringRef(name).contains(options.filter) ||
          (!options.variants &&
           llvm::StringRef(name).ends_with(kVariantSuffix)))
        continue;
      const Case *c = byName.lookup(name);
      if (!c) {
        llvm::outs() << "expected to pass but not found under " << options.root
                     << ": " << name << "\n";
        ++regressions;
      } else if (c->result.outcome != Outcome::pass) {
        llvm::outs() << "expected to pass but "
                     << outcomeName(c->result.outcome) << ": " << name << ": "
                     << c->result.message << "\n";
        ++regressions;
      }
    }
    for (const Case &c : cases)
      if (c.result.outcome == Outcome::pass && !listed.contains(c.name))
        llvm::outs() << "newly passing: add to expected-pass.txt: " << c.name
                     << "\n";
  }

  if (!options.markdownPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream md(options.markdownPath, ec);
    if (ec)
      return fail("cannot write '" + options.markdownPath +
                  "': " + ec.message());
    md << "<!-- generated by mix-onnx-conformance --markdown from "
       << options.root << " -->\n\n"
       << kOnnxHeading << "\n\n";
    markdownTable(md, onnxTable);
    if (variants) {
      md << "\n" << kVariantHeading << "\n\n";
      markdownTable(md, variantTable);
    }
  }

  auto count = [&](Outcome o) {
    return llvm::count_if(cases,
                          [&](const Case &c) { return c.result.outcome == o; });
  };
  llvm::outs() << llvm::formatv(
      "\nmix-onnx-conformance: {0} case(s) and {1} variant(s) in {2:f1} s: "
      "{3} passed, {4} refused, {5} failed (crash, timeout, mismatch, compile "
      "or run error){6}\n",
      cases.size() - variants, variants, seconds, count(Outcome::pass),
      count(Outcome::refused), defects,
      options.expectedPath.empty()
          ? std::string()
          : llvm::formatv(", {0} expected pass(es) missing", regressions)
                .str());
  return defects || regressions ? 1 : 0;
}
