// A private PostgreSQL cluster, run by scripts/pg (which holds the layout
// and the tuned settings; see results/postgres-config/README.md).
//
// Layout of the directory: DIR/data (the data directory), the socket
// DIR/.s.PGSQL.5432 (no TCP listener), DIR/server.log.
//
// Life cycle: ensure_running() starts the cluster unless it already runs
// (initdb on first use, database `tpcc` created). The destructor stops the
// cluster if, and only if, this object started it; the data stays for a
// later `tpcc check` or `run --no-load` (`scripts/pg stop --remove` deletes it).
// A SIGINT or SIGTERM of a `tpcc` that installed its interrupt handler
// (interrupt.h) does the same before the process exits: stops the cluster
// if this object started it, and keeps the data.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tpcc/backend.h"
#include "tpcc/interrupt.h"

namespace tpcc {

class PgCluster {
 public:
  // Touches nothing. `dir` empty = pg_default_dir(storage). `terminals` sizes
  // max_connections when this object starts the cluster (0 = the script's
  // default).
  PgCluster(const std::string& dir, Storage storage, int terminals);
  // Stops the cluster when this object started it. Never throws; a failure
  // to stop is printed on stderr. Also run, from the interrupt thread, on a
  // SIGINT or SIGTERM while this object lives.
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // The absolute directory.
  const std::string& dir() const { return dir_; }
  // True when the data directory has been initialized (the cluster may be stopped).
  bool has_data() const;
  // Starts the cluster unless it runs. Any thread. Throws BackendError with
  // the script's one-line reason when it cannot start (the script has then
  // removed whatever it created).
  void ensure_running();
  // True when ensure_running() started the cluster (rather than finding it running).
  bool started_here() const;
  // libpq connection string for database `tpcc` over the socket.
  std::string conninfo() const;
  // The postmaster and its children (backends and background processes);
  // empty when the cluster does not run.
  std::vector<int> pids() const;

 private:
  // Immutable after construction.
  std::string dir_;
  Storage storage_;
  int terminals_;

  // Shared with the interrupt cleanup, which may run on another thread.
  struct State {
    std::mutex mutex;  // guards the fields below; held while starting
    bool running = false;
    bool started_here = false;
  };
  // Stops the cluster at `dir` if `state` says this object started it, and
  // forgets that it did. Any thread.
  static void stop_if_started(State& state, const std::string& dir);

  std::shared_ptr<State> state_;                         // immutable pointer
  std::unique_ptr<InterruptCleanup> interrupt_cleanup_;  // registered while this object lives
};

// The directory of a private cluster when none is given: /dev/shm/solo-pg
// for ram, ./pg-data (absolute) for disk.
std::string pg_default_dir(Storage storage);

// The scripts/pg to run: $SOLO_PG_SCRIPT when set, else the one in the
// source tree this binary was built from.
std::string pg_script_path();

// The postmaster of the data directory `data_dir` (from its postmaster.pid)
// and all processes whose parent it is. Empty when there is no running
// postmaster or the file cannot be read.
std::vector<int> postmaster_family(const std::string& data_dir);

}  // namespace tpcc
