//===-- status.cpp - mixrt status codes and error messages ----------------===//
//
// The C error model: status codes, their names and the thread-local last
// error message, plus shared argument checks.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include "absl/strings/str_cat.h"

#include <cstring>
#include <string>

namespace mixrt::detail {

namespace {
/// The last error message of the calling thread.
thread_local std::string lastErrorMessage;
/// Number of messages stored in lastErrorMessage on this thread.
thread_local uint64_t lastErrorCount = 0;

/// Failed checks of generated code on the calling thread (see
/// mixrt_check_fail()).
struct CheckFailures {
  int64_t count = 0;
  int32_t code = MIXRT_STATUS_OK;
  std::string message; ///< of the first failure
};
thread_local CheckFailures checkFailures;

/// Bytes of `location` and of `what` kept in a check failure's message.
constexpr size_t kCheckStringBytes = 1024;

/// A caller's NUL-terminated string (or `fallback` for NULL) cut to
/// kCheckStringBytes + "...": at most kCheckStringBytes + 1 bytes of it are
/// read, however long it is.
std::string boundedCheckString(const char *text, const char *fallback) {
  if (text == nullptr)
    return fallback;
  return truncateMessage(
      absl::string_view(text, strnlen(text, kCheckStringBytes + 1)),
      kCheckStringBytes);
}
} // namespace

mixrt_status_code toCStatus(const absl::Status &status) {
  if (status.ok())
    return MIXRT_STATUS_OK;
  mixrt_status_code code;
  switch (status.code()) {
  case absl::StatusCode::kInvalidArgument:
    code = MIXRT_STATUS_INVALID_ARGUMENT;
    break;
  case absl::StatusCode::kOutOfRange:
    code = MIXRT_STATUS_OUT_OF_RANGE;
    break;
  case absl::StatusCode::kUnimplemented:
    code = MIXRT_STATUS_UNIMPLEMENTED;
    break;
  case absl::StatusCode::kResourceExhausted:
    code = MIXRT_STATUS_RESOURCE_EXHAUSTED;
    break;
  default:
    code = MIXRT_STATUS_INTERNAL;
    break;
  }
  setLastError(status.message());
  return code;
}

void setLastError(absl::string_view message) {
  ++lastErrorCount;
  try {
    lastErrorMessage.assign(message.data(), message.size());
  } catch (...) {
    // Keep the code; the message could not be stored.
  }
}

uint64_t lastErrorGeneration() { return lastErrorCount; }

std::string truncateMessage(absl::string_view message, size_t maxBytes) {
  if (message.size() <= maxBytes)
    return std::string(message);
  size_t end = maxBytes;
  // Do not split a UTF-8 sequence: back up over continuation bytes.
  while (end > 0 && (static_cast<unsigned char>(message[end]) & 0xC0) == 0x80)
    --end;
  return absl::StrCat(message.substr(0, end), "...");
}

absl::Status checkShape(absl::string_view op, absl::Span<const int64_t> shape,
                        int64_t &outCount) {
  if (shape.empty())
    return invalidArgument(op, ": rank must be >= 1");
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return invalidArgument(op, ": shape[", i, "] (", shape[i],
                             ") is negative");
    if (shape[i] != 0 && count > INT64_MAX / shape[i])
      return invalidArgument(op, ": element count overflows int64");
    count *= shape[i];
  }
  outCount = count;
  return absl::OkStatus();
}

} // namespace mixrt::detail

extern "C" {

int32_t mixrt_api_version(void) { return MIXRT_API_VERSION; }

const char *mixrt_status_code_name(mixrt_status_code code) {
  switch (mixrt::detail::enumValue(code)) {
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
  default:
    return "UNKNOWN";
  }
}

const char *mixrt_last_error_message(void) {
  return mixrt::detail::lastErrorMessage.c_str();
}

void mixrt_check_fail(int32_t code, const char *location, const char *what,
                      int64_t index, double value) {
  mixrt::detail::CheckFailures &f = mixrt::detail::checkFailures;
  if (f.count++ > 0)
    return;
  // OK or a value that is no status code is a bug of the caller: INTERNAL,
  // so mixrt_check_status() only ever returns mixrt_status_code values.
  f.code = code != MIXRT_STATUS_OK && mixrt::detail::isStatusCode(code)
               ? code
               : MIXRT_STATUS_INTERNAL;
  try {
    f.message = absl::StrCat(
        mixrt::detail::boundedCheckString(location, "<unknown location>"), ": ",
        mixrt::detail::boundedCheckString(what, "check failed"), " at element ",
        index, " (value ", value, ")");
  } catch (...) {
    f.message.clear(); // Keep the code; the message could not be stored.
  }
}

void mixrt_check_reset(void) {
  mixrt::detail::checkFailures.count = 0;
  mixrt::detail::checkFailures.code = MIXRT_STATUS_OK;
  mixrt::detail::checkFailures.message.clear();
}

mixrt_status_code mixrt_check_status(void) {
  const mixrt::detail::CheckFailures &f = mixrt::detail::checkFailures;
  if (f.count == 0)
    return MIXRT_STATUS_OK;
  try {
    mixrt::detail::setLastError(
        f.count == 1
            ? f.message
            : absl::StrCat(f.message, "; ", f.count, " failed checks"));
  } catch (...) {
  }
  return static_cast<mixrt_status_code>(f.code);
}

int64_t mixrt_check_failure_count(void) {
  return mixrt::detail::checkFailures.count;
}

} // extern "C"
