// make_backend(): the one place that knows every engine.
#include "tpcc/backend.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tpcc/pg_backend.h"
#include "tpcc/solo_backend.h"
#include "tpcc/sqlite_backend.h"

namespace tpcc {

std::string no_database_message(const std::string& location) {
  return fmt::format("no TPC-C database at {}; run `tpcc load` first", location);
}

std::unique_ptr<Backend> make_backend(const BackendOptions& options) {
  if (options.engine == "sqlite") return std::make_unique<SqliteBackend>(options);
  if (options.engine == "postgres") return std::make_unique<PgBackend>(options);
  if (options.engine == "solo") return std::make_unique<SoloBackend>(options);
  throw std::invalid_argument("unknown engine '" + options.engine +
                              "' (known: solo, sqlite, postgres)");
}

}  // namespace tpcc
