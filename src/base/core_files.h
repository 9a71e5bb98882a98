// Core files and secrets: a lakedump process holds S3 keys, session tokens, signing keys and
// database passwords in memory, and a core file would write them to disk where anyone who
// can read it finds them. NoCoreFiles() sets the process's core file size limit to 0 (soft and
// hard, so children started later inherit it), unless LAKEDUMP_ALLOW_CORE_FILES=1 is set for
// debugging. Call once, first thing in main(); not thread-safe with respect to itself.
#pragma once

namespace lakedump {

// Returns false when the environment asked to keep core files (nothing changed).
bool NoCoreFiles();

}  // namespace lakedump
