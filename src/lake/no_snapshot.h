// --no-snapshot (docs/scale-out.md, "--no-snapshot"): a sharded dump whose workers read the
// source each on their own, so that its tables are not one consistent state of the source.
// Where it is recorded: "no_snapshot": true in the options every process of the dump shares
// (ShardMatchingOptions, and so _plan.json's "options") and in _manifest.json's "options";
// the manifest then says "single_snapshot": false and "no_snapshot": true.
//
// Functions of values only; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "lake/manifest.h"

namespace lakedump {

inline constexpr const char* kNoSnapshotKey = "no_snapshot";

// True when `options` (a JSON object of options, e.g. a plan's or a manifest's) says
// "no_snapshot": true; false for anything else, including values that are not objects.
bool OptionsSayNoSnapshot(const nlohmann::json& options);

// The manifest of a --no-snapshot dump (its options say so).
bool ManifestHasNoSnapshot(const DumpManifest& manifest);

// Every table read from one snapshot: one run (no resume took tables of earlier runs) and
// not --no-snapshot.
bool ManifestIsOneSnapshot(const DumpManifest& manifest);

}  // namespace lakedump
