#include "cpuft/cpu/topology.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "cpuft/util/error.h"

namespace cpuft {
namespace {

// Reads a small sysfs file; returns false when it does not exist or cannot be read.
bool read_small(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  while (!out->empty() && std::isspace(static_cast<unsigned char>(out->back()))) out->pop_back();
  return true;
}

int read_int_or(const std::string& path, int fallback) {
  std::string text;
  if (!read_small(path, &text) || text.empty()) return fallback;
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    fail(path, ": found '", text, "', expected an integer");
  }
}

// Maps each logical CPU to its NUMA node from node<N>/cpulist; CPUs not listed get node 0.
std::map<int, int> read_numa_nodes(const std::string& sys_root) {
  std::map<int, int> node_of;
  std::error_code ec;
  std::filesystem::directory_iterator it(sys_root + "/node", ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() < 5 || name.compare(0, 4, "node") != 0 ||
        !std::all_of(name.begin() + 4, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    int node = std::stoi(name.substr(4));
    std::string list;
    std::string path = it->path().string() + "/cpulist";
    if (!read_small(path, &list)) continue;
    for (int cpu : parse_cpu_list(list, path)) node_of[cpu] = node;
  }
  return node_of;
}

}  // namespace

bool Topology::has_smt() const {
  return std::any_of(cores.begin(), cores.end(), [](const PhysicalCore& c) { return c.cpus.size() > 1; });
}

std::vector<int> parse_cpu_list(const std::string& text, const std::string& where) {
  std::vector<int> cpus;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.erase(0, 1);
    if (item.empty()) continue;
    size_t dash = item.find('-');
    auto number = [&](const std::string& s) {
      if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        fail(where, ": found '", text, "', expected a CPU list such as 0-3,8");
      return std::stoi(s);
    };
    int lo = number(item.substr(0, dash));
    int hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
    if (hi < lo) fail(where, ": found range '", item, "', expected low-high with low <= high");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) fail("sched_getaffinity failed");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

Topology read_topology(const std::vector<int>& allowed, const std::string& sys_root) {
  std::map<int, int> node_of = read_numa_nodes(sys_root);
  // SMT siblings are the CPUs with the same thread_siblings_list (core_id alone repeats across dies).
  // Key (node, package, lowest sibling) -> core; a CPU without topology files is a core of its own.
  std::map<std::tuple<int, int, int>, PhysicalCore> by_key;
  for (int cpu : allowed) {
    std::string dir = sys_root + "/cpu/cpu" + std::to_string(cpu) + "/topology/";
    int package = read_int_or(dir + "physical_package_id", 0);
    int core_id = read_int_or(dir + "core_id", cpu);
    int leader = cpu;
    std::string siblings;
    if (read_small(dir + "thread_siblings_list", &siblings)) {
      std::vector<int> list = parse_cpu_list(siblings, dir + "thread_siblings_list");
      if (!list.empty()) leader = list.front();
    }
    auto node_it = node_of.find(cpu);
    int node = node_it == node_of.end() ? 0 : node_it->second;
    PhysicalCore& core = by_key[{node, package, leader}];
    core.package = package;
    core.core_id = core_id;
    core.numa_node = node;
    core.cpus.push_back(cpu);
  }
  Topology topo;
  std::set<int> nodes;
  for (auto& [key, core] : by_key) {
    std::sort(core.cpus.begin(), core.cpus.end());
    topo.logical_cpus += static_cast<int>(core.cpus.size());
    nodes.insert(core.numa_node);
    topo.cores.push_back(std::move(core));
  }
  topo.numa_nodes = static_cast<int>(nodes.size());
  return topo;
}

Topology read_topology() { return read_topology(allowed_cpus()); }

}  // namespace cpuft
