#include "lake/increment_verify.h"

#include <fmt/format.h>

#include <set>

#include "lake/incremental_state.h"
#include "lake/object_checksum.h"
#include "lake/object_keys.h"
#include "store/prefix_store.h"

namespace lakedump {

Result<IncrementVerifyResult> VerifyIncrements(ObjectStore& store, const DumpManifest& base,
                                               const VerifyOptions& options) {
  IncrementVerifyResult out;
  auto chain = ReadIncrements(store, base);
  if (!chain.ok()) {
    if (chain.status().code() != Code::kCorruption) return chain.status();
    out.problems.push_back(
        VerifyProblem{std::string(kIncrementsFolder), "increment", chain.status().message(), {}, {}});
    return out;
  }
  std::set<std::string> claimed;
  std::set<std::string> committed_prefixes;
  for (const IncrementManifest& m : *chain) {
    if (options.stop.stop_requested()) return Status::Cancelled("verify interrupted");
    ++out.increments;
    const std::string prefix = IncrementPrefix(m.sequence);
    committed_prefixes.insert(prefix);
    claimed.insert(prefix + std::string(kManifestKey));
    for (const ChangeFile& f : m.change_files) {
      const std::string key = prefix + f.key;
      claimed.insert(key);
      auto reader = store.NewReader(key);
      if (!reader.ok()) {
        out.problems.push_back(VerifyProblem{key, reader.status().code() == Code::kNotFound
                                                      ? "missing"
                                                      : "unreadable",
                                             reader.status().message(), {}, {}});
        continue;
      }
      if ((*reader)->size() != f.bytes) {
        out.problems.push_back(VerifyProblem{key, "size", "change file size differs",
                                             fmt::format("{} bytes", f.bytes),
                                             fmt::format("{} bytes", (*reader)->size())});
        continue;
      }
      auto digest = HashObjectDigests(**reader, f.bytes, false);
      if (!digest.ok()) {
        out.problems.push_back(VerifyProblem{key, "unreadable", digest.status().message(), {}, {}});
        continue;
      }
      ++out.files;
      out.bytes += f.bytes;
      if (digest->xxh64 != f.xxh64) {
        out.problems.push_back(
            VerifyProblem{key, "checksum", "change file XXH64 differs", f.xxh64, digest->xxh64});
      }
    }
    if (!m.redumped.empty()) {
      const std::string redump = prefix + std::string(kRedumpFolder);
      PrefixStore sub(&store, redump);
      VerifyOptions sub_options = options;
      sub_options.signing_key.clear();
      LD_ASSIGN_OR_RETURN(VerifyReport report, Verify(sub, sub_options));
      for (VerifyProblem p : report.problems) {
        p.key = redump + p.key;
        out.problems.push_back(std::move(p));
      }
      out.files += report.files;
      out.bytes += report.bytes;
      LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, sub.List(""));
      for (const ObjectInfo& o : objects) claimed.insert(redump + o.key);
    }
  }
  const std::string uncommitted = IncrementPrefix(static_cast<int>(chain->size()) + 1);
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listing, store.List(kIncrementsFolder));
  for (const ObjectInfo& o : listing) {
    if (claimed.contains(o.key) || o.key.starts_with(uncommitted)) continue;
    out.problems.push_back(VerifyProblem{o.key, "stray",
                                         "object under _increments/ is not claimed by an "
                                         "increment manifest",
                                         "-", fmt::format("{} bytes", o.size)});
  }
  return out;
}

}  // namespace lakedump
