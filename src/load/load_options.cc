#include "load/load_options.h"

#include <fmt/format.h>

namespace lakedump {

Result<LoadIfExists> ParseLoadIfExists(std::string_view text) {
  if (text == "fail") return LoadIfExists::kFail;
  if (text == "replace") return LoadIfExists::kReplace;
  if (text == "append") return LoadIfExists::kAppend;
  return Status::InvalidArgument(
      fmt::format("--if-exists \"{}\": expected fail, replace or append", text));
}

std::string_view LoadIfExistsName(LoadIfExists value) {
  switch (value) {
    case LoadIfExists::kFail:
      return "fail";
    case LoadIfExists::kReplace:
      return "replace";
    case LoadIfExists::kAppend:
      return "append";
  }
  return "fail";
}

Result<std::pair<std::string, std::string>> ParseSchemaMapping(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size() ||
      text.find('=', eq + 1) != std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("--schema-map \"{}\": expected OLD=NEW, e.g. --schema-map "
                    "public=staging",
                    text));
  }
  return std::make_pair(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace lakedump
