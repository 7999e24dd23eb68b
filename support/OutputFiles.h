//===- OutputFiles.h - output files written all or nothing ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The one atomic file writer of mixc. Outputs are produced in memory, added
// to an OutputFiles set, and committed together: each is written to a
// temporary file beside its destination (`<path>.tmp.XXXXXX`), and all are
// renamed into place only when every one was written. Readers never see a
// half-written file. Directories are created at commit time, so a run that
// fails earlier creates none; a commit that fails removes its temporary
// files, the outputs it already renamed and the directories it created.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_OUTPUTFILES_H
#define MIXC_SUPPORT_OUTPUTFILES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mix {

/// A set of files committed all or nothing. Not thread-safe.
class OutputFiles {
public:
  struct Options {
    /// Create missing parent directories at commit time (and remove the ones
    /// created by a commit that fails). When false, a missing directory makes
    /// the commit fail.
    bool createDirectories = true;
  };

  OutputFiles() = default;
  explicit OutputFiles(Options options) : options(options) {}
  OutputFiles(const OutputFiles &) = delete;
  OutputFiles &operator=(const OutputFiles &) = delete;

  /// Adds a file to write at commit(). Nothing touches the disk before then.
  void add(std::string path, std::string contents);
  bool empty() const { return files.empty(); }
  /// The destinations, in the order they were added.
  std::vector<std::string> paths() const;

  /// Writes every file to a temporary file in its destination directory,
  /// then renames them all into place. On the first failure, removes the
  /// temporary files, the destinations already renamed and the directories
  /// this commit created, and returns the error, e.g. "cannot rename
  /// 'a.o.tmp.x1Yz2W' to 'a.o': Is a directory", whose error code is that of
  /// the failing operation. Temporary files are also removed if the process
  /// is killed by a signal meanwhile. Call it once.
  llvm::Error commit();

private:
  struct File {
    std::string path;
    std::string contents;
    std::string temp;
    bool renamed = false;
  };

  llvm::Error createDirectories(llvm::StringRef dir);
  llvm::Error writeAll();
  void rollback();

  Options options;
  std::vector<File> files;
  llvm::SmallVector<std::string> createdDirs;
};

} // namespace mix

#endif // MIXC_SUPPORT_OUTPUTFILES_H
