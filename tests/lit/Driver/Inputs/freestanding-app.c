/* A bare-metal application of two freestanding models (Driver/
 * freestanding.test): static workspaces, no C library, no heap; a failed
 * check is read from mixrt's core. Compiled with -ffreestanding for a
 * Cortex-M7 and for AArch64 Linux. With -DNO_CHECKS (models compiled with
 * --no-checks) it calls nothing from mixrt. */
#include "edge.h"
#include "mlp.h"

static _Alignas(64) unsigned char edgeWorkspace[edge_WORKSPACE_SIZE];
static _Alignas(64) unsigned char mlpWorkspace[mlp_WORKSPACE_SIZE];

/* 0 on success, else the flat index + 1 of the first failed check's element
 * (-1 for a status without a check record). */
int64_t app_classify(const float *image, float *probs, const float *x,
                     float *s) {
  mixrt_status_code status =
      edge_run_with_workspace(image, probs, edgeWorkspace);
  if (status == MIXRT_STATUS_OK)
    status = mlp_run_with_workspace(x, s, mlpWorkspace);
  if (status == MIXRT_STATUS_OK)
    return 0;
#ifdef NO_CHECKS
  return -1;
#else
  const mixrt_check_record *record = mixrt_check_first_failure();
  return record ? record->index + 1 : -1;
#endif
}
