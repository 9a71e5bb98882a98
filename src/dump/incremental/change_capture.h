// ChangeCapture: the pgoutput messages of one increment -> one Parquet change file per
// changed table (docs/incremental.md, "Change files"): columns _op, _lsn, _xid, _commit_ts,
// _unchanged, then the table's columns (for deletes only the key's are set), rows in commit
// order. Values arrive in binary (each type's send format, as COPY binary has them) and go
// through the same PgCopyDecoder as the dump, so a change row holds exactly what a dump of
// the row would.
//
// Transactions that committed before `start_lsn` (already in the previous increment) and
// changes of a table before its skip_before_lsn (already in its last re-dump) are skipped.
// A table whose relation changes (columns, types), that is truncated, or whose change
// cannot be decoded is marked for a re-dump and its changes dropped.
//
// Memory: per changed table one batch of at most kFlushRows rows plus its writer's row
// group. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dump/dump_options.h"
#include "dump/file_encoder.h"
#include "lake/incremental_state.h"
#include "source/postgres/pg_catalog.h"
#include "source/postgres/pg_text_form.h"
#include "source/postgres/pgoutput.h"
#include "store/object_store.h"

namespace lakedump {

// The change file's schema: the five meta columns, then `table`'s columns (all nullable; names
// escaped by EscapeChangeColumnName).
Schema ChangeFileSchema(const Schema& table);

class ChangeCapture {
 public:
  // `changes_store`: where change files go (the increment's changes/ folder); borrowed.
  ChangeCapture(ObjectStore* changes_store, const DumpOptions& options, std::string run_id,
                uint64_t start_lsn);
  ~ChangeCapture();
  ChangeCapture(const ChangeCapture&) = delete;
  ChangeCapture& operator=(const ChangeCapture&) = delete;

  // Follows a table by its changes. `plan` describes its columns now (equal to state's).
  void Follow(const IncrementalTable& state, const PgTablePlan& plan);
  // True when a followed table has columns read through their text form (interval,
  // inet...): their values are printed by the server (PgTextFormConverter), on the
  // connection set_text_form_connection() gives before the first message.
  bool needs_text_form_connection() const;
  void set_text_form_connection(PgConn* conn);
  // One message of the stream; `lsn` is its WAL position.
  Status OnMessage(uint64_t lsn, std::string_view data);
  // The followed tables to re-dump, by OID, with the reason.
  const std::map<uint32_t, std::string>& redump() const { return redump_; }
  // Closes the change files of the tables not to be re-dumped; keys relative to the
  // increment's folder.
  Result<std::vector<ChangeFile>> Finish();

  uint64_t transactions() const { return transactions_; }
  uint64_t changes() const { return changes_; }

 private:
  struct TableCapture;
  Status OnChange(const PgoutputMessage& m, uint64_t lsn);
  Status AppendRow(TableCapture& t, std::string_view op, uint64_t lsn,
                   std::vector<PgoutputValue> values);
  void MarkRedump(uint32_t oid, std::string reason);

  ObjectStore* store_;
  const DumpOptions& options_;
  FileEncoderFactory encoder_;
  std::string run_id_;
  uint64_t start_lsn_;
  std::map<uint32_t, std::unique_ptr<TableCapture>> tables_;  // by OID
  std::map<uint32_t, std::string> redump_;
  // The transaction being read.
  bool in_txn_ = false;
  bool skip_txn_ = false;
  uint64_t txn_final_lsn_ = 0;
  int64_t txn_commit_ts_ = 0;
  uint32_t txn_xid_ = 0;
  uint64_t transactions_ = 0;
  uint64_t changes_ = 0;
  PgoutputMessage message_;  // reused
  std::string tuple_;        // reused: one COPY binary tuple
};

}  // namespace lakedump
