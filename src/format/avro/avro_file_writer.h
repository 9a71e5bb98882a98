// AvroFileWriter: an Avro object container file (Avro 1.11 specification,
// "Object Container Files") written to a ByteSink: the header (magic "Obj\x01",
// the file metadata map with avro.schema, avro.codec and the caller's keys, a
// 16-byte sync marker), then blocks of records (count, byte size, the records'
// bytes, optionally deflated, the sync marker).
//
// Records are appended already encoded (avro_encoding.h); the writer does not
// check them against the schema. The schema JSON is written exactly as given,
// so attributes such as Iceberg's "field-id" survive (Debian's avro-c drops them).
// Ownership: borrows the sink. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_sink.h"
#include "base/status.h"

namespace lakedump::avro {

enum class AvroCodec : uint8_t { kNull, kDeflate };

using SyncMarker = std::array<uint8_t, 16>;

// 16 bytes from the OS's random source (the spec asks for a random marker).
SyncMarker RandomSyncMarker();

struct AvroFileOptions {
  AvroCodec codec = AvroCodec::kNull;
  SyncMarker sync{};                 // use RandomSyncMarker() outside tests
  size_t block_bytes = 64 << 10;     // a block is flushed past this many record bytes
};

class AvroFileWriter {
 public:
  // `metadata`: extra header key-values, in order (keys must not start with "avro.").
  AvroFileWriter(std::string schema_json, std::vector<std::pair<std::string, std::string>> metadata,
                 AvroFileOptions options, ByteSink* sink);
  AvroFileWriter(const AvroFileWriter&) = delete;
  AvroFileWriter& operator=(const AvroFileWriter&) = delete;

  // Appends one record's encoded bytes. The header is written on the first call
  // (or by Close() for a file of no records).
  Status Append(std::string_view record);
  // Flushes the last block. The file is complete once it returns OK.
  Status Close();

 private:
  Status WriteHeaderOnce();
  Status FlushBlock();

  std::string schema_json_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  AvroFileOptions options_;
  ByteSink* sink_;
  bool header_written_ = false;
  std::string block_;
  int64_t block_records_ = 0;
  Status error_;
};

// Raw DEFLATE (RFC 1951, no zlib header), as Avro's "deflate" codec stores blocks.
Result<std::string> DeflateRaw(std::string_view data);

}  // namespace lakedump::avro
