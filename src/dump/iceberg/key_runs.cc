#include "dump/iceberg/key_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <queue>

namespace lakedump {

// IndexKeyOrder::Load reads a key's little-endian bytes as they are.
static_assert(std::endian::native == std::endian::little);

namespace {

size_t IntegerWidth(const std::vector<LogicalType>& types) {
  if (types.size() != 1) return 0;
  switch (types[0].id) {
    case TypeId::kInt8: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32: return 4;
    case TypeId::kInt64: return 8;
    default: return 0;
  }
}

// A run's bytes in a spill file: key length, key, file, pos, rows.
void AppendRunRecord(const KeyRun& run, std::string* out) {
  const uint32_t n = static_cast<uint32_t>(run.key.size());
  out->append(reinterpret_cast<const char*>(&n), sizeof n);
  out->append(run.key);
  out->append(reinterpret_cast<const char*>(&run.file), sizeof run.file);
  out->append(reinterpret_cast<const char*>(&run.pos), sizeof run.pos);
  out->append(reinterpret_cast<const char*>(&run.rows), sizeof run.rows);
}

Result<bool> ReadRunRecord(SpillFile& f, KeyRun* run) {
  uint32_t n = 0;
  LD_ASSIGN_OR_RETURN(bool more, f.Read(sizeof n, reinterpret_cast<char*>(&n)));
  if (!more) return false;
  run->key.resize(n);
  std::string rest(sizeof run->file + sizeof run->pos + sizeof run->rows, '\0');
  LD_ASSIGN_OR_RETURN(bool key, f.Read(n, run->key.data()));
  LD_ASSIGN_OR_RETURN(bool fields, f.Read(rest.size(), rest.data()));
  if (!key || !fields) {
    return Status::Corruption("a temporary file to sort in ends within a record");
  }
  std::memcpy(&run->file, rest.data(), sizeof run->file);
  std::memcpy(&run->pos, rest.data() + sizeof run->file, sizeof run->pos);
  std::memcpy(&run->rows, rest.data() + sizeof run->file + sizeof run->pos, sizeof run->rows);
  return true;
}

// Runs in key order out, the ones that continue each other joined; a key twice is Corruption.
class RunJoiner {
 public:
  RunJoiner(const IndexKeyOrder& order, const KeyRunVisitor& visit)
      : order_(order), visit_(visit) {}
  Status Push(const KeyRun& run) {
    if (!has_) {
      last_ = run;
      has_ = true;
      return Status::OK();
    }
    if (order_.Distance(last_.key, run.key) < last_.rows) {
      return Status::Corruption("the key index holds a key twice");
    }
    if (ExtendRun(order_, &last_, run)) return Status::OK();
    LD_RETURN_IF_ERROR(visit_(last_));
    last_ = run;
    return Status::OK();
  }
  Status Flush() { return has_ ? visit_(last_) : Status::OK(); }

 private:
  const IndexKeyOrder& order_;
  const KeyRunVisitor& visit_;
  KeyRun last_;
  bool has_ = false;
};

}  // namespace

IndexKeyOrder::IndexKeyOrder(const std::vector<LogicalType>& types)
    : width_(IntegerWidth(types)) {}

IndexKeyOrder::IndexKeyOrder(const Schema& schema, const std::vector<size_t>& columns) {
  std::vector<LogicalType> types;
  for (size_t c : columns) types.push_back(schema.column(c).type);
  width_ = IntegerWidth(types);
}

Status IndexKeyOrder::Check(std::string_view key) const {
  if (width_ == 0 ? key.empty() : key.size() != width_ + 1 || key[0] != '\1') {
    return Status::Corruption("a key index entry's key is not a key of its table");
  }
  return Status::OK();
}

int64_t IndexKeyOrder::Distance(std::string_view a, std::string_view b) const {
  if (width_ == 0) return a == b ? 0 : 1;
  const __int128 d = static_cast<__int128>(Value(b)) - Value(a);
  if (d > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (d < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

std::string IndexKeyOrder::Advance(std::string_view key, int64_t n) const {
  return KeyOf(static_cast<int64_t>(static_cast<uint64_t>(Value(key)) + static_cast<uint64_t>(n)));
}

std::string IndexKeyOrder::KeyOf(int64_t v) const {
  std::string out(1, '\1');
  out.append(reinterpret_cast<const char*>(&v), width_);  // little-endian, as EncodeIndexKey
  return out;
}

bool IndexKeyOrder::RunFits(std::string_view key, int64_t rows) const {
  if (rows < 1) return false;
  if (width_ == 0) return rows == 1;
  const __int128 max = (static_cast<__int128>(1) << (8 * width_ - 1)) - 1;
  return static_cast<__int128>(Value(key)) + rows - 1 <= max;
}

bool ExtendRun(const IndexKeyOrder& order, KeyRun* last, const KeyRun& next) {
  if (!order.integer() || next.file != last->file || next.pos != last->pos + last->rows ||
      order.Distance(last->key, next.key) != last->rows) {
    return false;
  }
  last->rows += next.rows;
  return true;
}

KeyRunSorter::KeyRunSorter(const IndexKeyOrder& order, size_t memory_bytes)
    : order_(order), memory_bytes_(memory_bytes) {}

KeyRunSorter::~KeyRunSorter() = default;

Status KeyRunSorter::Add(const KeyRun& run) {
  if (!runs_.empty() && ExtendRun(order_, &runs_.back(), run)) return Status::OK();
  if (runs_.empty()) runs_.reserve(memory_bytes_ / sizeof(KeyRun) + 1);
  runs_.push_back(run);
  held_bytes_ += sizeof(KeyRun) + (run.key.size() > 15 ? run.key.size() : 0);
  if (held_bytes_ < memory_bytes_) return Status::OK();
  return Spill();
}

Status KeyRunSorter::Spill() {
  std::sort(runs_.begin(), runs_.end(), [this](const KeyRun& a, const KeyRun& b) {
    return order_.Compare(a.key, b.key) < 0;
  });
  LD_ASSIGN_OR_RETURN(std::unique_ptr<SpillFile> f, SpillFile::Create());
  std::string buffer;
  const KeyRunVisitor write = [&](const KeyRun& run) -> Status {
    AppendRunRecord(run, &buffer);
    if (buffer.size() < (1 << 20)) return Status::OK();
    LD_RETURN_IF_ERROR(f->Append(buffer));
    buffer.clear();
    return Status::OK();
  };
  RunJoiner joiner(order_, write);
  for (const KeyRun& run : runs_) LD_RETURN_IF_ERROR(joiner.Push(run));
  LD_RETURN_IF_ERROR(joiner.Flush());
  LD_RETURN_IF_ERROR(f->Append(buffer));
  LD_RETURN_IF_ERROR(f->Rewind());
  spills_.push_back(std::move(f));
  runs_.clear();
  runs_.shrink_to_fit();
  held_bytes_ = 0;
  return Status::OK();
}

Status KeyRunSorter::Finish(const KeyRunVisitor& visit) {
  if (!spills_.empty()) {
    if (!runs_.empty()) LD_RETURN_IF_ERROR(Spill());
    return MergeSpills(visit);
  }
  std::sort(runs_.begin(), runs_.end(), [this](const KeyRun& a, const KeyRun& b) {
    return order_.Compare(a.key, b.key) < 0;
  });
  RunJoiner joiner(order_, visit);
  for (const KeyRun& run : runs_) LD_RETURN_IF_ERROR(joiner.Push(run));
  runs_.clear();
  return joiner.Flush();
}

// The spilled chunks merged: each chunk's next run in `heads`, the smallest first.
Status KeyRunSorter::MergeSpills(const KeyRunVisitor& visit) {
  std::vector<KeyRun> heads(spills_.size());
  auto later = [&](size_t a, size_t b) { return order_.Compare(heads[a].key, heads[b].key) > 0; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> next(later);
  for (size_t i = 0; i < spills_.size(); ++i) {
    LD_ASSIGN_OR_RETURN(bool any, ReadRunRecord(*spills_[i], &heads[i]));
    if (any) next.push(i);
  }
  RunJoiner joiner(order_, visit);
  while (!next.empty()) {
    const size_t i = next.top();
    next.pop();
    LD_RETURN_IF_ERROR(joiner.Push(heads[i]));
    LD_ASSIGN_OR_RETURN(bool more, ReadRunRecord(*spills_[i], &heads[i]));
    if (more) next.push(i);
  }
  spills_.clear();
  return joiner.Flush();
}

}  // namespace lakedump
