#include "solo_backend.h"

#include "solo/sql/parser.h"

namespace solo::sql::slt {

SoloBackend::SoloBackend() { Reset(); }

SoloBackend::~SoloBackend() {
  session_.reset();
  if (db_) db_->close();
}

void SoloBackend::Reset() {
  session_.reset();
  if (db_) db_->close();
  db_.reset();
  auto opened = Database::open(Options{});
  db_ = std::move(opened.value());
  Session::Options options;
  options.idle_timeout = std::chrono::seconds(30);
  session_ = std::make_unique<Session>(*db_, options);
}

ExecResult SoloBackend::Execute(std::string_view sql) {
  ExecResult result;
  Result<std::vector<ParsedStatement>> script = ParseScript(sql);
  if (!script.ok()) {
    result.ok = false;
    result.error_code = std::string(script.error().code());
    result.error_message = script.error().ToString();
    return result;
  }
  ResultSet rows;
  for (const ParsedStatement& statement : script.value()) {
    std::string_view text = sql.substr(statement.begin_offset, statement.end_offset - statement.begin_offset);
    SqlStatus status = session_->Exec(text, &rows);
    if (!status.ok()) {
      result.ok = false;
      result.error_code = std::string(status.error().code());
      result.error_message = status.error().ToString();
      return result;
    }
  }
  result.column_count = rows.column_count();
  for (size_t row = 0; row < rows.row_count(); ++row) {
    std::vector<Value> out_row;
    for (size_t col = 0; col < rows.column_count(); ++col) {
      const sql::Value& value = rows.at(row, col);
      Value out;
      switch (value.kind()) {
        case ValueKind::kNull: break;
        case ValueKind::kBool:
        case ValueKind::kInt:
          out.type = Value::Type::kInteger;
          out.integer = value.as_int();
          break;
        case ValueKind::kDouble:
          out.type = Value::Type::kReal;
          out.real = value.as_double();
          break;
        default:
          out.type = Value::Type::kText;
          out.text = value.ToString();
          break;
      }
      out_row.push_back(std::move(out));
    }
    result.rows.push_back(std::move(out_row));
  }
  return result;
}

}  // namespace solo::sql::slt
