// Opening paths strictly beneath a local store's root: no symbolic link is followed below
// the root and no non-regular file (FIFO, device, socket) is ever opened for reading, so a
// hostile dump (or destination) cannot lead lakedump outside its folder or make it hang.
// The root itself may be a symlink: the user named it. Free functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

// Opens `rel` ('/'-separated, already validated by ValidateObjectKey) below the directory
// `root` for reading: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it,
// otherwise openat(O_NOFOLLOW) segment by segment. Opened non-blocking and checked with fstat
// before anything reads it. On success *fd is a regular file's descriptor (blocking again) and
// *size its size. NotFound when it does not exist; Corruption naming `rel` when a segment is a
// symlink or the object is not a regular file; other errors as IOError / PermissionDenied.
Status OpenRegularBeneath(const std::string& root, std::string_view rel, int* fd,
                          uint64_t* size);

// Makes every later OpenRegularBeneath use the openat(O_NOFOLLOW) segment walk, as on a kernel
// without openat2: for tests of that path. Process-wide.
void UseSegmentWalkForTesting();

// Checks, with lstat, that each existing directory of `rel_dir` below `root` is a real
// directory (not a symlink). Segments that do not exist yet are fine (they will be created).
// Corruption naming the segment otherwise.
Status CheckDirsBeneath(const std::string& root, std::string_view rel_dir);

// The message for a symlink or special file found at `path` under a store: one line saying
// what it is and that lakedump refuses it.
Status RefusedEntry(std::string_view path, bool is_symlink);

}  // namespace lakedump
