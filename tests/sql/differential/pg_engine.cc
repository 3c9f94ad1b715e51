#include "pg_engine.h"

#include <pqxx/pqxx>
#include <stdexcept>

namespace solo::sql::differential {
namespace {

// Type OIDs (pg_type.h) of the result columns the generator produces.
constexpr pqxx::oid kBoolOid = 16;
constexpr pqxx::oid kInt8Oid = 20;
constexpr pqxx::oid kInt2Oid = 21;
constexpr pqxx::oid kInt4Oid = 23;
constexpr pqxx::oid kFloat4Oid = 700;
constexpr pqxx::oid kFloat8Oid = 701;
constexpr pqxx::oid kTimestampOid = 1114;
constexpr pqxx::oid kNumericOid = 1700;

Cell ToCell(const pqxx::field& field, pqxx::oid type) {
  Cell cell;
  if (field.is_null()) return cell;
  const std::string text = field.c_str();
  switch (type) {
    case kBoolOid:
      cell.kind = CellKind::kBool;
      cell.text = text == "t" ? "true" : "false";
      return cell;
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
    case kNumericOid:
      return NumberCell(text, /*approximate=*/false);
    case kFloat4Oid:
    case kFloat8Oid:
      return NumberCell(text, /*approximate=*/true);
    case kTimestampOid:
      return TimestampCell(text);
    default:
      cell.kind = CellKind::kText;
      cell.text = text;
      return cell;
  }
}

// The message's first line, "ERROR:  " dropped.
std::string FirstLine(const char* what) {
  std::string text = what;
  if (text.rfind("ERROR:", 0) == 0) text.erase(0, text.find_first_not_of(' ', 6));
  return text.substr(0, text.find('\n'));
}

}  // namespace

struct PgEngine::Connection {
  explicit Connection(const std::string& conninfo) : connection(conninfo) {}
  pqxx::connection connection;
};

PgEngine::PgEngine(const std::string& conninfo, const std::string& database) {
  try {
    {
      pqxx::connection admin(conninfo);
      pqxx::nontransaction work(admin);
      work.exec("DROP DATABASE IF EXISTS " + database);
      work.exec("CREATE DATABASE " + database +
                " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'");
    }
    connection_ = std::make_unique<Connection>(conninfo + " dbname=" + database);
  } catch (const std::exception& error) {
    throw std::runtime_error("postgres: " + FirstLine(error.what()));
  }
}

PgEngine::~PgEngine() = default;

Outcome PgEngine::Run(std::string_view sql) {
  Outcome outcome;
  try {
    pqxx::nontransaction work(connection_->connection);
    const pqxx::result result = work.exec(std::string(sql));
    for (const pqxx::row& source : result) {
      Row row;
      for (pqxx::row::size_type col = 0; col < source.size(); ++col) {
        row.push_back(ToCell(source[col], result.column_type(col)));
      }
      outcome.rows.push_back(std::move(row));
    }
  } catch (const pqxx::sql_error& error) {
    outcome.ok = false;
    outcome.sqlstate = error.sqlstate();
    outcome.message = FirstLine(error.what());
  } catch (const pqxx::broken_connection& error) {
    throw std::runtime_error("postgres: connection lost: " + FirstLine(error.what()));
  }
  return outcome;
}

}  // namespace solo::sql::differential
