// An Avro schema (Avro 1.11 specification) compiled once from a container's avro.schema into
// a graph of nodes, bounded before any record is read: the schema text's size and nesting, the
// number of nodes, named types and references to them, and its expansion (the values one
// record visits, not counting array and map items, the largest union branch taken). A named
// type referenced again is the same node (never a copy), and a type may refer only to names
// defined before it, so a recursive type is refused and the graph has no cycles.
// The fanned-out schema of issue 29 (named records whose fields repeat the previous level's
// type: a 3.4 KB manifest list of zero-byte records, 4^12 values each) fails here in
// microseconds, with one line.
// Immutable after Compile; thread-safe to share.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace lakedump::avro {

enum class AvroKind : uint8_t {
  kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString,
  kFixed, kEnum, kRecord, kUnion, kArray, kMap,
};

struct AvroNode {
  AvroKind kind = AvroKind::kNull;
  uint64_t size = 0;              // kFixed: the byte size
  std::vector<uint32_t> children; // record fields, union branches, array items / map values
  uint64_t expansion = 1;         // values one value of this type visits (saturating)
};

// The bounds (lakedump's own manifests use under a hundred nodes and a few hundred values a
// record, plus their column-statistics maps).
inline constexpr size_t kMaxSchemaBytes = size_t{1} << 20;
inline constexpr int kMaxSchemaDepth = 32;
inline constexpr size_t kMaxSchemaNodes = 10'000;
inline constexpr size_t kMaxNamedTypes = 1'000;
inline constexpr size_t kMaxNameReferences = 10'000;
// Values one record may visit, its arrays and maps included (AvroDecoder counts them).
inline constexpr uint64_t kMaxValuesPerRecord = uint64_t{1} << 20;

// avro.schema's text parsed, after checking its size and nesting (not yet compiled).
Result<nlohmann::json> ParseSchemaJson(std::string_view text);

class AvroSchema {
 public:
  // Parses and compiles avro.schema's text. Corruption with one line when a bound is passed.
  static Result<AvroSchema> Parse(std::string_view text);
  // Compiles a parsed schema (nesting of `schema` is walked only to kMaxSchemaDepth).
  static Result<AvroSchema> Compile(const nlohmann::json& schema);

  uint32_t root() const { return root_; }
  const AvroNode& node(uint32_t id) const { return nodes_[id]; }
  // The type of field `index` of `record`; nullopt when it is not a record with that field.
  std::optional<uint32_t> FieldType(uint32_t record, size_t index) const;

 private:
  friend class SchemaCompiler;
  std::vector<AvroNode> nodes_;
  uint32_t root_ = 0;
};

}  // namespace lakedump::avro
