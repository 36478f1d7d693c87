#include "cpuft/parallel/grad_buckets.h"

#include <gtest/gtest.h>

#include "cpuft/util/error.h"

namespace {

// A communicator that was never init()-ed is a world of one: every allreduce completes at once, so
// these tests see the bucket bookkeeping alone; the MPI scenarios live in mpi_test.cc.

TEST(GradBuckets, PlansFromTheEndOfTheArena) {
  cpuft::Communicator comm;
  std::vector<float> g(10);
  cpuft::GradBuckets gb(comm, g.data(), g.size(), 4 * sizeof(float));
  ASSERT_EQ(gb.buckets().size(), 3u);
  EXPECT_EQ(gb.buckets()[0].begin, 6u);
  EXPECT_EQ(gb.buckets()[0].end, 10u);
  EXPECT_EQ(gb.buckets()[1].begin, 2u);
  EXPECT_EQ(gb.buckets()[2].begin, 0u);
  EXPECT_EQ(gb.buckets()[2].end, 2u);
}

TEST(GradBuckets, StartsABucketOnlyWhenAllOfItIsReady) {
  cpuft::Communicator comm;
  std::vector<float> g(10, 2.0f);
  cpuft::GradBuckets gb(comm, g.data(), g.size(), 4 * sizeof(float));
  gb.begin_step();
  gb.mark_ready(7, 10);
  EXPECT_TRUE(gb.started().empty());
  gb.mark_ready(5, 7);  // completes bucket 0 [6,10) and part of bucket 1 [2,6)
  EXPECT_EQ(gb.started(), std::vector<int>{0});
  gb.mark_ready(0, 5);
  EXPECT_EQ(gb.started(), (std::vector<int>{0, 1, 2}));
  gb.wait_all();
  EXPECT_EQ(g, std::vector<float>(10, 2.0f));  // a world of one: the sum is the identity
}

TEST(GradBuckets, WaitAllRefusesAnIncompleteBucket) {
  cpuft::Communicator comm;
  std::vector<float> g(10);
  cpuft::GradBuckets gb(comm, g.data(), g.size(), 16);
  gb.begin_step();
  gb.mark_ready(1, 10);
  try {
    gb.wait_all();
    FAIL();
  } catch (const cpuft::InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("bucket [0, 2) has 1 of 2"), std::string::npos) << e.what();
  }
}

TEST(GradBuckets, RejectsRangesMarkedTwiceOrOutside) {
  cpuft::Communicator comm;
  std::vector<float> g(8);
  cpuft::GradBuckets gb(comm, g.data(), g.size(), 16);
  EXPECT_THROW(gb.mark_ready(0, 1), cpuft::InternalError);  // before begin_step
  gb.begin_step();
  EXPECT_THROW(gb.mark_ready(4, 9), cpuft::InternalError);
  gb.mark_ready(6, 8);
  EXPECT_THROW(gb.mark_ready(5, 8), cpuft::InternalError);
}

TEST(Communicator, WorldOfOneWithoutLauncher) {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  unsetenv("PMI_RANK");
  unsetenv("PMIX_RANK");
  unsetenv("MPI_LOCALNRANKS");
  cpuft::Communicator comm;
  int argc = 1;
  char arg0[] = "test";
  char* args[] = {arg0, nullptr};
  char** argv = args;
  comm.init(&argc, &argv);
  EXPECT_FALSE(comm.using_mpi());
  EXPECT_EQ(comm.size(), 1);
  EXPECT_EQ(comm.local_size(), 1);
  float v[2] = {1, 2};
  comm.allreduce_sum(v, 2);
  comm.broadcast(v, 2, 0);
  EXPECT_EQ(v[1], 2.0f);
  EXPECT_EQ(comm.allgather_bytes("x"), std::vector<std::string>{"x"});
  cpuft::AllreduceHandle h = comm.iallreduce_sum(v, 2, cpuft::WireType::kBf16);
  EXPECT_TRUE(h.test());
  EXPECT_THROW(comm.abort(3, "bad"), cpuft::Error);
}

}  // namespace
