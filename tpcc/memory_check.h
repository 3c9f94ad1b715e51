// Refuses a load that cannot fit in memory before it starts, instead of
// letting it run for minutes and end in the kernel's out-of-memory kill.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpcc/backend.h"

namespace tpcc {

// The memory a freshly loaded W-warehouse database of `options`' engine
// takes on this machine, in bytes; 0 when its data is not held in memory
// (SQLite or a private PostgreSQL on the disk, a server given by --pg-url).
// solo holds its state in memory on both storages; --storage ram puts
// SQLite's and PostgreSQL's files on /dev/shm, which is memory too.
// Measured after `tpcc load` (W=2, session 40; tpcc/README.md): solo's
// resident set ~150 MiB per warehouse, SQLite's file ~85 MiB, PostgreSQL's
// cluster ~270 MiB (tables, indexes and its WAL); rounded up. A run adds to
// it as New-Orders insert orders (solo at ~50k tps: ~1 GiB a minute).
int64_t load_memory_bytes(const BackendOptions& options, int warehouses);

// A field of /proc/meminfo ("MemTotal") in bytes, or -1 if the kernel does
// not say.
int64_t meminfo_bytes(const std::string& field);

// MemAvailable from /proc/meminfo in bytes, or -1 if the kernel does not say.
int64_t available_memory_bytes();

// `tpcc run`'s default for RunOptions::memory_floor_bytes: a tenth of the
// machine's memory, at most 1 GiB (1 GiB if the kernel does not say). The
// margin leaves room for what follows the window (the checks, solo's
// checkpoint at close, which on --storage ram is written to /dev/shm) and
// for ~1 s of growth between two looks (solo: ~20 MB).
int64_t default_memory_floor_bytes();

// "" when `needed` bytes fit in `available` (or `available` is unknown),
// else the error message: what is needed, what is available, what to do.
std::string memory_shortfall(const std::string& what, int warehouses, int64_t needed,
                             int64_t available);

}  // namespace tpcc
