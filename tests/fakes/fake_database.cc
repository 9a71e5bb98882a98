#include "fakes/fake_database.h"

namespace lakedump {
namespace {

class FakeSource : public TableSource {
 public:
  FakeSource(const FakeTable* t, uint64_t begin, uint64_t end)
      : table_(t), schema_(FakeDatabase::SchemaOf(*t)), next_(begin), end_(end) {}
  const Schema& schema() const override { return schema_; }
  Status Next(size_t max_rows, RowBatch* batch) override {
    batch->Reset(schema_);
    if (table_->before_batch) table_->before_batch(next_);
    for (size_t n = 0; n < max_rows && next_ < end_; ++n, ++next_) {
      if (table_->fail_at_row >= 0 && next_ == static_cast<uint64_t>(table_->fail_at_row)) {
        return Status::IOError("fake read failure at row " + std::to_string(next_) + " of " +
                               table_->ref.QualifiedName());
      }
      const uint64_t i = next_;
      batch->column(0).Append<int64_t>(static_cast<int64_t>(i));
      batch->column(1).AppendBytes(FakeDatabase::NameOf(*table_, i));
      if (i % 7 == 3) {
        batch->column(2).AppendNull();
      } else {
        batch->column(2).Append<double>(static_cast<double>(i) * 1.5);
      }
      batch->column(3).Append<int32_t>(static_cast<int32_t>(19000 + i % 400));
    }
    return Status::OK();
  }

 private:
  const FakeTable* table_;
  Schema schema_;
  uint64_t next_;
  uint64_t end_;
};

}  // namespace

Schema FakeDatabase::TableSchema() {
  return Schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, "INTEGER"},
                 Column{"name", LogicalType::Of(TypeId::kString), true, "TEXT"},
                 Column{"amount", LogicalType::Of(TypeId::kDouble), true, "REAL"},
                 Column{"day", LogicalType::Of(TypeId::kDate), true, "DATE"}});
}

Schema FakeDatabase::SchemaOf(const FakeTable& table) {
  std::vector<Column> columns = TableSchema().columns();
  for (Column& c : columns) {
    if (auto it = table.renamed_columns.find(c.name); it != table.renamed_columns.end()) {
      c.name = it->second;
    }
  }
  return Schema(std::move(columns));
}

std::string FakeDatabase::NameOf(const FakeTable& t, uint64_t i) {
  const std::string& v = t.partition_values;
  return std::string(1, v.empty() ? 'x' : v[i % v.size()]);
}

Result<std::vector<TableInfo>> FakeDatabase::ListTables() {
  std::vector<TableInfo> out;
  for (const FakeTable& t : tables_) out.push_back(TableInfo{t.ref, t.rows, t.rows * 32, ""});
  return out;
}

Result<const FakeTable*> FakeDatabase::Find(const TableInfo& info) const {
  TableRef ref = info.ref;
  if (!info.query.empty()) {
    const std::string prefix = "SELECT * FROM ";
    if (info.query.rfind(prefix, 0) != 0) {
      return Status::InvalidArgument("query " + info.ref.name + ": syntax error near \"" +
                                     info.query + "\"");
    }
    ref = TableRef{"main", info.query.substr(prefix.size())};
  }
  for (const FakeTable& t : tables_) {
    if (t.ref == ref) return &t;
  }
  return Status::NotFound("no such table: " + ref.QualifiedName());
}

Result<TableDefinition> FakeDatabase::DescribeTable(const TableInfo& table) {
  LD_ASSIGN_OR_RETURN(const FakeTable* t, Find(table));
  return TableDefinition{SchemaOf(*t),
                         "CREATE TABLE \"" + table.ref.name +
                             "\" (id INTEGER PRIMARY KEY, name TEXT, amount REAL, day DATE)",
                         {"id"}};
}

Result<std::vector<WorkUnit>> FakeDatabase::Split(const TableInfo& table, uint64_t) {
  LD_ASSIGN_OR_RETURN(const FakeTable* t, Find(table));
  std::vector<WorkUnit> units;
  for (int i = 0; i < t->units; ++i) units.push_back(WorkUnit{table, i, t->units, ""});
  return units;
}

Result<std::unique_ptr<TableSource>> FakeDatabase::Open(const WorkUnit& unit) {
  if (on_open_) on_open_(unit);
  LD_ASSIGN_OR_RETURN(const FakeTable* t, Find(unit.table));
  const uint64_t per = (t->rows + unit.count - 1) / unit.count;
  const uint64_t begin = std::min<uint64_t>(t->rows, per * unit.index);
  const uint64_t end = std::min<uint64_t>(t->rows, begin + per);
  return std::unique_ptr<TableSource>(std::make_unique<FakeSource>(t, begin, end));
}

nlohmann::json FakeDatabase::Describe() const {
  return {{"kind", "fake"}, {"url", "fake://user:hunter2@localhost/db"}};
}

Status FakeDatabase::CheckSnapshotHeld() {
  if (*snapshot_lost_) return Status::Unavailable("fake snapshot holder is gone");
  return Status::OK();
}

Result<nlohmann::json> FakeDatabase::Fingerprint(const TableInfo& table) {
  return nlohmann::json{{"fake", identity_}, {"table", table.ref.QualifiedName()}};
}

}  // namespace lakedump
