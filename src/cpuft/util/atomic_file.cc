#include "cpuft/util/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

std::string parent_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void fsync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) return;  // best effort for directories on file systems that refuse it
  ::fsync(fd);
  ::close(fd);
}

// Creates a new temporary file beside `path`; never opens an existing name (O_EXCL), a symbolic
// link included (O_NOFOLLOW on top of O_EXCL, for the file systems that need it). Returns the
// descriptor, or -1 with errno set (EEXIST when 16 random names were all taken).
int create_temporary(const std::string& path, std::string* tmp) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    uint64_t r = 0;
    if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r))
      r = std::random_device{}() ^ (static_cast<uint64_t>(std::random_device{}()) << 32);
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%012llx", static_cast<unsigned long long>(r & 0xffffffffffffull));
    *tmp = path + ".tmp-" + suffix;
    const int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

bool is_atomic_temporary_name(const std::string& name) {
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos || at == 0 || name.size() - at != 5 + 12) return false;
  for (size_t i = at + 5; i < name.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  fd_ = create_temporary(path_, &tmp_);
  if (fd_ < 0) fail(path_, ": cannot create: ", std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFile::abandon(const char* what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  fail(path_, ": ", what, " failed: ", std::strerror(err));
}

// Small pieces are gathered into writes of about a megabyte; a large one is written as it is.
void AtomicFile::append(std::string_view bytes) {
  constexpr size_t kWriteSize = size_t{1} << 20;
  if (buffer_.size() + bytes.size() < kWriteSize) {
    buffer_.append(bytes);
    return;
  }
  flush();
  write_all(bytes);
}

void AtomicFile::flush() {
  write_all(buffer_);
  buffer_.clear();
}

void AtomicFile::write_all(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon("write", errno);
    }
    done += static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  flush();
  if (::fsync(fd_) != 0) abandon("fsync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    fail(path_, ": close failed: ", std::strerror(err));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    fail(path_, ": rename failed: ", std::strerror(err));
  }
  fsync_path(parent_of(path_), O_RDONLY | O_DIRECTORY);
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  AtomicFile f(path);
  f.append(bytes);
  f.commit();
}

void check_directory_writable(const std::string& dir) {
  std::string tmp;
  const int fd = create_temporary(dir + "/.cpuft-write-check", &tmp);
  if (fd < 0) fail(dir, ": not writable: ", std::strerror(errno));
  ::close(fd);
  ::unlink(tmp.c_str());
}

void commit_directory(const std::string& tmp_dir, const std::string& final_dir) {
  DIR* d = ::opendir(tmp_dir.c_str());
  if (d == nullptr) fail(tmp_dir, ": cannot open directory: ", std::strerror(errno));
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    fsync_path(tmp_dir + "/" + e->d_name, O_RDONLY);
  }
  ::closedir(d);
  fsync_path(tmp_dir, O_RDONLY | O_DIRECTORY);
  if (::rename(tmp_dir.c_str(), final_dir.c_str()) != 0)
    fail(final_dir, ": cannot rename ", tmp_dir, " into place: ", std::strerror(errno));
  fsync_path(parent_of(final_dir), O_RDONLY | O_DIRECTORY);
}

}  // namespace cpuft
