// CPU topology as Linux reports it under /sys/devices/system: which logical CPUs share a physical
// core (SMT siblings), which package and NUMA node each core belongs to, restricted to the CPUs this
// process may run on (sched_getaffinity). The sysfs root is a parameter so tests use fake trees.
#pragma once

#include <string>
#include <vector>

namespace cpuft {

struct PhysicalCore {
  int package = 0;
  int core_id = 0;
  int numa_node = 0;
  std::vector<int> cpus;  // allowed logical CPUs of this core, ascending; cpus[0] is the primary thread
};

struct Topology {
  std::vector<PhysicalCore> cores;  // sorted by NUMA node, package, core id
  int logical_cpus = 0;             // allowed logical CPUs in total
  int numa_nodes = 0;               // distinct NUMA nodes among the allowed cores

  bool has_smt() const;
};

// Parses a sysfs CPU list such as "0-3,8,10-11"; throws cpuft::Error naming `where` on bad syntax.
std::vector<int> parse_cpu_list(const std::string& text, const std::string& where);

// The logical CPUs this process may run on (sched_getaffinity of the calling thread).
std::vector<int> allowed_cpus();

// Reads the topology below `sys_root` (normally "/sys/devices/system") restricted to `allowed`.
// CPUs without topology files count as a core of their own (as in some containers and VMs).
Topology read_topology(const std::vector<int>& allowed, const std::string& sys_root = "/sys/devices/system");

// The topology of this machine for this process.
Topology read_topology();

}  // namespace cpuft
