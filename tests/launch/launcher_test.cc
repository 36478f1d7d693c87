#include "cpuft/launch/launcher.h"
#include "cpuft/launch/sbatch_script.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/temp_dir.h"
#include "cpuft/util/error.h"

namespace {

cpuft::LaunchOptions two_by_two() {
  cpuft::LaunchOptions o;
  o.hostfile = "hosts";
  o.nodes = 2;
  o.nproc_per_node = 2;
  o.threads_per_rank = 8;
  o.program = {"cpuft", "train", "--output_dir", "out dir"};
  return o;
}

TEST(Launcher, DetectsFlavours) {
  EXPECT_EQ(cpuft::detect_mpi_flavour("mpirun (Open MPI) 4.1.4\n"), cpuft::MpiFlavour::kOpenMpi);
  EXPECT_EQ(cpuft::detect_mpi_flavour("HYDRA build details:\n    Version: 4.0.2\n"), cpuft::MpiFlavour::kMpich);
  EXPECT_EQ(cpuft::detect_mpi_flavour("Intel(R) MPI Library for Linux* OS, Version 2021.9 Build\n"),
            cpuft::MpiFlavour::kIntelMpi);
  EXPECT_EQ(cpuft::detect_mpi_flavour("something else"), cpuft::MpiFlavour::kUnknown);
}

TEST(Launcher, OpenMpiCommand) {
  EXPECT_EQ(cpuft::shell_join(cpuft::build_mpirun_command(cpuft::MpiFlavour::kOpenMpi, two_by_two())),
            "mpirun -np 4 --hostfile hosts --map-by ppr:2:node --bind-to none -x OMP_NUM_THREADS=8 cpuft train "
            "--output_dir 'out dir'");
  cpuft::LaunchOptions bound = two_by_two();
  bound.bind_to_core = true;
  bound.cores_per_rank = 8;
  EXPECT_EQ(cpuft::shell_join(cpuft::build_mpirun_command(cpuft::MpiFlavour::kOpenMpi, bound)),
            "mpirun -np 4 --hostfile hosts --map-by ppr:2:node:PE=8 --bind-to core -x OMP_NUM_THREADS=8 cpuft train "
            "--output_dir 'out dir'");
}

TEST(Launcher, MpichAndIntelCommands) {
  cpuft::LaunchOptions o = two_by_two();
  o.mpirun = "mpiexec";
  EXPECT_EQ(cpuft::shell_join(cpuft::build_mpirun_command(cpuft::MpiFlavour::kMpich, o)),
            "mpiexec -n 4 -f hosts -ppn 2 -bind-to none -genv OMP_NUM_THREADS 8 cpuft train --output_dir 'out dir'");
  EXPECT_EQ(cpuft::shell_join(cpuft::build_mpirun_command(cpuft::MpiFlavour::kIntelMpi, o)),
            "mpiexec -n 4 -f hosts -ppn 2 -genv I_MPI_PIN 0 -genv OMP_NUM_THREADS 8 cpuft train --output_dir "
            "'out dir'");
}

TEST(Launcher, RejectsBadOptions) {
  cpuft::LaunchOptions o = two_by_two();
  EXPECT_THROW(cpuft::build_mpirun_command(cpuft::MpiFlavour::kUnknown, o), cpuft::Error);
  o.nproc_per_node = 0;
  EXPECT_THROW(cpuft::build_mpirun_command(cpuft::MpiFlavour::kOpenMpi, o), cpuft::Error);
  o = two_by_two();
  o.program.clear();
  EXPECT_THROW(cpuft::build_mpirun_command(cpuft::MpiFlavour::kOpenMpi, o), cpuft::Error);
  o = two_by_two();
  o.nodes = 100000;
  o.nproc_per_node = 100000;  // 10^10 ranks: more than an int holds
  EXPECT_THROW(cpuft::build_mpirun_command(cpuft::MpiFlavour::kOpenMpi, o), cpuft::Error);
}

TEST(Launcher, ShellJoinQuotes) {
  EXPECT_EQ(cpuft::shell_join({"a", "it's", "", "x=1"}), "a 'it'\\''s' '' x=1");
}

TEST(Launcher, ReadsHostfiles) {
  const std::string path = cpuft_test::temp_dir_until_exit("cpuft-hostfile-test") + "/hosts";
  std::ofstream(path) << "# cluster\nnode1 slots=4\n\nnode2:2   # mpich style\n";
  EXPECT_EQ(cpuft::read_hostfile_hosts(path), (std::vector<std::string>{"node1", "node2"}));
  std::ofstream(path) << "# nothing\n";
  try {
    cpuft::read_hostfile_hosts(path);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
  std::remove(path.c_str());
  EXPECT_THROW(cpuft::read_hostfile_hosts(path), cpuft::Error);
}

// A hostfile line that ssh would read as an option ran a command through it (ProxyCommand).
TEST(Launcher, HostNamesThatAreNotNamesAreRefused) {
  const std::string path = cpuft_test::temp_dir_until_exit("cpuft-hostfile-test") + "/hosts";
  std::ofstream(path) << "node1\n-oProxyCommand=touch${IFS}/tmp/PWNED slots=1\n";
  try {
    cpuft::read_hostfile_hosts(path);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2: host name '-oProxyCommand=touch${IFS}/tmp/PWNED' is not valid; "
                                            "expected letters, digits, dots and hyphens, starting with a letter or digit");
  }
  std::remove(path.c_str());
  for (const char* good : {"node1", "n-2.cluster.example", "10.0.0.7", "A"}) EXPECT_TRUE(cpuft::is_valid_host_name(good));
  for (const char* bad : {"", "-x", ".x", "a b", "a;b", "a$(b)", "host_1", "x/y", "\xc3\xa9"})
    EXPECT_FALSE(cpuft::is_valid_host_name(bad)) << bad;
  EXPECT_FALSE(cpuft::is_valid_host_name(std::string(254, 'a')));
}

TEST(Launcher, FindsTheInstalledMpi) {
  std::string out;
  try {
    out = cpuft::mpirun_version_output("mpirun");
  } catch (const cpuft::Error&) {
    GTEST_SKIP() << "no mpirun on PATH";
  }
  EXPECT_NE(cpuft::detect_mpi_flavour(out), cpuft::MpiFlavour::kUnknown) << out;
  EXPECT_THROW(cpuft::mpirun_version_output("/nonexistent/mpirun"), cpuft::Error);
}

}  // namespace

namespace {

cpuft::SbatchOptions four_nodes() {
  cpuft::SbatchOptions o;
  o.nodes = 4;
  o.ranks_per_node = 2;
  o.program = {"/opt/cpuft", "train", "--output_dir", "out dir"};
  o.plan = "placement: 2 rank(s) per node\n  local rank 0: 15 thread(s) on cpus 0-14\n";
  o.written_on = "login1";
  return o;
}

TEST(SbatchScript, NodesRanksPlanAndSrun) {
  const std::string s = cpuft::sbatch_script(four_nodes());
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u) << s;
  EXPECT_NE(s.find("\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=2\n#SBATCH --exclusive\n"), std::string::npos) << s;
  EXPECT_NE(s.find("`cpuft doctor --ranks-per-node 2`"), std::string::npos) << s;
  EXPECT_NE(s.find("# The plan on login1"), std::string::npos) << s;
  EXPECT_NE(s.find("\n#     local rank 0: 15 thread(s) on cpus 0-14\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("OMP_NUM_THREADS"), std::string::npos) << "threads are cpuft's own plan unless given: " << s;
  EXPECT_NE(s.find("\nsrun --mpi=pmix --cpu-bind=none /opt/cpuft train --output_dir 'out dir'\n"), std::string::npos)
      << s;
  // Every line is a comment, a directive or a command bash accepts: no stray text from the plan.
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);)
    EXPECT_TRUE(line.empty() || line[0] == '#' || line.rfind("set ", 0) == 0 || line.rfind("srun ", 0) == 0) << line;
}

TEST(SbatchScript, ThreadsAndMpirunInsideTheAllocation) {
  cpuft::SbatchOptions o = four_nodes();
  o.threads_per_rank = 15;
  o.mpirun = {"mpirun", "-np", "8", "--map-by", "ppr:2:node", "--bind-to", "none", "/opt/cpuft", "train"};
  const std::string s = cpuft::sbatch_script(o);
  EXPECT_NE(s.find("\nexport OMP_NUM_THREADS=15\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nmpirun -np 8 --map-by ppr:2:node --bind-to none /opt/cpuft train\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("srun"), std::string::npos) << s;
}

TEST(SbatchScript, RejectsBadOptionsNamingTheFlag) {
  cpuft::SbatchOptions o = four_nodes();
  o.nodes = 0;
  try {
    cpuft::sbatch_script(o);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--nodes: found 0"), std::string::npos) << e.what();
  }
  o = four_nodes();
  o.program.clear();
  EXPECT_THROW(cpuft::sbatch_script(o), cpuft::Error);
}

}  // namespace
