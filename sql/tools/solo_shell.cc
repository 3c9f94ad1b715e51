// solo: the SQL shell.
//
//   solo [DIR] [-c SQL | -f FILE]   (DIR: a durable database kept in that directory; none:
//                                    in memory)
//
// With -c runs SQL, with -f the script in FILE, and exits; with SQL on
// standard input (not a terminal) runs it and exits; otherwise reads
// statements interactively (readline editing and history, statements end
// with ';', Ctrl-C drops the statement being typed or cancels the running
// one, 57014: terminal_input.h).
// Non-interactive runs stop at the first error with exit status 1 (Ctrl-C
// cancels the running statement: an error, 57014). Errors
// are printed with the line and a caret under the column; in a file (-f,
// .read) they start with the file's name and the line where the statement
// starts. Dot commands: see kHelp.
//
// CSV (.mode csv, .import) follows PostgreSQL's COPY ... CSV so that export
// and import round-trip: NULL is an empty unquoted field, an empty string
// is "" (a quoted empty field). .import refuses anything else (csv_reader.h)
// and inserts all of a file or nothing.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "csv_reader.h"
#include "solo/codec.h"
#include "solo/database.h"
#include "solo/sql/ast_printer.h"
#include "solo/sql/error.h"
#include "solo/sql/lexer.h"
#include "solo/sql/parser.h"
#include "solo/sql/session.h"
#include "solo/sql/system_tables.h"
#include "terminal_input.h"

namespace {

constexpr const char* kHelp =
    ".help                 this text\n"
    ".tables               list the tables\n"
    ".schema [TABLE]       show CREATE statements\n"
    ".timer on|off         time each statement\n"
    ".read FILE            run the SQL in FILE\n"
    ".import [--skip N] FILE TABLE\n"
    "                      insert the rows of a CSV file into TABLE, all or none (an\n"
    "                      empty field is NULL, \"\" an empty string, as .mode csv writes\n"
    "                      them); --skip N ignores the first N lines (--skip 1: the header\n"
    "                      .mode csv writes); TABLE is read as in SQL (\"My Table\")\n"
    ".mode table|csv|list  output format\n"
    ".output [FILE]        send output to FILE (no FILE: standard output)\n"
    ".stats                rows per table, state bytes, RSS, live snapshots, owner utilization\n"
    ".quit                 exit\n";

enum class Mode { kTable, kCsv, kList };

using solo::shell::CsvReader;
using solo::shell::TerminalInput;

// The SQLSTATE of a malformed .import file (PostgreSQL's bad_copy_file_format).
constexpr const char* kBadCopyFileFormat = "22P04";

// How deep .read may nest (a file that reads itself would otherwise recurse
// until the stack overflows); sqlite3's shell stops at the same depth.
constexpr int kMaxReadDepth = 25;

// Cuts SQL, fed one line at a time, into statements at ';' outside strings,
// quoted names and comments (block comments nest, as in the lexer). Every
// character is scanned once, so a script costs time linear in its length
// however its statements are laid out over lines. The text kept is the input
// from the first line of the unfinished statement on.
class StatementSplitter {
 public:
  // A statement cut from the input, without its ';'. The views point into the
  // splitter: valid until the next AddLine, SkipLine or Finish.
  struct Piece {
    std::string_view text;     // the statement
    std::string_view context;  // the input from the start of text's first line
    uint32_t line = 1;         // the input line (1-based) where context starts
  };

  // Scans line (given without its '\n') and appends the statements it
  // completes to *pieces. Pieces of only spaces and comments are left out.
  void AddLine(std::string_view line, std::vector<Piece>* pieces);

  // Counts a line that is not SQL (a dot command); only when idle().
  void SkipLine() {
    ++line_count_;
    statement_line_ = line_count_ + 1;
  }

  // At the end of the input: appends the unfinished statement, if any, to
  // *pieces. An unterminated comment is kept even alone so that the lexer
  // reports it.
  void Finish(std::vector<Piece>* pieces) {
    if (has_token_ || comment_depth_ > 0) pieces->push_back(MakePiece(buffer_.size()));
  }

  // True when no statement has begun (only spaces and whole comments since
  // the last ';'): a line starting with '.' here is a dot command.
  bool idle() const { return quote_ == 0 && comment_depth_ == 0 && !has_token_; }

 private:
  static bool IsSpace(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
  }
  Piece MakePiece(size_t end) const {
    std::string_view all = buffer_;
    return Piece{all.substr(statement_start_, end - statement_start_),
                 all.substr(statement_line_start_), statement_line_};
  }

  std::string buffer_;               // input lines, from statement_line_start_'s line on
  size_t statement_start_ = 0;       // where the unfinished statement starts in buffer_
  size_t statement_line_start_ = 0;  // where its line starts in buffer_
  uint32_t statement_line_ = 1;      // that line's number in the input
  uint32_t line_count_ = 0;          // input lines seen
  char quote_ = 0;                   // the open quote (' or "), or 0
  int comment_depth_ = 0;            // open /* comments
  bool has_token_ = false;           // the unfinished statement has more than spaces and comments
};

void StatementSplitter::AddLine(std::string_view line, std::vector<Piece>* pieces) {
  // The lines before the unfinished statement's are no longer needed; each
  // byte is dropped once.
  buffer_.erase(0, statement_line_start_);
  statement_start_ -= statement_line_start_;
  statement_line_start_ = 0;
  size_t line_start = buffer_.size();
  ++line_count_;
  buffer_ += line;
  buffer_ += '\n';
  // The line ends with '\n', so buffer_[pos + 1] exists for any character
  // tested below.
  size_t pos = line_start;
  while (pos < buffer_.size()) {
    char ch = buffer_[pos];
    if (quote_ != 0) {
      if (ch == quote_ && buffer_[pos + 1] == quote_) {
        pos += 2;  // a doubled quote stands for itself
        continue;
      }
      if (ch == quote_) quote_ = 0;
      ++pos;
    } else if (comment_depth_ > 0) {
      if (ch == '*' && buffer_[pos + 1] == '/') {
        --comment_depth_;
        pos += 2;
      } else if (ch == '/' && buffer_[pos + 1] == '*') {
        ++comment_depth_;
        pos += 2;
      } else {
        ++pos;
      }
    } else if (ch == '-' && buffer_[pos + 1] == '-') {
      pos = buffer_.size() - 1;  // the comment runs to the end of the line
    } else if (ch == '/' && buffer_[pos + 1] == '*') {
      comment_depth_ = 1;
      pos += 2;
    } else if (ch == ';') {
      if (has_token_) pieces->push_back(MakePiece(pos));
      statement_start_ = ++pos;
      statement_line_start_ = line_start;
      statement_line_ = line_count_;
      has_token_ = false;
    } else {
      if (!IsSpace(ch)) has_token_ = true;
      if (ch == '\'' || ch == '"') quote_ = ch;
      ++pos;
    }
  }
  if (idle()) {  // the next statement starts on the next line
    statement_start_ = statement_line_start_ = buffer_.size();
    statement_line_ = line_count_ + 1;
  }
}

class Shell {
 public:
  Shell(solo::Database& db, bool interactive)
      : db_(db), session_(db), interactive_(interactive),
        mode_(interactive ? Mode::kTable : Mode::kList) {}

  // Runs the script read from input, each statement as soon as it is
  // complete. Returns false at the first error (interactive: only when .read
  // nests too deep).
  bool RunScript(std::istream& input);
  // Runs the script in the file at path (-f, .read) as RunScript does, its
  // errors naming path. False also when path cannot be read.
  bool RunFile(const std::string& path);
  void Interactive();
  // The flag that cancels the running statement (Session::set_cancel_flag).
  void set_cancel_flag(const std::atomic<bool>* flag) { session_.set_cancel_flag(flag); }
  // Closes an .output file and flushes standard output; false (with a
  // message) when something written could not be stored.
  bool FinishOutput();

 private:
  // Runs one statement; on an error prints it (with its line in the input)
  // and returns false.
  bool RunStatement(const StatementSplitter::Piece& piece);
  bool DotCommand(const std::string& line);
  void Print(const solo::sql::ResultSet& rows);
  std::ostream& out() { return file_out_.is_open() ? file_out_ : std::cout; }
  // Flushes the output; false (with a message) when a write failed (a full
  // disk, /dev/full, a closed pipe), so that the statement or script fails
  // rather than leaving a short file behind and exiting 0.
  bool OutputOk();
  // Opens path for reading into *file. False, with a message naming path,
  // when it cannot be opened or is a directory (which opens, and then reads
  // as an empty file).
  bool OpenInputFile(const std::string& path, std::ifstream* file);
  // Standard error, for an error message of a dot command: in a file (-f,
  // .read) the message starts with the file's name and the command's line,
  // as a statement's error does ("setup.sql:7: ").
  std::ostream& CommandError();
  // TableName(word) for dot command `command`; nullopt after an error that
  // says what a table name must be.
  std::optional<std::string> TableNameArgument(const char* command, const std::string& word);
  // Closes the .output file, checking its last writes.
  bool CloseOutputFile();
  void ReportOutputFailure(const std::string& where);
  // Inserts each record of the CSV file at path (csv_reader.h), after its
  // first skip_lines lines, into table, in one transaction. False (and
  // nothing inserted) at the first malformed record, record whose field
  // count is not table's column count, or failed INSERT, reported with the
  // file's line number; also inside an explicit transaction.
  bool Import(const std::string& path, const std::string& table, uint64_t skip_lines);
  // Prints the CREATE statements of every table, or of `table` only; false
  // if there is no such table.
  bool Schema(const std::string& table);
  void Stats();

  solo::Database& db_;
  solo::sql::Session session_;
  bool interactive_;
  Mode mode_;
  bool timer_ = false;
  std::ofstream file_out_;
  std::string output_name_;       // the .output file's name
  bool output_reported_ = false;  // a failed write was reported (once is enough)
  int read_depth_ = 0;           // .read commands running, one inside the other
  bool read_limit_hit_ = false;  // .read nested too deep: every script level stops
  bool quit_ = false;            // .quit or .exit: every input loop stops
  std::string source_name_;      // the file being .read (empty: stdin, -c, the terminal)
  uint32_t command_line_ = 0;    // the input line of the dot command or statement running
};

// Renders error, found in piece.text, with the line and column it has in the
// input (named source_name, if not empty) and the whole input line under them.
std::string FormatInputError(const solo::sql::SqlError& error,
                             const StatementSplitter::Piece& piece, std::string_view source_name) {
  solo::sql::SourcePos pos = error.pos();
  if (!pos.valid() || pos.offset > piece.text.size()) {
    return solo::sql::FormatError(error, piece.text, source_name);
  }
  size_t text_offset = static_cast<size_t>(piece.text.data() - piece.context.data());
  std::string_view before = piece.context.substr(0, text_offset);
  uint32_t lines_before = 0;
  size_t line_head_start = 0;  // where text's first line starts in context
  for (size_t idx = 0; idx < before.size(); ++idx) {
    if (before[idx] == '\n') {
      ++lines_before;
      line_head_start = idx + 1;
    }
  }
  uint32_t column = pos.column;
  if (pos.line == 1) {  // count the characters on the line before the statement
    for (size_t idx = line_head_start; idx < before.size(); ++idx) {
      if ((static_cast<unsigned char>(before[idx]) & 0xC0) != 0x80) ++column;
    }
  }
  solo::sql::SourcePos input_pos{piece.line + lines_before + pos.line - 1, column,
                                 static_cast<uint32_t>(text_offset + pos.offset)};
  return solo::sql::FormatError(solo::sql::SqlError(error.state(), error.message(), input_pos),
                                piece.context, source_name);
}

bool Shell::OpenInputFile(const std::string& path, std::ifstream* file) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    CommandError() << "cannot read " << path << ": it is a directory\n";
    return false;
  }
  file->open(path);
  if (!*file) {
    CommandError() << "cannot open " << path << ": " << std::strerror(errno) << "\n";
    return false;
  }
  return true;
}

std::ostream& Shell::CommandError() {
  if (!source_name_.empty()) std::cerr << source_name_ << ":" << command_line_ << ": ";
  return std::cerr;
}

bool Shell::RunScript(std::istream& input) {
  // Dot commands are whole lines between statements; everything else is SQL.
  // Statements run as soon as their ';' is read.
  StatementSplitter splitter;
  std::vector<StatementSplitter::Piece> pieces;
  auto run_pieces = [&]() -> bool {
    for (const StatementSplitter::Piece& piece : pieces) {
      if (!RunStatement(piece) && !interactive_) return false;
    }
    pieces.clear();
    return true;
  };
  std::string line;
  uint32_t line_number = 0;
  while (std::getline(input, line)) {
    ++line_number;
    if (splitter.idle() && !line.empty() && line[0] == '.') {
      splitter.SkipLine();
      command_line_ = line_number;
      if (!DotCommand(line) && (!interactive_ || read_limit_hit_)) return false;
      if (quit_) return true;
      continue;
    }
    splitter.AddLine(line, &pieces);
    if (!run_pieces()) return false;
  }
  splitter.Finish(&pieces);
  return run_pieces();
}

bool Shell::RunFile(const std::string& path) {
  std::ifstream file;
  if (!OpenInputFile(path, &file)) return false;
  ++read_depth_;
  std::string outer_source = std::exchange(source_name_, path);
  uint32_t outer_line = command_line_;
  bool ok = RunScript(file);
  source_name_ = std::move(outer_source);
  command_line_ = outer_line;
  --read_depth_;
  return ok;
}

// The input line where piece's statement starts (its first character that
// is not a space).
uint32_t StartLine(const StatementSplitter::Piece& piece) {
  size_t text_offset = static_cast<size_t>(piece.text.data() - piece.context.data());
  size_t start = piece.text.find_first_not_of(" \t\n\r\f\v");
  std::string_view before =
      piece.context.substr(0, text_offset + (start == std::string_view::npos ? 0 : start));
  return piece.line + static_cast<uint32_t>(std::count(before.begin(), before.end(), '\n'));
}

bool Shell::RunStatement(const StatementSplitter::Piece& piece) {
  solo::sql::ResultSet rows;
  command_line_ = StartLine(piece);  // for an output failure's message
  auto start = std::chrono::steady_clock::now();
  solo::sql::SqlStatus status = session_.Exec(piece.text, &rows);
  auto elapsed = std::chrono::steady_clock::now() - start;
  if (!status.ok()) {
    // In a file, the error starts with the file and the statement's line, as
    // psql's does (psql:setup.sql:12: ERROR: ...).
    if (!source_name_.empty()) std::cerr << source_name_ << ":" << command_line_ << ": ";
    std::cerr << FormatInputError(status.error(), piece, source_name_);
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
  return OutputOk();
}

bool Shell::OutputOk() {
  std::ostream& stream = out();
  stream.flush();
  if (stream) return true;
  ReportOutputFailure(file_out_.is_open() ? output_name_ : "standard output");
  stream.clear();
  return false;
}

bool Shell::CloseOutputFile() {
  if (!file_out_.is_open()) return true;
  file_out_.close();
  if (!file_out_.fail()) return true;
  ReportOutputFailure(output_name_);
  file_out_.clear();
  return false;
}

bool Shell::FinishOutput() {
  bool ok = CloseOutputFile();
  std::cout.flush();
  if (!std::cout) {
    ReportOutputFailure("standard output");
    ok = false;
  }
  return ok;
}

void Shell::ReportOutputFailure(const std::string& where) {
  // In a file, after the file and line of the statement or dot command whose
  // output failed (as every error there).
  if (!output_reported_)
    CommandError() << "cannot write to " << where << ": the output is incomplete\n";
  output_reported_ = true;
}

// A CSV field for a value that is not NULL (NULL is an empty field, so an
// empty string is quoted: "").
std::string CsvField(const std::string& text) {
  if (!text.empty() && text.find_first_of(",\"\n\r") == std::string::npos) return text;
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
    for (size_t row = 0; row < text.size(); ++row) {
      for (size_t col = 0; col < columns; ++col) {
        const std::string& cell = text[row][col];
        out() << (col ? (csv ? "," : "|") : "")
              << (csv && !rows.at(row, col).is_null() ? CsvField(cell) : cell);
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

// The words of a dot command: runs of characters between spaces, where a
// part in double quotes may hold spaces ("My Table"; "" inside is a quote,
// as in SQL). The quotes are kept: .import reads its TABLE as a SQL name.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  bool quoted = false;
  for (char ch : line) {
    bool space = ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
    if (space && !quoted) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    if (ch == '"') quoted = !quoted;  // "" closes and reopens: a quote inside
    word += ch;
    in_word = true;
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

// The table that `word` names when read as a SQL name, as a statement would
// read it: an unquoted name folded to lower case, a "quoted" one as
// written. Anything else (two tokens, a reserved keyword, t;DROP..., a
// comment) is no name: nullopt.
std::optional<std::string> TableName(const std::string& word) {
  using solo::sql::TokenKind;
  solo::sql::Result<std::vector<solo::sql::Token>> tokens = solo::sql::Tokenize(word);
  if (!tokens.ok() || tokens->size() != 2) return std::nullopt;  // the name, then the end
  const solo::sql::Token& token = tokens.value()[0];
  bool name = token.kind == TokenKind::kIdentifier || token.kind == TokenKind::kQuotedIdentifier ||
              (token.kind == TokenKind::kKeyword && !solo::sql::IsReservedKeyword(token.keyword));
  // The whole word: y-- would read as y and a comment.
  if (!name || token.source.size() != word.size()) return std::nullopt;
  return token.text;
}

// Parses a count of decimal digits only (no sign, no spaces) into *out.
bool ParseCount(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 18) return false;
  uint64_t value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
    value = value * 10 + static_cast<uint64_t>(ch - '0');
  }
  *out = value;
  return true;
}

std::optional<std::string> Shell::TableNameArgument(const char* command, const std::string& word) {
  std::optional<std::string> table = TableName(word);
  if (!table) {
    CommandError() << fmt::format(
        "{}: {} is not a table name (one name, in double quotes if it needs them: \"My "
        "Table\")\n",
        command, word);
  }
  return table;
}

bool Shell::DotCommand(const std::string& line) {
  std::vector<std::string> words = Words(line);
  const std::string& command = words[0];
  if (command == ".help") {
    out() << kHelp;
  } else if (command == ".quit" || command == ".exit") {
    // Not std::exit: main closes the database (its threads are stopped, the
    // checkpoint at close written) after the input loops return.
    quit_ = true;
  } else if (command == ".tables") {
    db_.read([&](solo::ReadTxn& txn) {
      for (const solo::TableInfo* table : txn.catalog().tables()) {
        if (table->schema.name.starts_with(solo::sql::kSystemTablePrefix)) continue;
        out() << table->schema.name << "\n";
      }
      return solo::Status::OK();
    });
  } else if (command == ".schema" && words.size() <= 2) {
    std::string only;
    if (words.size() == 2) {
      // The name as SQL reads it: Item is item, "Order" is Order.
      std::optional<std::string> table = TableNameArgument(".schema", words[1]);
      if (!table) return false;
      only = *table;
    }
    if (!Schema(only)) {
      CommandError() << fmt::format("ERROR 42P01: relation \"{}\" does not exist\n", only);
      return false;
    }
  } else if (command == ".timer" && words.size() == 2) {
    timer_ = words[1] == "on";
  } else if (command == ".read" && words.size() == 2) {
    if (read_depth_ >= kMaxReadDepth) {
      CommandError() << fmt::format(
          "{}: input nesting limit ({}) reached (does a file .read itself?)\n", line,
          kMaxReadDepth);
      read_limit_hit_ = true;
      return false;
    }
    return RunFile(words[1]);
  } else if (command == ".mode" && words.size() == 2) {
    if (words[1] == "table") mode_ = Mode::kTable;
    else if (words[1] == "csv") mode_ = Mode::kCsv;
    else if (words[1] == "list") mode_ = Mode::kList;
    else {
      CommandError() << "unknown mode " << words[1] << "\n";
      return false;
    }
  } else if (command == ".output") {
    if (!CloseOutputFile()) return false;
    if (words.size() > 1) {
      file_out_.open(words[1]);
      if (!file_out_) {
        file_out_.clear();
        CommandError() << "cannot write " << words[1] << "\n";
        return false;
      }
      output_name_ = words[1];
      output_reported_ = false;
    }
  } else if (command == ".import" && (words.size() == 3 || words.size() == 5)) {
    // .import [--skip N] FILE TABLE, as sqlite3's shell spells it.
    uint64_t skip_lines = 0;
    if (words.size() == 5) {
      if (words[1] != "--skip" || !ParseCount(words[2], &skip_lines)) {
        CommandError()
            << "usage: .import [--skip N] FILE TABLE (N: lines to ignore, e.g. a header)\n";
        return false;
      }
    }
    std::optional<std::string> table = TableNameArgument(".import", words[words.size() - 1]);
    if (!table) return false;
    return Import(words[words.size() - 2], *table, skip_lines);
  } else if (command == ".stats") {
    Stats();
  } else {
    CommandError() << "unknown command or wrong arguments: " << line << " (see .help)\n";
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

// The DEFAULT expressions of table `table` by column position, as SQL text
// (the SQL layer keeps them in its table kDefaultsTable).
std::map<uint32_t, std::string> ColumnDefaults(const solo::ReadTxn& txn, const std::string& table) {
  std::map<uint32_t, std::string> defaults;
  const solo::TableInfo* info = txn.catalog().find_table(std::string(solo::sql::kDefaultsTable));
  if (info == nullptr) return defaults;
  solo::Result<solo::Cursor> cursor = txn.scan(info->id, solo::KeyRange::All());
  solo::Row row;
  for (; cursor.ok() && cursor->valid(); cursor->next()) {
    if (!solo::decode_row(info->schema, cursor->value(), &row).ok() || row.size() != 3) continue;
    if (row[0].as_string() != table) continue;
    defaults[static_cast<uint32_t>(row[1].as_int())] = row[2].as_string();
  }
  return defaults;
}

// " DEFAULT expr" for .schema. The text is canonical SQL (ToSql) without the
// parentheses of its top level, but DEFAULT takes only a literal, a signed
// number or a parenthesized expression: what the parser would not take
// alone (2 * 3, 'a' || 'b') is put in parentheses.
std::string DefaultClause(const std::string& expr) {
  bool bare = solo::sql::ParseStatement("CREATE TABLE t (c INTEGER DEFAULT " + expr + ")").ok();
  return bare ? " DEFAULT " + expr : " DEFAULT (" + expr + ")";
}

bool Shell::Schema(const std::string& only) {
  using solo::sql::QuoteIdentifier;
  bool found_table = false;
  db_.read([&](solo::ReadTxn& txn) {
    const solo::Catalog& catalog = txn.catalog();
    for (const solo::TableInfo* table : catalog.tables()) {
      const auto& schema = table->schema;
      if (schema.name.starts_with(solo::sql::kSystemTablePrefix) ||
          (!only.empty() && schema.name != only))
        continue;
      found_table = true;
      std::map<uint32_t, std::string> defaults = ColumnDefaults(txn, schema.name);
      // Names are quoted where they would not read back as themselves
      // ("Mixed Case", keywords), so that the output recreates the table.
      out() << "CREATE TABLE " << QuoteIdentifier(schema.name) << " (";
      bool first = true;
      for (uint32_t col = 0; col < schema.columns.size(); ++col) {
        const solo::ColumnDef& column = schema.columns[col];
        if (column.name == solo::sql::kRowIdColumn) continue;
        auto found = defaults.find(col);
        out() << (first ? "\n  " : ",\n  ") << QuoteIdentifier(column.name) << " "
              << TypeText(column) << (column.not_null ? " NOT NULL" : "")
              << (found != defaults.end() ? DefaultClause(found->second) : "");
        first = false;
      }
      if (schema.columns[schema.primary_key[0]].name != solo::sql::kRowIdColumn) {
        out() << ",\n  PRIMARY KEY (";
        for (size_t key = 0; key < schema.primary_key.size(); ++key) {
          out() << (key ? ", " : "")
                << QuoteIdentifier(schema.columns[schema.primary_key[key]].name);
        }
        out() << ")";
      }
      out() << "\n);\n";
      for (solo::IndexId index_id : table->indexes) {
        const solo::IndexInfo* index = catalog.index(index_id);
        out() << "CREATE " << (index->schema.unique ? "UNIQUE " : "") << "INDEX "
              << QuoteIdentifier(index->schema.name) << " ON " << QuoteIdentifier(schema.name)
              << " (";
        for (size_t col = 0; col < index->schema.columns.size(); ++col) {
          out() << (col ? ", " : "")
                << QuoteIdentifier(schema.columns[index->schema.columns[col]].name);
        }
        out() << ");\n";
      }
    }
    return solo::Status::OK();
  });
  return found_table || only.empty();
}

void Shell::Stats() {
  solo::Stats stats = db_.stats();
  db_.read([&](solo::ReadTxn& txn) {
    for (const solo::TableInfo* table : txn.catalog().tables()) {
      if (table->schema.name.starts_with(solo::sql::kSystemTablePrefix)) continue;
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

// .import's progress line: "importing FILE: N rows (P%)" on stderr, at most
// once a second, each over the one before ("\r"); Clear() blanks it (before
// an error is printed, and at the end).
class ImportProgress {
 public:
  ImportProgress(bool enabled, const std::string& path, std::ifstream* file)
      : enabled_(enabled), path_(path), file_(file), last_(std::chrono::steady_clock::now()) {
    if (!enabled_) return;
    // For shell_test only: another interval, so that a small file shows it.
    if (const char* ms = std::getenv("SOLO_SHELL_TEST_PROGRESS_MS")) {
      interval_ = std::chrono::milliseconds(std::strtoul(ms, nullptr, 10));
    }
    std::error_code error;
    const uintmax_t size = std::filesystem::file_size(path, error);
    file_bytes_ = error ? 0 : size;
  }
  ~ImportProgress() { Clear(); }
  void Row(uint64_t rows) {
    if (!enabled_ || (rows & 4095) != 0 || rows == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < interval_) return;
    last_ = now;
    std::string text = fmt::format("importing {}: {} rows", path_, rows);
    const std::streamoff at = file_->tellg();
    if (file_bytes_ > 0 && at >= 0) {
      text += fmt::format(" ({}%)", static_cast<uint64_t>(at) * 100 / file_bytes_);
    }
    width_ = std::max(width_, text.size());
    std::cerr << "\r" << text << std::flush;
  }
  void Clear() {
    if (width_ == 0) return;
    std::cerr << "\r" << std::string(width_, ' ') << "\r" << std::flush;
    width_ = 0;
  }

 private:
  bool enabled_;
  std::string path_;
  std::ifstream* file_;
  uintmax_t file_bytes_ = 0;
  std::chrono::steady_clock::time_point last_;
  std::chrono::steady_clock::duration interval_ = std::chrono::seconds(1);
  size_t width_ = 0;  // of the longest line shown; 0: nothing on the screen
};

bool Shell::Import(const std::string& path, const std::string& table, uint64_t skip_lines) {
  if (session_.in_transaction()) {
    CommandError() << ".import runs in a transaction of its own: COMMIT or ROLLBACK first\n";
    return false;
  }
  std::ifstream file;
  if (!OpenInputFile(path, &file)) return false;
  // The name goes into the SQL below quoted, whatever it holds.
  const std::string sql_table = solo::sql::QuoteIdentifier(table);
  // Every record must have one field per column of the table. A missing
  // table is the command's error, not the file's.
  solo::sql::ResultSet columns;
  solo::sql::SqlStatus status = session_.Exec("SELECT * FROM " + sql_table + " LIMIT 0", &columns);
  if (!status.ok()) {
    CommandError() << fmt::format("ERROR {}: {}\n", status.error().code(),
                                  status.error().message());
    return false;
  }
  size_t width = columns.column_count();
  // At the prompt, a line on stderr once a second for a long import (a
  // million rows take ~20 s), overwritten in place and cleared at the end.
  ImportProgress progress(interactive_ && isatty(STDERR_FILENO), path, &file);
  // All or nothing: the rows go in in one transaction, rolled back at the
  // first bad record or failed INSERT.
  auto fail = [&](uint64_t line, const std::string& error) -> bool {
    progress.Clear();
    CommandError() << path << (line > 0 ? fmt::format(":{}", line) : "") << ": " << error;
    session_.Exec("ROLLBACK");
    CommandError() << ".import " << path << ": nothing imported\n";
    return false;
  };
  // Errors of the statements the import writes itself show no position in them.
  auto plain = [](const solo::sql::SqlError& error) {
    return fmt::format("ERROR {}: {}\n", error.code(), error.message());
  };
  status = session_.Exec("BEGIN");
  if (!status.ok()) return fail(0, plain(status.error()));
  std::string sql = "INSERT INTO " + sql_table + " VALUES (";
  for (size_t col = 0; col < width; ++col) sql += col ? ", ?" : "?";
  sql += ")";

  CsvReader reader(file);
  uint64_t skipped = 0;
  while (skipped < skip_lines && reader.SkipLine()) ++skipped;
  std::vector<CsvReader::Field> fields;
  std::vector<solo::sql::Value> params;
  uint64_t rows = 0;
  while (reader.Next(&fields)) {
    progress.Row(rows);
    if (fields.size() != width) {
      return fail(reader.record_line(),
                  fmt::format("ERROR {}: the record has {} field{}, table {} has {} column{}\n",
                              kBadCopyFileFormat, fields.size(), fields.size() == 1 ? "" : "s",
                              sql_table, width, width == 1 ? "" : "s"));
    }
    params.clear();
    for (const CsvReader::Field& field : fields) {
      params.push_back(field.text.empty() && !field.quoted ? solo::sql::Value::Null()
                                                           : solo::sql::Value::Text(field.text));
    }
    status = session_.Exec(sql, params, nullptr);
    if (!status.ok()) {
      return fail(reader.record_line(), solo::sql::FormatError(status.error(), sql));
    }
    ++rows;
  }
  if (!reader.error().empty()) {
    return fail(reader.error_line(),
                fmt::format("ERROR {}: {}\n", kBadCopyFileFormat, reader.error()));
  }
  progress.Clear();
  status = session_.Exec("COMMIT");
  if (!status.ok()) return fail(0, plain(status.error()));
  if (interactive_) out() << "imported " << rows << " rows\n";
  return true;
}

void Shell::Interactive() {
  TerminalInput input;
  session_.set_cancel_flag(input.cancel_flag());
  StatementSplitter splitter;
  std::vector<StatementSplitter::Piece> pieces;
  for (;;) {
    // Line numbers in errors count from the line where the statement began.
    if (splitter.idle()) splitter = StatementSplitter();
    const char* prompt = splitter.idle() ? "solo> " : "  ...> ";
    std::string line;
    TerminalInput::Event event = input.ReadLine(prompt, &line);
    if (event == TerminalInput::Event::kEnd) break;
    if (event == TerminalInput::Event::kInterrupt) {  // Ctrl-C: drop the partial statement
      splitter = StatementSplitter();
      continue;
    }
    if (splitter.idle() && !line.empty() && line[0] == '.') {
      DotCommand(line);
      read_limit_hit_ = false;
      if (quit_) break;
      continue;
    }
    splitter.AddLine(line, &pieces);
    for (const StatementSplitter::Piece& piece : pieces) {
      RunStatement(piece);  // a Ctrl-C meanwhile: 57014 (terminal_input.h)
      if (input.cancel_requested()) break;
    }
    pieces.clear();
    // Ctrl-C stops what the line asked for: its later statements too.
    if (input.cancel_requested()) splitter = StatementSplitter();
  }
  session_.set_cancel_flag(nullptr);
}

constexpr const char* kUsage = "usage: solo [DIR] [-c SQL | -f FILE]\n";

// "" when `dir` may be opened: a new or empty directory (a new database) or
// one holding solo's files. Else why not: a directory holding only other
// files is someone else's (a misspelled or wrong path), and solo would have
// put 160 MB of log beside them. *is_new: no database there yet.
std::string CheckDatabaseDir(const std::string& dir, bool* is_new) {
  namespace fs = std::filesystem;
  *is_new = true;
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (!fs::exists(status)) return "";  // the engine makes it (or says why it cannot)
  if (!fs::is_directory(status)) return dir + " is not a directory";
  std::vector<std::string> others;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    const solo::Database::FileKind kind = solo::Database::file_kind(name);
    if (kind == solo::Database::FileKind::kOther) {
      others.push_back(name);
    } else {
      *is_new = false;
    }
  }
  if (error) return "";  // unreadable: the engine's open reports it
  if (!*is_new || others.empty()) return "";
  std::sort(others.begin(), others.end());
  std::string named = others[0];
  if (others.size() > 1) named += fmt::format(" and {} more", others.size() - 1);
  return fmt::format(
      "{} holds no solo database but other files ({}); give a new or empty directory, or the "
      "directory of an existing database",
      dir, named);
}

int Usage() {
  std::cerr << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // A write past a file size limit (ulimit -f: the log, a checkpoint, an
  // .output file) fails with EFBIG and is reported naming the file, instead
  // of SIGXFSZ killing the shell without a word.
  signal(SIGXFSZ, SIG_IGN);
  std::string dir;
  std::string command;
  std::string script;
  bool has_command = false;  // -c or -f
  bool from_file = false;    // -f
  for (int arg_idx = 1; arg_idx < argc; ++arg_idx) {
    std::string arg = argv[arg_idx];
    if (arg == "-c" || arg == "-f") {
      if (arg_idx + 1 >= argc || has_command) return Usage();
      (arg == "-c" ? command : script) = argv[++arg_idx];
      has_command = true;
      from_file = arg == "-f";
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage << "\n" << kHelp;
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
  const bool interactive = !has_command && isatty(STDIN_FILENO);
  if (!dir.empty()) {
    bool is_new = false;
    const std::string refused = CheckDatabaseDir(dir, &is_new);
    if (!refused.empty()) {
      std::cerr << "cannot open the database: " << refused << "\n";
      return 1;
    }
    // A misspelled path makes a new, empty database: say so at the prompt.
    if (is_new && interactive) std::cerr << "solo: a new database in " << dir << "\n";
  }
  solo::Options options;
  options.dir = dir;
  // A shell's database is usually small: 2 MiB log segments and a
  // checkpoint every 4 MiB of log (or the checkpoint's size, as the state
  // grows) keep a new one at ~10 MB instead of the engine's 160 MB ring
  // (32 MiB segments, sized for TPC-C's ~40 MB of log a second). An
  // existing database keeps the segments it has.
  options.log_segment_bytes = uint64_t{2} << 20;
  options.checkpoint_log_bytes = uint64_t{4} << 20;
  // For shell_close_test only: 0 turns the background checkpoints off, so
  // that the log since the newest checkpoint is what the test wrote.
  if (const char* mib = std::getenv("SOLO_SHELL_TEST_CHECKPOINT_LOG_MIB")) {
    options.checkpoint_log_bytes = std::strtoull(mib, nullptr, 10) << 20;
  }
  // Opening a large database (recovery: ~1 s per GB of checkpoint) shows a
  // line that it rewrites, when someone watches stderr; nothing for an
  // open that takes less than half a second.
  if (isatty(STDERR_FILENO)) {
    options.recovery_progress = solo::recovery_progress_on_stderr(dir);
  }
  auto opened = solo::Database::open(options);
  if (!opened.ok()) {
    std::cerr << "cannot open the database: " << opened.status().ToString() << "\n";
    return 1;
  }
  std::unique_ptr<solo::Database> db = std::move(opened.value());
  int exit_code = 0;
  {
    Shell shell(*db, interactive);
    if (interactive) {
      shell.Interactive();
    } else {
      // Ctrl-C cancels the running statement, which fails the script.
      solo::shell::ScriptInterrupt interrupt;
      shell.set_cancel_flag(interrupt.cancel_flag());
      bool ok = false;
      if (from_file) {
        ok = shell.RunFile(script);
      } else if (has_command) {
        std::istringstream text(command);
        ok = shell.RunScript(text);
      } else {
        ok = shell.RunScript(std::cin);
      }
      // Also after the last statement's last check: the script was stopped.
      if (interrupt.requested()) ok = false;
      shell.set_cancel_flag(nullptr);
      exit_code = ok ? 0 : 1;
    }
    if (!shell.FinishOutput()) exit_code = 1;
  }
  // Nothing committed is lost if the checkpoint at close fails (the next
  // open replays the log), but the user should know why the directory still
  // holds that log.
  solo::Status closed = db->close();
  if (!closed.ok()) {
    std::cerr << "cannot close the database cleanly: " << closed.ToString() << "\n";
    exit_code = 1;
  }
  return exit_code;
}
