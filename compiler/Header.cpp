//===- Header.cpp - the C header of a compiled model ----------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Header.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <set>

using namespace mlir;
using namespace mix;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {

bool isIdentifierStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

bool isCIdentifier(StringRef s) {
  return !s.empty() && isIdentifierStart(s.front()) &&
         llvm::all_of(s, isIdentifierChar);
}

/// Keywords of C99/C11/C23 and C++ (the header compiles as both), the types
/// the header names and the prefixes of its own names: a parameter must not
/// shadow any of them.
bool isReservedName(StringRef s) {
  static const llvm::StringSet<> reserved = {
      // C
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "alignas", "alignof", "bool",
      "constexpr", "false", "nullptr", "static_assert", "thread_local", "true",
      "typeof", "typeof_unqual",
      // C++
      "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "consteval", "constinit",
      "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete",
      "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace",
      "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq", "private",
      "protected", "public", "reinterpret_cast", "requires", "static_cast",
      "template", "this", "throw", "try", "typeid", "typename", "using",
      "virtual", "wchar_t", "xor", "xor_eq",
      // Types and macros of <stdint.h>/<stddef.h> the header may name.
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
      "uint32_t", "uint64_t", "uintptr_t", "intptr_t", "size_t", "NULL"};
  if (reserved.contains(s) || s.starts_with("mixc_") ||
      s.starts_with("mixrt_") || s.starts_with("_mlir_ciface_"))
    return true;
  // Macros the included headers may define (mixrt's MIXRT_*, MIXC_* guards,
  // <stdint.h>'s limits and constant macros): a parameter named like one
  // would be macro-expanded. All-uppercase names are left alone entirely.
  std::string upper = s.upper();
  if (StringRef(upper).starts_with("MIXRT_") ||
      StringRef(upper).starts_with("MIXC_"))
    return true;
  return llvm::none_of(s, [](char c) { return c >= 'a' && c <= 'z'; });
}

/// `name` as a C identifier that is not reserved, or "" if nothing usable
/// remains.
std::string toParameterName(StringRef name) {
  // Other characters become '_'; no "__" (reserved in C++).
  std::string s;
  for (char c : name) {
    char d = isIdentifierChar(c) ? c : '_';
    if (d != '_' || s.empty() || s.back() != '_')
      s += d;
  }
  if (s.empty() || s == "_")
    return "";
  // Not a digit first, nor '_' and a capital (reserved).
  if (!isIdentifierStart(s.front()))
    s = "t_" + s;
  else if (s.size() > 1 && s[0] == '_' && llvm::isUpper(s[1]))
    s = "t" + s;
  if (isReservedName(s))
    s += "_";
  return s;
}

/// Reads source files once, to recover SSA names from locations.
class SourceCache {
public:
  /// The text of line `line` (1-based) of `file`, or std::nullopt.
  std::optional<StringRef> getLine(StringRef file, unsigned line) {
    auto it = files.find(file);
    if (it == files.end()) {
      auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
      it = files.try_emplace(file).first;
      if (buffer) {
        it->second.buffer = std::move(*buffer);
        StringRef text = it->second.buffer->getBuffer();
        SmallVector<StringRef> lines;
        text.split(lines, '\n');
        it->second.lines.assign(lines.begin(), lines.end());
      }
    }
    if (line == 0 || line > it->second.lines.size())
      return std::nullopt;
    return it->second.lines[line - 1];
  }

private:
  struct File {
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    std::vector<StringRef> lines;
  };
  llvm::StringMap<File> files;
};

bool isSSAChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

/// The SSA name `%name` at the start of `text` ("name"), or "".
StringRef takeSSAName(StringRef &text) {
  if (!text.consume_front("%"))
    return "";
  size_t n = 0;
  while (n < text.size() && isSSAChar(text[n]))
    ++n;
  StringRef name = text.take_front(n);
  text = text.drop_front(n);
  return name;
}

/// A name worth showing: not numeric (`%0`).
StringRef meaningful(StringRef name) {
  return llvm::all_of(name, llvm::isDigit) ? StringRef() : name;
}

/// The source name of a block argument: its location points at `%name`.
std::string argumentSourceName(BlockArgument arg, SourceCache &sources) {
  auto loc = dyn_cast<FileLineColLoc>(arg.getLoc());
  if (!loc || loc.getColumn() == 0)
    return "";
  std::optional<StringRef> line =
      sources.getLine(loc.getFilename(), loc.getLine());
  if (!line || loc.getColumn() > line->size())
    return "";
  StringRef text = line->drop_front(loc.getColumn() - 1);
  return meaningful(takeSSAName(text)).str();
}

/// The source name of an op result: the op's location points at its name,
/// preceded on the same line by `%a, %b:2 = `.
std::string resultSourceName(OpResult result, SourceCache &sources) {
  auto loc = dyn_cast<FileLineColLoc>(result.getOwner()->getLoc());
  if (!loc || loc.getColumn() == 0)
    return "";
  std::optional<StringRef> line =
      sources.getLine(loc.getFilename(), loc.getLine());
  if (!line || loc.getColumn() > line->size() + 1)
    return "";
  StringRef prefix = line->take_front(loc.getColumn() - 1).trim();
  if (!prefix.consume_back("="))
    return "";
  prefix = prefix.rtrim();
  // Result groups: `%name` (one result) or `%name:N` (N results).
  unsigned first = 0;
  while (!prefix.empty()) {
    StringRef name = takeSSAName(prefix);
    if (name.empty())
      return "";
    unsigned count = 1;
    if (prefix.consume_front(":") && prefix.consumeInteger(/*Radix=*/10, count))
      return "";
    unsigned number = result.getResultNumber();
    if (number >= first && number < first + count) {
      if (meaningful(name).empty())
        return "";
      return count == 1 ? name.str()
                        : (name + "_" + llvm::Twine(number - first)).str();
    }
    first += count;
    prefix = prefix.ltrim();
    if (!prefix.empty() && !prefix.consume_front(","))
      return "";
    prefix = prefix.ltrim();
  }
  return "";
}

std::string valueSourceName(Value value, SourceCache &sources) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return argumentSourceName(arg, sources);
  return resultSourceName(cast<OpResult>(value), sources);
}

/// Gives every tensor a unique, usable C name.
void assignNames(MutableArrayRef<HeaderTensor *> tensors,
                 ArrayRef<std::string> wanted, ArrayRef<std::string> fallback) {
  std::set<std::string> used;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string name = toParameterName(wanted[i]);
    if (name.empty())
      name = fallback[i];
    std::string unique = name;
    for (unsigned n = 2; used.count(unique); ++n)
      unique = name + (name.back() == '_' ? "" : "_") + std::to_string(n);
    used.insert(unique);
    tensors[i]->name = unique;
  }
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// The C element type of `type`, or "" if the header cannot express it.
StringRef getCType(Type type) {
  if (type.isF64())
    return "double";
  if (type.isF32())
    return "float";
  if (type.isF16() || type.isBF16())
    return "uint16_t";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isUnsigned())
      return integer.getWidth() == 8 ? "uint8_t" : "";
    // A mask (mix.compare, ONNX bool): one byte holding 0 or 1, C's bool.
    if (integer.getWidth() == 1)
      return "bool";
    switch (integer.getWidth()) {
    case 64:
      return "int64_t";
    case 32:
      return "int32_t";
    case 16:
      return "int16_t";
    case 8:
      return "int8_t";
    default:
      return "";
    }
  }
  return "";
}

std::string typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<NetworkSignature>>
mix::collectNetworkSignatures(ModuleOp module) {
  std::vector<NetworkSignature> networks;
  SourceCache sources;
  for (NetworkOp network : module.getOps<NetworkOp>()) {
    NetworkSignature sig;
    sig.name = network.getSymName().str();
    sig.location = formatLocation(network.getLoc());
    if (!isCIdentifier(sig.name))
      return makeError(sig.location + ": network @" + sig.name +
                       ": the name is not a C identifier, so the header "
                       "cannot declare _mlir_ciface_" +
                       sig.name);

    auto describe = [&](Type type, const char *what,
                        unsigned index) -> llvm::Expected<HeaderTensor> {
      auto tensor = dyn_cast<RankedTensorType>(type);
      StringRef cType = tensor ? getCType(tensor.getElementType()) : "";
      bool batched = tensor && tensor.getRank() > 0 && tensor.isDynamicDim(0);
      if (!tensor || cType.empty() ||
          llvm::any_of(tensor.getShape().drop_front(batched ? 1 : 0),
                       ShapedType::isDynamic))
        return makeError(sig.location + ": network @" + sig.name + ": " + what +
                         " " + llvm::Twine(index) + " has type " +
                         typeToString(type) +
                         ", which the C header cannot express (tensors of "
                         "f64, f32, f16, bf16, i64, i32, i16, i8, ui8 or i1 "
                         "with static dimensions but for a dynamic batch)");
      HeaderTensor t;
      t.mlirType = typeToString(tensor.getElementType());
      t.cType = cType.str();
      t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      // One call of the lowered network computes one sample
      // (mix-specialize-batch).
      if (batched)
        t.shape[0] = 1;
      t.batched = batched;
      sig.dynamicBatch |= batched;
      return t;
    };

    std::vector<std::string> wanted, fallback;
    auto ret = cast<ReturnOp>(network.getBody().front().getTerminator());
    for (auto [i, type] : llvm::enumerate(network.getArgumentTypes())) {
      llvm::Expected<HeaderTensor> t = describe(type, "input", i);
      if (!t)
        return t.takeError();
      sig.inputs.push_back(std::move(*t));
      auto attr = network.getArgAttrOfType<StringAttr>(i, "mix.name");
      wanted.push_back(
          attr ? attr.getValue().str()
               : argumentSourceName(network.getArgument(i), sources));
      if (attr)
        sig.inputs.back().label = attr.getValue().str();
      if (auto working = network.getArgAttrOfType<PrecisionAttr>(
              i, "mix.working_precision"))
        sig.inputs.back().workingPrecision =
            stringifyPrecisionKind(working.getKind()).str();
      fallback.push_back("in" + std::to_string(i));
    }
    for (auto [i, type] : llvm::enumerate(network.getResultTypes())) {
      llvm::Expected<HeaderTensor> t = describe(type, "output", i);
      if (!t)
        return t.takeError();
      sig.outputs.push_back(std::move(*t));
      auto attr = network.getResultAttrOfType<StringAttr>(i, "mix.name");
      wanted.push_back(attr ? attr.getValue().str()
                            : valueSourceName(ret->getOperand(i), sources));
      if (attr)
        sig.outputs.back().label = attr.getValue().str();
      fallback.push_back("out" + std::to_string(i));
    }
    SmallVector<HeaderTensor *> all;
    for (HeaderTensor &t : sig.inputs)
      all.push_back(&t);
    for (HeaderTensor &t : sig.outputs)
      all.push_back(&t);
    assignNames(all, wanted, fallback);
    networks.push_back(std::move(sig));
  }
  return networks;
}

//===----------------------------------------------------------------------===//
// Header text
//===----------------------------------------------------------------------===//

namespace {

std::string descriptorType(size_t rank) {
  return "mixc_memref_rank" + std::to_string(rank);
}

/// "float[2][4]" ("float" for a scalar; "float[batch][4]" for a batched
/// tensor).
std::string cArrayType(const HeaderTensor &t) {
  std::string s = t.cType;
  for (auto [i, d] : llvm::enumerate(t.shape))
    s += "[" + (i == 0 && t.batched ? "batch" : std::to_string(d)) + "]";
  return s;
}

/// "tensor<2x4xf32>" ("tensor<?x4xf32>" for a batched tensor).
std::string tensorType(const HeaderTensor &t) {
  std::string s = "tensor<";
  for (auto [i, d] : llvm::enumerate(t.shape))
    s += (i == 0 && t.batched ? "?" : std::to_string(d)) + "x";
  return s + t.mlirType + ">";
}

/// Elements of one sample of a batched tensor (of the whole tensor
/// otherwise).
int64_t elementsPerCall(const HeaderTensor &t) {
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  return n;
}

void emitDescriptor(llvm::raw_ostream &os, size_t rank) {
  std::string name = descriptorType(rank);
  std::string guard = "MIXC_MEMREF_RANK" + std::to_string(rank) + "_DEFINED";
  os << "#ifndef " << guard << "\n#define " << guard << "\n"
     << "typedef struct " << name << " {\n"
     << "  void *allocated; /* the buffer as allocated */\n"
     << "  void *aligned;   /* the buffer the elements are addressed from */\n"
     << "  int64_t offset;  /* of the first element from `aligned`, in "
        "elements */\n";
  if (rank > 0)
    os << "  int64_t sizes[" << rank << "];\n"
       << "  int64_t strides[" << rank << "]; /* in elements */\n";
  os << "} " << name << ";\n#endif\n\n";
}

void emitNetwork(llvm::raw_ostream &os, const NetworkSignature &sig,
                 const HeaderInfo &info) {
  const std::string &n = sig.name;
  // The table of tensors, aligned.
  size_t nameWidth = 0, typeWidth = 0;
  for (const auto *list : {&sig.inputs, &sig.outputs})
    for (const HeaderTensor &t : *list) {
      nameWidth = std::max(nameWidth, t.name.size());
      typeWidth = std::max(typeWidth, cArrayType(t).size());
    }
  os << "/*\n * Network @" << n << " (" << sig.location << ").\n *\n";
  auto row = [&](const char *dir, const HeaderTensor &t) {
    std::string type = cArrayType(t);
    os << " *   " << dir << "  " << t.name
       << std::string(nameWidth - t.name.size() + 2, ' ') << type
       << std::string(typeWidth - type.size() + 2, ' ') << tensorType(t)
       << "\n";
  };
  for (const HeaderTensor &t : sig.inputs)
    row("input ", t);
  for (const HeaderTensor &t : sig.outputs)
    row("output", t);
  if (sig.inputs.empty() && sig.outputs.empty())
    os << " *   (no inputs, no outputs)\n";
  std::string ws = std::to_string(sig.workspaceBytes);
  os << " *\n";
  if (info.freestanding) {
    os << " * " << n
       << "_run_with_workspace() wraps each buffer in a descriptor and "
          "calls\n"
       << " * _mlir_ciface_mixc_net_" << n
       << "() (inputs, then outputs, then the workspace).\n";
    if (info.checks)
      os << " * It returns MIXRT_STATUS_OK, or the status of the first "
            "run-time check that\n"
         << " * failed (a checked cast that overflows, a non-finite value "
            "reaching an int8\n"
         << " * quantization); then the outputs are unspecified and\n"
         << " * mixrt_check_first_failure() tells the model location.\n";
    else
      os << " * It returns MIXRT_STATUS_OK (no run-time checks).\n";
    os << " *\n"
       << " * Memory: every intermediate buffer lives in one workspace of "
       << ws << " bytes\n"
       << " * (" << n << "_WORKSPACE_SIZE), planned at compile time, that "
       << "the caller provides,\n"
       << " * aligned to " << n
       << "_WORKSPACE_ALIGNMENT bytes (NULL if the size is 0; it may be\n"
       << " * static). No heap call is made. A workspace must not be used by "
          "two calls at\n"
       << " * once; its contents need not be kept between calls.\n";
  } else {
    os << " * " << n << "_run() wraps each buffer in a descriptor and calls\n"
       << " * _mlir_ciface_" << n << "() (inputs, then outputs). ";
    if (info.checks)
      os << "It returns MIXRT_STATUS_OK, or\n"
         << " * the status of the first run-time check that failed (a checked "
            "cast that\n"
         << " * overflows, a non-finite value reaching an int8 quantization); "
            "then\n"
         << " * mixrt_last_error_message() names the model location and the "
            "outputs are\n"
         << " * unspecified.\n";
    else
      os << "It returns MIXRT_STATUS_OK\n"
         << " * (no run-time checks).\n";
    os << " *\n"
       << " * Memory: every intermediate buffer lives in one workspace of "
       << ws << " bytes\n"
       << " * (" << n << "_WORKSPACE_SIZE), planned at compile time. " << n
       << "_run() allocates it\n"
       << " * (one malloc and one free per call); " << n
       << "_run_with_workspace() takes the\n"
       << " * caller's, aligned to " << n
       << "_WORKSPACE_ALIGNMENT bytes (NULL if the size is 0),\n"
       << " * and makes no heap call. A workspace must not be used by two "
          "calls at once;\n"
       << " * its contents need not be kept between calls.\n";
  }
  if (sig.dynamicBatch) {
    os << " *\n"
       << " * Dynamic batch: the entry points take `batch`, the number of "
          "samples (>= 0),\n"
       << " * first; a buffer marked [batch] holds that many samples one "
          "after another.\n"
       << " * Each sample is computed on its own, by one call of "
          "_mlir_ciface_mixc_net_"
       << n << "(),\n"
       << " * so the results for a batch are, bit for bit, those of `batch` "
          "calls with one\n"
       << " * sample. The workspace does not depend on the batch";
    if (!info.freestanding)
      os << "; " << n << "_run()\n * allocates it once per call";
    os << ". No sample after one whose run-time check\n"
       << " * fails is computed.\n";
  }
  os << " */\n";

  // The entry points of the object: the convenience entry and the planned
  // function, which takes the workspace last.
  auto params = [&](bool wrapper) {
    std::string s = wrapper && sig.dynamicBatch ? "int64_t batch" : "";
    for (const auto *list : {&sig.inputs, &sig.outputs})
      for (const HeaderTensor &t : *list) {
        if (!s.empty())
          s += ", ";
        if (wrapper)
          s += (list == &sig.inputs ? "const " : "") + t.cType + " *" + t.name;
        else
          s += descriptorType(t.shape.size()) + " *" + t.name;
      }
    return s;
  };
  auto orVoid = [](std::string s) { return s.empty() ? "void" : s; };
  auto withWorkspace = [](std::string s, llvm::StringRef param) {
    return s.empty() ? param.str() : s + ", " + param.str();
  };
  if (!info.freestanding)
    os << "void _mlir_ciface_" << n << "(" << orVoid(params(false)) << ");\n";
  os << "void _mlir_ciface_mixc_net_" << n << "("
     << withWorkspace(params(false), descriptorType(1) + " *mixc_workspace")
     << ");\n\n"
     << "#define " << n << "_WORKSPACE_SIZE ((size_t)" << ws << "u)\n"
     << "#define " << n << "_WORKSPACE_ALIGNMENT 64\n"
     << "static inline size_t " << n << "_workspace_size(void) { return " << n
     << "_WORKSPACE_SIZE; }\n\n";

  // The wrappers.
  auto emitWrapper = [&](bool workspace) {
    os << "static inline mixrt_status_code " << n
       << (workspace ? "_run_with_workspace(" : "_run(")
       << (workspace ? withWorkspace(params(true), "void *mixc_workspace")
                     : orVoid(params(true)))
       << ") {\n";
    if (workspace)
      os << "  if (mixc_workspace == NULL ? " << n << "_WORKSPACE_SIZE != 0\n"
         << "                            : ((uintptr_t)mixc_workspace % " << n
         << "_WORKSPACE_ALIGNMENT) != 0)\n"
         << "    return MIXRT_STATUS_INVALID_ARGUMENT;\n";
    std::string indent = "  ";
    if (sig.dynamicBatch) {
      os << "  int64_t mixc_b;\n"
         << "  if (batch < 0)\n"
         << "    return MIXRT_STATUS_INVALID_ARGUMENT;\n";
      if (info.checks)
        os << "  mixrt_check_reset();\n"
           << "  for (mixc_b = 0; mixc_b < batch && "
              "mixrt_check_failure_count() == 0;\n"
           << "       ++mixc_b) {\n";
      else
        os << "  for (mixc_b = 0; mixc_b < batch; ++mixc_b) {\n";
      indent = "    ";
    }
    unsigned index = 0;
    std::string args;
    for (const auto *list : {&sig.inputs, &sig.outputs})
      for (const HeaderTensor &t : *list) {
        std::string local = "mixc_arg" + std::to_string(index++);
        // A batched buffer: the sample of this call. The lowered function's
        // memrefs have offset 0 (identity layout), so the pointer moves.
        std::string ptr =
            t.batched ? "(void *)(uintptr_t)(" + t.name + " + mixc_b * " +
                            std::to_string(elementsPerCall(t)) + ")"
                      : "(void *)(uintptr_t)" + t.name;
        os << indent << descriptorType(t.shape.size()) << " " << local << " = {"
           << ptr << ", " << ptr << ", 0";
        if (!t.shape.empty()) {
          std::string sizes, strides;
          int64_t stride = 1;
          for (size_t d = t.shape.size(); d-- > 0;) {
            sizes = std::to_string(t.shape[d]) + (sizes.empty() ? "" : ", ") +
                    sizes;
            strides = std::to_string(stride) + (strides.empty() ? "" : ", ") +
                      strides;
            stride *= t.shape[d];
          }
          os << ", {" << sizes << "}, {" << strides << "}";
        }
        os << "};\n";
        args += (args.empty() ? "&" : ", &") + local;
      }
    if (workspace) {
      os << indent << descriptorType(1)
         << " mixc_ws = {mixc_workspace, mixc_workspace, 0, {" << ws
         << "}, {1}};\n";
      args += (args.empty() ? "&" : ", &") + std::string("mixc_ws");
    }
    if (info.checks && !sig.dynamicBatch)
      os << "  mixrt_check_reset();\n";
    os << indent << "_mlir_ciface_" << (workspace ? "mixc_net_" : "") << n
       << "(" << args << ");\n";
    if (sig.dynamicBatch)
      os << "  }\n";
    os << (info.checks ? "  return mixrt_check_status();\n}\n\n"
                       : "  return MIXRT_STATUS_OK;\n}\n\n");
  };
  if (!sig.dynamicBatch) {
    if (!info.freestanding)
      emitWrapper(false);
    emitWrapper(true);
    return;
  }
  // With a dynamic batch, NAME_run() allocates one workspace for all the
  // samples of the call and runs NAME_run_with_workspace().
  emitWrapper(true);
  if (info.freestanding)
    return;
  std::string forward = "batch";
  for (const auto *list : {&sig.inputs, &sig.outputs})
    for (const HeaderTensor &t : *list)
      forward += ", " + t.name;
  os << "static inline mixrt_status_code " << n << "_run(" << params(true)
     << ") {\n"
     << "  void *mixc_block = NULL, *mixc_workspace = NULL;\n"
     << "  mixrt_status_code mixc_status;\n"
     << "  if (" << n << "_WORKSPACE_SIZE != 0) {\n"
     << "    mixc_block = malloc(" << n << "_WORKSPACE_SIZE + " << n
     << "_WORKSPACE_ALIGNMENT - 1);\n"
     << "    if (mixc_block == NULL)\n"
     << "      return MIXRT_STATUS_RESOURCE_EXHAUSTED;\n"
     << "    mixc_workspace = (void *)(((uintptr_t)mixc_block + " << n
     << "_WORKSPACE_ALIGNMENT - 1) &\n"
     << "                              ~(uintptr_t)(" << n
     << "_WORKSPACE_ALIGNMENT - 1));\n"
     << "  }\n"
     << "  mixc_status = " << n << "_run_with_workspace(" << forward
     << ", mixc_workspace);\n"
     << "  free(mixc_block);\n"
     << "  return mixc_status;\n}\n\n";
}

} // namespace

//===----------------------------------------------------------------------===//
// Training entry points (mixc --train)
//===----------------------------------------------------------------------===//

namespace {

/// The networks of one trained model: NAME, NAME_grad, NAME_initial_weights.
struct TrainedNetwork {
  const NetworkSignature *forward = nullptr;
  const NetworkSignature *grad = nullptr;
  const NetworkSignature *initial = nullptr;
  size_t numParams = 0, numStats = 0;
};

std::vector<TrainedNetwork>
findTrainedNetworks(ArrayRef<NetworkSignature> networks) {
  auto find = [&](const std::string &name) -> const NetworkSignature * {
    for (const NetworkSignature &sig : networks)
      if (sig.name == name)
        return &sig;
    return nullptr;
  };
  std::vector<TrainedNetwork> trained;
  for (const NetworkSignature &sig : networks) {
    TrainedNetwork t;
    t.forward = &sig;
    t.grad = find(sig.name + "_grad");
    t.initial = find(sig.name + "_initial_weights");
    if (!t.grad)
      continue;
    size_t forwardInputs = sig.inputs.size();
    t.numParams = t.grad->inputs.size() > forwardInputs + 1
                      ? t.grad->inputs.size() - forwardInputs - 1
                      : 0;
    // One statistic per batch statistic output (a batch_norm has two: its
    // mean and its variance).
    t.numStats = t.grad->outputs.size() > 1 + t.numParams
                     ? t.grad->outputs.size() - 1 - t.numParams
                     : 0;
    trained.push_back(t);
  }
  return trained;
}

std::string cString(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20 ||
        static_cast<unsigned char>(c) >= 0x7f) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void emitTraining(llvm::raw_ostream &os, const TrainedNetwork &t) {
  const NetworkSignature &fwd = *t.forward, &grad = *t.grad, &init = *t.initial;
  const std::string &n = fwd.name;
  size_t numInputs = fwd.inputs.size();
  auto param = [&](size_t i) -> const HeaderTensor & {
    return grad.inputs[numInputs + 1 + i];
  };
  auto stat = [&](size_t i) -> const HeaderTensor & {
    return init.outputs[t.numParams + i];
  };
  os << "/*\n * Training of network @" << n << " (mixc --train).\n *\n"
     << " * " << n
     << "_train_step() runs one mixed-precision training step: " << n
     << "_grad\n"
     << " * (the forward at the resolved precisions and the backward of "
        "loss_scale * loss)\n"
     << " * on the current working copies of the weights, then mixrt's "
        "trainer: unscale\n"
     << " * with the f64 reciprocal of the scale and find inf/NaN in one pass; "
        "on overflow\n"
     << " * skip the update (every weight stays bit-identical) and back the "
        "scale off;\n"
     << " * otherwise the gradient norm (f64), optional clipping, the "
        "optimizer on the\n"
     << " * master weights, the working copies re-derived (RNE) and the "
        "running statistics\n"
     << " * folded. See mixrt.h, \"Training steps\", and docs/training.md.\n"
     << " *\n * Trained weights (" << t.numParams << "):\n";
  for (size_t i = 0; i < t.numParams; ++i)
    os << " *   " << param(i).label << "  " << cArrayType(param(i))
       << (param(i).workingPrecision.empty()
               ? ""
               : "  (read at " + param(i).workingPrecision + ")")
       << "\n";
  if (t.numStats) {
    os << " * Running statistics (" << t.numStats << "):\n";
    for (size_t i = 0; i < t.numStats; ++i)
      os << " *   " << stat(i).label << "  " << cArrayType(stat(i)) << "\n";
  }
  os << " *\n * The state: " << n
     << "_train_state_size() bytes aligned to 64, provided by the\n"
     << " * caller; " << n
     << "_train_init() fills it and nothing needs to be released. It must\n"
     << " * not be moved after " << n << "_train_init(); " << n
     << "_train_export() writes the working\n"
     << " * copies and running statistics to a safetensors file that `mixc "
        "--weights`\n"
     << " * takes as it is.\n */\n";
  os << "typedef mixrt_train_config " << n << "_train_config;\n"
     << "typedef mixrt_train_step_result " << n << "_step_result;\n\n";

  // The layout, as function-local statics (no unused-variable warnings).
  os << "static inline const mixrt_train_layout *" << n
     << "_train_layout(void) {\n";
  auto shapeArray = [&](const char *prefix, size_t i, const HeaderTensor &x) {
    if (x.shape.empty())
      return std::string("NULL");
    std::string name = std::string("mixc_") + prefix + std::to_string(i);
    os << "  static const int64_t " << name << "[] = {";
    for (auto [k, d] : llvm::enumerate(x.shape))
      os << (k ? ", " : "") << d;
    os << "};\n";
    return name;
  };
  std::vector<std::string> paramShapes, statShapes;
  for (size_t i = 0; i < t.numParams; ++i)
    paramShapes.push_back(shapeArray("p", i, param(i)));
  for (size_t i = 0; i < t.numStats; ++i)
    statShapes.push_back(shapeArray("s", i, stat(i)));
  os << "  static const mixrt_train_param mixc_params[] = {\n";
  for (size_t i = 0; i < t.numParams; ++i) {
    const HeaderTensor &x = param(i);
    std::string working = x.workingPrecision == "f16"    ? "MIXRT_LOWP_F16"
                          : x.workingPrecision == "bf16" ? "MIXRT_LOWP_BF16"
                                                         : "MIXRT_LOWP_NONE";
    os << "      {" << cString(x.label) << ", " << x.shape.size() << ", "
       << paramShapes[i] << ", " << (x.cType == "double" ? 1 : 0) << ", "
       << working << "},\n";
  }
  os << "  };\n";
  if (t.numStats) {
    os << "  static const mixrt_train_stat mixc_stats[] = {\n";
    for (size_t i = 0; i < t.numStats; ++i) {
      const HeaderTensor &x = stat(i);
      os << "      {" << cString(x.label) << ", " << x.shape.size() << ", "
         << statShapes[i] << ", " << (x.cType == "double" ? 1 : 0) << "},\n";
    }
    os << "  };\n";
  }
  os << "  static const mixrt_train_layout mixc_layout = {\n"
     << "      " << cString(n) << ", " << t.numParams << ", mixc_params, "
     << t.numStats << ", " << (t.numStats ? "mixc_stats" : "NULL") << ",\n"
     << "      " << std::max(grad.workspaceBytes, init.workspaceBytes) << "};\n"
     << "  return &mixc_layout;\n}\n\n";

  os << "/* Bytes of a training state (the largest any config needs). */\n"
     << "static inline size_t " << n << "_train_state_size(void) {\n"
     << "  int64_t mixc_bytes = mixrt_train_state_size(" << n
     << "_train_layout());\n"
     << "  return mixc_bytes < 0 ? 0 : (size_t)mixc_bytes;\n}\n"
     << "#define " << n << "_TRAIN_STATE_ALIGNMENT 64\n\n";

  auto bufferArgs = [&](const char *table, size_t count, size_t first,
                        const std::vector<HeaderTensor> &list, bool input) {
    std::string s;
    for (size_t i = 0; i < count; ++i)
      s += std::string(", (") + (input ? "const " : "") +
           list[first + i].cType + " *)mixc_b." + table + "[" +
           std::to_string(i) + "]";
    return s;
  };
  os << "/* Lays out `mixc_state` (" << n
     << "_train_state_size() bytes, 64-byte aligned) for\n"
     << " * `mixc_config` (NULL: mixrt_train_config_init()'s defaults) and "
        "loads the initial\n"
     << " * weights: the compiled ones, or config->initial_weights. */\n"
     << "static inline mixrt_status_code " << n
     << "_train_init(void *mixc_state,\n"
     << "    const " << n << "_train_config *mixc_config) {\n"
     << "  mixrt_train_buffers mixc_b;\n"
     << "  mixrt_status_code mixc_status = mixrt_train_prepare(\n"
     << "      mixc_state, (int64_t)" << n << "_train_state_size(), " << n
     << "_train_layout(), mixc_config,\n"
     << "      &mixc_b);\n"
     << "  if (mixc_status != MIXRT_STATUS_OK)\n    return mixc_status;\n"
     << "  if (mixc_config == NULL || mixc_config->initial_weights == NULL) {\n"
     << "    mixc_status = " << n << "_initial_weights_run_with_workspace(\n"
     << "        "
     << bufferArgs("weights", t.numParams, 0, init.outputs, false).substr(2)
     << bufferArgs("running", t.numStats, t.numParams, init.outputs, false)
     << ",\n        mixc_b.workspace);\n"
     << "    if (mixc_status != MIXRT_STATUS_OK)\n      return mixc_status;\n"
     << "  }\n"
     << "  return mixrt_train_start(mixc_state);\n}\n\n";

  std::string inputs, forwardArgs;
  for (size_t i = 0; i < numInputs; ++i) {
    const HeaderTensor &x = grad.inputs[i];
    inputs += "const " + x.cType + " *" + x.name + ", ";
    forwardArgs += x.name + ", ";
  }
  os << "/* One training step on the inputs (the network's, "
        "with their targets);\n"
     << " * `mixc_result` may be NULL. A step skipped for a non-finite "
        "gradient returns\n"
     << " * MIXRT_STATUS_OK with mixc_result->skipped = 1. */\n"
     << "static inline mixrt_status_code " << n
     << "_train_step(void *mixc_state, " << inputs.substr(0, inputs.size() - 1)
     << "\n"
     << "    " << n << "_step_result *mixc_result) {\n"
     << "  mixrt_train_buffers mixc_b;\n"
     << "  mixrt_status_code mixc_status = mixrt_train_begin(mixc_state, "
        "&mixc_b);\n"
     << "  if (mixc_status != MIXRT_STATUS_OK)\n    return mixc_status;\n"
     << "  mixc_status = " << n << "_grad_run_with_workspace(\n"
     << "      " << forwardArgs << "mixc_b.loss_scale"
     << bufferArgs("weights", t.numParams, numInputs + 1, grad.inputs, true)
     << ",\n      mixc_b.loss"
     << bufferArgs("grads", t.numParams, 1, grad.outputs, false)
     << bufferArgs("batch_stats", t.numStats, 1 + t.numParams, grad.outputs,
                   false)
     << ",\n      mixc_b.workspace);\n"
     << "  return mixrt_train_finish(mixc_state, mixc_status, mixc_result);\n"
     << "}\n\n"
     << "/* Writes the trained weights and running statistics to `path` "
        "(safetensors). */\n"
     << "static inline mixrt_status_code " << n
     << "_train_export(const void *mixc_state, const char *mixc_path) {\n"
     << "  return mixrt_train_export(mixc_state, mixc_path);\n}\n\n";
}

} // namespace

llvm::Error mix::checkTrainingSignatures(ArrayRef<NetworkSignature> networks) {
  for (const TrainedNetwork &t : findTrainedNetworks(networks)) {
    const NetworkSignature &fwd = *t.forward, &grad = *t.grad;
    std::string prefix = fwd.location + ": network @" + fwd.name + ": ";
    if (!t.initial)
      return makeError(prefix + "mixc --train needs @" + fwd.name +
                       "_initial_weights beside @" + fwd.name +
                       "_grad (mix-differentiate{weights-as-inputs})");
    if (grad.dynamicBatch)
      return makeError(prefix +
                       "training needs a static batch: the training step "
                       "computes the loss over the whole batch at once");
    size_t numInputs = fwd.inputs.size();
    if (grad.inputs.size() < numInputs + 2 ||
        grad.inputs[numInputs].label != "loss_scale" || grad.outputs.empty() ||
        grad.outputs[0].label != "loss" ||
        grad.outputs.size() != 1 + t.numParams + t.numStats ||
        t.initial->outputs.size() != t.numParams + t.numStats)
      return makeError(prefix + "@" + fwd.name + "_grad and @" + fwd.name +
                       "_initial_weights are not what "
                       "mix-differentiate{weights-as-inputs} builds");
    if (grad.outputs[0].cType != "float")
      return makeError(prefix + "the loss is " + grad.outputs[0].mlirType +
                       "; a training step needs an f32 loss");
    for (size_t i = 0; i < t.numParams; ++i) {
      const HeaderTensor &w = grad.inputs[numInputs + 1 + i];
      if (w.cType != "float" && w.cType != "double")
        return makeError(prefix + "weight '" + w.label + "' is a tensor of " +
                         w.mlirType +
                         "; trained weights must be f32 or f64 tensors (the "
                         "precision hierarchy sets the precision layers read "
                         "them at)");
      if (w.shape.size() > 8)
        return makeError(prefix + "weight '" + w.label + "' has rank " +
                         llvm::Twine(w.shape.size()) +
                         "; the trainer takes ranks up to 8");
    }
    for (size_t i = 0; i < t.numStats; ++i) {
      const HeaderTensor &s = t.initial->outputs[t.numParams + i];
      if (s.cType != "float" && s.cType != "double")
        return makeError(prefix + "running statistic '" + s.label +
                         "' is a tensor of " + s.mlirType +
                         "; it must be f32 or f64");
    }
  }
  return llvm::Error::success();
}

std::string mix::generateHeader(ArrayRef<NetworkSignature> networks,
                                const HeaderInfo &info) {
  std::string guard = "MIXC_";
  for (char c : info.modelName)
    guard += isIdentifierChar(c) ? llvm::toUpper(c) : '_';
  guard += "_H";

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* " << info.modelName << ".h - generated by mixc " << info.version
     << " from " << info.sourceName << ". Do not edit. */\n"
     << "/*\n"
     << " * The networks compiled into " << info.modelName << ".o";
  if (info.freestanding && info.checks)
    os << " (freestanding).\n"
       << " * Link the application with that object, with mixrt's "
          "freestanding core\n"
       << " * (libmixrt_core.a; the hosted mixrt contains it) and with libm: "
          "the object\n"
       << " * calls mixrt_check_fail(), math functions and "
          "memcpy/memset/memmove, never\n"
       << " * the heap.\n";
  else if (info.freestanding)
    os << " (freestanding, without run-time checks).\n"
       << " * Link the application with that object and with libm: the object "
          "calls math\n"
       << " * functions and memcpy/memset/memmove, never the heap or mixrt.\n";
  else if (info.checks)
    os << ". Link the application with that object,\n"
       << " * with mixrt (libmixrt.a or libmixrt.so) and with libm: the object "
          "calls\n"
       << " * mixrt_check_fail(), malloc(), free() and math functions.\n";
  else
    os << " (without run-time checks).\n"
       << " * Link the application with that object and with libm: the object "
          "calls\n"
       << " * malloc(), free() and math functions, no mixrt function.\n";
  os << " *\n"
     << " * Buffers are row-major and contiguous, at any address aligned to "
        "their element\n"
     << " * type; f16 and bf16 elements are bit patterns (IEEE binary16, "
        "bfloat16) in\n"
     << " * uint16_t. Inputs are only read; every element of every output is "
        "written; no\n"
     << " * output may overlap another buffer of the call.\n"
     << " *\n"
     << " * Thread safety: the calls are reentrant and thread-safe (the "
        "compiled code has\n"
     << " * no global mutable state; run-time checks are recorded per "
     << (info.freestanding ? "thread, unless\n"
                             " * mixrt's core was built with "
                             "MIXRT_CORE_NO_TLS).\n"
                           : "thread).\n")
     << " */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n"
     << (llvm::any_of(networks,
                      [](const NetworkSignature &sig) {
                        auto isBool = [](const HeaderTensor &t) {
                          return t.cType == "bool";
                        };
                        return llvm::any_of(sig.inputs, isBool) ||
                               llvm::any_of(sig.outputs, isBool);
                      })
             ? "#include <stdbool.h>\n"
             : "")
     << (!info.freestanding && llvm::any_of(networks,
                                            [](const NetworkSignature &sig) {
                                              return sig.dynamicBatch;
                                            })
             ? "#include <stdlib.h>\n\n"
             : "\n")
     << (info.freestanding ? "#include \"mixrt/core.h\"\n\n"
                           : "#include \"mixrt/mixrt.h\"\n\n")
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  // Rank 1 for the workspace.
  std::set<size_t> ranks;
  if (!networks.empty())
    ranks.insert(1);
  for (const NetworkSignature &sig : networks)
    for (const auto *list : {&sig.inputs, &sig.outputs})
      for (const HeaderTensor &t : *list)
        ranks.insert(t.shape.size());
  if (!ranks.empty())
    os << "/* Memref descriptors of rank N, the layout of MLIR's "
          "StridedMemRefType<T, N>;\n"
          " * shared by all mixc headers. */\n";
  for (size_t rank : ranks)
    emitDescriptor(os, rank);

  for (const NetworkSignature &sig : networks)
    emitNetwork(os, sig, info);
  if (info.train)
    for (const TrainedNetwork &t : findTrainedNetworks(networks))
      if (t.initial)
        emitTraining(os, t);

  os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n"
     << "#endif /* " << guard << " */\n";
  return text;
}

llvm::Expected<std::string> mix::generateHeader(ModuleOp module,
                                                const HeaderInfo &info) {
  llvm::Expected<std::vector<NetworkSignature>> networks =
      collectNetworkSignatures(module);
  if (!networks)
    return networks.takeError();
  return generateHeader(*networks, info);
}
