#include "lake/table_selection.h"

#include <fnmatch.h>

namespace lakedump {

bool TablePatternMatches(std::string_view pattern, const TableRef& table) {
  const std::string p(pattern);
  return fnmatch(p.c_str(), table.QualifiedName().c_str(), 0) == 0 ||
         fnmatch(p.c_str(), table.name.c_str(), 0) == 0;
}

bool AnyTablePatternMatches(const std::vector<std::string>& patterns, const TableRef& table) {
  for (const auto& p : patterns) {
    if (TablePatternMatches(p, table)) return true;
  }
  return false;
}

bool IsTableGlob(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

}  // namespace lakedump
