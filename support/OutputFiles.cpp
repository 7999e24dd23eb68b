//===- OutputFiles.cpp - output files written all or nothing --------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "support/OutputFiles.h"

#include "support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

using namespace mix;

void OutputFiles::add(std::string path, std::string contents) {
  files.push_back({std::move(path), std::move(contents), "", false});
}

std::vector<std::string> OutputFiles::paths() const {
  std::vector<std::string> result;
  for (const File &f : files)
    result.push_back(f.path);
  return result;
}

llvm::Error OutputFiles::commit() {
  if (llvm::Error error = writeAll()) {
    rollback();
    return error;
  }
  return llvm::Error::success();
}

llvm::Error OutputFiles::createDirectories(llvm::StringRef dir) {
  if (dir.empty() || llvm::sys::fs::is_directory(dir) ||
      !options.createDirectories)
    return llvm::Error::success();
  // Remember every directory this commit creates, deepest last.
  llvm::SmallVector<std::string> missing;
  for (llvm::StringRef d = dir; !d.empty() && !llvm::sys::fs::exists(d);
       d = llvm::sys::path::parent_path(d))
    missing.push_back(d.str());
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return makeError(ec,
                     "cannot create directory '" + dir + "': " + ec.message());
  createdDirs.append(missing.rbegin(), missing.rend());
  return llvm::Error::success();
}

llvm::Error OutputFiles::writeAll() {
  for (File &f : files)
    if (llvm::Error error =
            createDirectories(llvm::sys::path::parent_path(f.path)))
      return error;
  for (File &f : files) {
    int fd;
    llvm::SmallString<256> temp;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueFile(f.path + ".tmp.%%%%%%", fd, temp))
      return makeError(ec, "cannot create a temporary file for '" + f.path +
                               "': " + ec.message());
    f.temp = temp.str().str();
    llvm::sys::RemoveFileOnSignal(f.temp);
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << f.contents;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return makeError(ec, "cannot write '" + f.temp + "': " + ec.message());
    }
  }
  for (File &f : files) {
    if (std::error_code ec = llvm::sys::fs::rename(f.temp, f.path))
      return makeError(ec, "cannot rename '" + f.temp + "' to '" + f.path +
                               "': " + ec.message());
    llvm::sys::DontRemoveFileOnSignal(f.temp);
    f.renamed = true;
  }
  return llvm::Error::success();
}

void OutputFiles::rollback() {
  for (File &f : files) {
    if (f.temp.empty())
      continue;
    llvm::sys::fs::remove(f.renamed ? f.path : f.temp);
    llvm::sys::DontRemoveFileOnSignal(f.temp);
  }
  // Deepest first; remove() fails, as it should, on a directory that is not
  // empty.
  for (const std::string &dir : llvm::reverse(createdDirs))
    llvm::sys::fs::remove(dir);
}
