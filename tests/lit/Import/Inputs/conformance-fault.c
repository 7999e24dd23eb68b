/* A fault in the child processes of mix-onnx-conformance, for
 * conformance-faults.test: preloaded (LD_PRELOAD), this dup2 is the one the
 * runner's children call first (to silence their output; the runner itself
 * never calls it) and does what MIXC_TEST_FAULT says: "segv" crashes, "hang"
 * never returns, "exit" ends the process without a result. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dup2(int oldfd, int newfd) {
  const char *fault = getenv("MIXC_TEST_FAULT");
  if (fault && strcmp(fault, "segv") == 0)
    raise(SIGSEGV);
  if (fault && strcmp(fault, "hang") == 0)
    for (;;)
      pause();
  if (fault && strcmp(fault, "exit") == 0)
    _exit(3);
  int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "dup2");
  return real(oldfd, newfd);
}
