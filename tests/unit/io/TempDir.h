//===- TempDir.h - temporary directories for the io tests -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_TESTS_UNIT_IO_TEMPDIR_H
#define MIXC_TESTS_UNIT_IO_TEMPDIR_H

#include <algorithm>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace mix::io::test {

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
public:
  explicit TempDir(const std::string &tag) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("mixc-io-" + tag + "-" + std::to_string(::getpid()) + "-" +
            std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  std::string file(const std::string &name) const {
    return (dir_ / name).string();
  }
  /// Names of the files in the directory, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  bool empty() const { return std::filesystem::is_empty(dir_); }

private:
  std::filesystem::path dir_;
};

} // namespace mix::io::test

#endif // MIXC_TESTS_UNIT_IO_TEMPDIR_H
