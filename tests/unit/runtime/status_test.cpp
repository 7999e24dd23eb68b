//===-- status_test.cpp - Error model and dispatch tests ------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <string>
#include <thread>

using namespace mixrt;
using namespace mixrt::test;

TEST_CASE("status.version_and_names", "[status]") {
  CHECK(mixrt_api_version() == MIXRT_API_VERSION);
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_OK)) == "OK");
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_OUT_OF_RANGE)) ==
        "OUT_OF_RANGE");
  CHECK(std::string(mixrt_status_code_name(
            static_cast<mixrt_status_code>(99))) == "UNKNOWN");
  // The C codes mirror absl::StatusCode.
  CHECK(MIXRT_STATUS_INVALID_ARGUMENT ==
        static_cast<int>(absl::StatusCode::kInvalidArgument));
  CHECK(MIXRT_STATUS_OUT_OF_RANGE ==
        static_cast<int>(absl::StatusCode::kOutOfRange));
  CHECK(MIXRT_STATUS_RESOURCE_EXHAUSTED ==
        static_cast<int>(absl::StatusCode::kResourceExhausted));
  CHECK(MIXRT_STATUS_NOT_FOUND ==
        static_cast<int>(absl::StatusCode::kNotFound));
  CHECK(MIXRT_STATUS_FAILED_PRECONDITION ==
        static_cast<int>(absl::StatusCode::kFailedPrecondition));
  CHECK(MIXRT_STATUS_UNAVAILABLE ==
        static_cast<int>(absl::StatusCode::kUnavailable));
  CHECK(MIXRT_STATUS_DATA_LOSS ==
        static_cast<int>(absl::StatusCode::kDataLoss));
}

TEST_CASE("status.last_error_is_thread_local", "[status]") {
  CHECK(mixrt_f32_to_f16_array(nullptr, 1, nullptr) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  const std::string mine = mixrt_last_error_message();
  CHECK_THAT(mine, Catch::Contains("src is null"));
  std::string other = "unset";
  std::thread t([&] {
    other = mixrt_last_error_message(); // Nothing failed on this thread.
    int8_t q;
    float x = 1.0f;
    (void)mixrt_quantize_f32_buffer(&x, 1, MIXRT_QSCHEME_SYMMETRIC, -1.0f, 0,
                                    &q);
  });
  t.join();
  CHECK(other.empty());
  CHECK(std::string(mixrt_last_error_message()) == mine);
  // Success leaves the message unchanged.
  uint16_t h;
  float x = 1.0f;
  CHECK(mixrt_f32_to_f16_array(&x, 1, &h) == MIXRT_STATUS_OK);
  CHECK(std::string(mixrt_last_error_message()) == mine);
}

TEST_CASE("status.simd_level_control", "[status]") {
  const SimdLevel saved = GetSimdLevel();
  CHECK(mixrt_set_simd_level(MIXRT_SIMD_PORTABLE) == MIXRT_STATUS_OK);
  CHECK(mixrt_get_simd_level() == MIXRT_SIMD_PORTABLE);
  if (mixrt_cpu_simd_level() == MIXRT_SIMD_AVX2) {
    CHECK(mixrt_set_simd_level(MIXRT_SIMD_AVX2) == MIXRT_STATUS_OK);
  } else {
    CHECK(mixrt_set_simd_level(MIXRT_SIMD_AVX2) == MIXRT_STATUS_UNIMPLEMENTED);
  }
  CHECK(mixrt_set_simd_level(static_cast<mixrt_simd_level>(5)) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  REQUIRE(SetSimdLevel(saved).ok());
}

TEST_CASE("status.check_failures_of_generated_code", "[status]") {
  mixrt_check_reset();
  CHECK(mixrt_check_status() == MIXRT_STATUS_OK);
  CHECK(mixrt_check_failure_count() == 0);

  // The first failure decides the code and the message; later ones count.
  mixrt_check_fail(MIXRT_STATUS_OUT_OF_RANGE, "model.mlir:12:5",
                   "checked cast to f16 overflows", 3, 70000.0);
  mixrt_check_fail(MIXRT_STATUS_INVALID_ARGUMENT, "model.mlir:20:7",
                   "non-finite value reaches an int8 quantize", 0, 1.0 / 0.0);
  CHECK(mixrt_check_failure_count() == 2);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK(std::string(mixrt_last_error_message()) ==
        "model.mlir:12:5: checked cast to f16 overflows at element 3 (value "
        "70000); 2 failed checks");

  // Failures are per thread.
  std::thread([] {
    CHECK(mixrt_check_status() == MIXRT_STATUS_OK);
    mixrt_check_fail(MIXRT_STATUS_INVALID_ARGUMENT, nullptr, nullptr, 7, 0.5);
    CHECK(mixrt_check_status() == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message()) ==
          "<unknown location>: check failed at element 7 (value 0.5)");
  }).join();
  CHECK(mixrt_check_failure_count() == 2);

  mixrt_check_reset();
  CHECK(mixrt_check_status() == MIXRT_STATUS_OK);
  CHECK(mixrt_check_failure_count() == 0);
  // A code of OK is a bug in the caller: it still counts as a failure.
  mixrt_check_fail(MIXRT_STATUS_OK, "x.mlir:1:1", "bad", 0, 0.0);
  CHECK(mixrt_check_status() == MIXRT_STATUS_INTERNAL);
  mixrt_check_reset();
}

TEST_CASE("status.check_failure_message_is_bounded", "[status]") {
  // A 1 MB location (and what) is cut to 1024 bytes + "..." each: the
  // message used to copy both whole.
  const std::string megabyte(size_t{1} << 20, 'x');
  const std::string tail = " at element 3 (value 70000)";
  mixrt_check_reset();
  mixrt_check_fail(MIXRT_STATUS_OUT_OF_RANGE, megabyte.c_str(),
                   "checked cast to f16 overflows", 3, 70000.0);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
  std::string message = mixrt_last_error_message();
  CHECK_THAT(message, Catch::StartsWith(std::string(1024, 'x') + "...: "));
  CHECK(message ==
        std::string(1024, 'x') + "...: checked cast to f16 overflows" + tail);
  CHECK(message.size() == 1024 + 3 + 2 + 29 + tail.size());

  // Both strings huge: the whole message stays under 2200 bytes, also with
  // the count of later failures appended.
  mixrt_check_reset();
  mixrt_check_fail(MIXRT_STATUS_INVALID_ARGUMENT, megabyte.c_str(),
                   megabyte.c_str(), INT64_MIN, -1.7976931348623157e308);
  mixrt_check_fail(MIXRT_STATUS_INVALID_ARGUMENT, megabyte.c_str(),
                   megabyte.c_str(), 0, 0.0);
  CHECK(mixrt_check_status() == MIXRT_STATUS_INVALID_ARGUMENT);
  message = mixrt_last_error_message();
  CHECK(message == std::string(1024, 'x') + "...: " + std::string(1024, 'x') +
                       "... at element -9223372036854775808 (value "
                       "-1.79769e+308); 2 failed checks");
  CHECK(message.size() < 2200);

  // Exactly 1024 bytes are kept whole; 1025 are cut.
  mixrt_check_reset();
  mixrt_check_fail(MIXRT_STATUS_OUT_OF_RANGE, std::string(1024, 'a').c_str(),
                   std::string(1025, 'b').c_str(), 0, 1.0);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK(std::string(mixrt_last_error_message()) ==
        std::string(1024, 'a') + ": " + std::string(1024, 'b') +
            "... at element 0 (value 1)");

  // The cut never splits a UTF-8 character: "\xc3\xa9" (e acute) straddles
  // byte 1024, so the location is cut before it.
  mixrt_check_reset();
  const std::string utf8 = std::string(1023, 'a') + "\xc3\xa9" + "zzz";
  mixrt_check_fail(MIXRT_STATUS_OUT_OF_RANGE, utf8.c_str(), "w", 1, 2.0);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK(std::string(mixrt_last_error_message()) ==
        std::string(1023, 'a') + "...: w at element 1 (value 2)");
  mixrt_check_reset();
}
