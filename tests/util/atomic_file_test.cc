#include "cpuft/util/atomic_file.h"
#include "cpuft/util/read_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "cpuft/util/error.h"

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/cpuft_test_XXXXXX";
  return ::mkdtemp(tmpl);
}

}  // namespace

TEST(AtomicFile, WriteThenReadBack) {
  std::string dir = temp_dir();
  cpuft::write_file_atomic(dir + "/a.txt", "hello");
  EXPECT_EQ(cpuft::read_file(dir + "/a.txt"), "hello");
  cpuft::write_file_atomic(dir + "/a.txt", "replaced");
  EXPECT_EQ(cpuft::read_file(dir + "/a.txt"), "replaced");
}

TEST(AtomicFile, WriteIntoMissingDirectoryFailsWithPath) {
  try {
    cpuft::write_file_atomic("/nonexistent-dir/x.json", "{}");
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.json"), std::string::npos);
  }
}

TEST(AtomicFile, CommitDirectoryRenamesIntoPlace) {
  std::string dir = temp_dir();
  ::mkdir((dir + "/ckpt.tmp").c_str(), 0755);
  cpuft::write_file_atomic(dir + "/ckpt.tmp/f", "x");
  cpuft::commit_directory(dir + "/ckpt.tmp", dir + "/ckpt");
  EXPECT_EQ(cpuft::read_file(dir + "/ckpt/f"), "x");
  struct stat st;
  EXPECT_NE(::stat((dir + "/ckpt.tmp").c_str(), &st), 0);
}

TEST(AtomicFile, ReadMissingFileNamesIt) {
  EXPECT_THROW(cpuft::read_file("/nonexistent/file"), cpuft::Error);
}

