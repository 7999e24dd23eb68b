//===- CalibrationTest.cpp - tests of range collection and its file ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "Result.h"
#include "TempDir.h"

#include <catch2/catch.hpp>

#include "io/Calibration.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <unistd.h>

using namespace mix::io;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

using test::Outcome;
using test::Result;
using test::result;
using test::TempDir;

void writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

RangeCollector collector(CalibrationMethod method, double p = 99.99) {
  Result<RangeCollector> c = RangeCollector::create(method, p);
  REQUIRE(c.ok());
  return std::move(*c);
}

std::vector<double> iota(int from, int to) {
  std::vector<double> v;
  for (int i = from; i <= to; ++i)
    v.push_back(i);
  return v;
}

/// A valid file with `ranges` as the "ranges" value.
std::string fileWith(const std::string &ranges) {
  return R"({"format": "mixc-calibration", "version": 1, "method": "minmax",)"
         R"( "samples": 4, "ranges": )" +
         ranges + "}";
}

/// Reads `text` from a fresh file; the read must fail with InvalidArgument
/// and a one-line message starting with the path. Returns the message with
/// the path removed.
std::string readError(const TempDir &dir, const std::string &text) {
  const std::string path = dir.file("bad.json");
  writeText(path, text);
  Result<CalibrationTable> table = readCalibration(path);
  REQUIRE_FALSE(table.ok());
  CHECK(table.status().code() == std::errc::invalid_argument);
  std::string msg(table.status().message());
  REQUIRE_THAT(msg, StartsWith(path));
  CHECK(msg.find('\n') == std::string::npos);
  return msg.substr(path.size());
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

} // namespace

TEST_CASE("MinMax collects min and max over several batches", "[calibration]") {
  RangeCollector c = collector(CalibrationMethod::MinMax);
  REQUIRE(Outcome(c.add("edge/features/conv2d#0", {3.0, -1.0, 2.0})).ok());
  REQUIRE(Outcome(c.add("other", {0.5})).ok());
  REQUIRE(Outcome(c.add("edge/features/conv2d#0", {5.0})).ok());
  REQUIRE(Outcome(c.add("edge/features/conv2d#0", {})).ok());
  REQUIRE(Outcome(c.add("seen-empty", {})).ok());

  CalibrationTable t = c.finish();
  CHECK(t.method == CalibrationMethod::MinMax);
  CHECK(t.percentile == 0);
  CHECK(t.samples == 0);
  REQUIRE(t.ranges.size() == 3);
  const CalibrationRange &r = t.ranges.at("edge/features/conv2d#0");
  CHECK(r.min == -1.0);
  CHECK(r.max == 5.0);
  CHECK(r.count == 4);
  CHECK(t.ranges.at("other").min == 0.5);
  CHECK(t.ranges.at("other").max == 0.5);
  CHECK(t.ranges.at("other").count == 1);
  CHECK(t.ranges.at("seen-empty").count == 0);
  CHECK(t.ranges.at("seen-empty").min == 0.0);
  CHECK(t.ranges.at("seen-empty").max == 0.0);
}

TEST_CASE("Percentile uses nearest rank", "[calibration]") {
  SECTION("1..1000 at p = 99, added in pieces and out of order") {
    // n = 1000, v[k] = k. max: rank ceil(99/100 * 1000) = 990 -> 990.
    // min: the 1st percentile, rank ceil(1/100 * 1000) = 10 -> 10.
    RangeCollector c = collector(CalibrationMethod::Percentile, 99);
    std::vector<double> high = iota(501, 1000), low = iota(1, 500);
    std::reverse(low.begin(), low.end());
    REQUIRE(Outcome(c.add("x", high)).ok());
    REQUIRE(Outcome(c.add("x", low)).ok());
    CalibrationTable t = c.finish();
    CHECK(t.method == CalibrationMethod::Percentile);
    CHECK(t.percentile == 99);
    const CalibrationRange &r = t.ranges.at("x");
    CHECK(r.min == 10);
    CHECK(r.max == 990);
    CHECK(r.count == 1000);

    // More values after finish(): n = 1001 with 1001 added.
    // max rank ceil(990.99) = 991 -> 991; min rank ceil(10.01) = 11 -> 11.
    REQUIRE(Outcome(c.add("x", {1001})).ok());
    const CalibrationRange r2 = c.finish().ranges.at("x");
    CHECK(r2.min == 11);
    CHECK(r2.max == 991);
    CHECK(r2.count == 1001);
  }
  SECTION("p = 99.99 on 1..10000: exact ranks despite binary rounding") {
    // max rank 99.99/100 * 10000 = 9999 exactly -> 9999; min rank
    // 0.01/100 * 10000 = 1 -> 1. In doubles 100 - 99.99 = 0.010000000000005116,
    // whose ceil would give rank 2 without snapping.
    RangeCollector c = collector(CalibrationMethod::Percentile, 99.99);
    REQUIRE(Outcome(c.add("x", iota(1, 10000))).ok());
    const CalibrationRange r = c.finish().ranges.at("x");
    CHECK(r.min == 1);
    CHECK(r.max == 9999);
  }
  SECTION("small n clamps the ranks") {
    // n = 3, p = 99.99: max rank ceil(2.9997) = 3, min rank ceil(0.0003) = 1.
    RangeCollector c = collector(CalibrationMethod::Percentile);
    REQUIRE(Outcome(c.add("x", {2.0, -7.0, 4.0})).ok());
    const CalibrationRange r = c.finish().ranges.at("x");
    CHECK(r.min == -7.0);
    CHECK(r.max == 4.0);
    CHECK(r.count == 3);
  }
  SECTION("p = 100 is min/max") {
    RangeCollector c = collector(CalibrationMethod::Percentile, 100);
    REQUIRE(Outcome(c.add("x", {0.25, -3.0, 8.0, 1.0})).ok());
    const CalibrationRange r = c.finish().ranges.at("x");
    CHECK(r.min == -3.0);
    CHECK(r.max == 8.0);
  }
  SECTION("a name seen without values") {
    RangeCollector c = collector(CalibrationMethod::Percentile);
    REQUIRE(Outcome(c.add("x", {})).ok());
    const CalibrationRange r = c.finish().ranges.at("x");
    CHECK(r.count == 0);
    CHECK(r.min == 0.0);
    CHECK(r.max == 0.0);
  }
}

TEST_CASE("the percentile must be above 50 and at most 100", "[calibration]") {
  for (double bad :
       {50.0, 10.0, 100.5, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    Result<RangeCollector> c =
        RangeCollector::create(CalibrationMethod::Percentile, bad);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().code() == std::errc::invalid_argument);
    CHECK_THAT(std::string(c.status().message()),
               Contains("is outside (50, 100]"));
  }
  CHECK(result(RangeCollector::create(CalibrationMethod::Percentile, 50.001))
            .ok());
  CHECK(
      result(RangeCollector::create(CalibrationMethod::Percentile, 100)).ok());
  // Ignored for MinMax.
  CHECK(result(RangeCollector::create(CalibrationMethod::MinMax, 3)).ok());
}

TEST_CASE("non-finite values are rejected batch-wise", "[calibration]") {
  for (CalibrationMethod method :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile}) {
    RangeCollector c = collector(method, 100);
    REQUIRE(Outcome(c.add("x", {1.0, 2.0})).ok());
    Outcome nan =
        c.add("x", {0.0, -50.0, std::numeric_limits<double>::quiet_NaN()});
    CHECK(nan.code() == std::errc::invalid_argument);
    CHECK(nan.message() == "tensor 'x': value 2 of this batch is nan");
    Outcome inf = c.add("y", {std::numeric_limits<double>::infinity(), 1.0});
    CHECK(inf.message() == "tensor 'y': value 0 of this batch is inf");
    Outcome negInf =
        c.add("x", {1.0, -std::numeric_limits<double>::infinity()});
    CHECK(negInf.message() == "tensor 'x': value 1 of this batch is -inf");

    // Nothing of the rejected batches was recorded.
    CalibrationTable t = c.finish();
    CHECK(t.ranges.count("y") == 0);
    const CalibrationRange &r = t.ranges.at("x");
    CHECK(r.min == 1.0);
    CHECK(r.max == 2.0);
    CHECK(r.count == 2);
  }
}

TEST_CASE("lookup names the table's source", "[calibration]") {
  CalibrationTable t;
  t.ranges["a"] = {-1.0, 1.0, 3};
  Result<CalibrationRange> a = t.lookup("a");
  REQUIRE(a.ok());
  CHECK(a->max == 1.0);
  Result<CalibrationRange> b = t.lookup("b");
  CHECK(b.status().code() == std::errc::no_such_file_or_directory);
  CHECK(b.status().message() ==
        "calibration table: no calibration range for 'b' (calibrate with the "
        "same model)");

  TempDir dir("cal");
  const std::string path = dir.file("calib.json");
  REQUIRE(Outcome(writeCalibration(path, t)).ok());
  Result<CalibrationTable> read = readCalibration(path);
  REQUIRE(read.ok());
  CHECK(read->source == path);
  CHECK(result(read->lookup("b")).status().message() ==
        path + ": no calibration range for 'b' (calibrate with the same "
               "model)");
}

TEST_CASE("write produces the documented format", "[calibration]") {
  TempDir dir("cal");
  CalibrationTable t;
  t.method = CalibrationMethod::Percentile;
  t.percentile = 99.99;
  t.samples = 16;
  t.ranges["edge/features/conv2d#0"] = {-0.52, 2.25, 12544};
  t.ranges["head/\"fc\"\\1"] = {0.0, 6.0, 10};
  const std::string path = dir.file("calib.json");
  REQUIRE(Outcome(writeCalibration(path, t)).ok());
  CHECK(readText(path) ==
        "{\n"
        "  \"format\": \"mixc-calibration\",\n"
        "  \"version\": 1,\n"
        "  \"method\": \"percentile\",\n"
        "  \"percentile\": 99.99,\n"
        "  \"samples\": 16,\n"
        "  \"ranges\": {\n"
        "    \"edge/features/conv2d#0\": {\"min\": -0.52, \"max\": 2.25, "
        "\"count\": 12544},\n"
        "    \"head/\\\"fc\\\"\\\\1\": {\"min\": 0.0, \"max\": 6.0, "
        "\"count\": 10}\n"
        "  }\n"
        "}\n");

  CalibrationTable empty;
  REQUIRE(Outcome(writeCalibration(path, empty)).ok());
  CHECK(readText(path) == "{\n"
                          "  \"format\": \"mixc-calibration\",\n"
                          "  \"version\": 1,\n"
                          "  \"method\": \"minmax\",\n"
                          "  \"samples\": 0,\n"
                          "  \"ranges\": {}\n"
                          "}\n");
  Result<CalibrationTable> read = readCalibration(path);
  REQUIRE(read.ok());
  CHECK(read->ranges.empty());
  CHECK(read->method == CalibrationMethod::MinMax);
}

TEST_CASE("read after write gives identical bits", "[calibration]") {
  TempDir dir("cal");
  const double values[] = {-0.0,
                           0.1,
                           1.0 / 3.0,
                           -2.0 / 3.0,
                           std::numeric_limits<double>::denorm_min(),
                           DBL_MIN,
                           DBL_MAX,
                           1e22,
                           123456789.0,
                           2.0,
                           std::nextafter(1.0, 2.0)};
  CalibrationTable t;
  t.method = CalibrationMethod::Percentile;
  t.percentile = std::nextafter(99.9, 100.0);
  t.samples = 7;
  int i = 0;
  for (double v : values) {
    // Ranges [-|v|, v] and [v, v], so min <= max holds.
    t.ranges["neg" + std::to_string(i)] = {-std::fabs(v), v, i};
    t.ranges["pt" + std::to_string(i)] = {v, v, 1000000000000LL + i};
    ++i;
  }
  const std::string path = dir.file("calib.json");
  REQUIRE(Outcome(writeCalibration(path, t)).ok());
  CHECK(dir.empty() == false);
  Result<CalibrationTable> read = readCalibration(path);
  INFO(read.status().message());
  REQUIRE(read.ok());
  CHECK(read->method == t.method);
  CHECK(sameBits(read->percentile, t.percentile));
  CHECK(read->samples == 7);
  REQUIRE(read->ranges.size() == t.ranges.size());
  for (const auto &[name, r] : t.ranges) {
    INFO(name);
    const CalibrationRange &got = read->ranges.at(name);
    CHECK(sameBits(got.min, r.min));
    CHECK(sameBits(got.max, r.max));
    CHECK(got.count == r.count);
  }
  // -0.0 keeps its sign.
  CHECK(std::signbit(read->ranges.at("pt0").min));

  // MinMax round trip from a collector.
  RangeCollector c = collector(CalibrationMethod::MinMax);
  REQUIRE(Outcome(c.add("a", {0.1, 0.7, -0.3})).ok());
  CalibrationTable mm = c.finish();
  mm.samples = 3;
  REQUIRE(Outcome(writeCalibration(path, mm)).ok());
  Result<CalibrationTable> mmRead = readCalibration(path);
  REQUIRE(mmRead.ok());
  CHECK(mmRead->method == CalibrationMethod::MinMax);
  CHECK(mmRead->percentile == 0);
  CHECK(sameBits(mmRead->ranges.at("a").min, -0.3));
  CHECK(sameBits(mmRead->ranges.at("a").max, 0.7));
}

TEST_CASE("write rejects invalid tables and leaves nothing behind",
          "[calibration]") {
  TempDir dir("cal");
  const std::string path = dir.file("calib.json");
  auto message = [&](const CalibrationTable &t) {
    Outcome s = writeCalibration(path, t);
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == std::errc::invalid_argument);
    return std::string(s.message());
  };
  CalibrationTable t;
  t.ranges["x"] = {2.0, 1.0, 1};
  CHECK(message(t) == path + ": range 'x': min 2.0 is greater than max 1.0");
  t.ranges["x"] = {std::numeric_limits<double>::quiet_NaN(), 1.0, 1};
  CHECK(message(t) == path + ": range 'x': min is nan");
  t.ranges["x"] = {0.0, std::numeric_limits<double>::infinity(), 1};
  CHECK(message(t) == path + ": range 'x': max is inf");
  t.ranges["x"] = {0.0, 1.0, -1};
  CHECK(message(t) == path + ": range 'x': count -1 is negative");
  t.ranges["x"] = {0.0, 1.0, 1};
  t.samples = -2;
  CHECK(message(t) == path + ": samples -2 is negative");
  t.samples = 0;
  t.method = CalibrationMethod::Percentile;
  t.percentile = 0;
  CHECK(message(t) == path + ": percentile 0 is outside (50, 100]");
  CHECK(dir.empty());

  const std::string noDir = dir.file("no/such/calib.json");
  Outcome s = writeCalibration(noDir, CalibrationTable());
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.message()), StartsWith(noDir + ": cannot create"));
}

TEST_CASE("read reports missing files and malformed JSON", "[calibration]") {
  TempDir dir("cal");
  const std::string missing = dir.file("missing.json");
  Result<CalibrationTable> t = readCalibration(missing);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == std::errc::no_such_file_or_directory);
  CHECK_THAT(std::string(t.status().message()),
             StartsWith("cannot read calibration file '" + missing + "': "));

  CHECK_THAT(readError(dir, "{\n  \"format\": \"mixc-calibration\",\n  ]\n}"),
             StartsWith(":3:3: invalid JSON: "));
  CHECK_THAT(readError(dir, ""), StartsWith(":1:1: invalid JSON: "));
  CHECK(readError(dir, "[]") ==
        ": expected a JSON object at the top level, got an array");
}

TEST_CASE("read reports bad top-level fields", "[calibration]") {
  TempDir dir("cal");
  const std::string ranges = R"("ranges": {})";
  const std::string head = R"("format": "mixc-calibration", "version": 1, )";
  CHECK(readError(dir, R"({"version": 1, "method": "minmax", "samples": 1, )" +
                           ranges + "}") == ": missing \"format\"");
  CHECK(readError(dir, R"({"format": "safetensors", "version": 1, )"
                       R"("method": "minmax", "samples": 1, )" +
                           ranges + "}") ==
        ": not a mixc calibration file (\"format\" must be "
        "\"mixc-calibration\")");
  CHECK(readError(dir, R"({"format": "mixc-calibration", "method": "minmax", )"
                       R"("samples": 1, )" +
                           ranges + "}") == ": missing \"version\"");
  CHECK(readError(dir, R"({"format": "mixc-calibration", "version": 2, )"
                       R"("method": "minmax", "samples": 1, )" +
                           ranges + "}") ==
        ": unsupported version 2 (this mixc reads version 1)");
  CHECK(readError(dir, R"({"format": "mixc-calibration", "version": "1", )"
                       R"("method": "minmax", "samples": 1, )" +
                           ranges + "}") ==
        ": \"version\" must be an integer, got a string");
  CHECK(readError(dir, "{" + head + R"("samples": 1, )" + ranges + "}") ==
        ": missing \"method\"");
  CHECK(readError(dir, "{" + head + R"("method": "mean", "samples": 1, )" +
                           ranges + "}") ==
        ": unknown method \"mean\" (expected \"minmax\", \"percentile\" or "
        "\"entropy\")");
  CHECK(readError(dir, "{" + head + R"("method": 1, "samples": 1, )" + ranges +
                           "}") ==
        ": \"method\" must be a string, got a number");
  CHECK(readError(dir, "{" + head +
                           R"("method": "percentile", "samples": 1, )" +
                           ranges + "}") ==
        ": missing \"percentile\" (required with method \"percentile\")");
  CHECK(readError(dir, "{" + head +
                           R"("method": "percentile", "percentile": 50, )"
                           R"("samples": 1, )" +
                           ranges + "}") ==
        ": percentile 50 is outside (50, 100]");
  CHECK(readError(dir, "{" + head +
                           R"("method": "percentile", "percentile": 100.5, )"
                           R"("samples": 1, )" +
                           ranges + "}") ==
        ": percentile 100.5 is outside (50, 100]");
  CHECK(readError(dir, "{" + head +
                           R"("method": "percentile", "percentile": "99", )"
                           R"("samples": 1, )" +
                           ranges + "}") ==
        ": \"percentile\" must be a number, got a string");
  CHECK(readError(dir, "{" + head +
                           R"("method": "minmax", "percentile": 99, )"
                           R"("samples": 1, )" +
                           ranges + "}") ==
        ": \"percentile\" is only allowed with method \"percentile\"");
  CHECK(readError(dir, "{" + head + R"("method": "minmax", )" + ranges + "}") ==
        ": missing \"samples\"");
  for (const char *samples : {"-1", "1.5", "\"4\""})
    CHECK(readError(dir, "{" + head + R"("method": "minmax", "samples": )" +
                             samples + ", " + ranges + "}") ==
          ": \"samples\" must be a non-negative integer");
  CHECK(readError(dir, "{" + head + R"("method": "minmax", "samples": 1})") ==
        ": missing \"ranges\"");
  CHECK(readError(dir, fileWith("[]")) ==
        ": \"ranges\" must be an object, got an array");
  CHECK(readError(dir, "{" + head + R"("method": "minmax", "samples": 1, )" +
                           ranges + R"(, "sample": 3})") ==
        ": unknown key \"sample\"");
}

TEST_CASE("read reports bad ranges", "[calibration]") {
  TempDir dir("cal");
  CHECK(readError(dir, fileWith(R"({"a": [1, 2]})")) ==
        ": range 'a': must be an object, got an array");
  CHECK(readError(dir, fileWith(R"({"a": {"max": 1, "count": 1}})")) ==
        ": range 'a': missing \"min\"");
  CHECK(readError(dir, fileWith(R"({"a": {"min": 0, "count": 1}})")) ==
        ": range 'a': missing \"max\"");
  CHECK(readError(dir, fileWith(R"({"a": {"min": 0, "max": 1}})")) ==
        ": range 'a': missing \"count\"");
  CHECK(readError(dir,
                  fileWith(R"({"a": {"min": "0", "max": 1, "count": 1}})")) ==
        ": range 'a': \"min\" must be a number, got a string");
  CHECK(readError(dir,
                  fileWith(R"({"a": {"min": 0, "max": null, "count": 1}})")) ==
        ": range 'a': \"max\" must be a number, got null");
  CHECK(readError(
            dir, fileWith(R"({"a": {"min": -1e999, "max": 1, "count": 1}})")) ==
        ": range 'a': min is -inf");
  CHECK(readError(dir,
                  fileWith(R"({"a": {"min": 0, "max": 1e999, "count": 1}})")) ==
        ": range 'a': max is inf");
  CHECK(readError(dir,
                  fileWith(R"({"a": {"min": 3, "max": 1.5, "count": 1}})")) ==
        ": range 'a': min 3.0 is greater than max 1.5");
  CHECK(
      readError(dir, fileWith(R"({"a": {"min": 0, "max": 1, "count": -4}})")) ==
      ": range 'a': count -4 is negative");
  CHECK(readError(dir,
                  fileWith(R"({"a": {"min": 0, "max": 1, "count": 0.5}})")) ==
        ": range 'a': \"count\" must be an integer, got a number");
  CHECK(readError(dir, fileWith(R"({"a": {"min": 0, "max": 1, "count": 1,)"
                                R"( "mean": 0.5}})")) ==
        ": range 'a': unknown key \"mean\"");
  CHECK(
      readError(dir, fileWith(R"({"a": {"min": 0, "max": 1, "count": 1},)"
                              R"( "a": {"min": 0, "max": 2, "count": 1}})")) ==
      ": the key 'a' appears twice in one object");
  // The first bad range in sorted order is reported.
  CHECK(readError(dir, fileWith(R"({"z": 1, "b": {"min": 0, "max": 1, )"
                                R"("count": 1}, "c": 2})")) ==
        ": range 'c': must be an object, got a number");
}

//===----------------------------------------------------------------------===//
// Entropy
//===----------------------------------------------------------------------===//

namespace {

/// sum p ln(p / q) of two distributions without zeros.
double kl(std::vector<double> p, std::vector<double> q) {
  double d = 0;
  for (size_t k = 0; k < p.size(); ++k)
    d += p[k] * std::log(p[k] / q[k]);
  return d;
}

/// A histogram of a Gaussian with a standard deviation of `sigma` bins over
/// 2048 bins, 1e6 values in bin 0, and one outlier in the last bin.
std::vector<uint64_t> gaussianWithOutlier(double sigma) {
  std::vector<uint64_t> h(kEntropyBins);
  for (size_t k = 0; k < h.size(); ++k)
    h[k] = static_cast<uint64_t>(
        std::llround(1e6 * std::exp(-0.5 * (k / sigma) * (k / sigma))));
  h.back() += 1;
  return h;
}

/// Deterministic N(0, 1) values: a 64-bit LCG and Box-Muller.
std::vector<double> gaussianValues(size_t n) {
  uint64_t state = 1;
  auto uniform = [&] { // in (0, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  };
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    const double a = uniform(), b = uniform();
    v.push_back(std::sqrt(-2 * std::log(a)) * std::cos(2 * M_PI * b));
  }
  return v;
}

/// Both passes of an Entropy collector over the same batches of one name.
CalibrationRange entropyRange(const std::vector<std::vector<double>> &batches) {
  RangeCollector c = collector(CalibrationMethod::Entropy);
  REQUIRE(c.passes() == 2);
  for (unsigned pass = 0; pass < 2; ++pass) {
    if (pass == 1)
      c.startSecondPass();
    for (const std::vector<double> &batch : batches)
      REQUIRE(Outcome(c.add("x", batch)).ok());
  }
  CalibrationTable t = c.finish();
  CHECK(t.method == CalibrationMethod::Entropy);
  CHECK(t.percentile == 0);
  return t.ranges.at("x");
}

} // namespace

TEST_CASE("entropyDivergence on hand-computed histograms", "[calibration]") {
  // Kept whole and quantized without loss: Q = P.
  CHECK(entropyDivergence({1, 1, 1, 1}, 4, 2) == 0.0);
  // P = [1, 1] + outliers 2 = [1, 3] / 4; Q = [1, 1] / 2; no zeros.
  CHECK(entropyDivergence({1, 1, 1, 1}, 2, 2) ==
        Approx(kl({0.25, 0.75}, {0.5, 0.5})).epsilon(1e-14));
  // Groups [1, 0] and [1, 0]: each group's count goes to its non-zero bin
  // only, so Q = P, and both are smoothed alike.
  CHECK(entropyDivergence({1, 0, 1, 0}, 4, 2) == 0.0);
  // Five bins in two levels: groups of 2 bins, the last one takes 3.
  // Q = [3/2, 3/2, 12/3, 12/3, 12/3] / 15.
  CHECK(entropyDivergence({1, 2, 3, 4, 5}, 5, 2) ==
        Approx(kl({1. / 15, 2. / 15, 3. / 15, 4. / 15, 5. / 15},
                  {1.5 / 15, 1.5 / 15, 4. / 15, 4. / 15, 4. / 15}))
            .epsilon(1e-14));
  // An isolated outlier: P = [2, 0 + 1], Q = [2, 0] (the outlier is not in
  // Q). Smoothing gives Q's zero bin 1e-4 and takes it from the other one:
  // finite.
  const double e = kEntropySmoothing;
  CHECK(entropyDivergence({2, 0, 0, 1}, 2, 2) ==
        Approx(kl({2. / 3, 1. / 3}, {1 - e, e})).epsilon(1e-14));
  // Every kept bin empty: Q is all zero, infinite.
  CHECK(std::isinf(entropyDivergence({0, 0, 0, 5}, 2, 2)));
  CHECK(std::isinf(entropyDivergence({0, 0, 0, 0}, 4, 2)));
}

TEST_CASE("entropyThresholdBins", "[calibration]") {
  CHECK(entropyThresholdBins({1, 1, 1, 1}, 2) == 4);
  // A uniform histogram keeps the full range (only there KL is 0).
  CHECK(entropyThresholdBins(std::vector<uint64_t>(kEntropyBins, 7)) ==
        kEntropyBins);
  // Nothing to choose from: the full range.
  CHECK(entropyThresholdBins(std::vector<uint64_t>(kEntropyBins, 0)) ==
        kEntropyBins);
  CHECK(entropyThresholdBins({1, 2, 3}, 4) == 3);

  // A Gaussian of sigma 200 bins with one outlier at the far end: clipped
  // near 5 sigma, far below the outlier, at a finite divergence; the same
  // result every time.
  const std::vector<uint64_t> h = gaussianWithOutlier(200);
  const size_t bins = entropyThresholdBins(h);
  CHECK(bins > 800);
  CHECK(bins < 1200);
  CHECK(std::isfinite(entropyDivergence(h, bins)));
  CHECK(entropyThresholdBins(h) == bins);
  // Without the outlier the clipped candidates have no isolated bin; the
  // threshold still lies well inside.
  std::vector<uint64_t> clean = h;
  clean.back() -= 1;
  CHECK(entropyThresholdBins(clean) < 1200);
}

TEST_CASE("Entropy ranges over two passes", "[calibration]") {
  SECTION("a uniform distribution keeps the minmax range") {
    // One value of each sign per bin of |x| (bin k holds (k + 0.5) / 2048 /
    // max|x| * 2048, rounded down: k).
    std::vector<double> values;
    for (unsigned k = 0; k < kEntropyBins; ++k) {
      values.push_back((k + 0.5) / kEntropyBins);
      values.push_back(-(k + 0.5) / kEntropyBins);
    }
    const CalibrationRange r = entropyRange({values});
    const double maxAbs = (kEntropyBins - 0.5) / kEntropyBins;
    CHECK(r.min == -maxAbs);
    CHECK(r.max == maxAbs);
    CHECK(r.count == 2 * kEntropyBins);
  }
  SECTION("a Gaussian with one far outlier is clipped well below it") {
    std::vector<double> values = gaussianValues(20000);
    const double lowest = *std::min_element(values.begin(), values.end());
    // Split into batches: the histogram covers all of them.
    std::vector<double> second(values.begin() + 5000, values.end());
    values.resize(5000);
    const CalibrationRange r = entropyRange({values, {100.0}, second});
    // max|x| = 100 over 2048 bins: the smallest candidate, 128 bins, is
    // t = 6.25, beyond every Gaussian value; the negative side keeps its
    // observed minimum.
    CHECK(r.max == 6.25);
    CHECK(r.min == lowest);
    CHECK(r.count == 20001);
  }
  SECTION("all zero gives [0, 0], as minmax") {
    const CalibrationRange r = entropyRange({{0.0, 0.0}, {-0.0}});
    CHECK(r.min == 0.0);
    CHECK(r.max == 0.0);
    CHECK(r.count == 3);
  }
  SECTION("a side the values never reach stays (ReLU outputs)") {
    std::vector<double> values(1000, 1.0);
    values.push_back(0.0);
    values.push_back(1000.0);
    const CalibrationRange r = entropyRange({values});
    CHECK(r.min == 0.0);
    CHECK(r.max > 1.0);
    CHECK(r.max < 1000.0);
  }
}

TEST_CASE("Entropy's second pass knows only the first pass's names",
          "[calibration]") {
  RangeCollector c = collector(CalibrationMethod::Entropy);
  REQUIRE(Outcome(c.add("x", {1.0, -2.0})).ok());
  // Before the second pass the ranges are minmax's.
  CHECK(c.finish().ranges.at("x").min == -2.0);
  c.startSecondPass();
  Outcome o = c.add("y", {1.0});
  REQUIRE_FALSE(o.ok());
  CHECK(o.code() == std::errc::invalid_argument);
  CHECK(o.message() == "tensor 'y' was not seen in the first pass");
  CHECK(collector(CalibrationMethod::MinMax).passes() == 1);
  CHECK(collector(CalibrationMethod::Percentile).passes() == 1);
}

TEST_CASE("entropy tables are written and read back", "[calibration]") {
  TempDir dir("cal");
  CalibrationTable t;
  t.method = CalibrationMethod::Entropy;
  t.samples = 3;
  t.ranges["x"] = {-1.5, 6.25, 7};
  const std::string path = dir.file("calib.json");
  REQUIRE(Outcome(writeCalibration(path, t)).ok());
  CHECK(readText(path) == "{\n"
                          "  \"format\": \"mixc-calibration\",\n"
                          "  \"version\": 1,\n"
                          "  \"method\": \"entropy\",\n"
                          "  \"samples\": 3,\n"
                          "  \"ranges\": {\n"
                          "    \"x\": {\"min\": -1.5, \"max\": 6.25, "
                          "\"count\": 7}\n"
                          "  }\n"
                          "}\n");
  Result<CalibrationTable> read = readCalibration(path);
  REQUIRE(read.ok());
  CHECK(read->method == CalibrationMethod::Entropy);
  CHECK(read->ranges.at("x").max == 6.25);
  CHECK(calibrationMethodName(CalibrationMethod::Entropy) == "entropy");
}
