#include "store/memory/memory_store.h"

#include <utility>

#include "store/object_key.h"

namespace lakedump {

class MemoryStore::Writer : public ObjectWriter {
 public:
  Writer(MemoryStore* store, std::string key, WriteOptions options)
      : store_(store), key_(std::move(key)), options_(options) {}

  Status Append(std::string_view data) override {
    if (closed()) return Status::Internal("append after Close: " + key_);
    data_.append(data);
    return Status::OK();
  }
  uint64_t bytes_written() const override { return data_.size(); }

 protected:
  Status DoClose() override {
    return store_->Commit(key_, std::make_shared<const std::string>(data_), options_);
  }
  void Abort() override { store_->WriterAborted(); }

 private:
  MemoryStore* const store_;
  const std::string key_;
  const WriteOptions options_;
  std::string data_;
};

namespace {

class MemoryReader final : public ObjectReader {
 public:
  MemoryReader(std::string key, std::shared_ptr<const std::string> data)
      : key_(std::move(key)), data_(std::move(data)) {}
  uint64_t size() const override { return data_->size(); }
  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
    if (offset > data_->size() || length > data_->size() - offset) {
      return Status::Corruption("read of " + std::to_string(length) + " bytes at offset " +
                                std::to_string(offset) + " is past the end of " + key_ + " (" +
                                std::to_string(data_->size()) + " bytes)");
    }
    out->assign(*data_, offset, length);
    return Status::OK();
  }

 private:
  const std::string key_;
  const std::shared_ptr<const std::string> data_;
};

}  // namespace

Status MemoryStore::Commit(std::string key, std::shared_ptr<const std::string> data,
                          const WriteOptions& options) {
  std::lock_guard lock(mu_);
  if (options.create_only && objects_.contains(key)) {
    return Status::AlreadyExists("object " + key + " already exists in " + Describe());
  }
  if (!options.if_match.empty()) {
    auto it = objects_.find(key);
    if (it == objects_.end() || Md5Etag(*it->second) != options.if_match) {
      return Status::AlreadyExists("object " + key + " in " + Describe() +
                                   " is not the one expected (precondition failed: If-Match " +
                                   options.if_match + ")");
    }
  }
  objects_[std::move(key)] = std::move(data);
  --open_;
  ++committed_;
  return Status::OK();
}

void MemoryStore::WriterAborted() {
  std::lock_guard lock(mu_);
  --open_;
  ++aborted_;
}

Result<std::unique_ptr<ObjectWriter>> MemoryStore::NewWriter(std::string_view key,
                                                             WriteOptions options) {
  LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  {
    std::lock_guard lock(mu_);
    ++open_;
  }
  return MakeObjectWriter<Writer>(this, std::string(key), options);
}

Result<std::unique_ptr<ObjectReader>> MemoryStore::NewReader(std::string_view key) {
  LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::lock_guard lock(mu_);
  auto it = objects_.find(std::string(key));
  if (it == objects_.end()) return Status::NotFound("no object " + std::string(key) + " in " + Describe());
  return std::unique_ptr<ObjectReader>(new MemoryReader(it->first, it->second));
}

Result<std::vector<ObjectInfo>> MemoryStore::List(std::string_view prefix) {
  LD_RETURN_IF_ERROR(ValidateKeyPrefix(prefix));
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> found;
  {
    std::lock_guard lock(mu_);
    for (auto it = objects_.lower_bound(std::string(prefix));
         it != objects_.end() && it->first.starts_with(prefix); ++it) {
      found.emplace_back(it->first, it->second);
    }
  }
  std::vector<ObjectInfo> out;
  out.reserve(found.size());
  for (auto& [key, data] : found) {
    // The ETag S3 lists for an object written in one PUT (MemoryStore mimics it), hashed
    // outside the lock.
    out.push_back(ObjectInfo{std::move(key), data->size(), Md5Etag(*data)});
  }
  return out;
}

Result<ObjectInfo> MemoryStore::Head(std::string_view key) {
  LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::shared_ptr<const std::string> data;
  {
    std::lock_guard lock(mu_);
    auto it = objects_.find(std::string(key));
    if (it == objects_.end()) {
      return Status::NotFound("no object " + std::string(key) + " in " + Describe());
    }
    data = it->second;
  }
  return ObjectInfo{std::string(key), data->size(), Md5Etag(*data)};
}

Status MemoryStore::Delete(std::span<const std::string> keys) {
  for (const std::string& key : keys) LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::lock_guard lock(mu_);
  for (const std::string& key : keys) objects_.erase(key);
  return Status::OK();
}

std::vector<std::string> MemoryStore::Keys() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(objects_.size());
  for (const auto& [key, data] : objects_) keys.push_back(key);
  return keys;
}

int MemoryStore::aborted_writers() const {
  std::lock_guard lock(mu_);
  return aborted_;
}

int MemoryStore::open_writers() const {
  std::lock_guard lock(mu_);
  return open_;
}

int MemoryStore::committed_writers() const {
  std::lock_guard lock(mu_);
  return committed_;
}

namespace {

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, std::shared_ptr<MemoryStore>, std::less<>>& Registry() {
  static auto* registry = new std::map<std::string, std::shared_ptr<MemoryStore>, std::less<>>();
  return *registry;
}

}  // namespace

std::shared_ptr<MemoryStore> NamedMemoryStore(std::string_view name) {
  std::lock_guard lock(RegistryMutex());
  auto& registry = Registry();
  auto it = registry.find(name);
  if (it == registry.end()) {
    it = registry.emplace(std::string(name), std::make_shared<MemoryStore>(std::string(name))).first;
  }
  return it->second;
}

void ClearNamedMemoryStores() {
  std::lock_guard lock(RegistryMutex());
  Registry().clear();
}

}  // namespace lakedump
