// Input files are read only when they are regular files within a size limit: a directory, a FIFO or a
// device is named as such (a FIFO must not block the reader), and a large file is refused by its size.
#include "cpuft/util/read_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"

namespace {

std::string read_error(const std::string& path, uint64_t limit = cpuft::kMaxSmallJsonBytes) {
  try {
    cpuft::read_file(path, limit);
  } catch (const cpuft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReadFile, RegularFilesAndLinksToThemAreRead) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  std::ofstream(dir + "/a.txt") << "hello";
  ASSERT_EQ(::symlink((dir + "/a.txt").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_EQ(cpuft::read_file(dir + "/a.txt", 5), "hello");
  EXPECT_EQ(cpuft::read_file(dir + "/link", 100), "hello");
  EXPECT_TRUE(cpuft::is_regular_file(dir + "/link"));
}

TEST(ReadFile, OtherKindsAreNamedNotRead) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  EXPECT_EQ(read_error(dir), dir + ": is a directory, expected a regular file");
  EXPECT_EQ(read_error("/dev/zero"), "/dev/zero: is a character device, expected a regular file");
  EXPECT_EQ(read_error(dir + "/none"), dir + "/none: missing, expected a regular file");
  ASSERT_EQ(::symlink((dir + "/gone").c_str(), (dir + "/dangling").c_str()), 0);
  EXPECT_EQ(read_error(dir + "/dangling"), dir + "/dangling: is a dangling symbolic link, expected a regular file");
  // A FIFO with no writer: a blocking open would wait forever; the reader refuses it at once.
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_error(dir + "/fifo"), dir + "/fifo: is a FIFO, expected a regular file");
  EXPECT_EQ(cpuft::non_regular_kind(dir + "/fifo"), "a FIFO");
  EXPECT_THROW(cpuft::require_regular_file(dir), cpuft::Error);
}

TEST(ReadFile, SizeLimitIsCheckedBeforeReading) {
  const std::string dir = cpuft_test::temp_dir_until_exit();
  std::ofstream(dir + "/big") << std::string(2048, 'x');
  EXPECT_EQ(read_error(dir + "/big", 2047), dir + "/big: 2.0 KiB, larger than the 2.0 KiB cpuft reads from a file of this kind");
  EXPECT_EQ(cpuft::read_file(dir + "/big", 2048).size(), 2048u);
}

TEST(ReadFile, DescriptorReadsStopAtTheLimit) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "0123456789", 10), 10);
  ::close(fds[1]);
  try {
    cpuft::read_descriptor(fds[0], "<stdin>", 9);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "<stdin>: more than the 9 B cpuft reads from one input");
  }
  ::close(fds[0]);
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "abc", 3), 3);
  ::close(fds[1]);
  EXPECT_EQ(cpuft::read_descriptor(fds[0], "<stdin>", 3), "abc");
  ::close(fds[0]);
}

TEST(ReadFile, FormatBytes) {
  EXPECT_EQ(cpuft::format_bytes(512), "512 B");
  EXPECT_EQ(cpuft::format_bytes(uint64_t{16} << 20), "16.0 MiB");
  EXPECT_EQ(cpuft::format_bytes(uint64_t{3} << 30), "3.0 GiB");
}

}  // namespace
