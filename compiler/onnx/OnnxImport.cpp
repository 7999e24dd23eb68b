//===- OnnxImport.cpp - ONNX models into the mix dialect ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImport.h"
#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxProto.h"
#include "compiler/onnx/PrecisionPlan.h"
#include "dialect/MixDialect.h"
#include "support/Error.h"
#include "support/Format.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;

bool mix::isOnnxPath(llvm::StringRef path) {
  return path.ends_with_insensitive(".onnx");
}

std::vector<std::string> mix::onnx_import::modulePath(llvm::StringRef name) {
  std::vector<std::string> path;
  if (!name.starts_with("/"))
    return path;
  llvm::SmallVector<llvm::StringRef> parts;
  name.drop_front().split(parts, '/');
  if (parts.empty())
    return path;
  parts.pop_back(); // the op's own name
  for (llvm::StringRef p : parts)
    if (!p.empty())
      path.push_back(p.str());
  return path;
}

namespace mix::onnx_import {
/// Records the module path of every op the handlers create.
struct PathListener : public OpBuilder::Listener {
  explicit PathListener(Importer &importer) : importer(importer) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (importer.currentPath != 0)
      importer.pathOf[op] = importer.currentPath;
  }
  Importer &importer;
};
} // namespace mix::onnx_import

Importer::Importer(const onnx::ModelProto &model, MLIRContext &context,
                   llvm::StringRef path, const OnnxImportOptions &options)
    : context(context), builder(&context), loc(UnknownLoc::get(&context)),
      path(path), options(options), model(model) {
  paths.emplace_back(); // index 0: no path
}

void Importer::problem(const onnx::NodeProto &node, const llvm::Twine &why) {
  std::string name = node.name().empty() ? "<unnamed>" : node.name();
  problems.push_back("'" + name + "' (" + node.op_type() + "): " + why.str());
}

Value Importer::value(llvm::StringRef name) const {
  return values.lookup(name);
}

const Constant *Importer::constant(llvm::StringRef name) const {
  auto it = constants.find(name);
  return it == constants.end() ? nullptr : &it->second;
}

void Importer::defineConstant(llvm::StringRef name, Constant c) {
  constants[name] = std::move(c);
}

RankedTensorType Importer::tensorType(const onnx::TypeProto &type,
                                      llvm::StringRef valueName,
                                      std::string &error) const {
  if (!type.has_tensor_type()) {
    error = "'" + valueName.str() + "' is not a tensor";
    return {};
  }
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  Type element;
  switch (tensor.elem_type()) {
  case onnx::TensorProto::FLOAT:
    element = Float32Type::get(&context);
    break;
  case onnx::TensorProto::DOUBLE:
    element = Float64Type::get(&context);
    break;
  case onnx::TensorProto::FLOAT16:
    element = Float16Type::get(&context);
    break;
  case onnx::TensorProto::BFLOAT16:
    element = BFloat16Type::get(&context);
    break;
  case onnx::TensorProto::INT64:
    element = IntegerType::get(&context, 64);
    break;
  case onnx::TensorProto::INT32:
    element = IntegerType::get(&context, 32);
    break;
  case onnx::TensorProto::INT8: // signless i8, read signed (mix.cast)
    element = IntegerType::get(&context, 8);
    break;
  case onnx::TensorProto::BOOL: // a mask: one byte, 0 or 1 (C's bool)
    element = IntegerType::get(&context, 1);
    break;
  default:
    error = "'" + valueName.str() + "' has the ONNX element type " +
            elementTypeName(tensor.elem_type()) +
            " (mix takes float, double, float16, bfloat16, int64, int32, "
            "int8, bool)";
    return {};
  }
  if (!tensor.has_shape()) {
    error = "the shape of '" + valueName.str() + "' is unknown";
    return {};
  }
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(tensor.shape().dim())) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    if (i == 0) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    std::string name =
        dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : std::string();
    error = "'" + valueName.str() + "' has the dynamic dimension " +
            std::to_string(i) + name +
            "; only the leading (batch) dimension may be dynamic";
    return {};
  }
  return RankedTensorType::get(shape, element);
}

RankedTensorType Importer::typeOf(const onnx::NodeProto &node,
                                  llvm::StringRef name) {
  const onnx::TypeProto *type = types.lookup(name);
  if (!type) {
    problem(node, "ONNX shape inference gave no type for '" + name + "'");
    return {};
  }
  std::string error;
  RankedTensorType t = tensorType(*type, name, error);
  if (!t)
    problem(node, error);
  return t;
}

RankedTensorType Importer::floatTypeOf(const onnx::NodeProto &node,
                                       llvm::StringRef name) {
  RankedTensorType t = typeOf(node, name);
  if (t && !isa<FloatType>(t.getElementType())) {
    std::string elem;
    llvm::raw_string_ostream(elem) << t.getElementType();
    problem(node, node.op_type() + " of " + elem +
                      " tensors is not supported (mix layers compute on "
                      "floating-point tensors)");
    return {};
  }
  return t;
}

Value Importer::operand(const onnx::NodeProto &node, llvm::StringRef name) {
  if (Value v = value(name))
    return v;
  if (const Constant *c = constant(name))
    return weight(node, *c);
  // The producer failed and was reported; nothing more to say.
  return {};
}

llvm::Expected<ImportedOnnxModel> Importer::run() {
  const onnx::GraphProto &graph = model.graph();
  for (const onnx::ValueInfoProto &v : graph.input())
    types[v.name()] = &v.type();
  for (const onnx::ValueInfoProto &v : graph.value_info())
    types[v.name()] = &v.type();
  for (const onnx::ValueInfoProto &v : graph.output())
    types[v.name()] = &v.type();
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &name : node.input())
      ++uses[name];
  for (const onnx::ValueInfoProto &v : graph.output())
    ++uses[v.name()];
  for (const onnx::TensorProto &t : graph.initializer()) {
    Constant c;
    c.proto = &t;
    c.shape.assign(t.dims().begin(), t.dims().end());
    c.dtype = t.data_type();
    c.name = t.name();
    constants[t.name()] = std::move(c);
  }

  // The network: its inputs are the graph inputs that are not initializers.
  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  std::vector<std::string> inputErrors;
  for (const onnx::ValueInfoProto &v : graph.input()) {
    if (constants.count(v.name()))
      continue;
    std::string error;
    RankedTensorType t = tensorType(v.type(), v.name(), error);
    if (!t) {
      inputErrors.push_back("input " + error);
      continue;
    }
    inputTypes.push_back(t);
    inputNames.push_back(v.name());
  }
  if (!inputErrors.empty())
    return makeError(std::errc::not_supported,
                     escapeControlCharacters(
                         (path + ": " + llvm::join(inputErrors, "; ")).str()));

  std::string name = llvm::sys::path::stem(path).str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (name.empty() || llvm::isDigit(name[0]) || name[0] == '_')
    name = "net_" + name;
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  PrecisionAttr networkPrecision =
      options.plan && options.plan->network
          ? options.plan->network
          : PrecisionAttr::get(&context, PrecisionKind::f32);
  auto network =
      NetworkOp::create(builder, fileLoc, builder.getStringAttr(name),
                        TypeAttr::get(builder.getFunctionType(inputTypes, {})),
                        networkPrecision, ArrayAttr(), ArrayAttr());
  Block *body = new Block();
  network.getBody().push_back(body);
  for (auto [t, n] : llvm::zip(inputTypes, inputNames))
    values[n] =
        body->addArgument(t, NameLoc::get(builder.getStringAttr(n), fileLoc));
  builder.setInsertionPointToEnd(body);

  llvm::DenseSet<int> absorbed;
  llvm::DenseMap<int, GeluMatch> gelus;
  findGelus(absorbed, gelus);
  llvm::DenseMap<int, AttentionMatch> attentions;
  findAttentions(absorbed, attentions);

  PathListener listener(*this);
  builder.setListener(&listener);
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    if (absorbed.contains(int(index)))
      continue;
    std::string nodeName = node.name().empty()
                               ? node.op_type() + "_" + std::to_string(index)
                               : node.name();
    loc = NameLoc::get(
        builder.getStringAttr(nodeName),
        FileLineColLoc::get(&context, path, unsigned(index + 1), 1));
    auto attention = attentions.find(int(index));
    if (attention != attentions.end())
      // The fused op is named after, and nested in, the attention module.
      loc = NameLoc::get(
          builder.getStringAttr(attention->second.name),
          FileLineColLoc::get(&context, path, unsigned(index + 1), 1));
    std::vector<std::string> p = modulePath(
        attention != attentions.end() ? attention->second.name : node.name());
    currentPath = 0;
    if (!p.empty()) {
      paths.push_back(std::move(p));
      currentPath = unsigned(paths.size() - 1);
    }
    if (attention != attentions.end()) {
      convertAttention(node, attention->second);
      continue;
    }
    if (auto gelu = gelus.find(int(index)); gelu != gelus.end()) {
      Value x = value(gelu->second.x);
      RankedTensorType type = typeOf(node, node.output(0));
      if (x && type) {
        auto op = GeluOp::create(builder, loc, TypeRange{type}, ValueRange{x});
        if (gelu->second.approximate)
          op.setApproximate(true);
        define(node.output(0), op.getResult());
      }
      continue;
    }
    if (fold(node))
      continue;
    convert(node);
  }
  currentPath = 0;

  // The outputs.
  SmallVector<Value> results;
  loc = fileLoc;
  for (const onnx::ValueInfoProto &v : graph.output()) {
    if (Value r = value(v.name())) {
      // A mask (Equal, Less, ...) is a bool output: C's bool, 0 or 1.
      results.push_back(r);
      continue;
    }
    if (const Constant *c = constant(v.name())) {
      onnx::NodeProto pseudo;
      pseudo.set_name(v.name());
      pseudo.set_op_type("output");
      if (Value w = weight(pseudo, *c))
        results.push_back(w);
      continue;
    }
    if (problems.empty())
      problems.push_back("output '" + v.name() + "' is not computed");
  }
  builder.setListener(nullptr);
  if (!problems.empty())
    return makeError(
        std::errc::not_supported,
        escapeControlCharacters(
            (path + ": " + llvm::Twine(problems.size()) +
             " node(s) cannot be imported: " + llvm::join(problems, "; "))
                .str()));
  ReturnOp::create(builder, fileLoc, results);
  SmallVector<Type> resultTypes;
  for (Value r : results)
    resultTypes.push_back(r.getType());
  network.setFunctionTypeAttr(
      TypeAttr::get(builder.getFunctionType(inputTypes, resultTypes)));
  // The ONNX names of the graph inputs and outputs name the parameters of
  // the generated C header (mixc.md, "Names").
  for (auto [i, n] : llvm::enumerate(inputNames))
    network.setArgAttr(i, "mix.name", builder.getStringAttr(n));
  for (auto [i, v] : llvm::enumerate(graph.output()))
    network.setResultAttr(i, "mix.name", builder.getStringAttr(v.name()));

  outlineBlocks(network, pathOf, paths);
  if (options.plan)
    if (llvm::Error error = applyPrecisionPlan(*options.plan, network))
      return std::move(error);

  // The model must verify; the first error is reported.
  std::string firstError;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error &&
          firstError.empty()) {
        std::string where;
        if (auto name = dyn_cast<NameLoc>(diag.getLocation()))
          where = "node '" + name.getName().str() + "': ";
        firstError = where + diag.str();
      }
      return success();
    });
    if (failed(verify(*module)))
      return makeError(
          std::errc::invalid_argument,
          escapeControlCharacters(
              (path + ": the imported model is invalid: " +
               (firstError.empty() ? "verification failed" : firstError))
                  .str()));
  }
  ImportedOnnxModel result;
  result.module = std::move(module);
  result.weights = std::move(externalWeights);
  return result;
}

llvm::Expected<ImportedOnnxModel>
mix::importOnnxFile(llvm::StringRef path, MLIRContext &context,
                    const OnnxImportOptions &options) {
  context.loadDialect<MixDialect>();
  static const llvm::StringSet<> supported = [] {
    llvm::StringSet<> set;
    for (const std::string &op : getSupportedOnnxOps())
      set.insert(op);
    return set;
  }();
  ReadOptions read;
  read.batch = options.batch;
  read.isSupported = [](llvm::StringRef domain, llvm::StringRef op) {
    return domain.empty() && supported.contains(op);
  };
  auto model = readOnnxModel(path, read);
  if (!model)
    return model.takeError();
  Importer importer(**model, context, path, options);
  llvm::Expected<ImportedOnnxModel> imported = importer.run();
  if (imported)
    imported->source =
        std::shared_ptr<const onnx::ModelProto>(std::move(*model));
  return imported;
}
