//===-- gemm_common.h - Blocked GEMM driver shared by mixrt GEMMs -*- C++
//-*-===//
//
// The cache-blocking loop nest (GotoBLAS style) shared by the INT8 and the
// reduced-precision GEMMs. The caller supplies how panels are packed and
// what a micro-tile does; the driver only decides the traversal, which never
// reorders the k loop of an output element (k blocks run in ascending order).
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_LIB_GEMM_COMMON_H
#define MIXRT_LIB_GEMM_COMMON_H

#include "internal.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mixrt::detail {

/// Rows of a micro-tile (rows of a packed A panel).
inline constexpr int kGemmMr = 6;
/// Columns of a micro-tile (columns of a packed B panel).
inline constexpr int kGemmNr = 16;
/// Default depth of a k block (even, so int8 k pairs never straddle blocks):
/// a 16 x 256 f32 B panel fills half of L1.
inline constexpr int64_t kGemmKc = 256;
/// Rows of A whose panels are reused across one sweep of B panels (a
/// multiple of kGemmMr).
inline constexpr int64_t kGemmMc = 72;
/// Columns of B packed at once (a multiple of kGemmNr): a packed k x n block
/// of B stays within L2 (256 x 256 x 4 bytes for f32).
inline constexpr int64_t kGemmNc = 256;

/// Scratch buffers of the GEMMs, one per (type, slot) and thread, reused
/// across calls: a fresh multi-megabyte allocation per call would page-fault
/// on every call. They grow to the largest problem seen on the thread and are
/// released when the thread exits. Contents are unspecified (not zeroed).
enum class ScratchSlot {
  kPackedA,
  kPackedB,
  kRoundedA,
  kRoundedB,
  kAccumulator
};

template <class T, ScratchSlot Slot> T *threadScratch(size_t count) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < count)
    buffer.resize(count);
  return buffer.data();
}

/// Depth of a packed panel: kc rounded up to even.
inline int64_t paddedDepth(int64_t kc) { return (kc + 1) & ~int64_t{1}; }

/// Checks that the packed A panels of blockedGemm<T> over an M x K problem
/// (ceil(M / Mr) * Mr rows of paddedDepth(min(K, kBlock)) elements) fit in
/// PTRDIFF_MAX bytes; the B panels are bounded by the block sizes.
inline absl::Status checkPackedWorkspace(absl::string_view op, int64_t m,
                                         int64_t k, int64_t kBlock,
                                         size_t elemSize) {
  const int64_t panels = m / kGemmMr + (m % kGemmMr != 0);
  return checkWorkspace(op, panels, kGemmMr * paddedDepth(std::min(k, kBlock)),
                        elemSize);
}

/// Runs the blocked GEMM traversal over an M x N x K problem (all > 0) with
/// k blocks of `kBlock` (even).
///
///   packA(k0, kc, m0, rows, T *panel)  packs rows [m0, m0+rows) (rows <= Mr)
///                                      of the k block into a panel of
///                                      kGemmMr * paddedDepth(kc) elements
///                                      (every panel once per k block).
///   packB(k0, kc, n0, cols, T *panel)  packs columns [n0, n0+cols)
///                                      (cols <= Nr) into kGemmNr *
///                                      paddedDepth(kc) elements.
///   tile(k0, kc, m0, rows, n0, cols, const T *aPanel, const T *bPanel)
///                                      computes one micro-tile.
template <class T, class PackA, class PackB, class Tile>
void blockedGemm(int64_t m, int64_t n, int64_t k, PackA &&packA, PackB &&packB,
                 Tile &&tile, int64_t kBlock = kGemmKc) {
  const int64_t panelDepth = paddedDepth(std::min(k, kBlock));
  const int64_t maxBPanels = (std::min(n, kGemmNc) + kGemmNr - 1) / kGemmNr;
  const int64_t numAPanels = (m + kGemmMr - 1) / kGemmMr;
  const int64_t bPanelSize = kGemmNr * panelDepth;
  const int64_t aPanelSize = kGemmMr * panelDepth;
  T *const bPacked =
      threadScratch<T, ScratchSlot::kPackedB>(maxBPanels * bPanelSize);
  T *const aPacked =
      threadScratch<T, ScratchSlot::kPackedA>(numAPanels * aPanelSize);

  for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
    const int64_t kc = std::min(kBlock, k - k0);
    for (int64_t nb = 0; nb < n; nb += kGemmNc) {
      const int64_t nc = std::min(kGemmNc, n - nb);
      const int64_t bPanels = (nc + kGemmNr - 1) / kGemmNr;
      for (int64_t jp = 0; jp < bPanels; ++jp) {
        const int64_t n0 = nb + jp * kGemmNr;
        packB(k0, kc, n0, std::min<int64_t>(kGemmNr, n - n0),
              bPacked + jp * bPanelSize);
      }
      // Row blocks of kGemmMc keep their A panels in L2 while every B panel
      // of the block streams through L1.
      for (int64_t mb = 0; mb < numAPanels; mb += kGemmMc / kGemmMr) {
        const int64_t mbEnd = std::min(numAPanels, mb + kGemmMc / kGemmMr);
        // A is packed once per k block, right before its first use (so it
        // is still in L2), and reused for the following B blocks.
        if (nb == 0)
          for (int64_t ip = mb; ip < mbEnd; ++ip) {
            const int64_t m0 = ip * kGemmMr;
            packA(k0, kc, m0, std::min<int64_t>(kGemmMr, m - m0),
                  aPacked + ip * aPanelSize);
          }
        for (int64_t jp = 0; jp < bPanels; ++jp) {
          const int64_t n0 = nb + jp * kGemmNr;
          const int64_t cols = std::min<int64_t>(kGemmNr, n - n0);
          for (int64_t ip = mb; ip < mbEnd; ++ip) {
            const int64_t m0 = ip * kGemmMr;
            tile(k0, kc, m0, std::min<int64_t>(kGemmMr, m - m0), n0, cols,
                 aPacked + ip * aPanelSize, bPacked + jp * bPanelSize);
          }
        }
      }
    }
  }
}

} // namespace mixrt::detail

#endif // MIXRT_LIB_GEMM_COMMON_H
