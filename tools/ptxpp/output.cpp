#include "output.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "status.hpp"

namespace fs = std::filesystem;

namespace ptxpp_cli {

namespace {

bool g_stdout_failure_reported = false;

std::string cannot_write(std::string_view path, int error) {
  return fmt::format("cannot write {}: {}", is_standard_output(path) ? "standard output" : path,
                     std::strerror(error != 0 ? error : EIO));
}

// write(2) until all is written; false (errno set) on failure.
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Each returns 0 or the errno of the step that failed.
int to_standard_output(std::string_view bytes) {
  errno = 0;
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0 ||
      std::ferror(stdout))
    return errno != 0 ? errno : EIO;
  return 0;
}

int in_place(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int error = write_all(fd, bytes) ? 0 : errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

mode_t mode_for(const fs::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) return st.st_mode & 07777;
  const mode_t mask = ::umask(0);  // reading the umask means setting it
  ::umask(mask);
  return 0666 & ~mask;
}

int replace_atomically(const fs::path& target, std::string_view bytes) {
  const mode_t mode = mode_for(target);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string name = ".";  // appended: `"." + s` trips GCC 12's -Wrestrict false positive
  name += target.filename().string();
  name += ".XXXXXX";
  std::string temp = (dir / name).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return errno;
  int error = 0;
  if (!write_all(fd, bytes) || ::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) ::unlink(temp.c_str());
  return error;
}

// The file a path names: a symlink's target, so that replacing it keeps the link.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  if (!fs::is_symlink(path, ec)) return path;
  fs::path real = fs::canonical(path, ec);
  return ec ? fs::path(path) : real;
}

}  // namespace

bool is_standard_output(std::string_view path) { return path.empty() || path == "-"; }

std::string try_write_output(std::string_view path, std::string_view bytes) {
  int error = 0;
  if (is_standard_output(path)) {
    error = to_standard_output(bytes);
    if (error != 0) g_stdout_failure_reported = true;
  } else {
    const std::string p(path);
    struct stat st {};
    const bool special = ::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    error = special ? in_place(p, bytes) : replace_atomically(resolved(p), bytes);
  }
  return error == 0 ? std::string() : cannot_write(path, error);
}

bool write_output(std::string_view path, std::string_view bytes) {
  const std::string problem = try_write_output(path, bytes);
  if (problem.empty()) return true;
  print_error(problem);
  set_exit_code(kFailure);
  return false;
}

bool write_output(std::string_view path, std::span<const uint8_t> bytes) {
  return write_output(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

bool close_standard_output() {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return true;
  if (!g_stdout_failure_reported) print_error(cannot_write("-", errno));
  g_stdout_failure_reported = true;
  return false;
}

}  // namespace ptxpp_cli
