#include "cpuft/launch/cluster_check.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cpuft/cpu/cpu_features.h"
#include "cpuft/cpu/isa.h"
#include "cpuft/cpu/topology.h"
#include "cpuft/launch/launcher.h"
#include "cpuft/util/clock.h"
#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"

namespace cpuft {
namespace {

double meminfo_gib(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  double kib = 0;
  std::string unit;
  while (in >> name >> kib >> unit)
    if (name == key + ":") return kib / (1024.0 * 1024.0);
  return 0;
}

std::string short_name(const std::string& host) { return host.substr(0, host.find('.')); }

nlohmann::json to_json(const HostReport& h) {
  return {{"rank", h.rank},
          {"hostname", h.hostname},
          {"version", h.version},
          {"build_id", h.build_id},
          {"cpu", h.cpu},
          {"isa", h.isa},
          {"logical_cpus", h.logical_cpus},
          {"physical_cores", h.physical_cores},
          {"numa_nodes", h.numa_nodes},
          {"mem_total_gib", h.mem_total_gib},
          {"mem_available_gib", h.mem_available_gib}};
}

HostReport from_json(const nlohmann::json& j) {
  HostReport h;
  h.rank = j.at("rank");
  h.hostname = j.at("hostname");
  h.version = j.at("version");
  h.build_id = j.at("build_id");
  h.cpu = j.at("cpu");
  h.isa = j.at("isa");
  h.logical_cpus = j.at("logical_cpus");
  h.physical_cores = j.at("physical_cores");
  h.numa_nodes = j.at("numa_nodes");
  h.mem_total_gib = j.at("mem_total_gib");
  h.mem_available_gib = j.at("mem_available_gib");
  return h;
}

}  // namespace

std::string executable_build_id() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) fail("/proc/self/exe: cannot open to compute the build id");
  uint64_t h = 1469598103934665603ull;
  char buf[1 << 16];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 1099511628211ull;
    }
  }
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << h;
  return os.str();
}

HostReport local_host_report(const std::string& version) {
  HostReport h;
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  h.hostname = name;
  h.version = version;
  h.build_id = executable_build_id();
  h.cpu = describe_cpu();
  h.isa = isa_name(kernel_isa());
  Topology t = read_topology();
  h.logical_cpus = t.logical_cpus;
  h.physical_cores = static_cast<int>(t.cores.size());
  h.numa_nodes = t.numa_nodes;
  h.mem_total_gib = meminfo_gib("MemTotal");
  h.mem_available_gib = meminfo_gib("MemAvailable");
  return h;
}

AllreduceTiming measure_allreduce(Communicator& comm, size_t bandwidth_bytes, int bandwidth_iterations,
                                  int latency_iterations) {
  AllreduceTiming t;
  t.bandwidth_bytes = bandwidth_bytes;
  std::vector<float> big(bandwidth_bytes / sizeof(float), 1.0f);
  comm.allreduce_sum(big.data(), big.size());  // warm-up: connections and buffers
  comm.barrier();
  double t0 = now_s();
  for (int i = 0; i < bandwidth_iterations; ++i) comm.allreduce_sum(big.data(), big.size());
  double secs = now_s() - t0;
  // Every rank reports the slowest rank's time: an allreduce is as fast as its slowest member.
  comm.allreduce_max(&secs, 1);
  t.bandwidth_seconds = secs / std::max(1, bandwidth_iterations);
  t.bandwidth_gbps = t.bandwidth_seconds > 0 ? bandwidth_bytes / t.bandwidth_seconds / 1e9 : 0;
  double small[1] = {1.0};
  comm.allreduce_sum(small, 1);
  comm.barrier();
  t0 = now_s();
  for (int i = 0; i < latency_iterations; ++i) comm.allreduce_sum(small, 1);
  secs = now_s() - t0;
  comm.allreduce_max(&secs, 1);
  t.latency_us = secs / std::max(1, latency_iterations) * 1e6;
  return t;
}

ClusterCheckResult run_cluster_check(Communicator& comm, const std::string& version,
                                     const std::vector<std::string>& expected_hosts, size_t bandwidth_bytes,
                                     int latency_iterations) {
  ClusterCheckResult result;
  HostReport mine = local_host_report(version);
  mine.rank = comm.rank();
  for (const std::string& blob : comm.allgather_bytes(to_json(mine).dump()))
    result.ranks.push_back(from_json(nlohmann::json::parse(blob)));
  result.timing = measure_allreduce(comm, bandwidth_bytes, 5, latency_iterations);

  find_cluster_problems(&result, expected_hosts);
  return result;
}

void find_cluster_problems(ClusterCheckResult* r, const std::vector<std::string>& expected_hosts) {
  if (r->ranks.empty()) fail("cluster check: no rank reported");
  const HostReport& first = r->ranks.front();
  std::set<std::string> cpus, isas;
  std::set<std::string> seen;
  for (const HostReport& h : r->ranks) {
    if (h.version != first.version)
      r->problems.push_back(str_cat("rank ", h.rank, " on ", h.hostname, " runs cpuft ", h.version,
                                   ", expected ", first.version, " as on rank 0"));
    else if (h.build_id != first.build_id)
      r->problems.push_back(str_cat("rank ", h.rank, " on ", h.hostname, " runs build ", h.build_id,
                                   ", expected build ", first.build_id, " as on rank 0"));
    cpus.insert(h.cpu);
    isas.insert(h.isa);
    seen.insert(short_name(h.hostname));
  }
  for (const std::string& host : expected_hosts)
    if (!seen.count(short_name(host)))
      r->problems.push_back(str_cat("host ", host, " of the hostfile runs no rank (", seen.size(),
                                   " distinct host names seen)"));
  if (isas.size() > 1)
    r->notes.push_back("hosts use different kernel ISAs: results agree only up to rounding");
  else if (cpus.size() > 1)
    r->notes.push_back("hosts have different CPUs");
}

std::string format_cluster_check(const ClusterCheckResult& r) {
  std::ostringstream os;
  os << std::left << std::setw(5) << "rank" << std::setw(20) << "host" << std::setw(10) << "version"
     << std::setw(18) << "build" << std::setw(8) << "isa" << std::setw(7) << "cores" << std::setw(6) << "cpus"
     << std::setw(6) << "numa" << "mem free/total GiB\n";
  for (const HostReport& h : r.ranks) {
    std::ostringstream mem;
    mem << std::fixed << std::setprecision(1) << h.mem_available_gib << "/" << h.mem_total_gib;
    os << std::left << std::setw(5) << h.rank << std::setw(20) << h.hostname << std::setw(10) << h.version
       << std::setw(18) << h.build_id << std::setw(8) << h.isa << std::setw(7) << h.physical_cores
       << std::setw(6) << h.logical_cpus << std::setw(6) << h.numa_nodes << mem.str() << "\n";
  }
  std::set<std::string> cpus;
  for (const HostReport& h : r.ranks) cpus.insert(h.cpu);
  for (const std::string& c : cpus) os << "cpu: " << c << "\n";
  os << std::fixed << std::setprecision(3) << "allreduce " << (r.timing.bandwidth_bytes >> 20) << " MiB: "
     << r.timing.bandwidth_seconds * 1e3 << " ms (" << r.timing.bandwidth_gbps << " GB/s); 8 bytes: "
     << std::setprecision(1) << r.timing.latency_us << " us\n";
  for (const std::string& p : r.problems) os << "problem: " << p << "\n";
  for (const std::string& n : r.notes) os << "note: " << n << "\n";
  os << "cluster-check: " << (r.problems.empty() ? "OK" : "FAILED") << "\n";
  return os.str();
}

std::vector<HostReachability> check_hosts_reachable(const std::vector<std::string>& hosts,
                                                    const std::string& rsh_agent, int timeout_s) {
  std::vector<HostReachability> out;
  for (const std::string& host : hosts) {
    if (!is_valid_host_name(host)) fail("host name '", text_preview(host), "' is not valid; not passed to ", rsh_agent);
    // "--" ends the agent's options: nothing after it is read as one, whatever the host list holds.
    std::string cmd = shell_join({"timeout", std::to_string(timeout_s + 5), rsh_agent, "-o", "BatchMode=yes", "-o",
                                  "ConnectTimeout=" + std::to_string(timeout_s), "--", host, "true"}) +
                      " </dev/null 2>&1";
    HostReachability r;
    r.host = host;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
      r.detail = "cannot start " + rsh_agent;
      out.push_back(r);
      continue;
    }
    char buf[512];
    size_t got;
    while ((got = fread(buf, 1, sizeof(buf), p)) > 0) r.detail.append(buf, got);
    int status = pclose(p);
    r.ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!r.ok && r.detail.empty())
      r.detail = WIFEXITED(status) && WEXITSTATUS(status) == 124 ? "timed out" : "exit status " + std::to_string(WEXITSTATUS(status));
    while (!r.detail.empty() && (r.detail.back() == '\n' || r.detail.back() == '\r')) r.detail.pop_back();
    out.push_back(r);
  }
  return out;
}

}  // namespace cpuft
