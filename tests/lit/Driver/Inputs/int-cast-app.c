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
  return 0;
}
