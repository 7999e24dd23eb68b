//===-- size_check_test.cpp - Overflowing sizes are rejected --------------===//
//
// Every C entry point that takes sizes rejects an extent whose byte size
// overflows PTRDIFF_MAX (or size_t) with INVALID_ARGUMENT before it touches
// memory. The buffers passed are tiny: under ASan any access would fail.
//
//===----------------------------------------------------------------------===//

#include "mixrt/mixrt.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace {

constexpr int64_t kInt64Max = INT64_MAX;

std::string lastError() { return mixrt_last_error_message(); }

} // namespace

TEST_CASE("size_check.gemm_s8s8s32_extents", "[size_check]") {
  int8_t a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1};
  int32_t c[4] = {-7, -7, -7, -7};
  // M * lda = 2^33 * 2^31 = 2^64 wraps size_t (was a wild read in ASan).
  CHECK(mixrt_gemm_s8s8s32(int64_t{1} << 33, 1, 1, a, int64_t{1} << 31, b, 1, c,
                           1) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_s8s8s32: A: (M - 1) * lda + K elements * 1 bytes exceeds "
        "PTRDIFF_MAX (M = 8589934592, K = 1, lda = 2147483648)");
  // K * ldb.
  CHECK(mixrt_gemm_s8s8s32(1, 1, 3, a, 3, b, kInt64Max / 2 + 1, c, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_s8s8s32: B: (K - 1) * ldb + N elements * 1 bytes exceeds "
        "PTRDIFF_MAX (K = 3, N = 1, ldb = 4611686018427387904)");
  // M * ldc of the int32 C: (2 - 1) * 2^61 + 1 elements * 4 bytes > 2^63.
  CHECK(mixrt_gemm_s8s8s32(2, 1, 1, a, 1, b, 1, c, int64_t{1} << 61) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_s8s8s32: C: (M - 1) * ldc + N elements * 4 bytes exceeds "
        "PTRDIFF_MAX (M = 2, N = 1, ldc = 2305843009213693952)");
  CHECK((c[0] == -7 && c[1] == -7 && c[2] == -7 && c[3] == -7));

  // The extent, not M * ld, is what must fit: one row with a huge leading
  // dimension is fine and computes the exact product.
  CHECK(mixrt_gemm_s8s8s32(1, 1, 4, a, kInt64Max, b, 1, c, kInt64Max) ==
        MIXRT_STATUS_OK);
  CHECK(c[0] == 1 + 2 + 3 + 4);
}

TEST_CASE("size_check.gemm_s8_operands", "[size_check]") {
  int8_t a[2] = {1, 2}, b[2] = {3, 4};
  float scale = 1.0f;
  float c[2] = {-1.0f, -1.0f};
  mixrt_gemm_s8_operand opA = {a, int64_t{1} << 62, 0, &scale, nullptr};
  mixrt_gemm_s8_operand opB = {b, 1, 0, &scale, nullptr};
  CHECK(mixrt_gemm_s8_f32(3, 1, 1, &opA, &opB, c, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_s8_f32: A: (M - 1) * lda + K elements * 1 bytes exceeds "
        "PTRDIFF_MAX (M = 3, K = 1, lda = 4611686018427387904)");
  // Per-channel scales: M = 2^62 values of 4 bytes cannot exist even when A
  // and C are empty (K = 0, N = 0).
  opA = {a, 1, 1, &scale, nullptr};
  CHECK(mixrt_gemm_s8_f32(int64_t{1} << 62, 0, 0, &opA, &opB, c, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_s8_f32: M (values in a->scales and a->zero_points) "
        "(4611686018427387904) * 4 bytes exceeds PTRDIFF_MAX");
  opA.per_channel = 0;
  opB = {b, 1, 1, &scale, nullptr};
  CHECK(mixrt_gemm_s8_s32(0, kInt64Max, 0, &opA, &opB, nullptr, kInt64Max) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_s8_s32: N (values in b->scales and b->zero_points) "
        "(9223372036854775807) * 4 bytes exceeds PTRDIFF_MAX");
  CHECK((c[0] == -1.0f && c[1] == -1.0f));
}

TEST_CASE("size_check.gemm_reduced_extents", "[size_check]") {
  float a[2] = {1, 2}, b[2] = {3, 4}, c[2] = {-1, -1};
  // First lda whose extent overflows for f32: (2 - 1) * (2^61 - 1) + 1 =
  // 2^61 elements * 4 bytes = 2^63.
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 2, 1, 1, a,
                               (int64_t{1} << 61) - 1, b, 1, c,
                               1) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_reduced_f32: A: (M - 1) * lda + K elements * 4 bytes exceeds "
        "PTRDIFF_MAX (M = 2, K = 1, lda = 2305843009213693951)");
  // M * ldc wraps size_t (was a wild write in gemm_reduced.cpp).
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_BF16, int64_t{1} << 32, 1, 0,
                               nullptr, 1, nullptr, 1, c, int64_t{1} << 32) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_reduced_f32: C: (M - 1) * ldc + N elements * 4 bytes exceeds "
        "PTRDIFF_MAX (M = 4294967296, N = 1, ldc = 4294967296)");
  double ad[2] = {1, 2}, bd[2] = {3, 4}, cd[2] = {-1, -1};
  CHECK(mixrt_gemm_reduced_f64(MIXRT_FORMAT_F16, 1, 1, 2, ad, 2, bd,
                               int64_t{1} << 60, cd,
                               1) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_reduced_f64: B: (K - 1) * ldb + N elements * 8 bytes exceeds "
        "PTRDIFF_MAX (K = 2, N = 1, ldb = 1152921504606846976)");
  uint16_t au[2] = {0x3c00, 0x4000}, bu[2] = {0x3c00, 0x3c00};
  // (3 - 1) * 2^61 + 1 elements * 2 bytes = 2^63 + 2.
  CHECK(mixrt_gemm_reduced_u16_f32(MIXRT_FORMAT_F16, 3, 1, 1, au,
                                   int64_t{1} << 61, bu, 1, c,
                                   1) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "gemm_reduced_u16_f32: A: (M - 1) * lda + K elements * 2 bytes "
        "exceeds PTRDIFF_MAX (M = 3, K = 1, lda = 2305843009213693952)");
  CHECK((c[0] == -1 && c[1] == -1 && cd[0] == -1 && cd[1] == -1));
  // One row with a huge leading dimension is valid.
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 1, 1, 2, a, kInt64Max, b, 1, c,
                               kInt64Max) == MIXRT_STATUS_OK);
  CHECK(c[0] == 1.0f * 3.0f + 2.0f * 4.0f);
}

TEST_CASE("size_check.conversions", "[size_check]") {
  float f[1] = {1.0f};
  double d[1] = {1.0};
  uint16_t h[1] = {0x1234};
  const int64_t huge = kInt64Max / 4 + 1; // * 4 bytes > PTRDIFF_MAX
  CHECK(mixrt_f32_to_f16_array(f, huge, h) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "f32_to_f16_array: count (2305843009213693952) * 4 "
                       "bytes exceeds PTRDIFF_MAX");
  CHECK(mixrt_f16_to_f32_array(h, huge, f) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_f32_to_bf16_array_checked(f, huge, h) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  // f64 sources: 8 bytes per element.
  CHECK(mixrt_f64_to_bf16_array(d, kInt64Max / 8 + 1, h) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "f64_to_bf16_array: count (1152921504606846976) * 8 "
                       "bytes exceeds PTRDIFF_MAX");
  CHECK(mixrt_f64_to_f16_array_checked(d, kInt64Max, h) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK((h[0] == 0x1234 && f[0] == 1.0f));
}

TEST_CASE("size_check.quantize", "[size_check]") {
  float data[2] = {1.0f, 2.0f};
  float scale = 1.0f;
  int8_t q[2] = {9, 9};
  // 2^31 * 2^31 = 2^62 elements fit int64 but not as f32 bytes.
  const int64_t shape[2] = {int64_t{1} << 31, int64_t{1} << 31};
  mixrt_qtensor *t = reinterpret_cast<mixrt_qtensor *>(&scale);
  CHECK(mixrt_quantize_f32(data, shape, 2, MIXRT_QSCHEME_SYMMETRIC,
                           MIXRT_PER_TENSOR,
                           &t) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(t == nullptr);
  CHECK(lastError() == "quantize_f32: the element count of shape "
                       "(4611686018427387904) * 4 bytes exceeds PTRDIFF_MAX");
  // Zero elements, but shape[axis] = 2^62 scales cannot exist.
  const int64_t emptyShape[2] = {0, int64_t{1} << 62};
  CHECK(mixrt_quantize_f32_with_params(
            data, emptyShape, 2, MIXRT_QSCHEME_SYMMETRIC, 1, &scale, nullptr,
            &t) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "quantize_f32_with_params: shape[1] "
                       "(4611686018427387904) * 4 bytes exceeds PTRDIFF_MAX");
  // Zero elements, and the extents around the axis multiply past int64 (a
  // signed overflow found by the C API fuzzer): no element is visited.
  const int64_t wideEmptyShape[3] = {0, int64_t{1} << 62, 5};
  CHECK(mixrt_quantize_f32_with_params(
            data, wideEmptyShape, 3, MIXRT_QSCHEME_SYMMETRIC, 0, &scale,
            nullptr, &t) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "quantize_f32_with_params: input is empty");
  CHECK(mixrt_quantize_f32_buffer(data, kInt64Max / 4 + 1,
                                  MIXRT_QSCHEME_SYMMETRIC, 1.0f, 0,
                                  q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "quantize_f32_buffer: count (2305843009213693952) * "
                       "4 bytes exceeds PTRDIFF_MAX");
  CHECK((q[0] == 9 && q[1] == 9));

  const int64_t okShape[1] = {2};
  REQUIRE(mixrt_quantize_f32(data, okShape, 1, MIXRT_QSCHEME_SYMMETRIC,
                             MIXRT_PER_TENSOR, &t) == MIXRT_STATUS_OK);
  float out[2] = {-1.0f, -1.0f};
  CHECK(mixrt_dequantize_f32(t, out, kInt64Max / 4 + 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "dequantize_f32: capacity (2305843009213693952) * 4 "
                       "bytes exceeds PTRDIFF_MAX");
  CHECK((out[0] == -1.0f && out[1] == -1.0f));
  mixrt_qtensor_destroy(t);
}

TEST_CASE("size_check.tensor_lists", "[size_check]") {
  float g[1] = {1.0f};
  float *tensors[1] = {g};
  const double *dtensors[1] = {nullptr};
  const int64_t hugeF32[1] = {kInt64Max / 4 + 1};
  const int64_t hugeF64[1] = {kInt64Max / 8 + 1};
  double norm = -1.0;
  CHECK(mixrt_grad_norm_f32(tensors, hugeF32, 1, &norm) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "grad_norm_f32: sizes[0] (2305843009213693952) * 4 "
                       "bytes exceeds PTRDIFF_MAX");
  CHECK(mixrt_grad_norm_f64(dtensors, hugeF64, 1, &norm) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "grad_norm_f64: sizes[0] (1152921504606846976) * 8 "
                       "bytes exceeds PTRDIFF_MAX");
  // num_tensors * sizeof(pointer) overflows too.
  CHECK(mixrt_clip_grad_norm_f32(tensors, hugeF32, kInt64Max / 8 + 1, 1.0, 0.0,
                                 &norm,
                                 nullptr) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "clip_grad_norm_f32: num_tensors "
                       "(1152921504606846976) * 8 bytes exceeds PTRDIFF_MAX");
  CHECK(norm == -1.0);

  mixrt_loss_scaler *scaler = nullptr;
  REQUIRE(mixrt_loss_scaler_create(nullptr, &scaler) == MIXRT_STATUS_OK);
  int32_t found = -1;
  CHECK(mixrt_loss_scaler_unscale_f32(scaler, tensors, hugeF32, 1, &found) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "loss_scaler_unscale_f32: sizes[0] "
                       "(2305843009213693952) * 4 bytes exceeds PTRDIFF_MAX");
  int32_t skipped = -1;
  CHECK(mixrt_loss_scaler_step_f32(
            scaler, tensors, hugeF32, 1, [](void *) { return MIXRT_STATUS_OK; },
            nullptr, &skipped) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK((found == -1 && skipped == -1 && g[0] == 1.0f));
  CHECK(mixrt_loss_scaler_scale(scaler) == 65536.0);
  mixrt_loss_scaler_destroy(scaler);

  mixrt_optimizer_config config;
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_SGD, &config);
  mixrt_optimizer *opt = nullptr;
  REQUIRE(mixrt_optimizer_create(&config, &opt) == MIXRT_STATUS_OK);
  const double values[1] = {0.5};
  int64_t index = -1;
  CHECK(mixrt_optimizer_add_param(opt, values, kInt64Max / 8 + 1,
                                  MIXRT_LOWP_NONE,
                                  &index) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "optimizer_add_param: count (1152921504606846976) * 8 "
                       "bytes exceeds PTRDIFF_MAX");
  CHECK(index == -1);
  REQUIRE(mixrt_optimizer_add_param(opt, values, 1, MIXRT_LOWP_NONE, &index) ==
          MIXRT_STATUS_OK);
  const float *grads[1] = {g};
  CHECK(mixrt_optimizer_step_f32(opt, grads, hugeF32, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "optimizer_step_f32: sizes[0] (2305843009213693952) * "
                       "4 bytes exceeds PTRDIFF_MAX");
  CHECK(mixrt_optimizer_master(opt, 0)[0] == 0.5);
  mixrt_optimizer_destroy(opt);
}

// Found by the fuzzer: quantize_f32_buffer scanned the whole input for
// non-finite values before it rejected a bad scale or zero point.
TEST_CASE("size_check.quantize_buffer_checks_params_before_data",
          "[size_check]") {
  const float data[2] = {NAN, 1.0f};
  int8_t q[2] = {9, 9};
  CHECK(mixrt_quantize_f32_buffer(data, 2, MIXRT_QSCHEME_SYMMETRIC, 0.0f, 0,
                                  q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() ==
        "quantize_buffer: scale 0 (0) is not positive and finite");
  CHECK(mixrt_quantize_f32_buffer(data, 2, MIXRT_QSCHEME_SYMMETRIC, 1.0f, 3,
                                  q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "quantize_buffer: zero point 0 (3) must be 0 for the "
                       "symmetric scheme");
  CHECK(mixrt_quantize_f32_buffer(data, 2, MIXRT_QSCHEME_SYMMETRIC, 1.0f, 0,
                                  q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(lastError() == "quantize_buffer: input element 0 (nan) is not finite");
  CHECK((q[0] == 9 && q[1] == 9));
}

// mixrt_train_state_size: an element count or a state size beyond
// PTRDIFF_MAX is an invalid layout (-1), never a wrapped size.
TEST_CASE("size_check.train_state_size", "[size_check]") {
  const int64_t huge[2] = {int64_t{1} << 31, int64_t{1} << 31};
  const mixrt_train_param param = {"w", 2, huge, 1, MIXRT_LOWP_NONE};
  mixrt_train_layout layout = {"big", 1, &param, 0, nullptr, 0};
  // 2^62 elements of 8 bytes.
  CHECK(mixrt_train_state_size(&layout) == -1);
  CHECK(lastError() == "train_state_size: network 'big': weight 'w': the "
                       "element count overflows");
  // 2^58 elements fit a tensor, not the five arrays of a weight.
  const int64_t large[2] = {int64_t{1} << 29, int64_t{1} << 29};
  const mixrt_train_param param2 = {"w", 2, large, 1, MIXRT_LOWP_NONE};
  layout.params = &param2;
  CHECK(mixrt_train_state_size(&layout) == -1);
  CHECK(lastError() ==
        "train_state_size: network 'big': the state size overflows "
        "PTRDIFF_MAX");
  const mixrt_train_param small = {"w", 0, nullptr, 0, MIXRT_LOWP_NONE};
  layout.params = &small;
  layout.workspace_bytes = INT64_MAX;
  CHECK(mixrt_train_state_size(&layout) == -1);
  layout.workspace_bytes = 0;
  CHECK(mixrt_train_state_size(&layout) > 0);
}
