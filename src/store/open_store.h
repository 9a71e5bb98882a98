// OpenStore: a store from a URL: file:///dir, a plain path, s3://bucket/prefix,
// or memory:// (tests). Thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "store/object_store.h"
#include "store/store_options.h"

namespace lakedump {

Result<std::unique_ptr<ObjectStore>> OpenStore(std::string_view url, const StoreOptions& options);

}  // namespace lakedump
