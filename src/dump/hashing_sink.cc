#include "dump/hashing_sink.h"

#include "store/object_store.h"

namespace lakedump {

Result<std::string> HashObject(ObjectReader& reader, uint64_t size) {
  std::unique_ptr<XXH64_state_t, void (*)(XXH64_state_t*)> state(
      XXH64_createState(), [](XXH64_state_t* s) { XXH64_freeState(s); });
  XXH64_reset(state.get(), 0);
  constexpr uint64_t kChunk = 8 << 20;
  std::string buf;
  for (uint64_t off = 0; off < size; off += kChunk) {
    const uint64_t n = std::min(kChunk, size - off);
    LD_RETURN_IF_ERROR(reader.ReadAt(off, n, &buf));
    XXH64_update(state.get(), buf.data(), buf.size());
  }
  return fmt::format("{:016x}", XXH64_digest(state.get()));
}

}  // namespace lakedump
