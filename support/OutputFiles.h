//===- OutputFiles.h - output files written all or nothing ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The one output writer of mixc. Outputs are produced in memory, added to an
// OutputFiles set, and committed together:
//
//  1. Every destination is classified. A regular file (or a path that does
//     not exist yet) is replaced by rename; a symbolic link is followed, so
//     the file it names is replaced and the link stays. A character device
//     or FIFO (`/dev/null`, `/dev/stdout`, a pipe) is written through: it is
//     never renamed over. A directory, block device or socket is refused.
//     Two outputs naming one file, by any path (symlinked directories,
//     hard links, `..`), are refused before anything is written.
//  2. Temporary files left by earlier runs that were killed (`SIGKILL`
//     cannot be caught) are removed: they are named
//     `.<name>.mixc-tmp-<pid>-XXXXXX` beside their destination, and one is
//     stale when process <pid> no longer exists.
//  3. Every replaced output is written to such a temporary file. Directories
//     are created at this point, so a run that fails earlier creates none.
//  4. Write-through outputs are written.
//  5. The temporary files are renamed into place, one after the other, with
//     the catchable termination signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
//     ...) held back until the last rename: a signal cannot stop the
//     publication halfway, so the outputs on disk are all from this run or
//     all from the previous one.
//
// A failure leaves every replaced destination as it was (during step 5 the
// previous files are kept as hard links and renamed back) and removes the
// temporary files and the directories this commit created; a write-through
// output that was already written stays written. Temporary files
// are also removed if the process is killed by a catchable signal.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_OUTPUTFILES_H
#define MIXC_SUPPORT_OUTPUTFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace mix {

/// A key that is equal for two paths exactly when they name the same file:
/// the device and inode of an existing file (symbolic links followed), else
/// the real path of the deepest existing ancestor directory joined with the
/// rest of the path, lexically normalized.
std::string getFileIdentity(llvm::StringRef path);

/// The prefix of the temporary files of `destination`'s basename, e.g.
/// ".m.o.mixc-tmp-" for "out/m.o" (the pid and a random suffix follow).
std::string getTempFilePrefix(llvm::StringRef destination);

/// A set of files committed all or nothing. Not thread-safe.
class OutputFiles {
public:
  struct Options {
    /// Create missing parent directories at commit time (and remove the ones
    /// created by a commit that fails). When false, a missing directory makes
    /// the commit fail.
    bool createDirectories = true;
    /// Test seams: called once after every output was written (before the
    /// first rename), and after each rename with the number renamed so far.
    std::function<void()> beforePublish;
    std::function<void(size_t)> afterRename;
  };

  OutputFiles() = default;
  explicit OutputFiles(Options options) : options(options) {}
  OutputFiles(const OutputFiles &) = delete;
  OutputFiles &operator=(const OutputFiles &) = delete;

  /// Adds a file to write at commit(). Nothing touches the disk before then.
  void add(std::string path, std::string contents);
  /// Adds a file made of `contents` followed by `borrowed` pieces, which
  /// are written from where they are (the caller keeps them alive until
  /// commit() returns): a large file is never assembled in memory.
  void add(std::string path, std::string contents,
           std::vector<llvm::ArrayRef<char>> borrowed);
  bool empty() const { return files.empty(); }
  /// The destinations, in the order they were added.
  std::vector<std::string> paths() const;

  /// Runs the five steps above. On the first failure, restores what it
  /// replaced, removes the temporary files and the directories this commit
  /// created and returns the error,
  /// e.g. "cannot rename '.a.o.mixc-tmp-42-x1Yz2W' to 'a.o': Is a
  /// directory", whose error code is that of the failing operation. Call it
  /// once.
  llvm::Error commit();

private:
  struct File {
    std::string path;
    std::string contents;
    /// Written after `contents`, from the caller's memory.
    std::vector<llvm::ArrayRef<char>> borrowed;
    /// Where the contents go: `path`, or the file a symlink `path` names.
    std::string target;
    std::string temp;
    /// A hard link to the previous `target` while publishing.
    std::string backup;
    bool writeThrough = false;
    bool renamed = false;
  };

  llvm::Error classify();
  llvm::Error createDirectories(llvm::StringRef dir);
  llvm::Error writeTemporaries();
  llvm::Error writeThrough();
  llvm::Error publish();
  void rollback();

  Options options;
  std::vector<File> files;
  llvm::SmallVector<std::string> createdDirs;
};

} // namespace mix

#endif // MIXC_SUPPORT_OUTPUTFILES_H
