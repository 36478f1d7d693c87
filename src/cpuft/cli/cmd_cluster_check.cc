// cpuft cluster-check --hostfile FILE: checks every host of a hostfile before a multi-host job
// (launch/cluster_check.h), in two phases. Started by hand (not under mpirun), the command checks that
// every host answers the rsh agent / ssh without a prompt, then starts itself under mpirun with one
// rank per host. Under mpirun, the ranks run run_cluster_check and rank 0 prints the table. The exit
// status is 0 only when every host answered and nothing is off.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpuft/cli/commands.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"
#include "cpuft/launch/cluster_check.h"
#include "cpuft/launch/launcher.h"

namespace cpuft {
namespace {

struct ClusterCheckArgs {
  std::string hostfile;
  std::string rsh_agent;  // empty: $OMPI_MCA_plm_rsh_agent, else "ssh"
  int timeout_s = 10;     // per host, for the reachability check
  std::string mpirun = "mpirun";
  std::vector<std::string> mpi_args;  // passed to mpirun (e.g. --mca btl tcp,self)
};

// Outside mpirun: every host must answer; then this command again under mpirun, one rank per host
// (the process is replaced by mpirun, its command printed first). Returns only when a host failed.
int check_reachable_then_restart(const ClusterCheckArgs& c, const std::vector<std::string>& hosts) {
  std::string agent = c.rsh_agent;
  if (agent.empty()) agent = std::getenv("OMPI_MCA_plm_rsh_agent") ? std::getenv("OMPI_MCA_plm_rsh_agent") : "ssh";
  bool all_ok = true;
  for (const HostReachability& h : check_hosts_reachable(hosts, agent, c.timeout_s)) {
    std::printf("%-20s %s%s%s\n", h.host.c_str(), h.ok ? "reachable" : "NOT REACHABLE", h.ok ? "" : ": ",
                h.detail.c_str());
    all_ok = all_ok && h.ok;
  }
  if (!all_ok) {
    std::printf("cluster-check: FAILED (hosts above cannot be reached by '%s' without a prompt)\n", agent.c_str());
    return 1;
  }
  LaunchOptions o;
  o.mpirun = c.mpirun;
  o.hostfile = c.hostfile;
  o.nproc_per_node = 1;
  o.mpi_args = c.mpi_args;
  const MpiFlavour flavour = detect_mpi_flavour(mpirun_version_output(c.mpirun));
  if (flavour == MpiFlavour::kOpenMpi && !c.rsh_agent.empty())
    o.mpi_args.insert(o.mpi_args.begin(), {"--mca", "plm_rsh_agent", c.rsh_agent});
  o.program = {self_executable(), "cluster-check", "--hostfile", c.hostfile};
  o.nodes = static_cast<int>(hosts.size());
  const std::vector<std::string> cmd = build_mpirun_command(flavour, o);
  std::printf("%s\n", shell_join(cmd).c_str());
  std::fflush(stdout);
  exec_command(cmd);
}

}  // namespace

int cmd_cluster_check(const Argv& argv, Communicator& comm, const StartComm& start) {
  ClusterCheckArgs c;
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
  const std::vector<std::string> hosts = read_hostfile_hosts(c.hostfile);
  if (!comm.using_mpi()) return check_reachable_then_restart(c, hosts);
  const ClusterCheckResult r = run_cluster_check(comm, CPUFT_VERSION, hosts);
  if (comm.is_root()) std::fputs(format_cluster_check(r).c_str(), stdout);
  return r.problems.empty() ? 0 : 1;
}

}  // namespace cpuft
