// Multigrid across ranks: sweep::ocean::multigrid's V-cycle on a
// distributed grid, equal to the single-process V-cycle bit for bit.
//
//   sweep::mpi::ocean::multigrid<ExecSpace> mg(decomp, problem, options);
//   mg.v_cycle(space, u, f);           // u, f: distributed_grids of decomp
//   auto status = mg.solve(space, u, f, sweep::ocean::solve_options{});
//
// Levels are those of the single-process hierarchy (2^k interior points,
// halved down to 2). The finest level is split over the decomposition's
// process grid; each coarser level over the grid of the level above it
// while every rank keeps at least options.gather_below owned points, else
// over that grid halved along each side longer than one (rounded up: the
// ranks whose coordinates are multiples of the stride, split off into
// their own communicator) until it does, so coarse levels gather onto
// fewer ranks. The first level that only one rank would hold, and every
// coarser one, run on rank 0: the residual of the last distributed level
// is gathered there, rank 0 restricts it and runs the single-process
// V-cycle from that level down, and the prolonged correction is scattered
// back (plan_grids and process_grid say which level runs where).
//
// Between two distributed levels the grid transfers read points beyond a
// rank's block (and, where the grid shrinks, from several ranks):
// restriction reads the fine residual in a window of up to five fine
// points around each coarse point, prolongation the two coarse points
// around each fine one. A window_fetch copies each rank's window from the
// ranks that own its points (its own directly, the rest by one
// MPI_Alltoallv of the overlapping rectangles over the finer level's
// ranks, planned once per level); points that no rank owns are the
// boundary ring, zero on the coarse levels and in the residual, as on one
// process. Smoothing is sweep::mpi::ocean::red_black_sweep's (without its
// per-call argument agreement); the transfers run sweep::ocean's kernels on
// the fetched windows, so every value equals the single-process cycle's;
// the returned norms agree to rounding (sums over ranks).
//
// Errors (every rank throws the same std::invalid_argument): negative sweep
// counts or pre + post == 0, gather_below < 1, options or problem different
// between ranks, grids of another decomposition, u and f the same grid.
#pragma once

#include <sweep/mpi/ocean.hpp>
#include <sweep/ocean/multigrid.hpp>
#include <sweep/ocean/tiles.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace sweep::mpi::ocean {

struct multigrid_options {
  int pre_sweeps = 2;
  int post_sweeps = 2;
  int coarsest_sweeps = 32;  ///< red-black sweeps on the 2 x 2 interior
  exchange_schedule schedule = exchange_schedule::fused;
  /// A level whose smallest block would own fewer points than this runs on
  /// fewer ranks (a process grid halved along each side until its blocks
  /// hold this many; on rank 0 when only one rank would be left). 4096
  /// points (64 x 64) keep a sweep's work well above the cost of its two
  /// ghost exchanges.
  index_t gather_below = 4096;
};

namespace detail {

inline block intersect(const block& a, const block& b) {
  const block c{std::max(a.row_begin, b.row_begin), std::min(a.row_end, b.row_end), std::max(a.col_begin, b.col_begin),
                std::min(a.col_end, b.col_end)};
  return c.rows() > 0 && c.cols() > 0 ? c : block{};
}

inline index_t points(const block& b) { return b.rows() > 0 && b.cols() > 0 ? b.rows() * b.cols() : 0; }

/// The points of b in the single-process grid kernels' tiles.
template <class ExecSpace>
auto over(const ExecSpace& space, const block& b) {
  return sweep::ocean::detail::tiled(space, local_index{}, b.row_begin, b.row_end, b.col_begin, b.col_end);
}

/// Every rank reads a rectangle of a level's points (its window) from the
/// ranks that own them: the rectangles each rank sends and receives,
/// planned once, moved by one MPI_Alltoallv per fetch.
template <class MemorySpace>
class window_fetch {
 public:
  using view_type = Kokkos::View<double*, MemorySpace>;

  window_fetch() = default;
  /// windows[q]: the points rank q reads (global coordinates of d's grid).
  /// With own_window = false no window array is kept: every fetch names
  /// the array it fills.
  window_fetch(const decomposition& d, const std::vector<block>& windows, bool own_window = true)
      : window_fetch(d.comm(), d.how(), owners(d), windows, own_window) {}

  /// The same between two layouts of one grid over comm's ranks: owned[q]
  /// the points rank q holds (empty: none), windows[q] the points it
  /// reads (empty: none). comm must outlive the fetch (the multigrid's
  /// levels keep the decompositions that own their communicators).
  window_fetch(MPI_Comm comm, transport how, const std::vector<block>& owned, const std::vector<block>& windows,
               bool own_window = true)
      : m_comm(comm), m_how(how), m_rank(sweep::mpi::detail::comm_rank(comm)),
        m_window(windows[std::size_t(m_rank)]) {
    static constexpr const char* where = "sweep::mpi::ocean::window_fetch";
    const std::size_t p = owned.size();
    m_send.resize(p);
    m_recv.resize(p);
    m_send_counts.assign(p, 0);
    m_recv_counts.assign(p, 0);
    m_send_displs.assign(p, 0);
    m_recv_displs.assign(p, 0);
    index_t sent = 0, received = 0;
    const std::size_t me = std::size_t(m_rank);
    m_self = intersect(m_window, owned[me]);  // copied directly, not sent
    for (std::size_t q = 0; q < p; ++q) {
      m_send[q] = q == me ? block{} : intersect(windows[q], owned[me]);
      m_recv[q] = q == me ? block{} : intersect(m_window, owned[q]);
      m_send_displs[q] = sweep::mpi::detail::as_count(sent, where);
      m_recv_displs[q] = sweep::mpi::detail::as_count(received, where);
      m_send_counts[q] = sweep::mpi::detail::as_count(points(m_send[q]), where);
      m_recv_counts[q] = sweep::mpi::detail::as_count(points(m_recv[q]), where);
      sent += points(m_send[q]);
      received += points(m_recv[q]);
    }
    m_send_buf = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sweep::mpi::ocean::mg_send")),
                           sent);
    m_recv_buf = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sweep::mpi::ocean::mg_recv")),
                           received);
    if (own_window)
      m_data = view_type(std::string("sweep::mpi::ocean::mg_window"), points(m_window));  // unowned points stay 0
  }

  /// Every rank's block of d, by rank.
  static std::vector<block> owners(const decomposition& d) {
    std::vector<block> b;
    for (int q = 0; q < d.size(); ++q) b.push_back(d.owned_by(q));
    return b;
  }

  /// True when the window holds every point this rank owns (a kernel can
  /// then write them straight into it and share them).
  bool covers(const block& mine) const { return points(intersect(m_window, mine)) == points(mine); }

  /// This rank's window and its points, row-major.
  block window() const { return m_window; }
  view_type data() const { return m_data; }
  local_index indexer() const { return {m_window.row_begin, m_window.col_begin, m_window.cols()}; }

  /// Copies g's owned points into every rank's window (collective): the
  /// rank's own points directly, the others' through one MPI_Alltoallv.
  template <class ExecSpace>
  void fetch(const ExecSpace& space, const distributed_grid<MemorySpace>& g) {
    move(space, g.data(), g.indexer(), m_data, true);
  }

  /// The same when the window already holds this rank's owned points (a
  /// kernel wrote them there): they are sent from it, the rest received.
  template <class ExecSpace>
  void share(const ExecSpace& space) {
    move(space, m_data, indexer(), m_data, false);
  }

  /// The same into dst, an array laid out as indexer() says; the window's
  /// points that no rank owns are left as they are. dst may be g's own
  /// array when the window is g's block with its ghost layer: the fetch
  /// then fills the ghosts, corners included.
  template <class ExecSpace>
  void fetch(const ExecSpace& space, const distributed_grid<MemorySpace>& g, const view_type& dst) {
    move(space, g.data(), g.indexer(), dst, dst.data() != g.data().data());
  }

  /// What fetch and share run (public: nvcc takes no device lambda in a
  /// private member function): owned points of src (at gi) to the owners'
  /// windows, dst at indexer(); copy_self: this rank's own points too.
  template <class ExecSpace>
  void move(const ExecSpace& space, const view_type& src, const local_index& gi, const view_type& dst,
            bool copy_self) {
    const view_type send = m_send_buf, recv = m_recv_buf;
    const local_index wi = indexer();
    const std::size_t me = std::size_t(m_rank);
    if (points(m_self) > 0 && copy_self)
      Kokkos::parallel_for(
          "sweep::mpi::ocean::mg_copy", over(space, m_self),
          KOKKOS_LAMBDA(const index_t i, const index_t j) { dst(wi(i, j)) = src(gi(i, j)); });
    for (std::size_t q = 0; q < m_send.size(); ++q) {
      if (q == me || m_send_counts[q] == 0) continue;
      // Rectangle b goes to the buffer row by row from `at`.
      const index_t r0 = m_send[q].row_begin, c0 = m_send[q].col_begin, w = m_send[q].cols(), at = m_send_displs[q];
      Kokkos::parallel_for(
          "sweep::mpi::ocean::mg_pack", over(space, m_send[q]),
          KOKKOS_LAMBDA(const index_t i, const index_t j) { send(at + (i - r0) * w + (j - c0)) = src(gi(i, j)); });
    }
    sweep::mpi::detail::alltoallv(m_comm, space, send, m_send_counts, m_send_displs, recv, m_recv_counts,
                                  m_recv_displs, m_how);
    for (std::size_t q = 0; q < m_recv.size(); ++q) {
      if (q == me || m_recv_counts[q] == 0) continue;
      const index_t r0 = m_recv[q].row_begin, c0 = m_recv[q].col_begin, w = m_recv[q].cols(), at = m_recv_displs[q];
      Kokkos::parallel_for(
          "sweep::mpi::ocean::mg_unpack", over(space, m_recv[q]),
          KOKKOS_LAMBDA(const index_t i, const index_t j) { dst(wi(i, j)) = recv(at + (i - r0) * w + (j - c0)); });
    }
  }

 private:
  MPI_Comm m_comm = MPI_COMM_NULL;
  transport m_how = transport::automatic;
  int m_rank = 0;
  block m_window, m_self;
  std::vector<block> m_send, m_recv;
  std::vector<int> m_send_counts, m_send_displs, m_recv_counts, m_recv_displs;
  view_type m_send_buf, m_recv_buf, m_data;
};

/// The sum of squares of v over block b (this rank's part of a norm).
template <class ExecSpace, class View>
double sum_squares(const ExecSpace& space, const View& v, const local_index& idx, const block& b) {
  double sum = 0;
  if (points(b) > 0)
    Kokkos::parallel_reduce(
        "sweep::mpi::ocean::sum_squares", over(space, b),
        KOKKOS_LAMBDA(const index_t i, const index_t j, double& a) { a += v(idx(i, j)) * v(idx(i, j)); },
        Kokkos::Sum<double>(sum));
  return sum;
}

/// u += e over block b (both indexed by idx).
template <class ExecSpace, class View>
void add_block(const ExecSpace& space, const View& u, const View& e, const local_index& idx, const block& b) {
  if (points(b) > 0)
    Kokkos::parallel_for(
        "sweep::mpi::ocean::correct", over(space, b),
        KOKKOS_LAMBDA(const index_t i, const index_t j) { u(idx(i, j)) += e(idx(i, j)); });
}

}  // namespace detail

/// The multigrid hierarchy over a decomposition; holds every level's
/// storage and the transfer plans (construction is collective).
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class multigrid {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using grid_type = distributed_grid<memory_space>;

  multigrid(const decomposition& d, const sweep::ocean::helmholtz& problem = {},
            const multigrid_options& options = {})
      : m_problem(problem), m_options(options), m_decomp(d) {
    static constexpr const char* where = "sweep::mpi::ocean::multigrid";
    sweep::detail::require(d.n() > 0, where, "the decomposition is empty (default-constructed)");
    m_r = grid_type("sweep::mpi::ocean::mg_r0", d);
    const MPI_Comm comm = d.comm();
    detail::checked(comm, where, [&] {
      sweep::ocean::detail::check_problem(problem, where);
      sweep::ocean::detail::check_sweep_counts(options.pre_sweeps, options.post_sweeps, options.coarsest_sweeps,
                                               where);
      sweep::detail::require(options.gather_below >= 1, where, "gather_below = ", options.gather_below,
                             " must be >= 1");
    });
    detail::require_same(comm, where,
                         {{"lambda (bits)", detail::bits_of(problem.lambda)},
                          {"length (bits)", detail::bits_of(problem.length)},
                          {"pre_sweeps", options.pre_sweeps},
                          {"post_sweeps", options.post_sweeps},
                          {"coarsest_sweeps", options.coarsest_sweeps},
                          {"schedule", static_cast<long long>(options.schedule)},
                          {"gather_below", options.gather_below}});
    // The levels' interiors, and each distributed level's process grid.
    for (index_t m = d.n() - 2; m >= 2; m /= 2) m_interiors.push_back(m);
    const auto plan = plan_grids(d.dims(), m_interiors, options.gather_below);
    m_distributed = int(plan.size());
    const std::array<int, 2> me = d.coords();
    for (int l = 0; l < m_distributed; ++l) {
      const index_t nl = m_interiors[std::size_t(l)] + 2;
      const std::string s = std::to_string(l);
      level lv;
      lv.grid = plan[std::size_t(l)].grid;
      lv.stride = plan[std::size_t(l)].stride;
      lv.active = me[0] % lv.stride[0] == 0 && me[1] % lv.stride[1] == 0;
      if (l == 0) {
        lv.decomp = d;
      } else {
        const level& prev = m_levels.back();
        if (prev.active && lv.grid == prev.grid) {
          lv.decomp = decomposition(prev.decomp.comm(), nl, lv.grid, d.how());
        } else if (prev.active) {
          // Fewer ranks from here: the ranks of the smaller grid split off
          // (in rank order, so their Cartesian coordinates are the finer
          // grid's divided by the stride).
          MPI_Comm sub = MPI_COMM_NULL;
          detail::check_mpi(MPI_Comm_split(prev.decomp.comm(), lv.active ? 0 : MPI_UNDEFINED, prev.decomp.rank(), &sub),
                            "MPI_Comm_split");
          if (lv.active) {
            lv.decomp = decomposition(sub, nl, lv.grid, d.how());
            MPI_Comm_free(&sub);
          }
        } else {
          lv.active = false;
        }
      }
      if (l > 0 && lv.active) {
        lv.u = grid_type("sweep::mpi::ocean::mg_u" + s, lv.decomp);
        lv.f = grid_type("sweep::mpi::ocean::mg_f" + s, lv.decomp);
      }
      if (l == 0) lv.r = m_r;
      if (l + 1 < levels()) {
        const index_t mf = m_interiors[std::size_t(l)];
        lv.to_coarser = sweep::ocean::detail::transfer_tables<memory_space>(mf, mf / 2);
      }
      m_levels.push_back(std::move(lv));
    }
    // Transfer plans between distributed levels, over the finer level's
    // ranks (the coarser level's are among them).
    for (int l = 0; l + 1 < m_distributed; ++l) {
      level& fine = m_levels[std::size_t(l)];
      const level& coarse = m_levels[std::size_t(l) + 1];
      if (!fine.active) break;
      auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fine.to_coarser.first);
      auto base = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fine.to_coarser.base);
      const index_t nf = m_interiors[std::size_t(l)] + 2, nc = m_interiors[std::size_t(l) + 1] + 2;
      const index_t w = sweep::ocean::detail::transfer_tables<memory_space>::width;
      std::vector<block> fine_blocks, coarse_blocks, restrict_windows, prolong_windows;
      for (int q = 0; q < fine.decomp.size(); ++q) {
        // Rank q of the finer grid (row-major Cartesian order), and its
        // block of the coarser level if it has one.
        const std::array<int, 2> fc{q / fine.grid[1], q % fine.grid[1]};
        const std::array<int, 2> full{fc[0] * fine.stride[0], fc[1] * fine.stride[1]};
        const bool in_coarse = full[0] % coarse.stride[0] == 0 && full[1] % coarse.stride[1] == 0;
        const block fb = decomposition::block_of(nf, fine.grid, fc);
        const block cb = in_coarse ? decomposition::block_of(nc, coarse.grid, {full[0] / coarse.stride[0],
                                                                                full[1] / coarse.stride[1]})
                                   : block{};
        fine_blocks.push_back(fb);
        coarse_blocks.push_back(cb);
        restrict_windows.push_back(detail::points(cb) == 0
                                       ? block{}
                                       : block{first(cb.row_begin), std::min(first(cb.row_end - 1) + w, nf),
                                               first(cb.col_begin), std::min(first(cb.col_end - 1) + w, nf)});
        prolong_windows.push_back({base(fb.row_begin), std::min(base(fb.row_end - 1) + 2, nc), base(fb.col_begin),
                                   std::min(base(fb.col_end - 1) + 2, nc)});
      }
      const MPI_Comm comm_l = fine.decomp.comm();
      fine.restrict_from = detail::window_fetch<memory_space>(comm_l, d.how(), fine_blocks, restrict_windows);
      fine.prolong_from = detail::window_fetch<memory_space>(comm_l, d.how(), coarse_blocks, prolong_windows);
      // Where the restriction window holds the rank's whole block (full
      // weighting reads around every fine point of the coarse block, so
      // on every rank while the grid stays), the residual is written
      // straight into it; elsewhere into a grid, and fetched from there.
      fine.direct_restrict = fine.restrict_from.covers(fine.decomp.owned());
      if (!fine.direct_restrict && l > 0)
        fine.r = grid_type("sweep::mpi::ocean::mg_r" + std::to_string(l), fine.decomp);
    }
    // The levels on rank 0.
    if (m_distributed < levels()) {
      const int b = m_distributed;
      m_bottom = std::make_shared<bottom>();
      const bool root = d.rank() == 0;
      const index_t nb = m_interiors[std::size_t(b)] + 2;
      if (root) {
        sweep::ocean::multigrid_options o;
        o.pre_sweeps = options.pre_sweeps;
        o.post_sweeps = options.post_sweeps;
        o.coarsest_sweeps = options.coarsest_sweeps;
        m_bottom->solver = std::make_shared<sweep::ocean::multigrid<ExecSpace>>(nb, problem, o);
        m_bottom->u = sweep::ocean::grid<memory_space>("sweep::mpi::ocean::mg_bottom_u", nb);
        m_bottom->f = sweep::ocean::grid<memory_space>("sweep::mpi::ocean::mg_bottom_f", nb);
      }
      if (b > 0) {
        // Rank 0 restricts the gathered residual of the last distributed
        // level and prolongs the correction into a grid of that level.
        const index_t nf = m_interiors[std::size_t(b) - 1] + 2;
        level& last = m_levels.back();
        if (last.active) {
          m_bottom->correction = grid_type("sweep::mpi::ocean::mg_correction", last.decomp);
          if (b > 1) last.r = grid_type("sweep::mpi::ocean::mg_r" + std::to_string(b - 1), last.decomp);
        }
        if (root) {
          m_bottom->r = sweep::ocean::grid<memory_space>("sweep::mpi::ocean::mg_bottom_r", nf);
          m_bottom->e = sweep::ocean::grid<memory_space>("sweep::mpi::ocean::mg_bottom_e", nf);
        }
      }
    }
  }

  /// Every level, distributed or on rank 0.
  int levels() const { return int(m_interiors.size()); }
  /// The finest levels, split over the ranks; the rest run on rank 0.
  int distributed_levels() const { return m_distributed; }
  /// The process grid level l is split over ({1, 1} for the levels on
  /// rank 0): the decomposition's while every rank keeps
  /// options.gather_below points, then smaller (see plan_grids).
  std::array<int, 2> process_grid(int l) const {
    return l < m_distributed ? m_levels[std::size_t(l)].grid : std::array<int, 2>{1, 1};
  }

  /// A distributed level's process grid and how many ranks of the finest
  /// grid one of its ranks stands for along each side.
  struct grid_plan {
    std::array<int, 2> grid, stride;
  };

  /// The distributed levels' process grids, for the levels' interiors
  /// (finest first) on a `dims` process grid: none when the finest level
  /// gives some rank fewer than gather_below points (every level then runs
  /// on rank 0); else the finest level on `dims`, and each coarser level on
  /// the grid of the level above it, halved (every side longer than 1,
  /// rounded up) until its smallest block holds gather_below points. The
  /// first level that only a 1 x 1 grid would hold, and the coarser ones,
  /// run on rank 0 (on one rank from the start: while they keep
  /// gather_below points, on that rank as distributed levels).
  static std::vector<grid_plan> plan_grids(std::array<int, 2> dims, const std::vector<index_t>& interiors,
                                           index_t gather_below) {
    const auto fits = [&](index_t m, std::array<int, 2> g) {
      return m >= g[0] && m >= g[1] && (m / g[0]) * (m / g[1]) >= gather_below;
    };
    std::vector<grid_plan> plan;
    grid_plan at{dims, {1, 1}};
    for (const index_t m : interiors) {
      while (!fits(m, at.grid) && (at.grid[0] > 1 || at.grid[1] > 1))
        for (int a = 0; a < 2; ++a)
          if (at.grid[a] > 1) at.grid[a] = (at.grid[a] + 1) / 2, at.stride[a] *= 2;
      const bool shrunk_to_one = at.grid == std::array<int, 2>{1, 1} && dims != at.grid;
      if (!fits(m, at.grid) || shrunk_to_one || (plan.empty() && at.grid != dims)) break;
      plan.push_back(at);
    }
    return plan;
  }
  const decomposition& decomp() const { return m_decomp; }
  const multigrid_options& options() const { return m_options; }

  /// One V-cycle on u (in place, collective); returns ||f - A u||_2.
  double v_cycle(const ExecSpace& space, const grid_type& u, const grid_type& f) {
    sweep::detail::scoped_region region("sweep::mpi::ocean::multigrid::v_cycle");
    check(u, f, "sweep::mpi::ocean::multigrid::v_cycle");
    cycle(space, u, f);
    return residual(space, u, f, m_r, m_problem);
  }

  /// V-cycles until the relative residual reaches options.tolerance, as
  /// sweep::ocean::multigrid::solve (collective; every rank returns the
  /// same status).
  sweep::ocean::solve_status solve(const ExecSpace& space, const grid_type& u, const grid_type& f,
                                   const sweep::ocean::solve_options& options = {}) {
    static constexpr const char* where = "sweep::mpi::ocean::multigrid::solve";
    sweep::detail::scoped_region region(where);
    check(u, f, where);
    detail::checked(u.decomp().comm(), where, [&] { sweep::ocean::detail::check_solve_options(options, where); });
    detail::require_same(u.decomp().comm(), where,
                         {{"tolerance (bits)", detail::bits_of(options.tolerance)},
                          {"max_cycles", options.max_cycles},
                          {"reference", static_cast<long long>(options.reference)},
                          {"divergence_factor (bits)", detail::bits_of(options.divergence_factor)}});
    return sweep::ocean::detail::iterate(
        options, [&] { return residual(space, u, f, m_r, m_problem); }, [&] { cycle(space, u, f); },
        [&] { return rhs_norm(space, f); });
  }

 private:
  struct level {
    std::array<int, 2> grid{1, 1}, stride{1, 1};
    bool active = true;           // this rank holds a block of the level
    bool direct_restrict = true;  // the residual is written into restrict_from's window
    decomposition decomp;         // when active
    grid_type u, f, r;  // u and f: the caller's on level 0
    sweep::ocean::detail::transfer_tables<memory_space> to_coarser;
    detail::window_fetch<memory_space> restrict_from;  // this level's residual around the coarse blocks
    detail::window_fetch<memory_space> prolong_from;   // the coarser level's u around this level's blocks
  };
  struct bottom {
    std::shared_ptr<sweep::ocean::multigrid<ExecSpace>> solver;  // rank 0
    sweep::ocean::grid<memory_space> u, f, r, e;                  // rank 0
    grid_type correction;  // the prolonged correction on the last distributed level
  };

  void check(const grid_type& u, const grid_type& f, const char* where) const {
    detail::checked(m_decomp.comm(), where, [&] {
      sweep::detail::require(u.decomp() == m_decomp && f.decomp() == m_decomp, where,
                             "u and f must belong to the multigrid's decomposition");
      sweep::detail::require(u.data().data() != f.data().data(), where, "u and f must be different grids");
    });
  }

  /// Red-black sweeps with the arguments checked once, at construction
  /// (no agreement collectives, no measure combined over the ranks).
  void smooth(const ExecSpace& space, const grid_type& u, const grid_type& f, int sweeps) const {
    for (int s = 0; s < sweeps; ++s)
      detail::red_black_local(space, u, f, m_problem, sweep::ocean::sweep_options{}, m_options.schedule);
  }

  /// ||f||_2 over the interior (collective).
  double rhs_norm(const ExecSpace& space, const grid_type& f) const {
    const double sum = detail::sum_squares(space, f.data(), f.indexer(), f.owned());
    double global = 0;
    detail::check_mpi(MPI_Allreduce(&sum, &global, 1, MPI_DOUBLE, MPI_SUM, f.decomp().comm()), "MPI_Allreduce");
    return std::sqrt(global);
  }

  /// r = f - A u on the owned points (ghosts refreshed), no norm; r at r_idx.
  void residual_only(const ExecSpace& space, const grid_type& u, const grid_type& f,
                     const typename grid_type::view_type& r, const local_index& r_idx) const {
    exchange_ghosts(space, u);
    const auto c = sweep::ocean::detail::coefficients(m_problem, u.n(), 1.0);
    detail::residual_block(space, u.data(), f.data(), r, u.indexer(), u.owned(), c, r_idx);
  }

  void cycle(const ExecSpace& space, const grid_type& u, const grid_type& f) {
    if (m_distributed == 0) {
      // Every level on rank 0.
      auto& bt = *m_bottom;
      gather(space, u, bt.u);
      gather(space, f, bt.f);
      if (bt.solver) bt.solver->v_cycle(space, bt.u, bt.f);
      scatter(space, bt.u, u);
      return;
    }
    cycle_at(space, 0, u, f);
  }

  /// One V-cycle from level l down (on the ranks holding level l).
  void cycle_at(const ExecSpace& space, std::size_t l, const grid_type& u, const grid_type& f) {
    if (int(l) + 1 == levels()) {
      smooth(space, u, f, m_options.coarsest_sweeps);
      return;
    }
    smooth(space, u, f, m_options.pre_sweeps);
    level& lv = m_levels[l];
    const auto& tab = lv.to_coarser;
    if (int(l) + 1 < m_distributed) {
      level& c = m_levels[l + 1];
      if (lv.direct_restrict) {
        // The neighbours' parts of the residual are sent from the window.
        residual_only(space, u, f, lv.restrict_from.data(), lv.restrict_from.indexer());
        lv.restrict_from.share(space);
      } else {
        residual_only(space, u, f, lv.r.data(), lv.r.indexer());
        lv.restrict_from.fetch(space, lv.r);
      }
      using view_type = typename grid_type::view_type;
      if (c.active) {
        const block cb = c.decomp.owned();
        Kokkos::parallel_for(
            "sweep::mpi::ocean::restrict", detail::over(space, cb),
            sweep::ocean::detail::restrict_kernel<ExecSpace, local_index>{
                lv.restrict_from.data(), c.f.data(), lv.restrict_from.indexer(), c.f.indexer(), tab});
        Kokkos::deep_copy(space, c.u.data(), 0.0);
        cycle_at(space, l + 1, c.u, c.f);
        lv.prolong_from.move(space, c.u.data(), c.u.indexer(), lv.prolong_from.data(), true);
      } else {
        // Not on the coarser grid: only receive its correction.
        lv.prolong_from.move(space, view_type(), local_index{}, lv.prolong_from.data(), true);
      }
      Kokkos::parallel_for(
          "sweep::mpi::ocean::prolong", detail::over(space, lv.decomp.owned()),
          sweep::ocean::detail::prolong_add_kernel<ExecSpace, local_index>{
              u.data(), lv.prolong_from.data(), u.indexer(), lv.prolong_from.indexer(), tab});
    } else {
      // The coarser levels run on rank 0: restrict the gathered residual
      // there, cycle, prolong into a zero grid and scatter it back.
      residual_only(space, u, f, lv.r.data(), lv.r.indexer());
      auto& bt = *m_bottom;
      gather(space, lv.r, bt.r);
      if (bt.solver) {
        const index_t nf = bt.r.n(), mc = bt.f.n() - 2, mf = nf - 2;
        const local_index fi{0, 0, nf}, ci{0, 0, bt.f.n()};
        Kokkos::parallel_for("sweep::mpi::ocean::restrict",
                             detail::over(space, block{1, mc + 1, 1, mc + 1}),
                             sweep::ocean::detail::restrict_kernel<ExecSpace, local_index>{bt.r.data(), bt.f.data(),
                                                                                            fi, ci, tab});
        Kokkos::deep_copy(space, bt.u.data(), 0.0);
        bt.solver->v_cycle(space, bt.u, bt.f);
        Kokkos::deep_copy(space, bt.e.data(), 0.0);
        Kokkos::parallel_for("sweep::mpi::ocean::prolong",
                             detail::over(space, block{1, mf + 1, 1, mf + 1}),
                             sweep::ocean::detail::prolong_add_kernel<ExecSpace, local_index>{bt.e.data(), bt.u.data(),
                                                                                               fi, ci, tab});
      }
      scatter(space, bt.e, bt.correction);
      detail::add_block(space, u.data(), bt.correction.data(), u.indexer(), u.owned());
    }
    smooth(space, u, f, m_options.post_sweeps);
  }

  sweep::ocean::helmholtz m_problem;
  multigrid_options m_options;
  std::vector<index_t> m_interiors;  // every level's interior points per side
  int m_distributed = 0;
  std::vector<level> m_levels;       // the distributed ones
  std::shared_ptr<bottom> m_bottom;  // the ones on rank 0
  decomposition m_decomp;
  grid_type m_r;                     // the finest level's residual
};

}  // namespace sweep::mpi::ocean
