#include "format/avro/avro_file_writer.h"

#include <zlib.h>

#include <random>

#include "format/avro/avro_encoding.h"

namespace lakedump::avro {

SyncMarker RandomSyncMarker() {
  std::random_device rd;
  SyncMarker m;
  for (size_t i = 0; i < m.size(); i += 4) {
    const uint32_t r = rd();
    for (size_t k = 0; k < 4; ++k) m[i + k] = static_cast<uint8_t>(r >> (8 * k));
  }
  return m;
}

Result<std::string> DeflateRaw(std::string_view data) {
  z_stream z{};
  // windowBits -15: raw deflate, as Avro's codec specifies (no zlib header or checksum).
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("zlib deflateInit2 failed");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const size_t n = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::Internal("zlib deflate did not finish");
  out.resize(n);
  return out;
}

AvroFileWriter::AvroFileWriter(std::string schema_json,
                               std::vector<std::pair<std::string, std::string>> metadata,
                               AvroFileOptions options, ByteSink* sink)
    : schema_json_(std::move(schema_json)),
      metadata_(std::move(metadata)),
      options_(options),
      sink_(sink) {}

Status AvroFileWriter::WriteHeaderOnce() {
  if (header_written_) return Status::OK();
  std::string h("Obj\x01", 4);
  AppendBlockStart(static_cast<int64_t>(metadata_.size() + 2), &h);
  AppendString("avro.schema", &h);
  AppendBytes(schema_json_, &h);
  AppendString("avro.codec", &h);
  AppendBytes(options_.codec == AvroCodec::kDeflate ? "deflate" : "null", &h);
  for (const auto& [k, v] : metadata_) {
    AppendString(k, &h);
    AppendBytes(v, &h);
  }
  AppendBlockEnd(&h);
  h.append(reinterpret_cast<const char*>(options_.sync.data()), options_.sync.size());
  header_written_ = true;
  return sink_->Append(h);
}

Status AvroFileWriter::FlushBlock() {
  if (block_records_ == 0) return Status::OK();
  std::string head;
  AppendLong(block_records_, &head);
  std::string body;
  if (options_.codec == AvroCodec::kDeflate) {
    LD_ASSIGN_OR_RETURN(body, DeflateRaw(block_));
  } else {
    body.swap(block_);
  }
  AppendLong(static_cast<int64_t>(body.size()), &head);
  head.append(body);
  head.append(reinterpret_cast<const char*>(options_.sync.data()), options_.sync.size());
  block_.clear();
  block_records_ = 0;
  return sink_->Append(head);
}

Status AvroFileWriter::Append(std::string_view record) {
  if (!error_.ok()) return error_;
  error_ = WriteHeaderOnce();
  if (!error_.ok()) return error_;
  block_.append(record);
  ++block_records_;
  if (block_.size() >= options_.block_bytes) error_ = FlushBlock();
  return error_;
}

Status AvroFileWriter::Close() {
  if (!error_.ok()) return error_;
  error_ = WriteHeaderOnce();
  if (error_.ok()) error_ = FlushBlock();
  return error_;
}

}  // namespace lakedump::avro
