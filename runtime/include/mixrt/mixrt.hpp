//===-- mixrt/mixrt.hpp - mixc runtime C++ API ------------------*- C++ -*-===//
//
// The C++ API of mixrt. It is the same implementation as the C ABI in
// mixrt.h (the C functions are thin wrappers over these), with errors
// reported as absl::Status / absl::StatusOr and sizes carried by
// absl::Span. The numeric contracts are documented in mixrt.h and
// docs/runtime.md. Thread safety: as in mixrt.h; const member functions may
// run concurrently, non-const ones need exclusive access to the object.
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_MIXRT_HPP
#define MIXRT_MIXRT_HPP

#include "mixrt/mixrt.h"

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mixrt {

//===----------------------------------------------------------------------===//
// SIMD dispatch
//===----------------------------------------------------------------------===//

enum class SimdLevel {
  kPortable = MIXRT_SIMD_PORTABLE,
  kAvx2 = MIXRT_SIMD_AVX2
};

/// Best level supported by this CPU.
SimdLevel CpuSimdLevel();
/// Level used by the bulk conversions and GEMMs.
SimdLevel GetSimdLevel();
/// Forces a level process-wide (tests, benchmarks). All levels give identical
/// results. Unimplemented if the CPU lacks it.
absl::Status SetSimdLevel(SimdLevel level);

//===----------------------------------------------------------------------===//
// Conversions (round to nearest even, one rounding, see mixrt.h)
//===----------------------------------------------------------------------===//

uint16_t F32ToF16(float value);
float F16ToF32(uint16_t value);
uint16_t F32ToBF16(float value);
float BF16ToF32(uint16_t value);
uint16_t F64ToF16(double value);
uint16_t F64ToBF16(double value);
double F16ToF64(uint16_t value);
double BF16ToF64(uint16_t value);

/// Bulk conversions; `dst.size()` must equal `src.size()`.
absl::Status F32ToF16(absl::Span<const float> src, absl::Span<uint16_t> dst);
absl::Status F16ToF32(absl::Span<const uint16_t> src, absl::Span<float> dst);
absl::Status F32ToBF16(absl::Span<const float> src, absl::Span<uint16_t> dst);
absl::Status BF16ToF32(absl::Span<const uint16_t> src, absl::Span<float> dst);
absl::Status F64ToF16(absl::Span<const double> src, absl::Span<uint16_t> dst);
absl::Status F64ToBF16(absl::Span<const double> src, absl::Span<uint16_t> dst);

/// Checked bulk conversions: `dst` is fully written; a non-finite input is
/// InvalidArgument, a finite input rounding to inf is OutOfRange; the message
/// names the first offending index.
absl::Status F32ToF16Checked(absl::Span<const float> src,
                             absl::Span<uint16_t> dst);
absl::Status F32ToBF16Checked(absl::Span<const float> src,
                              absl::Span<uint16_t> dst);
absl::Status F64ToF16Checked(absl::Span<const double> src,
                             absl::Span<uint16_t> dst);
absl::Status F64ToBF16Checked(absl::Span<const double> src,
                              absl::Span<uint16_t> dst);

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

enum class QScheme {
  kSymmetric = MIXRT_QSCHEME_SYMMETRIC,
  kAsymmetric = MIXRT_QSCHEME_ASYMMETRIC,
};

/// `axis` value selecting per-tensor quantization.
inline constexpr int kPerTensor = MIXRT_PER_TENSOR;

/// Smallest and largest quantized value of a scheme.
inline constexpr int32_t QMin(QScheme scheme) {
  return scheme == QScheme::kSymmetric ? -127 : -128;
}
inline constexpr int32_t QMax(QScheme) { return 127; }

/// An int8 tensor (row-major) with its quantization parameters.
class QTensor {
public:
  QScheme scheme() const { return scheme_; }
  absl::Span<const int64_t> shape() const { return shape_; }
  /// kPerTensor or the quantized axis.
  int axis() const { return axis_; }
  int64_t num_elements() const { return static_cast<int64_t>(data_.size()); }
  absl::Span<const int8_t> data() const { return data_; }
  /// 1 value per tensor or shape()[axis()] values.
  absl::Span<const float> scales() const { return scales_; }
  absl::Span<const int32_t> zero_points() const { return zero_points_; }
  /// Scale and zero point that apply to the element at flat index `i`.
  int64_t ChannelOf(int64_t i) const;

private:
  friend class QTensorBuilder;
  QScheme scheme_ = QScheme::kSymmetric;
  std::vector<int64_t> shape_;
  int axis_ = kPerTensor;
  std::vector<int8_t> data_;
  std::vector<float> scales_;
  std::vector<int32_t> zero_points_;
};

/// Quantizes with scales/zero points computed from the data. Fails on an
/// empty, shape-mismatched or non-finite input.
absl::StatusOr<QTensor> Quantize(absl::Span<const float> data,
                                 absl::Span<const int64_t> shape,
                                 QScheme scheme, int axis = kPerTensor);
absl::StatusOr<QTensor> Quantize(absl::Span<const double> data,
                                 absl::Span<const int64_t> shape,
                                 QScheme scheme, int axis = kPerTensor);

/// Quantizes with the given scales/zero points (an empty `zero_points` means
/// all 0).
absl::StatusOr<QTensor>
QuantizeWithParams(absl::Span<const float> data,
                   absl::Span<const int64_t> shape, QScheme scheme, int axis,
                   absl::Span<const float> scales,
                   absl::Span<const int32_t> zero_points);

/// Quantizes a flat buffer with one scale and zero point.
absl::Status QuantizeBuffer(absl::Span<const float> data, QScheme scheme,
                            float scale, int32_t zero_point,
                            absl::Span<int8_t> out);

/// x = scale * (q - zero_point) in f32; `out.size()` must be >=
/// num_elements(). A non-finite result is OutOfRange.
absl::Status Dequantize(const QTensor &tensor, absl::Span<float> out);
absl::StatusOr<std::vector<float>> Dequantize(const QTensor &tensor);

//===----------------------------------------------------------------------===//
// INT8 GEMM (row-major; exact; int32 overflow of a final sum is OutOfRange)
//
// Empty dimensions, as for every GEMM (mixrt.h): M or N = 0 is OK and
// touches nothing (a, b, c may be null); K = 0 zeroes C (a, b may be null).
//===----------------------------------------------------------------------===//

/// C = A * B with s8 operands and s32 results, no zero points.
absl::Status GemmS8S8S32(int64_t m, int64_t n, int64_t k, const int8_t *a,
                         int64_t lda, const int8_t *b, int64_t ldb, int32_t *c,
                         int64_t ldc);

/// An int8 operand: data, leading dimension, scales and zero points (1
/// value, or one per row of A / column of B when `per_channel`).
struct S8Operand {
  const int8_t *data = nullptr;
  int64_t ld = 0;
  bool per_channel = false;
  absl::Span<const float> scales;        ///< ignored for s32 results
  absl::Span<const int32_t> zero_points; ///< empty means 0
};

/// acc[i][j] = sum_k (a[i][k] - za) * (b[k][j] - zb).
absl::Status GemmS8(int64_t m, int64_t n, int64_t k, const S8Operand &a,
                    const S8Operand &b, int32_t *c, int64_t ldc);
/// c = (float)(sa * sb * acc) with the product in f64.
absl::Status GemmS8(int64_t m, int64_t n, int64_t k, const S8Operand &a,
                    const S8Operand &b, float *c, int64_t ldc);
absl::Status GemmS8(int64_t m, int64_t n, int64_t k, const S8Operand &a,
                    const S8Operand &b, double *c, int64_t ldc);

/// Dequantized product of two rank-2 quantized tensors: `a` [M, K] per
/// tensor or per axis 0, `b` [K, N] per tensor or per axis 1.
absl::StatusOr<std::vector<float>> GemmS8(const QTensor &a, const QTensor &b);

enum class Float16Format { kF16 = MIXRT_FORMAT_F16, kBF16 = MIXRT_FORMAT_BF16 };

/// Reduced GEMM: operands rounded to `format`, f32 fmaf accumulation in
/// ascending k, one final conversion. Non-finite results are OutOfRange.
absl::Status GemmReduced(Float16Format format, int64_t m, int64_t n, int64_t k,
                         const float *a, int64_t lda, const float *b,
                         int64_t ldb, float *c, int64_t ldc);
absl::Status GemmReduced(Float16Format format, int64_t m, int64_t n, int64_t k,
                         const double *a, int64_t lda, const double *b,
                         int64_t ldb, double *c, int64_t ldc);
absl::Status GemmReduced(Float16Format format, int64_t m, int64_t n, int64_t k,
                         const uint16_t *a, int64_t lda, const uint16_t *b,
                         int64_t ldb, float *c, int64_t ldc);

//===----------------------------------------------------------------------===//
// Loss scaler
//===----------------------------------------------------------------------===//

struct LossScalerConfig {
  double initial_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  double max_scale = 16777216.0;
  /// Backoff stops here: 2^-24 (see docs/runtime.md, "Loss scaler").
  double min_scale = 0x1p-24;
};

/// Dynamic loss scaling with PyTorch GradScaler semantics plus a maximum and
/// a minimum scale.
class LossScaler {
public:
  static absl::StatusOr<LossScaler> Create(const LossScalerConfig &config = {});

  double scale() const { return scale_; }
  int64_t growth_tracker() const { return growth_tracker_; }
  const LossScalerConfig &config() const { return config_; }

  /// loss * scale (f64 product, one rounding). Non-finite loss is
  /// InvalidArgument, a non-finite product OutOfRange.
  absl::StatusOr<float> ScaleLoss(float loss) const;
  absl::StatusOr<double> ScaleLoss(double loss) const;

  /// Unscales in place with the f64 reciprocal; returns found_inf.
  absl::StatusOr<bool> Unscale(absl::Span<const absl::Span<float>> grads) const;
  absl::StatusOr<bool>
  Unscale(absl::Span<const absl::Span<double>> grads) const;

  /// Backoff (down to min_scale) on found_inf, else count and grow at the
  /// interval.
  void Update(bool found_inf);

  /// Unscale, run `apply` unless a non-finite gradient was found, update.
  /// Returns true if the update was skipped. If `apply` fails its status is
  /// returned and the scaler is not updated.
  absl::StatusOr<bool> Step(absl::Span<const absl::Span<float>> grads,
                            absl::FunctionRef<absl::Status()> apply);

private:
  explicit LossScaler(const LossScalerConfig &config)
      : config_(config), scale_(config.initial_scale) {}
  LossScalerConfig config_;
  double scale_;
  int64_t growth_tracker_ = 0;
};

//===----------------------------------------------------------------------===//
// Gradient norm and clipping
//===----------------------------------------------------------------------===//

inline constexpr double kClipDefaultEps = MIXRT_CLIP_DEFAULT_EPS;

/// Overflow-safe L2 norm over several tensors (f64).
absl::StatusOr<double>
GradNorm(absl::Span<const absl::Span<const float>> grads);
absl::StatusOr<double>
GradNorm(absl::Span<const absl::Span<const double>> grads);

struct ClipResult {
  double norm = 0.0;
  /// min(1, max_norm / (norm + eps)); gradients were scaled iff < 1.
  double coef = 1.0;
};

absl::StatusOr<ClipResult>
ClipGradNorm(absl::Span<const absl::Span<float>> grads, double max_norm,
             double eps = kClipDefaultEps);
absl::StatusOr<ClipResult>
ClipGradNorm(absl::Span<const absl::Span<double>> grads, double max_norm,
             double eps = kClipDefaultEps);

//===----------------------------------------------------------------------===//
// Master-weight optimizers
//===----------------------------------------------------------------------===//

enum class OptimizerKind {
  kSgd = MIXRT_OPTIMIZER_SGD,
  kAdam = MIXRT_OPTIMIZER_ADAM,
  /// Decoupled weight decay (torch.optim.AdamW; API version 8).
  kAdamW = MIXRT_OPTIMIZER_ADAMW,
};

enum class LowpFormat {
  kNone = MIXRT_LOWP_NONE,
  kF16 = MIXRT_LOWP_F16,
  kBF16 = MIXRT_LOWP_BF16,
  kInt8 = MIXRT_LOWP_INT8,
};

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  double learning_rate = 0.01;
  double weight_decay = 0.0;
  double momentum = 0.0;
  double dampening = 0.0;
  bool nesterov = false;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;

  static OptimizerConfig Sgd(double lr, double momentum = 0.0);
  static OptimizerConfig Adam(double lr = 1e-3, double beta1 = 0.9,
                              double beta2 = 0.999, double epsilon = 1e-8);
  /// PyTorch's AdamW defaults (weight decay 1e-2).
  static OptimizerConfig AdamW(double lr = 1e-3, double beta1 = 0.9,
                               double beta2 = 0.999, double epsilon = 1e-8,
                               double weight_decay = 1e-2);
};

/// f64 master weights + optimizer state + low-precision copies re-derived
/// after each step.
class Optimizer {
public:
  static absl::StatusOr<Optimizer> Create(const OptimizerConfig &config);

  Optimizer(Optimizer &&) noexcept;
  Optimizer &operator=(Optimizer &&) noexcept;
  ~Optimizer();

  /// Adds a parameter (values copied); returns its index.
  absl::StatusOr<int64_t> AddParam(absl::Span<const double> values,
                                   LowpFormat lowp);
  int64_t num_params() const;

  /// One all-or-nothing step; grads[i] is the gradient of parameter i.
  absl::Status Step(absl::Span<const absl::Span<const float>> grads);
  absl::Status Step(absl::Span<const absl::Span<const double>> grads);

  const OptimizerConfig &config() const;
  absl::Span<const double> master(int64_t index) const;
  LowpFormat lowp_format(int64_t index) const;
  /// f16/bf16 bits (empty for other formats).
  absl::Span<const uint16_t> lowp_u16(int64_t index) const;
  /// int8 copy (nullptr for other formats).
  const QTensor *lowp_int8(int64_t index) const;

private:
  struct Impl;
  explicit Optimizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace mixrt

#endif // MIXRT_MIXRT_HPP
