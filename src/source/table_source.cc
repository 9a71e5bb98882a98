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
