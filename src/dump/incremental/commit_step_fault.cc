#include "dump/incremental/commit_step_fault.h"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "store/forwarding_store.h"

namespace lakedump {
namespace {

constexpr std::string_view kStepFaultPrefix = "iceberg-step-";

// Dies once `steps` reaches `die_after`.
void CountCommitStep(std::atomic<int>* steps, int die_after) {
  if (steps->fetch_add(1) + 1 == die_after) std::_Exit(137);
}

class StepFaultWriter : public ForwardingWriter {
 public:
  StepFaultWriter(std::unique_ptr<ObjectWriter> target, std::atomic<int>* steps, int die_after)
      : ForwardingWriter(std::move(target)), steps_(steps), die_after_(die_after) {}

 protected:
  Status DoClose() override {
    LD_RETURN_IF_ERROR(ForwardingWriter::DoClose());
    CountCommitStep(steps_, die_after_);
    return Status::OK();
  }

 private:
  std::atomic<int>* steps_;
  int die_after_;
};

class StepFaultStore : public ForwardingStore {
 public:
  StepFaultStore(ObjectStore* target, int die_after)
      : ForwardingStore(target), die_after_(die_after) {}

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options) override {
    LD_ASSIGN_OR_RETURN(auto writer, ForwardingStore::NewWriter(key, options));
    return MakeObjectWriter<StepFaultWriter>(std::move(writer), &steps_, die_after_);
  }
  Status Delete(std::span<const std::string> keys) override {
    LD_RETURN_IF_ERROR(ForwardingStore::Delete(keys));
    if (!keys.empty()) CountCommitStep(&steps_, die_after_);
    return Status::OK();
  }

 private:
  std::atomic<int> steps_{0};
  int die_after_;
};

}  // namespace

ObjectStore* WithCommitStepFault(ObjectStore* store, std::unique_ptr<ObjectStore>* holder) {
  const char* fault = std::getenv("LAKEDUMP_FAULT");
  if (fault == nullptr) return store;
  const std::string_view f(fault);
  if (!f.starts_with(kStepFaultPrefix)) return store;
  int n = 0;
  const std::string_view digits = f.substr(kStepFaultPrefix.size());
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || n <= 0) return store;
  *holder = std::make_unique<StepFaultStore>(store, n);
  return holder->get();
}

}  // namespace lakedump
