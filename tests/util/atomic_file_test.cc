#include "cpuft/util/atomic_file.h"
#include "cpuft/util/read_file.h"

#include <gtest/gtest.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"

namespace {

}  // namespace

TEST(AtomicFile, WriteThenReadBack) {
  std::string dir = cpuft_test::temp_dir_until_exit();
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
  std::string dir = cpuft_test::temp_dir_until_exit();
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

// A link planted where the writer of old put its temporary ("<name>.tmp.<pid>", predictable) pointed
// at a victim: the victim was overwritten and the link renamed into place. Temporaries are now
// created exclusively under random names, so nothing planted is ever written through or installed.
TEST(AtomicFile, PlantedLinksAreNeverWrittenThroughOrInstalled) {
  std::string dir = cpuft_test::temp_dir_until_exit();
  const std::string victim = dir + "/victim";
  cpuft::write_file_atomic(victim, "precious");
  const std::string target = dir + "/model.safetensors";
  ASSERT_EQ(::symlink(victim.c_str(), (target + ".tmp." + std::to_string(::getpid())).c_str()), 0);
  cpuft::write_file_atomic(target, "new weights");
  EXPECT_EQ(cpuft::read_file(victim), "precious");
  struct stat st;
  ASSERT_EQ(::lstat(target.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(cpuft::read_file(target), "new weights");
  // A link at the final name itself is replaced, not followed.
  const std::string linked = dir + "/config.json";
  ASSERT_EQ(::symlink(victim.c_str(), linked.c_str()), 0);
  cpuft::write_file_atomic(linked, "{}");
  ASSERT_EQ(::lstat(linked.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(cpuft::read_file(victim), "precious");
}

TEST(AtomicFile, TemporaryNamesAreRecognisedAndLeaveNothingBehind) {
  EXPECT_TRUE(cpuft::is_atomic_temporary_name("model.safetensors.tmp-0123456789ab"));
  EXPECT_FALSE(cpuft::is_atomic_temporary_name("model.safetensors.tmp-0123456789"));
  EXPECT_FALSE(cpuft::is_atomic_temporary_name("model.safetensors.tmp-0123456789ag"));
  EXPECT_FALSE(cpuft::is_atomic_temporary_name(".tmp-0123456789ab"));
  EXPECT_FALSE(cpuft::is_atomic_temporary_name("notes.txt"));
  std::string dir = cpuft_test::temp_dir_until_exit();
  for (int i = 0; i < 20; ++i) cpuft::write_file_atomic(dir + "/f", std::to_string(i));
  int entries = 0;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = ::readdir(d)) entries += e->d_name[0] != '.';
  ::closedir(d);
  EXPECT_EQ(entries, 1);
}
