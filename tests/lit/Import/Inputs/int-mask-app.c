/* Runs int_mask.onnx compiled by mixc (tests/lit/Import/int-mask.test) on
 * the inputs of make_models.py's int_mask and prints its four outputs as
 * compare_outputs.py reads them. */
#include "int_mask.h"

#include <stdio.h>

int main(void) {
  const float scores[8] = {0.5f, -1.25f, 2.0f, 3.0f, 1.5f, -0.75f, 0.25f, 4.0f};
  const int64_t mask[8] = {1, 1, 0, 2, 1, -3, 1, 0};
  const int32_t ids[8] = {0, 5, 2, 1, 3, 2, -7, 1};
  /* 2^24 + 1, 2^24 + 3, -(2^24 + 5), 2^40 + 2^16 + 1, 2^62 + 2^38 + 2^10,
   * -(2^62 + 2^38) (exact doubles, so mix-run reads them too) */
  const int64_t big[8] = {16777217,
                          16777219,
                          -16777221,
                          1099511693313LL,
                          4611686293305295872LL,
                          -4611686293305294848LL,
                          123456789,
                          0};
  float out[4][8];
  int i, j;
  mixrt_status_code status =
      int_mask_run(scores, mask, ids, big, out[0], out[1], out[2], out[3]);
  if (status != 0) {
    printf("status %d\n", (int)status);
    return 1;
  }
  for (i = 0; i < 4; ++i) {
    printf("output %d [2, 4]:", i);
    for (j = 0; j < 8; ++j)
      printf(" %.9g", out[i][j]);
    printf("\n");
  }
  return 0;
}
