#include "dump/remote_units.h"

#include <fmt/format.h>

#include <algorithm>

namespace lakedump {
namespace {

bool SameColumns(const Schema& a, const Schema& b) {
  if (a.num_columns() != b.num_columns()) return false;
  for (size_t i = 0; i < a.num_columns(); ++i) {
    if (a.column(i).name != b.column(i).name || a.column(i).type != b.column(i).type) {
      return false;
    }
  }
  return true;
}

}  // namespace

UnitOutputGatherer::UnitOutputGatherer(std::vector<const PlannedTable*> tables)
    : tables_(std::move(tables)),
      gathered_(tables_.size()),
      reported_(tables_.size(), 0),
      committed_(tables_.size(), false) {
  for (size_t i = 0; i < tables_.size(); ++i) {
    by_table_[{tables_[i]->info.ref.schema, tables_[i]->info.ref.name}] = i;
  }
}

Result<std::vector<size_t>> UnitOutputGatherer::Add(std::vector<UnitOutput> outputs) {
  LD_RETURN_IF_ERROR(failed_);
  std::vector<size_t> completed;
  for (UnitOutput& out : outputs) {
    auto it = by_table_.find({out.table.schema, out.table.name});
    const std::string name = out.table.QualifiedName();
    if (it == by_table_.end() || committed_[it->second] || out.unit < 0 ||
        out.unit >= static_cast<int>(tables_[it->second]->units.size()) ||
        !seen_.insert({out.table.schema, out.table.name, out.unit}).second) {
      failed_ = Status::Corruption(
          fmt::format("a shard reported unit {} of table {}, which the plan does not give it",
                      out.unit, name));
      return failed_;
    }
    const size_t i = it->second;
    GatheredTable& table = gathered_[i];
    if (reported_[i] == 0) {
      table.schema = std::move(out.schema);
    } else if (!SameColumns(table.schema, out.schema)) {
      failed_ = Status::Corruption(
          fmt::format("the shards read table {} with different columns", name));
      return failed_;
    }
    for (DataFile& f : out.files) table.files.push_back(std::move(f));
    if (++reported_[i] == tables_[i]->units.size()) completed.push_back(i);
  }
  std::sort(completed.begin(), completed.end());
  return completed;
}

void UnitOutputGatherer::MarkCommitted(size_t table) {
  committed_[table] = true;
  reported_[table] = tables_[table]->units.size();
}

GatheredTable UnitOutputGatherer::Take(size_t table) { return std::move(gathered_[table]); }

Status UnitOutputGatherer::CheckAllReported() const {
  LD_RETURN_IF_ERROR(failed_);
  for (size_t i = 0; i < tables_.size(); ++i) {
    const size_t planned = tables_[i]->units.size();
    if (reported_[i] != planned) {
      return Status::Corruption(fmt::format("no shard reported {} of the {} units of table {}",
                                            planned - reported_[i], planned,
                                            tables_[i]->info.ref.QualifiedName()));
    }
  }
  return Status::OK();
}

Result<std::vector<GatheredTable>> GatherUnitOutputs(
    const std::vector<const PlannedTable*>& tables, std::vector<UnitOutput> outputs) {
  UnitOutputGatherer gatherer(tables);
  LD_RETURN_IF_ERROR(gatherer.Add(std::move(outputs)).status());
  LD_RETURN_IF_ERROR(gatherer.CheckAllReported());
  std::vector<GatheredTable> gathered;
  for (size_t i = 0; i < tables.size(); ++i) gathered.push_back(gatherer.Take(i));
  return gathered;
}

}  // namespace lakedump
