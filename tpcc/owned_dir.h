// Directories the harness may empty: only the ones it made.
//
// `load`, `run` and `replay` start from a fresh database, so they delete the
// one in --dir (solo's log and checkpoints, SQLite's file, PostgreSQL's
// TPC-C tables), and `crosscheck` removes its databases when they agree. So
// that none of them deletes a database it did not make (a user's own solo
// database given as --dir, say), a directory tpcc makes or finds empty gets
// a marker file, `tpcc-owned` (one line: the command and the time), and
// tpcc deletes nothing in a non-empty directory without it. The engines'
// default locations (/dev/shm/solo-tpcc, ./tpcc-data, /dev/shm/solo-pg, ...)
// are tpcc's by name: older versions wrote no marker there, so an unmarked
// default directory is adopted (marked) rather than refused.
// scripts/pg, scripts/crashloop and scripts/recovery-bench write and honour
// the same marker.
#pragma once

#include <string>

namespace tpcc {

// The marker's file name inside an owned directory.
inline constexpr const char* kOwnedMarker = "tpcc-owned";

// True when `dir` holds the marker file.
bool dir_is_owned(const std::string& dir);

// Creates `dir` (with its parents) when missing, and writes the marker into
// it when it was missing or is empty. Leaves a non-empty directory as it is
// (marked or not). Returns dir_is_owned(dir) afterwards. Throws BackendError
// naming the directory when it cannot be created or the marker written.
bool mark_dir_if_new(const std::string& dir);

// Called before tpcc deletes anything in `dir`: mark_dir_if_new(dir), then
// accepts `dir` when it holds the marker, or when `adopt` (a default
// location, which is marked now). Otherwise throws BackendError: "`what`:
// refusing to delete ... in DIR", saying why and how to proceed (a new or
// empty directory, or delete its contents yourself). The errors of
// mark_dir_if_new() come prefixed with "`what`: ".
void claim_dir(const std::string& dir, bool adopt, const std::string& what);

}  // namespace tpcc
