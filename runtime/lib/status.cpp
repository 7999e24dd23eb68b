//===-- status.cpp - mixrt status codes and error messages ----------------===//
//
// The C error model of the hosted mixrt: the thread-local last error message
// (also of the failed checks of generated code, whose state lives in the
// freestanding core, runtime/core/check.c), plus shared argument checks.
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
  case absl::StatusCode::kNotFound:
    code = MIXRT_STATUS_NOT_FOUND;
    break;
  case absl::StatusCode::kFailedPrecondition:
    code = MIXRT_STATUS_FAILED_PRECONDITION;
    break;
  case absl::StatusCode::kUnavailable:
    code = MIXRT_STATUS_UNAVAILABLE;
    break;
  case absl::StatusCode::kDataLoss:
    code = MIXRT_STATUS_DATA_LOSS;
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

const char *mixrt_last_error_message(void) {
  return mixrt::detail::lastErrorMessage.c_str();
}

void mixrt_hosted_report_check_failure(const mixrt_check_record *record) {
  // The message of the first failure, with the count of the later ones: as
  // the core records them, the strings are bounded (at most 1027 bytes
  // each), so the message stays under 2200 bytes.
  try {
    std::string message =
        absl::StrCat(record->location, ": ", record->what, " at element ",
                     record->index, " (value ", record->value, ")");
    if (record->count > 1)
      absl::StrAppend(&message, "; ", record->count, " failed checks");
    mixrt::detail::setLastError(message);
  } catch (...) {
    // Keep the code; the message could not be stored.
  }
}

} // extern "C"
