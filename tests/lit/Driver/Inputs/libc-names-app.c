/* Calls the networks of libc-names.mlir next to the C library functions
 * they are named after, which the app (and the generated code) still use. */
#include "libc-names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print(const char *name, mixrt_status_code status, const float *y) {
  printf("%s: status %d: %g %g %g %g\n", name, (int)status, y[0], y[1], y[2],
         y[3]);
}

int main(void) {
  /* Softmax rows of relu([[0, -3], [1, 1]]) = [[0, 0], [1, 1]]: 0.5 each,
   * exactly. */
  const float x[4] = {0.0f, -3.0f, 1.0f, 1.0f};
  float *y = malloc(4 * sizeof(float));
  if (!y)
    return 1;
  print("malloc", malloc_run(x, y), y);
  print("free", free_run(x, y), y);
  print("expf", expf_run(x, y), y);
  print("logf", logf_run(x, y), y);
  print("memcpy", memcpy_run(x, y), y);
  float copy[4];
  memcpy(copy, y, sizeof copy);
  printf("libc: expf(0) = %g, logf(1) = %g, memcpy %g\n", expf(0.0f),
         logf(1.0f), copy[2]);
  free(y);
  return 0;
}
