#include "dump/remote_units.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

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

Result<std::vector<GatheredTable>> GatherUnitOutputs(
    const std::vector<const PlannedTable*>& tables, std::vector<UnitOutput> outputs) {
  std::map<std::pair<std::string, std::string>, size_t> by_table;
  for (size_t i = 0; i < tables.size(); ++i) {
    by_table[{tables[i]->info.ref.schema, tables[i]->info.ref.name}] = i;
  }
  std::vector<GatheredTable> gathered(tables.size());
  std::vector<size_t> reported(tables.size(), 0);
  std::set<std::tuple<std::string, std::string, int>> seen;
  for (UnitOutput& out : outputs) {
    auto it = by_table.find({out.table.schema, out.table.name});
    const std::string name = out.table.QualifiedName();
    if (it == by_table.end() || out.unit < 0 ||
        out.unit >= static_cast<int>(tables[it->second]->units.size()) ||
        !seen.insert({out.table.schema, out.table.name, out.unit}).second) {
      return Status::Corruption(
          fmt::format("a shard reported unit {} of table {}, which the plan does not give it",
                      out.unit, name));
    }
    GatheredTable& table = gathered[it->second];
    if (reported[it->second] == 0) {
      table.schema = std::move(out.schema);
    } else if (!SameColumns(table.schema, out.schema)) {
      return Status::Corruption(
          fmt::format("the shards read table {} with different columns", name));
    }
    for (DataFile& f : out.files) table.files.push_back(std::move(f));
    ++reported[it->second];
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    const size_t planned = tables[i]->units.size();
    if (reported[i] != planned) {
      return Status::Corruption(fmt::format("no shard reported {} of the {} units of table {}",
                                            planned - reported[i], planned,
                                            tables[i]->info.ref.QualifiedName()));
    }
  }
  return gathered;
}

}  // namespace lakedump
