#include "load/postgres/pg_archive_roles.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

struct Token {
  enum Kind { kWord, kQuoted, kLiteral, kPunct } kind = kWord;
  size_t at = 0, end = 0;
  int depth = 0;      // parentheses around it
  std::string value;  // a word folded to lower case, a quoted identifier unquoted, the punct
};

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// The end of the literal, comment or quoted identifier starting at `i` (s[i] is its first
// character), or npos when `i` starts none. Unterminated ones end with the text.
size_t SkipQuoted(std::string_view s, size_t i, bool escapes) {
  const char q = s[i];
  if (q == '"' || q == '\'') {
    for (size_t j = i + 1; j < s.size(); ++j) {
      if (escapes && q == '\'' && s[j] == '\\') {
        ++j;
      } else if (s[j] == q) {
        if (j + 1 < s.size() && s[j + 1] == q) {
          ++j;
        } else {
          return j + 1;
        }
      }
    }
    return s.size();
  }
  if (q == '-' && s.substr(i, 2) == "--") {
    const size_t nl = s.find('\n', i);
    return nl == std::string_view::npos ? s.size() : nl;
  }
  if (q == '/' && s.substr(i, 2) == "/*") {
    const size_t e = s.find("*/", i + 2);
    return e == std::string_view::npos ? s.size() : e + 2;
  }
  if (q == '$') {  // $tag$ ... $tag$ (not $1, a parameter)
    size_t j = i + 1;
    while (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_' ||
                            (j > i + 1 && std::isdigit(static_cast<unsigned char>(s[j]))))) {
      ++j;
    }
    if (j >= s.size() || s[j] != '$') return std::string_view::npos;
    const std::string_view tag = s.substr(i, j + 1 - i);
    const size_t e = s.find(tag, j + 1);
    return e == std::string_view::npos ? s.size() : e + tag.size();
  }
  return std::string_view::npos;
}

// The statement's tokens (comments dropped), split into statements at top-level ';'.
std::vector<std::vector<Token>> Statements(std::string_view s) {
  std::vector<std::vector<Token>> out(1);
  int depth = 0;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.at = i;
    t.depth = depth;
    const bool escapes = (c == '\'') && i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') &&
                         !out.back().empty() && out.back().back().end == i;
    if (const size_t e = SkipQuoted(s, i, escapes); e != std::string_view::npos) {
      i = e;
      if (c == '-' || c == '/') continue;  // a comment
      t.end = e;
      t.kind = c == '"' ? Token::kQuoted : Token::kLiteral;
      if (c == '"') {
        for (size_t j = t.at + 1; j + 1 < e; ++j) {
          t.value += s[j];
          if (s[j] == '"') ++j;
        }
      }
      out.back().push_back(std::move(t));
      continue;
    }
    if (IsWordChar(c)) {
      while (i < s.size() && IsWordChar(s[i])) {
        t.value += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
        ++i;
      }
      t.end = i;
      out.back().push_back(std::move(t));
      continue;
    }
    ++i;
    t.end = i;
    t.kind = Token::kPunct;
    t.value = std::string(1, c);
    if (c == '(') ++depth;
    if (c == ')') depth = std::max(0, depth - 1);
    if (c == ';' && depth == 0) {
      out.emplace_back();
      continue;
    }
    out.back().push_back(std::move(t));
  }
  return out;
}

bool IsWord(const Token& t, std::string_view w) {
  return t.kind == Token::kWord && t.depth == 0 && t.value == w;
}

// A role list from tokens[i]: identifiers separated by commas (PUBLIC skipped, GROUP
// before one ignored), up to the first token that does not continue the list.
void RoleList(const std::vector<Token>& tokens, size_t i, PgRoleUse use,
              std::vector<PgRoleRef>* out) {
  for (; i < tokens.size(); ++i) {
    if (tokens[i].kind == Token::kWord && tokens[i].value == "group") ++i;
    if (i >= tokens.size()) return;
    const Token& t = tokens[i];
    if (t.kind != Token::kWord && t.kind != Token::kQuoted) return;
    if (t.kind == Token::kQuoted || t.value != "public") out->push_back({t.value, use, t.at, t.end});
    if (i + 1 >= tokens.size() || tokens[i + 1].kind != Token::kPunct ||
        tokens[i + 1].value != ",") {
      return;
    }
    ++i;  // the comma
  }
}

// The roles of one statement of an ACL or DEFAULT ACL entry.
void GrantRoles(const std::vector<Token>& t, std::vector<PgRoleRef>* out) {
  if (t.size() >= 4 && IsWord(t[0], "set") && IsWord(t[1], "session") &&
      IsWord(t[2], "authorization")) {
    RoleList(t, 3, PgRoleUse::kGrant, out);
    return;
  }
  size_t start = 0;
  if (t.size() >= 6 && IsWord(t[0], "alter") && IsWord(t[1], "default") &&
      (IsWord(t[4], "role") || IsWord(t[4], "user"))) {
    RoleList(t, 5, PgRoleUse::kGrant, out);
    start = 5;
  }
  for (; start < t.size(); ++start) {
    if (IsWord(t[start], "grant") || IsWord(t[start], "revoke")) break;
  }
  if (start == t.size()) return;
  const std::string_view to = t[start].value == "grant" ? "to" : "from";
  size_t last = t.size();
  for (size_t i = start + 1; i < t.size(); ++i) {
    if (IsWord(t[i], to)) last = i;
  }
  if (last == t.size()) return;
  RoleList(t, last + 1, PgRoleUse::kGrant, out);
  for (size_t i = last + 1; i + 2 < t.size(); ++i) {
    if (IsWord(t[i], "granted") && IsWord(t[i + 1], "by")) RoleList(t, i + 2, PgRoleUse::kGrant, out);
  }
}

void PolicyRoles(const std::vector<Token>& t, std::vector<PgRoleRef>* out) {
  if (t.size() < 2 || !IsWord(t[0], "create") || !IsWord(t[1], "policy")) return;
  for (size_t i = 2; i < t.size(); ++i) {
    if (IsWord(t[i], "to")) return RoleList(t, i + 1, PgRoleUse::kPolicy, out);
  }
}

std::string_view UseName(PgRoleUse use) {
  switch (use) {
    case PgRoleUse::kOwner: return "owner";
    case PgRoleUse::kGrant: return "grant";
    case PgRoleUse::kPolicy: return "policy";
  }
  return "";
}

const std::string& Mapped(const PgRoleOptions& options, const std::string& role) {
  auto it = options.role_map.find(role);
  return it == options.role_map.end() ? role : it->second;
}

bool IsGrant(const PgArchiveTocEntry& e) { return e.desc == "ACL" || e.desc == "DEFAULT ACL"; }

}  // namespace

std::vector<PgRoleRef> PgDefinitionRoles(const PgArchiveTocEntry& e) {
  std::vector<PgRoleRef> out;
  if (!IsGrant(e) && e.desc != "POLICY") return out;
  for (const std::vector<Token>& statement : Statements(e.definition)) {
    if (IsGrant(e)) {
      GrantRoles(statement, &out);
    } else {
      PolicyRoles(statement, &out);
    }
  }
  return out;
}

std::map<std::string, PgRoleUses> PgRolesNeeded(const PgArchiveToc& toc,
                                                const std::vector<size_t>& entries,
                                                const PgRoleOptions& options) {
  std::map<std::string, PgRoleUses> out;
  for (size_t i : entries) {
    const PgArchiveTocEntry& e = toc.entries[i];
    if (!options.no_owner && !e.owner.empty()) out[Mapped(options, e.owner)].insert(PgRoleUse::kOwner);
    if (options.no_privileges && IsGrant(e)) continue;
    for (const PgRoleRef& r : PgDefinitionRoles(e)) out[Mapped(options, r.role)].insert(r.use);
  }
  return out;
}

Result<std::map<std::string, PgRoleUses>> PgMissingRoles(
    PgConn& conn, const std::map<std::string, PgRoleUses>& needed) {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [role, use] : needed) names.push_back(role);
  LD_ASSIGN_OR_RETURN(
      PgResult absent,
      conn.Query("SELECT r FROM pg_catalog.json_array_elements_text($1::pg_catalog.json) r "
                 "WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r)",
                 {names.dump()}));
  std::map<std::string, PgRoleUses> missing;
  for (int i = 0; i < PQntuples(absent.get()); ++i) {
    const std::string role(PgValue(absent.get(), i, 0));
    if (auto it = needed.find(role); it != needed.end()) missing.emplace(role, it->second);
  }
  return missing;
}

std::string MissingRolesLine(const std::map<std::string, PgRoleUses>& missing) {
  std::vector<std::string> names;
  bool owner = false, grant = false, policy = false;
  for (const auto& [role, uses] : missing) {
    std::vector<std::string_view> how;
    for (PgRoleUse use : uses) how.push_back(UseName(use));
    names.push_back(fmt::format("{} ({})", QuoteIdent(role), fmt::join(how, ", ")));
    owner |= uses.count(PgRoleUse::kOwner) > 0;
    grant |= uses.count(PgRoleUse::kGrant) > 0;
    policy |= uses.count(PgRoleUse::kPolicy) > 0;
  }
  std::string fix;
  if (policy) {
    fix = "--role-map OLD=NEW (a policy names them; create the roles, or map each to one "
          "the target has)";
  } else {
    fix = fmt::format("{}{}{} (or --role-map OLD=NEW to map each to a role the target has)",
                      owner ? "--no-owner" : "", owner && grant ? " " : "",
                      grant ? "--no-privileges" : "");
  }
  return fmt::format("the target has no role {} that the dump's schema names; nothing was "
                     "restored: load with {}",
                     fmt::join(names, ", "), fix);
}

std::vector<PgArchiveEdit> PgRoleMapEdits(const PgArchiveToc& toc,
                                          const std::vector<size_t>& entries,
                                          const PgRoleOptions& options) {
  std::vector<PgArchiveEdit> edits;
  if (options.role_map.empty()) return edits;
  for (size_t i : entries) {
    const PgArchiveTocEntry& e = toc.entries[i];
    PgArchiveEdit edit;
    edit.entry = i;
    if (options.role_map.count(e.owner)) edit.owner = options.role_map.at(e.owner);
    std::string definition = e.definition;
    bool changed = false;
    std::vector<PgRoleRef> refs = PgDefinitionRoles(e);
    std::reverse(refs.begin(), refs.end());  // from the end: earlier positions stay valid
    for (const PgRoleRef& r : refs) {
      auto it = options.role_map.find(r.role);
      if (it == options.role_map.end()) continue;
      definition.replace(r.at, r.end - r.at, QuoteIdent(it->second));
      changed = true;
    }
    if (changed) edit.definition = std::move(definition);
    if (edit.owner || edit.definition) edits.push_back(std::move(edit));
  }
  return edits;
}

}  // namespace lakedump
