#include "cpuft/cli/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cpuft/util/error.h"

namespace cpuft {

void guard_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // The lowest free descriptor is `fd` itself, so open() fills the hole.
    const int got = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (got >= 0 && got != fd) ::close(got);
  }
}

void flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return;
  const int err = errno;
  std::clearerr(stdout);  // reported here, once
  fail("standard output: write failed: ", err != 0 ? std::strerror(err) : "the output could not be written");
}

int finish_stdout(int rc) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  int err = errno;
  const bool clean = flushed && !std::ferror(stdout);
  const bool closed = std::fclose(stdout) == 0;
  if (!closed && err == 0) err = errno;
  if (clean && closed) return rc;
  std::fprintf(stderr, "cpuft: error: standard output: write failed: %s\n",
               err != 0 ? std::strerror(err) : "the output could not be written");
  return rc != 0 ? rc : 1;
}

}  // namespace cpuft
