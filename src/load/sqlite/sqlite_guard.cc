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

// The authorizer's action codes, named as sqlite3.h names them.
std::string ActionName(int action) {
  switch (action) {
    case SQLITE_CREATE_INDEX: return "CREATE_INDEX";
    case SQLITE_CREATE_TABLE: return "CREATE_TABLE";
    case SQLITE_CREATE_TEMP_INDEX: return "CREATE_TEMP_INDEX";
    case SQLITE_CREATE_TEMP_TABLE: return "CREATE_TEMP_TABLE";
    case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE_TEMP_TRIGGER";
    case SQLITE_CREATE_TEMP_VIEW: return "CREATE_TEMP_VIEW";
    case SQLITE_CREATE_TRIGGER: return "CREATE_TRIGGER";
    case SQLITE_CREATE_VIEW: return "CREATE_VIEW";
    case SQLITE_DELETE: return "DELETE";
    case SQLITE_DROP_INDEX: return "DROP_INDEX";
    case SQLITE_DROP_TABLE: return "DROP_TABLE";
    case SQLITE_DROP_TRIGGER: return "DROP_TRIGGER";
    case SQLITE_DROP_VIEW: return "DROP_VIEW";
    case SQLITE_INSERT: return "INSERT";
    case SQLITE_PRAGMA: return "PRAGMA";
    case SQLITE_READ: return "READ";
    case SQLITE_SELECT: return "SELECT";
    case SQLITE_TRANSACTION: return "TRANSACTION";
    case SQLITE_UPDATE: return "UPDATE";
    case SQLITE_ATTACH: return "ATTACH";
    case SQLITE_DETACH: return "DETACH";
    case SQLITE_ALTER_TABLE: return "ALTER_TABLE";
    case SQLITE_REINDEX: return "REINDEX";
    case SQLITE_ANALYZE: return "ANALYZE";
    case SQLITE_FUNCTION: return "FUNCTION";
    case SQLITE_SAVEPOINT: return "SAVEPOINT";
    default: return fmt::format("action {}", action);
  }
}

bool IsCreate(int action) {
  return action == SQLITE_CREATE_TABLE || action == SQLITE_CREATE_INDEX ||
         action == SQLITE_CREATE_VIEW || action == SQLITE_CREATE_TRIGGER;
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

SchemaAuthorizer::SchemaAuthorizer(sqlite3* db, SchemaObject kind, std::string name,
                                   std::string table)
    : db_(db), kind_(kind), name_(std::move(name)), table_(std::move(table)) {
  sqlite3_set_authorizer(db_, &SchemaAuthorizer::Callback, this);
}

SchemaAuthorizer::~SchemaAuthorizer() { sqlite3_set_authorizer(db_, nullptr, nullptr); }

// Actions in "main" only (the caller checked the database).
bool SchemaAuthorizer::Allows(int action, const char* a1, const char* a2) const {
  switch (action) {
    case SQLITE_CREATE_TABLE:
      return kind_ == SchemaObject::kTable && EqualsNoCase(a1, name_);
    case SQLITE_CREATE_INDEX:  // a1 index, a2 its table (a table's implicit ones too)
      return (kind_ == SchemaObject::kTable || (kind_ == SchemaObject::kIndex &&
                                                EqualsNoCase(a1, name_))) &&
             EqualsNoCase(a2, table_);
    case SQLITE_CREATE_VIEW:
      return kind_ == SchemaObject::kView && EqualsNoCase(a1, name_);
    case SQLITE_CREATE_TRIGGER:  // a1 trigger, a2 its table
      return kind_ == SchemaObject::kTrigger && EqualsNoCase(a1, name_) &&
             EqualsNoCase(a2, table_);
    case SQLITE_INSERT:  // creating an object writes its row into the schema table
    case SQLITE_UPDATE:
      return IsSchemaTable(a1) || (kind_ == SchemaObject::kTable && EqualsNoCase(a1, table_));
    case SQLITE_READ:  // a table's keys and an index read its columns
      return IsSchemaTable(a1) || ((kind_ == SchemaObject::kTable || kind_ == SchemaObject::kIndex) &&
                                   EqualsNoCase(a1, table_));
    case SQLITE_FUNCTION:
      // An index on an expression (SQLite allows deterministic ones only), and a table's
      // generated column, CHECK or DEFAULT: none is called by the CREATE itself (a SELECT,
      // which could call one, is denied), only by the rows inserted later.
      return kind_ == SchemaObject::kIndex || kind_ == SchemaObject::kTable;
    case SQLITE_REINDEX:  // building the new index
      return kind_ == SchemaObject::kIndex && EqualsNoCase(a1, name_);
    default:
      return false;
  }
}

int SchemaAuthorizer::Callback(void* self_ptr, int action, const char* a1, const char* a2,
                               const char* db, const char* /*trigger*/) {
  auto* self = static_cast<SchemaAuthorizer*>(self_ptr);
  // SQLITE_FUNCTION names no database; every other action allowed here names "main".
  const bool main_db = db == nullptr ? action == SQLITE_FUNCTION : EqualsNoCase(db, "main");
  const bool allow = main_db && self->Allows(action, a1, a2);
  if (allow && IsCreate(action) && EqualsNoCase(a1, self->name_)) self->created_ = true;
  if (!allow && self->denied_.empty()) {
    self->denied_ = fmt::format("{} {}", ActionName(action), a1 ? a1 : "-");
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
