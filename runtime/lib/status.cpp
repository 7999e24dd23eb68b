//===-- status.cpp - mixrt status codes and error messages ----------------===//
//
// The C error model: status codes, their names and the thread-local last
// error message, plus shared argument checks.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <string>

namespace mixrt::detail {

namespace {
/// The last error message of the calling thread.
thread_local std::string lastErrorMessage;
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
  try {
    lastErrorMessage.assign(status.message().data(), status.message().size());
  } catch (...) {
    // Keep the code; the message could not be stored.
  }
  return code;
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
  switch (code) {
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

} // extern "C"
