// credential_process (docs/s3.md, "Credentials"): a profile names a command that prints the
// credentials as JSON on its standard output, as awscli documents it:
//   {"Version": 1, "AccessKeyId": "...", "SecretAccessKey": "...",
//    "SessionToken": "...", "Expiration": "2026-12-01T01:00:00Z"}
// SessionToken and Expiration are optional; without Expiration the keys are used for the whole
// run (never refreshed), with it the cache runs the command again ahead of that time.
//
// How the command runs: split into words as awscli does (Python's shlex.split: blanks separate
// words, '...' and "..." quote, a backslash escapes), then executed directly, with no shell: no
// variable expansion, globbing, pipes or redirections (write a script for those). Standard input
// is /dev/null and standard error is captured (a helper that prompts must use /dev/tty). The
// child inherits the environment; it is killed (with its process group) after `timeout`.
//
// Errors are one line naming the profile and the program (argv[0] only: arguments may hold
// tokens); standard output is never shown, since it may hold secrets.
// Thread-compatible: the cache calls Fetch from one thread at a time.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/s3/credentials/credential_provider.h"

namespace lakedump {

inline constexpr std::chrono::milliseconds kCredentialProcessTimeout{60000};

// The words of `command` as Python's shlex.split (POSIX mode) makes them. InvalidArgument for
// an unterminated quote or an empty command.
Result<std::vector<std::string>> SplitCommandLine(std::string_view command);

// The provider for profile `profile`'s credential_process `command`.
std::unique_ptr<CredentialProvider> NewProcessProvider(
    std::string profile, std::string command,
    std::chrono::milliseconds timeout = kCredentialProcessTimeout);

}  // namespace lakedump
