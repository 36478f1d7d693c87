#include "cpuft/util/dir_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

std::string this_host() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) return "?";
  return host;
}

// Who a lock file says holds it; pid 0 when the file names no one (empty or unreadable).
struct Owner {
  int64_t pid = 0;
  std::string host;
  std::string text() const { return str_cat("process ", pid, " on host ", text_preview(host)); }
};

Owner read_owner(int fd) {
  char buf[4096];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  Owner o;
  if (n <= 0) return o;
  try {
    const nlohmann::json j = parse_json(std::string_view(buf, static_cast<size_t>(n)), "lock file");
    if (j.is_object() && j.value("pid", nlohmann::json()).is_number_integer() &&
        j.value("host", nlohmann::json()).is_string()) {
      o.pid = j["pid"].get<int64_t>();
      o.host = j["host"].get<std::string>();
    }
  } catch (const Error&) {
  }
  return o;
}

bool same_file(int fd, const std::string& path) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool pid_alive(int64_t pid) { return pid > 0 && pid <= INT32_MAX && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

[[noreturn]] void refuse(const std::string& dir, const std::string& path, const Owner& owner, const char* why) {
  fail(dir, ": in use by ", owner.pid > 0 ? owner.text() : std::string("another process"), " (lock file ", path, "); ",
       why);
}

}  // namespace

DirLock::DirLock(const std::string& dir) {
  const std::string path = dir + "/" + kDirLockFile;
  const std::string host = this_host();
  // A holder that releases between our open() and flock() has removed the file we opened: then it
  // guards nothing and we try again with the file now at `path`.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) fail(path, ": cannot create the lock file: ", std::strerror(errno));
    bool locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    const int err = errno;
    if (!locked && (err == EWOULDBLOCK || err == EINTR)) {
      const Owner o = read_owner(fd);
      ::close(fd);
      refuse(dir, path, o, "wait for it to finish, or choose another directory");
    }
    // No flock on this file system (some network file systems): the recorded owner is all there is.
    if (!locked && err != ENOLCK && err != EOPNOTSUPP && err != ENOSYS && err != EINVAL) {
      ::close(fd);
      fail(path, ": cannot lock: ", std::strerror(err));
    }
    if (locked && !same_file(fd, path)) {
      ::close(fd);
      continue;
    }
    const Owner previous = read_owner(fd);
    if (previous.pid > 0 && previous.pid != ::getpid()) {
      const char* remove = "if it has ended, remove the lock file";
      if (previous.host != host) {
        ::close(fd);
        refuse(dir, path, previous, str_cat("whether it still runs cannot be told from here; ", remove).c_str());
      }
      if (!locked && pid_alive(previous.pid)) {
        ::close(fd);
        refuse(dir, path, previous, remove);
      }
      log_notice(dir, ": taking over the lock of ", previous.text(), ", which has ended (", path, ")");
    }
    const std::string me = nlohmann::json{{"pid", static_cast<int64_t>(::getpid())}, {"host", host}}.dump() + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      const int werr = errno;
      ::close(fd);
      fail(path, ": cannot write the lock file: ", std::strerror(werr));
    }
    fd_ = fd;
    path_ = path;
    return;
  }
  fail(path, ": cannot lock: the lock file kept being replaced by other processes");
}

DirLock::DirLock(DirLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

void DirLock::release() {
  if (fd_ < 0) return;
  // Removed while still locked, so that no other process takes a file that is about to go away
  // (one that opened it already finds it gone once it holds the lock, and tries again).
  if (same_file(fd_, path_)) ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace cpuft
