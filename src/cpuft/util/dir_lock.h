// One writer per directory: a lock file (DIR/.cpuft.lock) held by the process that writes into DIR,
// so that a second run into the same output directory is refused before it writes anything, instead
// of removing the first run's temporary checkpoint or overwriting its files.
//
// The lock is flock(2) on the file, which the kernel releases when its holder ends however it ends
// (kill -9 included); the file records the holder's pid and host for the message that refuses
// another. A file left by a holder that ended is stale and taken over with a notice. A file naming
// another host is not taken over, since whether that process still runs cannot be told from here;
// where the file system has no flock, a file naming a live process of this host is not either.
#pragma once

#include <string>

namespace cpuft {

constexpr const char* kDirLockFile = ".cpuft.lock";

class DirLock {
 public:
  DirLock() = default;  // holds nothing
  // Takes the lock of `dir` (an existing directory). Throws cpuft::Error when another process holds
  // it: "DIR: in use by process PID on host HOST (lock file DIR/.cpuft.lock); ...".
  explicit DirLock(const std::string& dir);
  ~DirLock() { release(); }
  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  // Removes the lock file (when it is still this lock's) and lets go of it. Also done on destruction,
  // so a command's error paths release it too.
  void release();
  bool held() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace cpuft
