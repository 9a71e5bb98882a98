#include "load/sqlite/sqlite_guard.h"

#include <fmt/format.h>

#include <cctype>

#include "source/sqlite/sqlite_connection.h"

namespace lakedump {
namespace {

bool EqualsNoCase(const char* a, std::string_view b) {
  if (a == nullptr) return false;
  std::string_view s(a);
  if (s.size() != b.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool IsSchemaTable(const char* name) {
  return EqualsNoCase(name, "sqlite_master") || EqualsNoCase(name, "sqlite_schema");
}

}  // namespace

Status ExecOneStatement(sqlite3* db, std::string_view sql, std::string_view context) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int rc =
      sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, &tail);
  SqliteStmt stmt(raw);
  if (rc != SQLITE_OK) return SqliteStatus(db, rc, context);
  if (raw == nullptr) return Status::InvalidArgument(fmt::format("{}: empty SQL", context));
  for (const char* p = tail; p != nullptr && p < sql.data() + sql.size(); ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p))) {
      return Status::InvalidArgument(fmt::format(
          "{}: the statement is followed by more SQL; refused (one statement at a time)",
          context));
    }
  }
  int step;
  while ((step = sqlite3_step(raw)) == SQLITE_ROW) {
  }
  return step == SQLITE_DONE ? Status::OK() : SqliteStatus(db, step, context);
}

SchemaAuthorizer::SchemaAuthorizer(sqlite3* db, std::string table)
    : db_(db), table_(std::move(table)) {
  sqlite3_set_authorizer(db_, &SchemaAuthorizer::Callback, this);
}

SchemaAuthorizer::~SchemaAuthorizer() { sqlite3_set_authorizer(db_, nullptr, nullptr); }

int SchemaAuthorizer::Callback(void* self_ptr, int action, const char* a1, const char* a2,
                               const char* db, const char* /*trigger*/) {
  auto* self = static_cast<SchemaAuthorizer*>(self_ptr);
  const bool main_db = db == nullptr || EqualsNoCase(db, "main");
  bool allow = false;
  switch (action) {
    case SQLITE_CREATE_TABLE:
      allow = main_db && EqualsNoCase(a1, self->table_);
      break;
    case SQLITE_CREATE_INDEX:  // a1 index, a2 its table
      allow = main_db && EqualsNoCase(a2, self->table_);
      break;
    case SQLITE_INSERT:  // creating a table writes its row into the schema table
    case SQLITE_UPDATE:
    case SQLITE_READ:    // and its keys' implicit indexes read its columns
      allow = main_db && (IsSchemaTable(a1) || EqualsNoCase(a1, self->table_));
      break;
    default:
      allow = false;
  }
  if (!allow && self->denied_.empty()) {
    self->denied_ = fmt::format("action {} on {}", action, a1 ? a1 : "-");
  }
  return allow ? SQLITE_OK : SQLITE_DENY;
}

bool IsSafeSqliteTypeName(std::string_view type) {
  size_t i = 0;
  // Words: letters, digits, underscore, spaces; a letter first.
  if (type.empty()) return true;  // no declared type
  if (!std::isalpha(static_cast<unsigned char>(type[0]))) return false;
  while (i < type.size() && (std::isalnum(static_cast<unsigned char>(type[i])) ||
                             type[i] == '_' || type[i] == ' ')) {
    ++i;
  }
  if (i == type.size()) return true;
  if (type[i] != '(' || type.back() != ')') return false;
  // "(n)" or "(n, m)": optional sign, digits.
  int numbers = 0;
  ++i;
  while (i < type.size() - 1) {
    while (type[i] == ' ') ++i;
    if (type[i] == '+' || type[i] == '-') ++i;
    const size_t digits = i;
    while (i < type.size() - 1 && std::isdigit(static_cast<unsigned char>(type[i]))) ++i;
    if (i == digits) return false;
    ++numbers;
    while (type[i] == ' ') ++i;
    if (i < type.size() - 1) {
      if (type[i] != ',' || numbers == 2) return false;
      ++i;
      if (i == type.size() - 1) return false;  // "(1,)"
    }
  }
  return numbers >= 1 && numbers <= 2;
}

}  // namespace lakedump
