//===- OutputFiles.cpp - output files written all or nothing --------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "support/OutputFiles.h"

#include "support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

using namespace mix;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

//===----------------------------------------------------------------------===//
// File identity and temporary names
//===----------------------------------------------------------------------===//

std::string mix::getFileIdentity(llvm::StringRef p) {
  struct stat st;
  llvm::SmallString<256> nulTerminated(p);
  if (::stat(nulTerminated.c_str(), &st) == 0)
    return "inode:" + std::to_string(st.st_dev) + ":" +
           std::to_string(st.st_ino);
  // Not there (yet): resolve the deepest ancestor that exists, then append
  // the missing components, so `d/link/x` and `d/x` agree when `link` is a
  // symlink to `.`.
  llvm::SmallString<256> absolute(p);
  fs::make_absolute(absolute);
  path::remove_dots(absolute, /*remove_dot_dot=*/false);
  llvm::SmallVector<std::string> missing;
  llvm::SmallString<256> existing(absolute);
  while (!existing.empty() && !fs::exists(existing)) {
    missing.push_back(path::filename(existing).str());
    llvm::StringRef parent = path::parent_path(existing);
    if (parent == existing)
      break;
    existing = parent;
  }
  llvm::SmallString<256> real;
  if (existing.empty() || fs::real_path(existing, real))
    real = existing;
  for (const std::string &component : llvm::reverse(missing))
    path::append(real, component);
  path::remove_dots(real, /*remove_dot_dot=*/true);
  return "path:" + real.str().str();
}

std::string mix::getTempFilePrefix(llvm::StringRef destination) {
  return "." + path::filename(destination).str() + ".mixc-tmp-";
}

namespace {

/// Removes the temporary files of `destination` that earlier, killed runs
/// left behind: `.<name>.mixc-tmp-<pid>-*` whose process is gone.
void removeStaleTemporaries(llvm::StringRef destination) {
  llvm::StringRef dir = path::parent_path(destination);
  std::string prefix = getTempFilePrefix(destination);
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end;
       !ec && it != end; it.increment(ec)) {
    llvm::StringRef name = path::filename(it->path());
    if (!name.consume_front(prefix))
      continue;
    auto [pidText, rest] = name.split('-');
    unsigned long long pid;
    if (rest.empty() || pidText.getAsInteger(10, pid) || pid == 0 ||
        pid > static_cast<unsigned long long>(INT32_MAX))
      continue;
    if (static_cast<pid_t>(pid) == ::getpid())
      continue;
    // Only a process that certainly does not exist: EPERM means it does.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;
    fs::file_status status;
    if (!fs::status(it->path(), status, /*Follow=*/false) &&
        status.type() == fs::file_type::regular_file)
      fs::remove(it->path());
  }
}

//===----------------------------------------------------------------------===//
// Holding back termination signals
//===----------------------------------------------------------------------===//

/// The signals whose default action ends the process and that a handler may
/// catch; while a SignalDeferral lives, they are recorded instead.
constexpr int kDeferredSignals[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGTERM,
                                    SIGUSR1, SIGUSR2,   SIGALRM, SIGPIPE,
                                    SIGXCPU, SIGVTALRM, SIGPROF};
std::atomic<int> deferredSignal{0};

extern "C" void recordSignal(int sig) {
  int expected = 0;
  deferredSignal.compare_exchange_strong(expected, sig);
}

/// Replaces the handlers of kDeferredSignals by one that only records the
/// first signal; the destructor restores the handlers and re-raises it.
/// Handlers (not a signal mask) because a signal sent to the process may be
/// delivered to any of its threads, e.g. one of MLIR's thread pool.
class SignalDeferral {
public:
  SignalDeferral() {
    deferredSignal = 0;
    struct sigaction action = {};
    action.sa_handler = recordSignal;
    sigfillset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kDeferredSignals); ++i)
      ::sigaction(kDeferredSignals[i], &action, &previous[i]);
  }
  ~SignalDeferral() {
    for (size_t i = 0; i < std::size(kDeferredSignals); ++i)
      ::sigaction(kDeferredSignals[i], &previous[i], nullptr);
    if (int sig = deferredSignal.exchange(0); sig != 0 && sig != SIGPIPE)
      ::raise(sig);
  }
  SignalDeferral(const SignalDeferral &) = delete;
  SignalDeferral &operator=(const SignalDeferral &) = delete;

private:
  struct sigaction previous[std::size(kDeferredSignals)];
};

llvm::Error fromErrno(const llvm::Twine &what) {
  std::error_code ec(errno, std::generic_category());
  return makeError(ec, what + ": " + ec.message());
}

} // namespace

//===----------------------------------------------------------------------===//
// OutputFiles
//===----------------------------------------------------------------------===//

void OutputFiles::add(std::string path, std::string contents) {
  add(std::move(path), std::move(contents), {});
}

void OutputFiles::add(std::string path, std::string contents,
                      std::vector<llvm::ArrayRef<char>> borrowed) {
  File file;
  file.path = std::move(path);
  file.contents = std::move(contents);
  file.borrowed = std::move(borrowed);
  files.push_back(std::move(file));
}

std::vector<std::string> OutputFiles::paths() const {
  std::vector<std::string> result;
  for (const File &f : files)
    result.push_back(f.path);
  return result;
}

llvm::Error OutputFiles::commit() {
  llvm::Error error = classify();
  if (!error)
    error = writeTemporaries();
  if (!error)
    error = writeThrough();
  if (!error)
    error = publish();
  if (error) {
    rollback();
    return error;
  }
  return llvm::Error::success();
}

llvm::Error OutputFiles::classify() {
  std::map<std::string, const File *> identities;
  for (File &f : files) {
    auto [it, inserted] = identities.try_emplace(getFileIdentity(f.path), &f);
    if (!inserted)
      return makeError(std::make_error_code(std::errc::invalid_argument),
                       "the outputs '" + it->second->path + "' and '" + f.path +
                           "' are the same file");
    f.target = f.path;
    fs::file_status status;
    if (fs::status(f.path, status, /*Follow=*/true))
      continue; // Does not exist, or a dangling symlink: created by rename.
    switch (status.type()) {
    case fs::file_type::regular_file: {
      // Replace the file a symlink names, not the link.
      llvm::SmallString<256> real;
      if (!fs::real_path(f.path, real))
        f.target = real.str().str();
      break;
    }
    case fs::file_type::character_file:
    case fs::file_type::fifo_file:
      f.writeThrough = true;
      break;
    case fs::file_type::directory_file:
      return makeError(std::make_error_code(std::errc::is_a_directory),
                       "cannot write '" + f.path + "': it is a directory");
    default:
      return makeError(std::make_error_code(std::errc::invalid_argument),
                       "cannot write '" + f.path +
                           "': it is neither a regular file nor a character "
                           "device or FIFO");
    }
  }
  return llvm::Error::success();
}

llvm::Error OutputFiles::createDirectories(llvm::StringRef dir) {
  if (dir.empty() || fs::is_directory(dir) || !options.createDirectories)
    return llvm::Error::success();
  // Remember every directory this commit creates, deepest last.
  llvm::SmallVector<std::string> missing;
  for (llvm::StringRef d = dir; !d.empty() && !fs::exists(d);
       d = path::parent_path(d))
    missing.push_back(d.str());
  if (std::error_code ec = fs::create_directories(dir))
    return makeError(ec,
                     "cannot create directory '" + dir + "': " + ec.message());
  createdDirs.append(missing.rbegin(), missing.rend());
  return llvm::Error::success();
}

llvm::Error OutputFiles::writeTemporaries() {
  for (File &f : files)
    if (!f.writeThrough)
      if (llvm::Error error = createDirectories(path::parent_path(f.target)))
        return error;
  llvm::StringSet<> cleaned;
  for (File &f : files) {
    if (f.writeThrough)
      continue;
    if (cleaned.insert(f.target).second)
      removeStaleTemporaries(f.target);
    llvm::SmallString<256> model(path::parent_path(f.target));
    path::append(model, getTempFilePrefix(f.target) +
                            llvm::Twine(llvm::sys::Process::getProcessId()) +
                            "-%%%%%%");
    int fd;
    llvm::SmallString<256> temp;
    if (std::error_code ec = fs::createUniqueFile(model, fd, temp))
      return makeError(ec, "cannot create a temporary file for '" + f.path +
                               "': " + ec.message());
    f.temp = temp.str().str();
    llvm::sys::RemoveFileOnSignal(f.temp);
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << f.contents;
    for (llvm::ArrayRef<char> piece : f.borrowed)
      os.write(piece.data(), piece.size());
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return makeError(ec, "cannot write '" + f.temp + "': " + ec.message());
    }
  }
  return llvm::Error::success();
}

llvm::Error OutputFiles::writeThrough() {
  for (File &f : files) {
    if (!f.writeThrough)
      continue;
    // A reader that goes away must give EPIPE, not kill the tool.
    SignalDeferral deferral;
    int fd = ::open(f.path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return fromErrno("cannot open '" + f.path + "'");
    std::vector<llvm::StringRef> pieces = {f.contents};
    for (llvm::ArrayRef<char> piece : f.borrowed)
      pieces.emplace_back(piece.data(), piece.size());
    for (llvm::StringRef data : pieces)
      while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          llvm::Error error = fromErrno("cannot write '" + f.path + "'");
          ::close(fd);
          return error;
        }
        data = data.drop_front(static_cast<size_t>(n));
      }
    if (::close(fd) != 0 && errno != EINTR)
      return fromErrno("cannot write '" + f.path + "'");
  }
  return llvm::Error::success();
}

llvm::Error OutputFiles::publish() {
  // Keep each file about to be replaced under a second name (a hard link,
  // so nothing is copied), to put it back if a later rename fails.
  for (File &f : files) {
    if (f.writeThrough || !fs::exists(f.target))
      continue;
    std::string backup = f.temp + ".old";
    if (!fs::create_hard_link(f.target, backup)) {
      f.backup = backup;
      llvm::sys::RemoveFileOnSignal(f.backup);
    }
  }
  if (options.beforePublish)
    options.beforePublish();
  SignalDeferral deferral;
  size_t renamed = 0;
  for (File &f : files) {
    if (f.writeThrough)
      continue;
    if (std::error_code ec = fs::rename(f.temp, f.target))
      return makeError(ec, "cannot rename '" + f.temp + "' to '" + f.target +
                               "': " + ec.message());
    llvm::sys::DontRemoveFileOnSignal(f.temp);
    f.renamed = true;
    if (options.afterRename)
      options.afterRename(++renamed);
  }
  for (File &f : files)
    if (!f.backup.empty()) {
      fs::remove(f.backup);
      llvm::sys::DontRemoveFileOnSignal(f.backup);
      f.backup.clear();
    }
  return llvm::Error::success();
}

void OutputFiles::rollback() {
  for (File &f : files) {
    if (f.temp.empty())
      continue;
    if (f.renamed && !f.backup.empty())
      fs::rename(f.backup, f.target); // The previous contents, back.
    else
      fs::remove(f.renamed ? f.target : f.temp);
    if (!f.backup.empty())
      fs::remove(f.backup);
    llvm::sys::DontRemoveFileOnSignal(f.temp);
    llvm::sys::DontRemoveFileOnSignal(f.backup);
  }
  // Deepest first; remove() fails, as it should, on a directory that is not
  // empty.
  for (const std::string &dir : llvm::reverse(createdDirs))
    fs::remove(dir);
}
