//===- Format.h - formatting values for messages --------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_FORMAT_H
#define MIXC_SUPPORT_FORMAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mix {

/// Formats a shape as `[2, 3, 4]` (`[]` for a scalar), as diagnostics and
/// error messages spell shapes; a dynamic dimension (MLIR's
/// `ShapedType::kDynamic`, INT64_MIN) is `?`: `[?, 784]`.
std::string formatShape(llvm::ArrayRef<int64_t> dims);

/// One dimension as formatShape spells it: `7`, or `?` if dynamic.
std::string formatDim(int64_t dim);

/// `text` with every control character (bytes 0x00-0x1f and 0x7f) written
/// as `\xNN`, so a name read from a file cannot put a NUL, a newline or a
/// terminal escape sequence into a one-line message. Other bytes, UTF-8
/// included, are kept.
std::string escapeControlCharacters(llvm::StringRef text);

} // namespace mix

#endif // MIXC_SUPPORT_FORMAT_H
