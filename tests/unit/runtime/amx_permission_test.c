/*===-- amx_permission_test.c - when mixrt asks Linux for the AMX state ---===*\
|*                                                                            *|
|* On Linux, once a process may use AMX tiles (arch_prctl                     *|
|* ARCH_REQ_XCOMP_PERM), the kernel refuses alternate signal stacks smaller   *|
|* than AT_MINSIGSTKSZ (about 12 KB). mixrt asks only when an int8 GEMM       *|
|* first runs on the amx path, so a float GEMM, or an int8 GEMM with          *|
|* MIXRT_ISA below amx (the second ctest run sets MIXRT_ISA=avx512vnni),      *|
|* leaves an 8 KiB alternate stack installable. Argument "f32": float GEMMs   *|
|* only; "s8": also an int8 GEMM, whose result is checked.                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _DEFAULT_SOURCE
#include <mixrt/ukernel.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__,        \
              #cond);                                                          \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  const int s8 = argc > 1 && strcmp(argv[1], "s8") == 0;
  /* 2 x 3 times 3 x 2, exact in both types. */
  const float af[6] = {1, 2, 3, 4, 5, 6}, bf[6] = {1, -1, 2, 0, 0.5f, 3};
  _Alignas(64) unsigned char packed[4096];
  EXPECT(mixrt_ukernel_packed_size(MIXRT_UKERNEL_F32, 3, 2) <=
         (int64_t)sizeof packed);
  EXPECT(mixrt_ukernel_pack_b(MIXRT_UKERNEL_F32, 3, 2, bf, 2, packed) ==
         MIXRT_STATUS_OK);
  float cf[4];
  EXPECT(mixrt_ukernel_gemm_f32(2, 2, 3, af, 3, packed, cf, 2, NULL, 0) ==
         MIXRT_STATUS_OK);
  EXPECT(cf[0] == 6.5f && cf[1] == 8.0f && cf[2] == 17.0f && cf[3] == 14.0f);
  if (s8) {
    const int8_t a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, -1, 2, 0, -128, 3};
    EXPECT(mixrt_ukernel_pack_b(MIXRT_UKERNEL_S8, 3, 2, b, 2, packed) ==
           MIXRT_STATUS_OK);
    int32_t c[4];
    EXPECT(mixrt_ukernel_gemm_s8s8s32(2, 2, 3, a, 3, NULL, packed, NULL, c, 2,
                                      0) == MIXRT_STATUS_OK);
    EXPECT(c[0] == -379 && c[1] == 8 && c[2] == -754 && c[3] == 14);
  }
  const char *isa = getenv("MIXRT_ISA");
  printf("path %s (MIXRT_ISA %s, cpu %s)\n",
         mixrt_ukernel_isa_name(mixrt_ukernel_get_isa()), isa ? isa : "unset",
         mixrt_ukernel_isa_name(mixrt_ukernel_cpu_isa()));
  const int asked = s8 && mixrt_ukernel_get_isa() == MIXRT_UKERNEL_ISA_AMX;
  if (!asked) {
    /* Nothing asked for the tile state: an 8 KiB stack is accepted. */
    static char altStack[8192];
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = altStack;
    ss.ss_size = sizeof altStack;
    EXPECT(sigaltstack(&ss, NULL) == 0);
  }
  if (failures == 0)
    printf("amx_permission_test: ok\n");
  return failures == 0 ? 0 : 1;
}
