#include "format/iceberg/schema_evolution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "format/iceberg/iceberg_schema.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;

// Field ids of a history lakedump continues stay far below INT32_MAX.
constexpr int64_t kMaxFieldId = 1 << 30;

// A field of the history's current schema, as lakedump writes them.
struct OldField {
  int id = 0;
  std::string type;              // the type name, or the element's for a list
  std::optional<int> element_id;  // set for a list
};

std::optional<int> PositiveId(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
  const int64_t v = j[key].get<int64_t>();
  if (v < 1 || v > kMaxFieldId) return std::nullopt;
  return static_cast<int>(v);
}

Status Bad(std::string_view why) {
  return Status::Corruption(fmt::format("its current schema {}", why));
}

// The current schema's fields by name, checked; the highest id of every schema into *max_id.
Result<std::map<std::string, OldField>> CurrentFields(const json& metadata, int* max_id) {
  const json* current = nullptr;
  *max_id = 0;
  if (const std::optional<int> last = PositiveId(metadata, "last-column-id")) *max_id = *last;
  for (const json& s : metadata["schemas"]) {
    if (!s.is_object() || !s.contains("fields") || !s["fields"].is_array()) continue;
    if (s.contains("schema-id") && s["schema-id"] == metadata["current-schema-id"]) current = &s;
    for (const json& f : s["fields"]) {
      if (!f.is_object()) continue;
      *max_id = std::max(*max_id, PositiveId(f, "id").value_or(0));
      if (f.contains("type") && f["type"].is_object()) {
        *max_id = std::max(*max_id, PositiveId(f["type"], "element-id").value_or(0));
      }
    }
  }
  if (current == nullptr) return Bad("is not listed");
  std::map<std::string, OldField> out;
  std::set<int> ids;
  for (const json& f : (*current)["fields"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() ||
        !f.contains("required") || !f["required"].is_boolean() || !f.contains("type")) {
      return Bad("has a field without a name, a required flag or a type");
    }
    OldField old;
    const std::optional<int> id = PositiveId(f, "id");
    if (!id) return Bad("has a field without a positive field id");
    old.id = *id;
    const json& type = f["type"];
    if (type.is_string()) {
      old.type = type.get<std::string>();
    } else if (type.is_object() && type.value("type", json()) == "list" &&
               type.contains("element") && type["element"].is_string() &&
               type.contains("element-required") && type["element-required"].is_boolean()) {
      old.type = type["element"].get<std::string>();
      old.element_id = PositiveId(type, "element-id");
      if (!old.element_id) return Bad("has a list without a positive element id");
    } else {
      return Bad("has a field of a type lakedump does not write");
    }
    if (!ids.insert(old.id).second || (old.element_id && !ids.insert(*old.element_id).second)) {
      return Bad("repeats a field id");
    }
    if (!out.emplace(f["name"].get<std::string>(), std::move(old)).second) {
      return Bad("repeats a field name");
    }
  }
  return out;
}

// decimal(P, S) -> {P, S}; nullopt for another type.
std::optional<std::pair<int, int>> DecimalOf(const std::string& type) {
  int p = 0, s = 0;
  char end = 0;
  if (std::sscanf(type.c_str(), "decimal(%d, %d%c", &p, &s, &end) != 3 || end != ')') {
    return std::nullopt;
  }
  if (type != fmt::format("decimal({}, {})", p, s)) return std::nullopt;
  return std::pair{p, s};
}

}  // namespace

bool IsAllowedPromotion(const std::string& from, const std::string& to) {
  if (from == to) return true;
  if (from == "int" && to == "long") return true;
  if (from == "float" && to == "double") return true;
  const auto a = DecimalOf(from), b = DecimalOf(to);
  return a && b && a->second == b->second && b->first > a->first;
}

Result<Schema> EvolveSchema(const TableHistory& history, const Schema& schema) {
  int next_id = 0;
  LD_ASSIGN_OR_RETURN(auto current, CurrentFields(history.metadata, &next_id));
  if (static_cast<int64_t>(next_id) + 2 * static_cast<int64_t>(schema.num_columns()) >
      kMaxFieldId) {
    return Status::Corruption("its field ids are too large to add columns after them");
  }
  std::vector<Column> columns = schema.columns();
  for (Column& c : columns) {
    const bool list = c.type.is_list();
    const std::string type = TypeName(c.type);
    auto old = current.find(c.name);
    if (old != current.end() && old->second.element_id.has_value() == list &&
        IsAllowedPromotion(old->second.type, type)) {
      c.field_id = old->second.id;
      c.element_field_id = old->second.element_id;
      continue;
    }
    // Added, or retyped beyond a promotion: a new field.
    c.field_id = ++next_id;
    c.element_field_id = list ? std::optional<int>(++next_id) : std::nullopt;
  }
  return Schema(std::move(columns));
}

}  // namespace lakedump::iceberg
