#include "cpuft/dist/cluster_check_command.h"

#include <cstdio>
#include <cstdlib>

#include "cpuft/dist/cluster_check.h"
#include "cpuft/dist/launcher.h"
#include "cpuft/util/error.h"

namespace cpuft {

int run_cluster_check_command(const ClusterCheckCommand& c, Communicator& comm) {
  std::vector<std::string> hosts = read_hostfile_hosts(c.hostfile);
  if (comm.using_mpi()) {
    ClusterCheckResult r = run_cluster_check(comm, c.version, hosts);
    if (comm.is_root()) std::fputs(format_cluster_check(r).c_str(), stdout);
    return r.problems.empty() ? 0 : 1;
  }
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
  MpiFlavour flavour = detect_mpi_flavour(mpirun_version_output(c.mpirun));
  if (flavour == MpiFlavour::open_mpi && !c.rsh_agent.empty())
    o.mpi_args.insert(o.mpi_args.begin(), {"--mca", "plm_rsh_agent", c.rsh_agent});
  o.program.push_back(self_executable());
  o.program.insert(o.program.end(), c.self_args.begin(), c.self_args.end());
  o.nodes = static_cast<int>(hosts.size());
  std::vector<std::string> cmd = build_mpirun_command(flavour, o);
  std::printf("%s\n", shell_join(cmd).c_str());
  exec_command(cmd);
}

}  // namespace cpuft
