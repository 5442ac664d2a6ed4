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
// One thread per tile calls look_back_tiles::resolve with its aggregate: it
// publishes the aggregate (or, when the aggregate already closes the prefix,
// e.g. a segmented value holding a head, the inclusive value at once),
// walks back over the predecessors' aggregates until it meets an inclusive
// prefix, publishes its own inclusive prefix and returns the exclusive one.
// Values are written before their status word, with a device-wide fence in
// between, and read with volatile loads after the status word.
#pragma once

#include <sweep/detail/scan_io.hpp>

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
  /// returns the fold of `init` and every element before the tile.
  template <class IO>
  KOKKOS_INLINE_FUNCTION T resolve(const IO& io, index_t c, const T& aggregate, const T& init) const {
    if (c == 0) {
      publish(inclusives, 0, io.combine(init, aggregate), chunk_inclusive);
      return init;
    }
    const bool closed = closes_prefix<IO>(aggregate);
    if (closed) publish(inclusives, c, aggregate, chunk_inclusive);
    else publish(aggregates, c, aggregate, chunk_aggregate);
    T behind = IO::identity();
    index_t j = c - 1;
    while (true) {
      const int f = volatile_load(&flags[j]);
      if (f == chunk_empty) continue;  // the predecessor is still folding
      Kokkos::memory_fence();
      if (f == chunk_inclusive) {
        behind = io.combine(volatile_load(&inclusives[j]), behind);
        break;
      }
      behind = io.combine(volatile_load(&aggregates[j]), behind);
      --j;
    }
    if (!closed) publish(inclusives, c, io.combine(behind, aggregate), chunk_inclusive);
    return behind;
  }

 private:
  KOKKOS_INLINE_FUNCTION void publish(T* slot, index_t c, const T& value, int status) const {
    slot[c] = value;
    Kokkos::memory_fence();
    Kokkos::atomic_exchange(&flags[c], status);
  }
};

/// The tiles' status words (zeroed: chunk_empty) and values in `Mem`.
template <class T, class Mem>
struct look_back_storage {
  Kokkos::View<int*, Mem> flags;
  Kokkos::View<T*, Mem> aggregates;
  Kokkos::View<T*, Mem> inclusives;

  look_back_storage(const std::string& label, index_t tiles)
      : flags(label + "::flags", tiles),
        aggregates(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::aggregates"), tiles),
        inclusives(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::inclusives"), tiles) {}

  look_back_tiles<T> tiles() const { return {flags.data(), aggregates.data(), inclusives.data()}; }

  /// The last tile's inclusive prefix: the scan's total, init folded in.
  T total() const { return read_element(inclusives, static_cast<index_t>(inclusives.extent(0)) - 1); }
};

}  // namespace sweep::detail
