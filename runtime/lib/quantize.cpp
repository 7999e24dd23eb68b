//===-- quantize.cpp - int8 quantization and dequantization ---------------===//
//
// q = saturate(round_half_even(x / scale) + zero_point), saturating before
// narrowing, per tensor or per axis, with parameters from the data or given.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

/// The C handle: an owned QTensor.
struct mixrt_qtensor {
  mixrt::QTensor value;
};

namespace mixrt {
namespace {

/// A tensor viewed as [outer, channels, inner] around the quantized axis
/// (per tensor: [1, 1, count]). Flat index = (o * channels + c) * inner + j.
struct AxisView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

AxisView makeAxisView(absl::Span<const int64_t> shape, int axis,
                      int64_t count) {
  AxisView view;
  if (axis == kPerTensor) {
    view.inner = count;
    return view;
  }
  view.channels = shape[axis];
  // No elements: a zero extent anywhere. The other extents may then multiply
  // past int64 (checkShape stops at the zero), and nothing is visited anyway.
  if (count == 0) {
    view.outer = 0;
    view.inner = 0;
    return view;
  }
  for (int d = 0; d < axis; ++d)
    view.outer *= shape[d];
  view.channels = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    view.inner *= shape[d];
  return view;
}

/// Calls fn(c, flatIndex) for every element in flat (row-major) order.
template <class Fn> void forEachElement(const AxisView &view, Fn &&fn) {
  int64_t i = 0;
  for (int64_t o = 0; o < view.outer; ++o)
    for (int64_t c = 0; c < view.channels; ++c)
      for (int64_t j = 0; j < view.inner; ++j, ++i)
        fn(c, i);
}

/// The quantization step of one element: the quotient in T (correctly
/// rounded), round half to even (std::nearbyint in the default rounding
/// mode), then the clamp to [lo, hi] in T, then the narrowing.
template <class T>
int8_t quantizeOne(T x, T scale, int32_t zeroPoint, int32_t lo, int32_t hi) {
  const T r = std::nearbyint(x / scale) + static_cast<T>(zeroPoint);
  if (r <= static_cast<T>(lo))
    return static_cast<int8_t>(lo);
  if (r >= static_cast<T>(hi))
    return static_cast<int8_t>(hi);
  return static_cast<int8_t>(r);
}

/// Index of the first non-finite element, or -1.
template <class T> int64_t firstNonFinite(absl::Span<const T> data) {
  for (size_t i = 0; i < data.size(); ++i)
    if (!std::isfinite(data[i]))
      return static_cast<int64_t>(i);
  return -1;
}

template <class T>
absl::Status checkFiniteInput(absl::string_view op, absl::Span<const T> data) {
  if (data.empty())
    return detail::invalidArgument(op, ": input is empty");
  if (int64_t i = firstNonFinite(data); i >= 0)
    return detail::invalidArgument(op, ": input element ", i, " (", data[i],
                                   ") is not finite");
  return absl::OkStatus();
}

/// Rounds a positive scale computed in f64 to f32; a scale that is zero or
/// below FLT_MIN (data of tiny magnitude) becomes FLT_MIN.
absl::Status roundScale(absl::string_view op, double scale, int64_t channel,
                        float &out) {
  const float rounded = static_cast<float>(scale);
  if (!std::isfinite(rounded))
    return detail::outOfRange(op, ": scale of channel ", channel, " (", scale,
                              ") is not representable in f32");
  out = std::max(rounded, FLT_MIN);
  return absl::OkStatus();
}

/// Computes per-channel scales and zero points from the data.
template <class T>
absl::Status computeParams(absl::string_view op, absl::Span<const T> data,
                           const AxisView &view, QScheme scheme,
                           std::vector<float> &scales,
                           std::vector<int32_t> &zeroPoints) {
  std::vector<double> lo(view.channels, 0.0), hi(view.channels, 0.0);
  forEachElement(view, [&](int64_t c, int64_t i) {
    lo[c] = std::min(lo[c], static_cast<double>(data[i]));
    hi[c] = std::max(hi[c], static_cast<double>(data[i]));
  });
  scales.assign(view.channels, 1.0f);
  zeroPoints.assign(view.channels, 0);
  for (int64_t c = 0; c < view.channels; ++c) {
    // lo <= 0 <= hi: the range always includes zero.
    if (lo[c] == 0.0 && hi[c] == 0.0)
      continue; // All zero: scale 1, zero point 0.
    if (scheme == QScheme::kSymmetric) {
      if (absl::Status s =
              roundScale(op, std::max(-lo[c], hi[c]) / 127.0, c, scales[c]);
          !s.ok())
        return s;
      continue;
    }
    if (absl::Status s = roundScale(op, (hi[c] - lo[c]) / 255.0, c, scales[c]);
        !s.ok())
      return s;
    const double zp = std::nearbyint(-128.0 - lo[c] / scales[c]);
    zeroPoints[c] = static_cast<int32_t>(std::clamp(zp, -128.0, 127.0));
  }
  return absl::OkStatus();
}

absl::Status checkParams(absl::string_view op, QScheme scheme,
                         absl::Span<const float> scales,
                         absl::Span<const int32_t> zeroPoints,
                         int64_t channels) {
  if (static_cast<int64_t>(scales.size()) != channels)
    return detail::invalidArgument(op, ": expected ", channels, " scales, got ",
                                   scales.size());
  if (!zeroPoints.empty() &&
      static_cast<int64_t>(zeroPoints.size()) != channels)
    return detail::invalidArgument(op, ": expected ", channels,
                                   " zero points, got ", zeroPoints.size());
  for (int64_t c = 0; c < channels; ++c)
    if (!(scales[c] > 0.0f) || !std::isfinite(scales[c]))
      return detail::invalidArgument(op, ": scale ", c, " (", scales[c],
                                     ") is not positive and finite");
  for (size_t c = 0; c < zeroPoints.size(); ++c) {
    if (scheme == QScheme::kSymmetric && zeroPoints[c] != 0)
      return detail::invalidArgument(op, ": zero point ", c, " (",
                                     zeroPoints[c],
                                     ") must be 0 for the symmetric scheme");
    if (zeroPoints[c] < -128 || zeroPoints[c] > 127)
      return detail::invalidArgument(op, ": zero point ", c, " (",
                                     zeroPoints[c], ") is outside [-128, 127]");
  }
  return absl::OkStatus();
}

absl::Status checkScheme(absl::string_view op, QScheme scheme) {
  if (scheme != QScheme::kSymmetric && scheme != QScheme::kAsymmetric)
    return detail::invalidArgument(op, ": unknown scheme ",
                                   static_cast<int>(scheme));
  return absl::OkStatus();
}

/// Quantizes `data` into `out` with validated parameters.
template <class T>
void quantizeInto(absl::Span<const T> data, const AxisView &view,
                  QScheme scheme, absl::Span<const float> scales,
                  absl::Span<const int32_t> zeroPoints, int8_t *out) {
  const int32_t lo = QMin(scheme), hi = QMax(scheme);
  forEachElement(view, [&](int64_t c, int64_t i) {
    out[i] = quantizeOne<T>(data[i], static_cast<T>(scales[c]),
                            zeroPoints.empty() ? 0 : zeroPoints[c], lo, hi);
  });
}

} // namespace

template <class T>
absl::StatusOr<QTensor>
QTensorBuilder::quantize(absl::string_view op, absl::Span<const T> data,
                         absl::Span<const int64_t> shape, QScheme scheme,
                         int axis, absl::Span<const float> scales,
                         absl::Span<const int32_t> zeroPoints) {
  if (absl::Status s = checkScheme(op, scheme); !s.ok())
    return s;
  int64_t count = 0;
  if (absl::Status s = detail::checkShape(op, shape, count); !s.ok())
    return s;
  if (count != static_cast<int64_t>(data.size()))
    return detail::invalidArgument(op, ": shape has ", count,
                                   " elements, data has ", data.size());
  if (axis != kPerTensor &&
      (axis < 0 || axis >= static_cast<int64_t>(shape.size())))
    return detail::invalidArgument(op, ": axis ", axis, " is outside [-1, ",
                                   shape.size(), ")");
  const AxisView view = makeAxisView(shape, axis, count);
  // Given parameters are validated before the data is read, as in
  // QuantizeBuffer: bad ones are rejected without touching the input.
  if (!scales.empty())
    if (absl::Status s =
            checkParams(op, scheme, scales, zeroPoints, view.channels);
        !s.ok())
      return s;
  if (absl::Status s = checkFiniteInput(op, data); !s.ok())
    return s;

  QTensor result;
  result.scheme_ = scheme;
  result.shape_.assign(shape.begin(), shape.end());
  result.axis_ = axis;
  if (scales.empty()) {
    if (absl::Status s = computeParams(op, data, view, scheme, result.scales_,
                                       result.zero_points_);
        !s.ok())
      return s;
  } else {
    result.scales_.assign(scales.begin(), scales.end());
    if (zeroPoints.empty())
      result.zero_points_.assign(view.channels, 0);
    else
      result.zero_points_.assign(zeroPoints.begin(), zeroPoints.end());
  }
  result.data_.resize(count);
  quantizeInto(data, view, scheme, result.scales_, result.zero_points_,
               result.data_.data());
  return result;
}

template absl::StatusOr<QTensor> QTensorBuilder::quantize<float>(
    absl::string_view, absl::Span<const float>, absl::Span<const int64_t>,
    QScheme, int, absl::Span<const float>, absl::Span<const int32_t>);
template absl::StatusOr<QTensor> QTensorBuilder::quantize<double>(
    absl::string_view, absl::Span<const double>, absl::Span<const int64_t>,
    QScheme, int, absl::Span<const float>, absl::Span<const int32_t>);

int64_t QTensor::ChannelOf(int64_t i) const {
  if (axis_ == kPerTensor)
    return 0;
  const AxisView view = makeAxisView(shape_, axis_, num_elements());
  return (i / view.inner) % view.channels;
}

absl::StatusOr<QTensor> Quantize(absl::Span<const float> data,
                                 absl::Span<const int64_t> shape,
                                 QScheme scheme, int axis) {
  return QTensorBuilder::quantize<float>("quantize", data, shape, scheme, axis,
                                         {}, {});
}

absl::StatusOr<QTensor> Quantize(absl::Span<const double> data,
                                 absl::Span<const int64_t> shape,
                                 QScheme scheme, int axis) {
  return QTensorBuilder::quantize<double>("quantize", data, shape, scheme, axis,
                                          {}, {});
}

absl::StatusOr<QTensor>
QuantizeWithParams(absl::Span<const float> data,
                   absl::Span<const int64_t> shape, QScheme scheme, int axis,
                   absl::Span<const float> scales,
                   absl::Span<const int32_t> zeroPoints) {
  if (scales.empty())
    return detail::invalidArgument("quantize_with_params: no scales given");
  return QTensorBuilder::quantize<float>("quantize_with_params", data, shape,
                                         scheme, axis, scales, zeroPoints);
}

absl::Status QuantizeBuffer(absl::Span<const float> data, QScheme scheme,
                            float scale, int32_t zeroPoint,
                            absl::Span<int8_t> out) {
  constexpr absl::string_view kOp = "quantize_buffer";
  if (absl::Status s = checkScheme(kOp, scheme); !s.ok())
    return s;
  if (out.size() != data.size())
    return detail::invalidArgument(kOp, ": output has ", out.size(),
                                   " elements, input has ", data.size());
  // The scalar parameters first: bad ones are rejected without reading the
  // input (found by fuzz/mixrt_c_api_fuzzer.cpp).
  const float scales[] = {scale};
  const int32_t zeroPoints[] = {zeroPoint};
  if (absl::Status s = checkParams(kOp, scheme, scales, zeroPoints, 1); !s.ok())
    return s;
  if (absl::Status s = checkFiniteInput(kOp, data); !s.ok())
    return s;
  AxisView view;
  view.inner = static_cast<int64_t>(data.size());
  quantizeInto(data, view, scheme, scales, zeroPoints, out.data());
  return absl::OkStatus();
}

absl::Status Dequantize(const QTensor &tensor, absl::Span<float> out) {
  const int64_t count = tensor.num_elements();
  if (static_cast<int64_t>(out.size()) < count)
    return detail::invalidArgument("dequantize: output holds ", out.size(),
                                   " elements, need ", count);
  const AxisView view = makeAxisView(tensor.shape(), tensor.axis(), count);
  const absl::Span<const int8_t> q = tensor.data();
  const absl::Span<const float> scales = tensor.scales();
  const absl::Span<const int32_t> zeroPoints = tensor.zero_points();
  int64_t bad = -1;
  forEachElement(view, [&](int64_t c, int64_t i) {
    out[i] = scales[c] * static_cast<float>(q[i] - zeroPoints[c]);
    if (bad < 0 && !std::isfinite(out[i]))
      bad = i;
  });
  if (bad >= 0)
    return detail::outOfRange(
        "dequantize: element ", bad, " overflows f32 (scale ",
        scales[tensor.ChannelOf(bad)], ", q ", static_cast<int>(q[bad]), ")");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> Dequantize(const QTensor &tensor) {
  std::vector<float> out(tensor.num_elements());
  if (absl::Status s = Dequantize(tensor, absl::MakeSpan(out)); !s.ok())
    return s;
  return out;
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {

using mixrt::detail::guardC;

/// Shared body of the two C quantize entry points.
mixrt_status_code quantizeC(const char *op, const float *data,
                            const int64_t *shape, int32_t rank,
                            mixrt_qscheme scheme, int32_t axis,
                            const float *scales, const int32_t *zeroPoints,
                            bool withParams, mixrt_qtensor **out) {
  return guardC([&]() -> absl::Status {
    if (absl::Status s = mixrt::detail::checkPtr(op, out, "out_qtensor");
        !s.ok())
      return s;
    *out = nullptr;
    if (absl::Status s =
            mixrt::detail::checkEnum(op, "scheme", "mixrt_qscheme", scheme, 2);
        !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkPtr(op, shape, "shape", rank > 0);
        !s.ok())
      return s;
    if (rank < 1)
      return mixrt::detail::invalidArgument(op, ": rank (", rank,
                                            ") must be >= 1");
    const absl::Span<const int64_t> shapeSpan(shape, rank);
    int64_t count = 0;
    if (absl::Status s = mixrt::detail::checkShape(op, shapeSpan, count);
        !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkBytes(
            op, "the element count of shape", count, sizeof(float));
        !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkPtr(op, data, "data", count > 0);
        !s.ok())
      return s;
    int64_t channels = 1;
    if (axis >= 0 && axis < rank)
      channels = shape[axis];
    // A zero dimension elsewhere leaves count 0 with any shape[axis]; the
    // scales and zero points arrays must still be addressable.
    if (absl::Status s = mixrt::detail::checkBytes(
            op, absl::StrCat("shape[", axis, "]"), channels, sizeof(float));
        !s.ok())
      return s;
    if (withParams) {
      if (absl::Status s = mixrt::detail::checkPtr(op, scales, "scales");
          !s.ok())
        return s;
    }
    const absl::Span<const float> scaleSpan =
        withParams ? absl::Span<const float>(scales, channels)
                   : absl::Span<const float>();
    const absl::Span<const int32_t> zpSpan =
        withParams && zeroPoints
            ? absl::Span<const int32_t>(zeroPoints, channels)
            : absl::Span<const int32_t>();
    absl::StatusOr<mixrt::QTensor> q = mixrt::QTensorBuilder::quantize<float>(
        op, absl::Span<const float>(data, count), shapeSpan,
        static_cast<mixrt::QScheme>(mixrt::detail::enumValue(scheme)), axis,
        scaleSpan, zpSpan);
    if (!q.ok())
      return q.status();
    *out = new mixrt_qtensor{std::move(*q)};
    return absl::OkStatus();
  });
}

} // namespace

extern "C" {

mixrt_status_code mixrt_quantize_f32(const float *data, const int64_t *shape,
                                     int32_t rank, mixrt_qscheme scheme,
                                     int32_t axis,
                                     mixrt_qtensor **out_qtensor) {
  return quantizeC("quantize_f32", data, shape, rank, scheme, axis, nullptr,
                   nullptr, /*withParams=*/false, out_qtensor);
}

mixrt_status_code
mixrt_quantize_f32_with_params(const float *data, const int64_t *shape,
                               int32_t rank, mixrt_qscheme scheme, int32_t axis,
                               const float *scales, const int32_t *zero_points,
                               mixrt_qtensor **out_qtensor) {
  return quantizeC("quantize_f32_with_params", data, shape, rank, scheme, axis,
                   scales, zero_points, /*withParams=*/true, out_qtensor);
}

mixrt_status_code mixrt_quantize_f32_buffer(const float *data, int64_t count,
                                            mixrt_qscheme scheme, float scale,
                                            int32_t zero_point, int8_t *out_q) {
  return guardC([&]() -> absl::Status {
    constexpr const char *kOp = "quantize_f32_buffer";
    if (absl::Status s =
            mixrt::detail::checkEnum(kOp, "scheme", "mixrt_qscheme", scheme, 2);
        !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkNonNegative(kOp, count, "count");
        !s.ok())
      return s;
    if (absl::Status s =
            mixrt::detail::checkBytes(kOp, "count", count, sizeof(float));
        !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkPtr(kOp, data, "data", count > 0);
        !s.ok())
      return s;
    if (absl::Status s =
            mixrt::detail::checkPtr(kOp, out_q, "out_q", count > 0);
        !s.ok())
      return s;
    return mixrt::QuantizeBuffer(
        absl::Span<const float>(data, count),
        static_cast<mixrt::QScheme>(mixrt::detail::enumValue(scheme)), scale,
        zero_point, absl::Span<int8_t>(out_q, count));
  });
}

mixrt_status_code mixrt_dequantize_f32(const mixrt_qtensor *qtensor,
                                       float *out_data, int64_t capacity) {
  return guardC([&]() -> absl::Status {
    constexpr const char *kOp = "dequantize_f32";
    if (absl::Status s = mixrt::detail::checkPtr(kOp, qtensor, "qtensor");
        !s.ok())
      return s;
    if (absl::Status s =
            mixrt::detail::checkNonNegative(kOp, capacity, "capacity");
        !s.ok())
      return s;
    if (absl::Status s =
            mixrt::detail::checkBytes(kOp, "capacity", capacity, sizeof(float));
        !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkPtr(kOp, out_data, "out_data");
        !s.ok())
      return s;
    return mixrt::Dequantize(qtensor->value,
                             absl::Span<float>(out_data, capacity));
  });
}

void mixrt_qtensor_destroy(mixrt_qtensor *qtensor) { delete qtensor; }

mixrt_qscheme mixrt_qtensor_scheme(const mixrt_qtensor *qtensor) {
  return qtensor ? static_cast<mixrt_qscheme>(qtensor->value.scheme())
                 : MIXRT_QSCHEME_SYMMETRIC;
}
int32_t mixrt_qtensor_rank(const mixrt_qtensor *qtensor) {
  return qtensor ? static_cast<int32_t>(qtensor->value.shape().size()) : 0;
}
const int64_t *mixrt_qtensor_shape(const mixrt_qtensor *qtensor) {
  return qtensor ? qtensor->value.shape().data() : nullptr;
}
int32_t mixrt_qtensor_axis(const mixrt_qtensor *qtensor) {
  return qtensor ? qtensor->value.axis() : MIXRT_PER_TENSOR;
}
int64_t mixrt_qtensor_num_elements(const mixrt_qtensor *qtensor) {
  return qtensor ? qtensor->value.num_elements() : 0;
}
const int8_t *mixrt_qtensor_data(const mixrt_qtensor *qtensor) {
  return qtensor ? qtensor->value.data().data() : nullptr;
}
int64_t mixrt_qtensor_num_scales(const mixrt_qtensor *qtensor) {
  return qtensor ? static_cast<int64_t>(qtensor->value.scales().size()) : 0;
}
const float *mixrt_qtensor_scales(const mixrt_qtensor *qtensor) {
  return qtensor ? qtensor->value.scales().data() : nullptr;
}
const int32_t *mixrt_qtensor_zero_points(const mixrt_qtensor *qtensor) {
  return qtensor ? qtensor->value.zero_points().data() : nullptr;
}

} // extern "C"
