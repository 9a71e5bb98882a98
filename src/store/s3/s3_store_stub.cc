// Placeholder until the S3 store lands; the S3 engineer deletes this file.
#include "store/s3/s3_store.h"

namespace lakedump {

Result<std::unique_ptr<ObjectStore>> OpenS3Store(std::string_view, const StoreOptions&) {
  return Status::Unimplemented("s3:// destinations arrive with the S3 store");
}

}  // namespace lakedump
