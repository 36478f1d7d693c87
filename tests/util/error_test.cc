#include "cpuft/util/error.h"

#include <gtest/gtest.h>

TEST(Error, FailThrowsConcatenatedMessage) {
  try {
    cpuft::fail("config.json: field 'dim': found ", 770, ", expected a multiple of ", 12);
    FAIL() << "fail() returned";
  } catch (const cpuft::Error& e) {
    EXPECT_STREQ(e.what(), "config.json: field 'dim': found 770, expected a multiple of 12");
  }
}
