#include "dump/incremental/change_capture.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "dump/table_writer.h"
#include "source/postgres/pg_copy_decoder.h"

namespace lakedump {
namespace {

constexpr size_t kFlushRows = 4096;

PgFieldSpec Meta(const char* name, PgWire wire, TypeId type) {
  PgFieldSpec f;
  f.name = name;
  f.pg_type = "lakedump";
  f.wire = wire;
  f.type = LogicalType::Of(type);
  return f;
}

void PutBe(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutField(std::string* out, std::string_view bytes) {
  PutBe(out, bytes.size(), 4);
  out->append(bytes);
}

void PutNull(std::string* out) { PutBe(out, 0xffffffffu, 4); }

}  // namespace

Schema ChangeFileSchema(const Schema& table) {
  std::vector<Column> cols = {
      {"_op", LogicalType::Of(TypeId::kString), false, "text"},
      {"_lsn", LogicalType::Of(TypeId::kInt64), false, "pg_lsn"},
      {"_xid", LogicalType::Of(TypeId::kInt64), false, "xid"},
      {"_commit_ts", LogicalType::Of(TypeId::kTimestampTz), false, "timestamptz"},
      {"_unchanged", LogicalType::Of(TypeId::kString), true, "json"},
  };
  for (Column c : table.columns()) {
    c.nullable = true;
    c.name = EscapeChangeColumnName(c.name);
    cols.push_back(std::move(c));
  }
  return Schema(std::move(cols));
}

struct ChangeCapture::TableCapture {
  IncrementalTable state;
  Schema schema;  // ChangeFileSchema
  std::vector<std::string> names;
  std::unique_ptr<PgCopyDecoder> decoder;
  RowBatch pending;
  std::unique_ptr<TableFileWriter> writer;
  uint64_t rows = 0;
  std::unique_ptr<PgTextFormConverter> text_form;  // null: every value as the stream has it
};

ChangeCapture::ChangeCapture(ObjectStore* changes_store, const DumpOptions& options,
                             std::string run_id, uint64_t start_lsn)
    : store_(changes_store),
      options_(options),
      encoder_(ParquetEncoderFactory(options.parquet)),
      run_id_(std::move(run_id)),
      start_lsn_(start_lsn) {}

ChangeCapture::~ChangeCapture() = default;

void ChangeCapture::Follow(const IncrementalTable& state, const PgTablePlan& plan) {
  auto t = std::make_unique<TableCapture>();
  t->state = state;
  t->schema = ChangeFileSchema(plan.definition.schema);
  for (const Column& c : plan.definition.schema.columns()) t->names.push_back(c.name);
  std::vector<PgFieldSpec> fields = {
      Meta("_op", PgWire::kText, TypeId::kString),
      Meta("_lsn", PgWire::kInt8, TypeId::kInt64),
      Meta("_xid", PgWire::kInt8, TypeId::kInt64),
      Meta("_commit_ts", PgWire::kTimestamp, TypeId::kTimestampTz),
      Meta("_unchanged", PgWire::kText, TypeId::kString),
  };
  for (const PgFieldSpec& f : plan.fields) fields.push_back(f);
  PgDecodeOptions decode;
  decode.table = plan.ref.QualifiedName();
  t->decoder = std::make_unique<PgCopyDecoder>(std::move(fields), decode);
  // The 19-byte COPY binary header, once: then one tuple per change.
  static const std::string kHeader("PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19);
  t->decoder->Feed(kHeader);
  RowBatch scratch(t->schema);
  t->decoder->Decode(&scratch, 1).IgnoreError();
  t->pending.Reset(t->schema);
  std::vector<uint32_t> type_oids;
  for (const IncrementalColumn& c : state.columns) type_oids.push_back(c.type_oid);
  auto text_form = std::make_unique<PgTextFormConverter>(t->names, plan.select_exprs, type_oids);
  if (text_form->needed()) t->text_form = std::move(text_form);
  tables_[state.oid] = std::move(t);
}

bool ChangeCapture::needs_text_form_connection() const {
  for (const auto& [oid, t] : tables_) {
    if (t->text_form) return true;
  }
  return false;
}

void ChangeCapture::set_text_form_connection(PgConn* conn) {
  for (auto& [oid, t] : tables_) {
    if (t->text_form) t->text_form->set_connection(conn);
  }
}

void ChangeCapture::MarkRedump(uint32_t oid, std::string reason) {
  auto it = tables_.find(oid);
  if (it == tables_.end()) return;
  redump_.emplace(oid, std::move(reason));
  // Its changes are superseded by the re-dump: the file is abandoned (aborted).
  tables_.erase(it);
}

Status ChangeCapture::OnMessage(uint64_t lsn, std::string_view data) {
  LD_RETURN_IF_ERROR(ParsePgoutputMessage(data, &message_));
  const PgoutputMessage& m = message_;
  switch (m.type) {
    case 'B':
      in_txn_ = true;
      txn_final_lsn_ = m.final_lsn;
      txn_commit_ts_ = m.commit_ts;
      txn_xid_ = m.xid;
      // Committed before this increment's start: the previous increment holds it.
      skip_txn_ = m.final_lsn < start_lsn_;
      return Status::OK();
    case 'C':
      if (!skip_txn_) ++transactions_;
      in_txn_ = false;
      return Status::OK();
    case 'R': {
      auto it = tables_.find(m.relation.oid);
      if (it == tables_.end()) return Status::OK();
      const IncrementalTable& st = it->second->state;
      bool same = m.relation.columns.size() == st.columns.size();
      for (size_t i = 0; same && i < st.columns.size(); ++i) {
        const PgoutputColumn& c = m.relation.columns[i];
        same = c.name == st.columns[i].name && c.type_oid == st.columns[i].type_oid &&
               c.typmod == st.columns[i].typmod;
      }
      if (!same) MarkRedump(m.relation.oid, "its columns changed");
      return Status::OK();
    }
    case 'T':
      if (skip_txn_) return Status::OK();
      for (uint32_t oid : m.truncated) {
        auto it = tables_.find(oid);
        if (it != tables_.end() && txn_final_lsn_ >= it->second->state.skip_before_lsn) {
          MarkRedump(oid, "truncated");
        }
      }
      return Status::OK();
    case 'I':
    case 'U':
    case 'D':
      if (!in_txn_) return Status::Corruption("pgoutput: a change outside a transaction");
      if (skip_txn_) return Status::OK();
      return OnChange(m, lsn);
    default:
      return Status::OK();  // Origin, Type
  }
}

Status ChangeCapture::OnChange(const PgoutputMessage& m, uint64_t lsn) {
  auto it = tables_.find(m.relid);
  if (it == tables_.end()) return Status::OK();  // not followed (or re-dumped)
  TableCapture& t = *it->second;
  // Already in the rows of the table's last re-dump.
  if (txn_final_lsn_ < t.state.skip_before_lsn) return Status::OK();
  Status s;
  switch (m.type) {
    case 'I':
      s = AppendRow(t, "insert", lsn, m.new_tuple);
      break;
    case 'U':
      if (m.old_kind == 0) {
        s = AppendRow(t, "update", lsn, m.new_tuple);
        break;
      }
      // The key changed: the old row goes, the new one comes. A value the server did not
      // send (unchanged TOAST) cannot be put into the new row: re-dump.
      for (const PgoutputValue& v : m.new_tuple) {
        if (v.kind == 'u') {
          MarkRedump(m.relid, "an update changed the key of a row with unchanged TOASTed values");
          return Status::OK();
        }
      }
      s = AppendRow(t, "delete", lsn, m.old_tuple);
      if (s.ok()) s = AppendRow(t, "insert", lsn, m.new_tuple);
      break;
    case 'D':
      s = AppendRow(t, "delete", lsn, m.old_tuple);
      break;
  }
  if (!s.ok()) {
    if (s.code() == Code::kCancelled || s.code() == Code::kIOError || s.code() == Code::kUnavailable) {
      return s;  // the store, not the value
    }
    MarkRedump(m.relid, "a change could not be decoded: " + s.message());
  }
  return Status::OK();
}

Status ChangeCapture::AppendRow(TableCapture& t, std::string_view op, uint64_t lsn,
                                std::vector<PgoutputValue> values) {
  if (values.size() != t.names.size()) {
    return Status::InvalidArgument(fmt::format("a tuple of {} columns for a table of {}",
                                               values.size(), t.names.size()));
  }
  if (t.text_form) LD_RETURN_IF_ERROR(t.text_form->Convert(&values));
  tuple_.clear();
  PutBe(&tuple_, kChangeMetaColumns + values.size(), 2);
  PutField(&tuple_, op);
  PutBe(&tuple_, 8, 4);
  PutBe(&tuple_, lsn, 8);
  PutBe(&tuple_, 8, 4);
  PutBe(&tuple_, txn_xid_, 8);
  PutBe(&tuple_, 8, 4);
  PutBe(&tuple_, static_cast<uint64_t>(txn_commit_ts_), 8);
  nlohmann::json unchanged = nlohmann::json::array();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == 'u') unchanged.push_back(t.names[i]);
  }
  if (unchanged.empty()) {
    PutNull(&tuple_);
  } else {
    PutField(&tuple_, unchanged.dump());
  }
  for (const PgoutputValue& v : values) {
    switch (v.kind) {
      case 'b':
        PutField(&tuple_, v.bytes);
        break;
      case 'n':
      case 'u':
        PutNull(&tuple_);
        break;
      default:
        return Status::InvalidArgument("a value in text form (binary expected)");
    }
  }
  t.decoder->Feed(tuple_);
  LD_RETURN_IF_ERROR(t.decoder->Decode(&t.pending, t.pending.num_rows() + 1));
  if (!t.decoder->needs_input()) return Status::Internal("change tuple not decoded whole");
  ++t.rows;
  ++changes_;
  if (t.pending.num_rows() >= kFlushRows) {
    if (!t.writer) {
      TableFileWriterContext ctx{store_, &encoder_, &options_, run_id_, nullptr, nullptr};
      t.writer = std::make_unique<TableFileWriter>(ctx, t.state.ref, t.schema, 0);
    }
    LD_RETURN_IF_ERROR(t.writer->Write(t.pending));
    t.pending.Clear();
  }
  return Status::OK();
}

Result<std::vector<ChangeFile>> ChangeCapture::Finish() {
  std::vector<ChangeFile> out;
  for (auto& [oid, t] : tables_) {
    if (t->rows == 0) continue;
    if (!t->writer) {
      TableFileWriterContext ctx{store_, &encoder_, &options_, run_id_, nullptr, nullptr};
      t->writer = std::make_unique<TableFileWriter>(ctx, t->state.ref, t->schema, 0);
    }
    if (!t->pending.empty()) LD_RETURN_IF_ERROR(t->writer->Write(t->pending));
    t->pending.Clear();
    LD_ASSIGN_OR_RETURN(std::vector<DataFile> files, t->writer->Finish(false));
    for (DataFile& f : files) {
      out.push_back(ChangeFile{t->state.ref, std::string(kChangesFolder) + f.key, f.rows, f.bytes,
                               f.xxh64, f.sha256});
    }
  }
  std::sort(out.begin(), out.end(), [](const ChangeFile& a, const ChangeFile& b) {
    return a.key < b.key;
  });
  return out;
}

}  // namespace lakedump
