// A fresh directory for one test, removed at its end: <parent>/<tag>-<pid>-<n>.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace tpcc::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag, const std::string& parent = "/dev/shm") {
    static std::atomic<int> counter{0};
    path_ = fmt::format("{}/{}-{}-{}", parent, tag, ::getpid(), counter++);
    std::filesystem::remove_all(path_);
  }
  ~TempDir() {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tpcc::test
