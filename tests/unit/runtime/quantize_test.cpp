//===-- quantize_test.cpp - Quantization tests ----------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <string>

using namespace mixrt;
using namespace mixrt::test;

namespace {

std::vector<int8_t> values(const QTensor &q) {
  return {q.data().begin(), q.data().end()};
}

QTensor quantizeOk(absl::StatusOr<QTensor> q) {
  INFO(q.status().ToString());
  REQUIRE(q.ok());
  return *std::move(q);
}

} // namespace

TEST_CASE("quantize.ties_round_half_to_even", "[quantize]") {
  const std::vector<float> x = {0.5f,  1.5f,  2.5f, -0.5f,
                                -1.5f, -2.5f, 3.5f, -3.5f};
  const int64_t shape[] = {8};
  const float scale[] = {1.0f};
  const QTensor q = quantizeOk(
      QuantizeWithParams(x, shape, QScheme::kSymmetric, kPerTensor, scale, {}));
  CHECK(values(q) == std::vector<int8_t>{0, 2, 2, 0, -2, -2, 4, -4});

  // The same ties with a scale computed from the data (max |x| = 127 ->
  // scale exactly 1).
  const std::vector<float> y = {-127.0f, 63.5f, 0.0f, 2.5f, -0.5f};
  const QTensor r = quantizeOk(Quantize(y, {5}, QScheme::kSymmetric));
  CHECK(r.scales()[0] == 1.0f);
  CHECK(r.zero_points()[0] == 0);
  CHECK(values(r) == std::vector<int8_t>{-127, 64, 0, 2, 0});
}

TEST_CASE("quantize.saturates_before_narrowing", "[quantize]") {
  const int64_t shape[] = {5};
  const float one[] = {1.0f};
  const QTensor sym = quantizeOk(
      QuantizeWithParams(std::vector<float>{200, -200, 127.5f, -127.5f, 126.5f},
                         shape, QScheme::kSymmetric, kPerTensor, one, {}));
  CHECK(values(sym) == std::vector<int8_t>{127, -127, 127, -127, 126});

  // 120 + 10 = 130 would wrap to -126 if narrowed before clamping.
  const int32_t zp[] = {10};
  const QTensor asym = quantizeOk(
      QuantizeWithParams(std::vector<float>{120, -140, -138, 1e30f, -1e30f},
                         shape, QScheme::kAsymmetric, kPerTensor, one, zp));
  CHECK(values(asym) == std::vector<int8_t>{127, -128, -128, 127, -128});

  // x / scale overflowing to inf also saturates.
  const float tiny[] = {1e-30f};
  const QTensor inf =
      quantizeOk(QuantizeWithParams(std::vector<float>{3e38f, -3e38f}, {2},
                                    QScheme::kSymmetric, kPerTensor, tiny, {}));
  CHECK(values(inf) == std::vector<int8_t>{127, -127});
}

TEST_CASE("quantize.asymmetric_parameters_from_data", "[quantize]") {
  // min' = -51, max' = 204: scale 255 / 255 = 1, zp = -128 + 51 = -77.
  const QTensor q = quantizeOk(
      Quantize(std::vector<float>{-51, 0, 51, 204}, {4}, QScheme::kAsymmetric));
  CHECK(q.scales()[0] == 1.0f);
  CHECK(q.zero_points()[0] == -77);
  CHECK(values(q) == std::vector<int8_t>{-128, -77, -26, 127});
  CHECK(*Dequantize(q) == std::vector<float>{-51, 0, 51, 204});

  // Positive-only data: the range includes 0, zp = -128.
  const QTensor pos = quantizeOk(
      Quantize(std::vector<float>{0, 255}, {2}, QScheme::kAsymmetric));
  CHECK(pos.zero_points()[0] == -128);
  CHECK(values(pos) == std::vector<int8_t>{-128, 127});

  // zp = rne(-128 + 0.5) = rne(-127.5) = -128 (tie to even).
  const QTensor tie = quantizeOk(
      Quantize(std::vector<float>{-0.5f, 254.5f}, {2}, QScheme::kAsymmetric));
  CHECK(tie.scales()[0] == 1.0f);
  CHECK(tie.zero_points()[0] == -128);
  CHECK(values(tie) == std::vector<int8_t>{-128, 126});

  // Negative-only data: max' = 0, so zp = 127.
  const QTensor neg = quantizeOk(
      Quantize(std::vector<float>{-255, -1}, {2}, QScheme::kAsymmetric));
  CHECK(neg.zero_points()[0] == 127);
  CHECK(values(neg) == std::vector<int8_t>{-128, 126});
}

TEST_CASE("quantize.all_zero_tensor_has_scale_one", "[quantize]") {
  for (QScheme scheme : {QScheme::kSymmetric, QScheme::kAsymmetric}) {
    const QTensor q =
        quantizeOk(Quantize(std::vector<float>{0, -0.0f, 0}, {3}, scheme));
    CHECK(q.scales()[0] == 1.0f);
    CHECK(q.zero_points()[0] == 0);
    CHECK(values(q) == std::vector<int8_t>{0, 0, 0});
  }
  // A tiny nonzero tensor: the scale is clamped to FLT_MIN, not 0.
  const QTensor t = quantizeOk(
      Quantize(std::vector<float>{std::numeric_limits<float>::denorm_min()},
               {1}, QScheme::kSymmetric));
  CHECK(t.scales()[0] == FLT_MIN);
  CHECK(values(t) == std::vector<int8_t>{0});
}

TEST_CASE("quantize.per_axis", "[quantize]") {
  // Rows as channels: row 0 max 2, row 1 max 127.
  const std::vector<float> x = {1.5f, -2.0f, 0.5f, 127.0f, 0.0f, -63.5f};
  const QTensor rows = quantizeOk(Quantize(x, {2, 3}, QScheme::kSymmetric, 0));
  REQUIRE(rows.scales().size() == 2);
  CHECK(rows.scales()[0] == static_cast<float>(2.0 / 127.0));
  CHECK(rows.scales()[1] == 1.0f);
  CHECK(values(rows) == std::vector<int8_t>{95, -127, 32, 127, 0, -64});

  // Columns as channels.
  const QTensor cols = quantizeOk(Quantize(x, {2, 3}, QScheme::kSymmetric, 1));
  REQUIRE(cols.scales().size() == 3);
  CHECK(cols.scales()[1] == static_cast<float>(2.0 / 127.0));
  CHECK(cols.scales()[2] == 0.5f);
  CHECK(values(cols)[5] == -127);
  CHECK(values(cols)[2] == 1);

  // Middle axis of a rank-3 tensor: channel of flat i is (i / 2) % 2.
  const std::vector<float> z = {1, -1, 127, 0, 2, 0, -127, 63.5f};
  const float scales[] = {1.0f / 64, 1.0f};
  const int32_t zps[] = {0, 0};
  const QTensor mid = quantizeOk(
      QuantizeWithParams(z, {2, 2, 2}, QScheme::kSymmetric, 1, scales, zps));
  CHECK(mid.ChannelOf(2) == 1);
  CHECK(mid.ChannelOf(4) == 0);
  CHECK(values(mid) == std::vector<int8_t>{64, -64, 127, 0, 127, 0, -127, 64});

  // Per-axis asymmetric with given zero points.
  const float s2[] = {1.0f, 2.0f};
  const int32_t z2[] = {-10, 5};
  const QTensor a = quantizeOk(QuantizeWithParams(
      std::vector<float>{1, 2, 3, 4}, {2, 2}, QScheme::kAsymmetric, 0, s2, z2));
  CHECK(values(a) == std::vector<int8_t>{-9, -8, 7, 7});
  CHECK(*Dequantize(a) == std::vector<float>{1, 2, 4, 4});
}

TEST_CASE("quantize.f64_input", "[quantize]") {
  const QTensor q = quantizeOk(Quantize(std::vector<double>{-254.0, 1.0, 3.0},
                                        {3}, QScheme::kSymmetric));
  CHECK(q.scales()[0] == 2.0f);
  CHECK(values(q) == std::vector<int8_t>{-127, 0, 2});
  CHECK(Quantize(std::vector<double>{1e300}, {1}, QScheme::kSymmetric)
            .status()
            .code() == absl::StatusCode::kOutOfRange);
}

TEST_CASE("quantize.rejects_bad_input", "[quantize]") {
  auto message = [](const absl::Status &s) { return std::string(s.message()); };
  const absl::Status nan =
      Quantize(std::vector<float>{1, NAN, 2}, {3}, QScheme::kSymmetric)
          .status();
  CHECK(nan.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(message(nan), Catch::Contains("element 1"));
  const absl::Status inf =
      Quantize(std::vector<float>{1, 2, -INFINITY}, {3}, QScheme::kAsymmetric)
          .status();
  CHECK_THAT(message(inf), Catch::Contains("element 2"));
  CHECK_THAT(
      message(
          Quantize(std::vector<float>{}, {0}, QScheme::kSymmetric).status()),
      Catch::Contains("empty"));
  CHECK_THAT(
      message(Quantize(std::vector<float>{1, 2}, {3}, QScheme::kSymmetric)
                  .status()),
      Catch::Contains("data has 2"));
  CHECK_THAT(
      message(Quantize(std::vector<float>{1, 2}, {2}, QScheme::kSymmetric, 1)
                  .status()),
      Catch::Contains("axis 1"));
  const float zeroScale[] = {0.0f};
  CHECK_THAT(
      message(QuantizeWithParams(std::vector<float>{1}, {1},
                                 QScheme::kSymmetric, kPerTensor, zeroScale, {})
                  .status()),
      Catch::Contains("scale 0"));
  const float one[] = {1.0f};
  const int32_t zp5[] = {5}, zp200[] = {200};
  CHECK_THAT(
      message(QuantizeWithParams(std::vector<float>{1}, {1},
                                 QScheme::kSymmetric, kPerTensor, one, zp5)
                  .status()),
      Catch::Contains("must be 0"));
  CHECK_THAT(
      message(QuantizeWithParams(std::vector<float>{1}, {1},
                                 QScheme::kAsymmetric, kPerTensor, one, zp200)
                  .status()),
      Catch::Contains("[-128, 127]"));
  CHECK(QuantizeWithParams(std::vector<float>{1, 2}, {2}, QScheme::kSymmetric,
                           0, one, {})
            .status()
            .code() == absl::StatusCode::kInvalidArgument); // needs 2 scales
}

TEST_CASE("quantize.dequantize_overflow_is_an_error", "[quantize]") {
  const float big[] = {2e38f};
  // FLT_MAX / 2e38 = 1.7 -> 2; 2e38 * 2 overflows f32.
  const QTensor q =
      quantizeOk(QuantizeWithParams(std::vector<float>{1.0f, FLT_MAX}, {2},
                                    QScheme::kSymmetric, kPerTensor, big, {}));
  std::vector<float> out(2);
  const absl::Status s = Dequantize(q, absl::MakeSpan(out));
  CHECK(s.code() == absl::StatusCode::kOutOfRange);
  CHECK_THAT(std::string(s.message()), Catch::Contains("element 1"));
  std::vector<float> small(1);
  CHECK(Dequantize(q, absl::MakeSpan(small)).code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("quantize.c_api", "[quantize]") {
  const float x[] = {-51, 0, 51, 204, 1, 2};
  const int64_t shape[] = {2, 3};
  mixrt_qtensor *q = nullptr;
  REQUIRE(mixrt_quantize_f32(x, shape, 2, MIXRT_QSCHEME_ASYMMETRIC,
                             MIXRT_PER_TENSOR, &q) == MIXRT_STATUS_OK);
  REQUIRE(q != nullptr);
  CHECK(mixrt_qtensor_rank(q) == 2);
  CHECK(mixrt_qtensor_shape(q)[1] == 3);
  CHECK(mixrt_qtensor_axis(q) == MIXRT_PER_TENSOR);
  CHECK(mixrt_qtensor_scheme(q) == MIXRT_QSCHEME_ASYMMETRIC);
  CHECK(mixrt_qtensor_num_elements(q) == 6);
  REQUIRE(mixrt_qtensor_num_scales(q) == 1);
  CHECK(mixrt_qtensor_scales(q)[0] == 1.0f);
  CHECK(mixrt_qtensor_zero_points(q)[0] == -77);
  CHECK(mixrt_qtensor_data(q)[3] == 127);
  float back[6];
  REQUIRE(mixrt_dequantize_f32(q, back, 6) == MIXRT_STATUS_OK);
  CHECK(back[0] == -51.0f);
  CHECK(mixrt_dequantize_f32(q, back, 5) == MIXRT_STATUS_INVALID_ARGUMENT);
  mixrt_qtensor_destroy(q);

  const float scales[] = {0.5f};
  REQUIRE(mixrt_quantize_f32_with_params(x, shape, 2, MIXRT_QSCHEME_SYMMETRIC,
                                         MIXRT_PER_TENSOR, scales, nullptr,
                                         &q) == MIXRT_STATUS_OK);
  CHECK(mixrt_qtensor_data(q)[0] == -102);
  CHECK(mixrt_qtensor_data(q)[3] == 127);
  mixrt_qtensor_destroy(q);

  int8_t out[3];
  const float y[] = {0.5f, 1.5f, -2.5f};
  REQUIRE(mixrt_quantize_f32_buffer(y, 3, MIXRT_QSCHEME_SYMMETRIC, 1.0f, 0,
                                    out) == MIXRT_STATUS_OK);
  CHECK((out[0] == 0 && out[1] == 2 && out[2] == -2));

  CHECK(mixrt_quantize_f32(x, nullptr, 2, MIXRT_QSCHEME_SYMMETRIC, 0, &q) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(q == nullptr);
  CHECK(mixrt_quantize_f32(x, shape, 0, MIXRT_QSCHEME_SYMMETRIC, 0, &q) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_quantize_f32(x, shape, 2, MIXRT_QSCHEME_SYMMETRIC, 2, &q) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_quantize_f32(x, shape, 2, static_cast<mixrt_qscheme>(7), 0, &q) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_quantize_f32(nullptr, shape, 2, MIXRT_QSCHEME_SYMMETRIC, 0, &q) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("data is null"));
  CHECK(mixrt_quantize_f32(x, shape, 2, MIXRT_QSCHEME_SYMMETRIC, 0, nullptr) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  mixrt_qtensor_destroy(nullptr);
}

TEST_CASE("quantize.with_params_checks_parameters_before_reading_data",
          "[quantize]") {
  // The data buffer holds 1 float but the shape claims 1000: every bad
  // parameter must be rejected before the input is read (the ASan build
  // reports any read past the first element). It used to scan the whole
  // input for non-finite values first.
  const std::vector<float> shortData(1, 1.0f);
  const int64_t shape[] = {1000};
  const float bad[] = {-1.0f, 0.0f, NAN, INFINITY, -0.0f};
  const char *badText[] = {"-1", "0", "nan", "inf", "-0"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    INFO("scale " << badText[i]);
    mixrt_qtensor *q = reinterpret_cast<mixrt_qtensor *>(&q);
    CHECK(mixrt_quantize_f32_with_params(shortData.data(), shape, 1,
                                         MIXRT_QSCHEME_SYMMETRIC,
                                         MIXRT_PER_TENSOR, &bad[i], nullptr,
                                         &q) == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message()) ==
          std::string("quantize_f32_with_params: scale 0 (") + badText[i] +
              ") is not positive and finite");
    CHECK(q == nullptr);
    // The C++ API, with a span that claims 1000 elements.
    const absl::Status s =
        QuantizeWithParams(absl::MakeConstSpan(shortData.data(), 1000), {1000},
                           QScheme::kSymmetric, kPerTensor,
                           absl::MakeConstSpan(&bad[i], 1), {})
            .status();
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(s.message()) ==
          std::string("quantize_with_params: scale 0 (") + badText[i] +
              ") is not positive and finite");
  }

  // Zero points out of range, or nonzero for the symmetric scheme.
  const float one = 1.0f;
  const int32_t zp200 = 200, zp1 = 1;
  mixrt_qtensor *q = nullptr;
  CHECK(mixrt_quantize_f32_with_params(shortData.data(), shape, 1,
                                       MIXRT_QSCHEME_ASYMMETRIC,
                                       MIXRT_PER_TENSOR, &one, &zp200,
                                       &q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "quantize_f32_with_params: zero point 0 (200) is outside [-128, 127]");
  CHECK(mixrt_quantize_f32_with_params(
            shortData.data(), shape, 1, MIXRT_QSCHEME_SYMMETRIC,
            MIXRT_PER_TENSOR, &one, &zp1, &q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "quantize_f32_with_params: zero point 0 (1) must be 0 for the "
        "symmetric scheme");
  CHECK(q == nullptr);

  // Per axis: 4 x 250 claimed, the third of 4 scales is bad.
  const int64_t shape2[] = {4, 250};
  const float scales[] = {1.0f, 0.5f, -2.0f, 1.0f};
  CHECK(mixrt_quantize_f32_with_params(
            shortData.data(), shape2, 2, MIXRT_QSCHEME_SYMMETRIC, 0, scales,
            nullptr, &q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "quantize_f32_with_params: scale 2 (-2) is not positive and finite");
  // The wrong number of scales (C++ API).
  const absl::Status count =
      QuantizeWithParams(absl::MakeConstSpan(shortData.data(), 1000), {4, 250},
                         QScheme::kSymmetric, 0, absl::MakeConstSpan(scales, 2),
                         {})
          .status();
  CHECK(std::string(count.message()) ==
        "quantize_with_params: expected 4 scales, got 2");

  // A NULL data pointer is rejected as such, also with a bad scale.
  CHECK(mixrt_quantize_f32_with_params(
            nullptr, shape, 1, MIXRT_QSCHEME_SYMMETRIC, MIXRT_PER_TENSOR,
            &bad[0], nullptr, &q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "quantize_f32_with_params: data is null");
  CHECK(q == nullptr);

  // Valid parameters: then the data is read (and a NaN found) as before.
  const std::vector<float> data = {1.0f, NAN, 2.0f};
  const int64_t shape3[] = {3};
  CHECK(mixrt_quantize_f32_with_params(
            data.data(), shape3, 1, MIXRT_QSCHEME_SYMMETRIC, MIXRT_PER_TENSOR,
            &one, nullptr, &q) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "quantize_f32_with_params: input element 1 (nan) is not finite");
  CHECK(q == nullptr);
}
