// The scratch-directory helper every test uses: unique, and gone with its contents afterwards.
#include "common/temp_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

TEST(TempDir, IsAnEmptyDirectoryOfItsOwn) {
  cpuft_test::TempDir a, b("cpuft-other");
  EXPECT_TRUE(fs::is_directory(a.path()));
  EXPECT_TRUE(fs::is_empty(a.path()));
  EXPECT_NE(a.path(), b.path());
  EXPECT_NE(fs::path(b.path()).filename().string().find("cpuft-other-"), std::string::npos) << b.path();
  EXPECT_EQ(a / "x", a.path() + "/x");
}

TEST(TempDir, RemovesEverythingInsideWhenItGoesOutOfScope) {
  std::string path;
  {
    cpuft_test::TempDir dir;
    path = dir.path();
    fs::create_directories(dir / "a/b/c");
    std::ofstream(dir / "a/b/c/file") << "data";
    fs::create_symlink("/", dir / "link-to-root");  // removed as a link, not followed
  }
  EXPECT_FALSE(fs::exists(path)) << path;
  EXPECT_TRUE(fs::exists("/"));
}

TEST(TempDir, RemovesDirectoriesMadeReadOnly) {
  std::string path;
  {
    cpuft_test::TempDir dir;
    path = dir.path();
    fs::create_directories(dir / "ro/inner");
    std::ofstream(dir / "ro/inner/file") << "data";
    ASSERT_EQ(::chmod((dir / "ro/inner").c_str(), 0500), 0);
    ASSERT_EQ(::chmod((dir / "ro").c_str(), 0500), 0);
  }
  EXPECT_FALSE(fs::exists(path)) << path;
}

TEST(TempDir, KeptDirectoryStays) {
  std::string path;
  {
    cpuft_test::TempDir dir;
    path = dir.path();
    dir.keep();
    EXPECT_EQ(dir.path(), path);
  }
  EXPECT_TRUE(fs::is_directory(path));
  cpuft_test::TempDir::remove(path);
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempDir, UntilExitDirectoriesAreDistinct) {
  const std::string a = cpuft_test::temp_dir_until_exit(), b = cpuft_test::temp_dir_until_exit("cpuft-x");
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a));
  EXPECT_TRUE(fs::is_directory(b));
}

}  // namespace
