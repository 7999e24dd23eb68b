/* NAME_run_with_workspace() makes no heap call, reads and writes only its
 * workspace, and computes what NAME_run() computes, bit for bit.
 *
 * malloc and friends are interposed (the executable's definitions win over
 * glibc's for every caller: the object, mixrt, libstdc++) and counted
 * around each call. The workspace is placed so that it ends at a
 * PROT_NONE guard page and starts right after another one: a write or read
 * past either end faults. */
#define _GNU_SOURCE
#include "tiny.h"
#include "wsint8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "count-heap.h"

/* `size` bytes (a multiple of 64) between two guard pages. */
static void *guarded(size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t body = (size + page - 1) / page * page;
  char *base = mmap(NULL, body + 2 * page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return NULL;
  mprotect(base, page, PROT_NONE);
  mprotect(base + page + body, page, PROT_NONE);
  /* Ends at the upper guard page; at least 64-byte aligned. */
  return base + page + body - size;
}

static int failures;
static void check(int ok, const char *what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

int main(void) {
  const float image[2][4] = {{1, 2, 3, 4}, {-1, 0.5f, -2, 1}};
  const float target[2][3] = {{0, 0, 0}, {0, 0, 0}};
  float probs[2][3], loss, probs2[2][3], loss2;
  void *ws = guarded(tiny_WORKSPACE_SIZE);
  check(ws != NULL, "guarded workspace");
  check(tiny_workspace_size() == tiny_WORKSPACE_SIZE, "size function");

  /* The first mixrt call of a thread sets up its thread-local check state
   * (glibc allocates the destructor record of a C++ thread_local once per
   * thread): counted separately. */
  counting = 1;
  heapCalls = 0;
  mixrt_check_reset();
  counting = 0;
  printf("first mixrt call of the thread: heap calls %ld\n", heapCalls);

  counting = 1;
  heapCalls = 0;
  mixrt_status_code a =
      tiny_run_with_workspace(image[0], target[0], probs[0], &loss, ws);
  mixrt_status_code b =
      tiny_run_with_workspace(image[0], target[0], probs[0], &loss, ws);
  counting = 0;
  printf("tiny with workspace: status %d %d, heap calls %ld\n", (int)a, (int)b,
         heapCalls);

  counting = 1;
  heapCalls = 0;
  mixrt_status_code c = tiny_run(image[0], target[0], probs2[0], &loss2);
  counting = 0;
  printf("tiny_run: status %d, heap calls %ld\n", (int)c, heapCalls);
  check(memcmp(probs, probs2, sizeof probs) == 0 &&
            memcmp(&loss, &loss2, sizeof loss) == 0,
        "tiny: same bits with and without a workspace");

  /* The checked cast of the f16 block fails the same way through both. */
  const float big[4] = {1, -2, 1e6f, 3};
  float h[4];
  void *hws = guarded(half_WORKSPACE_SIZE);
  counting = 1;
  heapCalls = 0;
  mixrt_status_code d = half_run_with_workspace(big, h, hws);
  counting = 0;
  printf("half(big) with workspace: %s, heap calls %ld\n",
         mixrt_status_code_name(d), heapCalls);

  /* int8: quantize, integer GEMM, rescale. */
  const float x[2] = {0.75f, -1.5f};
  float y[2], y2[2];
  void *qws = guarded(static_WORKSPACE_SIZE);
  counting = 1;
  heapCalls = 0;
  mixrt_status_code e = static_run_with_workspace(x, y, qws);
  counting = 0;
  printf("int8 with workspace: status %d, heap calls %ld\n", (int)e, heapCalls);
  check(static_run(x, y2) == MIXRT_STATUS_OK && memcmp(y, y2, sizeof y) == 0,
        "int8: same bits with and without a workspace");

  /* Bad workspaces are refused before anything runs. */
  if (tiny_WORKSPACE_SIZE != 0) {
    printf("NULL workspace: %s\n",
           mixrt_status_code_name(tiny_run_with_workspace(
               image[0], target[0], probs[0], &loss, NULL)));
    printf("misaligned workspace: %s\n",
           mixrt_status_code_name(tiny_run_with_workspace(
               image[0], target[0], probs[0], &loss, (char *)ws + 1)));
  }
  return failures != 0;
}
