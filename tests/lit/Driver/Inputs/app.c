/* Calls the networks mixc compiled from tiny.mlir and external.mlir through
 * their generated headers (both included: the descriptor types are shared).
 */
#include "ext.h"
#include "tiny.h"

#include <stdio.h>

int main(void) {
  const float image[2][4] = {{1, 2, 3, 4}, {-1, 0.5f, -2, 1}};
  const float target[2][3] = {{0}};
  float probs[2][3], loss = -1, out[2][3];
  int i, j;

  mixrt_status_code status =
      tiny_run(&image[0][0], &target[0][0], &probs[0][0], &loss);
  printf("tiny: status %d\n", (int)status);
  for (i = 0; i < 2; ++i)
    printf("probs[%d] = %g %g %g\n", i, probs[i][0], probs[i][1], probs[i][2]);
  printf("loss = %.6g\n", loss);

  status = ext_run(&image[0][0], &out[0][0]);
  printf("ext: status %d\n", (int)status);
  for (i = 0; i < 2; ++i)
    for (j = 0; j < 3; ++j)
      if (out[i][j] != probs[i][j])
        printf("ext differs at [%d][%d]: %g\n", i, j, out[i][j]);

  /* 1e6 overflows the checked cast into the f16 block. */
  {
    const float big[4] = {1, -2, 1e6f, 3};
    const float small[4] = {1, -2, 0.5f, 3};
    float h[4];
    status = half_run(big, h);
    printf("half(big): %s: %s\n", mixrt_status_code_name(status),
           mixrt_last_error_message());
    status = half_run(small, h);
    printf("half(small): %s: %g %g %g %g\n", mixrt_status_code_name(status),
           h[0], h[1], h[2], h[3]);
  }
  return 0;
}
