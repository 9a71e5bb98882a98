// The PostgreSQL target: PostgreSQL -> dump (ExportService, local folder) ->
// a second database through PostgresTarget, compared with pg_dump --inserts;
// fail/replace/append; failures leave neither the table nor a staging table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <thread>

#include <sqlite3.h>

#include "dump/export_service.h"
#include "lake/manifest.h"
#include "fakes/temp_dir.h"
#include "format/parquet/parquet_reader.h"
#include "integration/pg_test_util.h"
#include "load/postgres/postgres_target.h"
#include "store/open_store.h"

namespace lakedump {
namespace {

using testing_pg::ExpectSameLines;
using testing_pg::PgDumpInserts;

using testing_pg::AdminConn;
using testing_pg::ConninfoWith;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_pg::ScratchSchema;

// Dumps the tables of `schema` into `dir` (ExportService, PostgreSQL source).
Result<DumpManifest> DumpSchema(const std::string& schema, const std::string& dir,
                                uint64_t file_size = 0) {
  PostgresOptions pg;
  LD_ASSIGN_OR_RETURN(auto db, OpenPostgresDatabase(testing_pg::TestDsn(), pg));
  LD_ASSIGN_OR_RETURN(auto store, OpenStore(dir, StoreOptions{}));
  DumpOptions options;
  options.include = {schema + ".*"};
  options.table_parallelism = 2;
  options.file_size = file_size;
  options.batch_rows = 1000;
  ExportService service(db.get(), store.get(), options);
  LD_ASSIGN_OR_RETURN(DumpResult result, service.Run());
  return result.manifest;
}

Status LoadTables(ObjectStore& store, const DumpManifest& manifest,
                  const std::vector<TableSummary>& tables, TargetDatabase& target,
                  LoadIfExists if_exists, uint64_t* rows_loaded);

// A minimal `lakedump load` (LoadService is built elsewhere): every table of the
// dump, every file through its own sink, in order.
// With `threads` > 1, tables load at once (one thread per table, round robin).
Status LoadDump(const std::string& dir, TargetDatabase& target, LoadIfExists if_exists,
                uint64_t* rows_loaded = nullptr, int threads = 1) {
  LD_ASSIGN_OR_RETURN(auto store, OpenStore(dir, StoreOptions{}));
  LD_ASSIGN_OR_RETURN(DumpManifest manifest, ReadDumpManifest(*store));
  if (threads > 1) {
    std::vector<std::thread> workers;
    std::vector<Status> results(threads);
    std::vector<uint64_t> rows(threads, 0);
    for (int w = 0; w < threads; ++w) {
      workers.emplace_back([&, w] {
        for (size_t i = w; i < manifest.tables.size(); i += threads) {
          // A one-table dump view: reuse the serial path on a filtered manifest.
          Status s = LoadTables(*store, manifest, {manifest.tables[i]}, target, if_exists,
                                &rows[w]);
          if (!s.ok() && results[w].ok()) results[w] = s;
        }
      });
    }
    for (auto& t : workers) t.join();
    for (int w = 0; w < threads; ++w) {
      if (rows_loaded) *rows_loaded += rows[w];
      LD_RETURN_IF_ERROR(results[w]);
    }
    return Status::OK();
  }
  return LoadTables(*store, manifest, manifest.tables, target, if_exists, rows_loaded);
}

Status LoadTables(ObjectStore& store_ref, const DumpManifest& manifest,
                  const std::vector<TableSummary>& tables, TargetDatabase& target,
                  LoadIfExists if_exists, uint64_t* rows_loaded) {
  ObjectStore* store = &store_ref;
  for (const TableSummary& summary : tables) {
    LD_ASSIGN_OR_RETURN(TableManifest table, ReadTableManifest(*store, summary.key));
    TablePlan plan;
    plan.source = table.table;
    plan.target = table.table;
    plan.definition.schema = table.schema;
    plan.definition.ddl = table.ddl;
    plan.definition.primary_key = table.primary_key;
    plan.source_kind = manifest.source.value("kind", "");
    // These tests check that defaults and CHECK constraints come back: the dump is ours.
    plan.trust_schema = true;
    plan.if_exists = if_exists;
    plan.rows = table.rows;
    plan.file_count = table.files.size();
    LD_RETURN_IF_ERROR(target.PrepareTable(plan));
    Status s = [&]() -> Status {
      for (const DataFile& file : table.files) {
        LD_ASSIGN_OR_RETURN(auto reader, store->NewReader(file.key));
        ObjectReader* raw = reader.get();
        LD_ASSIGN_OR_RETURN(
            auto parquet,
            ParquetReader::Open(raw->size(), [raw](uint64_t off, uint64_t len, std::string* out) {
              return raw->ReadAt(off, len, out);
            }));
        LD_ASSIGN_OR_RETURN(auto sink, target.OpenSink(plan));
        RowBatch batch;
        while (true) {
          LD_RETURN_IF_ERROR(parquet->Next(700, &batch));
          if (batch.empty()) break;
          LD_RETURN_IF_ERROR(sink->Append(batch));
        }
        LD_ASSIGN_OR_RETURN(uint64_t rows, sink->Finish());
        if (rows_loaded) *rows_loaded += rows;
      }
      return target.CommitTable(plan);
    }();
    if (!s.ok()) {
      target.AbortTable(plan).IgnoreError();
      return s;
    }
  }
  return Status::OK();
}


// The source fixture of postgres_types_test.cc (every mapped type with edge values), plus a
// UNIQUE constraint for the key rebuild and a 2,500-row table with an odd name.
void CreateTypesFixture(PgConn& admin, const std::string& s) {
  ASSERT_TRUE(testing_pg::CreateEveryTypeTable(admin, s).ok());
  ASSERT_TRUE(admin.Exec(fmt::format(R"SQL(
    ALTER TABLE {0}.t ADD UNIQUE (i4, vc);
    CREATE TABLE {0}."Odd ""name"" ✓" ("Id" int4 PRIMARY KEY, "a b" text NOT NULL);
    INSERT INTO {0}."Odd ""name"" ✓" SELECT g, 'row ' || g FROM generate_series(1, 2500) g;
  )SQL", s)).ok());
}

// `schema` dumped to a folder and loaded into `db`; `pg` is a connection to `db`
// (null, with a test failure, when any step failed).
struct DumpedAndLoaded {
  DumpedAndLoaded(const std::string& schema, const ScratchDatabase& db) {
    auto dumped = DumpSchema(schema, dir.path());
    EXPECT_TRUE(dumped.ok()) << dumped.status().ToString();
    auto opened = OpenPostgresTarget(db.conninfo());
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!dumped.ok() || !opened.ok()) return;
    target = std::move(*opened);
    Status s = LoadDump(dir.path(), *target, LoadIfExists::kFail);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (s.ok()) pg = AdminConn(db.conninfo());
  }
  TempDir dir;
  std::unique_ptr<TargetDatabase> target;
  std::unique_ptr<PgConn> pg;
};

TEST(PostgresLoadTest, EveryTypeRoundTripsThroughADump) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  CreateTypesFixture(*admin, schema.q());
  TempDir dir;
  auto dumped = DumpSchema(schema.name(), dir.path(), /*file_size=*/16 * 1024);
  ASSERT_TRUE(dumped.ok()) << dumped.status().ToString();
  ASSERT_EQ(dumped->tables.size(), 2u);

  ScratchDatabase db(admin.get());
  // The enum exists in the target (as after a schema-only restore); the domains do
  // not: their columns are created as the domains' base types.
  auto target_admin = AdminConn(db.conninfo());
  ASSERT_TRUE(target_admin);
  ASSERT_TRUE(target_admin
                  ->Exec(fmt::format("CREATE SCHEMA {0}; CREATE TYPE {0}.mood AS ENUM "
                                     "('sad', 'happy', 'très \"bien\"')",
                                     schema.q()))
                  .ok());
  auto target = OpenPostgresTarget(db.conninfo());
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  uint64_t rows = 0;
  Status s = LoadDump(dir.path(), **target, LoadIfExists::kFail, &rows);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(rows, 2507u);

  const auto source_lines = PgDumpInserts(testing_pg::TestDsn(), schema.name());
  ASSERT_EQ(source_lines.size(), 2507u);
  ExpectSameLines(source_lines, PgDumpInserts(db.conninfo(), schema.name()));
  // Exact source types where the target has them, base types for missing domains.
  const std::string types = QueryOne(
      *target_admin,
      fmt::format("SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' "
                  "ORDER BY attnum) FROM pg_attribute WHERE attrelid = '{}.t'::regclass AND "
                  "attnum > 0",
                  schema.q()));
  EXPECT_NE(types.find("n12 numeric(12,2)"), std::string::npos) << types;
  EXPECT_NE(types.find("en " + schema.name() + ".mood"), std::string::npos) << types;
  EXPECT_NE(types.find("ip inet"), std::string::npos) << types;
  EXPECT_NE(types.find("arr integer[]"), std::string::npos) << types;
  EXPECT_NE(types.find("bp character(5)"), std::string::npos) << types;
  EXPECT_NE(types.find("dom numeric(10,2)"), std::string::npos) << types;
  EXPECT_NE(types.find("dom2 text"), std::string::npos) << types;
  // Keys built after the data, under PostgreSQL's default names; no staging table left.
  EXPECT_EQ(QueryOne(*target_admin,
                     fmt::format("SELECT string_agg(conname || ':' || contype::text, ',' ORDER BY "
                                 "conname) FROM pg_constraint WHERE conrelid = '{}.t'::regclass",
                                 schema.q())),
            "t_i4_vc_key:u,t_pkey:p");
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) FROM pg_class WHERE relname LIKE "
                                    "'\\_lakedump\\_load\\_%'"),
            "0");
  EXPECT_EQ(QueryOne(*target_admin,
                     fmt::format("SELECT count(*) FROM {}.\"Odd \"\"name\"\" ✓\"", schema.q())),
            "2500");
  // ANALYZE ran.
  EXPECT_NE(QueryOne(*target_admin,
                     fmt::format("SELECT reltuples::int8 FROM pg_class WHERE oid = "
                                 "'{}.\"Odd \"\"name\"\" ✓\"'::regclass",
                                 schema.q())),
            "-1");
}

TEST(PostgresLoadTest, IdentityColumnsAndDefaultsComeBack) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.w (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
      "n int4 NOT NULL DEFAULT 42, s text DEFAULT 'hello, world', made timestamptz DEFAULT now()); "
      "INSERT INTO {0}.w (n) SELECT g FROM generate_series(1, 10) g", schema.q())).ok());
  ScratchDatabase db(admin.get());
  DumpedAndLoaded copy(schema.name(), db);
  ASSERT_TRUE(copy.pg);
  PgConn* pg = copy.pg.get();
  const std::string w = schema.q() + ".w";
  ASSERT_TRUE(pg->Exec("INSERT INTO " + w + " DEFAULT VALUES").ok());
  EXPECT_EQ(QueryOne(*pg, "SELECT id || ' ' || n || ' ' || s || ' ' || (made IS NOT NULL) FROM " +
                              w + " WHERE id = 11"),
            "11 42 hello, world true");
  EXPECT_EQ(QueryOne(*pg, "SELECT pg_get_serial_sequence('" + w + "', 'id')"),
            schema.name() + ".w_id_seq");
  // Replace keeps working with the sequence in place.
  Status s = LoadDump(copy.dir.path(), *copy.target, LoadIfExists::kReplace);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM " + w), "10");
}

// Serial columns come back as identity columns that go on past the loaded keys, and
// validated CHECK constraints come back and hold.
TEST(PostgresLoadTest, SerialColumnsAndCheckConstraintsComeBack) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.s (id serial PRIMARY KEY, big bigserial, c int CONSTRAINT \"c is "
      "positive\" CHECK (c > 0), d int CHECK (d < 100), CHECK (c < d)); "
      "INSERT INTO {0}.s (c, d) SELECT g, g + 10 FROM generate_series(1, 20) g; "
      "ALTER TABLE {0}.s ADD CONSTRAINT unchecked CHECK (c < 3) NOT VALID", schema.q())).ok());
  ScratchDatabase db(admin.get());
  DumpedAndLoaded copy(schema.name(), db);
  ASSERT_TRUE(copy.pg);
  PgConn* pg = copy.pg.get();
  const std::string t = schema.q() + ".s";
  ASSERT_TRUE(pg->Exec("INSERT INTO " + t + " (c, d) VALUES (50, 60)").ok());
  EXPECT_EQ(QueryOne(*pg, "SELECT id || ' ' || big FROM " + t + " WHERE c = 50"), "21 21");
  Status bad = pg->Exec("INSERT INTO " + t + " (c, d) VALUES (-1, 5)");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("c is positive"), std::string::npos) << bad.ToString();
  EXPECT_FALSE(pg->Exec("INSERT INTO " + t + " (c, d) VALUES (7, 200)").ok());
  EXPECT_FALSE(pg->Exec("INSERT INTO " + t + " (c, d) VALUES (9, 8)").ok());
  // The constraint that was never validated on the source is not recreated.
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM pg_constraint WHERE conrelid = '" + t +
                              "'::regclass AND contype = 'c'"),
            "3");
}

TEST(PostgresLoadTest, ExistingTableFailReplaceAppend) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.x (id int8 PRIMARY KEY, v text); "
                                      "INSERT INTO {0}.x SELECT g, 'v' || g FROM "
                                      "generate_series(1, 100) g",
                                      schema.q()))
                  .ok());
  TempDir dir;
  ASSERT_TRUE(DumpSchema(schema.name(), dir.path()).ok());
  ScratchDatabase db(admin.get());
  auto target_admin = AdminConn(db.conninfo());
  ASSERT_TRUE(target_admin);
  ASSERT_TRUE(target_admin
                  ->Exec(fmt::format("CREATE SCHEMA {0}; CREATE TABLE {0}.x (id int4 PRIMARY "
                                     "KEY, v varchar(10), extra text DEFAULT 'd'); INSERT INTO "
                                     "{0}.x VALUES (1000, 'old', 'e')",
                                     schema.q()))
                  .ok());
  auto target = OpenPostgresTarget(db.conninfo());
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  const std::string x = schema.q() + ".x";

  Status s = LoadDump(dir.path(), **target, LoadIfExists::kFail);
  EXPECT_EQ(s.code(), Code::kAlreadyExists);
  EXPECT_EQ(s.message(), fmt::format("table {}.x already exists in the target (use --if-exists "
                                     "replace|append)",
                                     schema.name()));
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) FROM " + x), "1");

  // Append: into the existing int4/varchar columns (4-byte encoding), defaults for the rest.
  s = LoadDump(dir.path(), **target, LoadIfExists::kAppend);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) || ' ' || sum(id) || ' ' || "
                                    "count(*) FILTER (WHERE extra = 'd') FROM " + x),
            "101 6050 100");
  // Appending again violates the primary key: nothing of the second append stays.
  s = LoadDump(dir.path(), **target, LoadIfExists::kAppend);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("duplicate key"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(schema.name() + ".x"), std::string::npos) << s.message();
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) FROM " + x), "101");

  // Replace: the dump's own definition (int8, text, no extra column).
  s = LoadDump(dir.path(), **target, LoadIfExists::kReplace);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) || ' ' || sum(id) FROM " + x), "100 5050");
  EXPECT_EQ(QueryOne(*target_admin,
                     "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '" +
                         x + "'::regclass AND attname = 'id'"),
            "bigint");
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) FROM pg_attribute WHERE attrelid = '" + x +
                                        "'::regclass AND attname = 'extra'"),
            "0");
  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) FROM pg_class WHERE relname LIKE "
                                    "'\\_lakedump\\_load\\_%'"),
            "0");
}

TEST(PostgresLoadTest, FailureMidwayLeavesNoTableAndNoStagingTable) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.y (id int8 NOT NULL, v int8); "
                                      "INSERT INTO {0}.y SELECT g, g * 10 FROM "
                                      "generate_series(1, 5000) g",
                                      schema.q()))
                  .ok());
  TempDir dir;
  auto dumped = DumpSchema(schema.name(), dir.path(), /*file_size=*/8 * 1024);
  ASSERT_TRUE(dumped.ok()) << dumped.status().ToString();
  ScratchDatabase db(admin.get());
  auto target_admin = AdminConn(db.conninfo());
  ASSERT_TRUE(target_admin);
  auto target = OpenPostgresTarget(db.conninfo());
  ASSERT_TRUE(target.ok());

  // A value past int4 in a target created as int4 is a range error naming table, column, row:
  // make the staging table's v an int4 by pre-creating the table and appending.
  ASSERT_TRUE(target_admin
                  ->Exec(fmt::format("CREATE SCHEMA {0}; CREATE TABLE {0}.y (id int8, v int2)",
                                     schema.q()))
                  .ok());
  Status s = LoadDump(dir.path(), **target, LoadIfExists::kAppend);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(fmt::format("table {}.y, column \"v\" (smallint), row",
                                         schema.name())),
            std::string::npos)
      << s.message();
  EXPECT_EQ(QueryOne(*target_admin, fmt::format("SELECT count(*) FROM {}.y", schema.q())), "0");

  EXPECT_EQ(QueryOne(*target_admin, "SELECT count(*) FROM pg_class WHERE relname LIKE "
                                    "'\\_lakedump\\_load\\_%'"),
            "0");
}

TEST(PostgresLoadTest, ServerErrorInALaterFileLeavesNoTableAndNoStagingTable) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  // Row 4000 holds an enum label the target's enum lacks: the COPY of a later file
  // fails on the server after earlier files were committed into the staging table.
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TYPE {0}.m AS ENUM ('sad', 'happy'); "
                                      "CREATE TABLE {0}.z (id int8 PRIMARY KEY, v {0}.m); "
                                      "INSERT INTO {0}.z SELECT g, CASE WHEN g = 4000 THEN "
                                      "'happy' ELSE 'sad' END::{0}.m FROM generate_series(1, 5000) g",
                                      schema.q()))
                  .ok());
  TempDir dir;
  auto dumped = DumpSchema(schema.name(), dir.path(), /*file_size=*/4 * 1024);
  ASSERT_TRUE(dumped.ok()) << dumped.status().ToString();
  ASSERT_GT(dumped->total_files, 2u);
  ScratchDatabase db(admin.get());
  auto target_admin = AdminConn(db.conninfo());
  ASSERT_TRUE(target_admin);
  ASSERT_TRUE(target_admin
                  ->Exec(fmt::format("CREATE SCHEMA {0}; CREATE TYPE {0}.m AS ENUM ('sad')",
                                     schema.q()))
                  .ok());
  auto target = OpenPostgresTarget(db.conninfo());
  ASSERT_TRUE(target.ok());
  uint64_t rows = 0;
  Status s = LoadDump(dir.path(), **target, LoadIfExists::kFail, &rows);
  ASSERT_FALSE(s.ok());
  EXPECT_GT(rows, 0u);  // some files were in before the failure
  EXPECT_NE(s.message().find("invalid input value for enum"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(schema.name() + ".z"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  EXPECT_EQ(QueryOne(*target_admin,
                     fmt::format("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON "
                                 "n.oid = c.relnamespace WHERE n.nspname = '{}' AND "
                                 "c.relkind = 'r'",
                                 schema.name())),
            "0");
  // With the label added, a re-run loads everything.
  ASSERT_TRUE(target_admin->Exec(fmt::format("ALTER TYPE {}.m ADD VALUE 'happy'", schema.q())).ok());
  s = LoadDump(dir.path(), **target, LoadIfExists::kFail);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(QueryOne(*target_admin, fmt::format("SELECT count(*) || ' ' || count(*) FILTER "
                                                "(WHERE v = 'happy') FROM {}.z", schema.q())),
            "5000 1");
}

std::string RunCommand(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  return out;
}

std::string SqliteOne(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  std::string out;
  if (st && sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(st, 0);
    out = t ? reinterpret_cast<const char*>(t) : "";
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// SQLite source: types come from the logical mapping; 8 tables of one new schema
// prepared concurrently.
TEST(PostgresLoadTest, SqliteDumpLoadsWithMappedTypes) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  TempDir dir;
  const std::string sqlite = dir.Sub("demo.sqlite"), dump = dir.Sub("dump");
  RunCommand(fmt::format("'{}' demo '{}' --rows 3000", LAKEDUMP_BINARY, sqlite));
  RunCommand(fmt::format("'{}' dump '{}' '{}' --progress none --file-size 64KiB", LAKEDUMP_BINARY,
                         sqlite, dump));
  ScratchDatabase db(admin.get());
  auto target = OpenPostgresTarget(db.conninfo());
  ASSERT_TRUE(target.ok());
  uint64_t rows = 0;
  Status s = LoadDump(dump, **target, LoadIfExists::kFail, &rows, /*threads=*/4);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto pg = AdminConn(db.conninfo());
  ASSERT_TRUE(pg);
  const std::string total = SqliteOne(
      sqlite, "SELECT (SELECT count(*) FROM customer_dimension) + (SELECT count(*) FROM "
              "date_dimension) + (SELECT count(*) FROM employee_dimension) + (SELECT count(*) "
              "FROM product_dimension) + (SELECT count(*) FROM shipping_dimension) + (SELECT "
              "count(*) FROM store_dimension) + (SELECT count(*) FROM store_orders_fact) + "
              "(SELECT count(*) FROM vendor_dimension)");
  EXPECT_EQ(std::to_string(rows), total);
  const std::string from_sqlite = SqliteOne(
      sqlite, "SELECT count(*) || ' ' || sum(quantity_ordered) || ' ' || "
              "CAST(round(sum(total_order_cost) * 100) AS INTEGER) || ' ' || min(date_ordered) || "
              "' ' || max(shipper_name) FROM store_orders_fact");
  const std::string from_pg = QueryOne(
      *pg, "SELECT count(*) || ' ' || sum(quantity_ordered) || ' ' || "
           "(sum(total_order_cost) * 100)::int8 || ' ' || min(date_ordered) || ' ' || "
           "max(shipper_name COLLATE \"C\") FROM main.store_orders_fact");
  EXPECT_EQ(from_pg, from_sqlite);
  EXPECT_EQ(QueryOne(*pg, "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), "
                          "', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = "
                          "'main.store_orders_fact'::regclass AND attnum IN (1, 7, 13, 14)"),
            "product_key bigint, date_ordered date, shipper_name text, unit_price numeric(10,2)");
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM pg_class WHERE relname LIKE "
                          "'\\_lakedump\\_load\\_%'"),
            "0");
}

// Sinks used directly: two at once on one table, one dropped without Finish()
// (rolled back), and a table of no columns' worth of surprises: NULLs, empty batches.
TEST(PostgresLoadTest, ParallelSinksAndAnAbandonedSink) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchDatabase db(admin.get());
  PostgresTargetOptions options;
  options.max_connections = 3;
  options.copy_buffer_bytes = 4096;  // many PQputCopyData calls
  auto target = OpenPostgresTarget(db.conninfo(), options);
  ASSERT_TRUE(target.ok());
  EXPECT_EQ((*target)->max_sinks_per_table(), 2);
  TablePlan plan;
  plan.source = plan.target = TableRef{"new schema", "T"};
  plan.definition.schema = Schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, "INT"},
                                   Column{"s", LogicalType::Of(TypeId::kString), true, "TEXT"},
                                   Column{"d", LogicalType::Decimal(18, 3), true, ""}});
  plan.definition.primary_key = {"id"};
  plan.source_kind = "sqlite";
  ASSERT_TRUE((*target)->PrepareTable(plan).ok());
  auto batch_of = [&](int64_t from, int64_t n) {
    RowBatch b(plan.definition.schema);
    for (int64_t i = from; i < from + n; ++i) {
      b.column(0).Append<int64_t>(i);
      if (i % 10 == 0) {
        b.column(1).AppendNull();
        b.column(2).AppendNull();
      } else {
        b.column(1).AppendBytes("value " + std::to_string(i));
        b.column(2).Append<int128_t>(static_cast<int128_t>(i) * 1001);
      }
    }
    return b;
  };
  auto a = (*target)->OpenSink(plan);
  auto b = (*target)->OpenSink(plan);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int k = 0; k < 10; ++k) {
    ASSERT_TRUE((*a)->Append(batch_of(k * 1000, 1000)).ok());
    ASSERT_TRUE((*b)->Append(batch_of(100000 + k * 1000, 1000)).ok());
  }
  ASSERT_TRUE((*a)->Append(RowBatch(plan.definition.schema)).ok());  // empty batch
  {
    auto abandoned = (*target)->OpenSink(plan);  // the third and last connection
    ASSERT_TRUE(abandoned.ok());
    ASSERT_TRUE((*abandoned)->Append(batch_of(500000, 5000)).ok());
  }  // rolled back; its connection goes back to the pool
  auto rows_a = (*a)->Finish();
  auto rows_b = (*b)->Finish();
  ASSERT_TRUE(rows_a.ok() && rows_b.ok()) << rows_a.status().ToString();
  EXPECT_EQ(*rows_a + *rows_b, 20000u);
  a->reset();
  b->reset();
  ASSERT_TRUE((*target)->CommitTable(plan).ok());
  auto pg = AdminConn(db.conninfo());
  ASSERT_TRUE(pg);
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) || ' ' || count(s) || ' ' || sum(d) || ' ' || "
                          "max(id) FROM \"new schema\".\"T\""),
            "20000 18000 " +
                QueryOne(*pg, "SELECT sum(g * 1.001) FROM (SELECT g FROM generate_series(0, "
                              "9999) g UNION ALL SELECT g FROM generate_series(100000, 109999) "
                              "g) x WHERE g % 10 <> 0") +
                " 109999");
  EXPECT_EQ(QueryOne(*pg, "SELECT conname FROM pg_constraint WHERE conrelid = "
                          "'\"new schema\".\"T\"'::regclass"),
            "T_pkey");
}

TEST(PostgresLoadTest, BadTargetsFailWithOneClearLine) {
  LD_REQUIRE_PG();
  auto refused = OpenPostgresTarget(ConninfoWith({{"port", "1"}, {"host", "127.0.0.1"}}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnavailable) << refused.status().ToString();
  EXPECT_EQ(refused.status().message().find('\n'), std::string::npos);

  auto missing = OpenPostgresTarget(ConninfoWith({{"dbname", "ld_no_such_db"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("ld_no_such_db"), std::string::npos);

  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ASSERT_TRUE(admin->Exec("DROP ROLE IF EXISTS ld_pw_load; CREATE ROLE ld_pw_load LOGIN "
                          "PASSWORD 'right-secret'").ok());
  auto wrong = OpenPostgresTarget(
      ConninfoWith({{"user", "ld_pw_load"}, {"password", "wrong-secret-xyz"}}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), Code::kPermissionDenied) << wrong.status().ToString();
  EXPECT_EQ(wrong.status().message().find("wrong-secret-xyz"), std::string::npos);
  EXPECT_EQ(wrong.status().message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace lakedump
