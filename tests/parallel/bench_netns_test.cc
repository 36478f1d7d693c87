// `cpuft bench` across two emulated hosts whose links are shaped to 25 Gbit/s: the measurement that
// docs/scaling.md reports, run briefly on a small model. scripts/netns-cluster.sh makes the hosts
// (network namespaces on a private bridge, one CPU each where there are two), `shape 25gbit` puts a
// tbf qdisc on both ends of every host's link. Checks that the figures are printed and consistent and
// that the gradients really crossed the shaped links (the qdiscs' byte counters); never a timing.
// Skipped where namespaces cannot be made (not root, no ip netns) or tc cannot shape. The hosts' names
// and subnet are this test process's own (parallel/netns_hosts.h).
#include <unistd.h>

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "parallel/mpi_run.h"
#include "parallel/netns_hosts.h"

namespace {

class BenchNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    cpuft_test::prepare_mpirun_env();
    if (std::string why = cpuft_test::NetnsHosts::unavailable(); !why.empty()) GTEST_SKIP() << why;
    if (!cpuft_test::have_mpirun()) GTEST_SKIP() << "mpirun not found";
    if (!cpuft_test::helper_has_mpi(CPUFT_PARALLEL_HELPER)) GTEST_SKIP() << "built without MPI";
    if (cpuft_test::run_command("tc -V").status != 0) GTEST_SKIP() << "tc not available";
    // One CPU per host where the machine has two, as on separate machines.
    const std::string cpus = std::thread::hardware_concurrency() >= 2 ? "0 1" : "";
    if (std::string failed = hosts_.up(2, 1, cpus); !failed.empty())
      GTEST_SKIP() << "cannot create namespaces here: " << failed;
    cpuft_test::RunResult shape = hosts_.script("shape 25gbit");
    if (shape.status != 0) GTEST_SKIP() << "tc cannot shape the links here: " << shape.output;
  }
  void TearDown() override { hosts_.down(); }
  // Bytes the tbf qdisc on host i's eth0 has sent (what host i put on its shaped link).
  double tbf_bytes_sent(int host) const {
    cpuft_test::RunResult r =
        cpuft_test::run_command("ip netns exec " + hosts_.host(host) + " tc -s qdisc show dev eth0");
    std::smatch m;
    if (r.output.find("tbf") == std::string::npos || !std::regex_search(r.output, m, std::regex("Sent ([0-9]+) bytes")))
      return -1;
    return std::stod(m[1]);
  }

  cpuft_test::NetnsHosts hosts_;
};

TEST_F(BenchNetns, TwoShapedHostsReportSaneFigures) {
  const std::string qdisc = cpuft_test::run_command("tc qdisc show dev " + hosts_.veth(1)).output;
  ASSERT_NE(qdisc.find("rate 25Gbit"), std::string::npos) << qdisc;
  const double sent_before = tbf_bytes_sent(1);
  ASSERT_GE(sent_before, 0) << "no tbf qdisc on " << hosts_.host(1);
  // Two layers of hidden 256 over a 2,000-word vocabulary: 3.9 MB of f32 gradients, 1 MB buckets.
  cpuft_test::RunResult r = cpuft_test::run_command(
      "timeout -k 10 300 mpirun --bind-to none -np 2 --map-by ppr:1:node " + hosts_.mpirun_flags() + " " CPUFT_BINARY
      " bench --hidden 256 --layers 2 --heads 4 --intermediate 1024 --vocab 2000 --batch 4 --seq 64 --steps 2"
      " --warmup 1 --bucket_size_mb 1 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t at = r.output.find("\n{") + 1;
  ASSERT_NE(at, 0u) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(at, r.output.find('\n', at) - at));
  std::printf("[ 2 hosts at 25 Gbit/s: step %.3f s, one rank %.3f s, efficiency %.1f%%, allreduce %.1f ms, exposed "
              "%.1f ms, hidden %.1f%%, alone %.1f ms ]\n",
              j.at("step_s").get<double>(), j.at("local_step_s").get<double>(),
              100 * j.at("scaling_efficiency").get<double>(), 1e3 * j.at("allreduce_s").get<double>(),
              1e3 * j.at("allreduce_exposed_s").get<double>(), 100 * j.at("allreduce_hidden").get<double>(),
              1e3 * j.at("allreduce_alone_s").get<double>());
  EXPECT_EQ(j.at("ranks"), 2);
  EXPECT_EQ(j.at("nodes"), 2);  // the namespaces are separate hosts to Open MPI
  const double step = j.at("step_s"), local = j.at("local_step_s"), ar = j.at("allreduce_s"),
               exposed = j.at("allreduce_exposed_s"), hidden = j.at("allreduce_hidden");
  EXPECT_GT(step, 0);
  EXPECT_GT(local, 0);
  EXPECT_GT(j.at("scaling_efficiency").get<double>(), 0);
  EXPECT_GT(ar, 0);
  EXPECT_GE(exposed, 0);
  // The wait before clipping starts after the last bucket and ends with it: within the allreduce's span.
  EXPECT_LE(exposed, ar * 1.05 + 1e-3);
  const double straggler = j.at("straggler_s");
  EXPECT_GE(straggler, 0);
  EXPECT_LE(straggler, exposed + 1e-12);
  EXPECT_NEAR(hidden, 1 - (exposed - straggler) / (ar - straggler), 1e-12);
  EXPECT_LE(hidden, 1.0);
  // f32: 4 bytes per dense parameter (all but the 2,000 x 256 word rows) and per touched word-row element.
  const double params = j.at("params"), mb = j.at("allreduce_mb_per_step");
  EXPECT_GE(mb, 4 * (params - 2000 * 256) / 1e6);
  EXPECT_LE(mb, 4 * params / 1e6);
  // Each rank sent at least its share of a step's gradients through its shaped link per timed and
  // warm-up step (binomial or ring, every rank sends about what it sums).
  const double sent = tbf_bytes_sent(1) - sent_before;
  EXPECT_GT(sent, 0.5 * mb * 1e6 * 3) << "bytes through " << hosts_.host(1) << "'s tbf qdisc: " << sent;
}

}  // namespace
