#include "cpuft/util/error.h"

#include <gtest/gtest.h>

#include <new>
#include <string>

namespace cpuft {
namespace {

// cli/main.cc exits with exit_status_of and prints error_line: 1 and "error: " for what the user can
// fix, 3 and "internal error: " for a broken invariant or anything else thrown (docs/ARCHITECTURE.md).
TEST(Errors, UserErrorsExit1AndInternalErrorsExit3) {
  try {
    fail("--seq: found ", 0);
  } catch (const std::exception& e) {
    EXPECT_EQ(exit_status_of(e), 1);
    EXPECT_EQ(error_line(e), "error: --seq: found 0");
  }
  try {
    fail_internal("GradBuckets::mark_ready before begin_step");
  } catch (const Error&) {
    ADD_FAILURE() << "an internal error is not a user error: code that rewords those must not catch it";
  } catch (const std::exception& e) {
    EXPECT_EQ(exit_status_of(e), 3);
    EXPECT_EQ(error_line(e), "internal error: GradBuckets::mark_ready before begin_step");
  }
  EXPECT_EQ(exit_status_of(std::bad_alloc()), 3);
}

// A message is printed on one line whatever it quotes: a path may hold a newline or an escape byte.
TEST(Errors, ControlBytesArePrintedEscaped) {
  EXPECT_EQ(one_line("plain text, UTF-8 \xC3\xA9"), "plain text, UTF-8 \xC3\xA9");
  EXPECT_EQ(one_line(std::string("a\nb\rc\td\0e\x1b[2J\x7f", 14)), "a\\nb\\rc\\td\\x00e\\x1b[2J\\x7f");
  try {
    fail("/data/dev\n.json: cannot open");
  } catch (const std::exception& e) {
    EXPECT_EQ(error_line(e), "error: /data/dev\\n.json: cannot open");
  }
}

}  // namespace
}  // namespace cpuft
