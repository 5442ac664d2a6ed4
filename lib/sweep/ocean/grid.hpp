// Ocean grids: (2^k + 2)^2 double-precision points, the 2^k x 2^k interior
// plus a one-point boundary ring, stored either row-major ("2D": row i is
// n contiguous values) or block-major ("4D": the grid is cut into T x T
// tiles, each tile contiguous, tiles in row-major order), as in SPLASH-2
// Ocean. Point (i, j) is row i (y = i h), column j (x = j h), h = L / (n - 1).
//
// Kernels never branch on the layout: they are templated on an indexer
// (`row_major_index`, `block_major_index`) and `visit_indexer` picks the
// instantiation once per call. Block-major pads n up to a multiple of T, so
// it stores ceil(n / T)^2 T^2 values (padding is zero and never read).
#pragma once

#include <sweep/core.hpp>
#include <sweep/detail/huge_pages.hpp>

#include <Kokkos_Core.hpp>

#include <bit>
#include <string>
#include <type_traits>
#include <utility>

namespace sweep::ocean {

enum class layout { row_major, block_major };

inline const char* to_string(layout l) { return l == layout::row_major ? "row_major" : "block_major"; }

/// How a grid is stored: the layout and, for block-major, the tile edge
/// (a power of two >= 2; smaller grids use min(tile, bit_ceil(n))). The
/// default tile (128 x 128 doubles, 128 KiB) fits a CPU core's L2.
struct grid_layout {
  layout kind = layout::row_major;
  index_t tile = 128;
};

/// (i, j) -> offset for row-major storage of an n x n grid.
struct row_major_index {
  index_t n = 0;
  KOKKOS_FORCEINLINE_FUNCTION index_t operator()(index_t i, index_t j) const { return i * n + j; }
};

/// (i, j) -> offset for tiles of 2^shift x 2^shift, tiles_per_row tiles per
/// row of tiles.
struct block_major_index {
  int shift = 0;
  index_t tiles_per_row = 0;
  KOKKOS_FORCEINLINE_FUNCTION index_t operator()(index_t i, index_t j) const {
    const index_t mask = (index_t(1) << shift) - 1;
    return ((((i >> shift) * tiles_per_row + (j >> shift)) << (2 * shift)) | ((i & mask) << shift) |
            (j & mask));
  }
};

namespace detail {

/// True when n = 2^k + 2 for some k >= 1.
inline bool is_ocean_size(index_t n) {
  return n >= 4 && std::has_single_bit(static_cast<std::uint64_t>(n - 2));
}

inline void check_grid_size(index_t n, const char* where) {
  sweep::detail::require(is_ocean_size(n), where, "n = ", n,
                         " is not 2^k + 2 with k >= 1 (e.g. 258, 514, 1026, 2050, 4098)");
}

inline void check_layout(const grid_layout& l, const char* where) {
  sweep::detail::require(l.tile >= 2 && std::has_single_bit(static_cast<std::uint64_t>(l.tile)), where,
                         "tile = ", l.tile, " must be a power of two >= 2");
}

}  // namespace detail

/// An n x n grid of doubles (boundary ring included) in MemorySpace.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class grid {
 public:
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<double*, MemorySpace>;
  using host_view = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

  grid() = default;

  /// A zero grid. Throws std::invalid_argument unless n = 2^k + 2 and the
  /// tile is a power of two >= 2.
  grid(const std::string& label, index_t n, grid_layout lay = {}) : m_n(n), m_layout(lay) {
    detail::check_grid_size(n, "sweep::ocean::grid");
    detail::check_layout(lay, "sweep::ocean::grid");
    index_t size = n * n;
    if (m_layout.kind == layout::block_major) {
      m_layout.tile = std::min<index_t>(m_layout.tile, static_cast<index_t>(std::bit_ceil(std::uint64_t(n))));
      const index_t tiles = (n + m_layout.tile - 1) / m_layout.tile;
      size = tiles * tiles * m_layout.tile * m_layout.tile;
    }
    m_data = view_type(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), size);
    sweep::detail::advise_huge_pages<MemorySpace>(m_data.data(), std::size_t(size) * sizeof(double));
    Kokkos::deep_copy(m_data, 0.0);
  }

  index_t n() const { return m_n; }
  /// Interior points per side, 2^k.
  index_t interior() const { return m_n - 2; }
  /// The layout as stored (block-major tile clipped to the grid).
  grid_layout storage_layout() const { return m_layout; }
  /// All stored values, padding included (zero outside the grid).
  view_type data() const { return m_data; }
  /// Bytes of one grid's n^2 points (the traffic model's unit; padding excluded).
  double bytes() const { return 8.0 * double(m_n) * double(m_n); }

  row_major_index row_major() const { return {m_n}; }
  block_major_index block_major() const {
    return {std::countr_zero(static_cast<std::uint64_t>(m_layout.tile)), (m_n + m_layout.tile - 1) / m_layout.tile};
  }

  /// Same size and storage as `other`: the precondition of every kernel
  /// taking several grids.
  template <class Other>
  bool compatible(const Other& other) const {
    return m_n == other.n() && m_layout.kind == other.storage_layout().kind &&
           (m_layout.kind == layout::row_major || m_layout.tile == other.storage_layout().tile);
  }

  /// The grid as an n x n row-major host array.
  host_view to_host() const {
    auto raw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_data);
    host_view out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::ocean::grid::host"), m_n, m_n);
    visit_host([&](auto idx) {
      for (index_t i = 0; i < m_n; ++i)
        for (index_t j = 0; j < m_n; ++j) out(i, j) = raw(idx(i, j));
    });
    return out;
  }

  /// Copies an n x n row-major host array into the grid (ring included).
  template <class HostView>
  void assign(const HostView& values) {
    sweep::detail::require(values.extent(0) == std::size_t(m_n) && values.extent(1) == std::size_t(m_n),
                           "sweep::ocean::grid::assign", "values are ", values.extent(0), " x ",
                           values.extent(1), ", the grid is ", m_n, " x ", m_n);
    auto raw = Kokkos::create_mirror_view(m_data);
    Kokkos::deep_copy(raw, 0.0);
    visit_host([&](auto idx) {
      for (index_t i = 0; i < m_n; ++i)
        for (index_t j = 0; j < m_n; ++j) raw(idx(i, j)) = values(i, j);
    });
    Kokkos::deep_copy(m_data, raw);
  }

 private:
  template <class F>
  void visit_host(F&& f) const {
    if (m_layout.kind == layout::row_major)
      f(row_major());
    else
      f(block_major());
  }

  index_t m_n = 0;
  grid_layout m_layout{};
  view_type m_data;
};

/// Calls f(indexer) with the indexer type of g's layout (one instantiation
/// per layout; f must not hold KOKKOS_LAMBDAs, it builds functors).
template <class MemorySpace, class F>
decltype(auto) visit_indexer(const grid<MemorySpace>& g, F&& f) {
  if (g.storage_layout().kind == layout::row_major) return f(g.row_major());
  return f(g.block_major());
}

namespace detail {

/// The indexer of type Indexer of g (the caller knows g's layout).
template <class Indexer, class MemorySpace>
Indexer indexer_of(const grid<MemorySpace>& g) {
  if constexpr (std::is_same_v<Indexer, row_major_index>)
    return g.row_major();
  else
    return g.block_major();
}

}  // namespace detail

/// Copies src into dst (same size and layout), ring included.
template <class ExecSpace, class MemorySpace>
void copy(const ExecSpace& space, const grid<MemorySpace>& dst, const grid<MemorySpace>& src) {
  sweep::detail::require(dst.compatible(src), "sweep::ocean::copy", "grids differ: ", dst.n(), " vs ", src.n(),
                         " points per side or different layouts");
  Kokkos::deep_copy(space, dst.data(), src.data());
}

}  // namespace sweep::ocean
