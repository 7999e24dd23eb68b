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
/// columns) of `op`, whose input and output have `in` and `out` elements
/// along it: the coordinate mode and nearest mode of the op's description,
/// computed in f64.
ResizeTap resizeTap(ResizeOp op, unsigned dim, int64_t i, int64_t in,
                    int64_t out);

} // namespace mix

#endif // MIXC_DIALECT_RESIZETAP_H
