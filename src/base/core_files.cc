#include "base/core_files.h"

#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

namespace lakedump {

bool NoCoreFiles() {
  const char* allow = std::getenv("LAKEDUMP_ALLOW_CORE_FILES");
  if (allow != nullptr && std::strcmp(allow, "1") == 0) return false;
  const struct rlimit none = {0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  return true;
}

}  // namespace lakedump
