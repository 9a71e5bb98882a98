#include "format/avro/avro_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "base/json_nesting.h"

namespace lakedump::avro {
namespace {

using json = nlohmann::json;

// Three JSON levels a type level (a record, its fields array, a field object).
constexpr size_t kMaxJsonNesting = 4 * kMaxSchemaDepth;

Status SchemaBad(std::string_view why) { return Status::Corruption(fmt::format("Avro: {}", why)); }

std::optional<AvroKind> PrimitiveKind(std::string_view t) {
  static const std::map<std::string_view, AvroKind> kPrimitives = {
      {"null", AvroKind::kNull},   {"boolean", AvroKind::kBoolean}, {"int", AvroKind::kInt},
      {"long", AvroKind::kLong},   {"float", AvroKind::kFloat},     {"double", AvroKind::kDouble},
      {"bytes", AvroKind::kBytes}, {"string", AvroKind::kString}};
  auto it = kPrimitives.find(t);
  if (it == kPrimitives.end()) return std::nullopt;
  return it->second;
}

}  // namespace

// Walks the JSON once, depth first, in document order (the order in which Avro defines names).
class SchemaCompiler {
 public:
  Result<uint32_t> Type(const json& s, int depth);
  AvroSchema out;

 private:
  Result<uint32_t> Add(AvroNode n, const std::vector<uint32_t>& children);
  Result<uint32_t> Reference(const std::string& name);
  Result<uint32_t> Named(const json& s, const std::string& t, int depth);
  Result<uint32_t> Record(const json& s, const std::string& name, int depth);

  std::map<std::string, uint32_t, std::less<>> names_;
  std::set<std::string, std::less<>> defining_;  // records whose fields are being compiled
  std::vector<uint32_t> heights_;                // per node: the longest path below it
  size_t references_ = 0;
};

Result<uint32_t> SchemaCompiler::Add(AvroNode n, const std::vector<uint32_t>& children) {
  if (out.nodes_.size() >= kMaxSchemaNodes) {
    return SchemaBad(fmt::format("the schema has more than {} types", kMaxSchemaNodes));
  }
  uint32_t height = 0;
  uint64_t sum = 1, largest = 0;
  for (uint32_t c : children) {
    height = std::max(height, heights_[c] + 1);
    sum = std::min(sum + out.nodes_[c].expansion, kMaxValuesPerRecord + 1);
    largest = std::max(largest, out.nodes_[c].expansion);
  }
  if (height > static_cast<uint32_t>(kMaxSchemaDepth)) {
    return SchemaBad(fmt::format("the schema nests more than {} types deep", kMaxSchemaDepth));
  }
  n.children = children;
  if (n.kind == AvroKind::kRecord) n.expansion = sum;
  if (n.kind == AvroKind::kUnion) n.expansion = 1 + largest;
  // An array or a map counts its items as the decoder meets them.
  if (n.expansion > kMaxValuesPerRecord) {
    return SchemaBad(fmt::format("the schema expands to more than {} values a record",
                           kMaxValuesPerRecord));
  }
  out.nodes_.push_back(std::move(n));
  heights_.push_back(height);
  return static_cast<uint32_t>(out.nodes_.size() - 1);
}

Result<uint32_t> SchemaCompiler::Reference(const std::string& name) {
  if (++references_ > kMaxNameReferences) {
    return SchemaBad(fmt::format("the schema refers to named types more than {} times",
                           kMaxNameReferences));
  }
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;  // the same node: a reference copies nothing
  if (defining_.contains(name)) return SchemaBad(fmt::format("the recursive type {}", name));
  return SchemaBad(fmt::format("unknown type {}", name));
}

Result<uint32_t> SchemaCompiler::Record(const json& s, const std::string& name, int depth) {
  if (!s.contains("fields") || !s["fields"].is_array()) return SchemaBad("a record without fields");
  if (s["fields"].size() > kMaxSchemaNodes) {
    return SchemaBad(fmt::format("the schema has more than {} types", kMaxSchemaNodes));
  }
  defining_.insert(name);
  std::vector<uint32_t> fields;
  for (const json& f : s["fields"]) {
    if (!f.is_object() || !f.contains("type")) return SchemaBad("a field without a type");
    LD_ASSIGN_OR_RETURN(uint32_t field, Type(f["type"], depth + 1));
    fields.push_back(field);
  }
  defining_.erase(name);
  return Add({AvroKind::kRecord}, fields);
}

Result<uint32_t> SchemaCompiler::Named(const json& s, const std::string& t, int depth) {
  if (!s.contains("name") || !s["name"].is_string()) return SchemaBad("a type without a name");
  const std::string name = s["name"].get<std::string>();
  if (names_.size() >= kMaxNamedTypes && !names_.contains(name)) {
    return SchemaBad(fmt::format("the schema defines more than {} named types", kMaxNamedTypes));
  }
  uint32_t id = 0;
  if (t == "record") {
    LD_ASSIGN_OR_RETURN(id, Record(s, name, depth));
  } else if (t == "fixed") {
    if (!s.contains("size") || !s["size"].is_number_unsigned()) {
      return SchemaBad("a fixed type without a size");
    }
    AvroNode n{AvroKind::kFixed};
    n.size = s["size"].get<uint64_t>();
    LD_ASSIGN_OR_RETURN(id, Add(std::move(n), {}));
  } else {
    LD_ASSIGN_OR_RETURN(id, Add({AvroKind::kEnum}, {}));
  }
  names_[name] = id;
  return id;
}

Result<uint32_t> SchemaCompiler::Type(const json& s, int depth) {
  if (depth > kMaxSchemaDepth) {
    return SchemaBad(fmt::format("the schema nests more than {} types deep", kMaxSchemaDepth));
  }
  if (s.is_array()) {  // a union
    if (s.size() > kMaxSchemaNodes) {
      return SchemaBad(fmt::format("the schema has more than {} types", kMaxSchemaNodes));
    }
    std::vector<uint32_t> branches;
    for (const json& b : s) {
      LD_ASSIGN_OR_RETURN(uint32_t branch, Type(b, depth + 1));
      branches.push_back(branch);
    }
    return Add({AvroKind::kUnion}, branches);
  }
  if (s.is_string()) {
    const std::string t = s.get<std::string>();
    if (auto kind = PrimitiveKind(t)) return Add({*kind}, {});
    return Reference(t);
  }
  if (!s.is_object() || !s.contains("type")) return SchemaBad("a schema that is not a type");
  const json& type = s["type"];
  if (!type.is_string()) return Type(type, depth + 1);
  const std::string t = type.get<std::string>();
  if (PrimitiveKind(t)) return Type(type, depth + 1);  // with a logicalType
  if (t == "record" || t == "fixed" || t == "enum") return Named(s, t, depth);
  if (t == "array" || t == "map") {
    const char* inner = t == "array" ? "items" : "values";
    if (!s.contains(inner)) return SchemaBad(fmt::format("an {} without {}", t, inner));
    LD_ASSIGN_OR_RETURN(uint32_t items, Type(s[inner], depth + 1));
    return Add({t == "array" ? AvroKind::kArray : AvroKind::kMap}, {items});
  }
  return SchemaBad(fmt::format("unknown type {}", t));
}

Result<AvroSchema> AvroSchema::Compile(const json& schema) {
  SchemaCompiler c;
  LD_ASSIGN_OR_RETURN(c.out.root_, c.Type(schema, 0));
  return std::move(c.out);
}

Result<json> ParseSchemaJson(std::string_view text) {
  if (text.size() > kMaxSchemaBytes) {
    return SchemaBad(fmt::format("avro.schema is larger than {} bytes", kMaxSchemaBytes));
  }
  if (JsonNestingDepth(text) > kMaxJsonNesting) {
    return SchemaBad(fmt::format("avro.schema nests more than {} levels deep", kMaxJsonNesting));
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return SchemaBad("avro.schema is not JSON");
  return j;
}

Result<AvroSchema> AvroSchema::Parse(std::string_view text) {
  LD_ASSIGN_OR_RETURN(json j, ParseSchemaJson(text));
  return Compile(j);
}

std::optional<uint32_t> AvroSchema::FieldType(uint32_t record, size_t index) const {
  if (record >= nodes_.size()) return std::nullopt;
  const AvroNode& n = nodes_[record];
  if (n.kind != AvroKind::kRecord || index >= n.children.size()) return std::nullopt;
  return n.children[index];
}

}  // namespace lakedump::avro
