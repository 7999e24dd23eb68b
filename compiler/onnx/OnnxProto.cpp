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

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
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

/// Reads `count` bytes at `offset` of `fd` into `out`; false on an error
/// or a short file (errno set).
bool readAt(int fd, char *out, uint64_t count, uint64_t offset) {
  while (count) {
    ssize_t n = ::pread(fd, out, count, off_t(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    out += n;
    count -= uint64_t(n);
    offset += uint64_t(n);
  }
  return true;
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
    // Only the tensor's range is read (pread into its raw_data): a model's
    // initializers usually share one file, which is neither read once per
    // tensor nor held in memory beside the tensors.
    uint64_t size = 0;
    llvm::Expected<int> fd =
        openInputFile(file, limits::kMaxModelBytes, "external data", &size);
    if (!fd)
      return fail(std::errc::invalid_argument, path,
                  "initializer '" + tensor.name() +
                      "': " + llvm::toString(fd.takeError()));
    uint64_t count = length ? *length : (offset <= size ? size - offset : 0);
    if (offset > size || count > size - offset) {
      ::close(*fd);
      return fail(std::errc::invalid_argument, path,
                  "initializer '" + tensor.name() + "': external data [" +
                      llvm::Twine(offset) + ", " + llvm::Twine(offset + count) +
                      ") is beyond the end of '" + location + "' (" +
                      llvm::Twine(size) + " bytes)");
    }
    if (count > uint64_t(INT_MAX)) {
      ::close(*fd);
      return fail(std::errc::file_too_large, path,
                  "initializer '" + tensor.name() + "' has " +
                      llvm::Twine(count) +
                      " bytes of external data, more than protobuf's limit "
                      "of 2 GiB for one tensor");
    }
    std::string *data = tensor.mutable_raw_data();
    data->resize(count);
    bool ok = readAt(*fd, data->data(), count, offset);
    ::close(*fd);
    if (!ok)
      return fail(std::errc::io_error, path,
                  "initializer '" + tensor.name() +
                      "': cannot read its external data from '" + location +
                      "': " + std::strerror(errno));
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
/// `model` is checked; converted into `converted` when its opset is not
/// kOnnxOpset; `checked` then points to the model that shape inference
/// completed (`model` or `converted`).
std::optional<StepFailure> runLibonnx(onnx::ModelProto &model, int64_t opset,
                                      onnx::ModelProto &converted,
                                      onnx::ModelProto *&checked) {
  checked = &model;
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return StepFailure{std::errc::invalid_argument,
                       "invalid ONNX model: " + describe(e)};
  }
  if (opset != kOnnxOpset) {
    try {
      converted =
          onnx::version_conversion::ConvertVersion(model, int(kOnnxOpset));
      checked = &converted;
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
        *checked, onnx::OpSchemaRegistry::Instance(), inference);
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

/// Marks an initializer whose raw_data the checking child left out: the
/// parent still has those bytes (see checkConvertInfer).
constexpr llvm::StringLiteral kKeptByParent = "mixc:kept-by-parent";

/// Reads up to `size` bytes (fewer at end of file); -1 on an error.
ssize_t readUpTo(int fd, char *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, out + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      break;
    done += size_t(n);
  }
  return ssize_t(done);
}

/// Runs runLibonnx in a child process and takes the checked, converted and
/// shape-inferred model back through a pipe. libonnx 1.12 dereferences null
/// pointers in shape inference on some malformed models (found by fuzzing,
/// fuzz/compiler/mix_onnx_fuzzer.cpp); in a child such a crash is one error
/// line about the model, and the tool goes on to exit 2 as for any other
/// bad input. The child reports "0" + the serialized model, or "1" + the
/// errc + its message.
///
/// Memory: the weights are not sent back. The child leaves out the
/// raw_data of every initializer that checking did not change (marked
/// kKeptByParent), the parent moves its raw_data strings aside (no copy)
/// before it parses the child's model and moves them back after. With the
/// streamed parse of the file, the peak of an import is about one copy of
/// the weights (bench/import/import_scaling.py).
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
    onnx::ModelProto converted;
    onnx::ModelProto *checked = nullptr;
    if (std::optional<StepFailure> failure =
            runLibonnx(model, opset, converted, checked)) {
      std::string out = "1";
      out += std::to_string(static_cast<int>(failure->code)) + " ";
      out += failure->message;
      ::_exit(writeAll(fds[1], out.data(), out.size()) ? 0 : 3);
    }
    // The initializers whose bytes the parent has: all of them, unless
    // the version converter made a new model (then those it kept as is).
    llvm::StringMap<const std::string *> original;
    if (checked != &model)
      for (const onnx::TensorProto &t : model.graph().initializer())
        original[t.name()] = &t.raw_data();
    for (onnx::TensorProto &t :
         *checked->mutable_graph()->mutable_initializer()) {
      if (t.raw_data().empty())
        continue;
      if (checked != &model) {
        auto it = original.find(t.name());
        if (it == original.end() || *it->second != t.raw_data())
          continue;
      }
      t.clear_raw_data();
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      onnx::StringStringEntryProto *entry = t.add_external_data();
      entry->set_key("location");
      entry->set_value(kKeptByParent.str());
    }
    bool ok =
        writeAll(fds[1], "0", 1) && checked->SerializeToFileDescriptor(fds[1]);
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  // The parent's raw_data strings, moved aside (by swap: no copy, no new
  // pages); the rest of its model is replaced by the child's.
  llvm::StringMap<std::string> kept;
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer())
    if (!t.raw_data().empty())
      kept[t.name()].swap(*t.mutable_raw_data());
  model.Clear();
  char tag = 0;
  bool tagged = readUpTo(fds[0], &tag, 1) == 1;
  bool parsed = false;
  std::string message;
  if (tagged && tag == '0') {
    google::protobuf::io::FileInputStream stream(fds[0]);
    parsed = model.ParseFromZeroCopyStream(&stream);
  } else if (tagged) {
    char chunk[4096];
    ssize_t n;
    while ((n = readUpTo(fds[0], chunk, sizeof(chunk))) > 0 &&
           message.size() < (1u << 20))
      message.append(chunk, size_t(n));
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
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !tagged)
    return fail(std::errc::io_error, path,
                "cannot check the ONNX model: its checking process failed");
  if (tag == '1') {
    auto [codeText, text] = llvm::StringRef(message).split(' ');
    int code = 0;
    if (codeText.getAsInteger(10, code))
      code = static_cast<int>(std::errc::invalid_argument);
    return fail(static_cast<std::errc>(code), path, text);
  }
  if (!parsed)
    return fail(std::errc::io_error, path,
                "cannot check the ONNX model: its checked form does not parse");
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL ||
        t.external_data_size() != 1 ||
        t.external_data(0).value() != kKeptByParent)
      continue;
    auto it = kept.find(t.name());
    if (it == kept.end())
      return fail(std::errc::io_error, path,
                  "cannot check the ONNX model: the data of initializer '" +
                      t.name() + "' was lost");
    t.mutable_raw_data()->swap(it->second);
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
mix::onnx_import::readOnnxModel(llvm::StringRef path,
                                const ReadOptions &options) {
  auto tooLarge = [&](uint64_t size) {
    return fail(std::errc::file_too_large, path,
                "is " + llvm::Twine(size) +
                    " bytes, more than protobuf's limit of 2 GiB (store the "
                    "weights as external data)");
  };
  auto model = std::make_unique<onnx::ModelProto>();
  try {
    bool parsed = false;
    if (path == "-") {
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
          readInputFile(path, limits::kMaxModelBytes, "model");
      if (!buffer)
        return buffer.takeError();
      llvm::StringRef bytes = (*buffer)->getBuffer();
      if (bytes.size() > uint64_t(INT_MAX))
        return tooLarge(bytes.size());
      parsed = model->ParseFromArray(bytes.data(), int(bytes.size()));
    } else {
      // Parsed from the file in chunks: the file's bytes and the parsed
      // model (which owns a copy of every weight) are never in memory
      // together, so the peak is one copy of the weights, not two.
      uint64_t size = 0;
      llvm::Expected<int> fd =
          openInputFile(path, limits::kMaxModelBytes, "model", &size);
      if (!fd)
        return fd.takeError();
      if (size > uint64_t(INT_MAX)) {
        ::close(*fd);
        return tooLarge(size);
      }
      google::protobuf::io::FileInputStream stream(*fd);
      stream.SetCloseOnDelete(true);
      parsed = model->ParseFromZeroCopyStream(&stream);
    }
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
