#include "cpuft/parallel/communicator.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "cpuft/parallel/bf16_wire.h"
#include "cpuft/util/error.h"
#include "cpuft/util/log.h"

#ifdef CPUFT_WITH_MPI
// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace cpuft {
namespace {

// Blocking collectives move at most this many elements per MPI call (MPI counts are int).
constexpr size_t kChunk = size_t{1} << 28;

#ifdef CPUFT_WITH_MPI
void bf16_sum_op(void* in, void* inout, int* len, MPI_Datatype*) {
  bf16_sum_into(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(inout), static_cast<size_t>(*len));
}
#endif

}  // namespace

struct Communicator::Mpi {
#ifdef CPUFT_WITH_MPI
  MPI_Comm node_comm = MPI_COMM_NULL;
  MPI_Op bf16_sum = MPI_OP_NULL;
#endif
};

struct AllreduceHandle::Pending {
  Communicator* comm = nullptr;
  float* data = nullptr;
  size_t n = 0;
  WireType wire = WireType::kF32;
  std::vector<uint16_t> bf16;
#ifdef CPUFT_WITH_MPI
  MPI_Request request = MPI_REQUEST_NULL;
#endif
};

AllreduceHandle::AllreduceHandle() = default;
AllreduceHandle::AllreduceHandle(AllreduceHandle&& other) noexcept = default;

AllreduceHandle& AllreduceHandle::operator=(AllreduceHandle&& other) noexcept {
  if (this != &other) {
    if (active()) {
      try {
        wait();
      } catch (const Error& e) {
        p_->comm->abort(1, e.what());
      }
    }
    p_ = std::move(other.p_);
  }
  return *this;
}

AllreduceHandle::~AllreduceHandle() {
  if (!active()) return;
  try {
    wait();
  } catch (const Error& e) {
    // MPI would otherwise write into freed memory later; nothing sane is left to do.
    p_->comm->abort(1, e.what());
  }
}

bool AllreduceHandle::active() const { return p_ != nullptr; }

void AllreduceHandle::finish() {
  if (p_->wire == WireType::kBf16) bf16_to_f32_array(p_->bf16.data(), p_->data, static_cast<int64_t>(p_->n));
  if (CollectiveWatchdog* dog = p_->comm->watchdog()) dog->end();
  p_.reset();
}

bool AllreduceHandle::test() {
  if (!p_) return true;
#ifdef CPUFT_WITH_MPI
  int done = 0;
  {
    std::lock_guard<std::mutex> lock(p_->comm->mpi_mu_);
    p_->comm->check(MPI_Test(&p_->request, &done, MPI_STATUS_IGNORE), "MPI_Test(MPI_Iallreduce)");
  }
  if (!done) return false;
#endif
  finish();
  return true;
}

void AllreduceHandle::wait() {
  if (!p_) return;
#ifdef CPUFT_WITH_MPI
  {
    std::lock_guard<std::mutex> lock(p_->comm->mpi_mu_);
    p_->comm->check(MPI_Wait(&p_->request, MPI_STATUS_IGNORE), "MPI_Wait(MPI_Iallreduce)");
  }
#endif
  finish();
}

Communicator::Communicator() : mpi_(std::make_unique<Mpi>()) {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) == 0) hostname_ = name;
}

Communicator::~Communicator() {
  try {
    finalize();
  } catch (const Error& e) {
    log_warn_all_ranks(e.what());  // a destructor cannot throw: the process ends anyway
  }
}

bool Communicator::launched_by_mpi() {
#ifdef CPUFT_WITH_MPI
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(var)) return true;
#endif
  return false;
}

std::string Communicator::where() const { return str_cat("rank ", rank_, " of ", size_, " on ", hostname_); }

void Communicator::check(int rc, const char* call) const {
#ifdef CPUFT_WITH_MPI
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fail(call, " failed on ", where(), ": ", text);
#endif
}

void Communicator::init(int* argc, char*** argv, const CommOptions& options) {
  if (using_mpi_) fail_internal("Communicator::init called twice on ", where());
  if (!launched_by_mpi()) {
    // srun without MPI wire-up starts N copies that each think they are alone: N trainings writing
    // one output directory. Refuse instead.
    const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
    if (tasks && std::atoi(tasks) > 1) {
#ifdef CPUFT_WITH_MPI
      fail("started by srun as one of ", tasks, " tasks without MPI (no PMI or PMIx variables): each would train "
           "alone; use srun --mpi=pmix, or mpirun inside the allocation");
#else
      fail("started by srun as one of ", tasks, " tasks, but this cpuft was built without MPI (CPUFT_WITH_MPI=OFF): "
           "run one task");
#endif
    }
    return;
  }
#ifdef CPUFT_WITH_MPI
  // Open MPI's non-blocking allreduce (libnbc) sums an in-place buffer with a binomial tree: up to the
  // root and back down, the whole bucket log2(ranks) times each way, twice the time of a ring already
  // on 2 ranks. Its ring moves 2 (ranks - 1) / ranks of a bucket per rank, as a blocking allreduce
  // does. Asked for unless the user chose (other MPIs ignore the variable).
  setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", /*overwrite=*/0);
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    fail("MPI_Init_thread failed on host ", hostname_);
  using_mpi_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_SERIALIZED)
    log_warn_all_ranks(where(), ": MPI gives thread level ", provided, ", below SERIALIZED");
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &mpi_->node_comm),
        "MPI_Comm_split_type");
  MPI_Comm_set_errhandler(mpi_->node_comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(mpi_->node_comm, &local_rank_);
  MPI_Comm_size(mpi_->node_comm, &local_size_);
  int leader = local_rank_ == 0 ? 1 : 0;
  check(MPI_Allreduce(&leader, &node_count_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce(node count)");
  check(MPI_Op_create(&bf16_sum_op, 1, &mpi_->bf16_sum), "MPI_Op_create(bf16 sum)");
  watchdog_ = std::make_unique<CollectiveWatchdog>(options.collective_timeout_s, [this](const std::string& m) {
    abort(124, m + " (a rank has probably failed or hangs)");
  });
#else
  (void)argc, (void)argv, (void)options;
#endif
}

void Communicator::finalize() {
  if (!using_mpi_ || finalized_) return;
  finalized_ = true;
  watchdog_.reset();
#ifdef CPUFT_WITH_MPI
  if (mpi_->bf16_sum != MPI_OP_NULL) MPI_Op_free(&mpi_->bf16_sum);
  if (mpi_->node_comm != MPI_COMM_NULL) MPI_Comm_free(&mpi_->node_comm);
  check(MPI_Finalize(), "MPI_Finalize");
#endif
}

void Communicator::broadcast(float* data, size_t n, int root) {
  if (size_ == 1) return;
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Bcast");
  for (size_t off = 0; off < n; off += kChunk)
    check(MPI_Bcast(data + off, static_cast<int>(std::min(kChunk, n - off)), MPI_FLOAT, root, MPI_COMM_WORLD),
          "MPI_Bcast");
#endif
}

void Communicator::broadcast_bytes(std::string* bytes, int root) {
  if (size_ == 1) return;
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Bcast");
  int64_t len = static_cast<int64_t>(bytes->size());
  check(MPI_Bcast(&len, 1, MPI_INT64_T, root, MPI_COMM_WORLD), "MPI_Bcast(length)");
  if (len > INT_MAX) fail("broadcast of ", len, " bytes on ", where(), ": expected below 2 GiB");
  bytes->resize(static_cast<size_t>(len));
  check(MPI_Bcast(bytes->data(), static_cast<int>(len), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast(bytes)");
#endif
}

void Communicator::allreduce_sum(float* data, size_t n) {
  if (size_ == 1) return;
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Allreduce");
  for (size_t off = 0; off < n; off += kChunk)
    check(MPI_Allreduce(MPI_IN_PLACE, data + off, static_cast<int>(std::min(kChunk, n - off)), MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
#endif
}

void Communicator::allreduce_sum(double* data, size_t n) {
  if (size_ == 1) return;
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Allreduce");
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce(double sum)");
#endif
}

void Communicator::allreduce_max(double* data, size_t n) {
  if (size_ == 1) return;
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Allreduce");
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
        "MPI_Allreduce(double max)");
#endif
}

AllreduceHandle Communicator::iallreduce_sum(float* data, size_t n, WireType wire) {
  AllreduceHandle h;
  if (size_ == 1) return h;
#ifdef CPUFT_WITH_MPI
  if (n > static_cast<size_t>(INT_MAX)) fail("MPI_Iallreduce of ", n, " values on ", where(), ": expected below 2^31");
  h.p_ = std::make_unique<AllreduceHandle::Pending>();
  AllreduceHandle::Pending& p = *h.p_;
  p.comm = this;
  p.data = data;
  p.n = n;
  p.wire = wire;
  if (wire == WireType::kBf16) {
    p.bf16.resize(n);
    f32_to_bf16_array(data, p.bf16.data(), static_cast<int64_t>(n));
  }
  std::lock_guard<std::mutex> lock(mpi_mu_);
  if (watchdog_) watchdog_->begin("MPI_Iallreduce");
  int rc;
  if (wire == WireType::kBf16) {
    rc = MPI_Iallreduce(MPI_IN_PLACE, p.bf16.data(), static_cast<int>(n), MPI_UINT16_T, mpi_->bf16_sum,
                        MPI_COMM_WORLD, &p.request);
  } else {
    rc = MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &p.request);
  }
  if (rc != MPI_SUCCESS) {
    if (watchdog_) watchdog_->end();
    h.p_.reset();
    check(rc, "MPI_Iallreduce");
  }
#endif
  return h;
}

AllreduceHandle Communicator::iallreduce_max(uint8_t* data, size_t n) {
  AllreduceHandle h;
  if (size_ == 1) return h;
#ifdef CPUFT_WITH_MPI
  if (n > static_cast<size_t>(INT_MAX)) fail("MPI_Iallreduce of ", n, " bytes on ", where(), ": expected below 2^31");
  h.p_ = std::make_unique<AllreduceHandle::Pending>();
  h.p_->comm = this;
  std::lock_guard<std::mutex> lock(mpi_mu_);
  if (watchdog_) watchdog_->begin("MPI_Iallreduce");
  const int rc = MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD,
                                &h.p_->request);
  if (rc != MPI_SUCCESS) {
    if (watchdog_) watchdog_->end();
    h.p_.reset();
    check(rc, "MPI_Iallreduce(max)");
  }
#endif
  return h;
}

std::vector<std::string> Communicator::allgather_bytes(const std::string& mine) {
  if (size_ == 1) return {mine};
  std::vector<std::string> out(size_);
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Allgatherv");
  int64_t len = static_cast<int64_t>(mine.size());
  std::vector<int64_t> lens(size_);
  check(MPI_Allgather(&len, 1, MPI_INT64_T, lens.data(), 1, MPI_INT64_T, MPI_COMM_WORLD), "MPI_Allgather(sizes)");
  std::vector<int> counts(size_), displs(size_);
  int64_t total = 0;
  for (int r = 0; r < size_; ++r) {
    counts[r] = static_cast<int>(lens[r]);
    displs[r] = static_cast<int>(total);
    total += lens[r];
    if (total > INT_MAX) fail("allgather of ", total, "+ bytes on ", where(), ": expected below 2 GiB in total");
  }
  std::string all(static_cast<size_t>(total), '\0');
  check(MPI_Allgatherv(mine.data(), static_cast<int>(len), MPI_BYTE, all.data(), counts.data(), displs.data(),
                       MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgatherv");
  for (int r = 0; r < size_; ++r) out[r] = all.substr(displs[r], counts[r]);
#endif
  return out;
}

void Communicator::barrier() {
  if (size_ == 1) return;
#ifdef CPUFT_WITH_MPI
  std::lock_guard<std::mutex> lock(mpi_mu_);
  WatchedCollective watch(watchdog(), "MPI_Barrier");
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

void Communicator::abort(int code, const std::string& message) {
  if (!using_mpi_) throw Error(message);
  std::fflush(stdout);
  log_fatal(str_cat(where(), ": ", message));
#ifdef CPUFT_WITH_MPI
  MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::_Exit(code);
}

}  // namespace cpuft
