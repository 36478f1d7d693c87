#include "cpuft/util/signals.h"

#include <gtest/gtest.h>
#include <signal.h>

TEST(Signals, FirstSigintOnlyRequestsStop) {
  cpuft::install_stop_handlers();
  cpuft::clear_stop_request();
  EXPECT_FALSE(cpuft::stop_requested());
  ::raise(SIGINT);
  EXPECT_TRUE(cpuft::stop_requested());
  EXPECT_EQ(cpuft::stop_signal(), SIGINT);
  EXPECT_EQ(cpuft::signal_name(cpuft::stop_signal()), "SIGINT");
  cpuft::clear_stop_request();
  EXPECT_FALSE(cpuft::stop_requested());
}

TEST(Signals, SigtermRequestsStopAndRepeatsHarmlessly) {
  cpuft::install_stop_handlers();
  cpuft::clear_stop_request();
  ::raise(SIGTERM);
  ::raise(SIGTERM);
  EXPECT_TRUE(cpuft::stop_requested());
  EXPECT_EQ(cpuft::signal_name(cpuft::stop_signal()), "SIGTERM");
  EXPECT_EQ(cpuft::signal_name(0), "signal 0");
  cpuft::clear_stop_request();
}

TEST(SignalsDeathTest, SecondSigintExitsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        cpuft::install_stop_handlers();
        cpuft::clear_stop_request();
        ::raise(SIGINT);
        ::raise(SIGINT);
      },
      ::testing::ExitedWithCode(130), "second interrupt");
}
