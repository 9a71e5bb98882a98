#include "lake/iceberg_snapshots.h"

#include <fmt/format.h>

#include <chrono>

#include "lake/manifest.h"

namespace lakedump {
namespace {

using ojson = nlohmann::ordered_json;

// A summary value that is a decimal count, or nullopt.
std::optional<uint64_t> SnapshotCount(const ojson& summary, const char* key) {
  const ojson& v = summary.value(key, ojson());
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoull(s);
}

std::string SnapshotText(const ojson& summary, const char* key) {
  const ojson& v = summary.value(key, ojson());
  return v.is_string() ? v.get<std::string>() : std::string();
}

constexpr const char* kSnapshotCountKeys[] = {
    "lakedump.inserts",       "lakedump.updates",   "lakedump.deletes",
    "added-records",          "deleted-records",    "added-position-deletes",
    "total-records",          "total-data-files",   "total-delete-files",
    "total-position-deletes"};

}  // namespace

std::vector<IcebergSnapshotInfo> ListIcebergSnapshots(const iceberg::TableHistory& h) {
  std::vector<IcebergSnapshotInfo> out;
  size_t i = 0;
  for (const ojson& s : h.metadata["snapshots"]) {
    IcebergSnapshotInfo info;
    info.id = s["snapshot-id"].get<int64_t>();
    if (s.contains("parent-snapshot-id") && s["parent-snapshot-id"].is_number_integer()) {
      info.parent = s["parent-snapshot-id"].get<int64_t>();
    }
    info.sequence_number = s["sequence-number"].get<int64_t>();
    info.timestamp_ms = s["timestamp-ms"].get<int64_t>();
    info.current = info.id == h.current_snapshot_id;
    info.run_id = i < h.run_ids.size() ? h.run_ids[i] : "";
    const ojson& summary = s["summary"];
    info.operation = SnapshotText(summary, "operation");
    if (auto n = SnapshotCount(summary, "lakedump.increment"); n && *n < 1'000'000) {
      info.increment = static_cast<int>(*n);
    }
    info.redump = SnapshotText(summary, "lakedump.redump");
    for (const char* key : kSnapshotCountKeys) {
      std::string_view name = key;
      if (name.starts_with("lakedump.")) name.remove_prefix(9);
      if (auto n = SnapshotCount(summary, key)) info.counts[std::string(name)] = *n;
    }
    out.push_back(std::move(info));
    ++i;
  }
  return out;
}

std::string FormatIcebergSnapshot(const IcebergSnapshotInfo& s) {
  const std::string when = FormatUtc(std::chrono::system_clock::time_point(
      std::chrono::milliseconds(s.timestamp_ms)));
  std::string what;
  auto count = [&](const char* key) {
    auto it = s.counts.find(key);
    return it == s.counts.end() ? std::string("?") : std::to_string(it->second);
  };
  if (s.counts.count("inserts") || s.counts.count("updates") || s.counts.count("deletes")) {
    what = fmt::format("{} inserts, {} updates, {} deletes", count("inserts"), count("updates"),
                       count("deletes"));
  } else if (s.counts.count("added-records")) {
    what = fmt::format("{} records added", count("added-records"));
  }
  if (!s.redump.empty()) what += " (re-dumped whole)";
  if (s.operation == "replace") what = "compacted: the same rows in clean files";
  what += fmt::format("; {} records, {} delete files", count("total-records"),
                      count("total-delete-files"));
  return fmt::format("  {:>19}  {:<14}  {:<9}  {}  {}{}", s.id,
                     s.increment > 0 ? fmt::format("increment {}", s.increment) : "dump",
                     s.operation.empty() ? "?" : s.operation, when, what,
                     s.current ? "  (current)" : "");
}

nlohmann::json IcebergSnapshotJson(const IcebergSnapshotInfo& s) {
  nlohmann::json j = {{"snapshot_id", s.id},
                      {"sequence_number", s.sequence_number},
                      {"timestamp_ms", s.timestamp_ms},
                      {"time", FormatUtc(std::chrono::system_clock::time_point(
                                   std::chrono::milliseconds(s.timestamp_ms)))},
                      {"operation", s.operation},
                      {"increment", s.increment},
                      {"current", s.current},
                      {"run_id", s.run_id}};
  if (s.parent) j["parent_snapshot_id"] = *s.parent;
  if (!s.redump.empty()) j["redump"] = s.redump;
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [k, v] : s.counts) counts[k] = v;
  j["counts"] = std::move(counts);
  return j;
}

}  // namespace lakedump
