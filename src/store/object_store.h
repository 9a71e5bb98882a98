// The store seam: where dumps live (a local folder, S3, memory for tests).
//
// ObjectStore is thread-safe. Keys are '/'-separated and relative to the store's
// root (a directory, or bucket/prefix). ObjectWriter and ObjectReader are not
// thread-safe: one owner each.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/byte_sink.h"
#include "base/status.h"

namespace lakedump {

// How NewWriter() creates its object.
struct WriteOptions {
  // Close() fails with AlreadyExists, and leaves the existing object as it was,
  // when an object with the key exists (local: rename without replace; S3: a
  // PUT with If-None-Match: *, honoured only by stores that implement
  // conditional writes, see S3Store; memory: checked under the store's lock).
  // Meant for small objects (one part on S3).
  bool create_only = false;
  // Non-empty: Close() replaces the object only if it exists and its ETag is this one
  // (unquoted, lower case), and fails with AlreadyExists ("precondition failed"), leaving
  // the object as it was, otherwise. S3: a PUT with If-Match (honoured only by stores that
  // implement conditional writes); local: compared and renamed under an exclusive lock on
  // the directory, the ETag being Md5Etag(the file's bytes); memory: checked under the
  // store's lock. Not together with create_only.
  std::string if_match;
};

struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  // The object's ETag as List() and Head() give it, unquoted and lower case; "" where the
  // store gives none (local folders). S3, and MemoryStore which mimics it: an object written
  // in one PUT (without SSE-KMS or SSE-C) has Md5Etag(its bytes); any other tag (multipart
  // "<hex>-N", an encrypted object's) says nothing about the bytes.
  std::string etag;
};

// The ETag of an object written in one PUT: the MD5 of `bytes`, 32 lower-case hex digits.
std::string Md5Etag(std::string_view bytes);

// Writes one object; Append() comes from ByteSink. Nothing is visible under the
// key until Close() returns OK. Destroying the writer without a successful
// Close() aborts it (S3: AbortMultipartUpload; local: unlink the temp file;
// memory: drop the bytes), whatever the backend.
//
// The seam owns that rule. A backend implements DoClose() and Abort(), and its
// store creates it with MakeObjectWriter<Backend>(...), whose final class
// AbortOnDestroy<Backend> calls Abort() from its destructor unless Close() has
// succeeded (a base destructor cannot call a virtual: the backend is already
// gone). A backend class stays abstract until wrapped so (AbortsOnDestroy() is
// implemented there only), so a new backend cannot forget the abort.
class ObjectWriter : public ByteSink {
 public:
  // Makes the object visible (the backend's DoClose()). Once it has succeeded,
  // OK again without doing anything.
  Status Close();

 protected:
  // True once Close() has succeeded.
  bool closed() const { return closed_; }
  // The backend's close; called by Close() until it succeeds.
  virtual Status DoClose() = 0;
  // Removes what the unfinished write left (a temp file, a multipart upload).
  // Called at most once, while the writer is destroyed without a successful
  // Close(), with the backend still whole. Must do nothing where nothing is left
  // (a failed Close() may have cleaned up already).
  virtual void Abort() = 0;

 private:
  template <typename W>
  friend class AbortOnDestroy;
  // Only AbortOnDestroy can name it, so only it can implement AbortsOnDestroy().
  class DestroyKey {
    DestroyKey() = default;
    template <typename W>
    friend class AbortOnDestroy;
  };
  virtual void AbortsOnDestroy(DestroyKey) = 0;
  void AbortIfUnclosed() {
    if (!closed_) Abort();
  }

  bool closed_ = false;
};

// A backend writer W that aborts when destroyed unclosed; see ObjectWriter.
template <typename W>
class AbortOnDestroy final : public W {
 public:
  using W::W;
  ~AbortOnDestroy() override { this->AbortIfUnclosed(); }

 private:
  void AbortsOnDestroy(ObjectWriter::DestroyKey) override {}
};

// How a store creates a writer of backend W (an ObjectWriter subclass).
template <typename W, typename... Args>
std::unique_ptr<ObjectWriter> MakeObjectWriter(Args&&... args) {
  return std::make_unique<AbortOnDestroy<W>>(std::forward<Args>(args)...);
}

// Reads one object by ranges.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  virtual uint64_t size() const = 0;
  // Replaces *out with bytes [offset, offset+length). Reading past the end is
  // an error (Corruption when the caller trusted a recorded size).
  virtual Status ReadAt(uint64_t offset, uint64_t length, std::string* out) = 0;
};

// Counters of a store's requests, for the summary (zeros for local stores).
struct StoreStats {
  uint64_t retries = 0;    // requests sent again after a retryable failure
  uint64_t throttles = 0;  // SlowDown / 429 / 503 answers that slowed the whole store
  // Multipart uploads whose abort failed (a dropped writer or a failed Close): they
  // stay on the server, invisible, until `lakedump gc` removes them.
  uint64_t unaborted_uploads = 0;
  uint64_t requests = 0;  // requests sent (S3), retries included
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  virtual Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                          WriteOptions options = {}) = 0;
  // NotFound when the object does not exist.
  virtual Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) = 0;
  // Every object whose key starts with `prefix`, recursively, sorted by key.
  virtual Result<std::vector<ObjectInfo>> List(std::string_view prefix) = 0;
  // NotFound when the object does not exist.
  virtual Result<ObjectInfo> Head(std::string_view key) = 0;
  // Deletes the keys; keys that do not exist are not an error.
  virtual Status Delete(std::span<const std::string> keys) = 0;
  // The store's location for messages and metadata, never with credentials.
  virtual std::string Describe() const = 0;
  // Thread-safe; cumulative since the store was opened.
  virtual StoreStats Stats() const { return {}; }
  // Makes every object whose writer has closed so far durable. A store whose
  // Close() is already durable (S3, memory, a local store without deferred
  // sync) has nothing to do. Call it before writing a commit point.
  virtual Status SyncWritten() { return Status::OK(); }
  // True when WriteOptions::create_only and if_match are enforced by the store itself
  // (local, memory). False for S3: an endpoint may accept If-None-Match and If-Match and
  // ignore them, so a conditional write that succeeded may have replaced an object
  // (lake/fenced_commit.h probes an endpoint for that).
  virtual bool create_only_is_atomic() const { return true; }

  // A whole object read at once: its size, and its bytes unless the size is over the
  // caller's max_bytes (then `bytes` holds at most max_bytes + 1 of them, or none).
  struct WholeObject {
    uint64_t size = 0;
    std::string bytes;
  };
  // The primitive behind GetObject. The default opens a reader (its size, then the bytes);
  // a store that can do better overrides it (S3: one ranged GET instead of HEAD + GET, a
  // round trip saved on every metadata read). Callers use GetObject.
  virtual Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes);

  // Conveniences built on the primitives above.
  Status PutObject(std::string_view key, std::string_view data, WriteOptions options = {});
  Result<std::string> GetObject(std::string_view key);
  // Like GetObject, but refuses (Corruption, naming the key and both sizes) an object larger
  // than max_bytes without reading more than max_bytes + 1 of its bytes: for metadata that a
  // hostile dump could inflate.
  Result<std::string> GetObject(std::string_view key, uint64_t max_bytes);
};

}  // namespace lakedump
