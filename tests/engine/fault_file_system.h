// A fault-injecting, in-memory FileSystem for the durability tests.
//
// It keeps, per file, what was written and what was synced, and per directory
// which names were synced, so that crash() can produce any state a power loss
// may leave: unsynced bytes dropped, kept, the last write torn at a 512 B or
// 4 KiB boundary, unsynced sectors filled with garbage. Faults: fail the n-th
// sync with EIO, ENOSPC after n written bytes, and crash points (from the
// n-th mutating operation on, every operation fails as if the process died).
// Thread safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "solo/file_system.h"

namespace solo::test {

enum class CrashMode {
  kDropUnsynced,      // only synced bytes and synced names survive
  kKeepUnsynced,      // every write reached the disk (names still need a directory sync)
  kTearLastWrite512,  // unsynced writes kept, the last one cut at a 512 B boundary
  kTearLastWrite4K,   // the same at a 4 KiB boundary
  kGarbageUnsynced,   // every sector an unsynced write touched holds garbage
};

class FaultFileSystem final : public FileSystem {
 public:
  struct Node {
    std::string data;     // what reads see
    std::string durable;  // what survives a crash
    struct Write {
      uint64_t offset, size, seq;
    };
    std::vector<Write> unsynced;
  };

  // FileSystem.
  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) override;
  Status list(const std::string& dir, std::vector<std::string>* names) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status sync_dir(const std::string& dir) override;
  Status create_dir(const std::string& dir) override;
  // What is left of enospc_after_bytes' budget; UINT64_MAX without one.
  uint64_t free_bytes(const std::string& dir) override;

  // Faults. -1 switches a fault off.
  void fail_sync_after(int64_t syncs);         // the sync after `syncs` more succeed fails (EIO)
  void fail_write_back_after(int64_t calls);   // the same for File::write_back (EIO)
  void enospc_after_bytes(int64_t bytes);      // writes fail with ENOSPC once this many more were written
  void crash_after_ops(int64_t ops);           // mutating operation number `ops` (from now) and all later fail
  // The same for reading operations (read, size, list): a crash while
  // recovery reads the checkpoint or replays the log, where it writes nothing.
  void crash_after_reads(int64_t reads);
  int64_t reads() const;                       // reading operations so far
  bool crashed() const;
  // Writes to paths containing `part` block until release_writes() (a slow
  // device for one kind of file); held_writes() counts the blocked ones.
  void hold_writes_to(const std::string& part);
  void release_writes();
  int held_writes() const;
  void maybe_hold(const std::string& path);
  int64_t mutating_ops() const;                // mutating operations so far
  int64_t bytes_written() const;               // by write_at, so far
  int64_t enospc_refusals() const;             // writes refused with ENOSPC, so far
  // File::write_back calls so far, in order. They change nothing: a range
  // written back is not durable before sync() (sync_file_range does not
  // flush the device's cache), so crash() treats it as unsynced.
  struct WriteBack {
    std::string path;
    uint64_t offset, size;
    bool wait;
  };
  std::vector<WriteBack> write_backs() const;

  // Power loss: every file and name becomes what `mode` leaves on disk; open
  // File objects must no longer be used; faults are cleared.
  void crash(CrashMode mode, uint32_t seed);

  // Test access: names (paths) of files and their current bytes.
  std::vector<std::string> paths() const;
  std::string contents(const std::string& path) const;
  // Overwrites bytes of a file both in its current and its durable state (bit rot).
  void corrupt(const std::string& path, uint64_t offset, std::string_view bytes);

  // Used by the File objects.
  Status check_op(bool mutating, const std::string& path);
  Status note_write(const std::string& path, uint64_t bytes);
  Status note_sync(const std::string& path);
  Status note_write_back(const std::string& path, uint64_t offset, uint64_t size, bool wait);
  std::mutex& mutex() const { return mutex_; }
  uint64_t next_write_seq() { return ++write_seq_; }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Node>> names_;
  std::map<std::string, std::shared_ptr<Node>> durable_names_;
  int64_t sync_budget_ = -1;
  int64_t write_back_budget_ = -1;
  std::vector<WriteBack> write_backs_;
  int64_t byte_budget_ = -1;
  int64_t crash_at_ = -1;
  int64_t ops_ = 0;
  int64_t read_crash_at_ = -1;
  int64_t reads_ = 0;
  bool crashed_ = false;
  uint64_t write_seq_ = 0;
  int64_t written_ = 0;
  int64_t enospc_refusals_ = 0;
  // Write holds (own lock: a held writer must not block the others).
  mutable std::mutex hold_mutex_;
  std::condition_variable hold_cv_;
  std::string hold_part_;
  int held_ = 0;
};

}  // namespace solo::test
