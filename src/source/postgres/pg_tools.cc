#include "source/postgres/pg_tools.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "base/subprocess.h"

namespace lakedump {
namespace {

std::vector<std::string> Candidates(std::string_view name, std::string_view bin_dir) {
  std::vector<std::string> out;
  if (!bin_dir.empty()) {
    out.push_back((std::filesystem::path(bin_dir) / name).string());
    return out;
  }
  std::set<std::string> seen;
  auto add = [&](const std::filesystem::path& p) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) return;
    auto canonical = std::filesystem::weakly_canonical(p, ec);
    // Debian's /usr/bin/pg_dump is pg_wrapper, a perl script that runs one of the
    // /usr/lib/postgresql/*/bin binaries searched below: each run through it costs a perl
    // start (about 50 ms of CPU and of wall time), twice per tool with the version probe.
    if (!ec && canonical.filename() == "pg_wrapper") return;
    if (!seen.insert(ec ? p.string() : canonical.string()).second) return;
    out.push_back(p.string());
  };
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) add(std::filesystem::path(dir) / name);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    add(entry.path() / "bin" / name);
  }
  return out;
}

std::string QuoteConninfoValue(std::string_view v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

std::pair<int, std::string> ParsePgToolVersion(std::string_view text) {
  const size_t paren = text.find(") ");
  if (paren == std::string_view::npos) return {0, ""};
  std::string_view rest = text.substr(paren + 2);
  size_t end = 0;
  while (end < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[end])) || rest[end] == '.')) {
    ++end;
  }
  std::string version(rest.substr(0, end));
  return {std::atoi(version.c_str()), version};
}

Result<PgTool> FindPgTool(std::string_view name, int min_major, std::string_view bin_dir,
                          std::string_view hint) {
  PgTool best;
  std::vector<std::string> found;
  for (const std::string& path : Candidates(name, bin_dir)) {
    StringSink out;
    auto run = RunSubprocess({{path, "--version"}, {}, ""}, &out);
    if (!run.ok() || run->exit_code != 0) continue;
    auto [major, version] = ParsePgToolVersion(out.str());
    if (major == 0) continue;
    found.push_back(fmt::format("{} is {}", path, version));
    if (major >= min_major && major > best.major) best = PgTool{path, major, version};
  }
  if (best.major != 0) return best;
  std::string seen = found.empty() ? fmt::format("no {} found{}", name,
                                                 bin_dir.empty() ? " in PATH or /usr/lib/postgresql/*/bin"
                                                                 : fmt::format(" in {}", bin_dir))
                                   : fmt::format("found: {}", fmt::join(found, ", "));
  return Status::NotFound(fmt::format("{} of PostgreSQL {} or later is needed ({}); install "
                                      "postgresql-client-{} or point --pg-bin-dir at its bin "
                                      "directory, {}",
                                      name, min_major, seen, min_major, hint));
}

PgChildConnection ChildConnectionOf(PGconn* conn) {
  PgChildConnection out;
  PQconninfoOption* options = PQconninfo(conn);
  for (PQconninfoOption* o = options; o && o->keyword; ++o) {
    if (!o->val || !*o->val) continue;
    const std::string_view key(o->keyword);
    if (key == "password") {
      out.env.emplace_back("PGPASSWORD", o->val);
      continue;
    }
    // Our own session settings (options=-c ...) are lakedump's, not the user's.
    if (key == "options" || key == "fallback_application_name") continue;
    if (!out.conninfo.empty()) out.conninfo += ' ';
    out.conninfo += std::string(key) + "=" + QuoteConninfoValue(o->val);
  }
  PQconninfoFree(options);
  return out;
}

}  // namespace lakedump
