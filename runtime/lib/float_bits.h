//===-- float_bits.h - IEEE rounding core of mixrt --------------*- C++ -*-===//
//
// The single rounding core shared by every narrowing conversion of mixrt
// (scalar, bulk portable, reduced-GEMM operand packing, optimizer copies):
// f32/f64 -> f16/bf16 with round-to-nearest-even computed from the exact
// source bits, and the exact widening f16/bf16 -> f32/f64.
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_LIB_FLOAT_BITS_H
#define MIXRT_LIB_FLOAT_BITS_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mixrt::detail {

template <class To, class From> inline To bitCast(const From &from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

/// IEEE binary16.
struct F16Format {
  static constexpr int kMantBits = 10;
  static constexpr int kExpBits = 5;
  /// Value of the least significant mantissa bit of a subnormal.
  static constexpr double kSubnormalUlp = 0x1p-24;
};

/// bfloat16 (the top half of an f32).
struct BF16Format {
  static constexpr int kMantBits = 7;
  static constexpr int kExpBits = 8;
  static constexpr double kSubnormalUlp = 0x1p-133;
};

/// The wide source/destination formats.
template <class T> struct WideFormat;
template <> struct WideFormat<float> {
  using Bits = uint32_t;
  static constexpr int kMantBits = 23;
  static constexpr int kExpBits = 8;
};
template <> struct WideFormat<double> {
  using Bits = uint64_t;
  static constexpr int kMantBits = 52;
  static constexpr int kExpBits = 11;
};

/// Rounds the positive value `sig * 2^exp` (sig != 0, sig < 2^62) to the
/// 16-bit format `Fmt` with round-to-nearest-even and ORs in `sign`.
/// Overflow gives +-inf, tiny values give subnormals or zero.
template <class Fmt>
inline uint16_t roundToNarrow(uint16_t sign, uint64_t sig, int exp) {
  constexpr int kBias = (1 << (Fmt::kExpBits - 1)) - 1;
  // Exponent of the quantum (ulp) of the subnormals and of the smallest
  // binade of normals.
  constexpr int kMinQuantumExp = 1 - kBias - Fmt::kMantBits;
  constexpr uint32_t kInf = ((1u << Fmt::kExpBits) - 1) << Fmt::kMantBits;

  const int top = exp + (63 - __builtin_clzll(sig)); // floor(log2(value))
  if (top > kBias)
    return static_cast<uint16_t>(sign | kInf);
  const int quantumExp = top - Fmt::kMantBits > kMinQuantumExp
                             ? top - Fmt::kMantBits
                             : kMinQuantumExp;
  const int shift = quantumExp - exp;
  uint64_t m;
  if (shift <= 0) {
    m = sig << -shift; // Exact: the source is no wider than the target here.
  } else if (shift >= 63) {
    m = 0; // value < 2^-1 quantum since sig < 2^62: rounds to zero.
  } else {
    m = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (m & 1)))
      ++m;
  }
  // For normals (m has its implicit bit at kMantBits) the implicit bit adds
  // one to the biased exponent (quantumExp - kMinQuantumExp); a carry out of
  // the mantissa rolls into the exponent and at the top into inf.
  const uint32_t bits =
      (static_cast<uint32_t>(quantumExp - kMinQuantumExp) << Fmt::kMantBits) +
      static_cast<uint32_t>(m);
  return static_cast<uint16_t>(sign | (bits < kInf ? bits : kInf));
}

/// Narrows f32/f64 `x` to `Fmt` (RNE, one rounding). NaNs become quiet NaNs
/// keeping the sign and the top payload bits.
template <class Fmt, class T> inline uint16_t narrow(T x) {
  using W = WideFormat<T>;
  using Bits = typename W::Bits;
  constexpr int kWideBits = 8 * sizeof(T);
  constexpr Bits kMantMask = (Bits{1} << W::kMantBits) - 1;
  constexpr Bits kExpMax = (Bits{1} << W::kExpBits) - 1;
  constexpr int kWideBias = static_cast<int>(kExpMax >> 1);
  constexpr uint32_t kInf = ((1u << Fmt::kExpBits) - 1) << Fmt::kMantBits;
  constexpr uint32_t kQuiet = 1u << (Fmt::kMantBits - 1);

  const Bits bits = bitCast<Bits>(x);
  const uint16_t sign =
      static_cast<uint16_t>((bits >> (kWideBits - 16)) & 0x8000u);
  const Bits biasedExp = (bits >> W::kMantBits) & kExpMax;
  const Bits mant = bits & kMantMask;
  if (biasedExp == kExpMax) {
    if (mant == 0)
      return static_cast<uint16_t>(sign | kInf);
    return static_cast<uint16_t>(
        sign | kInf | kQuiet |
        static_cast<uint32_t>(mant >> (W::kMantBits - Fmt::kMantBits)));
  }
  if (biasedExp == 0) {
    if (mant == 0)
      return sign;
    return roundToNarrow<Fmt>(sign, mant, 1 - kWideBias - W::kMantBits);
  }
  // Fast path, same result as roundToNarrow: a source whose exponent is in
  // the target's normal range. Rebias the exponent in place, then RNE on the
  // dropped bits: adding (half - 1) + lsb carries exactly when they exceed
  // half or equal it with an odd kept part; a carry out of the mantissa
  // increments the exponent, up to the infinity encoding.
  constexpr int kBias = (1 << (Fmt::kExpBits - 1)) - 1;
  constexpr int kShift = W::kMantBits - Fmt::kMantBits;
  const int exp = static_cast<int>(biasedExp) - kWideBias;
  if (exp >= 1 - kBias && exp <= kBias) {
    const Bits magnitude = bits & ((Bits{1} << (kWideBits - 1)) - 1);
    const Bits rebased =
        magnitude - (static_cast<Bits>(kWideBias - kBias) << W::kMantBits);
    const Bits rounded = (rebased + ((Bits{1} << (kShift - 1)) - 1) +
                          ((rebased >> kShift) & 1)) >>
                         kShift;
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(rounded));
  }
  return roundToNarrow<Fmt>(sign, mant | (Bits{1} << W::kMantBits),
                            static_cast<int>(biasedExp) - kWideBias -
                                W::kMantBits);
}

/// Widens the `Fmt` bits `h` to f32/f64 exactly; NaNs are quieted (payload
/// shifted to the top, sign kept).
template <class Fmt, class T> inline T widen(uint16_t h) {
  using W = WideFormat<T>;
  using Bits = typename W::Bits;
  constexpr int kWideBits = 8 * sizeof(T);
  constexpr int kShift = W::kMantBits - Fmt::kMantBits;
  constexpr uint32_t kMantMask = (1u << Fmt::kMantBits) - 1;
  constexpr uint32_t kExpMax = (1u << Fmt::kExpBits) - 1;
  constexpr int kBias = static_cast<int>(kExpMax >> 1);
  constexpr int kWideBias = (1 << (W::kExpBits - 1)) - 1;
  constexpr Bits kWideInf = ((Bits{1} << W::kExpBits) - 1) << W::kMantBits;
  constexpr Bits kWideQuiet = Bits{1} << (W::kMantBits - 1);

  const Bits sign = static_cast<Bits>(h & 0x8000u) << (kWideBits - 16);
  const uint32_t biasedExp = (h >> Fmt::kMantBits) & kExpMax;
  const uint32_t mant = h & kMantMask;
  if (biasedExp == kExpMax) {
    Bits out = sign | kWideInf | (static_cast<Bits>(mant) << kShift);
    if (mant != 0)
      out |= kWideQuiet;
    return bitCast<T>(out);
  }
  if (biasedExp == 0) {
    // Zero or subnormal: mant * ulp is exact in T (also when it is a
    // subnormal of T, as for bf16 -> f32).
    const T magnitude =
        static_cast<T>(mant) * static_cast<T>(Fmt::kSubnormalUlp);
    return bitCast<T>(sign | bitCast<Bits>(magnitude));
  }
  const Bits wideExp =
      static_cast<Bits>(static_cast<int>(biasedExp) - kBias + kWideBias);
  return bitCast<T>(sign | (wideExp << W::kMantBits) |
                    (static_cast<Bits>(mant) << kShift));
}

/// True if the 16-bit pattern of `Fmt` is inf or NaN.
template <class Fmt> inline bool isNonFinite16(uint16_t h) {
  constexpr uint32_t kInf = ((1u << Fmt::kExpBits) - 1) << Fmt::kMantBits;
  return (h & 0x7fffu) >= kInf;
}

} // namespace mixrt::detail

#endif // MIXRT_LIB_FLOAT_BITS_H
