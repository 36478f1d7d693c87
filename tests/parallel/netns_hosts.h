// Hosts made by scripts/netns-cluster.sh for one test: network + UTS namespaces on a private bridge.
// Their names and subnet are this test process's own (derived from its pid), so that two checkouts
// (or a CI run beside a developer's) testing on the same machine never share or tear down each
// other's namespaces.
#pragma once

#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "parallel/mpi_run.h"

namespace cpuft_test {

class NetnsHosts {
 public:
  NetnsHosts() {
    const unsigned pid = static_cast<unsigned>(getpid());
    const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
    unsigned n = pid % (36u * 36 * 36 * 36);
    name_ = "n";  // the script takes 1-6 lowercase letters or digits, a letter first
    for (int i = 0; i < 4; ++i, n /= 36) name_ += digits[n % 36];
    subnet_ = "10." + std::to_string(100 + pid % 100) + "." + std::to_string(pid / 100 % 250) + ".0/24";
    state_ = "/tmp/cpuft-netns-" + name_;
  }
  NetnsHosts(const NetnsHosts&) = delete;
  NetnsHosts& operator=(const NetnsHosts&) = delete;
  ~NetnsHosts() { down(); }

  // Why hosts cannot be made here (for GTEST_SKIP), or "" when they can.
  static std::string unavailable() {
    if (geteuid() != 0) return "needs root for ip netns";
    if (run_command("ip netns list").status != 0) return "ip netns not available";
    return "";
  }

  // Creates `hosts` hosts with `slots` slots each in the hostfile; `cpus` (optional) one CPU list per
  // host, as CPUFT_NETNS_CPUS. Returns "" on success, else the script's output (the hosts made so far
  // are removed at once).
  std::string up(int hosts, int slots, const std::string& cpus = "") {
    prefix_ = (cpus.empty() ? "" : "CPUFT_NETNS_CPUS='" + cpus + "' ") + "CPUFT_NETNS_NAME=" + name_ +
              " CPUFT_NETNS_STATE=" + state_ + " CPUFT_NETNS_SLOTS=" + std::to_string(slots) + " ";
    RunResult r = script("up " + std::to_string(hosts) + " " + subnet_);
    if (r.status != 0) {
      script("down");  // whatever part of the cluster was made; nothing to check where none could be
      return r.output;
    }
    up_ = true;
    // The script prints the mpirun flags that keep a job on the bridge.
    const std::string marker = "mpirun flags: ";
    const size_t at = r.output.find(marker);
    if (at == std::string::npos) return "no '" + marker + "' line in: " + r.output;
    flags_ = r.output.substr(at + marker.size(), r.output.find('\n', at) - at - marker.size());
    return "";
  }

  // Removes the hosts and checks that nothing of them is left; nothing to do unless up() succeeded.
  // The fixtures call it from TearDown (the destructor is the fallback).
  void down() {
    if (!up_) return;
    up_ = false;
    RunResult r = script("down");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(run_command("ip netns list | grep -w '" + name_ + "-h[0-9]*'").output, "");
    EXPECT_EQ(run_command("grep -s '" + name_ + "-netns' /etc/hosts").output, "");
  }

  RunResult script(const std::string& args) const {
    return run_command(prefix_ + CPUFT_SOURCE_DIR "/scripts/netns-cluster.sh " + args);
  }

  std::string host(int i) const { return name_ + "-h" + std::to_string(i); }
  std::string veth(int i) const { return name_ + "v" + std::to_string(i); }  // host i's bridge port
  const std::string& subnet() const { return subnet_; }
  std::string hostfile() const { return state_ + "/hostfile"; }
  std::string agent() const { return state_ + "/rsh-agent"; }
  // --hostfile, the rsh agent and the bridge-only transport flags, as the script printed them.
  const std::string& mpirun_flags() const { return flags_; }
  // The transport flags alone: TCP on the bridge's subnet only (no shared memory between the hosts).
  std::string transport_flags() const {
    return "--mca btl tcp,self --mca btl_tcp_if_include " + subnet_ + " --mca oob_tcp_if_include " + subnet_;
  }

 private:
  std::string name_, subnet_, state_, prefix_, flags_;
  bool up_ = false;
};

}  // namespace cpuft_test
