// The ocean across ranks: an n x n ocean grid (the 2^k x 2^k interior plus
// its boundary ring, as sweep::ocean::grid) split over a 2-D Cartesian
// process grid, and the red-black sweep and residual on it.
//
//   decomposition   MPI_Cart_create over the caller's communicator: dims
//                   from MPI_Dims_create (2 ranks: 2 x 1, 3: 3 x 1, 4: 2 x 2)
//                   or given ({P, 1}: row strips, {1, P}: column strips).
//                   Process row a owns interior rows [1 + m a / p, 1 + m (a+1) / p)
//                   of m = n - 2, columns likewise, so any m >= p works.
//   distributed_grid  this rank's block with one ghost/boundary layer on
//                   each side, row-major, (rows + 2) x (cols + 2) doubles.
//   exchange_ghosts non-blocking MPI_Isend/Irecv of the four edges (rows
//                   and columns packed into one contiguous buffer by a
//                   Kokkos kernel; device buffers go to MPI directly or
//                   staged through host memory, see mpi/core.hpp).
//   red_black_sweep exchange the black ghosts, relax the red points,
//                   exchange the red ghosts, relax the black points (each
//                   exchange moves one colour: half the edge). The default
//                   schedule, exchange_schedule::fused, relaxes both
//                   colours in one pass over strips of rows (as the
//                   single-process fused sweep) and only the black points
//                   next to a neighbour after the red exchange;
//                   `overlapped` relaxes each colour's points that read no
//                   ghost while its exchange is in flight, the edge lines
//                   after it; `blocking` one colour after the other. A colour's
//                   updates read only the other colour, so the result
//                   equals sweep::ocean::red_black_sweep's bit for bit; the returned max |du| is exact, ||du||_2 equal to
//                   rounding (MPI_Allreduce of the per-rank sums).
//   residual        r = f - A u on the owned points, ||r||_2 over all ranks.
//   scatter/gather  a global sweep::ocean::grid on rank 0 (of the
//                   decomposition's communicator) to and from the blocks.
//
// Errors: every check runs on every rank and the ranks agree (mpi/core.hpp):
// all throw the same std::invalid_argument, e.g. n not 2^k + 2 or different
// across ranks, dims that do not multiply to the rank count, a grid with
// fewer interior rows (columns) than process rows (columns), grids of
// another decomposition, a global grid of the wrong size on rank 0.
//
// Cost of one sweep per rank: the local sweep (fused: one pass over the
// block, 24 bytes per owned point; blocking and overlapped: a pass per
// colour, twice the traffic, as every cache line holds both colours) plus two exchanges of about rows + cols doubles (one colour) to at most four
// neighbours, each a pack kernel, Isend/Irecv/Waitall and an unpack kernel;
// one MPI_Allreduce of a double for the measure. Scatter/gather move the
// whole grid through rank 0's host memory (for setup, tests and frames).
#pragma once

#include <sweep/mpi/core.hpp>
#include <sweep/ocean/grid.hpp>
#include <sweep/ocean/helmholtz.hpp>
#include <sweep/ocean/stencil.hpp>
#include <sweep/ocean/stencil_backend.hpp>
#include <sweep/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace sweep::mpi::ocean {

/// The owned interior rectangle of one rank, in global point coordinates:
/// rows [row_begin, row_end), columns [col_begin, col_end).
struct block {
  index_t row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;
  index_t rows() const { return row_end - row_begin; }
  index_t cols() const { return col_end - col_begin; }
};

/// Global (i, j) -> offset in a rank's row-major local array, which holds
/// global rows [row_begin - 1, row_end] and columns [col_begin - 1, col_end].
struct local_index {
  index_t row0 = 0, col0 = 0, stride = 0;
  KOKKOS_FORCEINLINE_FUNCTION index_t operator()(index_t i, index_t j) const {
    return (i - row0) * stride + (j - col0);
  }
};

namespace detail {

using sweep::mpi::detail::check_mpi;
using sweep::mpi::detail::checked;
using sweep::mpi::detail::require_comm;
using sweep::mpi::detail::require_same;

/// Part a of m interior points split over p parts (points 1..m).
inline std::pair<index_t, index_t> split_range(index_t m, int p, int a) {
  return {1 + m * a / p, 1 + m * (a + 1) / p};
}

struct cart_state {
  MPI_Comm cart = MPI_COMM_NULL;
  index_t n = 0;
  std::array<int, 2> dims{1, 1}, coords{0, 0};
  int rank = 0, size = 1;
  int up = MPI_PROC_NULL, down = MPI_PROC_NULL, left = MPI_PROC_NULL, right = MPI_PROC_NULL;
  transport how = transport::automatic;
  block mine;
  ~cart_state() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (cart != MPI_COMM_NULL && !finalised) MPI_Comm_free(&cart);
  }
};

}  // namespace detail

/// The split of an n x n ocean grid over the ranks of a communicator.
/// Collective: every rank of comm constructs it with the same n and dims.
class decomposition {
 public:
  decomposition() = default;

  /// dims = {process rows, process columns}; {0, 0} (or a 0 entry) lets
  /// MPI_Dims_create choose. Throws std::invalid_argument on every rank
  /// when n is not 2^k + 2, n or dims differ across ranks, dims do not fit
  /// the rank count, or m = n - 2 is smaller than a process dimension.
  decomposition(MPI_Comm comm, index_t n, std::array<int, 2> dims = {0, 0},
                transport how = transport::automatic) {
    static constexpr const char* where = "sweep::mpi::ocean::decomposition";
    sweep::mpi::detail::require_comm(comm, where);
    const int size = sweep::mpi::detail::comm_size(comm);
    sweep::mpi::detail::checked(comm, where, [&] {
      sweep::ocean::detail::check_grid_size(n, where);
      sweep::detail::require(dims[0] >= 0 && dims[1] >= 0, where, "dims = {", dims[0], ", ", dims[1],
                             "} must be >= 0 (0: chosen by MPI_Dims_create)");
      const int fixed = (dims[0] > 0 ? dims[0] : 1) * (dims[1] > 0 ? dims[1] : 1);
      sweep::detail::require(size % fixed == 0 && (dims[0] == 0 || dims[1] == 0 || fixed == size), where,
                             "dims = {", dims[0], ", ", dims[1], "} do not fit ", size, " ranks");
    });
    sweep::mpi::detail::checked(comm, where, [&] {
      sweep::mpi::detail::require_same(comm, where,
                                       {{"n", n}, {"dims[0]", dims[0]}, {"dims[1]", dims[1]},
                                        {"transport", static_cast<long long>(how)}});
    });
    check_mpi_dims(size, dims);
    const index_t m = n - 2;
    sweep::mpi::detail::checked(comm, where, [&] {
      sweep::detail::require(m >= dims[0] && m >= dims[1], where, "the ", m, " x ", m,
                             " interior is too small for a ", dims[0], " x ", dims[1],
                             " process grid (every rank needs at least one row and one column)");
    });
    auto s = std::make_shared<detail::cart_state>();
    s->n = n;
    s->dims = dims;
    s->size = size;
    s->how = how;
    const int periods[2] = {0, 0};
    // reorder = 0: rank r of comm is rank r of the process grid, so rank 0
    // (the root of scatter and gather) is the caller's rank 0.
    detail::check_mpi(MPI_Cart_create(comm, 2, dims.data(), periods, 0, &s->cart), "MPI_Cart_create");
    detail::check_mpi(MPI_Comm_rank(s->cart, &s->rank), "MPI_Comm_rank");
    detail::check_mpi(MPI_Cart_coords(s->cart, s->rank, 2, s->coords.data()), "MPI_Cart_coords");
    detail::check_mpi(MPI_Cart_shift(s->cart, 0, 1, &s->up, &s->down), "MPI_Cart_shift");
    detail::check_mpi(MPI_Cart_shift(s->cart, 1, 1, &s->left, &s->right), "MPI_Cart_shift");
    s->mine = block_of(n, dims, s->coords);
    m_state = std::move(s);
  }

  index_t n() const { return m_state ? m_state->n : 0; }
  std::array<int, 2> dims() const { return m_state->dims; }
  std::array<int, 2> coords() const { return m_state->coords; }
  /// The Cartesian communicator (rank order of the caller's communicator).
  MPI_Comm comm() const { return m_state->cart; }
  int rank() const { return m_state->rank; }
  int size() const { return m_state->size; }
  transport how() const { return m_state->how; }
  /// This rank's owned interior points.
  block owned() const { return m_state->mine; }
  /// The owned points of any rank of the process grid.
  block owned_by(int rank) const {
    std::array<int, 2> c{};
    detail::check_mpi(MPI_Cart_coords(m_state->cart, rank, 2, c.data()), "MPI_Cart_coords");
    return block_of(m_state->n, m_state->dims, c);
  }
  /// Neighbours (MPI_PROC_NULL at the grid's edge): up = lower row index.
  int up() const { return m_state->up; }
  int down() const { return m_state->down; }
  int left() const { return m_state->left; }
  int right() const { return m_state->right; }
  bool operator==(const decomposition& o) const { return m_state == o.m_state; }

  static block block_of(index_t n, std::array<int, 2> dims, std::array<int, 2> coords) {
    const auto r = detail::split_range(n - 2, dims[0], coords[0]);
    const auto c = detail::split_range(n - 2, dims[1], coords[1]);
    return {r.first, r.second, c.first, c.second};
  }

 private:
  static void check_mpi_dims(int size, std::array<int, 2>& dims) {
    detail::check_mpi(MPI_Dims_create(size, 2, dims.data()), "MPI_Dims_create");
  }
  std::shared_ptr<const detail::cart_state> m_state;
};

/// One rank's block of a distributed grid: owned points plus one layer of
/// ghosts (neighbours' edges) or boundary ring values around them.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class distributed_grid {
 public:
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<double*, MemorySpace>;

  distributed_grid() = default;
  /// A zero block (local, no communication).
  distributed_grid(const std::string& label, const decomposition& d) : m_decomp(d) {
    const block b = d.owned();
    m_data = view_type(label, (b.rows() + 2) * (b.cols() + 2));
    const index_t edges = 2 * (b.rows() + b.cols());
    m_send = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::ocean::send"), edges);
    m_recv = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::ocean::recv"), edges);
    m_staged = !sweep::mpi::detail::pass_directly<MemorySpace>(d.how());
    if (m_staged) {
      m_host_send = host_buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::ocean::staged_send"),
                                edges);
      m_host_recv = host_buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::ocean::staged_recv"),
                                edges);
    }
  }

  const decomposition& decomp() const { return m_decomp; }
  index_t n() const { return m_decomp.n(); }
  block owned() const { return m_decomp.owned(); }
  /// The local array, row-major (rows + 2) x (cols + 2).
  view_type data() const { return m_data; }
  local_index indexer() const {
    const block b = owned();
    return {b.row_begin - 1, b.col_begin - 1, b.cols() + 2};
  }

  /// The ghost exchange's edge buffers (kept with the grid so that an
  /// exchange allocates nothing); the host pair exists when the
  /// decomposition's transport stages through host memory.
  using host_buffer = Kokkos::View<double*, Kokkos::HostSpace>;
  view_type send_buffer() const { return m_send; }
  view_type recv_buffer() const { return m_recv; }
  bool staged() const { return m_staged; }
  host_buffer staged_send() const { return m_host_send; }
  host_buffer staged_recv() const { return m_host_recv; }

 private:
  decomposition m_decomp;
  view_type m_data, m_send, m_recv;
  host_buffer m_host_send, m_host_recv;
  bool m_staged = false;
};

namespace detail {

/// The four edge lines of a block in an exchange buffer, in the order
/// top, bottom, left, right: the owned edges (what is sent) or the ghost
/// lines around them (what arrives). With a colour (0: i + j even) only
/// that colour's points are listed; a ghost line and the neighbour's edge
/// it mirrors are the same global points, so both sides agree on counts.
struct edge_lines {
  index_t i0[4] = {}, j0[4] = {}, di[4] = {}, dj[4] = {};  // first point, step along the line
  index_t count[4] = {}, offset[4] = {};
  index_t total = 0;

  edge_lines(const block& b, bool ghost, int color) {
    const index_t g = ghost ? 1 : 0;
    const index_t starts[4][2] = {{b.row_begin - g, b.col_begin},
                                  {b.row_end - 1 + g, b.col_begin},
                                  {b.row_begin, b.col_begin - g},
                                  {b.row_begin, b.col_end - 1 + g}};
    const index_t len[4] = {b.cols(), b.cols(), b.rows(), b.rows()};
    for (int s = 0; s < 4; ++s) {
      const bool along_row = s < 2;
      const index_t first = color < 0 ? 0 : ((starts[s][0] + starts[s][1] + color) & 1);
      const index_t step = color < 0 ? 1 : 2;
      i0[s] = starts[s][0] + (along_row ? 0 : first);
      j0[s] = starts[s][1] + (along_row ? first : 0);
      di[s] = along_row ? 0 : step;
      dj[s] = along_row ? step : 0;
      count[s] = len[s] > first ? (len[s] - first + step - 1) / step : 0;
      offset[s] = total;
      total += count[s];
    }
  }
};

/// Copies the owned edge points of u into buf (ghost = false), or buf into
/// the ghost lines (ghost = true) of the sides whose bit is set in `sides`
/// (top, bottom, left, right as bits 0..3).
template <class ExecSpace, class View>
void move_edges(const ExecSpace& space, const View& u, const View& buf, const edge_lines& e, const local_index& idx,
                bool ghost, int sides) {
  Kokkos::parallel_for(
      ghost ? "sweep::mpi::ocean::unpack_ghosts" : "sweep::mpi::ocean::pack_edges",
      sweep::detail::range_policy<ExecSpace>(space, 0, e.total), KOKKOS_LAMBDA(const index_t k) {
        int s = 0;
        while (s < 3 && k >= e.offset[s + 1]) ++s;
        const index_t t = k - e.offset[s];
        const index_t p = idx(e.i0[s] + t * e.di[s], e.j0[s] + t * e.dj[s]);
        if (!ghost)
          buf(k) = u(p);
        else if ((sides >> s) & 1)
          u(p) = buf(k);
      });
}

/// One colour of the owned block: a team per row walked by the backend's
/// row walker (the single-process sweep's point update, so the values are
/// the same bit for bit).
template <class ExecSpace, class View, class Measure, class Rows>
struct relax_block {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  View u, f;
  local_index idx;
  sweep::ocean::detail::stencil_coeffs c;
  index_t row_begin = 0, col_begin = 0, col_end = 0;
  int color = 0;
  Rows rows;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    double local = Measure::identity();
    rows.template relax_cols<Measure>(team, u, f, idx, row_begin + index_t(team.league_rank()), color, col_begin,
                                      col_end, c, local);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

template <class Measure, class ExecSpace, class View>
double relax_color(const ExecSpace& space, const View& u, const View& f, const local_index& idx, const block& b,
                   const sweep::ocean::detail::stencil_coeffs& c, int color) {
  using Backend = sweep::ocean::detail::stencil_backend<ExecSpace>;
  using Rows = typename Backend::rows;
  using T = typename tuning<ExecSpace>::ocean;
  double acc = Measure::identity();
  Kokkos::parallel_reduce(color == 0 ? "sweep::mpi::ocean::red" : "sweep::mpi::ocean::black",
                          Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(b.rows()), T::team_size),
                          relax_block<ExecSpace, View, Measure, Rows>{u, f, idx, c, b.row_begin, b.col_begin,
                                                                      b.col_end, color, Backend::make_rows()},
                          typename Measure::reducer(acc));
  return acc;
}

/// Fused red-black over the owned block, pass 1 (as the single-process
/// fused sweep): one team per strip of rows, red row s on every owned
/// column, then black row s - 1 on columns [black_begin, black_end) for the
/// strip's inner rows. Black rows next to another strip, and black points
/// next to a neighbour's ghosts, wait for later passes.
template <class ExecSpace, class View, class Measure, class Rows>
struct fused_block_strips {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  View u, f;
  local_index idx;
  sweep::ocean::detail::stencil_coeffs c;
  index_t row_begin = 0, row_end = 0, col_begin = 0, col_end = 0, black_begin = 0, black_end = 0, strip = 0;
  Rows rows;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const index_t r0 = row_begin + index_t(team.league_rank()) * strip;
    const index_t r1 = r0 + strip < row_end ? r0 + strip : row_end;
    double local = Measure::identity();
    for (index_t s = r0; s <= r1; ++s) {
      if (s < r1) rows.template relax_cols<Measure>(team, u, f, idx, s, 0, col_begin, col_end, c, local);
      team.team_barrier();
      if (s - 1 > r0 && s - 1 < r1 - 1) {
        rows.template relax_cols<Measure>(team, u, f, idx, s - 1, 1, black_begin, black_end, c, local);
        team.team_barrier();
      }
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// Pass 2: the black edge rows of every strip (team 2k: strip k's first
/// row, 2k + 1: its last), columns [black_begin, black_end), except the
/// block's first (last) row when a neighbour above (below) sends its red
/// ghosts: that row waits for them.
template <class ExecSpace, class View, class Measure, class Rows>
struct fused_block_edges {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  View u, f;
  local_index idx;
  sweep::ocean::detail::stencil_coeffs c;
  index_t row_begin = 0, row_end = 0, black_begin = 0, black_end = 0, strip = 0;
  bool top = false, bottom = false;
  Rows rows;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, double& acc) const {
    const index_t k = team.league_rank() / 2;
    const index_t r0 = row_begin + k * strip;
    const index_t r1 = r0 + strip < row_end ? r0 + strip : row_end;
    const bool last = team.league_rank() % 2 == 1;
    const index_t row = last ? r1 - 1 : r0;
    if (last && row == r0) return;  // a one-row strip
    if ((top && row == row_begin) || (bottom && row == row_end - 1)) return;
    double local = Measure::identity();
    rows.template relax_cols<Measure>(team, u, f, idx, row, 1, black_begin, black_end, c, local);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Measure::join(acc, local); });
  }
};

/// The fused sweep over block b (sides: the bits top, bottom, left, right
/// that have a neighbour): its strips and black column range, computed
/// once; pass1 and pass2 return the measure's partial folds.
template <class Measure, class ExecSpace, class View>
struct fused_sweep {
  using Backend = sweep::ocean::detail::stencil_backend<ExecSpace>;
  using Rows = typename Backend::rows;
  using T = typename tuning<ExecSpace>::ocean;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  ExecSpace space;
  View u, f;
  local_index idx;
  block b;
  sweep::ocean::detail::stencil_coeffs c;
  int sides = 0;
  index_t strip = T::strip_rows(space, b.rows());
  index_t strips = (b.rows() + strip - 1) / strip;
  index_t black_begin = b.col_begin + ((sides >> 2) & 1), black_end = b.col_end - ((sides >> 3) & 1);

  double pass1() const {
    double a = Measure::identity();
    Kokkos::parallel_reduce("sweep::mpi::ocean::red_black_fused", Policy(space, static_cast<int>(strips), T::team_size),
                            fused_block_strips<ExecSpace, View, Measure, Rows>{
                                u, f, idx, c, b.row_begin, b.row_end, b.col_begin, b.col_end, black_begin, black_end,
                                strip, Backend::make_rows()},
                            typename Measure::reducer(a));
    return a;
  }
  double pass2() const {
    double a = Measure::identity();
    Kokkos::parallel_reduce("sweep::mpi::ocean::red_black_edges",
                            Policy(space, static_cast<int>(2 * strips), T::team_size),
                            fused_block_edges<ExecSpace, View, Measure, Rows>{
                                u, f, idx, c, b.row_begin, b.row_end, black_begin, black_end, strip, (sides & 1) != 0,
                                ((sides >> 1) & 1) != 0, Backend::make_rows()},
                            typename Measure::reducer(a));
    return a;
  }
};

/// Pass 1 then, while the red ghosts travel, pass 2 of the fused sweep;
/// `between` starts the red exchange (a ghost_exchange), finished here
/// after pass 2.
template <class Measure, class ExecSpace, class View, class Between>
double relax_fused(const ExecSpace& space, const View& u, const View& f, const local_index& idx, const block& b,
                   const sweep::ocean::detail::stencil_coeffs& c, int sides, Between&& between) {
  const fused_sweep<Measure, ExecSpace, View> plan{space, u, f, idx, b, c, sides};
  double a = plan.pass1();
  auto exchange = between();
  Measure::join(a, plan.pass2());
  exchange.finish();
  return a;
}

/// r = f - A u on block b, r at r_idx (the backend's block residual: the
/// host walks rows, as the single-process residual); returns the sum of
/// r^2.
template <class ExecSpace, class View>
double residual_block(const ExecSpace& space, const View& u, const View& f, const View& r, const local_index& idx,
                      const block& b, const sweep::ocean::detail::stencil_coeffs& c, const local_index& r_idx) {
  // sweep::ocean's residual formula, so the norms agree with one process.
  return sweep::ocean::detail::stencil_backend<ExecSpace>::residual_block(space, u, f, r, idx, b.row_begin,
                                                                          b.row_end, b.col_begin, b.col_end, c, r_idx);
}

template <class ExecSpace, class View>
double residual_block(const ExecSpace& space, const View& u, const View& f, const View& r, const local_index& idx,
                      const block& b, const sweep::ocean::detail::stencil_coeffs& c) {
  return residual_block(space, u, f, r, idx, b, c, idx);
}

inline long long bits_of(double x) { return std::bit_cast<long long>(x); }

/// The checks shared by the distributed sweeps: same decomposition, same
/// problem and options on every rank.
template <class... Grids>
void check_distributed(const char* where, const sweep::ocean::helmholtz& p, double omega, int measure,
                       const Grids&... gs) {
  const auto& first = std::get<0>(std::tie(gs...));
  sweep::detail::require(first.n() > 0, where, "the grid is empty (default-constructed)");
  require_comm(first.decomp().comm(), where);
  const MPI_Comm comm = first.decomp().comm();
  checked(comm, where, [&] {
    sweep::detail::require(((gs.decomp() == first.decomp()) && ...), where,
                           "the grids belong to different decompositions");
    sweep::ocean::detail::check_problem(p, where);
    sweep::detail::require(std::isfinite(omega) && omega > 0 && omega < 2, where, "omega = ", omega,
                           " must lie in (0, 2)");
  });
  checked(comm, where, [&] {
    require_same(comm, where,
                 {{"lambda (bits)", bits_of(p.lambda)},
                  {"length (bits)", bits_of(p.length)},
                  {"omega (bits)", bits_of(omega)},
                  {"measure", measure}});
  });
}

/// A ghost exchange in flight (exchange_ghosts in two halves): the
/// constructor packs u's owned edges and posts the receives and sends;
/// finish() waits for them and unpacks the ghosts. Between the two the
/// caller may update any point the exchange neither reads nor writes.
template <class ExecSpace, class MemorySpace>
class ghost_exchange {
 public:
  using View = typename distributed_grid<MemorySpace>::view_type;

  ghost_exchange(const ExecSpace& space, const distributed_grid<MemorySpace>& u, int color)
      : space_(space), u_(u), in_(u.owned(), true, color) {
    const decomposition& d = u.decomp();
    const int nb[4] = {d.up(), d.down(), d.left(), d.right()};
    for (int s = 0; s < 4; ++s) sides_ |= nb[s] != MPI_PROC_NULL ? (1 << s) : 0;
    if (sides_ == 0) return;
    const edge_lines out(u.owned(), false, color);
    const View send = u.send_buffer();
    move_edges(space, u.data(), send, out, u.indexer(), false, sides_);
    const bool direct = !u.staged();
    if (!direct) Kokkos::deep_copy(space, u.staged_send(), send);
    space.fence();
    double* sp = direct ? send.data() : u.staged_send().data();
    double* rp = direct ? u.recv_buffer().data() : u.staged_recv().data();
    // A message travels in direction s (0 up, 1 down, 2 left, 3 right) with
    // tag s; what arrives from the neighbour on side s went the other way.
    const int opposite[4] = {1, 0, 3, 2};
    for (int s = 0; s < 4; ++s) {
      if (nb[s] == MPI_PROC_NULL || in_.count[s] == 0) continue;
      const int c = sweep::mpi::detail::as_count(in_.count[s], "sweep::mpi::ocean::exchange_ghosts");
      check_mpi(MPI_Irecv(rp + in_.offset[s], c, MPI_DOUBLE, nb[s], opposite[s], d.comm(), &req_[nreq_++]),
                "MPI_Irecv");
    }
    for (int s = 0; s < 4; ++s) {
      if (nb[s] == MPI_PROC_NULL || out.count[s] == 0) continue;
      const int c = sweep::mpi::detail::as_count(out.count[s], "sweep::mpi::ocean::exchange_ghosts");
      check_mpi(MPI_Isend(sp + out.offset[s], c, MPI_DOUBLE, nb[s], s, d.comm(), &req_[nreq_++]), "MPI_Isend");
      sent_ += out.count[s] * index_t(sizeof(double));
    }
  }
  ghost_exchange(const ghost_exchange&) = delete;
  ghost_exchange& operator=(const ghost_exchange&) = delete;
  ~ghost_exchange() {
    if (nreq_ > 0) MPI_Waitall(nreq_, req_, MPI_STATUSES_IGNORE);  // only on an error path
  }

  /// The sides (bits top, bottom, left, right) that have a neighbour.
  int sides() const { return sides_; }

  /// Waits for the messages and fills the ghosts; returns the bytes sent.
  index_t finish() {
    if (sides_ == 0) return 0;
    const int n = nreq_;
    nreq_ = 0;
    check_mpi(MPI_Waitall(n, req_, MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (u_.staged()) Kokkos::deep_copy(space_, u_.recv_buffer(), u_.staged_recv());
    move_edges(space_, u_.data(), u_.recv_buffer(), in_, u_.indexer(), true, sides_);
    space_.fence();
    return sent_;
  }

 private:
  ExecSpace space_;
  distributed_grid<MemorySpace> u_;
  edge_lines in_;
  int sides_ = 0;
  MPI_Request req_[8];
  int nreq_ = 0;
  index_t sent_ = 0;
};

}  // namespace detail

/// Fills the ghost layer of u with its neighbours' edges (collective over
/// u's decomposition); with color 0 or 1 only the ghost points of that
/// colour (0: i + j even), which is all a red-black half-sweep of the other
/// colour reads. Ghosts at the grid's edge (the boundary ring) and the
/// layer's corners (the 5-point stencil never reads them) are left alone.
/// Returns the bytes this rank sent.
template <class ExecSpace, class MemorySpace>
index_t exchange_ghosts(const ExecSpace& space, const distributed_grid<MemorySpace>& u, int color = -1) {
  detail::ghost_exchange<ExecSpace, MemorySpace> x(space, u, color);
  return x.finish();
}

/// How red_black_sweep orders each colour's exchange and update:
/// `blocking` exchanges the ghosts, then updates the block, one colour at a
/// time; `overlapped` starts each colour's exchange, updates the points
/// that read no ghost while the messages travel, then finishes it and
/// updates the block's edge lines; `fused` (the default) exchanges the
/// black ghosts, then relaxes both colours in one pass over strips of rows
/// (black row r - 1 right after red row r, as the single-process fused
/// sweep), starts the red exchange, relaxes the strips' black edge rows
/// while it travels, and the black points next to a neighbour after it:
/// one pass over the block instead of two. The values are the same every
/// way (a colour's updates are independent); bench_mpi_ocean times all
/// three.
enum class exchange_schedule { blocking, overlapped, fused };

namespace detail {

/// red_black_sweep without its argument checks (the caller's are done):
/// returns this rank's fold of the change (options.measure), not yet
/// combined over the ranks.
template <class ExecSpace, class MemorySpace>
double red_black_local(const ExecSpace& space, const distributed_grid<MemorySpace>& u,
                       const distributed_grid<MemorySpace>& f, const sweep::ocean::helmholtz& problem,
                       const sweep::ocean::sweep_options& options, exchange_schedule schedule) {
  namespace so = sweep::ocean::detail;
  const auto c = so::coefficients(problem, u.n(), options.omega);
  const bool max = options.measure == sweep::ocean::norm::max;
  double local = 0;
  auto fold = [&](double a) {
    if (max)
      so::max_measure::join(local, a);
    else
      so::l2_measure::join(local, a);
  };
  auto relax = [&](const block& part, int color) {
    if (part.rows() <= 0 || part.cols() <= 0) return;
    fold(max ? relax_color<so::max_measure>(space, u.data(), f.data(), u.indexer(), part, c, color)
             : relax_color<so::l2_measure>(space, u.data(), f.data(), u.indexer(), part, c, color));
  };
  const block b = u.owned();
  // The lines next to a neighbour (sides: top, bottom, left, right bits)
  // read its ghosts of the other colour.
  auto relax_edges = [&](int sides, int color) {
    const index_t top = sides & 1, bottom = (sides >> 1) & 1, left = (sides >> 2) & 1, right = (sides >> 3) & 1;
    if (top) relax({b.row_begin, b.row_begin + 1, b.col_begin, b.col_end}, color);
    if (bottom && b.rows() > top) relax({b.row_end - 1, b.row_end, b.col_begin, b.col_end}, color);
    if (left) relax({b.row_begin + top, b.row_end - bottom, b.col_begin, b.col_begin + 1}, color);
    if (right && b.cols() > left) relax({b.row_begin + top, b.row_end - bottom, b.col_end - 1, b.col_end}, color);
  };
  if (schedule == exchange_schedule::fused) {
    ghost_exchange<ExecSpace, MemorySpace> black(space, u, 1);  // the ghosts the red points read
    const int s = black.sides();
    black.finish();
    // After pass 1 every red point is final: send the red edges. Pass 2
    // writes only black points, so it runs while they travel.
    auto start_red = [&] { return ghost_exchange<ExecSpace, MemorySpace>(space, u, 0); };
    fold(max ? relax_fused<so::max_measure>(space, u.data(), f.data(), u.indexer(), b, c, s, start_red)
             : relax_fused<so::l2_measure>(space, u.data(), f.data(), u.indexer(), b, c, s, start_red));
    relax_edges(s, 1);
  } else {
    for (int color = 0; color < 2; ++color) {
      // The neighbours' points this colour reads.
      ghost_exchange<ExecSpace, MemorySpace> x(space, u, 1 - color);
      if (schedule == exchange_schedule::blocking || x.sides() == 0) {
        x.finish();
        relax(b, color);
        continue;
      }
      // The rest goes first, while the ghosts travel.
      const int s = x.sides();
      relax({b.row_begin + (s & 1), b.row_end - ((s >> 1) & 1), b.col_begin + ((s >> 2) & 1),
             b.col_end - ((s >> 3) & 1)},
            color);
      x.finish();
      relax_edges(s, color);
    }
  }
  return local;
}

}  // namespace detail

/// One red-black Gauss-Seidel (SOR) sweep over the whole distributed grid
/// (collective): equal to sweep::ocean::red_black_sweep on the gathered
/// grid, bit for bit. Returns options.measure of the change over all
/// ranks. Only options.omega and options.measure apply (the schedule and
/// tiles of the single-process sweep do not change its values); `schedule`
/// orders the exchanges and updates (exchange_schedule).
template <class ExecSpace, class MemorySpace>
double red_black_sweep(const ExecSpace& space, const distributed_grid<MemorySpace>& u,
                       const distributed_grid<MemorySpace>& f, const sweep::ocean::helmholtz& problem = {},
                       const sweep::ocean::sweep_options& options = {},
                       exchange_schedule schedule = exchange_schedule::fused) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::mpi::ocean::red_black_sweep: the grids must be accessible from the execution space");
  static constexpr const char* where = "sweep::mpi::ocean::red_black_sweep";
  sweep::detail::scoped_region region(where);
  detail::check_distributed(where, problem, options.omega, static_cast<int>(options.measure), u, f);
  sweep::mpi::detail::checked(u.decomp().comm(), where, [&] {
    sweep::detail::require(u.data().data() != f.data().data(), where, "u and f must be different grids");
  });
  const bool max = options.measure == sweep::ocean::norm::max;
  const double local = detail::red_black_local(space, u, f, problem, options, schedule);
  double global = 0;
  detail::check_mpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, max ? MPI_MAX : MPI_SUM, u.decomp().comm()),
                    "MPI_Allreduce");
  return max ? global : std::sqrt(global);
}

/// r = f - (-lap(u) + lambda u) on the owned points (collective; u's
/// ghosts are refreshed first); returns ||r||_2 over the whole interior,
/// equal to sweep::ocean::residual's to rounding.
template <class ExecSpace, class MemorySpace>
double residual(const ExecSpace& space, const distributed_grid<MemorySpace>& u,
                const distributed_grid<MemorySpace>& f, const distributed_grid<MemorySpace>& r,
                const sweep::ocean::helmholtz& problem = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "sweep::mpi::ocean::residual: the grids must be accessible from the execution space");
  static constexpr const char* where = "sweep::mpi::ocean::residual";
  sweep::detail::scoped_region region(where);
  detail::check_distributed(where, problem, 1.0, 0, u, f, r);
  sweep::mpi::detail::checked(u.decomp().comm(), where, [&] {
    sweep::detail::require(r.data().data() != u.data().data() && r.data().data() != f.data().data(), where,
                           "r must be a grid other than u and f");
  });
  exchange_ghosts(space, u);
  const auto c = sweep::ocean::detail::coefficients(problem, u.n(), 1.0);
  const double local = detail::residual_block(space, u.data(), f.data(), r.data(), u.indexer(), u.owned(), c);
  double global = 0;
  detail::check_mpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, u.decomp().comm()), "MPI_Allreduce");
  return std::sqrt(global);
}

namespace detail {

/// The points of rank q's local array in the global grid: its owned block
/// plus the ring and ghost layer around it.
inline index_t local_size(const block& b) { return (b.rows() + 2) * (b.cols() + 2); }

template <class GlobalGrid>
void check_global(const decomposition& d, const GlobalGrid* global, const char* where) {
  checked(d.comm(), where, [&] {
    if (d.rank() != 0) return;
    sweep::detail::require(global != nullptr && global->n() == d.n(), where, "rank 0's global grid is ",
                           global ? global->n() : 0, " x ", global ? global->n() : 0, ", the decomposition's is ",
                           d.n(), " x ", d.n());
  });
}

}  // namespace detail

/// Copies the global grid held by rank 0 of out's decomposition into every
/// rank's block, ghosts and boundary ring included (collective; the other
/// ranks' `global` is not read). Throws on every rank when rank 0's grid is
/// not n x n.
template <class ExecSpace, class MemorySpace, class GlobalMemory>
void scatter(const ExecSpace& space, const sweep::ocean::grid<GlobalMemory>& global,
             const distributed_grid<MemorySpace>& out) {
  static constexpr const char* where = "sweep::mpi::ocean::scatter";
  sweep::detail::require(out.n() > 0, where, "the distributed grid is empty (default-constructed)");
  const decomposition& d = out.decomp();
  detail::check_global(d, &global, where);
  std::vector<int> counts(std::size_t(d.size())), displs(std::size_t(d.size()));
  std::vector<double> packed;
  if (d.rank() == 0) {
    const auto g = global.to_host();
    for (int q = 0; q < d.size(); ++q) {
      const block b = d.owned_by(q);
      displs[std::size_t(q)] = static_cast<int>(packed.size());
      for (index_t i = b.row_begin - 1; i <= b.row_end; ++i)
        for (index_t j = b.col_begin - 1; j <= b.col_end; ++j) packed.push_back(g(i, j));
      counts[std::size_t(q)] = sweep::mpi::detail::as_count(detail::local_size(b), where);
    }
  }
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), out.data());
  detail::check_mpi(MPI_Scatterv(packed.data(), counts.data(), displs.data(), MPI_DOUBLE, host.data(),
                                 sweep::mpi::detail::as_count(detail::local_size(d.owned()), where), MPI_DOUBLE, 0,
                                 d.comm()),
                    "MPI_Scatterv");
  Kokkos::deep_copy(space, out.data(), host);
  space.fence();
}

/// Copies every rank's owned points (and the boundary ring) into the
/// global grid held by rank 0 (collective; the other ranks' `global` is
/// not written). Throws on every rank when rank 0's grid is not n x n.
template <class ExecSpace, class MemorySpace, class GlobalMemory>
void gather(const ExecSpace& space, const distributed_grid<MemorySpace>& in,
            sweep::ocean::grid<GlobalMemory>& global) {
  static constexpr const char* where = "sweep::mpi::ocean::gather";
  sweep::detail::require(in.n() > 0, where, "the distributed grid is empty (default-constructed)");
  const decomposition& d = in.decomp();
  detail::check_global(d, &global, where);
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), in.data());
  Kokkos::deep_copy(space, host, in.data());
  space.fence();
  std::vector<int> counts(std::size_t(d.size())), displs(std::size_t(d.size()));
  index_t total = 0;
  if (d.rank() == 0) {
    for (int q = 0; q < d.size(); ++q) {
      const block b = d.owned_by(q);
      displs[std::size_t(q)] = sweep::mpi::detail::as_count(total, where);
      counts[std::size_t(q)] = sweep::mpi::detail::as_count(detail::local_size(b), where);
      total += detail::local_size(b);
    }
  }
  std::vector<double> packed(static_cast<std::size_t>(total));
  detail::check_mpi(MPI_Gatherv(host.data(), sweep::mpi::detail::as_count(detail::local_size(d.owned()), where),
                                MPI_DOUBLE, packed.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, d.comm()),
                    "MPI_Gatherv");
  if (d.rank() != 0) return;
  const index_t n = d.n();
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> g(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::ocean::gathered"), n, n);
  for (int q = 0; q < d.size(); ++q) {
    const block b = d.owned_by(q);
    const double* src = packed.data() + displs[std::size_t(q)];
    const index_t stride = b.cols() + 2;
    for (index_t i = b.row_begin - 1; i <= b.row_end; ++i)
      for (index_t j = b.col_begin - 1; j <= b.col_end; ++j) {
        const bool owned = i >= b.row_begin && i < b.row_end && j >= b.col_begin && j < b.col_end;
        const bool ring = i == 0 || j == 0 || i == n - 1 || j == n - 1;
        if (owned || ring) g(i, j) = src[(i - b.row_begin + 1) * stride + (j - b.col_begin + 1)];
      }
  }
  global.assign(g);
}

}  // namespace sweep::mpi::ocean
