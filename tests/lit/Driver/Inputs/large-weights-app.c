/* Runs the 17000 x 17000 dense of large-weights.mlir on x = 1: every output
 * is 17000 * 0.5 = 8500 exactly. */
#include "big.h"

#include <stdio.h>

static float x[17000], y[17000];

int main(void) {
  for (int i = 0; i < 17000; ++i)
    x[i] = 1.0f;
  mixrt_status_code status = big_run(x, y);
  int wrong = 0;
  for (int i = 0; i < 17000; ++i)
    wrong += y[i] != 8500.0f;
  printf("status %d, y[0] %g, y[16999] %g, %d outputs not 8500\n", (int)status,
         y[0], y[16999], wrong);
  return status != MIXRT_STATUS_OK || wrong != 0;
}
