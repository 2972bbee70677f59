// Writing a command's output, checked: to standard output, or to a file replaced atomically.
// Every command that writes goes through here, so a full disk or a vanished directory is an
// error with the path and exit status 1, never a silent loss.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ptxpp_cli {

// Whether `path` names standard output: "-", or "" (an -o option not given).
bool is_standard_output(std::string_view path);

// Writes `bytes` to `path` and checks every step. Standard output ("-" or ""): written and flushed.
// A file that is regular or does not exist yet (a symlink is followed) is replaced atomically: the
// bytes go to a temporary file in the same directory, which is fsynced, given the mode of the file it
// replaces (a new file: 0666 less the umask) and renamed over it; on failure the temporary file is
// removed and the old file is left as it was. Anything else (/dev/null, a FIFO) is written in place.
// Returns "" on success, else why not: "cannot write PATH: STRERROR" ("standard output" for "-").
[[nodiscard]] std::string try_write_output(std::string_view path, std::string_view bytes);

// try_write_output; on failure prints "ptxpp: error: cannot write ..." and sets the exit status to
// kFailure. Returns whether the write succeeded.
bool write_output(std::string_view path, std::string_view bytes);
bool write_output(std::string_view path, std::span<const uint8_t> bytes);

// Flushes standard output at the end of the program (help, version and other direct prints) and
// checks that nothing written to it was lost; a failure not yet reported by write_output is
// reported as above. Returns whether standard output is intact.
bool close_standard_output();

}  // namespace ptxpp_cli
