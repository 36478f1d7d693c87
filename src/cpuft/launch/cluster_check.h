// `cpuft cluster-check`: are the hosts of a hostfile fit to run one job together? Before mpirun, each
// host must answer the rsh agent / ssh without a password prompt; under mpirun, every rank reports
// its cpuft version and build, CPU, cores and memory, and the ranks time allreduce bandwidth
// (32 MB) and latency (8 bytes). Rank 0 prints a table; anything off makes the check fail.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cpuft/parallel/communicator.h"

namespace cpuft {

struct HostReport {
  int rank = 0;
  std::string hostname;
  std::string version;
  std::string build_id;  // hash of the running executable: equal builds give equal ids
  std::string cpu;       // describe_cpu()
  std::string isa;       // kernel ISA in use
  int logical_cpus = 0;
  int physical_cores = 0;
  int numa_nodes = 0;
  double mem_total_gib = 0;
  double mem_available_gib = 0;
};

struct AllreduceTiming {
  size_t bandwidth_bytes = 0;
  double bandwidth_seconds = 0;  // mean time of one allreduce of bandwidth_bytes
  double bandwidth_gbps = 0;     // bytes / time, in GB/s (1e9)
  double latency_us = 0;         // mean time of one 8-byte allreduce
};

struct ClusterCheckResult {
  std::vector<HostReport> ranks;
  AllreduceTiming timing;
  std::vector<std::string> problems;  // any makes the check fail
  std::vector<std::string> notes;     // worth knowing (e.g. different CPUs)
};

// FNV-1a 64 of /proc/self/exe, as 16 hex digits.
std::string executable_build_id();

// This process's report; `version` is the cpuft version string of the caller.
HostReport local_host_report(const std::string& version);

// Mean timings of allreduce over comm (every rank must call it).
AllreduceTiming measure_allreduce(Communicator& comm, size_t bandwidth_bytes, int bandwidth_iterations,
                                  int latency_iterations);

// Collective: every rank calls it; every rank gets the full result. expected_hosts (from the hostfile;
// may be empty) must each be served by at least one rank (compared up to the first '.').
ClusterCheckResult run_cluster_check(Communicator& comm, const std::string& version,
                                     const std::vector<std::string>& expected_hosts,
                                     size_t bandwidth_bytes = size_t{32} << 20, int latency_iterations = 1000);

// Fills r->problems and r->notes from r->ranks: versions or builds that differ from rank 0's, hosts of
// expected_hosts that run no rank, different CPUs or kernel ISAs (notes).
void find_cluster_problems(ClusterCheckResult* r, const std::vector<std::string>& expected_hosts);

// The table rank 0 prints, then problems and notes, then "cluster-check: OK" or "... FAILED".
std::string format_cluster_check(const ClusterCheckResult& result);

struct HostReachability {
  std::string host;
  bool ok = false;
  std::string detail;  // the agent's output when it failed
};

// Runs `<rsh_agent> -o BatchMode=yes -o ConnectTimeout=T -- HOST true` for every host (never prompts:
// stdin is /dev/null and the whole call is limited to timeout_s + 5 s). A host that is_valid_host_name
// refuses is an error, never passed to the agent.
std::vector<HostReachability> check_hosts_reachable(const std::vector<std::string>& hosts,
                                                    const std::string& rsh_agent, int timeout_s);

}  // namespace cpuft
