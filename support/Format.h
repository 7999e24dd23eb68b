//===- Format.h - formatting values for messages --------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_FORMAT_H
#define MIXC_SUPPORT_FORMAT_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace mix {

/// Formats a shape as `[2, 3, 4]` (`[]` for a scalar), as diagnostics and
/// error messages spell shapes.
std::string formatShape(llvm::ArrayRef<int64_t> dims);

} // namespace mix

#endif // MIXC_SUPPORT_FORMAT_H
