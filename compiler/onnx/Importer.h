//===- Importer.h - the state of one ONNX import (internal) --------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Internal to MixOnnxImport. One Importer translates one checked,
// shape-inferred ModelProto:
//   OnnxImport.cpp  the walk over the graph, the network, the result;
//   OnnxOps.cpp     one handler per ONNX op (layers);
//   OnnxFold.cpp    the folding of shape subgraphs (Shape, Gather, Concat,
//                   ... of constants) and the GELU written out;
//   OnnxTensors.cpp initializer data: integers, raw bytes, mix.weight ops;
//   OnnxBlocks.cpp  module paths of node names -> nested mix.block ops.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_ONNX_IMPORTER_H
#define MIXC_COMPILER_ONNX_IMPORTER_H

#include "compiler/onnx/OnnxImport.h"
#include "dialect/MixOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class NodeProto;
class TensorProto;
class TypeProto;
} // namespace onnx

namespace mix::onnx_import {

/// In a folded integer tensor (a shape), the size of the dynamic batch.
constexpr int64_t kBatchDim = INT64_MIN;

/// A value known at import time: an initializer, the tensor of a Constant
/// node, or a folded shape computation.
struct Constant {
  std::vector<int64_t> shape;
  /// onnx::TensorProto::DataType.
  int32_t dtype = 0;
  /// The data, when it comes from a TensorProto (initializers, Constant).
  const onnx::TensorProto *proto = nullptr;
  /// Integer data (folded, or read from an integer `proto`); may hold
  /// kBatchDim.
  std::optional<std::vector<int64_t>> ints;
  /// The name of the ONNX value (the weight's name when it is external).
  std::string name;

  /// The number of elements; -1 if a dimension is negative or the count
  /// (or its size in bytes, 8 per element at most) overflows int64.
  int64_t numElements() const;
};

/// Module paths of nodes: `/encoder/layer.0/attn/MatMul` -> {encoder,
/// layer.0, attn}; names without a leading '/' have none.
std::vector<std::string> modulePath(llvm::StringRef nodeName);

/// Nests the ops of `network` into mix.block ops along `paths` (the module
/// path of each op; ops without an entry belong to the network itself).
void outlineBlocks(NetworkOp network,
                   const llvm::DenseMap<mlir::Operation *, unsigned> &pathOf,
                   const std::vector<std::vector<std::string>> &paths);

class Importer {
public:
  Importer(const onnx::ModelProto &model, mlir::MLIRContext &context,
           llvm::StringRef path, const OnnxImportOptions &options);
  llvm::Expected<ImportedOnnxModel> run();

  //===--- used by the op handlers ---------------------------------------===//

  /// Records that `node` cannot be imported (all are reported together).
  void problem(const onnx::NodeProto &node, const llvm::Twine &why);
  /// The activation `name` (null if it has none: a constant, or the output
  /// of a node that failed).
  mlir::Value value(llvm::StringRef name) const;
  /// The constant `name`, or null.
  const Constant *constant(llvm::StringRef name) const;
  /// The MLIR type of value `name` from shape inference, or null after
  /// recording a problem with `node`.
  mlir::RankedTensorType typeOf(const onnx::NodeProto &node,
                                llvm::StringRef name);
  /// typeOf(), also recording a problem (and returning null) when the
  /// element type is not a float type: the layers' results.
  mlir::RankedTensorType floatTypeOf(const onnx::NodeProto &node,
                                     llvm::StringRef name);
  /// The activation or the constant (as a mix.weight) `name`; null after
  /// recording a problem with `node`.
  mlir::Value operand(const onnx::NodeProto &node, llvm::StringRef name);
  /// A mix.weight holding `c` (transposed, for a 2-D `c`, if asked; only
  /// the range `columns` of its last dimension, if given); null after
  /// recording a problem with `node`.
  mlir::Value
  weight(const onnx::NodeProto &node, const Constant &c, bool transpose = false,
         std::optional<std::pair<int64_t, int64_t>> columns = std::nullopt);
  /// The integers of a constant input, or std::nullopt.
  std::optional<std::vector<int64_t>> constantInts(llvm::StringRef name) const;
  /// Binds an ONNX output name.
  void define(llvm::StringRef name, mlir::Value value) { values[name] = value; }
  void defineConstant(llvm::StringRef name, Constant c);

  /// Folds `node` when it computes on constants only (shape subgraphs):
  /// true if every output became a constant.
  bool fold(const onnx::NodeProto &node);
  /// Translates one node into mix ops (or records problems).
  void convert(const onnx::NodeProto &node);
  /// Elementwise math nodes (Sigmoid, Sub, Max, ...): false for other ops.
  bool convertMath(const onnx::NodeProto &node);
  /// Transpose, Concat, Slice, Pad of activations, the reductions and
  /// AveragePool (OnnxDataOps.cpp): false for other ops.
  bool convertDataOp(const onnx::NodeProto &node);
  /// Gather of an activation, Expand (OnnxMaskOps.cpp): false for other ops.
  bool convertMaskOp(const onnx::NodeProto &node);
  /// Ops written as a few mix layers: PRelu, Softplus, DepthToSpace, ...
  /// (OnnxComposite.cpp): false for other ops.
  bool convertComposite(const onnx::NodeProto &node);
  /// LSTM and GRU (OnnxRecurrent.cpp): false for other ops.
  bool convertRecurrent(const onnx::NodeProto &node);
  /// The value of a constant with one floating-point element, or nullopt.
  std::optional<double> constantScalar(llvm::StringRef name) const;
  /// The values of a small (at most 4096 elements) f32/f64 constant, or
  /// nullopt.
  std::optional<std::vector<double>> constantFloats(llvm::StringRef name) const;
  /// A GELU written out: its input and its form.
  struct GeluMatch {
    std::string x;
    /// The tanh form (mix.gelu {approximate = true}).
    bool approximate = false;
  };
  /// Finds the GELUs exporters write for opsets without Gelu, in either
  /// order of the two final Muls, every intermediate used once:
  ///  - exact: `0.5 * x * (1 + Erf(x / sqrt(2)))`;
  ///  - tanh: `0.5 * x * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 *
  ///    Pow(x, 3))))` (PyTorch's approximate='tanh', GPT-2's gelu_new).
  /// The indices of the nodes a GELU absorbs go to `absorbed`, the index
  /// of its last node to `gelus`.
  void findGelus(llvm::DenseSet<int> &absorbed,
                 llvm::DenseMap<int, GeluMatch> &gelus) const;

  /// A multi-head self-attention written out (OnnxAttention.cpp): the
  /// names of its input, constant weights and biases (empty: none), mask
  /// (empty: none) and the columns each of q, k, v takes of a fused
  /// [E, 3E] projection.
  struct AttentionMatch {
    std::string x, wq, wk, wv, wo, bq, bk, bv, bo, mask;
    std::optional<std::pair<int64_t, int64_t>> qColumns, kColumns, vColumns;
    int64_t heads = 1;
    /// The fused op's name: the module path its nodes share + "/Attention".
    std::string name;
  };
  /// Finds the multi-head self-attention subgraphs exporters write
  /// (docs/onnx.md, "Attention"), every intermediate used inside only; the
  /// indices of the nodes one absorbs go to `absorbed`, the index of its
  /// last node (the output projection's MatMul or bias Add) to `found`.
  /// Folds the Constant nodes first (their values are needed to match).
  void findAttentions(llvm::DenseSet<int> &absorbed,
                      llvm::DenseMap<int, AttentionMatch> &found);
  /// Emits the mix.attention of `m` for its last node `node`.
  void convertAttention(const onnx::NodeProto &node, const AttentionMatch &m);
  /// The static shape of a constant, or of a value from shape inference
  /// (the batch may be dynamic); std::nullopt if unknown.
  std::optional<std::vector<int64_t>> shapeOfValue(llvm::StringRef name) const;

  /// How many node inputs and graph outputs name each value.
  llvm::StringMap<unsigned> uses;

  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  mlir::Location loc;
  llvm::StringRef path;
  const OnnxImportOptions &options;

private:
  mlir::RankedTensorType tensorType(const onnx::TypeProto &type,
                                    llvm::StringRef valueName,
                                    std::string &error) const;

  const onnx::ModelProto &model;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<Constant> constants;
  llvm::StringMap<const onnx::TypeProto *> types;
  std::vector<std::string> problems;
  /// External weights written, by name; true if stored transposed.
  llvm::StringMap<bool> externalNames;
  std::vector<io::TensorToWrite> externalWeights;

  /// The module path of every op created, as an index into `paths`.
  llvm::DenseMap<mlir::Operation *, unsigned> pathOf;
  std::vector<std::vector<std::string>> paths;
  unsigned currentPath = 0;
  friend struct PathListener;
};

/// A layer op `OpTy` of `result` type on `operands` with `attrs`, at the
/// importer's current location: what every op handler creates.
template <typename OpTy>
mlir::Value layer(Importer &im, mlir::Type result, mlir::ValueRange operands,
                  llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
  return OpTy::create(im.builder, im.loc, mlir::TypeRange{result}, operands,
                      attrs)
      .getResult();
}

/// A rank-0 constant of float type `elem` (a mix.weight), which the layers
/// broadcast.
mlir::Value scalarWeight(Importer &im, mlir::Type elem, double v);

/// A constant mask of `shape`: `w != 0` with `w` an inline f32 weight of
/// the 0s and 1s of `values` (mix weights are floats).
mlir::Value constantMask(Importer &im, llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<bool> values);

/// Pads of a 2-D window (Conv, MaxPool, AveragePool) from ONNX's auto_pad
/// and pads attributes, as [top, left, bottom, right]; std::nullopt after
/// recording a problem with `node`.
std::optional<llvm::SmallVector<int64_t>>
windowPadding(Importer &im, const onnx::NodeProto &node,
              mlir::RankedTensorType inputType, llvm::ArrayRef<int64_t> kernel,
              llvm::ArrayRef<int64_t> strides,
              llvm::ArrayRef<int64_t> dilations);

/// An ONNX element type for messages: its name and number, `uint8 (2)`, or
/// the number alone if ONNX does not name it.
std::string elementTypeName(int32_t dtype);

} // namespace mix::onnx_import

#endif // MIXC_COMPILER_ONNX_IMPORTER_H
