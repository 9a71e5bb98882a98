#include "cli/cli_docs.h"

#include <sstream>

#include "cli/numeric_option.h"

namespace lakedump::cli {
namespace {

// Text for roff: backslashes doubled as \e, '-' as \-, lines starting with '.' or '\'' guarded.
std::string Roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

// The names an option answers to, long first: "--table-parallelism, -j".
std::vector<std::string> Names(const CLI::Option* o) {
  std::vector<std::string> names;
  for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  return names;
}

bool IsFlag(const CLI::Option* o) { return o->get_type_size() == 0; }

std::vector<const CLI::App*> Commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out.push_back(sub);
  }
  return out;
}

void ManOptions(const CLI::App& app, std::ostringstream& out) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional()) continue;
    std::string head;
    for (const std::string& n : Names(o)) {
      if (!head.empty()) head += ", ";
      head += "\\fB" + Roff(n) + "\\fR";
    }
    if (!IsFlag(o)) head += " \\fI" + Roff(o->get_type_name()) + "\\fR";
    std::string text = o->get_description();
    if (!o->get_default_str().empty()) text += " [default: " + o->get_default_str() + "]";
    out << ".TP\n" << head << "\n" << Roff(text) << "\n";
  }
}

// A help footer as it reads on a terminal (examples keep their indentation).
void ManFooter(const std::string& footer, std::ostringstream& out) {
  if (footer.empty()) return;
  out << ".PP\n.nf\n" << Roff(footer) << "\n.fi\n";
}

}  // namespace

std::string ManPage(const CLI::App& app, const std::string& version) {
  std::ostringstream out;
  out << ".\\\" Generated from the lakedump command line (src/cli/cli_docs.cc); do not edit.\n"
      << ".TH LAKEDUMP 1 \"\" \"" << Roff(version) << "\" \"User Commands\"\n"
      << ".SH NAME\nlakedump \\- dump databases to Parquet in a folder or S3, and load them back\n"
      << ".SH SYNOPSIS\n";
  for (const CLI::App* cmd : Commands(app)) {
    out << ".B lakedump " << Roff(cmd->get_name()) << "\n";
    for (const CLI::Option* o : cmd->get_options()) {
      if (o->get_positional()) out << ".I " << Roff(o->get_name()) << "\n";
    }
    out << "[\\fIOPTIONS\\fR]\n.br\n";
  }
  out << ".B lakedump\n\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n";
  out << ".SH DESCRIPTION\n" << Roff(app.get_description()) << "\n";
  out << ".PP\nEvery command takes \\fB\\-\\-help\\fR. Sizes are written like 16MiB (binary KiB, "
         "MiB, GiB, TiB) or 16MB (decimal), durations like 30s, 15m, 1h, 2d.\n";
  out << ".SH COMMANDS\n";
  for (const CLI::App* cmd : Commands(app)) {
    out << ".SS \"" << Roff(cmd->get_name()) << "\"\n" << Roff(cmd->get_description()) << "\n";
    bool any_positional = false;
    for (const CLI::Option* o : cmd->get_options()) {
      if (!o->get_positional()) continue;
      if (!any_positional) out << ".PP\nArguments:\n";
      any_positional = true;
      out << ".TP\n\\fI" << Roff(o->get_name()) << "\\fR\n" << Roff(o->get_description()) << "\n";
    }
    out << ".PP\nOptions:\n";
    ManOptions(*cmd, out);
    ManFooter(cmd->get_footer(), out);
  }
  out << ".SH GENERAL OPTIONS\n";
  ManOptions(app, out);
  out << ".SH EXAMPLES AND EXIT STATUS\n";
  ManFooter(app.get_footer(), out);
  out << ".SH ENVIRONMENT\n"
      << "S3: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, "
         "AWS_PROFILE (with ~/.aws/credentials and ~/.aws/config), AWS_ENDPOINT_URL_S3, "
         "AWS_ENDPOINT_URL, AWS_CA_BUNDLE. PostgreSQL: the PG* variables and ~/.pgpass, as libpq "
         "reads them.\n";
  return out.str();
}

std::string BashCompletion(const CLI::App& app) {
  std::string commands, alternatives;
  for (const CLI::App* cmd : Commands(app)) {
    commands += (commands.empty() ? "" : " ") + cmd->get_name();
    alternatives += (alternatives.empty() ? "" : "|") + cmd->get_name();
  }
  std::ostringstream out;
  out << "# bash completion for lakedump. Generated from its command line (src/cli/cli_docs.cc);\n"
         "# do not edit.\n"
         "_lakedump() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
         "  local cmd='' i\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case ${COMP_WORDS[i]} in "
      << alternatives
      << ") cmd=${COMP_WORDS[i]}; break ;; esac\n"
         "  done\n"
         "  if [ -z \"$cmd\" ]; then\n"
         "    COMPREPLY=($(compgen -W '"
      << commands
      << " --help --version' -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  # opts: the command's options; numeric: those whose value is a number, not a file.\n"
         "  local opts numeric\n"
         "  case $cmd in\n";
  for (const CLI::App* cmd : Commands(app)) {
    std::string opts, numeric;
    for (const CLI::Option* o : cmd->get_options()) {
      if (o->get_positional()) continue;
      for (const std::string& n : Names(o)) {
        opts += (opts.empty() ? "" : " ") + n;
        if (NumericRangeOf(cmd, o) != nullptr) numeric += " " + n;
      }
    }
    out << "    " << cmd->get_name() << ") opts='" << opts << "'\n      numeric='" << numeric
        << " ' ;;\n";
  }
  out << "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  if [[ $numeric == *\" $prev \"* ]]; then\n"
         "    COMPREPLY=()\n"
         "    return\n"
         "  fi\n"
         "  compopt -o filenames 2>/dev/null\n"
         "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "}\n"
         "complete -F _lakedump lakedump\n";
  return out.str();
}

}  // namespace lakedump::cli
