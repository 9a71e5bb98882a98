// Temporary stand-in (branch dump only) until src/store/open_store.cc lands.
#include "store/open_store.h"

namespace lakedump {

Result<std::unique_ptr<ObjectStore>> OpenStore(std::string_view url, const StoreOptions&) {
  return Status::Unimplemented("stores are not built in this branch yet: " + std::string(url));
}

}  // namespace lakedump
