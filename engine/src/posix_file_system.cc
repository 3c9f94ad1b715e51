// The POSIX FileSystem: pread/pwrite/fdatasync, rename, fsync of a directory.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "solo/file_system.h"

namespace solo {

namespace {

Status io_error(const std::string& what, const std::string& path, int error) {
  std::string msg = what + " " + path + ": ";
  if (error == ENOSPC) msg += "ENOSPC: ";
  msg += std::strerror(error);
  return Status::IOError(msg);
}

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  Status read_at(uint64_t offset, size_t size, char* out, size_t* read) override {
    *read = 0;
    while (*read < size) {
      ssize_t got = ::pread(fd_, out + *read, size - *read, static_cast<off_t>(offset + *read));
      if (got < 0) {
        if (errno == EINTR) continue;
        return io_error("read", path_, errno);
      }
      if (got == 0) break;
      *read += static_cast<size_t>(got);
    }
    return Status::OK();
  }

  Status write_at(uint64_t offset, std::string_view data) override {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t put = ::pwrite(fd_, data.data() + done, data.size() - done,
                             static_cast<off_t>(offset + done));
      if (put < 0) {
        if (errno == EINTR) continue;
        return io_error("write", path_ + " at offset " + std::to_string(offset + done), errno);
      }
      done += static_cast<size_t>(put);
    }
    return Status::OK();
  }

  Status sync() override {
    if (::fdatasync(fd_) != 0) return io_error("fdatasync", path_, errno);
    return Status::OK();
  }

  Status write_back(uint64_t offset, uint64_t size, bool wait) override {
    // WAIT_BEFORE: also waits for writeback of the range already under way.
    unsigned int flags = SYNC_FILE_RANGE_WRITE;
    if (wait) flags |= SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER;
    while (::sync_file_range(fd_, static_cast<off_t>(offset), static_cast<off_t>(size), flags) !=
           0) {
      if (errno == EINTR) continue;
      return io_error("sync_file_range", path_ + " at offset " + std::to_string(offset), errno);
    }
    return Status::OK();
  }

  Status truncate(uint64_t size) override {
    while (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      if (errno == EINTR) continue;
      return io_error("ftruncate", path_ + " to " + std::to_string(size) + " bytes", errno);
    }
    return Status::OK();
  }

  Result<uint64_t> size() override {
    struct stat info;
    if (::fstat(fd_, &info) != 0) return io_error("fstat", path_, errno);
    return static_cast<uint64_t>(info.st_size);
  }

  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const int fd_;
};

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override { ::close(fd_); }  // closing releases the flock
  PosixFileLock(const PosixFileLock&) = delete;
  PosixFileLock& operator=(const PosixFileLock&) = delete;

 private:
  const int fd_;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<FileLock>> lock_file(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("open", path, errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK) {
        return Status::IOError("the database is in use by another process (lock " + path + ")");
      }
      return io_error("flock", path, error);
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(fd));
  }

  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case OpenMode::kRead: flags |= O_RDONLY; break;
      case OpenMode::kReadWrite: flags |= O_RDWR; break;
      case OpenMode::kCreate: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
    }
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound("no file " + path);
      return io_error("open", path, errno);
    }
    return std::unique_ptr<File>(new PosixFile(path, fd));
  }

  Status list(const std::string& dir, std::vector<std::string>* names) override {
    names->clear();
    DIR* handle = ::opendir(dir.c_str());
    if (handle == nullptr) return io_error("opendir", dir, errno);
    while (struct dirent* entry = ::readdir(handle)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names->push_back(std::move(name));
    }
    ::closedir(handle);
    return Status::OK();
  }

  Status rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return io_error("rename", from + " to " + to, errno);
    return Status::OK();
  }

  Status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return io_error("unlink", path, errno);
    return Status::OK();
  }

  Status sync_dir(const std::string& dir) override {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error("open directory", dir, errno);
    int result = ::fsync(fd);
    int error = errno;
    ::close(fd);
    if (result != 0) return io_error("fsync directory", dir, error);
    return Status::OK();
  }

  bool syncs_are_free(const std::string& dir) override {
    struct statfs info;
    if (::statfs(dir.c_str(), &info) != 0) return false;
    return info.f_type == TMPFS_MAGIC || info.f_type == RAMFS_MAGIC;
  }

  uint64_t free_bytes(const std::string& dir) override {
    struct statvfs info;
    if (::statvfs(dir.c_str(), &info) != 0) return UINT64_MAX;
    return static_cast<uint64_t>(info.f_bavail) * info.f_frsize;
  }

  Status create_dir(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return io_error("mkdir", dir, errno);
    return Status::OK();
  }
};

}  // namespace

FileSystem* posix_file_system() {
  static PosixFileSystem* fs = new PosixFileSystem();  // never destroyed: any thread, any time
  return fs;
}

}  // namespace solo
