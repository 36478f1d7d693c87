// One writer per directory: the lock is refused to a second holder naming the first, released on
// destruction, and a lock file left by a process that ended is taken over with a notice.
#include "cpuft/util/dir_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"
#include "cpuft/util/log.h"

namespace cpuft {
namespace {

std::string host() {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  return h;
}

std::string lock_error(const std::string& dir) {
  try {
    DirLock again(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The pid of a process that has ended (and been reaped).
pid_t ended_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(DirLock, ASecondHolderIsRefusedNamingTheFirst) {
  const cpuft_test::TempDir tmp("cpuft_lock_test");
  const std::string lock_file = tmp / ".cpuft.lock";
  {
    DirLock lock(tmp.path());
    EXPECT_TRUE(lock.held());
    EXPECT_TRUE(std::filesystem::exists(lock_file));
    EXPECT_EQ(lock_error(tmp.path()), tmp.path() + ": in use by process " + std::to_string(::getpid()) + " on host " +
                                          host() + " (lock file " + lock_file +
                                          "); wait for it to finish, or choose another directory");
    DirLock moved = std::move(lock);
    EXPECT_FALSE(lock.held());
    EXPECT_NE(lock_error(tmp.path()), "(no error)") << "a moved lock is still held";
  }
  EXPECT_FALSE(std::filesystem::exists(lock_file)) << "released on destruction";
  DirLock again(tmp.path());
  EXPECT_TRUE(again.held());
}

TEST(DirLock, ALockLeftByAProcessThatEndedIsTakenOverWithANotice) {
  const cpuft_test::TempDir tmp("cpuft_lock_test");
  const pid_t dead = ended_pid();
  std::ofstream(tmp / ".cpuft.lock") << "{\"pid\": " << dead << ", \"host\": \"" << host() << "\"}\n";
  std::string said;
  set_log_sink([&](const std::string& text) { said += text; });
  {
    DirLock lock(tmp.path());
    EXPECT_TRUE(lock.held());
  }
  set_log_sink(nullptr);
  EXPECT_EQ(said, "cpuft: notice: " + tmp.path() + ": taking over the lock of process " + std::to_string(dead) +
                      " on host " + host() + ", which has ended (" + tmp.path() + "/.cpuft.lock)\n");
  // An empty or unreadable file names no one: taken without a word.
  std::ofstream(tmp / ".cpuft.lock") << "{not json";
  said.clear();
  set_log_sink([&](const std::string& text) { said += text; });
  { DirLock lock(tmp.path()); }
  set_log_sink(nullptr);
  EXPECT_EQ(said, "");
}

TEST(DirLock, ALockOfAnotherHostIsNotTakenOver) {
  const cpuft_test::TempDir tmp("cpuft_lock_test");
  std::ofstream(tmp / ".cpuft.lock") << "{\"pid\": 4242, \"host\": \"elsewhere.example\"}\n";
  EXPECT_EQ(lock_error(tmp.path()),
            tmp.path() + ": in use by process 4242 on host elsewhere.example (lock file " + tmp.path() +
                "/.cpuft.lock); whether it still runs cannot be told from here; if it has ended, remove the lock file");
  EXPECT_TRUE(std::filesystem::exists(tmp / ".cpuft.lock")) << "left as it was";
}

TEST(DirLock, AMissingDirectoryIsAnError) {
  const cpuft_test::TempDir tmp("cpuft_lock_test");
  EXPECT_EQ(lock_error(tmp / "missing"),
            tmp / "missing/.cpuft.lock" + ": cannot create the lock file: No such file or directory");
}

}  // namespace
}  // namespace cpuft
