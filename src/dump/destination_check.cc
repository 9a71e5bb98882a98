#include "dump/destination_check.h"

#include <fmt/format.h>

#include "lake/object_keys.h"

namespace lakedump {

Status CheckDestinationObjects(const DestinationOwnership& own, const DumpOptions& options,
                               const std::string& dest) {
  const std::vector<std::string> foreign = own.Foreign();
  if (options.if_exists == IfExists::kFail) {
    if (own.has_manifest()) {
      return Status::AlreadyExists(fmt::format(
          "{} already holds a dump (use --if-exists overwrite or resume)", dest));
    }
    if (!foreign.empty()) {
      // No flag to suggest: lakedump deletes only what it wrote.
      return Status::AlreadyExists(fmt::format(
          "{} is not empty: it holds {}; dump into an empty destination (or a folder of "
          "its own under it)",
          dest, DescribeForeign(foreign)));
    }
    if (!own.listing().empty()) {
      return Status::AlreadyExists(fmt::format(
          "{} is not empty ({} objects of an interrupted lakedump run, e.g. {}) (use "
          "--if-exists resume or overwrite)",
          dest, own.listing().size(), own.listing().front().key));
    }
    return Status::OK();
  }
  if (foreign.empty() || options.delete_foreign) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "{} holds {}: --if-exists {} deletes only what lakedump wrote, so it refuses this "
      "destination (move them away, or dump into a folder of its own)",
      dest, DescribeForeign(foreign), IfExistsName(options.if_exists)));
}

bool MayDeleteObject(const DestinationOwnership* own, const DumpOptions& options,
                     std::string_view run_id, std::string_view key) {
  if (options.delete_foreign || ClaimableByRun(key, run_id)) return true;
  return own != nullptr &&
         own->OwnerOf(key) != DestinationOwnership::Owner::kForeign;
}

}  // namespace lakedump
