// solo: the SQL shell.
//
//   solo [DIR] [-c SQL]        (DIR: a durable database kept in that directory; none: in memory)
//
// With -c runs SQL and exits; with SQL on standard input (not a terminal)
// runs it and exits; otherwise reads statements interactively (readline
// editing and history, statements end with ';'). Non-interactive runs stop
// at the first error with exit status 1. Errors are printed with the line
// and a caret under the column. Dot commands: see kHelp.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "solo/database.h"
#include "solo/sql/error.h"
#include "solo/sql/session.h"

#ifdef SOLO_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

namespace {

constexpr const char* kHelp =
    ".help                 this text\n"
    ".tables               list the tables\n"
    ".schema [TABLE]       show CREATE statements\n"
    ".timer on|off         time each statement\n"
    ".read FILE            run the SQL in FILE\n"
    ".import FILE TABLE    insert the rows of a CSV file into TABLE\n"
    ".mode table|csv|list  output format\n"
    ".output [FILE]        send output to FILE (no FILE: standard output)\n"
    ".stats                rows per table, state bytes, RSS, live snapshots, owner utilization\n"
    ".quit                 exit\n";

enum class Mode { kTable, kCsv, kList };

class Shell {
 public:
  Shell(solo::Database& db, bool interactive)
      : db_(db), session_(db), interactive_(interactive),
        mode_(interactive ? Mode::kTable : Mode::kList) {}

  // Runs a script; returns false at the first error.
  bool RunScript(std::string_view text);
  void Interactive();

 private:
  bool RunStatement(std::string_view sql);
  bool DotCommand(const std::string& line);
  void Print(const solo::sql::ResultSet& rows);
  std::ostream& out() { return file_out_.is_open() ? file_out_ : std::cout; }
  bool Import(const std::string& path, const std::string& table);
  void Schema(const std::string& table);
  void Stats();

  solo::Database& db_;
  solo::sql::Session session_;
  bool interactive_;
  Mode mode_;
  bool timer_ = false;
  std::ofstream file_out_;
};

// Splits a script into statements at ';' outside strings, quoted names and
// comments. Each piece keeps its text (without the ';').
std::vector<std::string_view> SplitStatements(std::string_view text, bool* complete) {
  std::vector<std::string_view> out;
  size_t start = 0;
  size_t pos = 0;
  int comment_depth = 0;
  while (pos < text.size()) {
    char ch = text[pos];
    if (comment_depth > 0) {
      if (ch == '*' && pos + 1 < text.size() && text[pos + 1] == '/') {
        --comment_depth;
        pos += 2;
      } else if (ch == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
        ++comment_depth;
        pos += 2;
      } else {
        ++pos;
      }
      continue;
    }
    if (ch == '\'' || ch == '"') {
      size_t end = text.find(ch, pos + 1);
      while (end != std::string_view::npos && end + 1 < text.size() && text[end + 1] == ch) {
        end = text.find(ch, end + 2);
      }
      if (end == std::string_view::npos) {
        pos = text.size();
        break;
      }
      pos = end + 1;
    } else if (ch == '-' && pos + 1 < text.size() && text[pos + 1] == '-') {
      size_t end = text.find('\n', pos);
      pos = end == std::string_view::npos ? text.size() : end + 1;
    } else if (ch == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
      comment_depth = 1;
      pos += 2;
    } else if (ch == ';') {
      out.push_back(text.substr(start, pos - start));
      start = ++pos;
    } else {
      ++pos;
    }
  }
  std::string_view rest = text.substr(start);
  bool blank = rest.find_first_not_of(" \t\r\n") == std::string_view::npos;
  if (complete) *complete = blank && comment_depth == 0;
  if (!blank) out.push_back(rest);
  return out;
}

bool IsBlankOrComment(std::string_view sql) {
  bool complete;
  (void)complete;
  // A piece with only comments parses as nothing: skip it.
  size_t pos = 0;
  while (pos < sql.size()) {
    if (sql[pos] == ' ' || sql[pos] == '\t' || sql[pos] == '\r' || sql[pos] == '\n') {
      ++pos;
    } else if (sql.substr(pos, 2) == "--") {
      size_t end = sql.find('\n', pos);
      pos = end == std::string_view::npos ? sql.size() : end + 1;
    } else if (sql.substr(pos, 2) == "/*") {
      size_t end = sql.find("*/", pos + 2);
      pos = end == std::string_view::npos ? sql.size() : end + 2;
    } else {
      return false;
    }
  }
  return true;
}

bool Shell::RunScript(std::string_view text) {
  // Dot commands are whole lines; everything else is SQL.
  std::string sql_buffer;
  std::istringstream lines{std::string(text)};
  std::string line;
  auto flush_sql = [&]() -> bool {
    for (std::string_view statement : SplitStatements(sql_buffer, nullptr)) {
      if (IsBlankOrComment(statement)) continue;
      if (!RunStatement(statement) && !interactive_) return false;
    }
    sql_buffer.clear();
    return true;
  };
  while (std::getline(lines, line)) {
    bool complete = false;
    SplitStatements(sql_buffer, &complete);
    if (complete && !line.empty() && line[0] == '.') {
      if (!flush_sql()) return false;
      if (!DotCommand(line) && !interactive_) return false;
      continue;
    }
    sql_buffer += line;
    sql_buffer += '\n';
  }
  return flush_sql();
}

bool Shell::RunStatement(std::string_view sql) {
  solo::sql::ResultSet rows;
  auto start = std::chrono::steady_clock::now();
  solo::sql::SqlStatus status = session_.Exec(sql, &rows);
  auto elapsed = std::chrono::steady_clock::now() - start;
  if (!status.ok()) {
    // Trim leading blank lines so that the caret line is the statement's.
    std::cerr << solo::sql::FormatError(status.error(), sql);
    return false;
  }
  if (rows.column_count() > 0) {
    Print(rows);
  } else if (interactive_ && !rows.tag().empty()) {
    bool counts = rows.tag() == "INSERT" || rows.tag() == "UPDATE" || rows.tag() == "DELETE";
    if (counts) out() << rows.tag() << " " << rows.affected_rows() << "\n";
    else out() << rows.tag() << "\n";
  }
  if (timer_) {
    out() << fmt::format("Time: {:.3f} ms\n",
                         std::chrono::duration<double, std::milli>(elapsed).count());
  }
  return true;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

void Shell::Print(const solo::sql::ResultSet& rows) {
  size_t columns = rows.column_count();
  std::vector<std::vector<std::string>> text(rows.row_count(), std::vector<std::string>(columns));
  std::vector<bool> numeric(columns, false);
  for (size_t row = 0; row < rows.row_count(); ++row) {
    for (size_t col = 0; col < columns; ++col) {
      const solo::sql::Value& value = rows.at(row, col);
      text[row][col] = value.is_null() && mode_ != Mode::kTable ? "" : value.ToString();
      auto kind = value.kind();
      if (kind == solo::sql::ValueKind::kInt || kind == solo::sql::ValueKind::kDecimal ||
          kind == solo::sql::ValueKind::kDouble) {
        numeric[col] = true;
      }
    }
  }
  if (mode_ == Mode::kCsv || mode_ == Mode::kList) {
    bool csv = mode_ == Mode::kCsv;
    if (csv) {
      for (size_t col = 0; col < columns; ++col) {
        out() << (col ? "," : "") << CsvField(rows.column_names()[col]);
      }
      out() << "\n";
    }
    for (const auto& row : text) {
      for (size_t col = 0; col < columns; ++col) {
        out() << (col ? (csv ? "," : "|") : "") << (csv ? CsvField(row[col]) : row[col]);
      }
      out() << "\n";
    }
    return;
  }
  std::vector<size_t> width(columns);
  for (size_t col = 0; col < columns; ++col) width[col] = rows.column_names()[col].size();
  for (const auto& row : text) {
    for (size_t col = 0; col < columns; ++col) width[col] = std::max(width[col], row[col].size());
  }
  std::string rule = "+";
  for (size_t col = 0; col < columns; ++col) rule += std::string(width[col] + 2, '-') + "+";
  out() << rule << "\n|";
  for (size_t col = 0; col < columns; ++col) {
    out() << fmt::format(" {:<{}} |", rows.column_names()[col], width[col]);
  }
  out() << "\n" << rule << "\n";
  for (const auto& row : text) {
    out() << "|";
    for (size_t col = 0; col < columns; ++col) {
      if (numeric[col]) out() << fmt::format(" {:>{}} |", row[col], width[col]);
      else out() << fmt::format(" {:<{}} |", row[col], width[col]);
    }
    out() << "\n";
  }
  out() << rule << "\n";
  out() << fmt::format("({} row{})\n", rows.row_count(), rows.row_count() == 1 ? "" : "s");
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream stream(line);
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

bool Shell::DotCommand(const std::string& line) {
  std::vector<std::string> words = Words(line);
  const std::string& command = words[0];
  if (command == ".help") {
    out() << kHelp;
  } else if (command == ".quit" || command == ".exit") {
    std::exit(0);
  } else if (command == ".tables") {
    db_.read([&](solo::ReadTxn& txn) {
      for (const solo::TableInfo* table : txn.catalog().tables()) {
        if (table->schema.name.starts_with("__solo_")) continue;
        out() << table->schema.name << "\n";
      }
      return solo::Status::OK();
    });
  } else if (command == ".schema") {
    Schema(words.size() > 1 ? words[1] : "");
  } else if (command == ".timer" && words.size() == 2) {
    timer_ = words[1] == "on";
  } else if (command == ".read" && words.size() == 2) {
    std::ifstream file(words[1]);
    if (!file) {
      std::cerr << "cannot open " << words[1] << "\n";
      return false;
    }
    std::stringstream text;
    text << file.rdbuf();
    return RunScript(text.str());
  } else if (command == ".mode" && words.size() == 2) {
    if (words[1] == "table") mode_ = Mode::kTable;
    else if (words[1] == "csv") mode_ = Mode::kCsv;
    else if (words[1] == "list") mode_ = Mode::kList;
    else {
      std::cerr << "unknown mode " << words[1] << "\n";
      return false;
    }
  } else if (command == ".output") {
    if (file_out_.is_open()) file_out_.close();
    if (words.size() > 1) {
      file_out_.open(words[1]);
      if (!file_out_) {
        std::cerr << "cannot write " << words[1] << "\n";
        return false;
      }
    }
  } else if (command == ".import" && words.size() == 3) {
    return Import(words[1], words[2]);
  } else if (command == ".stats") {
    Stats();
  } else {
    std::cerr << "unknown command or wrong arguments: " << line << " (see .help)\n";
    return false;
  }
  return true;
}

std::string TypeText(const solo::ColumnDef& column) {
  switch (column.type) {
    case solo::Type::kDecimal: return fmt::format("DECIMAL({}, {})", column.precision, column.scale);
    case solo::Type::kChar: return fmt::format("CHAR({})", column.length);
    case solo::Type::kVarChar: return fmt::format("VARCHAR({})", column.length);
    default: return std::string(solo::type_name(column.type));
  }
}

void Shell::Schema(const std::string& only) {
  db_.read([&](solo::ReadTxn& txn) {
    const solo::Catalog& catalog = txn.catalog();
    for (const solo::TableInfo* table : catalog.tables()) {
      const auto& schema = table->schema;
      if (schema.name.starts_with("__solo_") || (!only.empty() && schema.name != only)) continue;
      out() << "CREATE TABLE " << schema.name << " (";
      bool first = true;
      for (const auto& column : schema.columns) {
        if (column.name == "__solo_rowid") continue;
        out() << (first ? "\n  " : ",\n  ") << column.name << " " << TypeText(column)
              << (column.not_null ? " NOT NULL" : "");
        first = false;
      }
      if (schema.columns[schema.primary_key[0]].name != "__solo_rowid") {
        out() << ",\n  PRIMARY KEY (";
        for (size_t key = 0; key < schema.primary_key.size(); ++key) {
          out() << (key ? ", " : "") << schema.columns[schema.primary_key[key]].name;
        }
        out() << ")";
      }
      out() << "\n);\n";
      for (solo::IndexId index_id : table->indexes) {
        const solo::IndexInfo* index = catalog.index(index_id);
        out() << "CREATE " << (index->schema.unique ? "UNIQUE " : "") << "INDEX "
              << index->schema.name << " ON " << schema.name << " (";
        for (size_t col = 0; col < index->schema.columns.size(); ++col) {
          out() << (col ? ", " : "") << schema.columns[index->schema.columns[col]].name;
        }
        out() << ");\n";
      }
    }
    return solo::Status::OK();
  });
}

void Shell::Stats() {
  solo::Stats stats = db_.stats();
  db_.read([&](solo::ReadTxn& txn) {
    for (const solo::TableInfo* table : txn.catalog().tables()) {
      if (table->schema.name.starts_with("__solo_")) continue;
      out() << fmt::format("{:<24} {:>12} rows\n", table->schema.name, txn.entry_count(table->id));
    }
    return solo::Status::OK();
  });
  long rss_pages = 0;
  std::ifstream statm("/proc/self/statm");
  long size_pages;
  statm >> size_pages >> rss_pages;
  out() << fmt::format("state bytes        {}\n", stats.state_bytes);
  out() << fmt::format("node bytes         {}\n", stats.node_bytes);
  out() << fmt::format("RSS bytes          {}\n", rss_pages * sysconf(_SC_PAGESIZE));
  out() << fmt::format("generation         {}\n", stats.generation);
  out() << fmt::format("live snapshots     {}\n", stats.live_snapshots);
  out() << fmt::format("retired pending    {}\n", stats.retired_pending);
  out() << fmt::format("commits/rollbacks  {}/{}\n", stats.commits, stats.rollbacks);
  out() << fmt::format("owner utilization  {:.1f}%\n", stats.owner_utilization() * 100);
}

// Parses one CSV record (RFC 4180 quotes; fields may not span lines here).
std::vector<std::string> CsvRecord(const std::string& line, std::vector<bool>* quoted) {
  std::vector<std::string> fields;
  quoted->clear();
  std::string field;
  bool in_quotes = false, was_quoted = false;
  for (size_t pos = 0; pos < line.size(); ++pos) {
    char ch = line[pos];
    if (in_quotes) {
      if (ch == '"' && pos + 1 < line.size() && line[pos + 1] == '"') {
        field += '"';
        ++pos;
      } else if (ch == '"') {
        in_quotes = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      in_quotes = was_quoted = true;
    } else if (ch == ',') {
      fields.push_back(field);
      quoted->push_back(was_quoted);
      field.clear();
      was_quoted = false;
    } else if (ch != '\r') {
      field += ch;
    }
  }
  fields.push_back(field);
  quoted->push_back(was_quoted);
  return fields;
}

bool Shell::Import(const std::string& path, const std::string& table) {
  std::ifstream file(path);
  if (!file) {
    std::cerr << "cannot open " << path << "\n";
    return false;
  }
  if (!RunStatement("BEGIN")) return false;
  std::string line;
  std::vector<bool> quoted;
  std::vector<solo::sql::Value> params;
  std::string sql;
  size_t width = 0;
  uint64_t rows = 0;
  while (std::getline(file, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields = CsvRecord(line, &quoted);
    if (sql.empty() || fields.size() != width) {
      width = fields.size();
      sql = "INSERT INTO " + table + " VALUES (";
      for (size_t col = 0; col < width; ++col) sql += col ? ", ?" : "?";
      sql += ")";
    }
    params.clear();
    for (size_t col = 0; col < fields.size(); ++col) {
      params.push_back(fields[col].empty() && !quoted[col] ? solo::sql::Value::Null()
                                                           : solo::sql::Value::Text(fields[col]));
    }
    solo::sql::SqlStatus status = session_.Exec(sql, params, nullptr);
    if (!status.ok()) {
      std::cerr << path << ":" << rows + 1 << ": " << solo::sql::FormatError(status.error(), sql);
      session_.Exec("ROLLBACK");
      return false;
    }
    ++rows;
  }
  if (!RunStatement("COMMIT")) return false;
  if (interactive_) out() << "imported " << rows << " rows\n";
  return true;
}

void Shell::Interactive() {
  std::string buffer;
  for (;;) {
    const char* prompt = buffer.empty() ? "solo> " : "  ...> ";
    std::string line;
#ifdef SOLO_HAVE_READLINE
    char* raw = readline(prompt);
    if (raw == nullptr) break;
    line = raw;
    free(raw);
    if (!line.empty()) add_history(line.c_str());
#else
    std::cout << prompt << std::flush;
    if (!std::getline(std::cin, line)) break;
#endif
    if (buffer.empty() && !line.empty() && line[0] == '.') {
      DotCommand(line);
      continue;
    }
    buffer += line;
    buffer += '\n';
    bool complete = false;
    std::vector<std::string_view> statements = SplitStatements(buffer, &complete);
    if (!complete) continue;
    for (std::string_view statement : statements) {
      if (!IsBlankOrComment(statement)) RunStatement(statement);
    }
    buffer.clear();
  }
}

int Usage() {
  std::cerr << "usage: solo [DIR] [-c SQL]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  std::string command;
  bool has_command = false;
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    std::string arg = argv[arg_idx];
    if (arg == "-c") {
      if (arg_idx + 1 >= argc) return Usage();
      command = argv[++arg_idx];
      has_command = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: solo [DIR] [-c SQL]\n\n" << kHelp;
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage();
    } else if (dir.empty()) {
      dir = arg;
    } else {
      return Usage();
    }
  }
  // With DIR the database is durable: its log and checkpoints live in DIR.
  solo::Options options;
  options.dir = dir;
  auto opened = solo::Database::open(options);
  if (!opened.ok()) {
    std::cerr << "cannot open the database: " << opened.status().ToString() << "\n";
    return 1;
  }
  std::unique_ptr<solo::Database> db = std::move(opened.value());
  int exit_code = 0;
  {
    bool interactive = !has_command && isatty(STDIN_FILENO);
    Shell shell(*db, interactive);
    if (has_command) {
      exit_code = shell.RunScript(command) ? 0 : 1;
    } else if (!interactive) {
      std::stringstream text;
      text << std::cin.rdbuf();
      exit_code = shell.RunScript(text.str()) ? 0 : 1;
    } else {
      shell.Interactive();
    }
  }
  db->close();
  return exit_code;
}
