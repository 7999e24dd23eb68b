/*===-- check.c - status names and checked-numerics state of mixrt's core -===*\
|*                                                                            *|
|* Freestanding C11: no libc beyond what a compiler may call for struct      *|
|* copies (memcpy/memset/memmove), no heap, no stdio. The check state is one  *|
|* record per thread (`_Thread_local`), or one record in all with            *|
|* MIXRT_CORE_NO_TLS.                                                         *|
|*                                                                            *|
|* Built twice: freestanding into libmixrt_core.a, and with                   *|
|* MIXRT_CORE_HOSTED into the hosted mixrt, where mixrt_check_status() hands  *|
|* the record to the hosted library, which formats the message.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mixrt/core.h"

#ifdef MIXRT_CORE_NO_TLS
#define MIXRT_CORE_THREAD_LOCAL
#else
#define MIXRT_CORE_THREAD_LOCAL _Thread_local
#endif

#ifdef MIXRT_CORE_HOSTED
/* Defined by the hosted mixrt (runtime/lib/status.cpp): stores the message
 * of `record` as the calling thread's last error message. */
void mixrt_hosted_report_check_failure(const mixrt_check_record *record)
    __attribute__((visibility("hidden")));
#endif

/* The calling thread's first failure since the last reset; `count` is 0
 * when there is none. Zero-initialized (.tbss / .bss): no constructor. */
static MIXRT_CORE_THREAD_LOCAL mixrt_check_record checkRecord;

static int isStatusCode(int32_t code) {
  return code == MIXRT_STATUS_OK || code == MIXRT_STATUS_INVALID_ARGUMENT ||
         code == MIXRT_STATUS_OUT_OF_RANGE ||
         code == MIXRT_STATUS_UNIMPLEMENTED || code == MIXRT_STATUS_INTERNAL ||
         code == MIXRT_STATUS_RESOURCE_EXHAUSTED ||
         code == MIXRT_STATUS_NOT_FOUND ||
         code == MIXRT_STATUS_FAILED_PRECONDITION ||
         code == MIXRT_STATUS_UNAVAILABLE || code == MIXRT_STATUS_DATA_LOSS;
}

const char *mixrt_status_code_name(mixrt_status_code code) {
  /* Compared as an integer: a C caller may pass any int32_t. */
  switch ((int32_t)code) {
  case MIXRT_STATUS_OK:
    return "OK";
  case MIXRT_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case MIXRT_STATUS_OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case MIXRT_STATUS_UNIMPLEMENTED:
    return "UNIMPLEMENTED";
  case MIXRT_STATUS_INTERNAL:
    return "INTERNAL";
  case MIXRT_STATUS_RESOURCE_EXHAUSTED:
    return "RESOURCE_EXHAUSTED";
  case MIXRT_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case MIXRT_STATUS_FAILED_PRECONDITION:
    return "FAILED_PRECONDITION";
  case MIXRT_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case MIXRT_STATUS_DATA_LOSS:
    return "DATA_LOSS";
  default:
    return "UNKNOWN";
  }
}

/* Copies the caller's NUL-terminated `text` (`fallback` for NULL) into
 * `out` (MIXRT_CHECK_STRING_BYTES + 4 bytes): whole if it has at most
 * MIXRT_CHECK_STRING_BYTES bytes, else cut at a UTF-8 character boundary at
 * or before that many bytes and followed by "...". At most
 * MIXRT_CHECK_STRING_BYTES + 1 bytes of `text` are read. */
static void copyBounded(char *out, const char *text, const char *fallback) {
  if (text == NULL)
    text = fallback;
  size_t n = 0;
  while (n <= MIXRT_CHECK_STRING_BYTES && text[n] != '\0')
    ++n;
  size_t end = n;
  int cut = n > MIXRT_CHECK_STRING_BYTES;
  if (cut) {
    /* text[MIXRT_CHECK_STRING_BYTES] was read: back up over UTF-8
     * continuation bytes so no character is split. */
    end = MIXRT_CHECK_STRING_BYTES;
    while (end > 0 && ((unsigned char)text[end] & 0xC0) == 0x80)
      --end;
  }
  for (size_t i = 0; i < end; ++i)
    out[i] = text[i];
  if (cut) {
    out[end++] = '.';
    out[end++] = '.';
    out[end++] = '.';
  }
  out[end] = '\0';
}

void mixrt_check_fail(int32_t code, const char *location, const char *what,
                      int64_t index, double value) {
  mixrt_check_record *r = &checkRecord;
  if (r->count++ > 0)
    return;
  /* OK or a value that is no status code is a bug of the caller: INTERNAL,
   * so mixrt_check_status() only ever returns mixrt_status_code values. */
  r->code = code != MIXRT_STATUS_OK && isStatusCode(code)
                ? (mixrt_status_code)code
                : MIXRT_STATUS_INTERNAL;
  r->index = index;
  r->value = value;
  copyBounded(r->location, location, "<unknown location>");
  copyBounded(r->what, what, "check failed");
}

void mixrt_check_reset(void) {
  /* The strings are rewritten by the next failure; only the fields that
   * tell whether there is one are cleared (a reset costs a few stores). */
  checkRecord.count = 0;
  checkRecord.code = MIXRT_STATUS_OK;
}

mixrt_status_code mixrt_check_status(void) {
  const mixrt_check_record *r = &checkRecord;
  if (r->count == 0)
    return MIXRT_STATUS_OK;
#ifdef MIXRT_CORE_HOSTED
  mixrt_hosted_report_check_failure(r);
#endif
  return r->code;
}

int64_t mixrt_check_failure_count(void) { return checkRecord.count; }

const mixrt_check_record *mixrt_check_first_failure(void) {
  return checkRecord.count == 0 ? NULL : &checkRecord;
}
