#include "tpcc/schema.h"

#include <sstream>

namespace tpcc {

const std::vector<std::string>& schema_ddl() {
  static const std::vector<std::string> kDdl = {
      R"(CREATE TABLE warehouse (
  w_id INTEGER NOT NULL,
  w_name VARCHAR(10) NOT NULL,
  w_street_1 VARCHAR(20) NOT NULL,
  w_street_2 VARCHAR(20) NOT NULL,
  w_city VARCHAR(20) NOT NULL,
  w_state CHAR(2) NOT NULL,
  w_zip CHAR(9) NOT NULL,
  w_tax DECIMAL(4,4) NOT NULL,
  w_ytd DECIMAL(12,2) NOT NULL,
  PRIMARY KEY (w_id)
))",
      R"(CREATE TABLE district (
  d_id INTEGER NOT NULL,
  d_w_id INTEGER NOT NULL,
  d_name VARCHAR(10) NOT NULL,
  d_street_1 VARCHAR(20) NOT NULL,
  d_street_2 VARCHAR(20) NOT NULL,
  d_city VARCHAR(20) NOT NULL,
  d_state CHAR(2) NOT NULL,
  d_zip CHAR(9) NOT NULL,
  d_tax DECIMAL(4,4) NOT NULL,
  d_ytd DECIMAL(12,2) NOT NULL,
  d_next_o_id INTEGER NOT NULL,
  PRIMARY KEY (d_w_id, d_id)
))",
      R"(CREATE TABLE customer (
  c_id INTEGER NOT NULL,
  c_d_id INTEGER NOT NULL,
  c_w_id INTEGER NOT NULL,
  c_first VARCHAR(16) NOT NULL,
  c_middle CHAR(2) NOT NULL,
  c_last VARCHAR(16) NOT NULL,
  c_street_1 VARCHAR(20) NOT NULL,
  c_street_2 VARCHAR(20) NOT NULL,
  c_city VARCHAR(20) NOT NULL,
  c_state CHAR(2) NOT NULL,
  c_zip CHAR(9) NOT NULL,
  c_phone CHAR(16) NOT NULL,
  c_since TIMESTAMP NOT NULL,
  c_credit CHAR(2) NOT NULL,
  c_credit_lim DECIMAL(12,2) NOT NULL,
  c_discount DECIMAL(4,4) NOT NULL,
  c_balance DECIMAL(12,2) NOT NULL,
  c_ytd_payment DECIMAL(12,2) NOT NULL,
  c_payment_cnt INTEGER NOT NULL,
  c_delivery_cnt INTEGER NOT NULL,
  c_data VARCHAR(500) NOT NULL,
  PRIMARY KEY (c_w_id, c_d_id, c_id)
))",
      "CREATE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first)",
      R"(CREATE TABLE history (
  h_c_id INTEGER NOT NULL,
  h_c_d_id INTEGER NOT NULL,
  h_c_w_id INTEGER NOT NULL,
  h_d_id INTEGER NOT NULL,
  h_w_id INTEGER NOT NULL,
  h_date TIMESTAMP NOT NULL,
  h_amount DECIMAL(6,2) NOT NULL,
  h_data VARCHAR(24) NOT NULL
))",
      R"(CREATE TABLE new_order (
  no_o_id INTEGER NOT NULL,
  no_d_id INTEGER NOT NULL,
  no_w_id INTEGER NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
))",
      R"(CREATE TABLE orders (
  o_id INTEGER NOT NULL,
  o_d_id INTEGER NOT NULL,
  o_w_id INTEGER NOT NULL,
  o_c_id INTEGER NOT NULL,
  o_entry_d TIMESTAMP NOT NULL,
  o_carrier_id INTEGER,
  o_ol_cnt INTEGER NOT NULL,
  o_all_local INTEGER NOT NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id)
))",
      "CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
      R"(CREATE TABLE order_line (
  ol_o_id INTEGER NOT NULL,
  ol_d_id INTEGER NOT NULL,
  ol_w_id INTEGER NOT NULL,
  ol_number INTEGER NOT NULL,
  ol_i_id INTEGER NOT NULL,
  ol_supply_w_id INTEGER NOT NULL,
  ol_delivery_d TIMESTAMP,
  ol_quantity INTEGER NOT NULL,
  ol_amount DECIMAL(6,2) NOT NULL,
  ol_dist_info CHAR(24) NOT NULL,
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
))",
      R"(CREATE TABLE item (
  i_id INTEGER NOT NULL,
  i_im_id INTEGER NOT NULL,
  i_name VARCHAR(24) NOT NULL,
  i_price DECIMAL(5,2) NOT NULL,
  i_data VARCHAR(50) NOT NULL,
  PRIMARY KEY (i_id)
))",
      R"(CREATE TABLE stock (
  s_i_id INTEGER NOT NULL,
  s_w_id INTEGER NOT NULL,
  s_quantity INTEGER NOT NULL,
  s_dist_01 CHAR(24) NOT NULL,
  s_dist_02 CHAR(24) NOT NULL,
  s_dist_03 CHAR(24) NOT NULL,
  s_dist_04 CHAR(24) NOT NULL,
  s_dist_05 CHAR(24) NOT NULL,
  s_dist_06 CHAR(24) NOT NULL,
  s_dist_07 CHAR(24) NOT NULL,
  s_dist_08 CHAR(24) NOT NULL,
  s_dist_09 CHAR(24) NOT NULL,
  s_dist_10 CHAR(24) NOT NULL,
  s_ytd INTEGER NOT NULL,
  s_order_cnt INTEGER NOT NULL,
  s_remote_cnt INTEGER NOT NULL,
  s_data VARCHAR(50) NOT NULL,
  PRIMARY KEY (s_w_id, s_i_id)
))",
      R"(CREATE TABLE tpcc_meta (
  name VARCHAR(32) NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (name)
))",
  };
  return kDdl;
}

std::vector<std::string> drop_ddl() {
  std::vector<std::string> statements;
  for (std::string_view table : kTableNames) {
    statements.push_back("DROP TABLE IF EXISTS " + std::string(table));
  }
  return statements;
}

namespace {

// The CREATE TABLE statement of `table`, or nullptr.
const std::string* create_table_ddl(std::string_view table) {
  std::string prefix = "CREATE TABLE " + std::string(table) + " (";
  for (const std::string& ddl : schema_ddl()) {
    if (ddl.rfind(prefix, 0) == 0) return &ddl;
  }
  return nullptr;
}

}  // namespace

std::vector<ColumnInfo> table_columns(std::string_view table) {
  std::vector<ColumnInfo> columns;
  const std::string* ddl = create_table_ddl(table);
  if (ddl == nullptr) return columns;
  std::istringstream lines(*ddl);
  std::string line;
  std::getline(lines, line);  // CREATE TABLE ... (
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, type;
    words >> name >> type;
    if (name.empty() || name == ")" || name == "PRIMARY") continue;
    ColumnInfo column;
    column.name = name;
    if (type.rfind("DECIMAL", 0) == 0) {
      column.kind = ColumnKind::kDecimal;
      column.scale = std::stoi(type.substr(type.find(',') + 1));
    } else if (type == "TIMESTAMP" || type == "TIMESTAMP,") {
      column.kind = ColumnKind::kTimestamp;
    } else if (type.rfind("CHAR", 0) == 0) {
      column.kind = ColumnKind::kChar;
    } else if (type.rfind("VARCHAR", 0) == 0) {
      column.kind = ColumnKind::kVarchar;
    } else {
      column.kind = ColumnKind::kInteger;
    }
    columns.push_back(column);
  }
  return columns;
}

std::vector<std::string> table_key_columns(std::string_view table) {
  std::vector<std::string> key;
  const std::string* ddl = create_table_ddl(table);
  if (ddl == nullptr) return key;
  size_t start = ddl->find("PRIMARY KEY (");
  if (start == std::string::npos) return key;
  start += 13;
  std::string list = ddl->substr(start, ddl->find(')', start) - start);
  std::istringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    size_t first = name.find_first_not_of(' ');
    key.push_back(name.substr(first, name.find_last_not_of(' ') - first + 1));
  }
  return key;
}

std::string table_order_by(std::string_view table) {
  if (table == "warehouse") return "w_id";
  if (table == "district") return "d_w_id, d_id";
  if (table == "customer") return "c_w_id, c_d_id, c_id";
  if (table == "history") {
    return "h_w_id, h_d_id, h_c_w_id, h_c_d_id, h_c_id, h_date, h_amount, h_data";
  }
  if (table == "new_order") return "no_w_id, no_d_id, no_o_id";
  if (table == "orders") return "o_w_id, o_d_id, o_id";
  if (table == "order_line") return "ol_w_id, ol_d_id, ol_o_id, ol_number";
  if (table == "item") return "i_id";
  if (table == "stock") return "s_w_id, s_i_id";
  return "name";
}

}  // namespace tpcc
