// Test program for tests/parallel: runs one scenario under mpirun and exits 0 when every check on every
// rank passed. Usage: cpuft_parallel_helper SCENARIO [ARGS...]
//   info                         print rank, size, local rank/size, node count, host
//   collectives                  allreduce (f32, f64 sum/max), broadcast, allgather, barrier
//   buckets N BYTES f32|bf16 [thread]   overlapped GradBuckets == blocking allreduce;
//                                with `thread`, a progress thread on this rank's CPUs moves them
//   sparse ROWS WIDTH IDS        a row-sparse table in the arena: each rank touches IDS random rows
//                                (some ranks none); GradBuckets == blocking allreduce of the whole arena
//   abort RANK                   RANK calls Communicator::abort while the others wait in allreduce
//   exit RANK                    RANK exits with status 5 while the others wait in allreduce
//   hang RANK TIMEOUT_S          RANK sleeps; the others' watchdog (TIMEOUT_S) must end the job
//   cluster-check HOST...        run_cluster_check expecting HOSTs; exit 1 if it finds problems
//   place                        place_this_rank with pinning; print this rank's CPUs
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpuft/cpu/topology.h"
#include "cpuft/launch/cluster_check.h"
#include "cpuft/parallel/bf16_wire.h"
#include "cpuft/parallel/communicator.h"
#include "cpuft/parallel/grad_buckets.h"
#include "cpuft/parallel/rank_placement.h"
#include "cpuft/util/error.h"

namespace {

int failures = 0;

void expect(bool ok, const cpuft::Communicator& comm, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "CHECK FAILED on %s: %s\n", comm.where().c_str(), what.c_str());
}

// The value rank r contributes at index i (exact in f32, so sums are exact too).
float contribution(int r, size_t i) { return static_cast<float>((r + 1) * 0.5 + static_cast<double>(i % 97)); }

void collectives(cpuft::Communicator& comm) {
  const int size = comm.size(), rank = comm.rank();
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = contribution(rank, i);
  comm.allreduce_sum(v.data(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    float want = 0;
    for (int r = 0; r < size; ++r) want += contribution(r, i);
    if (v[i] != want) {
      expect(false, comm, cpuft::str_cat("allreduce_sum[", i, "] = ", v[i], ", expected ", want));
      break;
    }
  }
  double d[2] = {1.0 * rank, 2.5};
  comm.allreduce_sum(d, 2);
  expect(d[0] == size * (size - 1) / 2.0 && d[1] == 2.5 * size, comm, "allreduce_sum(double)");
  double m = rank;
  comm.allreduce_max(&m, 1);
  expect(m == size - 1, comm, "allreduce_max");
  std::vector<float> b(5, rank == size - 1 ? 7.25f : -1.0f);
  comm.broadcast(b.data(), b.size(), size - 1);
  expect(b == std::vector<float>(5, 7.25f), comm, "broadcast from the last rank");
  std::string s = rank == 0 ? "weights" : "";
  comm.broadcast_bytes(&s, 0);
  expect(s == "weights", comm, "broadcast_bytes");
  std::vector<std::string> all = comm.allgather_bytes(std::string(rank * 3, static_cast<char>('a' + rank)));
  expect(static_cast<int>(all.size()) == size, comm, "allgather_bytes count");
  for (int r = 0; r < size && r < static_cast<int>(all.size()); ++r)
    expect(all[r] == std::string(r * 3, static_cast<char>('a' + r)), comm, cpuft::str_cat("allgather_bytes[", r, "]"));
  comm.barrier();
}

void buckets(cpuft::Communicator& comm, size_t n, size_t bucket_bytes, cpuft::WireType wire, bool thread) {
  std::mt19937 rng(1234 + comm.rank());
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> grads(n);
  for (float& g : grads) g = dist(rng);
  std::vector<float> want = grads;
  // The reference: what a rank would get from one blocking allreduce.
  if (wire == cpuft::WireType::kBf16)
    for (float& w : want) w = cpuft::bf16_to_f32(cpuft::f32_to_bf16(w));
  comm.allreduce_sum(want.data(), n);

  cpuft::GradBuckets gb(comm, grads.data(), n, bucket_bytes, wire, thread ? cpuft::allowed_cpus() : std::vector<int>{});
  expect(gb.has_progress_thread() == thread, comm, "progress thread as asked");
  for (int step = 0; step < 2; ++step) {
    std::vector<float> g = grads;
    std::vector<float> start = grads;
    gb.begin_step();
    // "Backward": parameters of 777 elements finish from the end of the arena to its start.
    for (size_t end = n; end > 0;) {
      size_t begin = end > 777 ? end - 777 : 0;
      gb.mark_ready(begin, end);
      end = begin;
    }
    gb.wait_all();
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(static_cast<double>(grads[i]) - want[i]) /
                                                               (std::fabs(want[i]) + 1.0));
    // f32: only the summation order may differ from the blocking allreduce. bf16: every partial sum
    // is rounded to 8 significant bits, so a few bf16 ulps (2^-8 each) of relative error.
    double tol = wire == cpuft::WireType::kBf16 ? 4.0 / 256 : 1e-6;
    expect(worst <= tol, comm, cpuft::str_cat("bucket result differs from blocking allreduce by ", worst));
    expect(gb.started().size() == gb.buckets().size() && gb.started().front() == 0, comm,
           "buckets start last-first");
    // Every rank must hold the same bits (the ranks' weights would drift apart otherwise).
    uint64_t h = 1469598103934665603ull;
    for (float x : grads) {
      uint32_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
    double mine = static_cast<double>(h >> 11), lo = -mine, hi = mine;
    comm.allreduce_max(&hi, 1);
    comm.allreduce_max(&lo, 1);
    expect(hi == mine && -lo == mine, comm, "the ranks' sums differ in their bits");
    if (step == 0) std::printf("rank %d: %zu buckets, worst relative difference %.3g\n", comm.rank(),
                               gb.buckets().size(), worst);
    grads = start;
  }
}

void sparse(cpuft::Communicator& comm, size_t rows, size_t width, size_t ids_per_rank) {
  // Arena: 1000 dense values, the [rows, width] table, 500 dense values.
  const size_t begin = 1000, n = begin + rows * width + 500;
  std::mt19937 rng(99 + comm.rank());
  std::vector<int32_t> ids(comm.rank() == 1 ? 0 : ids_per_rank);  // rank 1 has an empty batch
  for (auto& id : ids) id = static_cast<int32_t>(rng() % rows);
  std::vector<float> grads(n, 0.0f);
  for (size_t i = 0; i < n; ++i)
    if (i < begin || i >= begin + rows * width) grads[i] = contribution(comm.rank(), i);
  for (int32_t id : ids)
    for (size_t j = 0; j < width; ++j) grads[begin + id * width + j] += contribution(comm.rank(), id * width + j);
  std::vector<float> want = grads;
  comm.allreduce_sum(want.data(), n);
  cpuft::GradBuckets gb(comm, grads.data(), n, 4096, cpuft::WireType::kF32, {}, {begin, rows, width});
  for (int step = 0; step < 2; ++step) {
    std::vector<float> g = grads;
    gb.begin_step();
    gb.note_rows(ids.data(), ids.size());
    for (size_t end = n; end > 0;) {
      size_t b = end > 333 ? end - 333 : 0;
      gb.mark_ready(b, end);
      end = b;
    }
    gb.wait_all();
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += grads[i] != want[i];
    expect(wrong == 0, comm, cpuft::str_cat("sparse step ", step, ": ", wrong, " of ", n, " values differ"));
    if (step == 0)
      std::printf("rank %d: sparse rows exchanged, %zu bytes on the wire\n", comm.rank(), gb.last_step().bytes);
    grads = g;
  }
}

void wait_in_allreduce(cpuft::Communicator& comm) {
  std::vector<float> v(16, 1.0f);
  comm.allreduce_sum(v.data(), v.size());
}

}  // namespace

int main(int argc, char** argv) {
  cpuft::Communicator comm;
  try {
    cpuft::CommOptions opts;
    std::string scenario = argc > 1 ? argv[1] : "";
    if (scenario == "hang" && argc > 3) opts.collective_timeout_s = std::atof(argv[3]);
    comm.init(&argc, &argv, opts);
    if (scenario == "info") {
      std::printf("rank=%d size=%d local_rank=%d local_size=%d nodes=%d host=%s mpi=%d\n", comm.rank(), comm.size(),
                  comm.local_rank(), comm.local_size(), comm.node_count(), comm.hostname().c_str(), comm.using_mpi());
    } else if (scenario == "collectives") {
      collectives(comm);
    } else if (scenario == "buckets" && argc > 4) {
      buckets(comm, std::stoul(argv[2]), std::stoul(argv[3]),
              std::string(argv[4]) == "bf16" ? cpuft::WireType::kBf16 : cpuft::WireType::kF32,
              argc > 5 && std::string(argv[5]) == "thread");
    } else if (scenario == "sparse" && argc > 4) {
      sparse(comm, std::stoul(argv[2]), std::stoul(argv[3]), std::stoul(argv[4]));
    } else if ((scenario == "abort" || scenario == "exit" || scenario == "hang") && argc > 2) {
      comm.barrier();
      if (comm.rank() == std::atoi(argv[2])) {
        if (scenario == "abort") comm.abort(3, "injected failure");
        if (scenario == "exit") _exit(5);
        sleep(120);
      }
      wait_in_allreduce(comm);
      std::printf("rank %d: allreduce returned although a rank failed\n", comm.rank());
      return 2;
    } else if (scenario == "cluster-check") {
      std::vector<std::string> hosts(argv + 2, argv + argc);
      cpuft::ClusterCheckResult r = cpuft::run_cluster_check(comm, "test", hosts, size_t{32} << 20, 200);
      if (comm.is_root()) std::fputs(cpuft::format_cluster_check(r).c_str(), stdout);
      return r.problems.empty() ? 0 : 1;
    } else if (scenario == "place") {
      cpuft::LocalPlacement lp = cpuft::place_this_rank(comm, {}, true);
      std::printf("rank %d: bound=%d threads on cpus %s\n", comm.rank(), lp.launcher_bound,
                  cpuft::format_cpu_list(lp.mine().thread_cpus).c_str());
      if (comm.is_root()) std::fputs(lp.plan.describe(lp.topology).c_str(), stdout);
    } else {
      std::fprintf(stderr, "usage: cpuft_parallel_helper info|collectives|buckets|abort|exit|hang|cluster-check|place ...\n");
      return 2;
    }
  } catch (const cpuft::Error& e) {
    std::fprintf(stderr, "error on %s: %s\n", comm.where().c_str(), e.what());
    return 1;
  }
  if (failures == 0) std::printf("rank %d: OK\n", comm.rank());
  return failures ? 1 : 0;
}
