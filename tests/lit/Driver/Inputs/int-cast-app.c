/* Runs the networks of int-cast.mlir on integers whose conversions round
 * (tests/lit/Driver/int-cast.test) and prints every result exactly: f32 and
 * f64 with 17 significant digits, f16 and bf16 as their bit patterns. */
#include "int-cast.h"

#include <stdio.h>

int main(void) {
  /* 2^24 + 1, 2^53 + 2^29 + 1, INT64_MIN, INT64_MAX, -3, 2^24 + 2^16 + 1 */
  const int64_t a[6] = {16777217,
                        9007199791611905LL,
                        -9223372036854775807LL - 1,
                        9223372036854775807LL,
                        -3,
                        16842753};
  const int32_t b[4] = {65504, 65519, 65520, -70000};
  const int8_t c[4] = {-1, 127, -128, 0};
  float a32[6], cu[4], sel[6];
  uint16_t abf[6], b16[4], h[4];
  double cs[4];
  int i;
  mixrt_status_code status = intcast_run(a, b, c, a32, abf, b16, cu, cs, sel);
  printf("intcast: %s\n", mixrt_status_code_name(status));
  printf("f32:");
  for (i = 0; i < 6; ++i)
    printf(" %.17g", a32[i]);
  printf("\nbf16:");
  for (i = 0; i < 6; ++i)
    printf(" 0x%04x", abf[i]);
  printf("\nf16:");
  for (i = 0; i < 4; ++i)
    printf(" 0x%04x", b16[i]);
  printf("\nunsigned:");
  for (i = 0; i < 4; ++i)
    printf(" %.17g", cu[i]);
  printf("\nsigned:");
  for (i = 0; i < 4; ++i)
    printf(" %.17g", cs[i]);
  printf("\nwhere:");
  for (i = 0; i < 6; ++i)
    printf(" %.17g", sel[i]);
  printf("\n");
  {
    const int32_t fits[4] = {1, -2048, 65519, 2051};
    status = checked_run(b, h);
    printf("checked(b): %s: %s\n", mixrt_status_code_name(status),
           mixrt_last_error_message());
    status = checked_run(fits, h);
    printf("checked(fits): %s: 0x%04x 0x%04x 0x%04x 0x%04x\n",
           mixrt_status_code_name(status), h[0], h[1], h[2], h[3]);
  }
  {
    /* -(2^24 + 2^16 + 1), 2^24 + 2^16 + 1, -(2^62 + 2^54 + 1),
     * 2^62 + 2^54 (a tie: to even), INT64_MAX, INT64_MIN, 257 (a tie),
     * -2049 */
    const int64_t ta[8] = {-16842753LL,
                           16842753LL,
                           -4629700416936869889LL,
                           4629700416936869888LL,
                           9223372036854775807LL,
                           -9223372036854775807LL - 1,
                           257,
                           -2049};
    /* INT32_MAX, INT32_MIN, 383 and 385 (ties), -65521, 65519 */
    const int32_t tb[8] = {-16842753, 16842753, 2147483647, -2147483647 - 1,
                           383,       385,      -65521,     65519};
    uint16_t x[8], y[8], z[8];
    status = ties_run(ta, tb, x, y, z);
    printf("ties: %s\n", mixrt_status_code_name(status));
    printf("i64 bf16:");
    for (i = 0; i < 8; ++i)
      printf(" 0x%04x", x[i]);
    printf("\ni32 bf16:");
    for (i = 0; i < 8; ++i)
      printf(" 0x%04x", y[i]);
    printf("\ni64 f16:");
    for (i = 0; i < 8; ++i)
      printf(" 0x%04x", z[i]);
    printf("\n");
  }
  return 0;
}
