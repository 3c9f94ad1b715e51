// The file-system interface: every file the engine reads or writes goes
// through it, so that tests can substitute a fault-injecting one (drop
// unsynced bytes, tear a write, fail fsync, ENOSPC, crash points).
//
// Errors are Status values; kIOError messages name the file and the failed
// operation ("ENOSPC" is spelled out for a full device).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "solo/status.h"

namespace solo {

// An open file. One thread uses a File at a time.
class File {
 public:
  virtual ~File() = default;

  // Reads up to `size` bytes at `offset` into `out`; *read is the number read
  // (less than `size` only at the end of the file).
  virtual Status read_at(uint64_t offset, size_t size, char* out, size_t* read) = 0;
  // Writes all of `data` at `offset` (extending the file if needed). Not
  // durable before sync().
  virtual Status write_at(uint64_t offset, std::string_view data) = 0;
  // Makes every write so far durable (fdatasync). A failed sync is fatal for
  // the caller: never retry it (DESIGN.md invariant 7).
  virtual Status sync() = 0;
  // Starts writing [offset, offset + size) back to the device and, if
  // `wait`, returns once those bytes are written (sync_file_range). Not a
  // durability point: the device's cache, the file's metadata and any other
  // range still need sync(). It lets a writer of a large file keep the
  // dirty data it leaves for the final sync() small. An error means written
  // data may be lost: fatal like a failed sync(). Default: nothing.
  virtual Status write_back(uint64_t offset, uint64_t size, bool wait) {
    (void)offset;
    (void)size;
    (void)wait;
    return Status::OK();
  }
  // Cuts the file to `size` bytes (ftruncate). Not durable before sync().
  virtual Status truncate(uint64_t size) = 0;
  // The file's size in bytes.
  virtual Result<uint64_t> size() = 0;
  // The path the file was opened with (for messages).
  virtual const std::string& path() const = 0;
};

// An exclusive lock on a file, held until destroyed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

enum class OpenMode : uint8_t {
  kRead,         // existing file, read only
  kReadWrite,    // existing file
  kCreate,       // create or truncate, read and write
};

// File names, directories and open files. Implementations are thread safe.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // NotFound if kRead/kReadWrite and the file does not exist.
  virtual Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) = 0;
  // Names (not paths) of the entries of `dir`, without "." and "..".
  virtual Status list(const std::string& dir, std::vector<std::string>* names) = 0;
  // Atomically replaces `to` by `from`. Durable only after sync_dir().
  virtual Status rename(const std::string& from, const std::string& to) = 0;
  virtual Status remove(const std::string& path) = 0;
  // Makes the directory's entries (creations, renames, removals) durable.
  virtual Status sync_dir(const std::string& dir) = 0;
  // Creates `dir` if it does not exist (its parent must exist).
  virtual Status create_dir(const std::string& dir) = 0;
  // True if files in `dir` live in memory (tmpfs, ramfs), so that sync()
  // costs nothing and a write is as durable as it will ever be: the log
  // is then written by the owner itself (Options::log_on_owner). The
  // default implementation says false.
  virtual bool syncs_are_free(const std::string& dir) {
    (void)dir;
    return false;
  }
  // Bytes an unprivileged writer may still add to the file system holding
  // `dir` (statvfs's f_bavail x f_frsize); UINT64_MAX where unknown (the
  // default implementation). Used to keep preallocation from filling it.
  virtual uint64_t free_bytes(const std::string& dir) {
    (void)dir;
    return UINT64_MAX;
  }
  // Takes an exclusive lock on `path` (created if missing) for as long as
  // the returned object lives; IOError naming the path if another holder
  // (another process, or another open in this one) has it. The default
  // implementation locks nothing.
  virtual Result<std::unique_ptr<FileLock>> lock_file(const std::string& path) {
    (void)path;
    return std::make_unique<FileLock>();
  }
};

// The POSIX implementation (pread/pwrite/fdatasync). Lives forever; any thread.
FileSystem* posix_file_system();

}  // namespace solo
