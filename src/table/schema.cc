#include "table/schema.h"

#include <fmt/format.h>

#include <unordered_set>

namespace lakedump {

std::optional<size_t> Schema::FindColumn(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].name == name) return i;
  return std::nullopt;
}

Status Schema::Validate() const {
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Column& c = columns_[i];
    if (c.name.empty()) return Status::InvalidArgument(fmt::format("column {} has no name", i));
    if (!seen.insert(c.name).second)
      return Status::InvalidArgument(fmt::format("duplicate column name \"{}\"", c.name));
    if (c.type.is_list() && c.type.element == TypeId::kList) {
      return Status::InvalidArgument(fmt::format("column \"{}\": a list of lists", c.name));
    }
    const TypeId scalar = c.type.is_list() ? c.type.element : c.type.id;
    if (scalar == TypeId::kDecimal &&
        (c.type.precision < 1 || c.type.precision > kMaxDecimalPrecision || c.type.scale < 0 ||
         c.type.scale > c.type.precision)) {
      return Status::InvalidArgument(fmt::format("column \"{}\": invalid decimal({},{})", c.name,
                                                 c.type.precision, c.type.scale));
    }
  }
  return Status::OK();
}

}  // namespace lakedump
