//===- OnnxProto.cpp - reading and checking ONNX models -------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiled with exceptions: libonnx throws (onnx::checker::ValidationError,
// onnx::InferenceError, std::runtime_error from the version converter).
// Nothing escapes readOnnxModel but llvm::Error values. libonnx's checker,
// version converter and shape inference run in a child process
// (checkConvertInfer): they crash on some malformed models.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxProto.h"
#include "support/Error.h"
#include "support/Format.h"
#include "support/InputLimits.h"

#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mix;
using namespace mix::onnx_import;

void ModelDeleter::operator()(onnx::ModelProto *model) const { delete model; }

namespace {

/// "<path>: <message>", control characters escaped, as one line.
llvm::Error fail(std::errc code, llvm::StringRef path,
                 const llvm::Twine &message) {
  std::string text = (path + ": " + message).str();
  // libonnx's messages span lines; an error is one line.
  for (char &c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  return makeError(code, escapeControlCharacters(text));
}

/// The first line of an exception's message, without libonnx's location
/// prefix noise.
std::string describe(const std::exception &e) {
  llvm::StringRef what = e.what();
  what = what.trim();
  return what.str();
}

/// The version of the default ONNX domain ("" or "ai.onnx"), 0 if absent.
int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      return id.version();
  return 0;
}

/// Reads the data of initializers stored in external files into raw_data.
llvm::Error loadExternalData(onnx::ModelProto &model, llvm::StringRef path) {
  llvm::SmallString<256> dir = path;
  llvm::sys::path::remove_filename(dir);
  for (onnx::TensorProto &tensor :
       *model.mutable_graph()->mutable_initializer()) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string location;
    uint64_t offset = 0;
    std::optional<uint64_t> length;
    for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset" || entry.key() == "length") {
        uint64_t v;
        if (llvm::StringRef(entry.value()).getAsInteger(10, v))
          return fail(std::errc::invalid_argument, path,
                      "initializer '" + tensor.name() + "': external data " +
                          entry.key() + " '" + entry.value() +
                          "' is not a number");
        if (entry.key() == "offset")
          offset = v;
        else
          length = v;
      }
    }
    llvm::StringRef loc = location;
    if (loc.empty() || llvm::sys::path::is_absolute(loc) ||
        llvm::is_contained(llvm::make_range(llvm::sys::path::begin(loc),
                                            llvm::sys::path::end(loc)),
                           ".."))
      return fail(std::errc::invalid_argument, path,
                  "initializer '" + tensor.name() +
                      "': external data location '" + location +
                      "' must be a relative path below the model's directory");
    llvm::SmallString<256> file = dir;
    llvm::sys::path::append(file, loc);
    if (!llvm::sys::fs::exists(file))
      return fail(std::errc::no_such_file_or_directory, path,
                  "external data file '" + location + "' of initializer '" +
                      tensor.name() + "' not found (looked for '" + file +
                      "')");
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        readInputFile(file, uint64_t(INT_MAX), "external data");
    if (!buffer)
      return fail(std::errc::invalid_argument, path,
                  "initializer '" + tensor.name() +
                      "': " + llvm::toString(buffer.takeError()));
    uint64_t size = (*buffer)->getBufferSize();
    uint64_t count = length ? *length : (offset <= size ? size - offset : 0);
    if (offset > size || count > size - offset)
      return fail(std::errc::invalid_argument, path,
                  "initializer '" + tensor.name() + "': external data [" +
                      llvm::Twine(offset) + ", " + llvm::Twine(offset + count) +
                      ") is beyond the end of '" + location + "' (" +
                      llvm::Twine(size) + " bytes)");
    tensor.set_raw_data((*buffer)->getBufferStart() + offset, count);
    tensor.clear_external_data();
    tensor.set_data_location(onnx::TensorProto::DEFAULT);
  }
  return llvm::Error::success();
}

/// Attributes that ONNX's shape inference divides by without checking them
/// (a stride of 0 is a SIGFPE inside libonnx): refused before it runs.
llvm::Error checkWindowAttributes(const onnx::ModelProto &model,
                                  llvm::StringRef path) {
  for (const onnx::NodeProto &node : model.graph().node())
    for (const onnx::AttributeProto &a : node.attribute()) {
      llvm::StringRef name = a.name();
      bool window =
          name == "strides" || name == "dilations" || name == "kernel_shape";
      if (window)
        for (int64_t v : a.ints())
          if (v < 1)
            return fail(std::errc::invalid_argument, path,
                        "node '" + node.name() + "' (" + node.op_type() +
                            "): attribute '" + name + "' has the value " +
                            llvm::Twine(v) + " (must be positive)");
      if (name == "group" && a.i() < 1)
        return fail(std::errc::invalid_argument, path,
                    "node '" + node.name() + "' (" + node.op_type() +
                        "): attribute 'group' must be positive");
    }
  return llvm::Error::success();
}

/// Gives graph inputs with a symbolic leading dimension the size `batch`.
void setBatch(onnx::ModelProto &model, int64_t batch) {
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &t : model.graph().initializer())
    initializers.insert(t.name());
  for (onnx::ValueInfoProto &input : *model.mutable_graph()->mutable_input()) {
    if (initializers.contains(input.name()) || !input.has_type() ||
        !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    onnx::TensorShapeProto *shape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() == 0 || shape->dim(0).has_dim_value())
      continue;
    shape->mutable_dim(0)->set_dim_value(batch);
  }
}

} // namespace

namespace {

/// What the libonnx steps report: the errc and the message of a failure.
struct StepFailure {
  std::errc code;
  std::string message;
};

/// ONNX's checker, the version converter (to kOnnxOpset) and shape
/// inference with data propagation, in this process.
std::optional<StepFailure> runLibonnx(onnx::ModelProto &model, int64_t opset) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return StepFailure{std::errc::invalid_argument,
                       "invalid ONNX model: " + describe(e)};
  }
  if (opset != kOnnxOpset) {
    try {
      model = onnx::version_conversion::ConvertVersion(model, int(kOnnxOpset));
    } catch (const std::exception &e) {
      return StepFailure{std::errc::not_supported,
                         "cannot convert the model from opset " +
                             std::to_string(opset) + " to opset " +
                             std::to_string(kOnnxOpset) + ": " + describe(e)};
    }
  }
  try {
    onnx::ShapeInferenceOptions inference(/*check_type=*/true,
                                          /*strict_mode=*/1,
                                          /*data_prop=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), inference);
  } catch (const std::exception &e) {
    return StepFailure{std::errc::invalid_argument,
                       "ONNX shape inference failed: " + describe(e)};
  } catch (...) {
    return StepFailure{std::errc::invalid_argument,
                       "ONNX shape inference failed: unknown error"};
  }
  return std::nullopt;
}

bool writeAll(int fd, const char *data, size_t size) {
  while (size) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

} // namespace

/// Runs runLibonnx in a child process and takes the checked, converted and
/// shape-inferred model back through a pipe. libonnx 1.12 dereferences null
/// pointers in shape inference on some malformed models (found by fuzzing,
/// fuzz/compiler/mix_onnx_fuzzer.cpp); in a child such a crash is one error
/// line about the model, and the tool goes on to exit 2 as for any other
/// bad input. The child reports "0" + the serialized model, or "1" + the
/// errc + its message.
static llvm::Error checkConvertInfer(onnx::ModelProto &model, int64_t opset,
                                     llvm::StringRef path) {
  int fds[2];
  if (::pipe(fds) != 0)
    return fail(std::errc::io_error, path,
                "cannot check the ONNX model: pipe failed");
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return fail(std::errc::io_error, path,
                "cannot check the ONNX model: fork failed");
  }
  if (child == 0) {
    // A crash ends the child by its signal, silently (not through the
    // tool's crash handler, which would report an internal error).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      std::signal(sig, SIG_DFL);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0)
      ::dup2(null, STDERR_FILENO);
    ::close(fds[0]);
    // A model that makes libonnx loop forever fails after two minutes.
    ::alarm(120);
    std::string out;
    if (std::optional<StepFailure> failure = runLibonnx(model, opset)) {
      out = "1";
      out += std::to_string(static_cast<int>(failure->code)) + " ";
      out += failure->message;
    } else {
      out = "0";
      if (!model.AppendToString(&out))
        ::_exit(3);
    }
    ::_exit(writeAll(fds[1], out.data(), out.size()) ? 0 : 3);
  }
  ::close(fds[1]);
  std::string in;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    in.append(chunk, size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    return fail(
        std::errc::invalid_argument, path,
        "invalid ONNX model: libonnx crashed checking it (signal " +
            llvm::Twine(WTERMSIG(status)) +
            (WTERMSIG(status) == SIGALRM ? ", no result in 120 s" : "") + ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || in.empty())
    return fail(std::errc::io_error, path,
                "cannot check the ONNX model: its checking process failed");
  if (in[0] == '1') {
    llvm::StringRef rest = llvm::StringRef(in).drop_front();
    auto [codeText, message] = rest.split(' ');
    int code = 0;
    if (codeText.getAsInteger(10, code))
      code = static_cast<int>(std::errc::invalid_argument);
    return fail(static_cast<std::errc>(code), path, message);
  }
  // The parent's copy is not needed any more (peak memory: the model and
  // its serialized form, not three copies).
  model.Clear();
  if (!model.ParseFromArray(in.data() + 1, int(in.size() - 1)))
    return fail(std::errc::io_error, path,
                "cannot check the ONNX model: its checked form does not parse");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
mix::onnx_import::readOnnxModel(llvm::StringRef path,
                                const ReadOptions &options) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, limits::kMaxModelBytes, "model");
  if (!buffer)
    return buffer.takeError();
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() > uint64_t(INT_MAX))
    return fail(std::errc::file_too_large, path,
                "is " + llvm::Twine(bytes.size()) +
                    " bytes, more than protobuf's limit of 2 GiB (store the "
                    "weights as external data)");
  auto model = std::make_unique<onnx::ModelProto>();
  try {
    bool parsed = model->ParseFromArray(bytes.data(), int(bytes.size()));
    // The file is not needed any more: the model holds its own copy of the
    // weights (peak memory stays near twice the weights, not three times).
    buffer->reset();
    if (!parsed || !model->has_graph())
      return fail(std::errc::invalid_argument, path,
                  "not an ONNX model (the file is corrupt or truncated: "
                  "protobuf cannot parse a ModelProto with a graph)");
    int64_t opset = defaultOpset(*model);
    if (opset == 0)
      return fail(std::errc::invalid_argument, path,
                  "the model imports no opset of the default ONNX domain");
    if (opset > kOnnxOpset)
      return fail(std::errc::not_supported, path,
                  "the model uses ONNX opset " + llvm::Twine(opset) +
                      ", newer than the newest supported (" +
                      llvm::Twine(kOnnxOpset) + ")");
    if (opset < kOldestOnnxOpset)
      return fail(std::errc::not_supported, path,
                  "the model uses ONNX opset " + llvm::Twine(opset) +
                      ", older than the oldest supported (" +
                      llvm::Twine(kOldestOnnxOpset) + ")");
    if (options.isSupported) {
      std::vector<std::string> unsupported;
      for (const onnx::NodeProto &node : model->graph().node()) {
        llvm::StringRef domain = node.domain();
        if (domain == "ai.onnx")
          domain = "";
        if (options.isSupported(domain, node.op_type()))
          continue;
        std::string type = domain.empty()
                               ? node.op_type()
                               : (domain + "." + node.op_type()).str();
        std::string name = node.name().empty() ? "<unnamed>" : node.name();
        unsupported.push_back("'" + name + "' (" + type + ")");
      }
      if (!unsupported.empty())
        return fail(std::errc::not_supported, path,
                    llvm::Twine(unsupported.size()) +
                        " node(s) of unsupported ONNX ops: " +
                        llvm::join(unsupported, ", "));
    }
    if (llvm::Error error = loadExternalData(*model, path))
      return std::move(error);
    if (options.batch)
      setBatch(*model, *options.batch);
    if (llvm::Error error = checkWindowAttributes(*model, path))
      return std::move(error);
    if (llvm::Error error = checkConvertInfer(*model, opset, path))
      return std::move(error);
  } catch (const std::exception &e) {
    return fail(std::errc::invalid_argument, path,
                "cannot read the ONNX model: " + describe(e));
  } catch (...) {
    return fail(std::errc::invalid_argument, path,
                "cannot read the ONNX model: unknown error in libonnx");
  }
  return std::move(model);
}
