// DDL, secondary indexes kept in step, NULLs, unique checks, scans.
#include <map>

#include "test_util.h"

using namespace solo;
using solo::test::open_db;

namespace {

// people(id INTEGER PK, city VARCHAR(20) NULL, email VARCHAR(40) NULL, age SMALLINT)
// index by_city (city) non-unique, by_email (email) unique
struct People {
  TableId table;
  IndexId by_city;
  IndexId by_email;
  TableSchema schema;
};

People create_people(Database* db) {
  People people;
  REQUIRE(db->write([&](WriteTxn& txn) {
              TableSchema schema;
              schema.name = "people";
              schema.columns = {ColumnDef::Integer("id", true), ColumnDef::VarChar("city", 20),
                                ColumnDef::VarChar("email", 40), ColumnDef::SmallInt("age")};
              schema.primary_key = {0};
              auto table = txn.create_table(schema);
              if (!table.ok()) return table.status();
              people.table = *table;
              auto city = txn.create_index(IndexSchema{"by_city", "people", {1}, false});
              if (!city.ok()) return city.status();
              people.by_city = *city;
              auto email = txn.create_index(IndexSchema{"by_email", "people", {2}, true});
              if (!email.ok()) return email.status();
              people.by_email = *email;
              people.schema = txn.catalog().table(people.table)->schema;
              return Status::OK();
            }).ok());
  return people;
}

Row person(int id, const char* city, const char* email, int age) {
  return {Value::Int(id), city ? Value::String(city) : Value::Null(),
          email ? Value::String(email) : Value::Null(), Value::Int(age)};
}

std::vector<int64_t> ids_in_city(Database* db, const People& people, const char* city) {
  std::vector<int64_t> ids;
  REQUIRE(db->read([&](ReadTxn& txn) {
              std::string prefix;
              Value value = Value::String(city);
              uint32_t columns[1] = {1};
              REQUIRE(append_key(people.schema, columns, std::span<const Value>(&value, 1), &prefix)
                          .ok());
              auto cursor = txn.scan(people.by_city, KeyRange::Prefix(prefix));
              REQUIRE(cursor.ok());
              for (; cursor->valid(); cursor->next()) {
                Row row;
                REQUIRE(txn.get_row(people.table, cursor->value(), &row).ok());
                REQUIRE(row[1].as_string() == city);
                ids.push_back(row[0].as_int());
              }
              return Status::OK();
            }).ok());
  return ids;
}

}  // namespace

TEST_CASE("tables and indexes are created, found by name and kept in step") {
  auto db = open_db();
  People people = create_people(db.get());
  REQUIRE(db->write([&](WriteTxn& txn) {
              REQUIRE(txn.insert(people.table, person(1, "Oslo", "a@x", 30)).ok());
              REQUIRE(txn.insert(people.table, person(2, "Rome", "b@x", 40)).ok());
              REQUIRE(txn.insert(people.table, person(3, "Oslo", nullptr, 50)).ok());
              REQUIRE(txn.insert(people.table, person(4, nullptr, nullptr, 60)).ok());
              return Status::OK();
            }).ok());
  REQUIRE(ids_in_city(db.get(), people, "Oslo") == std::vector<int64_t>{1, 3});
  db->read([&](ReadTxn& txn) {
    REQUIRE(txn.catalog().find_table("people")->id == people.table);
    REQUIRE(txn.catalog().find_index("by_email")->id == people.by_email);
    REQUIRE(txn.catalog().find_table("nope") == nullptr);
    REQUIRE(txn.entry_count(people.table) == 4);
    REQUIRE(txn.entry_count(people.by_city) == 4);  // NULL cities are indexed too
    REQUIRE(txn.entry_count(people.by_email) == 4);
    return Status::OK();
  });

  // Moving a person to another city moves its index entry.
  std::string key2 = test::int_key(people.schema, 2);
  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.update(people.table, key2, person(2, "Oslo", "b@x", 41));
            }).ok());
  REQUIRE(ids_in_city(db.get(), people, "Oslo") == std::vector<int64_t>{1, 2, 3});
  REQUIRE(ids_in_city(db.get(), people, "Rome").empty());

  // Changing the primary key moves every index entry.
  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.update(people.table, key2, person(9, "Oslo", "b@x", 41));
            }).ok());
  REQUIRE(ids_in_city(db.get(), people, "Oslo") == std::vector<int64_t>{1, 3, 9});

  REQUIRE(db->write([&](WriteTxn& txn) {
              return txn.erase(people.table, test::int_key(people.schema, 1));
            }).ok());
  REQUIRE(ids_in_city(db.get(), people, "Oslo") == std::vector<int64_t>{3, 9});
  db->read([&](ReadTxn& txn) {
    REQUIRE(txn.entry_count(people.by_email) == 3);
    return Status::OK();
  });
}

// people with rows 1 (Oslo, a@x, 30) and 2 (Rome, b@x, 40).
People create_two_people(Database* db) {
  People people = create_people(db);
  REQUIRE(db->write([&](WriteTxn& txn) {
              REQUIRE(txn.insert(people.table, person(1, "Oslo", "a@x", 30)).ok());
              REQUIRE(txn.insert(people.table, person(2, "Rome", "b@x", 40)).ok());
              return Status::OK();
            }).ok());
  return people;
}

TEST_CASE("update_columns: a patched row, with and without key or index columns") {
  auto db = open_db();
  People people = create_two_people(db.get());
  std::string key1 = test::int_key(people.schema, 1);
  auto patch = [&](WriteTxn& txn, std::vector<uint32_t> columns, std::vector<Value> values) {
    std::string_view stored;
    REQUIRE(txn.get(people.table, key1, &stored).ok());
    std::string row;
    REQUIRE(patch_row(people.schema, stored, columns, values, &row).ok());
    return txn.update_columns(people.table, key1, row, columns);
  };
  // Age is in no key: the fast path; the index entries stay as they were.
  REQUIRE(db->write([&](WriteTxn& txn) { return patch(txn, {3}, {Value::Int(31)}); }).ok());
  // City is indexed: the entry moves.
  REQUIRE(db->write([&](WriteTxn& txn) { return patch(txn, {1}, {Value::String("Rome")}); }).ok());
  REQUIRE(ids_in_city(db.get(), people, "Rome") == std::vector<int64_t>{1, 2});
  REQUIRE(ids_in_city(db.get(), people, "Oslo").empty());
  // A unique index still refuses a duplicate.
  REQUIRE(db->write([&](WriteTxn& txn) {
                return patch(txn, {2}, {Value::String("b@x")});
              }).IsAlreadyExists());
  db->read([&](ReadTxn& txn) {
    Row row;
    REQUIRE(txn.get_row(people.table, key1, &row).ok());
    REQUIRE(row == person(1, "Rome", "a@x", 31));
    REQUIRE(txn.entry_count(people.by_city) == 2);
    REQUIRE(txn.entry_count(people.by_email) == 2);
    return Status::OK();
  });
  // No such row.
  REQUIRE(db->write([&](WriteTxn& txn) {
                std::string row;
                REQUIRE(encode_row(people.schema, person(7, "Oslo", "z@x", 1), &row).ok());
                uint32_t age[1] = {3};
                return txn.update_columns(people.table, test::int_key(people.schema, 7), row, age);
              }).IsNotFound());
}

TEST_CASE("put_encoded: replaces the row with its key or inserts it, indexes in step") {
  auto db = open_db();
  People people = create_two_people(db.get());
  auto put = [&](const Row& row) {
    return db->write([&](WriteTxn& txn) {
      std::string encoded;
      REQUIRE(encode_row(people.schema, row, &encoded).ok());
      return txn.put_encoded(people.table, test::int_key(people.schema, row[0].as_int()), encoded);
    });
  };
  REQUIRE(put(person(1, "Rome", "a@x", 40)).ok());  // replaces: the city entry moves
  REQUIRE(put(person(3, "Rome", "c@x", 22)).ok());  // inserts
  REQUIRE(ids_in_city(db.get(), people, "Rome") == std::vector<int64_t>{1, 2, 3});
  REQUIRE(ids_in_city(db.get(), people, "Oslo").empty());
  // A key that is not the row's is refused.
  REQUIRE(db->write([&](WriteTxn& txn) {
                std::string encoded;
                REQUIRE(encode_row(people.schema, person(5, "Oslo", "e@x", 1), &encoded).ok());
                return txn.put_encoded(people.table, test::int_key(people.schema, 6), encoded);
              }).IsInvalidArgument());
  // Unique index: a new row or a replaced one may not take another row's email.
  REQUIRE(put(person(4, "Oslo", "b@x", 1)).IsAlreadyExists());
  REQUIRE(put(person(1, "Oslo", "b@x", 1)).IsAlreadyExists());
  db->read([&](ReadTxn& txn) {
    Row row;
    REQUIRE(txn.get_row(people.table, test::int_key(people.schema, 1), &row).ok());
    REQUIRE(row == person(1, "Rome", "a@x", 40));
    REQUIRE(txn.get_row(people.table, test::int_key(people.schema, 3), &row).ok());
    REQUIRE(row == person(3, "Rome", "c@x", 22));
    REQUIRE(txn.entry_count(people.table) == 3);
    REQUIRE(txn.entry_count(people.by_city) == 3);
    REQUIRE(txn.entry_count(people.by_email) == 3);
    return Status::OK();
  });
  // Into an empty table (no tree yet), and a bad table id.
  REQUIRE(db->write([&](WriteTxn& txn) {
                TableSchema schema{"empty", {ColumnDef::BigInt("id", true)}, {0}};
                auto table = txn.create_table(schema);
                REQUIRE(table.ok());
                std::string encoded;
                REQUIRE(encode_row(schema, {Value::Int(5)}, &encoded).ok());
                REQUIRE(txn.put_encoded(*table, test::int_key(schema, 5), encoded).ok());
                REQUIRE(txn.entry_count(*table) == 1);
                return txn.put_encoded(9999, test::int_key(schema, 5), encoded);
              }).IsInvalidArgument());
}

TEST_CASE("patch_columns: one pass for other columns, the checked path for key or index columns") {
  auto db = open_db();
  People people = create_two_people(db.get());
  std::string key1 = test::int_key(people.schema, 1);
  auto patch = [&](WriteTxn& txn, std::vector<uint32_t> columns, std::vector<Value> values,
                   Row* stored_row = nullptr) {
    std::string_view stored;
    Status status = txn.patch_columns(people.table, key1, columns, values, &stored);
    if (status.ok() && stored_row != nullptr) REQUIRE(decode_row(people.schema, stored, stored_row).ok());
    return status;
  };
  Row stored;
  // Age is in no key: the one-pass path; *stored is the new row.
  REQUIRE(db->write([&](WriteTxn& txn) { return patch(txn, {3}, {Value::Int(31)}, &stored); }).ok());
  REQUIRE(stored == person(1, "Oslo", "a@x", 31));
  // Two columns, given in descending order, one of them (indexed) set to NULL.
  REQUIRE(db->write([&](WriteTxn& txn) {
                return patch(txn, {3, 2}, {Value::Int(32), Value::Null()}, &stored);
              }).ok());
  REQUIRE(stored == person(1, "Oslo", nullptr, 32));
  // City is indexed: the entry moves.
  REQUIRE(db->write([&](WriteTxn& txn) {
                return patch(txn, {1}, {Value::String("Rome")}, &stored);
              }).ok());
  REQUIRE(stored == person(1, "Rome", nullptr, 32));
  REQUIRE(ids_in_city(db.get(), people, "Rome") == std::vector<int64_t>{1, 2});
  // A unique index still refuses a duplicate; a value too long for its column is refused.
  REQUIRE(db->write([&](WriteTxn& txn) { return patch(txn, {2}, {Value::String("b@x")}); })
              .IsAlreadyExists());
  REQUIRE(db->write([&](WriteTxn& txn) {
                return patch(txn, {3}, {Value::String(std::string(50, 'x'))});
              }).IsInvalidArgument());
  // A rolled-back patch leaves nothing.
  REQUIRE(db->write([&](WriteTxn& txn) {
                REQUIRE(patch(txn, {3}, {Value::Int(99)}).ok());
                return Status::Aborted("changed my mind");
              }).IsAborted());
  db->read([&](ReadTxn& txn) {
    Row row;
    REQUIRE(txn.get_row(people.table, key1, &row).ok());
    REQUIRE(row == person(1, "Rome", nullptr, 32));
    REQUIRE(txn.entry_count(people.by_city) == 2);
    REQUIRE(txn.entry_count(people.by_email) == 2);  // a NULL is indexed too (not unique)
    return Status::OK();
  });
  // No such row.
  REQUIRE(db->write([&](WriteTxn& txn) {
                uint32_t age[1] = {3};
                Value value = Value::Int(1);
                return txn.patch_columns(people.table, test::int_key(people.schema, 7), age,
                                         std::span<const Value>(&value, 1));
              }).IsNotFound());
}

TEST_CASE("patch_columns of rows one after another finds each, in and across leaves, between other changes") {
  // A patch finds the next row of the same leaf without a descent while
  // nothing changed in between; inserts, removes, other tables' rows, absent
  // keys and a rollback all come between such patches here.
  auto db = open_db();
  People people = create_people(db.get());
  People other = people;
  REQUIRE(db->write([&](WriteTxn& txn) {
              for (int id = 1; id <= 400; ++id) {
                REQUIRE(txn.insert(people.table, person(id, nullptr, nullptr, 0)).ok());
              }
              TableSchema schema = people.schema;
              schema.name = "others";
              auto table = txn.create_table(schema);
              if (!table.ok()) return table.status();
              other.table = *table;
              return txn.insert(other.table, person(1, nullptr, nullptr, 0));
            }).ok());
  uint32_t age[1] = {3};
  auto patch = [&](WriteTxn& txn, TableId table, int id, int value) {
    Value v = Value::Int(value);
    return txn.patch_columns(table, test::int_key(people.schema, id), age,
                             std::span<const Value>(&v, 1));
  };
  std::map<int64_t, int64_t> expected;
  for (int id = 1; id <= 400; ++id) expected[id] = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              for (int id = 1; id <= 400; ++id) {
                REQUIRE(patch(txn, people.table, id, id).ok());
                expected[id] = id;
                if (id % 37 == 0) {  // an insert between two patches: the leaf may split
                  REQUIRE(txn.insert(people.table, person(1000 + id, nullptr, nullptr, 7)).ok());
                  expected[1000 + id] = 7;
                }
                if (id % 41 == 0) {  // a remove between two patches
                  REQUIRE(txn.erase(people.table, test::int_key(people.schema, id - 1)).ok());
                  expected.erase(id - 1);
                }
                if (id % 23 == 0) REQUIRE(patch(txn, other.table, 1, id).ok());
                if (id % 29 == 0) REQUIRE(patch(txn, people.table, 5000 + id, 1).IsNotFound());
                if (id % 31 == 0 && expected.count(401 - id) != 0) {  // a far row, then back
                  REQUIRE(patch(txn, people.table, 401 - id, -id).ok());
                  expected[401 - id] = -id;
                }
              }
              return Status::OK();
            }).ok());
  // Rolled back: none of these patches stays.
  REQUIRE(db->write([&](WriteTxn& txn) {
              for (int id = 1; id <= 400; ++id) {
                if (expected.count(id) != 0) REQUIRE(patch(txn, people.table, id, 999).ok());
              }
              return Status::Aborted("no");
            }).IsAborted());
  std::map<int64_t, int64_t> found;
  REQUIRE(db->read([&](ReadTxn& txn) {
              auto cursor = txn.scan(people.table, KeyRange::All());
              REQUIRE(cursor.ok());
              for (; cursor->valid(); cursor->next()) {
                Row row;
                REQUIRE(decode_row(people.schema, cursor->value(), &row).ok());
                found[row[0].as_int()] = row[3].as_int();
              }
              return Status::OK();
            }).ok());
  REQUIRE(found == expected);
}

TEST_CASE("a patch after removes that merge the last patched row's leaf away finds the row anew") {
  uint32_t age[1] = {3};
  for (int spared = 100; spared <= 300; spared += 13) {
    auto db = open_db();
    People people = create_people(db.get());
    REQUIRE(db->write([&](WriteTxn& txn) {
                for (int id = 1; id <= 400; ++id) {
                  REQUIRE(txn.insert(people.table, person(id, nullptr, nullptr, 0)).ok());
                }
                return Status::OK();
              }).ok());
    REQUIRE(db->write([&](WriteTxn& txn) {
                Value v = Value::Int(1);
                REQUIRE(txn.patch_columns(people.table, test::int_key(people.schema, spared - 1), age,
                                          std::span<const Value>(&v, 1))
                            .ok());
                // Empty the leaves around it but for `spared`: they merge.
                for (int id = spared - 60; id <= spared + 60; ++id) {
                  if (id == spared) continue;
                  REQUIRE(txn.erase(people.table, test::int_key(people.schema, id)).ok());
                }
                v = Value::Int(2);
                return txn.patch_columns(people.table, test::int_key(people.schema, spared), age,
                                         std::span<const Value>(&v, 1));
              }).ok());
    REQUIRE(db->read([&](ReadTxn& txn) {
                Row row;
                REQUIRE(txn.get_row(people.table, test::int_key(people.schema, spared), &row).ok());
                REQUIRE(row[3].as_int() == 2);
                return Status::OK();
              }).ok());
  }
}

TEST_CASE("patch_columns uses the caller's decoding only if it is of the stored row") {
  auto db = open_db();
  People people = create_two_people(db.get());
  std::string key1 = test::int_key(people.schema, 1);
  uint32_t age[1] = {3};
  Value value = Value::Int(40);
  // The stored row's own decoding: used (the row comes out right).
  REQUIRE(db->write([&](WriteTxn& txn) {
                std::string_view row;
                REQUIRE(txn.get_for_update(people.table, key1, &row).ok());
                std::vector<ColumnView> views(people.schema.columns.size());
                REQUIRE(decode_row_view(people.schema, row, views).ok());
                DecodedRow decoded{row, views};
                return txn.patch_columns(people.table, key1, age, std::span<const Value>(&value, 1),
                                         nullptr, &decoded);
              }).ok());
  // A decoding of other bytes (another row, longer: its column ends would
  // cut this row wrongly) is not used.
  value = Value::Int(41);
  REQUIRE(db->write([&](WriteTxn& txn) {
                std::string other;
                REQUIRE(encode_row(people.schema, person(9, "Constantinople", "long@example", 1),
                                   &other)
                            .ok());
                std::vector<ColumnView> views(people.schema.columns.size());
                REQUIRE(decode_row_view(people.schema, other, views).ok());
                DecodedRow decoded{other, views};
                return txn.patch_columns(people.table, key1, age, std::span<const Value>(&value, 1),
                                         nullptr, &decoded);
              }).ok());
  db->read([&](ReadTxn& txn) {
    Row row;
    REQUIRE(txn.get_row(people.table, key1, &row).ok());
    REQUIRE(row == person(1, "Oslo", "a@x", 41));
    return Status::OK();
  });
}

TEST_CASE("unique indexes and primary keys refuse duplicates, NULLs excepted") {
  auto db = open_db();
  People people = create_people(db.get());
  REQUIRE(db->write([&](WriteTxn& txn) {
              REQUIRE(txn.insert(people.table, person(1, "Oslo", "a@x", 30)).ok());
              REQUIRE(txn.insert(people.table, person(1, "Rome", "z@x", 30)).IsAlreadyExists());
              REQUIRE(txn.insert(people.table, person(2, "Rome", "a@x", 30)).IsAlreadyExists());
              REQUIRE(txn.insert(people.table, person(3, "Rome", nullptr, 30)).ok());
              REQUIRE(txn.insert(people.table, person(4, "Rome", nullptr, 30)).ok());
              REQUIRE(txn.insert(people.table, person(5, "Rome", "e@x", 30)).ok());
              // Updating a row to its own unique key is fine; to another's is not.
              REQUIRE(txn.update(people.table, test::int_key(people.schema, 1),
                                 person(1, "Paris", "a@x", 31)).ok());
              REQUIRE(txn.update(people.table, test::int_key(people.schema, 5),
                                 person(5, "Paris", "a@x", 31)).IsAlreadyExists());
              REQUIRE(txn.update(people.table, test::int_key(people.schema, 5),
                                 person(1, "Paris", "q@x", 31)).IsAlreadyExists());
              REQUIRE(txn.update(people.table, test::int_key(people.schema, 77),
                                 person(77, "Paris", "q@x", 31)).IsNotFound());
              REQUIRE(txn.erase(people.table, test::int_key(people.schema, 77)).IsNotFound());
              REQUIRE(txn.insert(people.table, Row{Value::Null(), Value::Null(), Value::Null(),
                                                   Value::Int(1)}).IsConstraint());
              return Status::OK();
            }).ok());
  db->read([&](ReadTxn& txn) {
    REQUIRE(txn.entry_count(people.table) == 4);
    REQUIRE(txn.entry_count(people.by_email) == 4);
    return Status::OK();
  });
}

TEST_CASE("DDL errors: taken names, bad schemas, unique index over duplicates") {
  auto db = open_db();
  People people = create_people(db.get());
  REQUIRE(db->write([&](WriteTxn& txn) {
              REQUIRE(txn.insert(people.table, person(1, "Oslo", "a@x", 30)).ok());
              REQUIRE(txn.insert(people.table, person(2, "Oslo", "b@x", 30)).ok());
              return Status::OK();
            }).ok());
  Status status = db->write([&](WriteTxn& txn) {
    TableSchema schema = test::accounts_schema();
    schema.name = "people";
    REQUIRE(txn.create_table(schema).status().IsAlreadyExists());
    schema.name = "x";
    schema.primary_key = {};
    REQUIRE(txn.create_table(schema).status().IsInvalidArgument());
    schema.primary_key = {1};  // nullable column
    REQUIRE(txn.create_table(schema).status().IsInvalidArgument());
    REQUIRE(txn.create_index(IndexSchema{"by_city2", "people", {1}, true}).status().IsAlreadyExists());
    REQUIRE(txn.create_index(IndexSchema{"i", "nope", {1}, false}).status().IsNotFound());
    REQUIRE(txn.create_index(IndexSchema{"by_city", "people", {1}, false}).status().IsAlreadyExists());
    // A failed create_index leaves nothing behind; a good one sees every row.
    auto age = txn.create_index(IndexSchema{"by_age", "people", {3, 1}, false});
    REQUIRE(age.ok());
    REQUIRE(txn.entry_count(*age) == 2);
    REQUIRE(txn.catalog().find_index("by_city2") == nullptr);
    return Status::OK();
  });
  REQUIRE(status.ok());
}

TEST_CASE("scans: prefixes, bounds, both directions") {
  auto db = open_db();
  TableId table = 0;
  TableSchema schema;
  REQUIRE(db->write([&](WriteTxn& txn) {
              schema.name = "pairs";
              schema.columns = {ColumnDef::Integer("a", true), ColumnDef::Integer("b", true),
                                ColumnDef::Text("v")};
              schema.primary_key = {0, 1};
              table = *txn.create_table(schema);
              for (int a = 0; a < 30; ++a) {
                for (int b = 0; b < 30; ++b) {
                  Status s = txn.insert(table, {Value::Int(a), Value::Int(b),
                                                Value::String(std::string(a + b, 'v'))});
                  if (!s.ok()) return s;
                }
              }
              schema = txn.catalog().table(table)->schema;
              return Status::OK();
            }).ok());
  db->read([&](ReadTxn& txn) {
    for (bool reverse : {false, true}) {
      std::string prefix;
      Value a = Value::Int(17);
      REQUIRE(append_key(schema, schema.primary_key, std::span<const Value>(&a, 1), &prefix).ok());
      auto cursor = txn.scan(table, KeyRange::Prefix(prefix, reverse));
      std::vector<int64_t> bs;
      for (; cursor->valid(); cursor->next()) {
        bs.push_back(decode_column(schema, cursor->value(), 1).as_int());
        REQUIRE(decode_column(schema, cursor->value(), 0).as_int() == 17);
      }
      REQUIRE(bs.size() == 30);
      for (int b = 0; b < 30; ++b) REQUIRE(bs[b] == (reverse ? 29 - b : b));
    }
    // Exclusive/inclusive bounds between (3,5) and (4,2).
    std::string lower;
    std::string upper;
    Value low[2] = {Value::Int(3), Value::Int(5)};
    Value high[2] = {Value::Int(4), Value::Int(2)};
    REQUIRE(append_key(schema, schema.primary_key, low, &lower).ok());
    REQUIRE(append_key(schema, schema.primary_key, high, &upper).ok());
    for (bool reverse : {false, true}) {
      for (int inclusive = 0; inclusive < 4; ++inclusive) {
        KeyRange range = KeyRange::Between(lower, upper, reverse);
        range.lower_inclusive = inclusive & 1;
        range.upper_inclusive = inclusive & 2;
        auto cursor = txn.scan(table, range);
        int count = 0;
        for (; cursor->valid(); cursor->next()) count++;
        REQUIRE(count == 26 + (inclusive & 1 ? 1 : 0) + (inclusive & 2 ? 1 : 0));
      }
    }
    auto all = txn.scan(table, KeyRange::All(true));
    REQUIRE(decode_column(schema, all->value(), 0).as_int() == 29);
    REQUIRE(txn.scan(99, KeyRange::All()).status().IsInvalidArgument());
    return Status::OK();
  });
}

TEST_CASE("a WriteTxn cursor survives the transaction's own deletes") {
  auto db = open_db();
  TableSchema schema = test::accounts_schema();
  TableId table = 0;
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              for (int id = 0; id < 500; ++id) {
                REQUIRE(txn.insert(table, {Value::Int(id), Value::Null(), Value::Int(id)}).ok());
              }
              return Status::OK();
            }).ok());
  REQUIRE(db->write([&](WriteTxn& txn) {
              auto cursor = txn.scan(table, KeyRange::All());
              int seen = 0;
              for (; cursor->valid(); cursor->next()) {
                std::string key(cursor->key());
                if (seen % 3 != 0) REQUIRE(txn.erase(table, key).ok());
                seen++;
              }
              REQUIRE(seen == 500);
              REQUIRE(txn.entry_count(table) == 167);
              return Status::OK();
            }).ok());
}

TEST_CASE("drop_index and drop_table remove entries and names, and roll back") {
  auto db = open_db();
  People people = create_people(db.get());
  REQUIRE(db->write([&](WriteTxn& txn) {
              for (int id = 0; id < 100; ++id) {
                Status s = txn.insert(people.table, person(id, "Oslo", nullptr, 20));
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  uint64_t bytes_before = db->stats().state_bytes;
  // Dropped and rolled back: everything is back.
  Status rolled = db->write([&](WriteTxn& txn) {
    REQUIRE(txn.drop_index(people.by_city).ok());
    REQUIRE(txn.catalog().find_index("by_city") == nullptr);
    REQUIRE(txn.drop_table(people.table).ok());
    REQUIRE(txn.catalog().find_table("people") == nullptr);
    REQUIRE(txn.state_bytes() == 0);
    return Status::Aborted("undo it");
  });
  REQUIRE(rolled.IsAborted());
  REQUIRE(db->stats().state_bytes == bytes_before);
  REQUIRE(ids_in_city(db.get(), people, "Oslo").size() == 100);
  // Dropped for real: the names are free again.
  REQUIRE(db->write([&](WriteTxn& txn) {
              REQUIRE(txn.drop_table(people.table).ok());
              REQUIRE(txn.drop_index(people.by_city).IsNotFound());
              return Status::OK();
            }).ok());
  REQUIRE(db->stats().state_bytes == 0);
  People again = create_people(db.get());
  REQUIRE(again.table != people.table);
}

// get_for_update remembers its descent; update_columns and erase reuse it
// only for the same row, in the same transaction, with no change between.
TEST_CASE("get_for_update: the remembered descent serves only the next change of that row") {
  Options options;
  options.check_invariants = true;  // every round's trees are checked whole
  auto db = open_db(options);
  TableSchema schema{"kv", {ColumnDef::BigInt("k", true), ColumnDef::BigInt("v", true)}, {0}};
  TableId table = 0;
  // Keys 0, 1000, ..., 1999000: room between them for rows that split a leaf.
  REQUIRE(db->write([&](WriteTxn& txn) {
              table = *txn.create_table(schema);
              for (int64_t id = 0; id < 2000; ++id) {
                Status s = txn.insert(table, {Value::Int(id * 1000), Value::Int(id)});
                if (!s.ok()) return s;
              }
              return Status::OK();
            }).ok());
  std::map<int64_t, int64_t> expected;
  for (int64_t id = 0; id < 2000; ++id) expected[id * 1000] = id;
  auto key = [&](int64_t k) { return test::int_key(schema, k); };
  auto set_v = [&](WriteTxn& txn, int64_t k, int64_t v) {
    std::string row;
    REQUIRE(encode_row(schema, {Value::Int(k), Value::Int(v)}, &row).ok());
    uint32_t changed[1] = {1};
    return txn.update_columns(table, key(k), row, changed);
  };
  auto found_v = [&](WriteTxn& txn, int64_t k) {
    std::string_view row;
    REQUIRE(txn.get_for_update(table, key(k), &row).ok());
    Row decoded;
    REQUIRE(decode_row(schema, row, &decoded).ok());
    REQUIRE(decoded[0].as_int() == k);
    return decoded[1].as_int();
  };

  SECTION("the next change of the same row") {
    REQUIRE(db->write([&](WriteTxn& txn) {
                REQUIRE(found_v(txn, 500000) == 500);
                return set_v(txn, 500000, -1);
              }).ok());
    expected[500000] = -1;
  }
  SECTION("rows inserted in between split the row's leaf") {
    REQUIRE(db->write([&](WriteTxn& txn) {
                REQUIRE(found_v(txn, 500000) == 500);
                for (int64_t k = 500001; k <= 500200; ++k) {
                  REQUIRE(txn.insert(table, {Value::Int(k), Value::Int(k)}).ok());
                  expected[k] = k;
                }
                for (int64_t k = 499801; k <= 499999; ++k) {
                  REQUIRE(txn.insert(table, {Value::Int(k), Value::Int(k)}).ok());
                  expected[k] = k;
                }
                return set_v(txn, 500000, -2);
              }).ok());
    expected[500000] = -2;
  }
  SECTION("another row, or a later transaction") {
    REQUIRE(db->write([&](WriteTxn& txn) {
                REQUIRE(found_v(txn, 7000) == 7);
                return set_v(txn, 8000, -3);
              }).ok());
    expected[8000] = -3;
    REQUIRE(db->write([&](WriteTxn& txn) {
                REQUIRE(found_v(txn, 9000) == 9);
                return Status::OK();
              }).ok());
    REQUIRE(db->write([&](WriteTxn& txn) { return set_v(txn, 9000, -4); }).ok());
    expected[9000] = -4;
  }
  SECTION("erase after get_for_update, and a row that is not there") {
    REQUIRE(db->write([&](WriteTxn& txn) {
                REQUIRE(found_v(txn, 1234000) == 1234);
                return txn.erase(table, key(1234000));
              }).ok());
    expected.erase(1234000);
    REQUIRE(db->write([&](WriteTxn& txn) {
                std::string_view row;
                REQUIRE(txn.get_for_update(table, key(1234000), &row).IsNotFound());
                return set_v(txn, 1234000, 1);
              }).IsNotFound());
  }
  db->read([&](ReadTxn& txn) {
    std::map<int64_t, int64_t> actual;
    auto cursor = txn.scan(table, KeyRange::All());
    for (; cursor->valid(); cursor->next()) {
      Row row;
      REQUIRE(decode_row(schema, cursor->value(), &row).ok());
      actual[row[0].as_int()] = row[1].as_int();
    }
    REQUIRE(actual == expected);
    return Status::OK();
  });
}
