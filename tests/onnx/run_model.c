/* Runs a model mixc compiled from an ONNX file, on one float input read from
 * a raw little-endian f32 file, and prints its one output as
 * compare_outputs.py reads it. Compiled per model with
 *   -DMODEL_H='"m.h"' -DRUN(in,out)=... -DIN_COUNT=N -DOUT_COUNT=M
 *   -DOUT_SHAPE='"3, 4"'
 */
#include MODEL_H

#include <stdio.h>

static float input[IN_COUNT], output[OUT_COUNT];

int main(int argc, char **argv) {
  FILE *f;
  int i;
  mixrt_status_code status;
  if (argc != 2 || !(f = fopen(argv[1], "rb")))
    return 2;
  if (fread(input, sizeof(float), IN_COUNT, f) != IN_COUNT)
    return 2;
  fclose(f);
  status = RUN(input, output);
  if (status != 0) {
    printf("status %d\n", (int)status);
    return 1;
  }
  printf("output 0 [%s]:", OUT_SHAPE);
  for (i = 0; i < OUT_COUNT; ++i)
    printf(" %.9g", output[i]);
  printf("\n");
  return 0;
}
