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
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mix {

/// One sample: a value for every network input, in order.
using Sample = std::vector<RefTensor>;

/// The calibration table of `network` over `samples`. `percentile` is used
/// by the percentile method only. Errors: interpreter errors (bad inputs,
/// missing weights), non-finite activations (named by layer), an invalid
/// percentile. The entropy method runs the samples twice (Calibrator).
llvm::Expected<io::CalibrationTable> calibrate(NetworkOp network,
                                               llvm::ArrayRef<Sample> samples,
                                               const WeightMap &weights,
                                               io::CalibrationMethod method,
                                               double percentile = 99.99);

/// calibrate() over samples that arrive in batches (mix-calibrate reads a
/// folder one file at a time), so they never all are in memory:
///
///   for (unsigned pass = 0; pass < c.passes(); ++pass) {
///     if (pass > 0) c.nextPass();
///     for (each batch) if (Error e = c.add(batch)) ...;
///   }
///   CalibrationTable table = c.finish();
///
/// Every pass must see the same samples in the same order (entropy: the
/// first pass finds max|x| of every activation, the second fills the
/// histograms over [0, max|x|]; see io::RangeCollector).
class Calibrator {
public:
  /// A calibrator of `network`; `weights` must outlive it. Fails for an
  /// invalid percentile.
  static llvm::Expected<Calibrator> create(NetworkOp network,
                                           const WeightMap &weights,
                                           io::CalibrationMethod method,
                                           double percentile = 99.99);

  /// Passes over all samples the method needs: 2 for entropy, else 1.
  unsigned passes() const { return collector.passes(); }
  /// Starts the next pass.
  void nextPass();
  /// Runs `samples`. Errors start with "sample <i>: " (i: index in
  /// `samples`).
  llvm::Error add(llvm::ArrayRef<Sample> samples);
  /// The table; `samples` is the number of samples of the first pass.
  io::CalibrationTable finish() const;

private:
  Calibrator(NetworkOp network, const WeightMap &weights,
             io::RangeCollector collector);

  NetworkOp network;
  const WeightMap *weights;
  io::RangeCollector collector;
  /// The layer path of every int8 layer, decided on the unmodified network.
  llvm::DenseMap<mlir::Operation *, std::string> paths;
  unsigned pass = 0;
  int64_t samples = 0;
};

/// Sums of the errors of values compared with a reference: every finite
/// reference value adds to `signal` (exact ones too), its error to `noise`.
/// Equal non-finite values agree (the same infinity; NaN and NaN) and add
/// nothing. A pair where either value is NaN or infinite and the two differ
/// has no finite error: it is counted as a mismatch, its error is infinite
/// (`maxAbs`, and the SQNR is -inf), and it adds nothing to the sums.
struct ErrorSums {
  double signal = 0, noise = 0, maxAbs = 0;
  int64_t count = 0;
  int64_t mismatches = 0; ///< pairs with NaN or infinity that differ
  void add(double got, double want);
  /// 10 log10(signal / noise): +inf when no value differs, -inf when a
  /// mismatch or an error on an all-zero reference.
  double sqnrDb() const;
};

/// The accuracy of one layer of a lowered model against the reference.
struct LayerAccuracy {
  std::string layer;     ///< layer path in the reference model
  std::string location;  ///< file:line:col
  std::string precision; ///< the layer's resolved activations precision
  /// 10 log10(sum ref^2 / sum (ref - lowered)^2); +inf when exact, -inf
  /// when a value is NaN or infinite on one side only (ErrorSums).
  double sqnrDb = 0;
  double maxAbsError = 0;
  int64_t values = 0;     ///< compared values (all samples)
  int64_t mismatches = 0; ///< of them, NaN or infinite where the two differ
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
