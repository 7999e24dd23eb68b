/*===- main.c - a C application built with pkg-config's mixrt flags ------===*\
|*                                                                            *|
|* Part of the mixc project.                                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Built by tests/package/run-cxx-app.sh against an installed mixc with
 *   cc main.c tiny.o $(pkg-config --cflags --libs mixrt) -lm
 * (tiny.o and tiny.h: the installed mixc compiling cxx-app/tiny.mlir).
 * Checks that the header and the library agree on the ABI version and that
 * the compiled network computes the expected values. Prints
 * "pkg-config-app: ok" when every check holds. */

#include <mixrt/mixrt.h>
#include <stdio.h>

#include "tiny.h"

int main(void) {
  if (mixrt_api_version() != MIXRT_API_VERSION) {
    fprintf(stderr, "mixrt_api_version() = %d, mixrt.h says %d\n",
            (int)mixrt_api_version(), MIXRT_API_VERSION);
    return 1;
  }
  const float image[8] = {1, 2, 3, 4, -1, 0.5f, -2, 1};
  const float want[6] = {2.75f, 0, 10.25f, 1.125f, 0, 0};
  float probs[6] = {0};
  mixrt_status_code status = tiny_run(image, probs);
  if (status != MIXRT_STATUS_OK) {
    fprintf(stderr, "tiny_run: %s: %s\n", mixrt_status_code_name(status),
            mixrt_last_error_message());
    return 1;
  }
  int failures = 0;
  for (int i = 0; i < 6; ++i) {
    if (probs[i] != want[i]) {
      fprintf(stderr, "probs[%d] = %.9g, expected %.9g\n", i, probs[i],
              want[i]);
      ++failures;
    }
  }
  if (failures)
    return 1;
  printf("pkg-config-app: ok (mixrt ABI %d)\n", (int)mixrt_api_version());
  return 0;
}
