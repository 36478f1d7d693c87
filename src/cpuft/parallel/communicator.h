// The process group of a data-parallel run. MPI is the only bootstrap: a process started by mpirun /
// mpiexec / srun (recognised by the launcher's environment variables) joins MPI_COMM_WORLD; a process
// started any other way, or a build without CPUFT_WITH_MPI, is a world of one in which every
// collective is a no-op. Collectives are called from the main thread only (MPI_THREAD_SERIALIZED).
//
// Failures: MPI errors are returned (MPI_ERRORS_RETURN) and thrown as cpuft::Error naming the rank and
// host. abort() prints the reason with the rank and takes the whole job down (MPI_Abort). A watchdog
// thread aborts the job when collectives stay outstanding with none completing for
// CommOptions::collective_timeout_s, so a dead or hung peer never leaves the others waiting forever;
// the abort is called from the watchdog thread, which MPI does not promise at SERIALIZED but Open MPI,
// MPICH and Intel MPI all honour (MPI_Abort is the last thing the process does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cpuft/parallel/watchdog.h"
#include "cpuft/parallel/wire_type.h"

namespace cpuft {

struct CommOptions {
  double collective_timeout_s = 300;  // watchdog; <= 0 disables it
};

class Communicator;

// A started non-blocking allreduce (iallreduce_sum). The buffer must stay alive and untouched until
// wait() (or test() returning true). Move-only; destroying an active handle waits for it.
class AllreduceHandle {
 public:
  AllreduceHandle();
  AllreduceHandle(AllreduceHandle&& other) noexcept;
  AllreduceHandle& operator=(AllreduceHandle&& other) noexcept;
  ~AllreduceHandle();

  bool active() const;
  // Lets MPI progress; true (and the result in the buffer) once complete.
  bool test();
  // Blocks until complete; the summed values are then in the buffer.
  void wait();

 private:
  friend class Communicator;
  struct Pending;
  void finish();
  std::unique_ptr<Pending> p_;
};

class Communicator {
 public:
  Communicator();  // a world of one until init()
  ~Communicator();  // finalizes MPI if init() started it
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // True when this process was started by an MPI launcher (Open MPI, MPICH/Hydra, Intel MPI, PMIx, Slurm
  // PMI) and the build has MPI.
  static bool launched_by_mpi();

  // Joins MPI_COMM_WORLD when launched_by_mpi(), else stays a world of one. Call once, early in main.
  // Throws when srun started several tasks without MPI wire-up (srun without --mpi=pmix): each would
  // otherwise run alone.
  void init(int* argc, char*** argv, const CommOptions& options = {});
  // Ends MPI (waits for nothing: every handle must be finished). Called by the destructor too.
  void finalize();

  bool using_mpi() const { return using_mpi_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  int local_rank() const { return local_rank_; }  // rank among the processes of this node
  int local_size() const { return local_size_; }  // processes on this node
  int node_count() const { return node_count_; }
  const std::string& hostname() const { return hostname_; }
  // "rank 1 of 4 on host-a"
  std::string where() const;

  void broadcast(float* data, size_t n, int root);
  void broadcast_bytes(std::string* bytes, int root);
  void allreduce_sum(float* data, size_t n);
  // Small reductions of f64 values (losses, counts, throughput) for logging and bookkeeping.
  void allreduce_sum(double* data, size_t n);
  void allreduce_max(double* data, size_t n);
  // Starts an in-place sum over all ranks. n must be below 2^31 (a bucket, not a whole model).
  AllreduceHandle iallreduce_sum(float* data, size_t n, WireType wire = WireType::kF32);
  // Starts an in-place element-wise maximum of n bytes over all ranks (e.g. flags: 1 where any rank
  // set one). n must be below 2^31.
  AllreduceHandle iallreduce_max(uint8_t* data, size_t n);
  // Every rank's bytes, in rank order (variable sizes; total below 2 GiB).
  std::vector<std::string> allgather_bytes(const std::string& mine);
  void barrier();

  // Prints "cpuft: rank R of N on HOST: message" to stderr and ends every rank of the job with `code`.
  // In a world of one it throws cpuft::Error(message) instead, so the caller's normal error path runs.
  [[noreturn]] void abort(int code, const std::string& message);

  CollectiveWatchdog* watchdog() { return watchdog_.get(); }

 private:
  friend class AllreduceHandle;
  void check(int rc, const char* call) const;

  std::mutex mpi_mu_;  // held by every MPI call but MPI_Abort
  bool using_mpi_ = false;
  bool finalized_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, node_count_ = 1;
  std::string hostname_;
  std::unique_ptr<CollectiveWatchdog> watchdog_;
  struct Mpi;
  std::unique_ptr<Mpi> mpi_;
};

}  // namespace cpuft
