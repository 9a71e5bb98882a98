#include "format/parquet/thrift_compact.h"

namespace lakedump {

void ThriftWriter::FieldHeader(int16_t id, ThriftType type) {
  int16_t& last = last_id_.back();
  const int delta = id - last;
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    out_->push_back(static_cast<char>(type));
    Varint(ZigZag(id));
  }
  last = id;
}

void ThriftWriter::ListHeader(ThriftType elem, uint32_t size) {
  if (size < 15) {
    out_->push_back(static_cast<char>((size << 4) | static_cast<uint32_t>(elem)));
  } else {
    out_->push_back(static_cast<char>(0xf0 | static_cast<int>(elem)));
    Varint(size);
  }
}

Status ThriftReader::ReadVarint(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    uint8_t b;
    LD_RETURN_IF_ERROR(ReadByte(&b));
    if (shift == 63 && (b & 0x7e) != 0) return Status::Corruption("thrift: varint overflow");
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return Status::OK();
    }
  }
  return Status::Corruption("thrift: varint too long");
}

Status ThriftReader::ReadFieldHeader(int16_t* id, ThriftType* type) {
  uint8_t b = 0;
  LD_RETURN_IF_ERROR(ReadByte(&b));
  const uint8_t t = b & 0x0f;
  if (t == 0) {
    if (b != 0) return Status::Corruption("thrift: bad stop byte");
    *type = ThriftType::kStop;
    *id = 0;
    return Status::OK();
  }
  if (t > static_cast<uint8_t>(ThriftType::kStruct)) {
    return Status::Corruption("thrift: unknown field type");
  }
  *type = static_cast<ThriftType>(t);
  int16_t& last = last_id_[depth_];
  const int delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last + delta);
  } else {
    int16_t v;
    LD_RETURN_IF_ERROR(ReadI16(&v));
    *id = v;
  }
  last = *id;
  return Status::OK();
}

Status ThriftReader::ReadListHeader(ThriftType* elem, uint32_t* size) {
  uint8_t b = 0;
  LD_RETURN_IF_ERROR(ReadByte(&b));
  const uint8_t t = b & 0x0f;
  if (t == 0 || t > static_cast<uint8_t>(ThriftType::kStruct)) {
    return Status::Corruption("thrift: bad list element type");
  }
  *elem = static_cast<ThriftType>(t);
  uint64_t n = b >> 4;
  if (n == 15) LD_RETURN_IF_ERROR(ReadVarint(&n));
  // Every element takes at least one byte, so a longer list cannot be real.
  if (n > kMaxListSize || n > in_.size() - pos_) {
    return Status::Corruption("thrift: list longer than the input");
  }
  *size = static_cast<uint32_t>(n);
  return Status::OK();
}

Status ThriftReader::ReadBool(ThriftType field_type, bool* v) {
  if (field_type == ThriftType::kTrue) {
    *v = true;
  } else if (field_type == ThriftType::kFalse) {
    *v = false;
  } else {
    return Status::Corruption("thrift: expected a bool");
  }
  return Status::OK();
}

Status ThriftReader::ReadI8(int8_t* v) {
  uint8_t b = 0;
  LD_RETURN_IF_ERROR(ReadByte(&b));
  *v = static_cast<int8_t>(b);
  return Status::OK();
}

Status ThriftReader::ReadI16(int16_t* v) {
  int64_t x = 0;
  LD_RETURN_IF_ERROR(ReadI64(&x));
  if (x < INT16_MIN || x > INT16_MAX) return Status::Corruption("thrift: i16 out of range");
  *v = static_cast<int16_t>(x);
  return Status::OK();
}

Status ThriftReader::ReadI32(int32_t* v) {
  int64_t x = 0;
  LD_RETURN_IF_ERROR(ReadI64(&x));
  if (x < INT32_MIN || x > INT32_MAX) return Status::Corruption("thrift: i32 out of range");
  *v = static_cast<int32_t>(x);
  return Status::OK();
}

Status ThriftReader::ReadI64(int64_t* v) {
  uint64_t u;
  LD_RETURN_IF_ERROR(ReadVarint(&u));
  *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  return Status::OK();
}

Status ThriftReader::ReadBinary(std::string* v) {
  uint64_t n;
  LD_RETURN_IF_ERROR(ReadVarint(&n));
  if (n > in_.size() - pos_) return Truncated();
  v->assign(in_.data() + pos_, n);
  pos_ += n;
  return Status::OK();
}

Status ThriftReader::Skip(ThriftType type) {
  switch (type) {
    case ThriftType::kTrue:
    case ThriftType::kFalse:
      // Inside a container a bool is a byte; as a field it has no payload.
      if (skip_depth_ > 0) {
        uint8_t b;
        return ReadByte(&b);
      }
      return Status::OK();
    case ThriftType::kByte: {
      uint8_t b;
      return ReadByte(&b);
    }
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case ThriftType::kDouble:
      if (in_.size() - pos_ < 8) return Truncated();
      pos_ += 8;
      return Status::OK();
    case ThriftType::kBinary: {
      uint64_t n;
      LD_RETURN_IF_ERROR(ReadVarint(&n));
      if (n > in_.size() - pos_) return Truncated();
      pos_ += n;
      return Status::OK();
    }
    case ThriftType::kList:
    case ThriftType::kSet: return SkipList();
    case ThriftType::kMap: return SkipMap();
    case ThriftType::kStruct: return SkipStruct();
    case ThriftType::kStop:
      break;
  }
  return Status::Corruption("thrift: cannot skip unknown type");
}

Status ThriftReader::SkipList() {
  ThriftType elem;
  uint32_t n;
  LD_RETURN_IF_ERROR(ReadListHeader(&elem, &n));
  if (depth_ + skip_depth_ >= kMaxDepth) return Status::Corruption("thrift: nested too deeply");
  ++skip_depth_;
  for (uint32_t i = 0; i < n; ++i) {
    Status s = Skip(elem);
    if (!s.ok()) {
      --skip_depth_;
      return s;
    }
  }
  --skip_depth_;
  return Status::OK();
}

Status ThriftReader::SkipMap() {
  uint64_t n;
  LD_RETURN_IF_ERROR(ReadVarint(&n));
  if (n == 0) return Status::OK();
  uint8_t kv = 0;
  LD_RETURN_IF_ERROR(ReadByte(&kv));
  const uint8_t kt = kv >> 4, vt = kv & 0x0f;
  if (kt == 0 || kt > 12 || vt == 0 || vt > 12 || n > in_.size() - pos_) {
    return Status::Corruption("thrift: bad map header");
  }
  if (depth_ + skip_depth_ >= kMaxDepth) return Status::Corruption("thrift: nested too deeply");
  ++skip_depth_;
  for (uint64_t i = 0; i < n; ++i) {
    Status s = Skip(static_cast<ThriftType>(kt));
    if (s.ok()) s = Skip(static_cast<ThriftType>(vt));
    if (!s.ok()) {
      --skip_depth_;
      return s;
    }
  }
  --skip_depth_;
  return Status::OK();
}

Status ThriftReader::SkipStruct() {
  LD_RETURN_IF_ERROR(BeginStruct());
  const int saved = skip_depth_;
  skip_depth_ = 0;  // fields of a struct carry bools in their headers
  while (true) {
    int16_t id;
    ThriftType t;
    Status s = ReadFieldHeader(&id, &t);
    if (s.ok() && t == ThriftType::kStop) break;
    if (s.ok()) s = Skip(t);
    if (!s.ok()) {
      skip_depth_ = saved;
      EndStruct();
      return s;
    }
  }
  skip_depth_ = saved;
  EndStruct();
  return Status::OK();
}

}  // namespace lakedump
