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
};

/// "minmax" or "percentile", the spelling used in calibration files.
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
  /// The percentile p for CalibrationMethod::Percentile, 0 for MinMax.
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

/// Accumulates observed values per tensor name.
///
/// MinMax keeps three numbers per tensor. Percentile keeps every observed
/// value (8 bytes per value) because exact percentiles need them all.
/// Not thread-safe, including finish().
class RangeCollector {
public:
  /// A collector; fails (std::errc::invalid_argument) unless `percentile`
  /// lies in (50, 100] when `method` is Percentile (it is ignored for
  /// MinMax).
  static llvm::Expected<RangeCollector> create(CalibrationMethod method,
                                               double percentile = 99.99);

  /// Adds observed values of `name`; any number of calls per name. A batch
  /// containing a NaN or infinity is rejected as a whole (nothing of it is
  /// recorded) with "tensor 'x': value 12 of this batch is nan"
  /// (std::errc::invalid_argument).
  llvm::Error add(llvm::StringRef name, llvm::ArrayRef<double> values);

  /// The table of all names seen so far (`samples` is left 0).
  ///
  /// MinMax: the smallest and largest value. Percentile p: on the n sorted
  /// values v[1..n], max = v[ceil(p/100 * n)] and min = v[ceil((100-p)/100 *
  /// n)] (nearest-rank method, ranks clamped to [1, n]). A rank within 1e-9
  /// (relative) of an integer is taken as that integer, so that p = 99.99
  /// and n = 10000 give rank 9999 despite binary rounding of 99.99.
  /// Sorts the stored values in place; further add() calls are allowed.
  CalibrationTable finish() const;

private:
  RangeCollector(CalibrationMethod method, double percentile)
      : method_(method), percentile_(percentile) {}

  struct Observed {
    CalibrationRange range;             // MinMax
    mutable std::vector<double> values; // Percentile
  };
  CalibrationMethod method_;
  double percentile_;
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
