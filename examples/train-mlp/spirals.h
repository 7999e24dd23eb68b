/* The two-spirals task of examples/train-mlp: 48 points per class on two
 * interleaved spirals (radius 0.15 to 1, 1.75 pi of angle), class 0 then
 * class 1. Computed in double and rounded once to float, so the training
 * and the check programs see the same points. */
#ifndef SPIRALS_H
#define SPIRALS_H

#include <math.h>
#include <stdint.h>

#define SPIRAL_POINTS 96

static void make_spirals(float x[SPIRAL_POINTS][2], int32_t y[SPIRAL_POINTS]) {
  const double pi = 3.14159265358979323846;
  int c, i;
  for (c = 0; c < 2; ++c)
    for (i = 0; i < SPIRAL_POINTS / 2; ++i) {
      int k = c * (SPIRAL_POINTS / 2) + i;
      double r = 0.15 + 0.85 * i / (SPIRAL_POINTS / 2);
      double angle = 1.75 * pi * i / (SPIRAL_POINTS / 2) + c * pi;
      x[k][0] = (float)(r * cos(angle));
      x[k][1] = (float)(r * sin(angle));
      y[k] = c;
    }
}

#endif
