// Encoding strategy per chunk (one pass to build the dictionary, one to write pages):
// - The dictionary is tried on every non-boolean column. It is abandoned when
//   the first kProbeValues values are mostly distinct, or when it would not be
//   smaller than PLAIN. When it outgrows dictionary_limit_bytes the rows from
//   there on are written as PLAIN pages after the dictionary-encoded ones.
// - Min/max of dictionary-encoded rows come from the dictionary entries (each
//   distinct value compared once), of PLAIN rows from the values.
#include "format/parquet/column_chunk.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "format/parquet/dictionary.h"
#include "format/parquet/rle.h"
#include "format/parquet/statistics.h"

namespace lakedump::parquet {
namespace {

constexpr size_t kProbeValues = 16384;

// ------------------------------------------------------------ value traits

template <typename N>
struct NumberTraits {
  using V = N;
  static constexpr bool kFloat = std::is_floating_point_v<N>;
  static V Get(const ColumnBuffer& b, const ColumnSpec&, size_t i) {
    V v;
    std::memcpy(&v, b.data.data() + i * sizeof(V), sizeof(V));
    return v;
  }
  static size_t PlainSize(const V&) { return sizeof(V); }
  static void AppendPlain(const V& v, std::string* out) {
    out->append(reinterpret_cast<const char*>(&v), sizeof(V));
  }
  // Plain-encodes the non-null values of rows [begin, end).
  static void AppendPlainRange(const ColumnBuffer& b, const ColumnSpec&, size_t begin, size_t end,
                               std::string* out) {
    const char* src = reinterpret_cast<const char*>(b.data.data());
    if (b.validity.empty()) {
      out->append(src + begin * sizeof(V), (end - begin) * sizeof(V));
      return;
    }
    const size_t at = out->size();
    out->resize(at + (end - begin) * sizeof(V));
    char* dst = out->data() + at;
    size_t k = 0;
    const uint8_t* valid = b.validity.data();
    for (size_t i = begin; i < end; ++i) {  // branch-free compaction
      std::memcpy(dst + k * sizeof(V), src + i * sizeof(V), sizeof(V));
      k += valid[i];
    }
    out->resize(at + k * sizeof(V));
  }
  static bool Less(const ColumnSpec&, const V& a, const V& b) { return a < b; }
  static std::string StatBytes(const V& v) {
    return std::string(reinterpret_cast<const char*>(&v), sizeof(V));
  }
};

struct ByteArrayTraits {
  using V = std::string_view;
  static constexpr bool kFloat = false;
  static V Get(const ColumnBuffer& b, const ColumnSpec&, size_t i) {
    return V(reinterpret_cast<const char*>(b.arena.data()) + b.offsets[i],
             b.offsets[i + 1] - b.offsets[i]);
  }
  static size_t PlainSize(const V& v) { return v.size() + 4; }
  static void AppendPlain(const V& v, std::string* out) {
    const uint32_t n = static_cast<uint32_t>(v.size());
    out->append(reinterpret_cast<const char*>(&n), 4);
    out->append(v);
  }
  static void AppendPlainRange(const ColumnBuffer& b, const ColumnSpec& spec, size_t begin,
                               size_t end, std::string* out) {
    out->reserve(out->size() + (b.offsets[end] - b.offsets[begin]) + 4 * (end - begin));
    const uint8_t* valid = b.validity.empty() ? nullptr : b.validity.data();
    for (size_t i = begin; i < end; ++i) {
      if (valid == nullptr || valid[i]) AppendPlain(Get(b, spec, i), out);
    }
  }
  static bool Less(const ColumnSpec&, const V& a, const V& b) {
    return a < b;  // std::string_view compares bytes as unsigned char
  }
  static std::string StatBytes(const V& v) { return std::string(v); }
};

struct FixedBytesTraits {
  using V = std::string_view;
  static constexpr bool kFloat = false;
  static V Get(const ColumnBuffer& b, const ColumnSpec& spec, size_t i) {
    const size_t w = static_cast<size_t>(spec.type_length);
    return V(reinterpret_cast<const char*>(b.data.data()) + i * w, w);
  }
  static size_t PlainSize(const V& v) { return v.size(); }
  static void AppendPlain(const V& v, std::string* out) { out->append(v); }
  static void AppendPlainRange(const ColumnBuffer& b, const ColumnSpec& spec, size_t begin,
                               size_t end, std::string* out) {
    const size_t w = static_cast<size_t>(spec.type_length);
    const char* src = reinterpret_cast<const char*>(b.data.data());
    if (b.validity.empty()) {
      out->append(src + begin * w, (end - begin) * w);
      return;
    }
    for (size_t i = begin; i < end; ++i) {
      if (b.validity[i]) out->append(src + i * w, w);
    }
  }
  static bool Less(const ColumnSpec& spec, const V& a, const V& b) {
    if (spec.signed_flba) {  // two's complement big-endian: flip the sign bit of byte 0
      const uint8_t a0 = static_cast<uint8_t>(a[0]) ^ 0x80, b0 = static_cast<uint8_t>(b[0]) ^ 0x80;
      if (a0 != b0) return a0 < b0;
      return a.substr(1) < b.substr(1);
    }
    return a < b;
  }
  static std::string StatBytes(const V& v) { return std::string(v); }
};

bool IsNaN(float v) { return std::isnan(v); }
bool IsNaN(double v) { return std::isnan(v); }
template <typename V>
bool IsNaN(const V&) {
  return false;
}

}  // namespace

struct ChunkEncoder::State {
  std::string page;
  // Compression output, grown (and zero-filled) only when a page needs more:
  // compressing straight into it avoids re-growing a string for every page.
  std::vector<char> compressed;
  std::string header;
  std::vector<uint32_t> indices;
  Dictionary<int32_t> dict_i32;
  Dictionary<int64_t> dict_i64;
  Dictionary<float> dict_f32;
  Dictionary<double> dict_f64;
  Dictionary<std::string_view> dict_bytes;

  template <typename V>
  Dictionary<V>& Dict() {
    if constexpr (std::is_same_v<V, int32_t>) return dict_i32;
    else if constexpr (std::is_same_v<V, int64_t>) return dict_i64;
    else if constexpr (std::is_same_v<V, float>) return dict_f32;
    else if constexpr (std::is_same_v<V, double>) return dict_f64;
    else return dict_bytes;
  }

  // Appends header + (compressed) page body to the chunk and accounts sizes.
  Status EmitPage(PageHeader h, const lakedump::Codec* codec, EncodedChunk* out) {
    if (page.size() > INT32_MAX) return Status::InvalidArgument("a Parquet page exceeds 2 GiB");
    std::string_view body = page;
    if (codec != nullptr) {
      const size_t bound = codec->MaxCompressedLength(page.size());
      if (compressed.size() < bound) compressed.resize(bound);
      LD_ASSIGN_OR_RETURN(const size_t n,
                          codec->CompressInto(page, compressed.data(), compressed.size()));
      body = std::string_view(compressed.data(), n);
    }
    h.uncompressed_page_size = static_cast<int32_t>(page.size());
    h.compressed_page_size = static_cast<int32_t>(body.size());
    header.clear();
    EncodePageHeader(h, &header);
    out->bytes.reserve(out->bytes.size() + header.size() + body.size());
    out->bytes.append(header);
    out->bytes.append(body);
    out->meta.total_uncompressed_size += static_cast<int64_t>(header.size() + page.size());
    out->meta.total_compressed_size += static_cast<int64_t>(header.size() + body.size());
    return Status::OK();
  }

  // Definition levels of rows [begin, end) as RLE with a 4-byte length prefix.
  void AppendDefLevels(const ColumnBuffer& b, size_t begin, size_t end) {
    const size_t at = page.size();
    page.append(4, '\0');
    if (b.validity.empty()) {
      PutVarint(static_cast<uint64_t>(end - begin) << 1, &page);
      page.push_back(1);
    } else {
      RleEncode(b.validity.data() + begin, end - begin, 1, &page);
    }
    const uint32_t len = static_cast<uint32_t>(page.size() - at - 4);
    std::memcpy(page.data() + at, &len, 4);
  }

  // Levels of slots [begin, end) as a data page v1 holds them: repetition levels, then
  // definition levels, each RLE with a 4-byte length prefix (none for a required column).
  void AppendLevels(const ColumnSpec& spec, const ColumnBuffer& b, size_t begin, size_t end) {
    if (spec.max_rep == 0) {
      if (spec.nullable) AppendDefLevels(b, begin, end);
      return;
    }
    for (const std::vector<uint8_t>* levels : {&b.rep_levels, &b.def_levels}) {
      const int bw = BitWidth(levels == &b.rep_levels ? spec.max_rep : spec.max_def);
      const size_t at = page.size();
      page.append(4, '\0');
      RleEncode(levels->data() + begin, end - begin, bw, &page);
      const uint32_t len = static_cast<uint32_t>(page.size() - at - 4);
      std::memcpy(page.data() + at, &len, 4);
    }
  }
};

namespace {

PageHeader DataPage(size_t rows, Encoding encoding) {
  PageHeader h;
  h.type = PageType::kDataPage;
  DataPageHeader& d = h.data_page_header.emplace();
  d.num_values = static_cast<int32_t>(rows);
  d.encoding = encoding;
  return h;
}

// Repeated columns: the first slot at or after `at` that starts a row (pages and the switch
// from dictionary to PLAIN fall on row boundaries, so no row spans two pages).
size_t RowStartAtOrAfter(const ColumnSpec& spec, const ColumnBuffer& b, size_t at) {
  if (spec.max_rep == 0) return at;
  while (at < b.rows && b.rep_levels[at] != 0) ++at;
  return at;
}
size_t RowStartAtOrBefore(const ColumnSpec& spec, const ColumnBuffer& b, size_t at) {
  if (spec.max_rep == 0) return at;
  while (at > 0 && at < b.rows && b.rep_levels[at] != 0) --at;
  return at;
}

size_t CountValid(const ColumnBuffer& b, size_t begin, size_t end) {
  if (b.validity.empty()) return end - begin;
  size_t n = 0;
  for (size_t i = begin; i < end; ++i) n += b.validity[i];
  return n;
}

// The steps of EncodeTyped, each called once per column chunk (the loops over values are
// inside them).

// 1. Dictionary over a prefix of the rows (possibly all, possibly none): fills the
// state's dictionary and st.indices; returns the number of rows it covers.
template <typename Traits>
size_t BuildDictionary(ChunkEncoder::State& st, const ColumnSpec& spec, const ColumnBuffer& b,
                       const EncodeOptions& o) {
  using V = typename Traits::V;
  const size_t rows = b.rows;
  const uint8_t* valid = b.validity.empty() ? nullptr : b.validity.data();
  const size_t non_null = rows - b.null_count;
  Dictionary<V>& dict = st.Dict<V>();
  dict.Clear();
  st.indices.clear();
  if (!o.dictionary || !spec.dictionary || non_null == 0) return 0;
  uint64_t dict_bytes = 0;
  bool abandoned = false;
  size_t i = 0;
  st.indices.reserve(non_null);
  for (; i < rows; ++i) {
    if (valid != nullptr && !valid[i]) continue;
    const V v = Traits::Get(b, spec, i);
    bool inserted;
    const uint32_t k = dict.Insert(v, &inserted);
    if (inserted) {
      dict_bytes += Traits::PlainSize(v);
      if (dict_bytes > o.dictionary_limit_bytes) break;
    }
    st.indices.push_back(k);
    if (st.indices.size() == kProbeValues && dict.size() * 10 > kProbeValues * 7) {
      abandoned = true;
      break;
    }
  }
  const size_t dict_rows = RowStartAtOrBefore(spec, b, i);
  if (abandoned || st.indices.empty()) return 0;
  if (dict_rows == rows) {
    // Worth it? Compare with PLAIN (index bits per value + the dictionary itself).
    uint64_t plain = 0;
    if constexpr (std::is_same_v<Traits, ByteArrayTraits>) {
      plain = (b.arena.size()) + 4 * non_null;
    } else {
      plain = static_cast<uint64_t>(non_null) * Traits::PlainSize(Traits::Get(b, spec, 0));
    }
    const int bw = std::max(1, BitWidth(dict.size() - 1));
    const uint64_t encoded = dict_bytes + (static_cast<uint64_t>(non_null) * bw + 7) / 8;
    if (encoded >= plain) return 0;
  }
  return dict_rows;
}

// 2. The chunk's minimum and maximum value (NaNs left out).
template <typename Traits>
struct MinMax {
  std::optional<typename Traits::V> min, max;
};

template <typename Traits>
MinMax<Traits> ChunkMinMax(ChunkEncoder::State& st, const ColumnSpec& spec,
                           const ColumnBuffer& b, size_t dict_rows) {
  using V = typename Traits::V;
  const uint8_t* valid = b.validity.empty() ? nullptr : b.validity.data();
  MinMax<Traits> m;
  auto observe = [&](const V& v) {
    if (IsNaN(v)) return;
    if (!m.min || Traits::Less(spec, v, *m.min)) m.min = v;
    if (!m.max || Traits::Less(spec, *m.max, v)) m.max = v;
  };
  if (dict_rows > 0) {
    for (const V& v : st.Dict<V>().values()) observe(v);
  }
  for (size_t i = dict_rows; i < b.rows; ++i) {
    if (valid == nullptr || valid[i]) observe(Traits::Get(b, spec, i));
  }
  return m;
}

// 3. Pages: the dictionary page (if any rows use it), then the data pages.
template <typename Traits>
Status EmitPages(ChunkEncoder::State& st, const ColumnSpec& spec, const ColumnBuffer& b,
                 const EncodeOptions& o, const lakedump::Codec* codec, size_t dict_rows,
                 EncodedChunk* out) {
  using V = typename Traits::V;
  const size_t rows = b.rows;
  const Dictionary<V>& dict = st.Dict<V>();
  ColumnMetaData& meta = out->meta;
  size_t avg = 1;
  if constexpr (std::is_same_v<Traits, ByteArrayTraits>) {
    avg = rows == 0 ? 1 : (b.arena.size() + 4 * rows) / rows;
  } else if constexpr (std::is_same_v<Traits, FixedBytesTraits>) {
    avg = static_cast<size_t>(spec.type_length);
  } else {
    avg = sizeof(V);
  }
  const size_t rows_per_page = std::max<size_t>(1, o.page_bytes / std::max<size_t>(1, avg));

  if (dict_rows > 0) {
    meta.dictionary_page_offset = static_cast<int64_t>(out->bytes.size());
    st.page.clear();
    for (const V& v : dict.values()) Traits::AppendPlain(v, &st.page);
    PageHeader h;
    h.type = PageType::kDictionaryPage;
    DictionaryPageHeader& d = h.dictionary_page_header.emplace();
    d.num_values = static_cast<int32_t>(dict.size());
    d.encoding = Encoding::kPlain;
    LD_RETURN_IF_ERROR(st.EmitPage(std::move(h), codec, out));
  }
  meta.data_page_offset = static_cast<int64_t>(out->bytes.size());
  const int bit_width = std::max(1, BitWidth(dict.size() == 0 ? 0 : dict.size() - 1));
  size_t value_cursor = 0;
  size_t r = 0;
  while (r < rows) {
    size_t end = RowStartAtOrAfter(spec, b, std::min(rows, r + rows_per_page));
    if (r < dict_rows) end = std::min(end, dict_rows);
    st.page.clear();
    st.AppendLevels(spec, b, r, end);
    Encoding encoding;
    if (r < dict_rows) {
      const size_t nv = CountValid(b, r, end);
      st.page.push_back(static_cast<char>(bit_width));
      RleEncode(st.indices.data() + value_cursor, nv, bit_width, &st.page);
      value_cursor += nv;
      encoding = Encoding::kRleDictionary;
    } else {
      Traits::AppendPlainRange(b, spec, r, end, &st.page);
      encoding = Encoding::kPlain;
    }
    LD_RETURN_IF_ERROR(st.EmitPage(DataPage(end - r, encoding), codec, out));
    r = end;
  }
  return Status::OK();
}

// 4. The chunk's statistics.
template <typename Traits>
void SetStatistics(const ColumnSpec& spec, const ColumnBuffer& b, MinMax<Traits> m,
                   ColumnMetaData* meta) {
  using V = typename Traits::V;
  Statistics& s = meta->statistics.emplace();
  // A list leaf's slots without a value are null and empty lists as well as null elements:
  // no null count that readers would take for "null values" (min/max are the elements').
  if (spec.max_rep == 0) s.null_count = static_cast<int64_t>(b.null_count);
  if (!m.min || !m.max) return;
  if constexpr (Traits::kFloat) {
    if (*m.min == 0) *m.min = -static_cast<V>(0.0);
    if (*m.max == 0) *m.max = static_cast<V>(0.0);
  }
  if constexpr (std::is_same_v<Traits, ByteArrayTraits>) {
    bool min_exact = true, max_exact = true;
    s.min_value = TruncateMin(*m.min, kMaxStatBytes, spec.utf8, &min_exact);
    std::optional<std::string> mx = TruncateMax(*m.max, kMaxStatBytes, spec.utf8, &max_exact);
    s.is_min_value_exact = min_exact;
    if (mx) {
      s.max_value = std::move(*mx);
      s.is_max_value_exact = max_exact;
    }
  } else {
    s.min_value = Traits::StatBytes(*m.min);
    s.max_value = Traits::StatBytes(*m.max);
  }
}

template <typename Traits>
Status EncodeTyped(ChunkEncoder::State& st, const ColumnSpec& spec, const ColumnBuffer& b,
                   const EncodeOptions& o, const lakedump::Codec* codec, EncodedChunk* out) {
  const size_t dict_rows = BuildDictionary<Traits>(st, spec, b, o);
  MinMax<Traits> min_max = ChunkMinMax<Traits>(st, spec, b, dict_rows);
  LD_RETURN_IF_ERROR(EmitPages<Traits>(st, spec, b, o, codec, dict_rows, out));
  ColumnMetaData& meta = out->meta;
  meta.encodings.push_back(Encoding::kPlain);
  if (spec.nullable) meta.encodings.push_back(Encoding::kRle);
  if (dict_rows > 0) meta.encodings.push_back(Encoding::kRleDictionary);
  SetStatistics<Traits>(spec, b, std::move(min_max), &meta);
  return Status::OK();
}

Status EncodeBoolean(ChunkEncoder::State& st, const ColumnSpec& spec, const ColumnBuffer& b,
                     const EncodeOptions& o, const lakedump::Codec* codec, EncodedChunk* out) {
  const size_t rows = b.rows;
  const size_t rows_per_page = std::max<size_t>(8, o.page_bytes * 8);
  ColumnMetaData& meta = out->meta;
  meta.data_page_offset = static_cast<int64_t>(out->bytes.size());
  bool seen_false = false, seen_true = false;
  for (size_t r = 0; r < rows;) {
    const size_t end = RowStartAtOrAfter(spec, b, std::min(rows, r + rows_per_page));
    st.page.clear();
    st.AppendLevels(spec, b, r, end);
    uint8_t acc = 0;
    int bits = 0;
    for (size_t i = r; i < end; ++i) {
      if (!b.validity.empty() && !b.validity[i]) continue;
      const uint8_t v = b.data[i] != 0;
      seen_true |= v;
      seen_false |= !v;
      acc |= static_cast<uint8_t>(v << bits);
      if (++bits == 8) {
        st.page.push_back(static_cast<char>(acc));
        acc = 0;
        bits = 0;
      }
    }
    if (bits > 0) st.page.push_back(static_cast<char>(acc));
    LD_RETURN_IF_ERROR(st.EmitPage(DataPage(end - r, Encoding::kPlain), codec, out));
    r = end;
  }
  meta.encodings.push_back(Encoding::kPlain);
  if (spec.nullable) meta.encodings.push_back(Encoding::kRle);
  Statistics& s = meta.statistics.emplace();
  if (spec.max_rep == 0) s.null_count = static_cast<int64_t>(b.null_count);
  if (seen_false || seen_true) {
    s.min_value = std::string(1, seen_false ? '\0' : '\1');
    s.max_value = std::string(1, seen_true ? '\1' : '\0');
  }
  return Status::OK();
}

}  // namespace

ChunkEncoder::ChunkEncoder() : state_(std::make_unique<State>()) {}
ChunkEncoder::~ChunkEncoder() = default;

size_t ChunkEncoder::CapacityBytes() const {
  const State& st = *state_;
  return st.page.capacity() + st.compressed.capacity() + st.header.capacity() +
         st.indices.capacity() * 4 + st.dict_i32.CapacityBytes() + st.dict_i64.CapacityBytes() +
         st.dict_f32.CapacityBytes() + st.dict_f64.CapacityBytes() +
         st.dict_bytes.CapacityBytes();
}

void ColumnBuffer::Reserve(size_t more_rows, size_t value_width, bool variable,
                           size_t arena_bytes, bool nullable) {
  const size_t want = rows + more_rows;
  // Stays empty while there is no null.
  if (nullable && validity.capacity() < want) validity.reserve(want);
  if (variable) {
    if (offsets.capacity() < want + 1) offsets.reserve(want + 1);
    if (arena.capacity() < arena.size() + arena_bytes) arena.reserve(arena.size() + arena_bytes);
  } else if (data.capacity() < want * value_width) {
    data.reserve(want * value_width);
  }
}

Status ChunkEncoder::Encode(const ColumnSpec& spec, const ColumnBuffer& buffer,
                            const EncodeOptions& options, const lakedump::Codec* codec,
                            EncodedChunk* out) {
  out->bytes.clear();
  out->meta = ColumnMetaData();
  out->meta.type = spec.physical;
  out->meta.path_in_schema = {spec.name};
  if (spec.list) out->meta.path_in_schema = {spec.name, "list", "element"};
  out->meta.codec = options.codec;
  out->meta.num_values = static_cast<int64_t>(buffer.rows);
  State& st = *state_;
  switch (spec.physical) {
    case Type::kBoolean: return EncodeBoolean(st, spec, buffer, options, codec, out);
    case Type::kInt32: return EncodeTyped<NumberTraits<int32_t>>(st, spec, buffer, options, codec, out);
    case Type::kInt64: return EncodeTyped<NumberTraits<int64_t>>(st, spec, buffer, options, codec, out);
    case Type::kFloat: return EncodeTyped<NumberTraits<float>>(st, spec, buffer, options, codec, out);
    case Type::kDouble: return EncodeTyped<NumberTraits<double>>(st, spec, buffer, options, codec, out);
    case Type::kByteArray: return EncodeTyped<ByteArrayTraits>(st, spec, buffer, options, codec, out);
    case Type::kFixedLenByteArray:
      return EncodeTyped<FixedBytesTraits>(st, spec, buffer, options, codec, out);
    case Type::kInt96: break;
  }
  return Status::Internal(fmt::format("column \"{}\": unsupported physical type", spec.name));
}

}  // namespace lakedump::parquet
