#include "format/parquet/parquet_writer.h"

namespace lakedump {

std::string CreatedBy() {
  return std::string("lakedump version ") + LAKEDUMP_VERSION + " (build " + LAKEDUMP_BUILD_ID + ")";
}

}  // namespace lakedump
