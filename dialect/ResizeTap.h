//===- ResizeTap.h - where an output of mix.resize reads its input --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The coordinate mapping of mix.resize, shared by the reference interpreter
// and the resize gradient rule of mix-differentiate (the linalg lowering
// writes the same mapping as IR).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_RESIZETAP_H
#define MIXC_DIALECT_RESIZETAP_H

#include "dialect/MixOps.h"

namespace mix {

/// Output index `i` of a spatial dimension of a resize reads input `lo`
/// weighted `1 - frac` plus input `hi` weighted `frac` (nearest: lo = hi,
/// frac = 0).
struct ResizeTap {
  int64_t lo, hi;
  double frac;
};

/// The tap of output index `i` of spatial dimension `dim` (0: rows, 1:
/// columns) of `op` (mode nearest or linear), whose input and output have
/// `in` and `out` elements along it: the coordinate mode and nearest mode of
/// the op's description, computed in f64.
ResizeTap resizeTap(ResizeOp op, unsigned dim, int64_t i, int64_t in,
                    int64_t out);

/// The input coordinate of output index `i` along spatial dimension `dim`
/// (the coordinate mode), in f64, before any rounding or clamping.
double resizeCoordinate(ResizeOp op, unsigned dim, int64_t i, int64_t in,
                        int64_t out);

/// Bicubic (mode cubic): output index `i` reads the four inputs around its
/// coordinate c, index[t] = floor(c) - 1 + t clamped into [0, in) (ONNX's
/// edge padding), with weight[t] the cubic convolution kernel of Keys with
/// a = -0.75 at distance |c - (floor(c) - 1 + t)|, as ONNX's reference
/// computes it (`cubic_coeffs`, f64).
struct ResizeCubicTap {
  int64_t index[4];
  double weight[4];
};
ResizeCubicTap resizeCubicTap(ResizeOp op, unsigned dim, int64_t i, int64_t in,
                              int64_t out);

/// The coefficient `a` of mode cubic (ONNX's `cubic_coeff_a` default,
/// PyTorch's bicubic).
inline constexpr double kResizeCubicA = -0.75;

/// The four weights of a cubic tap whose coordinate is `r` in [0, 1) past
/// the second input, in ONNX's reference's order of operations.
void resizeCubicWeights(double r, double weight[4]);

} // namespace mix

#endif // MIXC_DIALECT_RESIZETAP_H
