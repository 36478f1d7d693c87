#include "cpuft/parallel/watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

TEST(Watchdog, FiresWhenACollectiveStaysOutstanding) {
  std::atomic<int> fired{0};
  std::string message;
  cpuft::CollectiveWatchdog dog(0.2, [&](const std::string& m) {
    message = m;
    ++fired;
  });
  dog.begin("MPI_Allreduce");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(fired.load(), 1);  // once only
  EXPECT_NE(message.find("MPI_Allreduce has not completed within 0.2 s"), std::string::npos) << message;
}

TEST(Watchdog, QuietWhileCollectivesComplete) {
  std::atomic<int> fired{0};
  cpuft::CollectiveWatchdog dog(0.3, [&](const std::string&) { ++fired; });
  for (int i = 0; i < 10; ++i) {
    cpuft::WatchedCollective w(&dog, "MPI_Barrier");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // idle, nothing outstanding
  EXPECT_EQ(fired.load(), 0);
}

}  // namespace
