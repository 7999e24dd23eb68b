//===- Calibration.h - activation range statistics and their file --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A calibration run feeds sample inputs through a model and records, per
// named tensor, the range of the values observed (RangeCollector). The
// resulting CalibrationTable is stored as a small JSON file (format
// "mixc-calibration", version 1, see docs/formats.md) that the quantizer
// reads back to derive static activation scales.
//
// Errors are llvm::Error values (support/Error.h) with one-line messages;
// invalid contents or arguments carry std::errc::invalid_argument.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_IO_CALIBRATION_H
#define MIXC_IO_CALIBRATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mix::io {

/// How observed values become a range.
enum class CalibrationMethod {
  /// The smallest and largest value observed.
  MinMax,
  /// Nearest-rank percentiles, which ignore rare outliers.
  Percentile,
  /// The clipping threshold of |x| that minimizes the KL divergence between
  /// the histogram of |x| and its int8 quantization (TensorRT's entropy
  /// calibration); needs two passes over the samples.
  Entropy,
};

/// "minmax", "percentile" or "entropy", the spelling used in calibration
/// files.
llvm::StringRef calibrationMethodName(CalibrationMethod method);

/// The calibrated range of one tensor; `count` is the number of values
/// observed. A tensor that was seen with no values has min = max = 0 and
/// count 0.
struct CalibrationRange {
  double min = 0;
  double max = 0;
  int64_t count = 0;
};

/// The ranges of all calibrated tensors, keyed by the opaque tensor name the
/// compiler chose (e.g. "edge/features/conv2d#0").
struct CalibrationTable {
  CalibrationMethod method = CalibrationMethod::MinMax;
  /// The percentile p for CalibrationMethod::Percentile, 0 otherwise.
  double percentile = 0;
  /// Number of sample inputs of the run; set by the caller.
  int64_t samples = 0;
  std::map<std::string, CalibrationRange> ranges;
  /// Where the table comes from, for messages: the file name after
  /// readCalibration, "calibration table" for a table built in memory.
  std::string source = "calibration table";

  /// The range of `name`, or the error "<source>: no calibration range for
  /// 'x' (calibrate with the same model)"
  /// (std::errc::no_such_file_or_directory).
  llvm::Expected<CalibrationRange> lookup(llvm::StringRef name) const;
};

//===----------------------------------------------------------------------===//
// Entropy (KL-divergence) thresholds
//===----------------------------------------------------------------------===//

/// Histogram bins of |x| over [0, max|x|] and quantization levels of the
/// magnitude (int8: 0..127) of the entropy method.
constexpr unsigned kEntropyBins = 2048;
constexpr unsigned kEntropyLevels = 128;

/// The probability mass a smoothed zero bin receives (see
/// entropyDivergence).
constexpr double kEntropySmoothing = 1e-4;

/// KL(P || Q) of clipping the histogram `histogram` of |x| to its first
/// `bins` bins (levels <= bins <= histogram.size()) and quantizing those to
/// `levels` levels:
///
/// - P: bins [0, bins), the count of all later bins (the clipped outliers)
///   added to the last one;
/// - Q: the bins [0, bins) without the outliers, merged into `levels`
///   groups of bins / levels bins each (the last group also takes the
///   remainder); each group's count is spread evenly over the bins of the
///   group where P is not zero (0 where P is 0);
/// - both are normalized to sum 1 and smoothed: when z > 0 bins are zero,
///   each of them becomes e = min(kEntropySmoothing, 0.5 / z) and the
///   non-zero bins are scaled by (1 - e z), so that no bin is zero and the
///   sum stays 1 (TensorRT and ONNX Runtime subtract e z / (number of
///   non-zero bins) from each instead, which can turn a small bin negative);
/// - the result is sum_k p_k ln(p_k / q_k), in nats.
///
/// +infinity when Q is all zero (every kept bin empty) or the histogram is
/// all zero. Without the smoothing, an isolated outlier (a non-zero last
/// bin of P in a group that is empty in Q) would make every clipping
/// threshold infinite.
double entropyDivergence(llvm::ArrayRef<uint64_t> histogram, size_t bins,
                         unsigned levels = kEntropyLevels);

/// The number of leading bins, in [levels, histogram.size()], of the
/// smallest entropyDivergence; the smallest such number on ties, so the
/// result is deterministic. histogram.size() when the histogram has fewer
/// than `levels` bins or is all zero. The clipping threshold is
/// (result / histogram.size()) * max|x|.
size_t entropyThresholdBins(llvm::ArrayRef<uint64_t> histogram,
                            unsigned levels = kEntropyLevels);

//===----------------------------------------------------------------------===//
// RangeCollector
//===----------------------------------------------------------------------===//

/// Accumulates observed values per tensor name.
///
/// MinMax keeps three numbers per tensor. Percentile keeps every observed
/// value (8 bytes per value) because exact percentiles need them all.
/// Entropy takes two passes over the same values: the first records the
/// minimum, maximum and max|x| (as MinMax), the second (after
/// startSecondPass) a histogram of |x| with kEntropyBins bins over
/// [0, max|x|] (16 KiB per tensor), so the histogram covers all samples
/// exactly without keeping them.
/// Not thread-safe, including finish().
class RangeCollector {
public:
  /// A collector; fails (std::errc::invalid_argument) unless `percentile`
  /// lies in (50, 100] when `method` is Percentile (it is ignored
  /// otherwise).
  static llvm::Expected<RangeCollector> create(CalibrationMethod method,
                                               double percentile = 99.99);

  /// Adds observed values of `name`; any number of calls per name. A batch
  /// containing a NaN or infinity is rejected as a whole (nothing of it is
  /// recorded) with "tensor 'x': value 12 of this batch is nan"
  /// (std::errc::invalid_argument).
  /// In the second pass of Entropy, a name the first pass did not see is
  /// rejected ("tensor 'x' was not seen in the first pass"), and values
  /// beyond the first pass's max|x| count in the last bin.
  llvm::Error add(llvm::StringRef name, llvm::ArrayRef<double> values);

  /// The number of passes over the samples the method needs: 2 for Entropy,
  /// 1 otherwise. Every pass must add the same values.
  unsigned passes() const {
    return method_ == CalibrationMethod::Entropy ? 2 : 1;
  }
  /// Starts the second pass (Entropy only; no effect otherwise): the
  /// max|x| of every name is fixed and its histogram starts empty.
  void startSecondPass();

  /// The table of all names seen so far (`samples` is left 0).
  ///
  /// MinMax: the smallest and largest value. Percentile p: on the n sorted
  /// values v[1..n], max = v[ceil(p/100 * n)] and min = v[ceil((100-p)/100 *
  /// n)] (nearest-rank method, ranks clamped to [1, n]). A rank within 1e-9
  /// (relative) of an integer is taken as that integer, so that p = 99.99
  /// and n = 10000 give rank 9999 despite binary rounding of 99.99.
  /// Sorts the stored values in place; further add() calls are allowed.
  ///
  /// Entropy: t = (entropyThresholdBins(histogram) / kEntropyBins) *
  /// max|x|, and the range is [max(min, -t), min(max, t)]: the magnitude
  /// threshold clips both ends, and a side the values never reached (0 for
  /// a ReLU output) stays where it was. All values 0 (max|x| = 0) give
  /// [0, 0], as MinMax. Before startSecondPass the ranges are MinMax's.
  CalibrationTable finish() const;

private:
  RangeCollector(CalibrationMethod method, double percentile)
      : method_(method), percentile_(percentile) {}

  struct Observed {
    CalibrationRange range;             // MinMax, Entropy
    mutable std::vector<double> values; // Percentile
    double maxAbs = 0;                  // Entropy: max|x| of the first pass
    std::vector<uint64_t> histogram;    // Entropy: |x|, second pass
  };
  CalibrationMethod method_;
  double percentile_;
  bool secondPass_ = false;
  std::map<std::string, Observed, std::less<>> observed_;
};

/// Reads and validates a calibration file. Errors are one line starting with
/// the path (and line:column for malformed JSON); a file that cannot be read
/// fails with the errno code, an invalid one with
/// std::errc::invalid_argument.
llvm::Expected<CalibrationTable> readCalibration(const std::string &path);

/// Writes `table` (validated first, so that readCalibration accepts the
/// result) with numbers that read back bit for bit. Atomic
/// (mix::OutputFiles): the file is written beside `path` and renamed over
/// it; the directory must exist.
llvm::Error writeCalibration(const std::string &path,
                             const CalibrationTable &table);

} // namespace mix::io

#endif // MIXC_IO_CALIBRATION_H
