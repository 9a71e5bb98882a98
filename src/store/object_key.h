// Object key rules shared by every store. Keys are '/'-separated paths relative
// to the store root. The dump layer escapes table names; this is the second line
// of defence that keeps any key inside its root. Pure functions; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"

namespace lakedump {

// OK for keys like "public/orders/part-0.parquet". InvalidArgument, naming the
// key, when it is empty, absolute, has an empty, "." or ".." segment, ends with
// '/', or contains NUL.
Status ValidateObjectKey(std::string_view key);

// Like ValidateObjectKey, for a List() prefix: may be empty, may end with '/',
// and its last segment may be partial ("a/part-"). Rejects "..", ".", absolute
// prefixes, empty inner segments and NUL.
Status ValidateKeyPrefix(std::string_view prefix);

}  // namespace lakedump
