//===-- enum_test.cpp - Out-of-range C enum arguments are rejected --------===//
//
// Every C entry point with an enum parameter gets -1, a large value and
// INT32_MIN (and the *_MAX_ENUM sentinels) and must return INVALID_ARGUMENT
// naming the parameter. In the ASan + UBSan build (-fno-sanitize-recover)
// any load of an invalid enum value would abort this test.
//
//===----------------------------------------------------------------------===//

#include "mixrt/mixrt.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

namespace {

const int32_t kBadValues[] = {-1, 1000, 0x7fffffff, INT32_MIN, -2};

std::string lastError() { return mixrt_last_error_message(); }

template <class E> E as(int32_t v) { return static_cast<E>(v); }

} // namespace

TEST_CASE("enum.status_code_name", "[enum]") {
  for (int32_t v : kBadValues)
    CHECK(std::string(mixrt_status_code_name(as<mixrt_status_code>(v))) ==
          "UNKNOWN");
  CHECK(std::string(mixrt_status_code_name(as<mixrt_status_code>(1))) ==
        "UNKNOWN");
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_RESOURCE_EXHAUSTED)) ==
        "RESOURCE_EXHAUSTED");
  // The codes added in API version 8, numbered as absl::StatusCode.
  CHECK(MIXRT_STATUS_NOT_FOUND == 5);
  CHECK(MIXRT_STATUS_FAILED_PRECONDITION == 9);
  CHECK(MIXRT_STATUS_UNAVAILABLE == 14);
  CHECK(MIXRT_STATUS_DATA_LOSS == 15);
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_NOT_FOUND)) ==
        "NOT_FOUND");
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_FAILED_PRECONDITION)) ==
        "FAILED_PRECONDITION");
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_UNAVAILABLE)) ==
        "UNAVAILABLE");
  CHECK(std::string(mixrt_status_code_name(MIXRT_STATUS_DATA_LOSS)) ==
        "DATA_LOSS");
  // The values between them are still no status code.
  for (int32_t v : {2, 4, 6, 7, 10, 16})
    CHECK(std::string(mixrt_status_code_name(as<mixrt_status_code>(v))) ==
          "UNKNOWN");
}

TEST_CASE("enum.set_simd_level", "[enum]") {
  const mixrt_simd_level before = mixrt_get_simd_level();
  for (int32_t v : kBadValues) {
    INFO(v);
    CHECK(mixrt_set_simd_level(as<mixrt_simd_level>(v)) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "set_simd_level: level (" + std::to_string(v) +
                             ") is not a valid mixrt_simd_level");
    CHECK(mixrt_get_simd_level() == before);
  }
}

TEST_CASE("enum.quantize_scheme", "[enum]") {
  const float data[2] = {1.0f, -2.0f};
  const int64_t shape[1] = {2};
  const float scale = 0.5f;
  int8_t q[2] = {5, 5};
  for (int32_t v : kBadValues) {
    INFO(v);
    const std::string tail =
        ": scheme (" + std::to_string(v) + ") is not a valid mixrt_qscheme";
    mixrt_qtensor *t = nullptr;
    CHECK(mixrt_quantize_f32(data, shape, 1, as<mixrt_qscheme>(v),
                             MIXRT_PER_TENSOR,
                             &t) == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "quantize_f32" + tail);
    CHECK(t == nullptr);
    CHECK(mixrt_quantize_f32_with_params(data, shape, 1, as<mixrt_qscheme>(v),
                                         MIXRT_PER_TENSOR, &scale, nullptr,
                                         &t) == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "quantize_f32_with_params" + tail);
    CHECK(t == nullptr);
    CHECK(mixrt_quantize_f32_buffer(data, 2, as<mixrt_qscheme>(v), scale, 0,
                                    q) == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "quantize_f32_buffer" + tail);
    CHECK((q[0] == 5 && q[1] == 5));
  }
}

TEST_CASE("enum.gemm_reduced_format", "[enum]") {
  const float a[1] = {1.0f}, b[1] = {2.0f};
  const double ad[1] = {1.0}, bd[1] = {2.0};
  const uint16_t au[1] = {0x3c00}, bu[1] = {0x4000};
  float c[1] = {-1.0f};
  double cd[1] = {-1.0};
  for (int32_t v : kBadValues) {
    INFO(v);
    const std::string tail = ": format (" + std::to_string(v) +
                             ") is not a valid mixrt_float16_format";
    const mixrt_float16_format f = as<mixrt_float16_format>(v);
    CHECK(mixrt_gemm_reduced_f32(f, 1, 1, 1, a, 1, b, 1, c, 1) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "gemm_reduced_f32" + tail);
    CHECK(mixrt_gemm_reduced_f64(f, 1, 1, 1, ad, 1, bd, 1, cd, 1) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "gemm_reduced_f64" + tail);
    CHECK(mixrt_gemm_reduced_u16_f32(f, 1, 1, 1, au, 1, bu, 1, c, 1) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "gemm_reduced_u16_f32" + tail);
    CHECK((c[0] == -1.0f && cd[0] == -1.0));
  }
  // The valid values still work.
  REQUIRE(mixrt_gemm_reduced_u16_f32(MIXRT_FORMAT_F16, 1, 1, 1, au, 1, bu, 1, c,
                                     1) == MIXRT_STATUS_OK);
  CHECK(c[0] == 2.0f);
}

TEST_CASE("enum.optimizer_kind_and_lowp", "[enum]") {
  for (int32_t v : kBadValues) {
    INFO(v);
    mixrt_optimizer_config config;
    // config_init keeps an unknown kind (with the SGD defaults) ...
    mixrt_optimizer_config_init(as<mixrt_optimizer_kind>(v), &config);
    CHECK(static_cast<int32_t>(config.kind) == v);
    CHECK(config.learning_rate == 0.01);
    // ... so create rejects it.
    mixrt_optimizer *opt = nullptr;
    CHECK(mixrt_optimizer_create(&config, &opt) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "optimizer_create: config->kind (" +
                             std::to_string(v) +
                             ") is not a valid mixrt_optimizer_kind");
    CHECK(opt == nullptr);
  }

  mixrt_optimizer_config config;
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAM, &config);
  CHECK(config.kind == MIXRT_OPTIMIZER_ADAM);
  CHECK(config.learning_rate == 1e-3);
  mixrt_optimizer *opt = nullptr;
  REQUIRE(mixrt_optimizer_create(&config, &opt) == MIXRT_STATUS_OK);
  const double values[2] = {0.5, -0.25};
  for (int32_t v : kBadValues) {
    INFO(v);
    int64_t index = -7;
    CHECK(mixrt_optimizer_add_param(opt, values, 2, as<mixrt_lowp_format>(v),
                                    &index) == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(lastError() == "optimizer_add_param: lowp (" + std::to_string(v) +
                             ") is not a valid mixrt_lowp_format");
    CHECK(index == -7);
  }
  CHECK(mixrt_optimizer_num_params(opt) == 0);
  mixrt_optimizer_destroy(opt);
}

TEST_CASE("enum.status_codes_from_callers", "[enum]") {
  // A callback returning a value that is no mixrt_status_code: INTERNAL.
  mixrt_loss_scaler *scaler = nullptr;
  REQUIRE(mixrt_loss_scaler_create(nullptr, &scaler) == MIXRT_STATUS_OK);
  float g[1] = {65536.0f};
  float *tensors[1] = {g};
  const int64_t sizes[1] = {1};
  for (int32_t v : {-1, 1, 0x7fffffff, INT32_MIN}) {
    INFO(v);
    int32_t skipped = -1;
    g[0] = 65536.0f;
    CHECK(mixrt_loss_scaler_step_f32(
              scaler, tensors, sizes, 1,
              [](void *user) {
                return static_cast<mixrt_status_code>(
                    *static_cast<int32_t *>(user));
              },
              &v, &skipped) == MIXRT_STATUS_INTERNAL);
    CHECK(lastError() == "loss_scaler_step_f32: optimizer callback returned " +
                             std::to_string(v) +
                             ", which is not a mixrt_status_code");
    CHECK(skipped == -1);
    CHECK(mixrt_loss_scaler_growth_tracker(scaler) == 0);
  }
  mixrt_loss_scaler_destroy(scaler);

  // mixrt_check_fail takes the code as int32_t; one that is no status code
  // is recorded as INTERNAL.
  for (int32_t v : {-1, 1, 0x7fffffff, INT32_MIN, 0}) {
    INFO(v);
    mixrt_check_reset();
    mixrt_check_fail(v, "m.mlir:1:1", "bad", 0, 1.0);
    CHECK(mixrt_check_status() == MIXRT_STATUS_INTERNAL);
  }
  mixrt_check_reset();
  mixrt_check_fail(MIXRT_STATUS_OUT_OF_RANGE, "m.mlir:1:1", "bad", 0, 1.0);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
  // The codes of API version 8 are status codes too.
  for (mixrt_status_code c :
       {MIXRT_STATUS_NOT_FOUND, MIXRT_STATUS_FAILED_PRECONDITION,
        MIXRT_STATUS_UNAVAILABLE, MIXRT_STATUS_DATA_LOSS}) {
    mixrt_check_reset();
    mixrt_check_fail(c, "m.mlir:1:1", "bad", 0, 1.0);
    CHECK(mixrt_check_status() == c);
  }
  mixrt_check_reset();
}
