// cpuft cluster-check: checks every host of a hostfile before a multi-host job (dist/cluster_check.h).
#include <cstdio>

#include "cpuft/cli/commands.h"
#include "cpuft/dist/cluster_check_command.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"

namespace cpuft {

int cmd_cluster_check(const Argv& argv, Communicator& comm, const StartComm& start) {
  ClusterCheckCommand c;
  c.version = CPUFT_VERSION;
  FlagTable t("cluster-check",
              "Checks that every host of the hostfile answers without a password prompt, then runs one rank per\n"
              "host under mpirun: same cpuft version and build, CPU features, cores, free memory, allreduce\n"
              "bandwidth and latency. Exits non-zero if anything is off.\n");
  t.text("hostfile", "FILE", &c.hostfile, "the hosts to check, one per line").as_required();
  t.text("rsh-agent", "PATH", &c.rsh_agent, "the remote shell to reach the hosts with")
      .with_default_text("$OMPI_MCA_plm_rsh_agent, else ssh");
  t.integer("timeout", &c.timeout_s, 1, 1000000, "seconds each host has to answer").with_placeholder("S");
  t.text("mpirun", "PATH", &c.mpirun, "the mpirun to run the ranks with");
  // Its values are mpirun's own flags ("--mpi-arg --mca --mpi-arg btl ..."), so they may start with --.
  t.text_list("mpi-arg", "ARG", &c.mpi_args, "one more argument for mpirun, before the program").with_raw_value();
  const bool help = parse_flags(t, argv).help;
  start({});
  if (help) {
    if (comm.is_root()) std::fputs(flag_help(t).c_str(), stdout);
    return 0;
  }
  c.self_args = {"cluster-check", "--hostfile", c.hostfile};
  return run_cluster_check_command(c, comm);
}

}  // namespace cpuft
