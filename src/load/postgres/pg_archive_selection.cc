#include "load/postgres/pg_archive_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "base/ascii.h"
#include "lake/table_selection.h"
#include "load/schema_subset.h"

namespace lakedump {
namespace {

using Name = std::pair<std::string, std::string>;  // schema, relation

// The tables a load restores, by their root: a partition belongs to its parent.
class RestoredTables {
 public:
  explicit RestoredTables(const SchemaRestorePlan& plan) {
    for (const nlohmann::json& p : plan.schema.value("partitions", nlohmann::json::array())) {
      parent_[{JsonString(p, "schema"), JsonString(p, "name")}] = {JsonString(p, "parent_schema"),
                                                                   JsonString(p, "parent")};
    }
    for (const TableRef& t : plan.tables) restored_.insert(RootOf({t.schema, t.name}));
    for (const TableRef& t : plan.excluded) excluded_.insert(RootOf({t.schema, t.name}));
  }
  Name RootOf(Name n) const {
    for (int depth = 0; depth < 100; ++depth) {  // bounded: a hostile manifest may loop
      auto it = parent_.find(n);
      if (it == parent_.end()) break;
      n = it->second;
    }
    return n;
  }
  bool Restores(const Name& table) const { return restored_.count(RootOf(table)) > 0; }
  bool Excludes(const Name& table) const { return excluded_.count(RootOf(table)) > 0; }

 private:
  std::map<Name, Name> parent_;
  std::set<Name> restored_;
  std::set<Name> excluded_;
};

// The manifest's per-object table lists ("dependents", "mentions"): (catalog, oid) -> the
// first table of its list this load does not restore, or every such table with `all`.
// Malformed entries (hostile or damaged) are ignored.
std::map<std::pair<uint32_t, uint32_t>, std::vector<Name>> TablesNotRestored(
    const nlohmann::json& list, const RestoredTables& restored, bool all) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Name>> out;
  if (!list.is_array()) return out;
  for (const nlohmann::json& d : list) {
    const auto is_oid = [&](const char* key) {
      return d.contains(key) && d[key].is_number_unsigned() &&
             d[key].get<uint64_t>() <= std::numeric_limits<uint32_t>::max();
    };
    if (!d.is_object() || !is_oid("catalog") || !is_oid("oid") || !d.contains("tables") ||
        !d["tables"].is_array()) {
      continue;
    }
    for (const nlohmann::json& t : d["tables"]) {
      const Name table{JsonString(t, "schema"), JsonString(t, "name")};
      if (table.second.empty() || restored.Restores(table)) continue;
      out[{d["catalog"].get<uint32_t>(), d["oid"].get<uint32_t>()}].push_back(table);
      if (!all) break;
    }
  }
  return out;
}

struct ForeignKey {
  Name table;  // the table the key is on
  std::string name;
  Name references;
};

// Foreign keys by their archive entry's schema and tag ("table name", as pg_dump writes it),
// from the manifest's exact names.
std::map<Name, ForeignKey> ForeignKeysByTag(const SchemaRestorePlan& plan) {
  std::map<Name, ForeignKey> fks;
  for (const nlohmann::json& k : plan.schema.value("fks", nlohmann::json::array())) {
    ForeignKey fk{{JsonString(k, "schema"), JsonString(k, "table")}, JsonString(k, "name"),
                  {JsonString(k, "ref_schema"), JsonString(k, "ref_table")}};
    if (fk.table.second.empty() || fk.name.empty() || fk.references.second.empty()) continue;
    const Name tag{fk.table.first, fk.table.second + " " + fk.name};
    fks[tag] = std::move(fk);
  }
  return fks;
}

bool IsRelation(const std::string& desc) {
  return desc == "TABLE" || desc == "VIEW" || desc == "MATERIALIZED VIEW" ||
         desc == "FOREIGN TABLE";
}
bool IsAbout(const std::string& desc) {
  return desc == "COMMENT" || desc == "ACL" || desc == "SECURITY LABEL";
}
// Entries that are part of a relation (they go, silently, with the relation).
bool HangsOn(const std::string& desc) {
  static const std::set<std::string> kParts = {
      "INDEX", "CONSTRAINT", "CHECK CONSTRAINT", "FK CONSTRAINT", "DEFAULT", "TRIGGER", "RULE",
      "POLICY", "ROW SECURITY", "SEQUENCE OWNED BY", "INDEX ATTACH", "TABLE ATTACH",
      "STATISTICS", "MATERIALIZED VIEW DATA", "TABLE DATA", "SEQUENCE SET", "SEQUENCE",
      "TABLE", "PUBLICATION TABLE"};
  return kParts.count(desc) > 0;
}

std::string Qualified(const PgArchiveTocEntry& e) {
  return e.has_schema && !e.schema.empty() ? e.schema + "." + e.tag : e.tag;
}

class Selector {
 public:
  Selector(const std::vector<PgArchiveTocEntry>& entries, const SchemaRestorePlan& plan)
      : e_(entries), plan_(plan), restored_(plan), fks_(ForeignKeysByTag(plan)),
        deps_(entries.size()), users_(entries.size()), blocked_(entries.size(), 0),
        kept_(entries.size(), 0), cause_(entries.size()) {
    std::unordered_map<int, size_t> by_id;
    for (size_t i = 0; i < e_.size(); ++i) by_id.emplace(e_[i].dump_id, i);
    for (size_t i = 0; i < e_.size(); ++i) {
      for (int d : e_[i].dependencies) {
        auto it = by_id.find(d);
        if (it == by_id.end() || it->second == i) continue;
        deps_[i].push_back(it->second);
        users_[it->second].push_back(i);
      }
    }
  }

  std::vector<size_t> Run(std::vector<std::string>* skipped) {
    Block();
    Keep();
    if (skipped != nullptr) Warn(skipped);
    std::vector<size_t> out;
    for (size_t i = 0; i < e_.size(); ++i) {
      if (kept_[i] && PgArchiveListed(e_[i])) out.push_back(i);
    }
    return out;
  }

 private:
  Name NameOf(size_t i) const { return {e_[i].schema, e_[i].tag}; }
  bool IsTable(size_t i) const { return e_[i].desc == "TABLE" || e_[i].desc == "FOREIGN TABLE"; }
  bool InExcludedSchema(size_t i) const {
    const PgArchiveTocEntry& e = e_[i];
    if (e.desc == "SCHEMA") return plan_.filter.SchemaExcluded(e.tag);
    return e.has_schema && plan_.filter.SchemaExcluded(e.schema);
  }
  bool ExcludedView(size_t i) const {
    const PgArchiveTocEntry& e = e_[i];
    if (e.desc != "VIEW" && e.desc != "MATERIALIZED VIEW") return false;
    return AnyTablePatternMatches(plan_.exclude_patterns, TableRef{e.schema, e.tag});
  }

  // The seeds, then everything that depends on them.
  void Block() {
    const auto dependents = TablesNotRestored(
        plan_.schema.value("dependents", nlohmann::json::array()), restored_, false);
    std::deque<size_t> work;
    const auto seed = [&](size_t i, std::string cause, bool silent) {
      blocked_[i] = silent ? 2 : 1;
      cause_[i] = std::move(cause);
      work.push_back(i);
    };
    for (size_t i = 0; i < e_.size(); ++i) {
      const PgArchiveTocEntry& e = e_[i];
      if (IsTable(i) && restored_.Excludes(NameOf(i))) {
        seed(i, Qualified(e), true);
      } else if (ExcludedView(i)) {
        seed(i, Qualified(e), true);
      } else if (auto d = dependents.find({e.catalog_oid, e.object_oid});
                 d != dependents.end() && e.catalog_oid != 0 && !IsAbout(e.desc)) {
        seed(i, d->second.front().first + "." + d->second.front().second, false);
      } else if (auto fk = fks_.find(NameOf(i));
                 e.desc == "FK CONSTRAINT" && fk != fks_.end() &&
                 !restored_.Restores(fk->second.references)) {
        seed(i, fk->second.references.first + "." + fk->second.references.second, false);
      }
    }
    while (!work.empty()) {
      const size_t b = work.front();
      work.pop_front();
      for (size_t u : users_[b]) {
        if (blocked_[u]) continue;
        blocked_[u] = 1;
        cause_[u] = cause_[b];
        work.push_back(u);
      }
    }
  }

  // A sequence owned by a table the load does not restore: not restored unless needed.
  bool OwnedByLeftOut(size_t i) const {
    if (e_[i].desc != "SEQUENCE") return false;
    for (const nlohmann::json& q : plan_.schema.value("sequences", nlohmann::json::array())) {
      if (JsonString(q, "schema") == e_[i].schema && JsonString(q, "name") == e_[i].tag &&
          !JsonString(q, "table").empty()) {
        return restored_.Excludes({JsonString(q, "table_schema"), JsonString(q, "table")});
      }
    }
    return false;
  }

  bool Root(size_t i) const {
    const PgArchiveTocEntry& e = e_[i];
    if (InExcludedSchema(i)) return false;
    if (!plan_.filter.subset) return !OwnedByLeftOut(i);
    if (IsTable(i) && restored_.Restores(NameOf(i))) return true;
    if ((IsRelation(e.desc) || e.desc == "SEQUENCE") && plan_.filter.NamedByTable({e.schema, e.tag})) {
      return true;
    }
    if (plan_.filter.schemas.empty()) return false;
    if (e.desc == "SCHEMA") return plan_.filter.SchemaIncluded(e.tag);
    return e.has_schema && !e.schema.empty() && plan_.filter.SchemaIncluded(e.schema) &&
           !IsTable(i);
  }

  // An entry hanging on kept entry `k` that comes with it: a comment or grant of anything
  // kept, or what is on or reads a kept relation (not in a schema -N or -n leaves out).
  bool Attaches(size_t r, size_t k) const {
    if (IsAbout(e_[r].desc)) return true;
    if (!IsRelation(e_[k].desc) || InExcludedSchema(r)) return false;
    return !e_[r].has_schema || e_[r].schema.empty() || plan_.filter.SchemaIncluded(e_[r].schema);
  }

  void Keep() {
    std::deque<size_t> work;
    for (size_t i = 0; i < e_.size(); ++i) {
      if (!blocked_[i] && Root(i)) {
        kept_[i] = 1;
        work.push_back(i);
      }
    }
    while (!work.empty()) {
      const size_t k = work.front();
      work.pop_front();
      for (size_t d : deps_[k]) {
        if (kept_[d] || blocked_[d]) continue;
        kept_[d] = 1;
        work.push_back(d);
      }
      for (size_t r : users_[k]) {
        if (kept_[r] || blocked_[r] || !Attaches(r, k)) continue;
        kept_[r] = 1;
        work.push_back(r);
      }
    }
  }

  // Whether blocked entry `i` is worth a warning: an object the load would have restored.
  bool WouldRestore(size_t i) const {
    const PgArchiveTocEntry& e = e_[i];
    if (blocked_[i] != 1 || IsAbout(e.desc) || e.desc == "DEFAULT ACL" || InExcludedSchema(i)) {
      return false;
    }
    if (IsTable(i) && restored_.Restores(NameOf(i))) return true;  // its data loads without it
    if (auto fk = fks_.find(NameOf(i)); e.desc == "FK CONSTRAINT" && fk != fks_.end()) {
      return restored_.Restores(fk->second.table);
    }
    const auto kept_relation = [&](size_t d) { return kept_[d] && IsRelation(e_[d].desc); };
    if (HangsOn(e.desc)) {
      // Gone with its relation, unless every relation it is on stays.
      return std::none_of(deps_[i].begin(), deps_[i].end(), [&](size_t d) {
        return IsRelation(e_[d].desc) && blocked_[d];
      });
    }
    // With a subset, only what hangs on something kept would have been restored.
    return !plan_.filter.subset ||
           std::any_of(deps_[i].begin(), deps_[i].end(), kept_relation);
  }

  void Warn(std::vector<std::string>* skipped) const {
    for (size_t i = 0; i < e_.size(); ++i) {
      if (!WouldRestore(i)) continue;
      const PgArchiveTocEntry& e = e_[i];
      if (auto fk = fks_.find(NameOf(i)); e.desc == "FK CONSTRAINT" && fk != fks_.end()) {
        skipped->push_back(fmt::format(
            "skipped PostgreSQL foreign key {} on {}.{}: it references {}, which this load "
            "does not restore",
            fk->second.name, fk->second.table.first, fk->second.table.second, cause_[i]));
        continue;
      }
      skipped->push_back(fmt::format(
          "skipped PostgreSQL {} {}: it needs {}, which this load does not restore",
          AsciiLower(e.desc), Qualified(e), cause_[i]));
    }
  }

  const std::vector<PgArchiveTocEntry>& e_;
  const SchemaRestorePlan& plan_;
  const RestoredTables restored_;
  const std::map<Name, ForeignKey> fks_;
  std::vector<std::vector<size_t>> deps_;   // what each entry needs (indices)
  std::vector<std::vector<size_t>> users_;  // what needs each entry
  std::vector<char> blocked_;  // 1: left out, 2: left out without a word (a seed)
  std::vector<char> kept_;
  std::vector<std::string> cause_;  // the table (or view) a left-out entry needs
};

}  // namespace

std::vector<size_t> SelectArchiveEntries(const std::vector<PgArchiveTocEntry>& entries,
                                         const SchemaRestorePlan& plan,
                                         std::vector<std::string>* skipped) {
  return Selector(entries, plan).Run(skipped);
}

std::vector<std::string> QuotedBodyWarnings(const std::vector<PgArchiveTocEntry>& entries,
                                            const std::vector<size_t>& restored,
                                            const SchemaRestorePlan& plan) {
  const RestoredTables tables(plan);
  const auto missing =
      TablesNotRestored(plan.schema.value("mentions", nlohmann::json::array()), tables, true);
  std::vector<std::string> out;
  for (size_t i : restored) {
    const PgArchiveTocEntry& e = entries[i];
    if (e.desc != "FUNCTION" && e.desc != "PROCEDURE") continue;
    auto it = missing.find({e.catalog_oid, e.object_oid});
    if (it == missing.end() || e.catalog_oid == 0) continue;
    std::vector<std::string> names;
    for (const Name& t : it->second) names.push_back(t.first + "." + t.second);
    out.push_back(fmt::format(
        "PostgreSQL {} {} was restored, but its body (in quotes, no recorded dependencies) "
        "mentions {}, which this load does not restore: it may fail when called",
        AsciiLower(e.desc), Qualified(e), fmt::join(names, ", ")));
  }
  return out;
}

}  // namespace lakedump
