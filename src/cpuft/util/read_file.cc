#include "cpuft/util/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void fail_kind(const std::string& path, const std::string& kind) {
  if (kind == "missing") fail(path, ": missing, expected a regular file");
  fail(path, ": is ", kind, ", expected a regular file");
}

// Appends what `fd` yields to `out` until end of file; false (with errno) on a read error. Stops
// after max_bytes + 1 bytes so that a caller can tell "over the limit" without reading on.
bool read_all(int fd, uint64_t max_bytes, std::string* out) {
  char buf[1 << 16];
  while (out->size() <= max_bytes) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buf, max_bytes + 1 - out->size()));
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string non_regular_kind(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return kind_of(st.st_mode);
  const int err = errno;
  if (err == ENOENT) {
    struct stat lst;
    return ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode) ? "a dangling symbolic link" : "missing";
  }
  return str_cat("unreadable (", std::strerror(err), ")");
}

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void require_regular_file(const std::string& path) {
  const std::string kind = non_regular_kind(path);
  if (!kind.empty()) fail_kind(path, kind);
}

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

int open_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) fail_kind(path, non_regular_kind(path));
    fail(path, ": cannot open: ", std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string kind = kind_of(st.st_mode);
    ::close(fd);
    fail_kind(path, kind);
  }
  return fd;
}

std::string read_file(const std::string& path, uint64_t max_bytes) {
  const int fd = open_regular_file(path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail(path, ": cannot stat: ", std::strerror(err));
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    fail(path, ": ", format_bytes(static_cast<uint64_t>(st.st_size)), ", larger than the ", format_bytes(max_bytes),
         " cpuft reads from a file of this kind");
  }
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  const bool ok = read_all(fd, max_bytes, &out);
  const int err = errno;
  ::close(fd);
  if (!ok) fail(path, ": read failed: ", std::strerror(err));
  if (out.size() > max_bytes)  // the file grew while being read
    fail(path, ": larger than the ", format_bytes(max_bytes), " cpuft reads from a file of this kind");
  return out;
}

std::string read_descriptor(int fd, const std::string& source, uint64_t max_bytes) {
  std::string out;
  if (!read_all(fd, max_bytes, &out)) fail(source, ": read failed: ", std::strerror(errno));
  if (out.size() > max_bytes) fail(source, ": more than the ", format_bytes(max_bytes), " cpuft reads from one input");
  return out;
}

}  // namespace cpuft
