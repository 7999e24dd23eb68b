/* embed-app: a C program that embeds the edge INT8 classifier compiled by
 * mixc (see CMakeLists.txt: mixc_add_model) and prints its class
 * probabilities for one image. */
#include "edge_int8.h"

#include <stdio.h>

int main(void) {
  /* The image: exact multiples of 1/16 (make_data.py writes the same one). */
  static float image[1 * 1 * 28 * 28];
  for (int y = 0; y < 28; ++y)
    for (int x = 0; x < 28; ++x)
      image[y * 28 + x] = (float)((x * 7 + y * 13) % 17) / 16.0f;

  float probs[1 * 10];
  mixrt_status_code status = edge_run(image, probs);
  if (status != MIXRT_STATUS_OK) {
    fprintf(stderr, "edge_run failed: %s: %s\n", mixrt_status_code_name(status),
            mixrt_last_error_message());
    return 1;
  }
  int best = 0;
  printf("probabilities:");
  for (int i = 0; i < 10; ++i) {
    printf(" %.9g", probs[i]);
    if (probs[i] > probs[best])
      best = i;
  }
  printf("\nclass: %d\n", best);
  return 0;
}
