#include "source/postgres/pg_tools.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <tuple>

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

std::pair<int, std::string> PgToolDirVersion(std::string_view path) {
  constexpr std::string_view kPrefix = "/usr/lib/postgresql/";
  if (!path.starts_with(kPrefix)) return {0, ""};
  std::string_view rest = path.substr(kPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {0, ""};
  const std::string_view folder = rest.substr(0, slash);
  rest.remove_prefix(slash);
  // "<N>/bin/<program>" exactly, N digits with at most one inner dot ("9.6").
  if (!rest.starts_with("/bin/") || rest.substr(5).empty() ||
      rest.substr(5).find('/') != std::string_view::npos) {
    return {0, ""};
  }
  int dots = 0;
  for (size_t i = 0; i < folder.size(); ++i) {
    const char c = folder[i];
    if (c == '.' && i > 0 && i + 1 < folder.size() && ++dots == 1) continue;
    if (!std::isdigit(static_cast<unsigned char>(c))) return {0, ""};
  }
  if (folder.empty()) return {0, ""};
  return {std::atoi(std::string(folder).c_str()), std::string(folder)};
}

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
    auto [major, version] = PgToolDirVersion(path);
    std::error_code ec;
    if (major != 0 &&
        (!std::filesystem::is_regular_file(path, ec) || ::access(path.c_str(), X_OK) != 0)) {
      continue;
    }
    if (major == 0) {
      StringSink out;
      auto run = RunSubprocess({{path, "--version"}, {}, ""}, &out);
      if (!run.ok() || run->exit_code != 0) continue;
      std::tie(major, version) = ParsePgToolVersion(out.str());
    }
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

Result<PgChildConnection> ChildConnectionOf(PGconn* conn) {
  PgChildConnection out;
  std::string service;  // the user's own service name (its values are all listed anyway)
  std::string key_passphrase;
  PQconninfoOption* options = PQconninfo(conn);
  for (PQconninfoOption* o = options; o && o->keyword; ++o) {
    if (!o->val || !*o->val) continue;
    const std::string_view key(o->keyword);
    if (key == "password") {
      out.env.emplace_back("PGPASSWORD", o->val);
      continue;
    }
    if (key == "sslpassword") {
      key_passphrase = o->val;
      continue;
    }
    // Our own session settings (options=-c ...) are lakedump's, not the user's.
    if (key == "options" || key == "fallback_application_name") continue;
    if (key == "service") {
      service = o->val;
      continue;
    }
    if (!out.conninfo.empty()) out.conninfo += ' ';
    out.conninfo += std::string(key) + "=" + QuoteConninfoValue(o->val);
  }
  PQconninfoFree(options);
  if (key_passphrase.empty()) {
    if (!service.empty()) out.conninfo += " service=" + QuoteConninfoValue(service);
    return out;
  }
  // A service file's value is the rest of its line, trimmed: what cannot survive that is
  // refused rather than changed.
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  if (key_passphrase.find_first_of("\r\n") != std::string::npos || space(key_passphrase.front()) ||
      space(key_passphrase.back())) {
    return Status::InvalidArgument(
        "the connection's sslpassword holds a line break or begins or ends with white space: "
        "it cannot be handed to pg_dump/pg_restore without putting it on their command line");
  }
  out.service_file = std::make_shared<TempFile>();
  LD_RETURN_IF_ERROR(out.service_file->Write("[lakedump]\nsslpassword=" + key_passphrase + "\n")
                         .WithContext("writing the private service file for pg_dump/pg_restore"));
  out.env.emplace_back("PGSERVICEFILE", out.service_file->path());
  out.conninfo += " service=lakedump";
  return out;
}

}  // namespace lakedump
