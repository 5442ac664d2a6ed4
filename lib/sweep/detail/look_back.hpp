// The decoupled look-back protocol of single-pass scans, written once for
// every backend (the host's team kernel in detail/scan_single_pass.hpp and
// the CUDA tile kernel in cuda/single_pass_scan.hpp).
//
// Tiles are numbered in the order they start (an atomic ticket), so every
// predecessor of a tile is running or done and waiting on it cannot
// deadlock. Each tile has a status word and two values:
//   chunk_empty      nothing published yet;
//   chunk_aggregate  `aggregates(c)` holds the tile's own fold;
//   chunk_inclusive  `inclusives(c)` holds the fold of everything up to and
//                    including the tile (init folded in).
// One thread per tile calls look_back_tiles::resolve with its aggregate (or,
// on CUDA, one warp runs the same steps over 32 predecessors at a time): it
// publishes the aggregate (or, when the aggregate already closes the prefix,
// e.g. a segmented value holding a head, the inclusive value at once),
// walks back over the predecessors' aggregates until it meets an inclusive
// prefix, publishes its own inclusive prefix and returns the exclusive one.
// Values are written before their status word, with a device-wide fence in
// between, and read with volatile loads after the status word.
#pragma once

#include <sweep/detail/scan_io.hpp>
#include <sweep/detail/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace sweep::detail {

enum : int { chunk_empty = 0, chunk_aggregate = 1, chunk_inclusive = 2 };

/// True when a chunk's aggregate is already its inclusive prefix whatever
/// comes before (a segmented value holding a head): it is published as
/// inclusive at once and look-back stops there.
template <class IO, class = void>
struct io_closes_prefix : std::false_type {};
template <class IO>
struct io_closes_prefix<IO, std::void_t<decltype(IO::closes_prefix(std::declval<typename IO::value_type>()))>>
    : std::true_type {};

template <class IO, class T>
KOKKOS_INLINE_FUNCTION bool closes_prefix(const T& aggregate) {
  if constexpr (io_closes_prefix<IO>::value) return IO::closes_prefix(aggregate);
  else return false;
}

/// Raw pointers into the tiles' status words and values (what a kernel
/// captures; see look_back_storage for the owner).
template <class T>
struct look_back_tiles {
  int* flags;
  T* aggregates;
  T* inclusives;

  /// Called by one thread of tile `c` once its `aggregate` is known:
  /// returns the fold of `init` and every element before the tile. The
  /// walk reads one predecessor at a time (the CUDA kernel walks a window
  /// of 32 per step with a warp, cuda/look_back_warp.hpp, through the same
  /// publish and read steps below).
  template <class IO>
  KOKKOS_INLINE_FUNCTION T resolve(const IO& io, index_t c, const T& aggregate, const T& init) const {
    if (c == 0) return publish_first(io, aggregate, init);
    const bool closed = publish_aggregate<IO>(c, aggregate);
    T behind = IO::identity();
    index_t j = c - 1;
    while (true) {
      const int f = status(j);
      if (f == chunk_empty) continue;  // the predecessor is still folding
      Kokkos::memory_fence();
      if (f == chunk_inclusive) {
        behind = io.combine(inclusive_of(j), behind);
        break;
      }
      behind = io.combine(aggregate_of(j), behind);
      --j;
    }
    publish_prefix(io, c, behind, aggregate, closed);
    return behind;
  }

  /// Tile 0: its inclusive prefix is init (+) aggregate; returns init.
  template <class IO>
  KOKKOS_INLINE_FUNCTION T publish_first(const IO& io, const T& aggregate, const T& init) const {
    publish(inclusives, 0, io.combine(init, aggregate), chunk_inclusive);
    return init;
  }

  /// Tile c > 0, before its walk: publishes the aggregate, or the inclusive
  /// prefix at once when the aggregate closes it; returns whether it did.
  template <class IO>
  KOKKOS_INLINE_FUNCTION bool publish_aggregate(index_t c, const T& aggregate) const {
    const bool closed = closes_prefix<IO>(aggregate);
    if (closed) publish(inclusives, c, aggregate, chunk_inclusive);
    else publish(aggregates, c, aggregate, chunk_aggregate);
    return closed;
  }

  /// Tile c > 0, after its walk found `behind` (the fold of everything
  /// before it): publishes its inclusive prefix unless already closed.
  template <class IO>
  KOKKOS_INLINE_FUNCTION void publish_prefix(const IO& io, index_t c, const T& behind, const T& aggregate,
                                             bool closed) const {
    if (!closed) publish(inclusives, c, io.combine(behind, aggregate), chunk_inclusive);
  }

  /// Tile j's status word; its values may be read only after a status
  /// other than chunk_empty was seen, and a memory fence.
  KOKKOS_INLINE_FUNCTION int status(index_t j) const { return volatile_load(&flags[j]); }
  KOKKOS_INLINE_FUNCTION T aggregate_of(index_t j) const { return volatile_load(&aggregates[j]); }
  KOKKOS_INLINE_FUNCTION T inclusive_of(index_t j) const { return volatile_load(&inclusives[j]); }

 private:
  KOKKOS_INLINE_FUNCTION void publish(T* slot, index_t c, const T& value, int state) const {
    slot[c] = value;
    Kokkos::memory_fence();
    Kokkos::atomic_exchange(&flags[c], state);
  }
};

/// The tiles' status words (zeroed: chunk_empty), their values and the
/// ticket that numbers the tiles, in one lease of Mem's workspace
/// (detail/workspace.hpp: reused across calls, nothing allocated per call
/// once the pool has grown). The values live in zeroed bytes: every value
/// is written before its status word, but volatile_load reads whole words,
/// padding included (the lifted (value, head) pairs of segmented scans
/// have some), and those bytes must have been written too. One value per
/// tile: zeroing costs nothing measurable.
template <class T, class Mem>
struct look_back_storage {
  static_assert(alignof(T) <= 64, "look-back values are placed in 64-byte aligned workspace pieces");
  using lease_t = workspace_lease<Mem>;
  using value_type = T;
  index_t count = 0;
  mutable lease_t lease;  // pending on the caller's instance until total() has fenced it
  unsigned long long* ticket_word = nullptr;  // the next tile number
  int* flags = nullptr;
  T* values = nullptr;  // aggregates, then inclusive prefixes

  static std::size_t bytes_for(index_t tiles) {
    return lease_t::piece(sizeof(unsigned long long)) + lease_t::piece(std::size_t(tiles) * sizeof(int)) +
           lease_t::piece(2 * std::size_t(tiles) * sizeof(T));
  }

  /// Zeroes everything on the caller's instance (stream-ordered before the
  /// scan kernel that follows on it). From here the lease counts as in use
  /// by that instance: if the call ends without total() (an error, or
  /// total_to), the next user of the buffer fences the instance first.
  template <class ExecSpace>
  look_back_storage(const ExecSpace& space, index_t tiles) : count(tiles), lease(bytes_for(tiles)) {
    ticket_word = lease.template take<unsigned long long>(1);
    flags = lease.template take<int>(std::size_t(tiles));
    values = reinterpret_cast<T*>(lease.template take<unsigned char>(2 * std::size_t(tiles) * sizeof(T)));
    Kokkos::deep_copy(space, lease.bytes(), static_cast<unsigned char>(0));
    lease.release_after(space);
  }

  look_back_tiles<T> tiles() const { return {flags, values, values + count}; }

  /// The ticket counter, as the kernel's atomic type (8 bytes, zeroed).
  template <class C>
  C* ticket() const {
    static_assert(sizeof(C) == sizeof(unsigned long long), "the ticket is one 8-byte word");
    return reinterpret_cast<C*>(ticket_word);
  }

  /// The last tile's inclusive prefix: the scan's total, init folded in
  /// (read on the caller's instance, which is fenced).
  template <class ExecSpace>
  T total(const ExecSpace& space) const {
    const Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged> inclusives(values + count, count);
    const T out = read_element(space, inclusives, count - 1);
    lease.settled();  // read_element fenced the instance
    return out;
  }

  /// Copies the total into `dst` (a rank-0 View the instance can access)
  /// on the caller's instance without waiting; the lease goes back still
  /// pending on that instance.
  template <class ExecSpace, class Dst>
  void total_to(const ExecSpace& space, const Dst& dst) const {
    const Kokkos::View<T, Mem, Kokkos::MemoryUnmanaged> last(values + 2 * count - 1);
    Kokkos::deep_copy(space, dst, last);
  }
};

/// Where a scan's total goes. total_on_host: back to the caller as the
/// return value (single-pass paths read it from their tile states, which
/// fences the instance).
struct total_on_host {
  template <class ExecSpace, class Storage>
  typename Storage::value_type finish(const ExecSpace& space, Storage& storage) const {
    return storage.total(space);
  }
  /// A total already on the host (the other algorithms): returned.
  template <class ExecSpace, class T>
  T put(const ExecSpace&, const T& total) const {
    return total;
  }
};

/// The total goes to `dst`, a rank-0 View the space can access: single-pass
/// paths copy it there from their tile states on the caller's instance
/// without waiting (the return value is then meaningless; the workspace
/// lease goes back pending on the instance); a total already on the host
/// (every other algorithm) is copied and waited for.
template <class Dst>
struct total_in_view {
  Dst dst;
  template <class ExecSpace, class Storage>
  typename Storage::value_type finish(const ExecSpace& space, Storage& storage) const {
    storage.total_to(space, dst);
    return typename Storage::value_type{};
  }
  template <class ExecSpace, class T>
  T put(const ExecSpace& space, const T& total) const {
    Kokkos::deep_copy(space, dst, total);
    space.fence();
    return total;
  }
};

}  // namespace sweep::detail
