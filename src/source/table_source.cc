#include "source/table_source.h"

namespace lakedump {

Result<std::vector<WorkUnit>> Database::Split(const TableInfo& table, uint64_t /*target_bytes*/) {
  return std::vector<WorkUnit>{WorkUnit{table, 0, 1, ""}};
}

}  // namespace lakedump

namespace lakedump {

Result<SchemaCapture> Database::CaptureSchema(const SchemaSelection& /*selected*/,
                                              const SchemaCaptureOptions& /*options*/) {
  SchemaCapture capture;
  capture.info["schema_from"] = "lakedump";
  return capture;
}

}  // namespace lakedump

namespace lakedump {

nlohmann::json Database::Identity() const {
  const nlohmann::json described = Describe();
  return {{"kind", described.value("kind", "")}};
}

Status Database::CheckUnit(const WorkUnit& unit) const {
  if (unit.range_predicate.empty()) return Status::OK();
  return Status::InvalidArgument("table " + unit.table.ref.QualifiedName() +
                                 ": this source reads no ranges of a table");
}

}  // namespace lakedump
