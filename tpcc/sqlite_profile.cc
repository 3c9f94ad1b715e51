// The profile table. Each candidate changes one thing against the base of its
// storage (ram-off, disk-full), so a sweep says which knob matters; the
// default of each storage is the sweeps' winner (scripts/sqlite-sweep,
// results/sqlite-sweep/README.md): ram-restart and disk-restart.
//
// Why these knobs (SQLite 3.40 behaviour that shapes them):
//  - In WAL mode a connection drops its whole page cache whenever another
//    connection committed since its last transaction (pagerBeginReadTransaction
//    -> pager_reset), so with many terminals a large cache_size buys little.
//  - With mmap_size > 0 that same reset also unmaps the file, so mmap may cost
//    a munmap (and TLB shootdown) per transaction instead of saving copies.
//  - On this disk an fdatasync that overwrites blocks is ~4x faster than one
//    that appends (DESIGN.md §8): the WAL is rewritten from its start after a
//    complete checkpoint, so journal_size_limit must not truncate it, and
//    chunk_size lets the database file grow in preallocated chunks.
//  - With terminals whose transactions always overlap, a PASSIVE checkpoint
//    never completes, so the WAL never restarts: it grew by ~90 MB in 12 s,
//    every commit appending, and once past wal_autocheckpoint every commit
//    runs another checkpoint attempt. checkpoint="restart" bounds it (the
//    sweeps' winner on both storages; on disk it trades a worse p99 for
//    throughput, since RESTART holds the writer lock while it syncs).
#include "tpcc/sqlite_profile.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tpcc {
namespace {

// Settings every tuned profile starts from.
SqliteProfile tuned_base(std::string name, std::string summary, std::string synchronous) {
  SqliteProfile profile;
  profile.name = std::move(name);
  profile.summary = std::move(summary);
  profile.synchronous = std::move(synchronous);
  profile.page_size = 4096;
  profile.cache_size = -16384;  // 16 MiB per connection
  profile.mmap_size = 0;
  profile.temp_store = "MEMORY";
  profile.wal_autocheckpoint = 1000;
  profile.journal_size_limit = -1;
  profile.cache_spill = true;
  profile.automatic_index = false;  // the schema has the indexes the queries need
  profile.busy_yields = 0;
  profile.busy_sleep_us = 50;
  profile.busy_max_sleep_us = 1000;
  profile.busy_give_up_ms = 2000;
  return profile;
}

template <typename Change>
SqliteProfile variant(SqliteProfile base, std::string name, std::string summary, Change change) {
  base.name = std::move(name);
  base.summary = std::move(summary);
  change(base);
  return base;
}

std::vector<SqliteProfile> make_profiles() {
  std::vector<SqliteProfile> profiles;

  SqliteProfile stock;
  stock.name = "stock";
  stock.summary =
      "SQLite defaults (synchronous=FULL, 2 MB cache, no mmap) plus WAL and the busy handler";
  profiles.push_back(stock);

  // --- ram: tmpfs, durability not required -------------------------------
  const SqliteProfile ram = tuned_base("ram-off", "tuned base for ram: synchronous=OFF", "OFF");
  profiles.push_back(ram);
  profiles.push_back(variant(ram, "ram-normal", "synchronous=NORMAL (WAL synced at checkpoints)",
                             [](SqliteProfile& p) { p.synchronous = "NORMAL"; }));
  profiles.push_back(variant(ram, "ram-mmap", "mmap_size=1 GiB",
                             [](SqliteProfile& p) { p.mmap_size = int64_t{1} << 30; }));
  profiles.push_back(variant(ram, "ram-bigcache", "cache_size=256 MiB per connection",
                             [](SqliteProfile& p) { p.cache_size = -262144; }));
  profiles.push_back(
      variant(ram, "ram-p2k", "page_size=2048", [](SqliteProfile& p) { p.page_size = 2048; }));
  profiles.push_back(
      variant(ram, "ram-p8k", "page_size=8192", [](SqliteProfile& p) { p.page_size = 8192; }));
  profiles.push_back(variant(ram, "ram-ckpt8k", "wal_autocheckpoint=8000 pages",
                             [](SqliteProfile& p) { p.wal_autocheckpoint = 8000; }));
  profiles.push_back(variant(ram, "ram-gate",
                             "writers queue on an in-process mutex; checkpoint after it",
                             [](SqliteProfile& p) {
                               p.writer_gate = true;
                               p.checkpoint = "passive";
                             }));
  profiles.push_back(variant(ram, "ram-restart",
                             "RESTART checkpoints: the WAL is rewritten, not grown",
                             [](SqliteProfile& p) { p.checkpoint = "restart"; }));
  profiles.push_back(variant(ram, "ram-norowid",
                             "tables with a composite primary key WITHOUT ROWID",
                             [](SqliteProfile& p) { p.without_rowid = true; }));
  profiles.push_back(variant(ram, "ram-norowid-p8k", "WITHOUT ROWID and page_size=8192",
                             [](SqliteProfile& p) {
                               p.without_rowid = true;
                               p.page_size = 8192;
                             }));
  profiles.push_back(variant(ram, "ram-spin",
                             "busy handler yields 50 times, then sleeps 20..500 us",
                             [](SqliteProfile& p) {
                               p.busy_yields = 50;
                               p.busy_sleep_us = 20;
                               p.busy_max_sleep_us = 500;
                             }));

  // --- disk: every commit durable (synchronous=FULL) ---------------------
  const SqliteProfile disk =
      tuned_base("disk-full", "tuned base for disk: synchronous=FULL", "FULL");
  profiles.push_back(disk);
  profiles.push_back(variant(disk, "disk-mmap", "mmap_size=1 GiB",
                             [](SqliteProfile& p) { p.mmap_size = int64_t{1} << 30; }));
  profiles.push_back(variant(disk, "disk-p2k", "page_size=2048 (fewer WAL bytes per commit)",
                             [](SqliteProfile& p) { p.page_size = 2048; }));
  profiles.push_back(
      variant(disk, "disk-p8k", "page_size=8192", [](SqliteProfile& p) { p.page_size = 8192; }));
  profiles.push_back(variant(disk, "disk-ckpt8k", "wal_autocheckpoint=8000 pages",
                             [](SqliteProfile& p) { p.wal_autocheckpoint = 8000; }));
  profiles.push_back(variant(disk, "disk-gate",
                             "writers queue on an in-process mutex; checkpoint after it",
                             [](SqliteProfile& p) {
                               p.writer_gate = true;
                               p.checkpoint = "passive";
                             }));
  profiles.push_back(variant(disk, "disk-restart",
                             "RESTART checkpoints: the WAL is rewritten, not grown",
                             [](SqliteProfile& p) { p.checkpoint = "restart"; }));
  profiles.push_back(variant(disk, "disk-gate-restart", "writer gate and RESTART checkpoints",
                             [](SqliteProfile& p) {
                               p.writer_gate = true;
                               p.checkpoint = "restart";
                             }));
  profiles.push_back(variant(disk, "disk-chunk", "database file grows in 64 MiB chunks",
                             [](SqliteProfile& p) { p.chunk_size = int64_t{64} << 20; }));
  profiles.push_back(variant(disk, "disk-norowid",
                             "tables with a composite primary key WITHOUT ROWID",
                             [](SqliteProfile& p) { p.without_rowid = true; }));
  profiles.push_back(variant(disk, "disk-jsl",
                             "journal_size_limit=1 MiB (WAL truncated: appends; control)",
                             [](SqliteProfile& p) { p.journal_size_limit = int64_t{1} << 20; }));
  return profiles;
}

const std::vector<SqliteProfile>& all_profiles() {
  static const std::vector<SqliteProfile> profiles = make_profiles();
  return profiles;
}

const char* storage_name(Storage storage) {
  return storage == Storage::kRam ? "ram" : "disk";
}

}  // namespace

std::string sqlite_default_profile(Storage storage) {
  // Winners of the sweeps in results/sqlite-sweep/ (see its README.md).
  return storage == Storage::kRam ? "ram-restart" : "disk-restart";
}

std::vector<std::string> sqlite_profiles(Storage storage) {
  std::vector<std::string> names{sqlite_default_profile(storage)};
  for (const SqliteProfile& profile : all_profiles()) {
    if (profile.name == names.front()) continue;
    if (storage == Storage::kDisk && !profile.durable()) continue;
    // Profiles tuned for the other storage are skipped (usable, but not candidates).
    const std::string other = storage == Storage::kRam ? "disk-" : "ram-";
    if (profile.name.rfind(other, 0) == 0) continue;
    names.push_back(profile.name);
  }
  return names;
}

const SqliteProfile& sqlite_profile(const std::string& name, Storage storage) {
  const std::string wanted = name.empty() ? sqlite_default_profile(storage) : name;
  for (const SqliteProfile& profile : all_profiles()) {
    if (profile.name != wanted) continue;
    if (storage == Storage::kDisk && !profile.durable()) {
      throw std::invalid_argument(fmt::format(
          "sqlite profile '{}' has synchronous={}, which is not durable; --storage disk needs "
          "synchronous=FULL",
          wanted, profile.synchronous));
    }
    return profile;
  }
  std::string known;
  for (const SqliteProfile& profile : all_profiles()) {
    known += (known.empty() ? "" : ", ") + profile.name;
  }
  throw std::invalid_argument(
      fmt::format("unknown sqlite profile '{}' for --storage {} (known: {})", wanted,
                  storage_name(storage), known));
}

std::vector<std::string> sqlite_profile_pragmas(const SqliteProfile& profile) {
  return {
      fmt::format("PRAGMA page_size={}", profile.page_size),
      "PRAGMA journal_mode=WAL",
      "PRAGMA locking_mode=NORMAL",
      fmt::format("PRAGMA synchronous={}", profile.synchronous),
      fmt::format("PRAGMA cache_size={}", profile.cache_size),
      fmt::format("PRAGMA mmap_size={}", profile.mmap_size),
      fmt::format("PRAGMA temp_store={}", profile.temp_store),
      fmt::format("PRAGMA wal_autocheckpoint={}", profile.wal_autocheckpoint),
      fmt::format("PRAGMA journal_size_limit={}", profile.journal_size_limit),
      fmt::format("PRAGMA cache_spill={}", profile.cache_spill ? "ON" : "OFF"),
      fmt::format("PRAGMA automatic_index={}", profile.automatic_index ? "ON" : "OFF"),
      "PRAGMA foreign_keys=OFF",
  };
}

std::vector<std::string> sqlite_profile_pragmas(const std::string& name, Storage storage) {
  return sqlite_profile_pragmas(sqlite_profile(name, storage));
}

std::string sqlite_profile_extras(const SqliteProfile& profile) {
  return fmt::format(
      "busy=yield {},sleep {}..{}us,give up {}ms writer_gate={} checkpoint={} "
      "checkpoint_wait={}ms chunk_size={} without_rowid={}",
      profile.busy_yields, profile.busy_sleep_us, profile.busy_max_sleep_us,
      profile.busy_give_up_ms, profile.writer_gate ? "on" : "off", profile.checkpoint,
      profile.checkpoint_wait_ms, profile.chunk_size, profile.without_rowid ? "on" : "off");
}

}  // namespace tpcc
