// S3 destinations (s3://bucket/prefix). The S3 store itself arrives on the s3
// branch; until then s3_store_stub.cc answers Unimplemented.
#pragma once

#include <memory>
#include <string_view>

#include "store/object_store.h"
#include "store/store_options.h"

namespace lakedump {

// Opens the store for `url` ("s3://bucket" or "s3://bucket/prefix"). Thread-safe.
Result<std::unique_ptr<ObjectStore>> OpenS3Store(std::string_view url, const StoreOptions& options);

}  // namespace lakedump
