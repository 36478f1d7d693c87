#include "cpuft/launch/launcher.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cpuft/util/error.h"
#include "cpuft/util/json_read.h"
#include "cpuft/util/read_file.h"

namespace cpuft {

const char* mpi_flavour_name(MpiFlavour f) {
  switch (f) {
    case MpiFlavour::kOpenMpi: return "Open MPI";
    case MpiFlavour::kMpich: return "MPICH";
    case MpiFlavour::kIntelMpi: return "Intel MPI";
    case MpiFlavour::kUnknown: break;
  }
  return "unknown MPI";
}

MpiFlavour detect_mpi_flavour(const std::string& out) {
  // Intel MPI's mpirun is Hydra too, so it is tested before MPICH.
  if (out.find("Intel(R) MPI") != std::string::npos || out.find("Intel MPI") != std::string::npos)
    return MpiFlavour::kIntelMpi;
  if (out.find("Open MPI") != std::string::npos || out.find("OpenRTE") != std::string::npos)
    return MpiFlavour::kOpenMpi;
  if (out.find("HYDRA") != std::string::npos || out.find("MPICH") != std::string::npos) return MpiFlavour::kMpich;
  return MpiFlavour::kUnknown;
}

std::string mpirun_version_output(const std::string& mpirun) {
  std::string cmd = shell_join({mpirun, "--version"}) + " 2>&1 </dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) fail("cannot run '", mpirun, " --version': ", std::strerror(errno));
  std::string out;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, got);
  int status = pclose(p);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
    fail("cannot run '", mpirun, " --version' (not found?), expected an MPI launcher on PATH");
  return out;
}

bool is_valid_host_name(const std::string& host) {
  if (host.empty() || host.size() > 253 || !std::isalnum(static_cast<unsigned char>(host[0]))) return false;
  for (char c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') return false;
  return true;
}

std::vector<std::string> read_hostfile_hosts(const std::string& path) {
  std::istringstream in(read_file(path, uint64_t{1} << 20));
  std::vector<std::string> hosts;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::istringstream ss(line);
    std::string host;
    if (!(ss >> host)) continue;
    host = host.substr(0, host.find(':'));  // MPICH "host:slots"
    if (!is_valid_host_name(host))
      fail(path, ":", n, ": host name '", text_preview(host), "' is not valid; expected letters, digits, dots and "
           "hyphens, starting with a letter or digit");
    hosts.push_back(host);
  }
  if (hosts.empty()) fail(path, ": no host found, expected lines such as 'node1 slots=4'");
  return hosts;
}

std::vector<std::string> build_mpirun_command(MpiFlavour flavour, const LaunchOptions& o) {
  if (o.nproc_per_node < 1) fail("--nproc_per_node: found ", o.nproc_per_node, ", expected at least 1");
  if (o.nodes < 1) fail("number of nodes: found ", o.nodes, ", expected at least 1");
  if (o.program.empty()) fail("launch: no program given, expected '-- train ...'");
  const int64_t ranks = int64_t{o.nodes} * o.nproc_per_node;
  if (ranks > INT32_MAX)
    fail("launch: ", o.nodes, " nodes x ", o.nproc_per_node, " ranks per node, expected at most ", INT32_MAX, " ranks");
  const std::string np = std::to_string(ranks);
  const std::string k = std::to_string(o.nproc_per_node);
  const std::string threads = std::to_string(o.threads_per_rank);
  std::vector<std::string> cmd{o.mpirun};
  auto add = [&](std::initializer_list<std::string> args) { cmd.insert(cmd.end(), args); };
  switch (flavour) {
    case MpiFlavour::kOpenMpi:
      add({"-np", np});
      if (!o.hostfile.empty()) add({"--hostfile", o.hostfile});
      if (o.bind_to_core && o.cores_per_rank > 0)
        add({"--map-by", "ppr:" + k + ":node:PE=" + std::to_string(o.cores_per_rank), "--bind-to", "core"});
      else
        add({"--map-by", "ppr:" + k + ":node", "--bind-to", o.bind_to_core ? "core" : "none"});
      if (o.threads_per_rank > 0) add({"-x", "OMP_NUM_THREADS=" + threads});
      break;
    case MpiFlavour::kMpich:
      add({"-n", np});
      if (!o.hostfile.empty()) add({"-f", o.hostfile});
      add({"-ppn", k, "-bind-to", o.bind_to_core ? "core:" + std::to_string(std::max(1, o.cores_per_rank)) : "none"});
      if (o.threads_per_rank > 0) add({"-genv", "OMP_NUM_THREADS", threads});
      break;
    case MpiFlavour::kIntelMpi:
      add({"-n", np});
      if (!o.hostfile.empty()) add({"-f", o.hostfile});
      add({"-ppn", k});
      // Intel MPI pins by default; cpuft pins itself unless the MPI is asked to bind.
      if (o.bind_to_core && o.cores_per_rank > 0)
        add({"-genv", "I_MPI_PIN_DOMAIN", std::to_string(o.cores_per_rank)});
      else if (!o.bind_to_core)
        add({"-genv", "I_MPI_PIN", "0"});
      if (o.threads_per_rank > 0) add({"-genv", "OMP_NUM_THREADS", threads});
      break;
    case MpiFlavour::kUnknown:
      fail("launch: '", o.mpirun, "' is not Open MPI, MPICH or Intel MPI; run mpirun yourself with -np ", np);
  }
  cmd.insert(cmd.end(), o.mpi_args.begin(), o.mpi_args.end());
  cmd.insert(cmd.end(), o.program.begin(), o.program.end());
  return cmd;
}

std::vector<std::string> plan_launch(LaunchOptions options) {
  options.nodes = options.hostfile.empty() ? 1 : static_cast<int>(read_hostfile_hosts(options.hostfile).size());
  return build_mpirun_command(detect_mpi_flavour(mpirun_version_output(options.mpirun)), options);
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                   "0123456789_-+=/.,:@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

void exec_command(const std::vector<std::string>& argv) {
  if (argv.empty()) fail("exec: empty command");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // What was printed (the command itself) must have been written before this process is replaced.
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    fail("standard output: write failed", errno != 0 ? std::string(": ") + std::strerror(errno) : std::string());
  std::fflush(stderr);
  execvp(args[0], args.data());
  fail("cannot run '", argv[0], "': ", std::strerror(errno));
}

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) fail("/proc/self/exe: cannot read the path of this program");
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace cpuft
