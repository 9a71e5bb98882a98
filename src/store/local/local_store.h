// LocalStore: an ObjectStore in a local directory. Key "a/b.parquet" is the file
// <root>/a/b.parquet.
//
// Writers stream into a hidden temp file next to the final one
// (".<name>.tmp-<random>"), buffered (1 MiB) and written with write(2). Close()
// flushes, fsyncs the file, renames it over the final name and fsyncs the
// directory, so an object is either absent or complete, even after a crash. A
// writer destroyed without a successful Close() unlinks its temp file. List()
// never shows temp files.
//
// Thread-safe: any number of writers and readers at once. Writers and readers
// are not thread-safe (one owner each) and may outlive the store but not the
// LocalFileOps they were given.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/local/local_file_ops.h"
#include "store/object_store.h"

namespace lakedump {

class LocalStore final : public ObjectStore {
 public:
  static constexpr size_t kWriteBufferSize = 1 << 20;

  // `root` need not exist: the first writer creates it. Fails when it exists and
  // is not a directory ("destination is a file: <root>"). `ops` is borrowed and
  // must outlive the store and its writers; null means the real system calls.
  static Result<std::unique_ptr<LocalStore>> Open(std::string root,
                                                  LocalFileOps* ops = nullptr);

  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key) override;
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Status Delete(std::span<const std::string> keys) override;
  std::string Describe() const override { return root_.empty() ? "/" : root_; }


  // True for the names LocalStore gives its temp files.
  static bool IsTempFileName(std::string_view file_name);

  // gc: removes the temp files below the root last modified more than
  // older_than ago: what a killed writer (SIGKILL, power loss) left behind. Their
  // paths go to *removed when it is not null. A root that does not exist has none.
  Status SweepStaleTempFiles(std::chrono::seconds older_than,
                             std::vector<std::string>* removed = nullptr);

 private:
  LocalStore(std::string root, LocalFileOps* ops) : root_(std::move(root)), ops_(ops) {}

  std::string PathOf(std::string_view key) const { return root_ + "/" + std::string(key); }
  // mkdir -p of root_/<relative_dir>; relative_dir may be empty.
  Status MakeDirs(std::string_view relative_dir) const;

  const std::string root_;  // no trailing '/'; "" for the filesystem root
  LocalFileOps* const ops_;
};

}  // namespace lakedump
