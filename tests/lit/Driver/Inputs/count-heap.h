/* Counts the heap calls of a test program: malloc and friends are
 * interposed (the executable's definitions win over glibc's for every
 * caller: the compiled object, mixrt, libstdc++) and counted while
 * `counting` is set. Include once, in the program's only C file, after
 * defining _GNU_SOURCE. */
#ifndef MIXC_TEST_COUNT_HEAP_H
#define MIXC_TEST_COUNT_HEAP_H

#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static int counting;
static long heapCalls;

void *malloc(size_t n) {
  heapCalls += counting;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  heapCalls += counting;
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  heapCalls += counting;
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  heapCalls += counting;
  return __libc_memalign(a, n);
}
int posix_memalign(void **p, size_t a, size_t n) {
  heapCalls += counting;
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;
}
void free(void *p) {
  heapCalls += counting && p;
  __libc_free(p);
}

#endif /* MIXC_TEST_COUNT_HEAP_H */
