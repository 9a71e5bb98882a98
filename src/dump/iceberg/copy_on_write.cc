#include "dump/iceberg/copy_on_write.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <utility>

#include "lake/iceberg_layout.h"

namespace lakedump {
namespace {

constexpr size_t kCowBatchRows = 8192;

// The store key of a file the table's manifests name by its URI.
Result<std::string> CowKeyOf(const std::string& path, const std::string& root) {
  if (!path.starts_with(root + "/")) {
    return Status::Corruption(fmt::format("{} is not in the dump", path));
  }
  return path.substr(root.size() + 1);
}

// Streams the (file_path, pos) rows of the position delete file `key`.
template <typename Visit>
Status ForEachPositionDelete(ObjectStore& store, const std::string& key, Visit visit) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, {"file_path", "pos"}, &holder));
  const Schema& s = reader->schema();
  if (s.num_columns() != 2 || s.column(0).type.id != TypeId::kString ||
      s.column(1).type.id != TypeId::kInt64) {
    return Status::Corruption(fmt::format("{}: not a position delete file", key));
  }
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kCowBatchRows, &batch));
    if (batch.num_rows() == 0) return Status::OK();
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      if (batch.column(0).IsNull(r) || batch.column(1).IsNull(r) ||
          batch.column(1).ValueAt<int64_t>(r) < 0) {
        return Status::Corruption(fmt::format("{}: a row is not a file and a position", key));
      }
      LD_RETURN_IF_ERROR(visit(batch.column(0).BytesAt(r), batch.column(1).ValueAt<int64_t>(r)));
    }
  }
}

// The parent snapshot's files, with what each data file holds and, read only when some file is
// rewritten, what each delete file names.
struct CowParent {
  std::vector<LiveManifest> manifests;
  std::map<std::string, int64_t> rows;      // data file URI -> its rows
  std::map<std::string, std::vector<std::string>> targets;  // delete file URI -> data files
};

Result<CowParent> ReadCowParent(ObjectStore& store, const TableRef& table,
                                const std::string& location, const iceberg::TableHistory& h) {
  CowParent p;
  LD_ASSIGN_OR_RETURN(p.manifests, ReadLiveManifests(store, table, location, h));
  for (const LiveManifest& m : p.manifests) {
    if (m.live.content != 0) continue;
    for (const iceberg::RemovedEntry& e : m.live.entries) p.rows[e.path] = e.record_count;
  }
  return p;
}

// The data files each live delete file of the parent names (p->targets).
Status ReadDeleteTargets(ObjectStore& store, const std::string& root, CowParent* p) {
  for (const LiveManifest& m : p->manifests) {
    if (m.live.content == 0) continue;
    for (const iceberg::RemovedEntry& e : m.live.entries) {
      LD_ASSIGN_OR_RETURN(std::string key, CowKeyOf(e.path, root));
      std::vector<std::string>& targets = p->targets[e.path];
      LD_RETURN_IF_ERROR(ForEachPositionDelete(
          store, key, [&](std::string_view path, int64_t) -> Status {
            if (targets.empty() || targets.back() != path) targets.emplace_back(path);
            return Status::OK();
          }));
    }
  }
  return Status::OK();
}

// The deleted positions of the data file `path` (`rows` rows): those of the parent's delete
// files and the increment's (`mine`), one bit each.
Result<std::vector<uint64_t>> DeletedBits(ObjectStore& store, const CowParent& p,
                                          const std::string& path, int64_t rows,
                                          const std::vector<int64_t>& mine,
                                          const std::string& root) {
  std::vector<uint64_t> bits(static_cast<size_t>(rows + 63) / 64, 0);
  const auto set = [&](int64_t pos) -> Status {
    if (pos >= rows) {
      return Status::Corruption(fmt::format("a position delete of {} is past its rows", path));
    }
    bits[static_cast<size_t>(pos) / 64] |= uint64_t{1} << (pos % 64);
    return Status::OK();
  };
  for (const auto& [file, targets] : p.targets) {
    if (std::find(targets.begin(), targets.end(), path) == targets.end()) continue;
    LD_ASSIGN_OR_RETURN(std::string key, CowKeyOf(file, root));
    LD_RETURN_IF_ERROR(ForEachPositionDelete(
        store, key, [&](std::string_view at, int64_t pos) -> Status {
          return at == path ? set(pos) : Status::OK();
        }));
  }
  for (int64_t pos : mine) LD_RETURN_IF_ERROR(set(pos));
  return bits;
}

// Copies the rows of `old_key` not set in `deleted` into `new_key`.
Result<std::optional<iceberg::DataFileEntry>> RewriteWithout(
    ObjectStore& store, const std::string& old_key, const std::string& new_key,
    const Schema& data, const std::vector<uint64_t>& deleted, const std::string& root) {
  std::vector<std::string> names;
  for (const Column& c : data.columns()) names.push_back(c.name);
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, old_key, names, &holder));
  StreamedDataFile out(store, new_key, data);
  RowBatch batch, kept(data);
  size_t pos = 0;
  const auto is_deleted = [&](size_t at) {
    return at / 64 < deleted.size() && (deleted[at / 64] >> (at % 64) & 1) != 0;
  };
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kCowBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    for (size_t r = 0; r < batch.num_rows();) {
      size_t end = r;
      while (end < batch.num_rows() && !is_deleted(pos + end)) ++end;
      for (size_t j = 0; j < data.num_columns() && end > r; ++j) {
        kept.column(j).AppendFrom(batch.column(j), r, end - r);
      }
      r = end;
      while (r < batch.num_rows() && is_deleted(pos + r)) ++r;
    }
    pos += batch.num_rows();
    LD_RETURN_IF_ERROR(out.Append(kept));
    kept.Clear();
  }
  return out.Close(root);
}

// The parent's manifests as the snapshot lists them: those naming a removed file rewritten,
// the others kept whole.
void SplitManifests(CowParent& p, const std::set<std::string>& removed, CopyOnWritten* out) {
  for (LiveManifest& m : p.manifests) {
    std::vector<bool> flags;
    bool any = false;
    for (const iceberg::RemovedEntry& e : m.live.entries) {
      flags.push_back(removed.count(e.path) > 0);
      any |= flags.back();
    }
    if (any) {
      out->rewritten.push_back(
          iceberg::RewrittenManifest{std::move(m.live), m.ref.added_snapshot_id, std::move(flags)});
    } else if (m.ref.live_files > 0) {
      out->kept.push_back(std::move(m.ref.record));
    }
  }
}

}  // namespace

void MovedRows::Add(const std::string& old_key, const std::string& new_key,
                    std::vector<uint64_t> deleted) {
  Moved m;
  m.new_key = new_key;
  int64_t before = 0;
  for (uint64_t w : deleted) {
    m.deleted_before.push_back(before);
    before += std::popcount(w);
  }
  m.deleted = std::move(deleted);
  files_[old_key] = std::move(m);
}

Result<bool> MovedRows::Find(std::string_view key, int64_t pos, const std::string** new_key,
                             int64_t* new_pos) const {
  auto it = files_.find(key);
  if (it == files_.end()) return false;
  const Moved& m = it->second;
  const size_t word = static_cast<size_t>(pos) / 64;
  const uint64_t below = (uint64_t{1} << (pos % 64)) - 1;
  if (word >= m.deleted.size() || (m.deleted[word] >> (pos % 64) & 1) != 0) {
    return Status::Corruption(
        fmt::format("the key index names row {} of {}, which is deleted", pos, key));
  }
  *new_key = &m.new_key;
  *new_pos = pos - m.deleted_before[word] - std::popcount(m.deleted[word] & below);
  return true;
}

Result<CopyOnWritten> CopyOnWrite(ObjectStore& store, const TableRef& table,
                                  const std::string& location, const iceberg::TableHistory& h,
                                  const Schema& data, const IndexFiles& files,
                                  const std::vector<int64_t>& live_rows,
                                  std::vector<KeyLocation>* deletes, const std::string& name_base,
                                  const std::string& root) {
  LD_ASSIGN_OR_RETURN(CowParent p, ReadCowParent(store, table, location, h));
  std::map<std::string, int64_t> live;  // data file URI -> its rows the index holds after
  for (uint32_t id = 0; id < live_rows.size(); ++id) {
    live[root + "/" + files.Key(id)] += live_rows[id];
  }
  std::set<std::string> removed;
  for (const auto& [path, rows] : p.rows) {
    auto l = live.find(path);
    const int64_t lost = rows - (l == live.end() ? 0 : l->second);
    if (rows > 0 && lost >= kCopyOnWriteShare * static_cast<double>(rows)) removed.insert(path);
  }
  CopyOnWritten out;
  if (removed.empty()) {  // the parent's manifests kept as they are
    SplitManifests(p, removed, &out);
    return out;
  }
  LD_RETURN_IF_ERROR(ReadDeleteTargets(store, root, &p));
  std::map<std::string, std::vector<int64_t>> mine;  // rewritten file -> the increment's deletes
  for (const KeyLocation& d : *deletes) {
    std::string path = root + "/" + files.Key(d.file);
    if (removed.count(path) > 0) mine[std::move(path)].push_back(d.pos);
  }
  int k = 0;
  for (const std::string& path : removed) {
    LD_ASSIGN_OR_RETURN(std::string old_key, CowKeyOf(path, root));
    LD_ASSIGN_OR_RETURN(std::vector<uint64_t> bits,
                        DeletedBits(store, p, path, p.rows[path], mine[path], root));
    const std::string new_key = fmt::format("{}-cow{}.parquet", name_base, ++k);
    LD_ASSIGN_OR_RETURN(auto written, RewriteWithout(store, old_key, new_key, data, bits, root));
    if (written) out.added.push_back(std::move(*written));
    out.moved.Add(old_key, new_key, std::move(bits));
  }
  std::erase_if(*deletes, [&](const KeyLocation& d) {
    return removed.count(root + "/" + files.Key(d.file)) > 0;
  });
  for (const auto& [file, targets] : p.targets) {
    const bool only_removed = std::all_of(targets.begin(), targets.end(), [&](const auto& t) {
      return removed.count(t) > 0 || p.rows.count(t) == 0;
    });
    if (only_removed && !removed.empty()) removed.insert(file);
  }
  SplitManifests(p, removed, &out);
  return out;
}

}  // namespace lakedump
