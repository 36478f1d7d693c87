// Builds a fake /sys/devices/system tree in a temporary directory for topology tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

namespace cpuft_test {

class FakeSysfs {
 public:
  FakeSysfs() {
    char tmpl[] = "/tmp/cpuft-sysfs-XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  ~FakeSysfs() { std::filesystem::remove_all(root_); }
  const std::string& root() const { return root_; }

  void write(const std::string& rel, const std::string& text) {
    std::filesystem::path p = std::filesystem::path(root_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  }
  // One logical CPU with its core, package and sibling list.
  void cpu(int id, int core, int package, const std::string& siblings) {
    std::string dir = "cpu/cpu" + std::to_string(id) + "/topology/";
    write(dir + "core_id", std::to_string(core));
    write(dir + "physical_package_id", std::to_string(package));
    write(dir + "thread_siblings_list", siblings);
  }

 private:
  std::string root_;
};

// 2 packages (= 2 NUMA nodes) x 4 cores x 2 threads: CPU i and i+8 are siblings; node 0 has 0-3,8-11.
inline void make_two_socket_smt(FakeSysfs& fs) {
  for (int i = 0; i < 8; ++i) {
    std::string sib = std::to_string(i) + "," + std::to_string(i + 8);
    fs.cpu(i, i % 4, i / 4, sib);
    fs.cpu(i + 8, i % 4, i / 4, sib);
  }
  fs.write("node/node0/cpulist", "0-3,8-11");
  fs.write("node/node1/cpulist", "4-7,12-15");
}

// A recorded machine: the output of `lscpu -p` (columns CPU,Core,Socket,Node,...; '#' lines are
// comments) turned into the sysfs files the kernel would show: each CPU's core_id, package and
// thread_siblings_list (the CPUs with the same Core column), and node<N>/cpulist. Returns the CPU ids.
inline std::vector<int> load_lscpu(FakeSysfs& fs, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  struct Row {
    int cpu, core, socket, node;
  };
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string f[4];
    for (std::string& x : f) std::getline(ss, x, ',');
    rows.push_back({std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2]), std::stoi(f[3])});
  }
  std::map<int, std::vector<int>> core_cpus, node_cpus;
  for (const Row& r : rows) core_cpus[r.core].push_back(r.cpu), node_cpus[r.node].push_back(r.cpu);
  auto join = [](const std::vector<int>& v) {
    std::string s;
    for (int c : v) s += (s.empty() ? "" : ",") + std::to_string(c);
    return s;
  };
  std::vector<int> cpus;
  for (const Row& r : rows) {
    fs.cpu(r.cpu, r.core, r.socket, join(core_cpus[r.core]));
    cpus.push_back(r.cpu);
  }
  for (const auto& [node, list] : node_cpus) fs.write("node/node" + std::to_string(node) + "/cpulist", join(list));
  return cpus;
}

}  // namespace cpuft_test
