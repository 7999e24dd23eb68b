//===- Interpreter.h - f64 reference interpreter of the mix dialect -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Runs a `mix.network` on dense f64 tensors. This is the "ideal" reference
// that tests compare compiled code against: every layer computes in f64 and
// precision attributes are ignored. The one exception is `mix.cast`, which
// rounds every value to its result element type exactly as the compiled code
// does (one round-to-nearest-even conversion), so IR after
// `mix-insert-casts` can be interpreted too.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_INTERPRETER_H
#define MIXC_COMPILER_INTERPRETER_H

#include "dialect/MixOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace mix {

/// A dense row-major tensor of doubles. A rank-0 tensor (empty `shape`)
/// holds one value. Integer tensors (labels, indices) hold exact doubles.
struct RefTensor {
  llvm::SmallVector<int64_t> shape;
  std::vector<double> data;

  /// The product of `shape` (1 for a rank-0 tensor).
  int64_t numElements() const;
};

/// Named weights for `mix.weight external "name"` references.
using WeightMap = llvm::StringMap<RefTensor>;

/// Options of the reference interpreter.
struct InterpreterOptions {
  /// Called before each layer op (LayerOpInterface) runs, with its operand
  /// values in operand order (calibration records int8 layer inputs).
  std::function<void(mlir::Operation *layer,
                     llvm::ArrayRef<const RefTensor *> operands)>
      beforeLayer;
  /// Called after every op with results (layers, quantized ops, casts,
  /// weights), with its first result (accuracy reports compare them; the
  /// first result of an lstm or gru is its sequence y).
  std::function<void(mlir::Operation *op, const RefTensor &result)> afterOp;
};

/// Runs `network` on `inputs` (one per network argument, in order; integer
/// inputs such as labels and indices are stored as exact doubles) and
/// returns its outputs in `mix.return` order. External weights are looked up
/// by name in `weights` and must have the declared shape. Input and weight
/// values are used as given (not rounded to the declared element type);
/// integer inputs must hold exact values of their element type.
///
/// The quantized ops of mix-quantize are emulated bit for bit as compiled
/// code computes them (and as mixrt does): `mix.quantize` rounds its input
/// to the input element type first, then quantizes in that type; the
/// integer GEMMs sum exactly and rescale with
/// `(f32)((f64)sa * (f64)sb * acc)` and an f32 bias.
///
/// `network` must have passed the verifier. Non-finite input values are
/// allowed and propagate as in IEEE arithmetic. Errors (wrong inputs, a
/// missing or misshapen weight, an out-of-range index or label, an overflow
/// in a `checked` cast, a non-finite value reaching a `checked` quantize, an
/// op the interpreter does not know) are returned as
/// one-line messages starting with the location of the offending op as
/// `file:line:col`.
llvm::Expected<std::vector<RefTensor>>
interpret(NetworkOp network, llvm::ArrayRef<RefTensor> inputs,
          const WeightMap &weights, const InterpreterOptions &options = {});

/// Rounds `value` to the floating-point type `type` (f16, bf16, f32 or f64)
/// with one round-to-nearest-even conversion and returns it as a double:
/// values beyond the type's range become +-inf, NaN stays NaN (sign kept;
/// the payload is not part of the contract), subnormals are produced. This
/// is what `mix.cast` does to every value; a `checked` cast additionally
/// fails when a finite value becomes infinite.
double roundToType(double value, mlir::FloatType type);

} // namespace mix

#endif // MIXC_COMPILER_INTERPRETER_H
