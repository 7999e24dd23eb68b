/* The entry points of networks with a dynamic batch
 * (tests/lit/Driver/dynamic-batch.test): a batch of 5 gives the bits of 5
 * calls with one sample; NAME_run_with_workspace makes no heap call for any
 * batch (malloc and friends interposed and counted) and NAME_run exactly one
 * malloc and one free; batch 0 computes nothing, a negative batch is
 * INVALID_ARGUMENT. Prints the outputs as `mix-run` does, for the test to
 * compare. */
#define _GNU_SOURCE
#include "dyn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count-heap.h"

enum { kBatch = 5 };

static void print(const char *network, const float *y, int batch, int rank,
                  int rows, int cols) {
  int s, i;
  for (s = 0; s < batch; ++s) {
    printf("%s sample %d output 0 ", network, s);
    if (rank == 2)
      printf("[1, %d]:", cols);
    else
      printf("[1, %d, %d]:", rows, cols);
    for (i = 0; i < rows * cols; ++i)
      printf(" %.9g", y[s * rows * cols + i]);
    printf("\n");
  }
}

int main(void) {
  /* 5 samples of [4]; multiples of 1/4. */
  const float x[kBatch][4] = {{1, 2, 3, 4},
                              {-1, 0.5f, -2, 1},
                              {0.25f, -0.75f, 2, -3},
                              {8, 0, -4, 0.5f},
                              {-2, -2, 1.5f, 6}};
  const float bias[3] = {0.5f, -1, 0.25f};
  float y[kBatch][3], one[kBatch][3];
  /* @q: 5 samples of [2, 4]; different ranges, so different scales. */
  float qx[kBatch][2][4], qy[kBatch][2][3], qone[kBatch][2][3];
  static _Alignas(64) unsigned char ws[exact_WORKSPACE_SIZE + 64];
  static _Alignas(64) unsigned char qws[q_WORKSPACE_SIZE + 64];
  mixrt_status_code status;
  int s, i, j, same;

  for (s = 0; s < kBatch; ++s)
    for (i = 0; i < 2; ++i)
      for (j = 0; j < 4; ++j)
        qx[s][i][j] = (float)((s + 1) * (i * 4 + j - 3)) / (float)(s * s + 1);

  /* The first mixrt call of the thread may set up its check state. */
  mixrt_check_reset();

  counting = 1;
  status = exact_run_with_workspace(kBatch, &x[0][0], bias, &y[0][0], ws);
  counting = 0;
  printf("exact: batch %d: %s, heap calls %ld\n", kBatch,
         mixrt_status_code_name(status), heapCalls);
  same = 1;
  for (s = 0; s < kBatch; ++s) {
    status = exact_run_with_workspace(1, x[s], bias, one[s], ws);
    same &= status == MIXRT_STATUS_OK;
  }
  printf("exact: batch %d %s %d calls with one sample\n", kBatch,
         same && memcmp(y, one, sizeof y) == 0 ? "equals" : "DIFFERS FROM",
         kBatch);
  print("exact", &y[0][0], kBatch, 2, 1, 3);

  heapCalls = 0;
  counting = 1;
  status = q_run_with_workspace(kBatch, &qx[0][0][0], &qy[0][0][0], qws);
  counting = 0;
  printf("q: batch %d: %s, heap calls %ld\n", kBatch,
         mixrt_status_code_name(status), heapCalls);
  same = 1;
  for (s = 0; s < kBatch; ++s) {
    status = q_run(1, &qx[s][0][0], &qone[s][0][0]);
    same &= status == MIXRT_STATUS_OK;
  }
  printf("q: batch %d %s %d calls with one sample\n", kBatch,
         same && memcmp(qy, qone, sizeof qy) == 0 ? "equals" : "DIFFERS FROM",
         kBatch);
  print("q", &qy[0][0][0], kBatch, 3, 2, 3);

  /* NAME_run: one workspace for the whole batch. */
  memset(qone, 0, sizeof qone);
  heapCalls = 0;
  counting = 1;
  status = q_run(kBatch, &qx[0][0][0], &qone[0][0][0]);
  counting = 0;
  printf("q_run: batch %d: %s, heap calls %ld, %s\n", kBatch,
         mixrt_status_code_name(status), heapCalls,
         memcmp(qy, qone, sizeof qy) == 0 ? "same bits" : "DIFFERENT BITS");

  /* Batch 0 writes nothing; a negative batch is refused. */
  memset(one, 0x7f, sizeof one);
  status = exact_run(0, &x[0][0], bias, &one[0][0]);
  printf("batch 0: %s, output %s\n", mixrt_status_code_name(status),
         one[0][0] == y[0][0] ? "WRITTEN" : "untouched");
  status = exact_run_with_workspace(-1, &x[0][0], bias, &one[0][0], ws);
  printf("batch -1: %s\n", mixrt_status_code_name(status));
  return 0;
}
