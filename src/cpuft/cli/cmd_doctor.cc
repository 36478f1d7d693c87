// cpuft doctor: what cpuft sees on this machine (CPU features, what oneDNN dispatches and where bf16
// and int8 matrix products run, with the reason when AMX is present but unused; cores and NUMA nodes;
// the transparent-huge-page mode) and the rank/thread plan it would use. --json for machines.
#include <omp.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cpuft/cli/commands.h"
#include "cpuft/cpu/cpu_features.h"
#include "cpuft/cpu/isa.h"
#include "cpuft/cpu/onednn_info.h"
#include "cpuft/cpu/placement.h"
#include "cpuft/cpu/topology.h"
#include "cpuft/flags/flag_help.h"
#include "cpuft/flags/flag_parser.h"
#include "cpuft/kernels/gemm.h"
#include "cpuft/kernels/gemm_int8.h"
#include "cpuft/util/huge_pages.h"

namespace cpuft {

int cmd_doctor(const Argv& argv) {
  int ranks_per_node = 0;
  bool json = false;
  FlagTable t("doctor",
              "Prints what cpuft sees on this machine: CPU features, the kernels' ISA, where oneDNN runs bf16 and\n"
              "int8 matrix products (and why not on AMX when the CPU has it), packages, NUMA nodes and cores, the\n"
              "transparent-huge-page mode, and the plan of ranks and threads cpuft would use on it.\n");
  t.integer("ranks-per-node", &ranks_per_node, 1, 1000000, "show the core plan for K ranks on this node")
      .with_placeholder("K")
      .with_alias("ranks_per_node")
      .with_default_text("one per NUMA node");
  t.boolean("json", &json, "print the report as JSON");
  if (parse_flags(t, argv).help) {
    std::fputs(flag_help(t).c_str(), stdout);
    return 0;
  }
  const CpuFeatures& f = cpu_features();
  Bf16MatmulFacts bf16 = bf16_matmul_facts();
  bf16.impl = gemm_bf16_impl();
  Topology topo = read_topology();
  int packages = 0;
  {
    std::vector<int> seen;
    for (const PhysicalCore& c : topo.cores)
      if (std::find(seen.begin(), seen.end(), c.package) == seen.end()) seen.push_back(c.package);
    packages = static_cast<int>(seen.size());
  }
  const bool recommended = ranks_per_node == 0;
  if (recommended) ranks_per_node = std::max(1, topo.numa_nodes);
  PlacementOptions po;
  po.ranks_per_node = ranks_per_node;
  po.omp_threads = omp_threads_from_env();
  po.reserve_core = ranks_per_node > 1;
  PlacementPlan plan = plan_placement(topo, po);

  nlohmann::json j;
  j["version"] = CPUFT_VERSION;
  j["cpu"] = {{"brand", f.brand},         {"vendor", f.vendor},       {"avx2", f.avx2},
              {"fma", f.fma},             {"avx512f", f.avx512f},     {"avx512bw", f.avx512bw},
              {"avx512vl", f.avx512vl},   {"avx512_bf16", f.avx512_bf16}, {"avx512_vnni", f.avx512_vnni}, {"avx512_fp16", f.avx512_fp16},
              {"amx_tile", f.amx_tile},   {"amx_bf16", f.amx_bf16},       {"amx_int8", f.amx_int8}};
  j["amx"] = {{"os_enabled", bf16.os_amx}, {"permitted", bf16.amx_permitted}};
  j["kernels_isa"] = isa_name(kernel_isa());
  j["kernels_emulated"] = isa_emulated(kernel_isa());
  j["onednn"] = {{"version", onednn_version()}, {"isa", onednn_isa()}, {"bf16_matmul_native", gemm_bf16_native()}};
  j["bf16_matmul"] = {{"impl", bf16.impl}, {"amx", bf16_matmul_uses_amx(bf16)}, {"summary", explain_bf16_matmul(bf16)}};
  const std::string int8_kind = int8_vnni_kind(onednn_isa(), gemm_int8_impl());
  j["int8_matmul"] = {{"impl", gemm_int8_impl()},
                      {"vnni", int8_kind.empty() ? nlohmann::json() : nlohmann::json(int8_kind)},
                      {"activation_levels", int8_activation_levels()},
                      {"summary", describe_int8_matmul()}};
  j["topology"] = {{"packages", packages},
                   {"numa_nodes", topo.numa_nodes},
                   {"physical_cores", topo.cores.size()},
                   {"logical_cpus", topo.logical_cpus},
                   {"smt", topo.has_smt()}};
  j["huge_pages"] = {{"mode", huge_page_mode()}, {"summary", describe_huge_pages()}};
  j["plan"] = {{"ranks_per_node", ranks_per_node},
               {"recommended", recommended},
               {"threads_per_rank", plan.ranks.empty() ? 0 : plan.ranks[0].thread_cpus.size()},
               {"reserved_cores", plan.reserved_cores},
               {"oversubscribed", plan.oversubscribed},
               {"warnings", plan.warnings}};
  if (json) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("cpuft %s\n", CPUFT_VERSION);
  std::printf("cpu:      %s\n", describe_cpu().c_str());
  std::printf("kernels:  %s%s (force with CPUFT_ISA=ref|avx2|avx512|avx512_bf16|amx)\n", isa_name(kernel_isa()),
              isa_emulated(kernel_isa()) ? " emulated on AVX2: a test build, slow" : "");
  std::printf("oneDNN:   %s\n", describe_onednn().c_str());
  std::printf("bf16:     %s\n", explain_bf16_matmul(bf16).c_str());
  std::printf("int8:     %s\n", describe_int8_matmul().c_str());
  std::printf("machine:  %d package(s), %d NUMA node(s), %zu physical cores, %d logical CPUs%s\n", packages,
              topo.numa_nodes, topo.cores.size(), topo.logical_cpus, topo.has_smt() ? " (SMT on)" : "");
  std::printf("memory:   %s\n", describe_huge_pages().c_str());
  std::printf("plan:     %d rank(s) per node%s\n%s", ranks_per_node, recommended ? " (recommended: one per NUMA node)" : "",
              plan.describe(topo).c_str());
  for (const std::string& w : plan.warnings) std::printf("warning:  %s\n", w.c_str());
  if (ranks_per_node > 1)
    std::printf("launch:   mpirun -np <nodes x %d> --map-by ppr:%d:node --bind-to none cpuft train ...\n",
                ranks_per_node, ranks_per_node);
  return 0;
}

}  // namespace cpuft
