#include "load/postgres/applied_increments.h"

#include <fmt/format.h>

#include <cstdlib>

namespace lakedump {
namespace {

std::string Other(const AppliedState& state) {
  return state.other_dumps.empty() ? std::string() : state.other_dumps.front();
}

}  // namespace

Status EnsureAppliedIncrementsTable(PgConn& conn) {
  return conn
      .Exec(fmt::format(
          "CREATE SCHEMA IF NOT EXISTS lakedump; CREATE TABLE IF NOT EXISTS {} ("
          "dump_id text NOT NULL, sequence integer NOT NULL, increment_id text NOT NULL, "
          "manifest_sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), "
          "PRIMARY KEY (dump_id, sequence))",
          kAppliedIncrementsTable))
      .WithContext("creating " + std::string(kAppliedIncrementsTable) +
                   ", where the target records the increments it holds");
}

Result<AppliedState> ReadAppliedState(PgConn& conn, const std::string& dump_id) {
  AppliedState state;
  LD_ASSIGN_OR_RETURN(
      PgResult exists,
      conn.Query("SELECT pg_catalog.to_regclass($1) IS NOT NULL",
                 {std::string(kAppliedIncrementsTable)}));
  if (PgValue(exists.get(), 0, 0) != "t") return state;
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query(fmt::format("SELECT dump_id, sequence, increment_id, manifest_sha256 FROM {} "
                             "WHERE dump_id = $1 ORDER BY sequence DESC LIMIT 1",
                             kAppliedIncrementsTable),
                 {dump_id}));
  if (PQntuples(r.get()) == 1) {
    state.last = AppliedIncrement{std::string(PgValue(r.get(), 0, 0)),
                                  std::atoi(std::string(PgValue(r.get(), 0, 1)).c_str()),
                                  std::string(PgValue(r.get(), 0, 2)),
                                  std::string(PgValue(r.get(), 0, 3))};
  }
  LD_ASSIGN_OR_RETURN(
      PgResult others,
      conn.Query(fmt::format("SELECT DISTINCT dump_id FROM {} WHERE dump_id <> $1 ORDER BY 1",
                             kAppliedIncrementsTable),
                 {dump_id}));
  for (int i = 0; i < PQntuples(others.get()); ++i) {
    state.other_dumps.emplace_back(PgValue(others.get(), i, 0));
  }
  return state;
}

Result<int> FirstIncrementToApply(const AppliedState& state, const std::string& dump_id, int from,
                                  const std::vector<IncrementManifest>& increments,
                                  bool* unrecorded) {
  *unrecorded = false;
  const int available = static_cast<int>(increments.size());
  if (!state.last) {
    if (!state.other_dumps.empty()) {
      return Status::InvalidArgument(fmt::format(
          "refused: the target holds dump {}, not dump {} (its {} records no increment of "
          "this one); load this dump's base into it instead",
          Other(state), dump_id, kAppliedIncrementsTable));
    }
    if (from == 0) {
      return Status::InvalidArgument(fmt::format(
          "refused: the target records no increment of dump {} ({} is missing or empty): "
          "give --from N, the first increment it lacks, or load the base",
          dump_id, kAppliedIncrementsTable));
    }
    *unrecorded = true;
    return from;
  }
  const AppliedIncrement& last = *state.last;
  if (last.sequence > available) {
    return Status::InvalidArgument(fmt::format(
        "refused: the target holds increment {} of dump {}, but the dump has only {}",
        last.sequence, dump_id, available));
  }
  if (last.sequence >= 1 &&
      increments[static_cast<size_t>(last.sequence - 1)].manifest_sha256 !=
          last.manifest_sha256) {
    return Status::InvalidArgument(fmt::format(
        "refused: increment {} of the dump is not the one the target applied (its "
        "_manifest.json's SHA-256 differs from the one {} records)",
        last.sequence, kAppliedIncrementsTable));
  }
  const int next = last.sequence + 1;
  if (from == 0 || from == next) return next;
  if (from < next) {
    return Status::InvalidArgument(fmt::format(
        "refused: --from {}: the target holds increments up to {} of dump {} already (applying "
        "it again would apply changes twice); the next is {}",
        from, last.sequence, dump_id, next));
  }
  return Status::InvalidArgument(fmt::format(
      "refused: --from {}: the target holds increments up to {} of dump {}; increments {} to "
      "{} would be skipped",
      from, last.sequence, dump_id, next, from - 1));
}

Status LockAppliedIncrements(PgConn& conn, const std::string& dump_id, int previous) {
  LD_RETURN_IF_ERROR(conn.Exec(fmt::format("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE",
                                           kAppliedIncrementsTable)));
  LD_ASSIGN_OR_RETURN(
      PgResult r, conn.Query(fmt::format("SELECT coalesce(max(sequence), -1) FROM {} WHERE "
                                         "dump_id = $1",
                                         kAppliedIncrementsTable),
                             {dump_id}));
  const int last = std::atoi(std::string(PgValue(r.get(), 0, 0)).c_str());
  if (last == previous) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "refused: the target now records increment {} of dump {} as its last, not {} (another "
      "load applied increments meanwhile)",
      last, dump_id, previous));
}

Status InsertAppliedIncrement(PgConn& conn, const AppliedIncrement& row) {
  return conn.ExecOne(
      fmt::format("INSERT INTO {} (dump_id, sequence, increment_id, manifest_sha256) VALUES "
                  "($1, $2::integer, $3, $4)",
                  kAppliedIncrementsTable),
      {row.dump_id, std::to_string(row.sequence), row.increment_id, row.manifest_sha256});
}

Status RecordBaseLoaded(PgConn& conn, const AppliedIncrement& base) {
  LD_RETURN_IF_ERROR(EnsureAppliedIncrementsTable(conn));
  Status s = conn.Exec("BEGIN");
  if (s.ok()) {
    s = conn.Exec(fmt::format("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE",
                              kAppliedIncrementsTable));
  }
  if (s.ok()) {
    s = conn.ExecOne(fmt::format("DELETE FROM {} WHERE dump_id = $1", kAppliedIncrementsTable),
                     {base.dump_id});
  }
  if (s.ok()) s = InsertAppliedIncrement(conn, base);
  if (s.ok()) s = conn.Exec("COMMIT");
  if (!s.ok() && !conn.broken()) conn.Exec("ROLLBACK").IgnoreError();
  return s.WithContext("recording the base in " + std::string(kAppliedIncrementsTable));
}

}  // namespace lakedump
