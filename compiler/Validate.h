//===- Validate.h - accuracy of a compiled model on a validation set ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// `mix-bench --validate FILE`: the accuracy half of a deployment report.
// Every sample of a validation set runs through the compiled object (what
// ships) and through the f64 interpreter of the source model (the ideal
// model, precisions ignored), and the outputs are compared:
//
// - per network output: SQNR and the largest absolute error, over all
//   samples;
// - `--loss top1`: the share of rows whose arg-max over the last axis is
//   the reference's (classifiers), and with labels the accuracy of both;
// - `--loss mse` / `--loss quantile`: the loss of both against targets and
//   its relative change (regressors; quantile: the pinball loss averaged
//   over the quantiles of the output's last axis);
// - per layer: SQNR and largest error of each layer's output, from the
//   interpreter of the model after the quantize phase (mix-insert-casts,
//   mix-quantize: int8 emulated exactly) against the reference
//   (compareLayers in Calibrate.h).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_VALIDATE_H
#define MIXC_COMPILER_VALIDATE_H

#include "compiler/Calibrate.h"
#include "compiler/CompiledNetwork.h"
#include "compiler/Options.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mix {

/// What to measure; `samplesPath` holds `input0`, `input1`, ... as
/// mix-calibrate's samples do, and `target0` for a loss against targets.
struct ValidationOptions {
  std::string samplesPath;
  /// "" (SQNR and errors only), "top1", "mse" or "quantile".
  std::string loss;
  /// The quantiles of the last axis of output 0, for "quantile".
  std::vector<double> quantiles;
};

/// The compiled outputs against the reference's, over every sample.
struct OutputAccuracy {
  std::string name;
  double sqnrDb = 0; ///< +inf when exact, -inf with a mismatch
  double maxAbsError = 0;
  int64_t values = 0;
  int64_t mismatches = 0; ///< values NaN or infinite where the two differ
};

/// A loss or score of output 0 for the reference and the compiled model.
struct LossFigures {
  std::string kind; ///< "mse", "quantile", "top1-agreement", "top1-accuracy"
  double reference = 0;
  double compiled = 0;
};

struct Validation {
  int64_t samples = 0;
  std::vector<OutputAccuracy> outputs;
  std::vector<LossFigures> losses;
  std::vector<LayerAccuracy> layers;
};

/// Runs the validation of `compiled` (built from `compile` for network
/// `entry`). Errors name the file, the tensor or the sample.
llvm::Expected<Validation> validate(CompiledNetwork &compiled,
                                    const CompileOptions &compile,
                                    llvm::StringRef entry,
                                    const ValidationOptions &options);

void printValidation(llvm::raw_ostream &os, const Validation &v);
llvm::json::Object validationToJson(const Validation &v);

} // namespace mix

#endif // MIXC_COMPILER_VALIDATE_H
