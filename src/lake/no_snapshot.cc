#include "lake/no_snapshot.h"

namespace lakedump {

bool OptionsSayNoSnapshot(const nlohmann::json& options) {
  if (!options.is_object()) return false;
  auto it = options.find(kNoSnapshotKey);
  return it != options.end() && it->is_boolean() && it->get<bool>();
}

bool ManifestHasNoSnapshot(const DumpManifest& manifest) {
  return OptionsSayNoSnapshot(manifest.options);
}

bool ManifestIsOneSnapshot(const DumpManifest& manifest) {
  return manifest.single_snapshot() && !ManifestHasNoSnapshot(manifest);
}

}  // namespace lakedump
