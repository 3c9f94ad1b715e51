#include "database_id.h"

#include <cstdio>
#include <map>
#include <random>

namespace solo::internal {

uint64_t new_database_id() {
  std::random_device random;
  uint64_t id = 0;
  while (id == 0) id = (static_cast<uint64_t>(random()) << 32) ^ random();
  return id;
}

std::string database_id_text(uint64_t id) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(id));
  return text;
}

Status settle_database_id(const std::vector<IdentifiedFile>& files, uint64_t* db_id) {
  if (files.empty()) {
    *db_id = new_database_id();
    return Status::OK();
  }
  std::map<uint64_t, size_t> carried;  // id -> how many files carry it
  for (const IdentifiedFile& file : files) carried[file.db_id]++;
  const IdentifiedFile* witness = &files[0];
  for (const IdentifiedFile& file : files) {
    if (carried[file.db_id] > carried[witness->db_id]) witness = &file;
  }
  *db_id = witness->db_id;
  const size_t agreeing = carried[*db_id];
  for (const IdentifiedFile& file : files) {
    if (file.db_id == *db_id) continue;
    std::string others = agreeing == 1 ? ""
                                       : " and " + std::to_string(agreeing - 1) + " other file" +
                                             (agreeing == 2 ? "" : "s");
    return Status::Corruption(
        file.kind + " " + file.path + " at offset " + std::to_string(file.offset) +
        " is from another database: its id is " + database_id_text(file.db_id) +
        ", this database's " + database_id_text(*db_id) + " (carried by " + witness->path + others +
        ")");
  }
  return Status::OK();
}

}  // namespace solo::internal
