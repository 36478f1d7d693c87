// Runs tests/parallel/helper/parallel_helper.cc under mpirun on this machine (oversubscribed: 2 cores).
#include <gtest/gtest.h>

#include <string>

#include "parallel/mpi_run.h"

namespace {

class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    cpuft_test::prepare_mpirun_env();
    if (!cpuft_test::have_mpirun()) GTEST_SKIP() << "mpirun not found";
    if (!cpuft_test::helper_has_mpi(CPUFT_PARALLEL_HELPER)) GTEST_SKIP() << "built without MPI";
  }
  // Every run is bounded by `timeout` so that a hang fails the test instead of blocking it.
  static cpuft_test::RunResult mpirun(int np, const std::string& args, const std::string& bind = "none") {
    return cpuft_test::run_command("timeout 120 mpirun --oversubscribe --bind-to " + bind + " -np " +
                                   std::to_string(np) + " " CPUFT_PARALLEL_HELPER " " + args);
  }
};

TEST_F(Mpi, RanksAndLocalRanks) {
  cpuft_test::RunResult r = mpirun(2, "info");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rank=1 size=2 local_rank=1 local_size=2 nodes=1"), std::string::npos) << r.output;
}

TEST_F(Mpi, Collectives) {
  for (int np : {2, 4}) {
    cpuft_test::RunResult r = mpirun(np, "collectives");
    EXPECT_EQ(r.status, 0) << "np " << np << ": " << r.output;
  }
}

TEST_F(Mpi, OverlappedBucketsEqualBlockingAllreduce) {
  // 100000 floats in buckets of 10000 floats, marked in pieces of 777 that straddle bucket borders.
  // The ring that sums the buckets adds in another order than the blocking allreduce: equal within
  // f32 rounding (checked by the helper), and the same bits on every rank.
  cpuft_test::RunResult r = mpirun(4, "buckets 100000 40000 f32");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rank 3: 10 buckets, worst relative difference "), std::string::npos) << r.output;
}

TEST_F(Mpi, SparseRowsEqualBlockingAllreduceOfTheWholeTable) {
  // 300 rows of 7; 3 ranks touch 40 random rows each but rank 1, which touches none. Sums of values
  // exact in f32 (as in `buckets`), so the results must be equal bit for bit.
  cpuft_test::RunResult r = mpirun(3, "sparse 300 7 40");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rank 1: sparse rows exchanged"), std::string::npos) << r.output;
}

TEST_F(Mpi, Bf16WireWithinBf16Precision) {
  cpuft_test::RunResult r = mpirun(3, "buckets 100000 40000 bf16");
  ASSERT_EQ(r.status, 0) << r.output;
}

TEST_F(Mpi, ProgressThreadMovesTheBuckets) {
  for (const char* wire : {"f32", "bf16"}) {
    cpuft_test::RunResult r = mpirun(3, std::string("buckets 100000 40000 ") + wire + " thread");
    EXPECT_EQ(r.status, 0) << wire << ": " << r.output;
  }
}

TEST_F(Mpi, AbortEndsEveryRankNamingTheRank) {
  cpuft_test::RunResult r = mpirun(3, "abort 1");
  EXPECT_NE(r.status, 0);
  EXPECT_LT(r.seconds, 30) << r.output;
  EXPECT_NE(r.output.find("cpuft: rank 1 of 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("injected failure"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("allreduce returned"), std::string::npos) << r.output;
}

TEST_F(Mpi, ARankThatExitsEndsTheJob) {
  cpuft_test::RunResult r = mpirun(3, "exit 1");
  EXPECT_NE(r.status, 0);
  EXPECT_LT(r.seconds, 30) << r.output;
  // Open MPI names the process as [[job,1],rank].
  EXPECT_NE(r.output.find(",1],1]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("allreduce returned"), std::string::npos) << r.output;
}

TEST_F(Mpi, WatchdogEndsAJobWithAHungRank) {
  cpuft_test::RunResult r = mpirun(3, "hang 1 3");
  EXPECT_NE(r.status, 0);
  EXPECT_LT(r.seconds, 30) << r.output;
  EXPECT_NE(r.output.find("MPI_Allreduce has not completed within 3 s"), std::string::npos) << r.output;
}

TEST_F(Mpi, RanksOfANodeTakeDisjointCores) {
  cpuft_test::RunResult shared = mpirun(2, "place");
  ASSERT_EQ(shared.status, 0) << shared.output;
  EXPECT_NE(shared.output.find("rank 0: bound=0 threads on cpus 0\n"), std::string::npos) << shared.output;
  EXPECT_NE(shared.output.find("rank 1: bound=0 threads on cpus 1\n"), std::string::npos) << shared.output;
  // mpirun --bind-to core already gave each rank its core: each plans alone inside its binding.
  cpuft_test::RunResult bound = mpirun(2, "place", "core");
  ASSERT_EQ(bound.status, 0) << bound.output;
  EXPECT_NE(bound.output.find("rank 1: bound=1 threads on cpus 1\n"), std::string::npos) << bound.output;
}

TEST_F(Mpi, ClusterCheckOnOneHost) {
  cpuft_test::RunResult r = mpirun(2, "cluster-check");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cluster-check: OK"), std::string::npos) << r.output;
  cpuft_test::RunResult missing = mpirun(2, "cluster-check no-such-host");
  EXPECT_EQ(missing.status, 1) << missing.output;
  EXPECT_NE(missing.output.find("host no-such-host of the hostfile runs no rank"), std::string::npos)
      << missing.output;
}

}  // namespace
