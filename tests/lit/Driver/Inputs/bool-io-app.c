/* Runs bool-io.mlir's network from C (Driver/bool-io.test): bool buffers in
 * and out, C's bool (one byte, 0 or 1). */
#include "bool-io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  float a[6] = {-1.0f, 2.0f, -0.0f, 0.5f, -3.0f, NAN};
  bool m[6] = {true, true, false, false, true, false};
  bool x[6], n[6];
  float y[6];
  /* All-ones bytes: an element the code does not write shows. */
  memset(x, 0xff, sizeof x);
  memset(n, 0xff, sizeof n);
  mixrt_status_code s = masks_run(a, m, x, y, n);
  printf("status: %d\n", (int)s);
  printf("x:");
  for (int i = 0; i < 6; ++i)
    printf(" %d", (int)*(unsigned char *)&x[i]);
  printf("\ny:");
  for (int i = 0; i < 6; ++i)
    printf(isnan(y[i]) ? " nan" : " %g", (double)y[i]);
  printf("\nn:");
  for (int i = 0; i < 6; ++i)
    printf(" %d", (int)*(unsigned char *)&n[i]);
  printf("\n");
  return s == MIXRT_STATUS_OK ? 0 : 1;
}
