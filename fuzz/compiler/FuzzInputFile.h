//===-- FuzzInputFile.h - a fuzzer input behind a file path -----*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The readers of weights and calibration files take a path. The fuzzers
// write each input to one anonymous in-memory file (memfd) and pass its
// /proc/self/fd/N path: a regular file, as the readers require, with
// nothing left on disk.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_FUZZ_COMPILER_FUZZINPUTFILE_H
#define MIXC_FUZZ_COMPILER_FUZZINPUTFILE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mix::fuzz {

/// Replaces the contents of the process's input file by `data` and returns
/// its path. Aborts if the file cannot be created or written.
const std::string &writeInputFile(const uint8_t *data, size_t size);

} // namespace mix::fuzz

#endif // MIXC_FUZZ_COMPILER_FUZZINPUTFILE_H
