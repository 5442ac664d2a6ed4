// Multigrid across ranks: sweep::ocean::multigrid's V-cycle on a
// distributed grid, equal to the single-process V-cycle bit for bit.
//
//   sweep::mpi::ocean::multigrid<ExecSpace> mg(decomp, problem, options);
//   mg.v_cycle(space, u, f);           // u, f: distributed_grids of decomp
//   auto status = mg.solve(space, u, f, sweep::ocean::solve_options{});
//
// Levels are those of the single-process hierarchy (2^k interior points,
// halved down to 2). A level is distributed over the same process grid as
// the finest one while every rank keeps at least options.gather_below
// owned points there; the first level that would not, and every coarser
// one, run on rank 0: the residual of the last distributed level is
// gathered there, rank 0 restricts it and runs the single-process V-cycle
// from that level down, and the prolonged correction is scattered back.
//
// Between two distributed levels the grid transfers read points beyond a
// rank's block: restriction reads the fine residual in a window of up to
// five fine points around each coarse point, prolongation the two coarse
// points around each fine one. A window_fetch copies each rank's window
// from the ranks that own its points (its own directly, the rest by one
// MPI_Alltoallv of the overlapping rectangles, planned once per level);
// points that no rank owns are the
// boundary ring, zero on the coarse levels and in the residual, as on one
// process. Smoothing is sweep::mpi::ocean::red_black_sweep's (without its
// per-call argument agreement); the transfers
// run sweep::ocean's kernels on the fetched windows, so every value equals
// the single-process cycle's; the returned norms agree to rounding (sums
// over ranks).
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
  /// A level whose smallest block would own fewer points than this runs,
  /// with every coarser level, on rank 0. 4096 points (64 x 64) keep a
  /// sweep's work well above the cost of its two ghost exchanges.
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
      : m_decomp(d), m_window(windows[std::size_t(d.rank())]) {
    static constexpr const char* where = "sweep::mpi::ocean::window_fetch";
    const std::size_t p = std::size_t(d.size());
    m_send.resize(p);
    m_recv.resize(p);
    m_send_counts.assign(p, 0);
    m_recv_counts.assign(p, 0);
    m_send_displs.assign(p, 0);
    m_recv_displs.assign(p, 0);
    index_t sent = 0, received = 0;
    const std::size_t me = std::size_t(d.rank());
    m_self = intersect(m_window, d.owned());  // copied directly, not sent
    for (std::size_t q = 0; q < p; ++q) {
      m_send[q] = q == me ? block{} : intersect(windows[q], d.owned());
      m_recv[q] = q == me ? block{} : intersect(m_window, d.owned_by(int(q)));
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
    const std::size_t me = std::size_t(m_decomp.rank());
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
    sweep::mpi::detail::alltoallv(m_decomp.comm(), space, send, m_send_counts, m_send_displs, recv, m_recv_counts,
                                  m_recv_displs, m_decomp.how());
    for (std::size_t q = 0; q < m_recv.size(); ++q) {
      if (q == me || m_recv_counts[q] == 0) continue;
      const index_t r0 = m_recv[q].row_begin, c0 = m_recv[q].col_begin, w = m_recv[q].cols(), at = m_recv_displs[q];
      Kokkos::parallel_for(
          "sweep::mpi::ocean::mg_unpack", over(space, m_recv[q]),
          KOKKOS_LAMBDA(const index_t i, const index_t j) { dst(wi(i, j)) = recv(at + (i - r0) * w + (j - c0)); });
    }
  }

 private:
  decomposition m_decomp;
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
    const auto dims = d.dims();
    // The levels' interiors, and how many of them stay distributed.
    for (index_t m = d.n() - 2; m >= 2; m /= 2) m_interiors.push_back(m);
    const auto spread = [&](index_t m) {
      return m >= dims[0] && m >= dims[1] && (m / dims[0]) * (m / dims[1]) >= options.gather_below;
    };
    m_distributed = 0;
    while (m_distributed < levels() && spread(m_interiors[std::size_t(m_distributed)])) ++m_distributed;
    for (int l = 0; l < m_distributed; ++l) {
      const index_t nl = m_interiors[std::size_t(l)] + 2;
      const std::string s = std::to_string(l);
      level lv;
      lv.decomp = l == 0 ? d : decomposition(comm, nl, dims, d.how());
      if (l > 0) {
        lv.u = grid_type("sweep::mpi::ocean::mg_u" + s, lv.decomp);
        lv.f = grid_type("sweep::mpi::ocean::mg_f" + s, lv.decomp);
      }
      // The residual of a level restricted on the ranks lives in the
      // restriction window; a grid holds it on the finest level (the norm)
      // and on the last distributed one (gathered to rank 0).
      if (l == 0)
        lv.r = m_r;
      else if (l + 1 == m_distributed)
        lv.r = grid_type("sweep::mpi::ocean::mg_r" + s, lv.decomp);
      if (l + 1 < levels()) {
        const index_t mf = m_interiors[std::size_t(l)];
        lv.to_coarser = sweep::ocean::detail::transfer_tables<memory_space>(mf, mf / 2);
      }
      m_levels.push_back(std::move(lv));
    }
    // Transfer plans between distributed levels.
    for (int l = 0; l + 1 < m_distributed; ++l) {
      level& fine = m_levels[std::size_t(l)];
      const level& coarse = m_levels[std::size_t(l) + 1];
      auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fine.to_coarser.first);
      auto base = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fine.to_coarser.base);
      const index_t nf = fine.decomp.n(), nc = coarse.decomp.n();
      const index_t w = sweep::ocean::detail::transfer_tables<memory_space>::width;
      std::vector<block> restrict_windows, prolong_windows;
      for (int q = 0; q < d.size(); ++q) {
        const block cb = coarse.decomp.owned_by(q), fb = fine.decomp.owned_by(q);
        restrict_windows.push_back({first(cb.row_begin), std::min(first(cb.row_end - 1) + w, nf),
                                    first(cb.col_begin), std::min(first(cb.col_end - 1) + w, nf)});
        prolong_windows.push_back({base(fb.row_begin), std::min(base(fb.row_end - 1) + 2, nc), base(fb.col_begin),
                                   std::min(base(fb.col_end - 1) + 2, nc)});
      }
      fine.restrict_from = detail::window_fetch<memory_space>(fine.decomp, restrict_windows);
      // The window covers the rank's block (full weighting reads around
      // every fine point the coarse block owns): the residual is written
      // straight into it.
      detail::checked(comm, where, [&] {
        const block fb = fine.decomp.owned();
        sweep::detail::require(detail::points(detail::intersect(fine.restrict_from.window(), fb)) == detail::points(fb),
                               where, "internal: a restriction window does not cover its rank's block");
      });
      fine.prolong_from = detail::window_fetch<memory_space>(coarse.decomp, prolong_windows);
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
        const level& last = m_levels.back();
        m_bottom->correction = grid_type("sweep::mpi::ocean::mg_correction", last.decomp);
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
    decomposition decomp;
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
      // The restriction window holds the rank's block (checked when
      // planned): the residual goes straight into it, and the neighbours'
      // parts are sent from there.
      residual_only(space, u, f, lv.restrict_from.data(), lv.restrict_from.indexer());
      lv.restrict_from.share(space);
      const block cb = c.decomp.owned();
      Kokkos::parallel_for(
          "sweep::mpi::ocean::restrict", detail::over(space, cb),
          sweep::ocean::detail::restrict_kernel<ExecSpace, local_index>{
              lv.restrict_from.data(), c.f.data(), lv.restrict_from.indexer(), c.f.indexer(), tab});
      Kokkos::deep_copy(space, c.u.data(), 0.0);
      cycle_at(space, l + 1, c.u, c.f);
      lv.prolong_from.fetch(space, c.u);
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
