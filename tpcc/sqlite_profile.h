// Named settings ("profiles") of the SQLite backend: pragmas plus the few
// knobs that live outside SQLite (busy back-off, writer gate, checkpointing).
//
// Profiles exist so that tuning is measured, not guessed: scripts/sqlite-sweep
// runs the harness alternating over them and the winner per storage becomes
// the default (the empty profile name). Every profile keeps these rules:
//   1. journal_mode=WAL and locking_mode=NORMAL (several connections share
//      the file; EXCLUSIVE would lock all but one out).
//   2. A profile usable with --storage disk has synchronous=FULL: in WAL mode
//      that syncs the WAL on every commit, so every commit is durable.
//      synchronous OFF or NORMAL is allowed for --storage ram only.
//   3. page_size only takes effect on a database that does not exist yet; a
//      database keeps the page size it was created with (WAL cannot change it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpcc/backend.h"

namespace tpcc {

struct SqliteProfile {
  std::string name;
  std::string summary;  // what this profile tries, one line
  bool durable() const { return synchronous == "FULL" || synchronous == "EXTRA"; }

  // Applied when the database file is created.
  int page_size = 4096;
  // Tables with a PRIMARY KEY are made WITHOUT ROWID (clustered on the key).
  bool without_rowid = false;

  // Applied to every connection (SQLite's own meaning and units).
  std::string synchronous = "FULL";  // OFF, NORMAL, FULL, EXTRA
  int64_t cache_size = -2000;        // > 0: pages; < 0: KiB
  int64_t mmap_size = 0;             // bytes; 0 = read() instead of mmap
  std::string temp_store = "DEFAULT";
  int wal_autocheckpoint = 1000;    // WAL pages that trigger a PASSIVE checkpoint; 0 = never
  int64_t journal_size_limit = -1;  // bytes the WAL is truncated to after a reset; -1 = never
  bool cache_spill = true;
  bool automatic_index = true;
  int64_t chunk_size = 0;  // SQLITE_FCNTL_CHUNK_SIZE of the database file; 0 = off

  // Busy handler: on a lock conflict first yield the CPU `busy_yields` times,
  // then sleep busy_sleep_us, doubling up to busy_max_sleep_us; give up after
  // busy_give_up_ms of waiting, which makes the backend retry the whole body.
  int busy_yields = 0;
  int busy_sleep_us = 100;
  int busy_max_sleep_us = 2000;
  int busy_give_up_ms = 2000;

  // Serializes writers of this process on a mutex before BEGIN IMMEDIATE, so
  // they queue on a futex instead of polling the file lock. The busy handler
  // still covers other processes.
  bool writer_gate = false;
  // Who checkpoints the WAL once it holds wal_autocheckpoint pages:
  //   "auto":    SQLite, PASSIVE, inside the COMMIT that crossed the threshold
  //              (with writer_gate, while the gate is held).
  //   "passive": the committing connection, PASSIVE, after the gate is released.
  //   "restart": the committing connection, PASSIVE then RESTART, after the gate:
  //              waits (busy handler) for the writer lock and for readers of old
  //              frames, copies every frame, so the next writer rewrites the WAL
  //              from its start. With steady overlapping transactions a PASSIVE
  //              checkpoint never catches up and the WAL only grows (measured:
  //              90 MB in 12 s), every commit then appending to the file.
  std::string checkpoint = "auto";
  // "restart" first runs a PASSIVE pass (no lock writers need), then the
  // RESTART, whose lock waits give up after this long (writers wait meanwhile).
  int checkpoint_wait_ms = 50;
};

// Names of the profiles usable with `storage`, the default first.
// Any thread.
std::vector<std::string> sqlite_profiles(Storage storage);

// The name the empty profile name stands for at `storage`.
std::string sqlite_default_profile(Storage storage);

// The profile called `name` (empty: the default for `storage`). Throws
// std::invalid_argument for an unknown name or a profile that is not durable
// when `storage` is kDisk. The reference stays valid for the program's life.
const SqliteProfile& sqlite_profile(const std::string& name, Storage storage);

// The PRAGMA statements a profile runs, in order, page_size and journal_mode
// first, e.g. "PRAGMA synchronous=OFF". Same errors as sqlite_profile().
std::vector<std::string> sqlite_profile_pragmas(const std::string& name,
                                                Storage storage = Storage::kRam);
std::vector<std::string> sqlite_profile_pragmas(const SqliteProfile& profile);

// The knobs outside SQLite as text, e.g. "busy=yield 0,sleep 100..2000us,give up 2000ms".
std::string sqlite_profile_extras(const SqliteProfile& profile);

}  // namespace tpcc
