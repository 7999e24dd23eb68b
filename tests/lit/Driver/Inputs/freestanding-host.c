/* Freestanding models on the host (Driver/freestanding.test): the header
 * includes only mixrt/core.h and declares only the workspace entries; linked
 * with libmixrt_core.a alone (no Abseil, no C++). A failing check is read
 * from the core's record: what the hosted mixrt formats into
 * mixrt_last_error_message(). */
#include <stdio.h>

#include "tiny.h"

static _Alignas(64) unsigned char tinyWorkspace[tiny_WORKSPACE_SIZE];
static _Alignas(64) unsigned char halfWorkspace[half_WORKSPACE_SIZE];

int main(void) {
  const float image[2][4] = {{1, 2, 3, 4}, {-1, 0.5f, -2, 1}};
  const float target[2][3] = {{0, 0, 0}, {0, 0, 0}};
  float probs[2][3], loss;
  mixrt_status_code a = tiny_run_with_workspace(image[0], target[0], probs[0],
                                                &loss, tinyWorkspace);
  printf("tiny: %s: %g %g %g | %g %g %g, loss %g\n", mixrt_status_code_name(a),
         probs[0][0], probs[0][1], probs[0][2], probs[1][0], probs[1][1],
         probs[1][2], loss);
  printf("record after success: %s\n",
         mixrt_check_first_failure() ? "set" : "NULL");

  const float big[4] = {1, -2, 1e6f, 3e6f};
  float h[4];
  mixrt_status_code b = half_run_with_workspace(big, h, halfWorkspace);
  const mixrt_check_record *r = mixrt_check_first_failure();
  printf("half(big): %s, failures %lld\n", mixrt_status_code_name(b),
         (long long)mixrt_check_failure_count());
  if (r)
    printf("record: %s: %s at element %lld (value %g), code %s, count %lld\n",
           r->location, r->what, (long long)r->index, r->value,
           mixrt_status_code_name(r->code), (long long)r->count);
  mixrt_check_reset();
  printf("after reset: %s, %lld\n",
         mixrt_check_first_failure() ? "set" : "NULL",
         (long long)mixrt_check_failure_count());
  printf("misaligned workspace: %s\n",
         mixrt_status_code_name(
             half_run_with_workspace(big, h, halfWorkspace + 1)));
  return 0;
}
