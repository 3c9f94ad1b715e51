// The `tpcc-owned` marker: writing, finding and requiring it.
#include "tpcc/owned_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "tpcc/backend.h"

namespace tpcc {
namespace {

// This process's command line, arguments joined by spaces.
std::string command_line() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  return text.empty() ? "tpcc" : text;
}

void write_marker(const std::string& dir) {
  const std::string path = dir + "/" + kOwnedMarker;
  char stamp[32] = "?";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc) != nullptr)
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  const std::string text = fmt::format(
      "made by {} at {} (pid {}); tpcc deletes databases only in directories with this file\n",
      command_line(), stamp, ::getpid());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const bool written =
      fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int write_errno = errno;
  if (fd >= 0) ::close(fd);
  if (!written) {
    throw BackendError(fmt::format("cannot write {}: {}", path, std::strerror(write_errno)));
  }
}

}  // namespace

bool dir_is_owned(const std::string& dir) {
  std::error_code error;
  return std::filesystem::is_regular_file(dir + "/" + kOwnedMarker, error);
}

bool mark_dir_if_new(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(dir, error)) {
    fs::create_directories(dir, error);
    if (error)
      throw BackendError(fmt::format("cannot create directory '{}': {}", dir, error.message()));
  }
  if (!fs::is_directory(dir, error))
    throw BackendError(fmt::format("'{}' is not a directory", dir));
  if (dir_is_owned(dir)) return true;
  const bool empty = fs::is_empty(dir, error);
  if (error)
    throw BackendError(fmt::format("cannot read directory '{}': {}", dir, error.message()));
  if (!empty) return false;
  write_marker(dir);
  return true;
}

void claim_dir(const std::string& dir, bool adopt, const std::string& what) {
  bool owned = false;
  try {
    owned = mark_dir_if_new(dir);
  } catch (const BackendError& failure) {
    throw BackendError(fmt::format("{}: {}", what, failure.what()));
  }
  if (owned) return;
  if (adopt) {
    write_marker(dir);
    return;
  }
  throw BackendError(fmt::format(
      "{}: refusing to delete the database in '{}': the directory is not empty and has no {} "
      "file, so tpcc did not create it (it may hold someone else's database). Give --dir a new "
      "or empty directory, or delete '{}' yourself if its contents may go",
      what, dir, kOwnedMarker, dir));
}

}  // namespace tpcc
