#include "solo/catalog.h"

namespace solo {

const TableInfo* Catalog::find_table(std::string_view name) const {
  for (const Entry& entry : entries_) {
    if (entry.table && entry.table->schema.name == name) return entry.table.get();
  }
  return nullptr;
}

const IndexInfo* Catalog::find_index(std::string_view name) const {
  for (const Entry& entry : entries_) {
    if (entry.index && entry.index->schema.name == name) return entry.index.get();
  }
  return nullptr;
}

std::vector<const TableInfo*> Catalog::tables() const {
  std::vector<const TableInfo*> result;
  for (const Entry& entry : entries_) {
    if (entry.table) result.push_back(entry.table.get());
  }
  return result;
}

}  // namespace solo
