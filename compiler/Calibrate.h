//===- Calibrate.h - calibration and accuracy of quantized models ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Two uses of the reference interpreter around mix-quantize:
//
// - calibrate(): runs sample inputs through a model and records, for every
//   int8 layer, the range of its activation inputs (keys
//   "<layer path>/input", or "/lhs" and "/rhs" for matmul) - the table
//   mix-quantize reads for static activation scales. Values are those of
//   the ideal f64 model (precisions ignored).
//
// - compareLayers(): runs the same samples through a reference module and a
//   lowered one (after mix-insert-casts / mix-quantize, interpreted exactly)
//   and reports, per layer, the SQNR and the largest absolute error of the
//   lowered layer's output against the reference's.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_CALIBRATE_H
#define MIXC_COMPILER_CALIBRATE_H

#include "compiler/Interpreter.h"
#include "io/Calibration.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mix {

/// One sample: a value for every network input, in order.
using Sample = std::vector<RefTensor>;

/// The calibration table of `network` over `samples`. `percentile` is used
/// by the percentile method only. Errors: interpreter errors (bad inputs,
/// missing weights), non-finite activations (named by layer), an invalid
/// percentile.
llvm::Expected<io::CalibrationTable> calibrate(NetworkOp network,
                                               llvm::ArrayRef<Sample> samples,
                                               const WeightMap &weights,
                                               io::CalibrationMethod method,
                                               double percentile = 99.99);

/// The accuracy of one layer of a lowered model against the reference.
struct LayerAccuracy {
  std::string layer;     ///< layer path in the reference model
  std::string location;  ///< file:line:col
  std::string precision; ///< the layer's resolved activations precision
  /// 10 log10(sum ref^2 / sum (ref - lowered)^2); +inf when exact.
  double sqnrDb = 0;
  double maxAbsError = 0;
  int64_t values = 0; ///< compared values (all samples)
};

/// Runs `samples` through `reference` and `lowered` (the same network after
/// lowering passes that keep each layer's location: mix-insert-casts,
/// mix-quantize, mix-fold-batch-norm) and compares every layer output,
/// matched by source location; a conv2d with a batch_norm folded into it is
/// compared as that batch_norm (the conv2d's own output no longer exists).
/// Layers are listed in the reference's order.
llvm::Expected<std::vector<LayerAccuracy>>
compareLayers(NetworkOp reference, NetworkOp lowered,
              llvm::ArrayRef<Sample> samples, const WeightMap &weights);

/// Prints `layers` as a table (layer, precision, SQNR dB, max abs error).
void printAccuracyTable(llvm::raw_ostream &os,
                        llvm::ArrayRef<LayerAccuracy> layers);

} // namespace mix

#endif // MIXC_COMPILER_CALIBRATE_H
