// The vocabulary of Sweep's distributed layer: communicator checks, errors
// that every rank agrees on, value types sent as bytes, monoids registered
// as non-commutative MPI operators, the reversed communicator of backward
// scans, and how device buffers reach MPI (directly when the MPI is
// GPU-aware, else staged through host memory).
//
// Errors: every argument check of a distributed call runs on every rank
// first; the ranks then agree (two small collectives) and, if any rank
// failed, all of them throw the same std::invalid_argument, naming the
// lowest failing rank and its reason. No rank is left waiting in a
// collective. A communicator that is MPI_COMM_NULL, or MPI not initialised,
// throws on the ranks that passed it (they cannot communicate). A failing
// MPI call throws std::runtime_error with MPI's error string.
//
// Cost: an agreement is one MPI_Allreduce of an int (plus a broadcast of the
// message when a check failed); the option checks one MPI_Allreduce of a
// few integers.
#pragma once

#include <sweep/core.hpp>
#include <sweep/monoid.hpp>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sweep::mpi {

/// How Views in memory the host cannot read reach MPI.
///   automatic  directly when the MPI says it is GPU-aware (Open MPI's
///              MPIX_Query_cuda_support), else staged through host memory
///   direct     always hand the View's pointer to MPI
///   staged     always copy through a host buffer (also for host Views:
///              this is how the staging path is tested on a CPU build)
enum class transport { automatic, direct, staged };

/// True when the MPI library reports that it accepts CUDA device pointers.
inline bool gpu_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace detail {

using sweep::detail::concat;

/// Throws std::runtime_error with MPI's message when rc is not MPI_SUCCESS.
inline void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(concat("sweep::mpi: ", what, " failed: ", std::string(text, static_cast<std::size_t>(len))));
}

inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

inline int comm_size(MPI_Comm comm) {
  int s = 0;
  check_mpi(MPI_Comm_size(comm, &s), "MPI_Comm_size");
  return s;
}

/// The checks no collective can make: a rank that fails them cannot talk.
inline void require_comm(MPI_Comm comm, const char* where) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised)
    throw std::invalid_argument(concat(where, ": MPI is not initialised (or already finalised)"));
  if (comm == MPI_COMM_NULL) throw std::invalid_argument(concat(where, ": the communicator is MPI_COMM_NULL"));
}

/// Every rank passes its own error ("" when its checks passed). If any
/// rank has one, every rank throws std::invalid_argument with the error of
/// the lowest failing rank: "<where>: rank <k>: <error>".
inline void agree(MPI_Comm comm, const char* where, const std::string& local_error) {
  const int rank = comm_rank(comm);
  const int mine = local_error.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  std::string message = rank == first ? local_error : std::string();
  long long len = static_cast<long long>(message.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_LONG_LONG, first, comm), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(message.data(), static_cast<int>(len), MPI_CHAR, first, comm), "MPI_Bcast");
  throw std::invalid_argument(concat(where, ": rank ", first, ": ", message));
}

/// Runs the local checks `f` (which throw std::invalid_argument), then
/// agrees: all ranks throw if any rank's checks failed.
template <class F>
void checked(MPI_Comm comm, const char* where, F&& f) {
  std::string error;
  try {
    f();
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  agree(comm, where, error);
}

/// Named integers every rank must pass with the same value (options,
/// directions, type sizes): one MPI_Allreduce of their minima and maxima.
inline void require_same(MPI_Comm comm, const char* where,
                         std::initializer_list<std::pair<const char*, long long>> values) {
  std::vector<long long> both;
  for (const auto& v : values) both.push_back(-v.second);
  for (const auto& v : values) both.push_back(v.second);
  std::vector<long long> reduced(both.size());
  check_mpi(MPI_Allreduce(both.data(), reduced.data(), static_cast<int>(both.size()), MPI_LONG_LONG, MPI_MAX, comm),
            "MPI_Allreduce");
  std::size_t k = 0;
  const std::size_t m = values.size();
  for (const auto& v : values) {
    const long long lo = -reduced[k], hi = reduced[k + m];
    if (lo != hi)
      throw std::invalid_argument(concat(where, ": ", v.first, " differs across ranks (from ", lo, " to ", hi,
                                         "); every rank must pass the same value"));
    ++k;
  }
}

/// The exclusive prefix sum of a count over the ranks, and the global sum.
inline std::pair<index_t, index_t> offset_and_total(MPI_Comm comm, index_t count) {
  long long mine = count, before = 0, total = 0;
  check_mpi(MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Exscan");
  if (comm_rank(comm) == 0) before = 0;
  check_mpi(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce");
  return {static_cast<index_t>(before), static_cast<index_t>(total)};
}

/// A contiguous MPI datatype of sizeof(T) bytes, freed with the object.
template <class T>
class bytes_type {
 public:
  bytes_type() {
    static_assert(std::is_trivially_copyable_v<T>, "sweep::mpi: values sent over MPI must be trivially copyable");
    check_mpi(MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &m_type), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&m_type), "MPI_Type_commit");
  }
  ~bytes_type() { MPI_Type_free(&m_type); }
  bytes_type(const bytes_type&) = delete;
  bytes_type& operator=(const bytes_type&) = delete;
  MPI_Datatype get() const { return m_type; }

 private:
  MPI_Datatype m_type = MPI_DATATYPE_NULL;
};

/// A Sweep monoid as a non-commutative MPI_Op: MPI then combines operands
/// in rank order (inout = in (+) inout, `in` from the lower ranks). The
/// operator object is reached through a thread-local pointer for the
/// lifetime of this object, so stateful operators work.
template <class Op>
class monoid_op {
 public:
  using T = typename Op::value_type;
  explicit monoid_op(const Op& op) : m_saved(current()) {
    current() = &op;
    check_mpi(MPI_Op_create(&apply, 0, &m_op), "MPI_Op_create");
  }
  ~monoid_op() {
    MPI_Op_free(&m_op);
    current() = m_saved;
  }
  monoid_op(const monoid_op&) = delete;
  monoid_op& operator=(const monoid_op&) = delete;
  MPI_Op get() const { return m_op; }

 private:
  static const Op*& current() {
    static thread_local const Op* op = nullptr;
    return op;
  }
  static void apply(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* a = static_cast<const unsigned char*>(in);
    auto* b = static_cast<unsigned char*>(inout);
    for (int i = 0; i < *len; ++i) {
      T x = Op::identity(), y = Op::identity();
      std::memcpy(&x, a + std::size_t(i) * sizeof(T), sizeof(T));
      std::memcpy(&y, b + std::size_t(i) * sizeof(T), sizeof(T));
      const T r = (*current())(x, y);
      std::memcpy(b + std::size_t(i) * sizeof(T), &r, sizeof(T));
    }
  }
  const Op* m_saved;
  MPI_Op m_op = MPI_OP_NULL;
};

/// The fold of `local` over the ranks before this one in comm's order (the
/// identity on rank 0) and over all ranks, under op, operands in rank
/// order: one MPI_Exscan and one MPI_Bcast.
template <class Op, class T = typename Op::value_type>
std::pair<T, T> rank_prefix(MPI_Comm comm, const Op& op, const T& local) {
  bytes_type<T> type;
  monoid_op<Op> mop(op);
  T prefix = Op::identity();
  check_mpi(MPI_Exscan(&local, &prefix, 1, type.get(), mop.get(), comm), "MPI_Exscan");
  const int rank = comm_rank(comm), size = comm_size(comm);
  if (rank == 0) prefix = Op::identity();
  T total = op(prefix, local);
  check_mpi(MPI_Bcast(&total, 1, type.get(), size - 1, comm), "MPI_Bcast");
  return {prefix, total};
}

/// comm with its ranks in reverse order (for backward scans), freed with
/// the object when it made one.
class ordered_comm {
 public:
  ordered_comm(MPI_Comm comm, bool reverse) : m_comm(comm) {
    if (!reverse) return;
    const int rank = comm_rank(comm), size = comm_size(comm);
    check_mpi(MPI_Comm_split(comm, 0, size - 1 - rank, &m_comm), "MPI_Comm_split");
    m_owned = true;
  }
  ~ordered_comm() {
    if (m_owned) MPI_Comm_free(&m_comm);
  }
  ordered_comm(const ordered_comm&) = delete;
  ordered_comm& operator=(const ordered_comm&) = delete;
  MPI_Comm get() const { return m_comm; }

 private:
  MPI_Comm m_comm;
  bool m_owned = false;
};

/// True when a and b have the same bytes (then op(a, x) == op(b, x)).
template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

using sweep::detail::read_element;

/// A range policy with 64-bit indices on the caller's instance.
template <class ExecSpace>
using range = sweep::detail::range_policy<ExecSpace>;

/// Whether a View in MemorySpace goes to MPI by its own pointer.
template <class MemorySpace>
bool pass_directly(transport t) {
  if (t == transport::staged) return false;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) return true;
  return t == transport::direct || gpu_aware();
}

/// MPI_Alltoallv of contiguous Views (element counts and displacements per
/// rank), staged through host buffers unless `t` lets MPI read the Views.
template <class ExecSpace, class SendView, class RecvView>
void alltoallv(MPI_Comm comm, const ExecSpace& space, const SendView& send, const std::vector<int>& send_counts,
               const std::vector<int>& send_displs, const RecvView& recv, const std::vector<int>& recv_counts,
               const std::vector<int>& recv_displs, transport t) {
  using T = typename RecvView::non_const_value_type;
  bytes_type<T> type;
  if (pass_directly<typename RecvView::memory_space>(t)) {
    space.fence();
    check_mpi(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), type.get(), recv.data(),
                            recv_counts.data(), recv_displs.data(), type.get(), comm),
              "MPI_Alltoallv");
    return;
  }
  Kokkos::View<T*, Kokkos::HostSpace> hsend(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::staged_send"),
                                            send.extent(0));
  Kokkos::View<T*, Kokkos::HostSpace> hrecv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::staged_recv"),
                                            recv.extent(0));
  Kokkos::deep_copy(space, hsend, send);
  space.fence();
  check_mpi(MPI_Alltoallv(hsend.data(), send_counts.data(), send_displs.data(), type.get(), hrecv.data(),
                          recv_counts.data(), recv_displs.data(), type.get(), comm),
            "MPI_Alltoallv");
  Kokkos::deep_copy(space, recv, hrecv);
  space.fence();
}

/// Counts as MPI's int, refusing what does not fit.
inline int as_count(index_t n, const char* where) {
  if (n > index_t(INT_MAX))
    throw std::invalid_argument(concat(where, ": ", n, " elements to one rank exceed MPI's int count"));
  return static_cast<int>(n);
}

}  // namespace detail
}  // namespace sweep::mpi
