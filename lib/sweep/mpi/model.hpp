// The double-gyre model across ranks: sweep::ocean::qg_model's state split
// over a decomposition's process grid, stepped with the same kernels and
// solved with the distributed multigrid.
//
//   sweep::mpi::ocean::decomposition d(MPI_COMM_WORLD, 514);
//   sweep::mpi::ocean::qg_model<> model(space, d, parameters);
//   model.set_vorticity(q0);          // a distributed_grid of d
//   for (...) model.step();           // collective
//   auto diag = model.diagnostics();  // the same on every rank
//   sweep::mpi::ocean::gather(space, model.psi(), global);  // frames on rank 0
//
// A step is the single-process step on every rank's block: the tendency
// (Arakawa's Jacobian reads the eight neighbours of a point, the
// dissipation the four of zeta) runs on the owned points after psi, q and
// the lagged q have their ghost layers, corners included, refreshed from
// the neighbours (one MPI_Alltoallv each, planned once); the lagged psi is
// a copy of psi with its ghosts. The elliptic solve is
// sweep::mpi::ocean::multigrid's, whose V-cycles equal the single-process
// ones bit for bit, so the state after k steps equals qg_model's bit for
// bit whenever the solves take the same number of V-cycles (their
// stopping tests compare norms that agree to rounding). The diagnostics
// are sums over ranks and agree to rounding.
//
// The blocks are row-major whatever parameters.layout says (the layout
// changes no value of the single-process model either).
//
// Errors (every rank throws the same std::invalid_argument): the
// single-process model's parameter checks, parameters that differ across
// ranks, an n other than the decomposition's, a starting grid of another
// decomposition.
#pragma once

#include <sweep/mpi/multigrid.hpp>
#include <sweep/mpi/ocean.hpp>
#include <sweep/ocean/model.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

namespace sweep::mpi::ocean {

template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class qg_model {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using grid_type = distributed_grid<memory_space>;

  /// Collective over d's ranks. parameters.n must be d.n(); mg sets how
  /// the solver's levels are split (its sweep counts and schedule are the
  /// single-process model's unless changed).
  qg_model(const ExecSpace& space, const decomposition& d, const sweep::ocean::model_parameters& parameters = {},
           const multigrid_options& mg = {})
      : m_space(space), m_p(checked(d, parameters)), m_decomp(d),
        m_mg(d, sweep::ocean::helmholtz{parameters.deformation, 1.0}, mg) {
    if (m_p.dt == 0) m_p.dt = sweep::ocean::qg_model<ExecSpace>::stable_dt(m_p);
    for (auto* g : {&m_psi, &m_psi_prev, &m_q, &m_q_prev, &m_q_next, &m_q_filt, &m_rhs})
      *g = grid_type("sweep::mpi::ocean::model", d);
    m_curl = sweep::ocean::detail::wind_curl<memory_space>(m_p);
    // Every rank's block with its ghost layer: the points the tendency reads.
    std::vector<block> halos;
    for (int r = 0; r < d.size(); ++r) {
      const block b = d.owned_by(r);
      halos.push_back({b.row_begin - 1, b.row_end + 1, b.col_begin - 1, b.col_end + 1});
    }
    m_halo = detail::window_fetch<memory_space>(d, halos, false);
  }

  const sweep::ocean::model_parameters& parameters() const { return m_p; }
  const decomposition& decomp() const { return m_decomp; }
  double time() const { return m_time; }
  index_t steps() const { return m_steps; }
  const grid_type& psi() const { return m_psi; }
  const grid_type& q() const { return m_q; }
  const sweep::ocean::solve_status& last_solve() const { return m_status; }

  /// Starts from q0 (psi follows by a solve; collective); the ring of q0
  /// is ignored.
  sweep::ocean::solve_status set_vorticity(const grid_type& q0) {
    static constexpr const char* where = "sweep::mpi::ocean::qg_model::set_vorticity";
    detail::checked(m_decomp.comm(), where, [&] {
      sweep::detail::require(q0.decomp() == m_decomp, where, "the grid must belong to the model's decomposition");
    });
    Kokkos::deep_copy(m_space, m_q.data(), q0.data());
    const block b = m_decomp.owned();
    const index_t n = m_p.n;
    Kokkos::parallel_for("sweep::mpi::ocean::model_ring",
                         detail::over(m_space, block{b.row_begin - 1, b.row_end + 1, b.col_begin - 1, b.col_end + 1}),
                         sweep::ocean::detail::ring_and_rhs<ExecSpace, local_index>{m_q.data(), m_rhs.data(),
                                                                                   m_q.indexer(), n});
    Kokkos::deep_copy(m_space, m_psi.data(), 0.0);
    m_status = m_mg.solve(m_space, m_psi, m_rhs, m_p.solver);
    m_steps = 0;
    m_time = 0;
    return m_status;
  }

  /// Advances one step (collective); returns the status of its elliptic
  /// solve, the same on every rank.
  const sweep::ocean::solve_status& step() {
    sweep::detail::scoped_region region("sweep::mpi::ocean::qg_model::step");
    const bool first = m_steps == 0;
    const index_t n = m_p.n;
    const double h = 1.0 / double(n - 1);
    m_halo.fetch(m_space, m_psi, m_psi.data());
    m_halo.fetch(m_space, m_q, m_q.data());
    if (!first) m_halo.fetch(m_space, m_q_prev, m_q_prev.data());  // psi_prev kept psi's ghosts
    const grid_type& lagged_q = first ? m_q : m_q_prev;
    const grid_type& lagged_psi = first ? m_psi : m_psi_prev;
    sweep::ocean::detail::tendency_kernel<ExecSpace, local_index> k{m_psi.data(), m_q.data(), lagged_q.data(),
                                                                    lagged_q.data(), lagged_psi.data(),
                                                                    m_q_next.data(), m_q_filt.data(), m_rhs.data(),
                                                                    m_curl, m_q.indexer(), n, h,
                                                                    1.0 / (12.0 * h * h), 1.0 / (h * h), m_p.beta,
                                                                    m_p.friction, m_p.viscosity, m_p.deformation,
                                                                    first ? m_p.dt : 2.0 * m_p.dt,
                                                                    first ? 0.0 : m_p.robert};
    Kokkos::parallel_for("sweep::mpi::ocean::tendency", detail::over(m_space, m_decomp.owned()), k);
    std::swap(m_q_prev, m_q_filt);
    std::swap(m_q, m_q_next);
    Kokkos::deep_copy(m_space, m_psi_prev.data(), m_psi.data());
    m_status = m_mg.solve(m_space, m_psi, m_rhs, m_p.solver);
    ++m_steps;
    m_time += m_p.dt;
    return m_status;
  }

  /// Energy, enstrophy, circulation and max |psi| over the whole ocean
  /// (collective; the same on every rank, equal to qg_model's to rounding).
  sweep::ocean::model_diagnostics diagnostics() const {
    const block b = m_decomp.owned();
    Kokkos::View<double* [4], memory_space> rows("sweep::mpi::ocean::diagnostics", b.rows());
    Kokkos::parallel_for("sweep::mpi::ocean::diagnostics",
                         sweep::detail::range_policy<ExecSpace>(m_space, b.row_begin, b.row_end),
                         sweep::ocean::detail::diagnostics_rows<ExecSpace, local_index>{
                             m_psi.data(), m_q.data(), rows, m_q.indexer(), b.row_begin, b.col_begin, b.col_end});
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
    const auto mine = sweep::ocean::detail::fold_rows(host, 0, b.rows());
    const double sums[3] = {mine.energy, mine.enstrophy, mine.circulation};
    double total[3] = {0, 0, 0};
    const MPI_Comm comm = m_decomp.comm();
    detail::check_mpi(MPI_Allreduce(sums, total, 3, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    sweep::ocean::model_diagnostics d;
    detail::check_mpi(MPI_Allreduce(&mine.max_abs_psi, &d.max_abs_psi, 1, MPI_DOUBLE, MPI_MAX, comm),
                      "MPI_Allreduce");
    const double h2 = 1.0 / double((m_p.n - 1) * (m_p.n - 1));
    d.energy = total[0] * h2;
    d.enstrophy = total[1] * h2;
    d.circulation = total[2] * h2;
    return d;
  }

 private:
  static sweep::ocean::model_parameters checked(const decomposition& d, const sweep::ocean::model_parameters& p) {
    static constexpr const char* where = "sweep::mpi::ocean::qg_model";
    sweep::detail::require(d.n() > 0, where, "the decomposition is empty (default-constructed)");
    const MPI_Comm comm = d.comm();
    detail::checked(comm, where, [&] {
      sweep::ocean::detail::check_model_parameters(p, where);
      sweep::detail::require(p.n == d.n(), where, "n = ", p.n, " differs from the decomposition's ", d.n());
    });
    detail::require_same(comm, where,
                         {{"beta (bits)", detail::bits_of(p.beta)},
                          {"wind (bits)", detail::bits_of(p.wind)},
                          {"friction (bits)", detail::bits_of(p.friction)},
                          {"viscosity (bits)", detail::bits_of(p.viscosity)},
                          {"deformation (bits)", detail::bits_of(p.deformation)},
                          {"dt (bits)", detail::bits_of(p.dt)},
                          {"robert (bits)", detail::bits_of(p.robert)},
                          {"solver tolerance (bits)", detail::bits_of(p.solver.tolerance)},
                          {"solver max_cycles", p.solver.max_cycles},
                          {"solver reference", static_cast<long long>(p.solver.reference)},
                          {"solver divergence_factor (bits)", detail::bits_of(p.solver.divergence_factor)}});
    return p;
  }

  ExecSpace m_space;
  sweep::ocean::model_parameters m_p;
  decomposition m_decomp;
  multigrid<ExecSpace> m_mg;
  grid_type m_psi, m_psi_prev, m_q, m_q_prev, m_q_next, m_q_filt, m_rhs;
  Kokkos::View<double*, memory_space> m_curl;
  detail::window_fetch<memory_space> m_halo;
  sweep::ocean::solve_status m_status;
  index_t m_steps = 0;
  double m_time = 0;
};

}  // namespace sweep::mpi::ocean
