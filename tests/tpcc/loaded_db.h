// A W=1 SQLite database loaded once per test process, in a private directory
// under /dev/shm that is removed at exit.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "tpcc/backend.h"
#include "tpcc/loader.h"

namespace tpcc_test {

struct LoadedDb {
  std::string dir;
  std::unique_ptr<tpcc::Backend> backend;
  tpcc::LoadInfo info;
  ~LoadedDb() {
    backend.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

inline std::string private_dir(const std::string& name) {
  return "/dev/shm/solo-test-" + name + "-" + std::to_string(getpid());
}

inline LoadedDb& loaded_w1(uint64_t seed = 11) {
  static std::unique_ptr<LoadedDb> db = [seed] {
    auto db_ptr = std::make_unique<LoadedDb>();
    LoadedDb& loaded = *db_ptr;
    loaded.dir = private_dir("loaded");
    tpcc::BackendOptions options;
    options.engine = "sqlite";
    options.storage = tpcc::Storage::kRam;
    options.dir = loaded.dir;
    loaded.backend = tpcc::make_backend(options);
    tpcc::LoadOptions load_options;
    load_options.warehouses = 1;
    load_options.seed = seed;
    load_options.progress = false;
    loaded.info = tpcc::load_database(*loaded.backend, load_options);
    return db_ptr;
  }();
  return *db;
}

}  // namespace tpcc_test
