/* The inference build of spiral.mlir with the trained weights
 * (`mixc --entry=classify --weights=trained.safetensors`): prints the
 * accuracy on the spirals and fails below MIN_ACCURACY (default 0.95).
 *
 *   check [MIN_ACCURACY]
 */
#include "spiral.h" /* of the inference build: @classify only */
#include "spirals.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  static float x[SPIRAL_POINTS][2], logits[SPIRAL_POINTS][2];
  static int32_t y[SPIRAL_POINTS];
  double min_accuracy = argc > 1 ? atof(argv[1]) : 0.95, accuracy;
  int i, correct = 0;
  make_spirals(x, y);
  if (classify_run(&x[0][0], &logits[0][0]) != MIXRT_STATUS_OK) {
    fprintf(stderr, "classify: %s\n", mixrt_last_error_message());
    return 1;
  }
  for (i = 0; i < SPIRAL_POINTS; ++i)
    correct += (logits[i][1] > logits[i][0]) == (y[i] == 1);
  accuracy = (double)correct / SPIRAL_POINTS;
  printf("inference build: %d of %d points classified correctly (%.1f%%)\n",
         correct, SPIRAL_POINTS, 100.0 * accuracy);
  return accuracy >= min_accuracy ? 0 : 1;
}
