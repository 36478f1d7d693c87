// Builds a fake /sys/devices/system tree in a temporary directory for topology tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace cpuft_test
