#include "lake/metadata_io.h"

#include <algorithm>

#include "base/thread_pool.h"

namespace lakedump {

size_t MetadataIoWidth(int table_parallelism, size_t per_task, size_t at_least) {
  const size_t tasks = static_cast<size_t>(std::max(table_parallelism, 1));
  return std::clamp<size_t>(per_task * tasks, std::min(at_least, kMaxMetadataIoWidth),
                            kMaxMetadataIoWidth);
}

Status ForEachMetadataIo(size_t count, size_t width, const std::function<Status(size_t)>& io,
                         std::stop_token stop) {
  // No more threads than calls: a run of 3 tables needs 3, not 32.
  width = std::clamp<size_t>(width, 1, std::max<size_t>(count, 1));
  ThreadPool pool(width);
  TaskGroup calls(&pool, width, stop);
  for (size_t i = 0; i < count; ++i) {
    if (!calls.Spawn([&io, i](std::stop_token) { return io(i); })) break;
  }
  return calls.Wait();
}

}  // namespace lakedump
