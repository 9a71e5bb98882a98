#include "store/prefix_store.h"

namespace lakedump {

Result<std::vector<ObjectInfo>> PrefixStore::List(std::string_view prefix) {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, target()->List(prefix_ + std::string(prefix)));
  for (ObjectInfo& o : objects) o.key.erase(0, prefix_.size());
  return objects;
}

Result<ObjectInfo> PrefixStore::Head(std::string_view key) {
  LD_ASSIGN_OR_RETURN(ObjectInfo info, target()->Head(prefix_ + std::string(key)));
  info.key = std::string(key);
  return info;
}

Status PrefixStore::Delete(std::span<const std::string> keys) {
  std::vector<std::string> full;
  full.reserve(keys.size());
  for (const std::string& k : keys) full.push_back(prefix_ + k);
  return target()->Delete(full);
}

std::string PrefixStore::Describe() const {
  std::string base = target()->Describe();
  if (!base.empty() && base.back() != '/') base += '/';
  return base + prefix_;
}

}  // namespace lakedump
