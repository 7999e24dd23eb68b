//===- Calibration.cpp - activation range statistics and their file ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "io/Calibration.h"

#include "io/Common.h"
#include "support/InputLimits.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>

namespace json = llvm::json;

namespace mix::io {

using detail::invalid;
using detail::jsonKindName;

namespace {

constexpr const char *kFormat = "mixc-calibration";
constexpr int64_t kVersion = 1;

/// "nan", "inf" or "-inf".
const char *nonFiniteName(double v) {
  if (std::isnan(v))
    return "nan";
  return v > 0 ? "inf" : "-inf";
}

/// The shortest decimal that reads back as exactly `v`, always spelled as a
/// JSON floating-point number ("2.0", not "2"), so that llvm::json keeps it a
/// double and -0.0 keeps its sign.
std::string formatDouble(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

llvm::Error checkPercentile(llvm::StringRef source, double p) {
  if (!(p > 50 && p <= 100))
    return invalid(source, "percentile ", p, " is outside (50, 100]");
  return llvm::Error::success();
}

llvm::Error checkRange(llvm::StringRef source, llvm::StringRef name,
                       const CalibrationRange &r) {
  if (!std::isfinite(r.min))
    return invalid(source, "range '", name, "': min is ", nonFiniteName(r.min));
  if (!std::isfinite(r.max))
    return invalid(source, "range '", name, "': max is ", nonFiniteName(r.max));
  if (r.min > r.max)
    return invalid(source, "range '", name, "': min ", formatDouble(r.min),
                   " is greater than max ", formatDouble(r.max));
  if (r.count < 0)
    return invalid(source, "range '", name, "': count ", r.count,
                   " is negative");
  return llvm::Error::success();
}

/// 1-based nearest rank of the q-th percentile of n values, clamped to [1, n].
/// Ranks within 1e-9 (relative) of an integer are snapped to it first, so
/// that decimal percentiles such as 99.99 are not pushed up by binary
/// rounding.
int64_t nearestRank(double q, int64_t n) {
  double x = q * static_cast<double>(n) / 100.0;
  const double nearest = std::round(x);
  if (std::fabs(x - nearest) <= 1e-9 * std::max(1.0, x))
    x = nearest;
  const double rank = std::ceil(x);
  if (rank < 1)
    return 1;
  if (rank > static_cast<double>(n))
    return n;
  return static_cast<int64_t>(rank);
}

} // namespace

llvm::StringRef calibrationMethodName(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::Entropy:
    return "entropy";
  }
  llvm_unreachable("unknown calibration method");
}

//===----------------------------------------------------------------------===//
// Entropy thresholds
//===----------------------------------------------------------------------===//

namespace {

/// Normalizes `d` to sum 1 and smooths it (entropyDivergence); false when
/// it is all zero.
bool normalizeAndSmooth(std::vector<double> &d) {
  double sum = 0;
  size_t zeros = 0;
  for (double v : d) {
    sum += v;
    zeros += v == 0;
  }
  if (sum <= 0)
    return false;
  const double eps = zeros == 0 ? 0
                                : std::min(kEntropySmoothing,
                                           0.5 / static_cast<double>(zeros));
  const double keep = 1.0 - eps * static_cast<double>(zeros);
  for (double &v : d)
    v = v == 0 ? eps : v / sum * keep;
  return true;
}

} // namespace

double entropyDivergence(llvm::ArrayRef<uint64_t> histogram, size_t bins,
                         unsigned levels) {
  assert(levels > 0 && levels <= bins && bins <= histogram.size() &&
         "bins must lie in [levels, histogram.size()]");
  const double infinity = std::numeric_limits<double>::infinity();
  // P: the kept bins, the outliers added to the last one.
  std::vector<double> p(histogram.begin(), histogram.begin() + bins);
  for (size_t k = bins; k < histogram.size(); ++k)
    p[bins - 1] += static_cast<double>(histogram[k]);
  // Q: the kept bins without the outliers, quantized to `levels` groups.
  std::vector<double> q(bins, 0.0);
  const size_t width = bins / levels;
  for (unsigned g = 0; g < levels; ++g) {
    const size_t begin = g * width;
    const size_t end = g + 1 == levels ? bins : begin + width;
    double mass = 0;
    size_t nonZero = 0;
    for (size_t k = begin; k < end; ++k) {
      mass += static_cast<double>(histogram[k]);
      nonZero += p[k] != 0;
    }
    if (nonZero == 0)
      continue;
    for (size_t k = begin; k < end; ++k)
      if (p[k] != 0)
        q[k] = mass / static_cast<double>(nonZero);
  }
  if (!normalizeAndSmooth(p) || !normalizeAndSmooth(q))
    return infinity;
  double divergence = 0;
  for (size_t k = 0; k < bins; ++k)
    divergence += p[k] * std::log(p[k] / q[k]);
  return divergence;
}

size_t entropyThresholdBins(llvm::ArrayRef<uint64_t> histogram,
                            unsigned levels) {
  const size_t n = histogram.size();
  if (levels == 0 || n < levels ||
      std::all_of(
          histogram.begin(), histogram.end(),
          [](uint64_t c) { return c == 0; }))
    return n;
  size_t best = n;
  double bestDivergence = std::numeric_limits<double>::infinity();
  for (size_t bins = levels; bins <= n; ++bins) {
    const double d = entropyDivergence(histogram, bins, levels);
    if (d < bestDivergence) {
      bestDivergence = d;
      best = bins;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// CalibrationTable
//===----------------------------------------------------------------------===//

llvm::Expected<CalibrationRange>
CalibrationTable::lookup(llvm::StringRef name) const {
  auto it = ranges.find(name.str());
  if (it == ranges.end())
    return detail::notFound(source, "no calibration range for '", name,
                            "' (calibrate with the same model)");
  return it->second;
}

//===----------------------------------------------------------------------===//
// RangeCollector
//===----------------------------------------------------------------------===//

llvm::Expected<RangeCollector> RangeCollector::create(CalibrationMethod method,
                                                      double percentile) {
  if (method != CalibrationMethod::Percentile)
    return RangeCollector(method, 0);
  if (llvm::Error error = checkPercentile("calibration", percentile))
    return std::move(error);
  return RangeCollector(method, percentile);
}

llvm::Error RangeCollector::add(llvm::StringRef name,
                                llvm::ArrayRef<double> values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return makeError(std::errc::invalid_argument,
                       detail::concat("tensor '", name, "': value ", i,
                                      " of this batch is ",
                                      nonFiniteName(values[i])));
  auto it = observed_.find(name);
  if (secondPass_) {
    if (it == observed_.end())
      return makeError(
          std::errc::invalid_argument,
          detail::concat("tensor '", name, "' was not seen in the first pass"));
    Observed &obs = it->second;
    if (obs.maxAbs == 0)
      return llvm::Error::success(); // all zero: no histogram needed
    for (double v : values) {
      // |v| / max|x| lies in [0, 1] (beyond only if the passes differ).
      const double bin = std::floor(std::fabs(v) / obs.maxAbs * kEntropyBins);
      ++obs.histogram[bin >= kEntropyBins - 1 ? kEntropyBins - 1
                                              : static_cast<size_t>(bin)];
    }
    return llvm::Error::success();
  }
  if (it == observed_.end())
    it = observed_.emplace(name.str(), Observed()).first;
  Observed &obs = it->second;
  if (method_ == CalibrationMethod::Percentile) {
    obs.values.insert(obs.values.end(), values.begin(), values.end());
    return llvm::Error::success();
  }
  for (double v : values) {
    if (obs.range.count == 0) {
      obs.range.min = obs.range.max = v;
    } else {
      obs.range.min = std::min(obs.range.min, v);
      obs.range.max = std::max(obs.range.max, v);
    }
    obs.maxAbs = std::max(obs.maxAbs, std::fabs(v));
    ++obs.range.count;
  }
  return llvm::Error::success();
}

void RangeCollector::startSecondPass() {
  if (method_ != CalibrationMethod::Entropy)
    return;
  secondPass_ = true;
  for (auto &entry : observed_)
    entry.second.histogram.assign(kEntropyBins, 0);
}

CalibrationTable RangeCollector::finish() const {
  CalibrationTable table;
  table.method = method_;
  table.percentile = percentile_;
  for (const auto &[name, obs] : observed_) {
    if (method_ == CalibrationMethod::MinMax) {
      table.ranges[name] = obs.range;
      continue;
    }
    if (method_ == CalibrationMethod::Entropy) {
      CalibrationRange range = obs.range;
      if (secondPass_ && obs.maxAbs > 0) {
        const double t =
            static_cast<double>(entropyThresholdBins(obs.histogram)) /
            kEntropyBins * obs.maxAbs;
        range.min = std::max(range.min, -t);
        range.max = std::min(range.max, t);
      }
      table.ranges[name] = range;
      continue;
    }
    CalibrationRange range;
    const int64_t n = static_cast<int64_t>(obs.values.size());
    if (n > 0) {
      std::sort(obs.values.begin(), obs.values.end());
      range.min = obs.values[nearestRank(100.0 - percentile_, n) - 1];
      range.max = obs.values[nearestRank(percentile_, n) - 1];
      range.count = n;
    }
    table.ranges[name] = range;
  }
  return table;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// Reads "format", "version", "method", "percentile" and "samples" of the
/// top-level object `root` into `table`.
llvm::Error readFields(llvm::StringRef path, const json::Object &root,
                       CalibrationTable &table) {
  for (const auto &kv : root) {
    llvm::StringRef key = kv.first;
    if (key != "format" && key != "version" && key != "method" &&
        key != "percentile" && key != "samples" && key != "ranges")
      return invalid(path, "unknown key \"", key, "\"");
  }
  auto missing = [&](const char *key) {
    return invalid(path, "missing \"", key, "\"");
  };

  const json::Value *format = root.get("format");
  if (!format)
    return missing("format");
  if (format->getAsString() != llvm::StringRef(kFormat))
    return invalid(path, "not a mixc calibration file (\"format\" must be \"",
                   kFormat, "\")");

  const json::Value *version = root.get("version");
  if (!version)
    return missing("version");
  std::optional<int64_t> v = version->getAsInteger();
  if (!v)
    return invalid(path, "\"version\" must be an integer, got ",
                   jsonKindName(*version));
  if (*v != kVersion)
    return invalid(path, "unsupported version ", *v,
                   " (this mixc reads version ", kVersion, ")");

  const json::Value *method = root.get("method");
  if (!method)
    return missing("method");
  std::optional<llvm::StringRef> methodName = method->getAsString();
  if (!methodName)
    return invalid(path, "\"method\" must be a string, got ",
                   jsonKindName(*method));
  if (*methodName == "minmax")
    table.method = CalibrationMethod::MinMax;
  else if (*methodName == "percentile")
    table.method = CalibrationMethod::Percentile;
  else if (*methodName == "entropy")
    table.method = CalibrationMethod::Entropy;
  else
    return invalid(path, "unknown method \"", *methodName,
                   "\" (expected \"minmax\", \"percentile\" or "
                   "\"entropy\")");

  const json::Value *percentile = root.get("percentile");
  if (table.method == CalibrationMethod::Percentile) {
    if (!percentile)
      return invalid(path, "missing \"percentile\" (required with method "
                           "\"percentile\")");
    std::optional<double> p = percentile->getAsNumber();
    if (!p)
      return invalid(path, "\"percentile\" must be a number, got ",
                     jsonKindName(*percentile));
    if (llvm::Error error = checkPercentile(path, *p))
      return error;
    table.percentile = *p;
  } else if (percentile) {
    return invalid(path, "\"percentile\" is only allowed with method "
                         "\"percentile\"");
  }

  const json::Value *samples = root.get("samples");
  if (!samples)
    return missing("samples");
  std::optional<int64_t> n = samples->getAsInteger();
  if (!n || *n < 0)
    return invalid(path, "\"samples\" must be a non-negative integer");
  table.samples = *n;
  return llvm::Error::success();
}

/// Reads the entry `name` of "ranges".
llvm::Expected<CalibrationRange> readRange(llvm::StringRef path,
                                           const std::string &name,
                                           const json::Value &value) {
  auto bad = [&](const auto &...pieces) {
    return invalid(path, "range '", name, "': ", pieces...);
  };
  const json::Object *entry = value.getAsObject();
  if (!entry)
    return bad("must be an object, got ", jsonKindName(value));
  for (const auto &kv : *entry)
    if (kv.first != "min" && kv.first != "max" && kv.first != "count")
      return bad("unknown key \"", llvm::StringRef(kv.first), "\"");
  CalibrationRange range;
  for (const char *key : {"min", "max"}) {
    const json::Value *number = entry->get(key);
    if (!number)
      return bad("missing \"", key, "\"");
    std::optional<double> d = number->getAsNumber();
    if (!d)
      return bad("\"", key, "\" must be a number, got ", jsonKindName(*number));
    (llvm::StringRef(key) == "min" ? range.min : range.max) = *d;
  }
  const json::Value *count = entry->get("count");
  if (!count)
    return bad("missing \"count\"");
  std::optional<int64_t> c = count->getAsInteger();
  if (!c)
    return bad("\"count\" must be an integer, got ", jsonKindName(*count));
  range.count = *c;
  if (llvm::Error error = checkRange(path, name, range))
    return std::move(error);
  return range;
}

} // namespace

llvm::Expected<CalibrationTable> readCalibration(const std::string &path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, limits::kMaxCalibrationBytes, "calibration file");
  if (!buffer)
    return buffer.takeError();
  if (llvm::Error e =
          checkNestingDepth((*buffer)->getBuffer(), limits::kMaxJSONNesting,
                            NestingSyntax::json, path))
    return std::move(e);

  llvm::Expected<json::Value> parsed = json::parse((*buffer)->getBuffer());
  if (!parsed)
    return detail::jsonParseError(path, "JSON", parsed.takeError());
  if (std::optional<std::string> dup =
          detail::findDuplicateKey((*buffer)->getBuffer()))
    return invalid(path, "the key '", *dup, "' appears twice in one object");
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return invalid(path, "expected a JSON object at the top level, got ",
                   jsonKindName(*parsed));

  CalibrationTable table;
  table.source = path;
  if (llvm::Error error = readFields(path, *root, table))
    return std::move(error);

  const json::Value *rangesValue = root->get("ranges");
  if (!rangesValue)
    return invalid(path, "missing \"ranges\"");
  const json::Object *ranges = rangesValue->getAsObject();
  if (!ranges)
    return invalid(path, "\"ranges\" must be an object, got ",
                   jsonKindName(*rangesValue));

  // Visit the ranges in sorted order so the first error is deterministic.
  std::vector<std::string> names;
  for (const auto &kv : *ranges)
    names.push_back(kv.first.str());
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    llvm::Expected<CalibrationRange> range =
        readRange(path, name, *ranges->get(name));
    if (!range)
      return range.takeError();
    table.ranges.emplace(name, *range);
  }
  return table;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

llvm::Error writeCalibration(const std::string &path,
                             const CalibrationTable &table) {
  if (table.method == CalibrationMethod::Percentile)
    if (llvm::Error error = checkPercentile(path, table.percentile))
      return error;
  if (table.samples < 0)
    return invalid(path, "samples ", table.samples, " is negative");
  for (const auto &[name, range] : table.ranges) {
    if (!json::isUTF8(name))
      return invalid(path, "range name '", name, "' is not valid UTF-8");
    if (llvm::Error error = checkRange(path, name, range))
      return error;
  }

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n";
  os << "  \"format\": \"" << kFormat << "\",\n";
  os << "  \"version\": " << kVersion << ",\n";
  os << "  \"method\": \"" << calibrationMethodName(table.method) << "\",\n";
  if (table.method == CalibrationMethod::Percentile)
    os << "  \"percentile\": " << formatDouble(table.percentile) << ",\n";
  os << "  \"samples\": " << table.samples << ",\n";
  os << "  \"ranges\": {";
  bool first = true;
  for (const auto &[name, range] : table.ranges) {
    os << (first ? "\n" : ",\n") << "    " << json::Value(name) << ": "
       << "{\"min\": " << formatDouble(range.min)
       << ", \"max\": " << formatDouble(range.max)
       << ", \"count\": " << range.count << "}";
    first = false;
  }
  os << (first ? "}\n" : "\n  }\n") << "}\n";
  return detail::writeFileAtomically(path, std::move(text));
}

} // namespace mix::io
