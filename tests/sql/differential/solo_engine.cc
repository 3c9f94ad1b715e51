#include "solo_engine.h"

#include <cstdio>
#include <cstdlib>

namespace solo::sql::differential {
namespace {

Cell ToCell(const Value& value) {
  Cell cell;
  switch (value.kind()) {
    case ValueKind::kNull:
      break;
    case ValueKind::kBool:
      cell.kind = CellKind::kBool;
      cell.text = value.as_bool() ? "true" : "false";
      break;
    case ValueKind::kInt:
    case ValueKind::kDecimal:
      return NumberCell(value.ToString(), /*approximate=*/false);
    case ValueKind::kDouble:
      return NumberCell(value.ToString(), /*approximate=*/true);
    case ValueKind::kText:
      cell.kind = CellKind::kText;
      cell.text = value.as_text();
      break;
    case ValueKind::kTimestamp:
      return TimestampCell(value.ToString());
  }
  return cell;
}

}  // namespace

SoloEngine::SoloEngine() {
  auto opened = Database::open(Options{});
  if (!opened.ok()) {
    std::fprintf(stderr, "differential: cannot open solo's database\n");
    std::exit(2);
  }
  db_ = std::move(opened.value());
  session_ = std::make_unique<Session>(*db_);
}

SoloEngine::~SoloEngine() {
  session_.reset();
  db_->close();
}

Outcome SoloEngine::Run(std::string_view sql) {
  Outcome outcome;
  ResultSet rows;
  SqlStatus status = session_->Exec(sql, &rows);
  if (!status.ok()) {
    outcome.ok = false;
    outcome.sqlstate = std::string(status.error().code());
    outcome.message = status.error().message();
    return outcome;
  }
  for (size_t row_idx = 0; row_idx < rows.row_count(); ++row_idx) {
    Row row;
    for (size_t col = 0; col < rows.column_count(); ++col)
      row.push_back(ToCell(rows.at(row_idx, col)));
    outcome.rows.push_back(std::move(row));
  }
  return outcome;
}

}  // namespace solo::sql::differential
