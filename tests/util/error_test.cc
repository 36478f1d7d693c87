#include "cpuft/util/error.h"

#include <gtest/gtest.h>

#include <new>

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

}  // namespace
}  // namespace cpuft
