// The ocean across ranks: after k red-black sweeps the gathered grid equals
// the single-process sweep's bit for bit (every process grid the rank count
// allows, 3 = 3 x 1 and 1 x 3, interiors not divisible by the process
// grid, one interior row or column per rank, SOR and Gauss-Seidel, both
// transports, blocking and overlapped exchanges), the max-norm measure exactly and the L2 measure and
// residual to rounding; scatter/gather round trips; the ghost exchange
// moves exactly the neighbours' edges; multigrid V-cycles equal the
// single-process ones bit for bit, with every level spread over the ranks,
// the coarse ones on rank 0, or all of them there, and solve converges in
// the same number of cycles; the double-gyre model's steps equal the
// single-process model's bit for bit; bad arguments fail on every rank.
#include "mpi_support.hpp"
#include "ocean_reference.hpp"

#include <sweep/mpi/model.hpp>
#include <sweep/mpi/multigrid.hpp>
#include <sweep/mpi/ocean.hpp>
#include <sweep/ocean.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

using namespace sweep_test;
namespace so = sweep::ocean;
namespace smo = sweep::mpi::ocean;

namespace {

/// The process grids a rank count allows: MPI_Dims_create's, row strips,
/// column strips.
std::vector<std::array<int, 2>> process_grids() {
  const int p = world_size();
  return {{0, 0}, {p, 1}, {1, p}};
}

/// True when every rank of the process grid gets at least one interior
/// row and column (dims {0, 0} resolved as the decomposition does).
bool fits(std::int64_t n, std::array<int, 2> dims) {
  MPI_Dims_create(world_size(), 2, dims.data());
  return n - 2 >= dims[0] && n - 2 >= dims[1];
}

template <class Mem>
so::grid<Mem> make_global(std::int64_t n, const field& values, so::grid_layout lay = {}) {
  so::grid<Mem> g("global", n, lay);
  Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v(
      values.data(), std::size_t(n), std::size_t(n));
  g.assign(v);
  return g;
}

field flat(const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>& v) {
  return field(v.data(), v.data() + v.size());
}

/// Bit-for-bit on the host; on a GPU both sides run the same point update
/// but the compiler may contract differently, so a few ulps are allowed.
template <class Space>
void check_same_grid(const field& got, const field& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (std::memcmp(&got[k], &want[k], sizeof(double)) != 0) ++bad;
    worst = std::max(worst, std::abs(got[k] - want[k]) / std::max(1.0, std::abs(want[k])));
  }
  INFO(bad << " of " << got.size() << " values differ, worst relative " << worst);
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible)
    CHECK(bad == 0);
  else
    CHECK(worst < 1e-13);
}

}  // namespace

TEST_CASE_TEMPLATE("distributed red-black sweeps equal the single-process sweeps bit for bit", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  for (std::int64_t n : {4, 6, 10, 34, 66}) {
    const field u0 = random_field(n, 101 + n), f0 = random_field(n, 202 + n);
    for (const auto& dims : process_grids()) {
      if (!fits(n, dims)) continue;  // too small: the error tests cover it
      for (auto how : {sweep::mpi::transport::automatic, sweep::mpi::transport::staged}) {
        // Every schedule: blocking with SOR, overlapped (edge lines after
        // the exchange, the rest during it) with Gauss-Seidel, fused (both
        // colours in one pass over strips) with both.
        using schedule_t = smo::exchange_schedule;
        const std::pair<double, schedule_t> runs[] = {{1.37, schedule_t::blocking},
                                                      {1.0, schedule_t::overlapped},
                                                      {1.0, schedule_t::fused},
                                                      {1.37, schedule_t::fused}};
        for (const auto& run : runs) {
          const double omega = run.first;
          const schedule_t schedule = run.second;
          for (auto measure : {so::norm::max, so::norm::l2}) {
            for (double lambda : {0.0, 2.5}) {
              CAPTURE(n);
              CAPTURE(dims[0]);
              CAPTURE(dims[1]);
              CAPTURE(static_cast<int>(how));
              CAPTURE(omega);
              CAPTURE(static_cast<int>(schedule));
              CAPTURE(static_cast<int>(measure));
              CAPTURE(lambda);
              const so::helmholtz problem{lambda, 1.5};
              so::sweep_options opt;
              opt.omega = omega;
              opt.measure = measure;
              // The reference: one process, every rank computes it.
              auto ur = make_global<Mem>(n, u0), fr = make_global<Mem>(n, f0);
              // The distributed run, fed from rank 0's copy.
              smo::decomposition d(MPI_COMM_WORLD, n, dims, how);
              CHECK(d.dims()[0] * d.dims()[1] == world_size());
              smo::distributed_grid<Mem> u("u", d), f("f", d);
              smo::scatter(space, make_global<Mem>(n, u0), u);
              smo::scatter(space, make_global<Mem>(n, f0), f);
              for (int k = 0; k < 3; ++k) {
                const double want = so::red_black_sweep(space, ur, fr, problem, opt);
                const double got = smo::red_black_sweep(space, u, f, problem, opt, schedule);
                if (measure == so::norm::max)
                  CHECK(got == want);
                else
                  CHECK(std::abs(got - want) <= 1e-14 * std::max(1.0, want));
              }
              so::grid<Mem> gathered("gathered", n);
              smo::gather(space, u, gathered);
              if (world_rank() == 0) check_same_grid<Space>(flat(gathered.to_host()), flat(ur.to_host()));
              // The residual over all ranks, and r itself on the owned points.
              so::grid<Mem> rr("rr", n);
              smo::distributed_grid<Mem> r("r", d);
              const double want = so::residual(space, ur, fr, rr, problem);
              const double got = smo::residual(space, u, f, r, problem);
              CHECK(std::abs(got - want) <= 1e-13 * std::max(1.0, want));
              so::grid<Mem> rg("rg", n);
              smo::gather(space, r, rg);
              if (world_rank() == 0) check_same_grid<Space>(flat(rg.to_host()), flat(rr.to_host()));
            }
          }
        }
      }
    }
  }
}

/// The process grid of every distributed level, as multigrid_options
/// documents: the finest on `dims` if its smallest block keeps
/// gather_below points (else none), each coarser one on the previous grid,
/// halved along its sides longer than one until it keeps them, stopping
/// (rank 0 from there) at a level only one rank would hold.
std::vector<std::array<int, 2>> expected_grids(std::int64_t n, std::array<int, 2> dims, std::int64_t gather_below) {
  std::vector<std::array<int, 2>> out;
  auto keeps = [&](std::int64_t m, std::array<int, 2> g) {
    return m >= g[0] && m >= g[1] && (m / g[0]) * (m / g[1]) >= gather_below;
  };
  std::array<int, 2> g = dims;
  for (std::int64_t m = n - 2; m >= 2; m /= 2) {
    if (out.empty() && !keeps(m, g)) break;
    while (!keeps(m, g) && g != std::array<int, 2>{1, 1}) g = {(g[0] + 1) / 2, (g[1] + 1) / 2};
    if (!keeps(m, g) || (g == std::array<int, 2>{1, 1} && dims != g)) break;
    out.push_back(g);
  }
  return out;
}

TEST_CASE_TEMPLATE("distributed multigrid V-cycles equal the single-process V-cycles bit for bit", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  bool fewer_ranks = false;  // some level ran on a smaller grid than the finest, not on rank 0
  for (std::int64_t n : {6, 10, 34, 66}) {
    const field u0 = random_field(n, 303 + n), f0 = random_field(n, 404 + n);
    for (const auto& dims : process_grids()) {
      if (!fits(n, dims)) continue;
      // 1: every level the process grid fits is spread; 8 and 64: coarse
      // levels on fewer ranks, then rank 0; huge: all on rank 0.
      for (std::int64_t gather_below : {std::int64_t(1), std::int64_t(8), std::int64_t(64), std::int64_t(1) << 40}) {
        for (double lambda : {0.0, 2.5}) {
          CAPTURE(n);
          CAPTURE(dims[0]);
          CAPTURE(dims[1]);
          CAPTURE(gather_below);
          CAPTURE(lambda);
          const so::helmholtz problem{lambda, 1.5};
          so::multigrid_options o;
          o.pre_sweeps = 2;
          o.post_sweeps = 1;
          o.coarsest_sweeps = 8;
          so::multigrid<Space> mg(n, problem, o);
          auto ur = make_global<Mem>(n, u0), fr = make_global<Mem>(n, f0);
          smo::decomposition d(MPI_COMM_WORLD, n, dims);
          smo::multigrid_options mo;
          mo.pre_sweeps = 2;
          mo.post_sweeps = 1;
          mo.coarsest_sweeps = 8;
          mo.gather_below = gather_below;
          smo::multigrid<Space> dmg(d, problem, mo);
          CHECK(dmg.levels() == mg.levels());
          // Which levels are spread, and over which grids: as documented.
          const auto grids = expected_grids(n, d.dims(), gather_below);
          REQUIRE(dmg.distributed_levels() == int(grids.size()));
          for (int l = 0; l < dmg.levels(); ++l) {
            CAPTURE(l);
            const auto want = l < int(grids.size()) ? grids[std::size_t(l)] : std::array<int, 2>{1, 1};
            CHECK(dmg.process_grid(l) == want);
            fewer_ranks = fewer_ranks || (l < int(grids.size()) && want != d.dims());
          }
          smo::distributed_grid<Mem> u("u", d), f("f", d);
          smo::scatter(space, make_global<Mem>(n, u0), u);
          smo::scatter(space, make_global<Mem>(n, f0), f);
          for (int k = 0; k < 3; ++k) {
            const double want = mg.v_cycle(space, ur, fr);
            const double got = dmg.v_cycle(space, u, f);
            CHECK(std::abs(got - want) <= 1e-13 * std::max(1.0, want));
          }
          so::grid<Mem> gathered("gathered", n);
          smo::gather(space, u, gathered);
          if (world_rank() == 0) check_same_grid<Space>(flat(gathered.to_host()), flat(ur.to_host()));
        }
      }
    }
  }
  // From 3 ranks on, some grid shrinks without reaching one rank (e.g.
  // 1 x 3 -> 1 x 2 at gather_below = 8, n = 66).
  if (world_size() >= 3) CHECK(fewer_ranks);
}

TEST_CASE_TEMPLATE("distributed multigrid solve converges as on one process", Space, SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  const std::int64_t n = 130;
  const field zero(std::size_t(n * n), 0.0), f0 = random_field(n, 7);
  for (auto reference : {so::residual_reference::initial, so::residual_reference::rhs}) {
    CAPTURE(static_cast<int>(reference));
    so::solve_options so_opt;
    so_opt.tolerance = 1e-9;
    so_opt.reference = reference;
    so::multigrid<Space> mg(n);
    auto ur = make_global<Mem>(n, zero), fr = make_global<Mem>(n, f0);
    const auto want = mg.solve(space, ur, fr, so_opt);
    smo::decomposition d(MPI_COMM_WORLD, n);
    smo::multigrid_options mo;
    mo.gather_below = 256;
    smo::multigrid<Space> dmg(d, {}, mo);
    smo::distributed_grid<Mem> u("u", d), f("f", d);
    smo::scatter(space, make_global<Mem>(n, zero), u);
    smo::scatter(space, make_global<Mem>(n, f0), f);
    const auto got = dmg.solve(space, u, f, so_opt);
    CHECK(want.converged());
    CHECK(got.result == want.result);
    CHECK(got.cycles == want.cycles);
    CHECK(std::abs(got.residual - want.residual) <= 1e-12 * want.reference);
    CHECK(std::abs(got.reference - want.reference) <= 1e-12 * want.reference);
    CHECK(on_all_ranks(got.cycles == want.cycles));
  }
}

TEST_CASE_TEMPLATE("the distributed double-gyre model steps as the single-process model, bit for bit", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  for (std::int64_t n : {18, 66}) {
    const field q0 = random_field(n, 611 + n);
    for (const auto& dims : process_grids()) {
      if (!fits(n, dims)) continue;
      // 1: every solver level spread; the default: coarse levels on rank 0.
      for (std::int64_t gather_below : {std::int64_t(1), smo::multigrid_options{}.gather_below}) {
        for (double deformation : {0.0, 4.0}) {
          CAPTURE(n);
          CAPTURE(dims[0]);
          CAPTURE(dims[1]);
          CAPTURE(gather_below);
          CAPTURE(deformation);
          so::model_parameters p;
          p.n = n;
          p.wind = 2e-3;
          p.deformation = deformation;
          p.solver.tolerance = 1e-10;
          so::qg_model<Space> want(space, p);
          smo::decomposition d(MPI_COMM_WORLD, n, dims);
          smo::multigrid_options mo;
          mo.gather_below = gather_below;
          smo::qg_model<Space> got(space, d, p, mo);
          CHECK(got.parameters().dt == want.parameters().dt);
          // The ring of the starting vorticity is ignored by both.
          smo::distributed_grid<Mem> q("q", d);
          smo::scatter(space, make_global<Mem>(n, q0), q);
          const auto ws = want.set_vorticity(make_global<Mem>(n, q0));
          const auto gs = got.set_vorticity(q);
          REQUIRE(ws.converged());
          CHECK(gs.cycles == ws.cycles);
          for (int s = 0; s < 6; ++s) {
            const auto w = want.step();
            const auto g = got.step();
            REQUIRE(w.converged());
            CHECK(g.result == w.result);
            CHECK(g.cycles == w.cycles);
          }
          CHECK(got.steps() == 6);
          CHECK(got.time() == want.time());
          so::grid<Mem> psi("psi", n), vort("q", n);
          smo::gather(space, got.psi(), psi);
          smo::gather(space, got.q(), vort);
          if (world_rank() == 0) {
            check_same_grid<Space>(flat(psi.to_host()), flat(want.psi().to_host()));
            check_same_grid<Space>(flat(vort.to_host()), flat(want.q().to_host()));
          }
          const auto dw = want.diagnostics(), dg = got.diagnostics();
          CHECK(dw.energy != 0.0);
          CHECK(std::abs(dg.energy - dw.energy) <= 1e-12 * std::abs(dw.energy));
          CHECK(std::abs(dg.enstrophy - dw.enstrophy) <= 1e-12 * std::abs(dw.enstrophy));
          CHECK(std::abs(dg.circulation - dw.circulation) <= 1e-12 * std::max(1e-6, dw.enstrophy));
          CHECK(dg.max_abs_psi == dw.max_abs_psi);
          CHECK(same_on_all_ranks(std::to_string(std::bit_cast<long long>(dg.energy))));
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("a sub-communicator: the first ranks sweep on their own, bit for bit", Space,
                   SWEEP_TEST_SPACES) {
  // Ranks 0 .. P-2 (all ranks with one) form the communicator; 3 ranks of 4
  // make a 3 x 1 grid whose 32 interior rows do not divide.
  Space space;
  using Mem = typename Space::memory_space;
  const int p = world_size();
  const bool in = p == 1 || world_rank() < p - 1;
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, world_rank(), &sub);
  bool ok = true;
  if (in) {
    const std::int64_t n = 34;
    const field u0 = random_field(n, 5), f0 = random_field(n, 6);
    auto ur = make_global<Mem>(n, u0), fr = make_global<Mem>(n, f0);
    smo::decomposition d(sub, n);
    smo::distributed_grid<Mem> u("u", d), f("f", d);
    smo::scatter(space, make_global<Mem>(n, u0), u);
    smo::scatter(space, make_global<Mem>(n, f0), f);
    for (int k = 0; k < 4; ++k) {
      const double want = so::red_black_sweep(space, ur, fr);
      ok = ok && smo::red_black_sweep(space, u, f) == want;
    }
    so::grid<Mem> gathered("gathered", n);
    smo::gather(space, u, gathered);
    if (d.rank() == 0) check_same_grid<Space>(flat(gathered.to_host()), flat(ur.to_host()));
    MPI_Comm_free(&sub);
  }
  CHECK(on_all_ranks(ok));
}

TEST_CASE_TEMPLATE("the split: every interior point owned once, blocks differ by at most one row or column",
                   Space, SWEEP_TEST_SPACES) {
  for (std::int64_t n : {4, 10, 34, 130}) {
    for (const auto& dims : process_grids()) {
      if (!fits(n, dims)) continue;
      smo::decomposition d(MPI_COMM_WORLD, n, dims);
      std::vector<int> owner(std::size_t(n * n), 0);
      std::int64_t rmin = n, rmax = 0, cmin = n, cmax = 0;
      for (int q = 0; q < world_size(); ++q) {
        const auto b = d.owned_by(q);
        rmin = std::min(rmin, b.rows());
        rmax = std::max(rmax, b.rows());
        cmin = std::min(cmin, b.cols());
        cmax = std::max(cmax, b.cols());
        for (auto i = b.row_begin; i < b.row_end; ++i)
          for (auto j = b.col_begin; j < b.col_end; ++j) ++owner[std::size_t(i * n + j)];
      }
      bool once = true;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const bool ring = i == 0 || j == 0 || i == n - 1 || j == n - 1;
          once = once && owner[std::size_t(i * n + j)] == (ring ? 0 : 1);
        }
      CHECK(once);
      CHECK(rmin >= 1);
      CHECK(cmin >= 1);
      CHECK(rmax - rmin <= 1);
      CHECK(cmax - cmin <= 1);
    }
  }
}

TEST_CASE_TEMPLATE("the ghost exchange brings exactly the neighbours' edges, all or one colour", Space,
                   SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  const std::int64_t n = 18;
  for (const auto& dims : process_grids()) {
    for (auto how : {sweep::mpi::transport::automatic, sweep::mpi::transport::staged}) {
      for (int color : {-1, 0, 1}) {
        CAPTURE(dims[0]);
        CAPTURE(dims[1]);
        CAPTURE(color);
        // Point (i, j) holds i * n + j: a ghost shows where it came from.
        field g(std::size_t(n * n));
        for (std::int64_t k = 0; k < n * n; ++k) g[std::size_t(k)] = double(k);
        smo::decomposition d(MPI_COMM_WORLD, n, dims, how);
        smo::distributed_grid<Mem> u("u", d);
        smo::scatter(space, make_global<Mem>(n, g), u);
        // Spoil the ghosts (not the ring), then exchange.
        const auto b = u.owned();
        const auto idx = u.indexer();
        auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.data());
        auto is_ghost = [&](std::int64_t i, std::int64_t j) {
          const bool inside = i >= b.row_begin && i < b.row_end && j >= b.col_begin && j < b.col_end;
          const bool ring = i == 0 || j == 0 || i == n - 1 || j == n - 1;
          return !inside && !ring;
        };
        auto wanted = [&](std::int64_t i, std::int64_t j) { return color < 0 || (i + j) % 2 == color; };
        for (auto i = b.row_begin - 1; i <= b.row_end; ++i)
          for (auto j = b.col_begin - 1; j <= b.col_end; ++j)
            if (is_ghost(i, j)) h(std::size_t(idx(i, j))) = -1.0;
        Kokkos::deep_copy(u.data(), h);
        const auto sent = smo::exchange_ghosts(space, u, color);
        // What this rank sends: its edge points of the colour, per neighbour.
        std::int64_t want_sent = 0;
        for (auto j = b.col_begin; j < b.col_end; ++j) {
          if (d.up() != MPI_PROC_NULL && wanted(b.row_begin, j)) ++want_sent;
          if (d.down() != MPI_PROC_NULL && wanted(b.row_end - 1, j)) ++want_sent;
        }
        for (auto i = b.row_begin; i < b.row_end; ++i) {
          if (d.left() != MPI_PROC_NULL && wanted(i, b.col_begin)) ++want_sent;
          if (d.right() != MPI_PROC_NULL && wanted(i, b.col_end - 1)) ++want_sent;
        }
        CHECK(sent == want_sent * 8);
        Kokkos::deep_copy(h, u.data());
        bool ok = true;
        for (auto i = b.row_begin - 1; i <= b.row_end; ++i)
          for (auto j = b.col_begin - 1; j <= b.col_end; ++j) {
            const bool corner =
                (i == b.row_begin - 1 || i == b.row_end) && (j == b.col_begin - 1 || j == b.col_end);
            if (corner && is_ghost(i, j)) continue;  // the 5-point stencil never reads corners
            const double want = is_ghost(i, j) && !wanted(i, j) ? -1.0 : double(i * n + j);
            ok = ok && h(std::size_t(idx(i, j))) == want;
          }
        CHECK(on_all_ranks(ok));
      }
    }
  }
}

TEST_CASE_TEMPLATE("scatter then gather returns the global grid in either layout", Space, SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  for (std::int64_t n : {6, 34}) {
    const field g = random_field(n, 7 + n);
    for (const auto& dims : process_grids()) {
      if (!fits(n, dims)) continue;
      for (auto lay : {so::grid_layout{so::layout::row_major, 128}, so::grid_layout{so::layout::block_major, 4}}) {
        smo::decomposition d(MPI_COMM_WORLD, n, dims);
        smo::distributed_grid<Mem> u("u", d);
        smo::scatter(space, make_global<Mem>(n, g, lay), u);
        so::grid<Mem> back("back", n, lay);
        smo::gather(space, u, back);
        if (world_rank() == 0) CHECK(flat(back.to_host()) == g);
      }
    }
  }
}

TEST_CASE_TEMPLATE("bad ocean decompositions, grids and multigrid options fail on every rank", Space, SWEEP_TEST_SPACES) {
  Space space;
  using Mem = typename Space::memory_space;
  const int p = world_size();
  const int last = p - 1;
  const bool bad = world_rank() == last;
  const std::string who = "rank " + std::to_string(last) + ": ";
  // n that is not 2^k + 2 on one rank.
  expect_agreed_error([&] { smo::decomposition(MPI_COMM_WORLD, bad ? 33 : 34); },
                      who + "sweep::mpi::ocean::decomposition: n = 33 is not 2^k + 2");
  // Valid sizes that differ.
  if (p > 1)
    expect_agreed_error([&] { smo::decomposition(MPI_COMM_WORLD, bad ? 66 : 34); }, "n differs across ranks");
  // Dims that do not fit the rank count.
  expect_agreed_error([&] { smo::decomposition(MPI_COMM_WORLD, 34, {p + 1, 1}); }, "do not fit");
  expect_agreed_error([&] { smo::decomposition(MPI_COMM_WORLD, 34, {-1, 0}); }, "must be >= 0");
  // A grid too small for the process grid: 2 x 2 interior on 3 or 4 row strips.
  if (p >= 3)
    expect_agreed_error([&] { smo::decomposition(MPI_COMM_WORLD, 4, {p, 1}); }, "too small for a");
  // Problems and options that differ, or are bad on one rank.
  smo::decomposition d(MPI_COMM_WORLD, 18);
  smo::distributed_grid<Mem> u("u", d), f("f", d), r("r", d);
  Kokkos::deep_copy(u.data(), 3.0);
  so::sweep_options opt;
  if (bad) opt.omega = 2.5;
  expect_agreed_error([&] { smo::red_black_sweep(space, u, f, {}, opt); }, who + "sweep::mpi::ocean::red_black_sweep: omega = 2.5");
  if (p > 1) {
    so::helmholtz prob;
    if (bad) prob.lambda = 1.0;
    expect_agreed_error([&] { smo::red_black_sweep(space, u, f, prob); }, "lambda (bits) differs across ranks");
    so::sweep_options o2;
    if (bad) o2.measure = so::norm::l2;
    expect_agreed_error([&] { smo::residual(space, u, f, r, prob); }, "lambda (bits) differs across ranks");
    expect_agreed_error([&] { smo::red_black_sweep(space, u, f, {}, o2); }, "measure differs across ranks");
  }
  expect_agreed_error([&] { smo::red_black_sweep(space, u, bad ? u : f); }, who + "sweep::mpi::ocean::red_black_sweep: u and f must be different grids");
  // A grid of another decomposition (on one rank).
  smo::decomposition other(MPI_COMM_WORLD, 18);
  smo::distributed_grid<Mem> g("g", other);
  expect_agreed_error([&] { smo::red_black_sweep(space, u, bad ? g : f); }, "different decompositions");
  // Nothing was written by the refused sweeps.
  auto h = to_host(u.data());
  CHECK(on_all_ranks(std::all_of(h.begin(), h.end(), [](double x) { return x == 3.0; })));
  // Rank 0's global grid of the wrong size: scatter and gather refuse on all ranks.
  so::grid<Mem> wrong("wrong", 34);
  expect_agreed_error([&] { smo::scatter(space, wrong, u); }, "rank 0: sweep::mpi::ocean::scatter: rank 0's global grid is 34 x 34");
  expect_agreed_error([&] { smo::gather(space, u, wrong); }, "rank 0: sweep::mpi::ocean::gather: rank 0's global grid is 34 x 34");
  h = to_host(u.data());
  CHECK(on_all_ranks(std::all_of(h.begin(), h.end(), [](double x) { return x == 3.0; })));
  // Multigrid: bad or differing options, grids of another decomposition.
  smo::decomposition md(MPI_COMM_WORLD, 34);
  smo::multigrid_options mo_pre;
  if (bad) mo_pre.pre_sweeps = -1;
  expect_agreed_error([&] { smo::multigrid<Space>(md, {}, mo_pre); },
                      who + "sweep::mpi::ocean::multigrid: pre_sweeps = -1");
  smo::multigrid_options mo_zero;
  if (bad) mo_zero.gather_below = 0;
  expect_agreed_error([&] { smo::multigrid<Space>(md, {}, mo_zero); }, "gather_below = 0 must be >= 1");
  if (p > 1) {
    smo::multigrid_options mo_differ;
    if (bad) mo_differ.gather_below = 100;
    expect_agreed_error([&] { smo::multigrid<Space>(md, {}, mo_differ); }, "gather_below differs across ranks");
  }
  smo::multigrid<Space> mg(md);
  smo::distributed_grid<Mem> mu("mu", md), mf("mf", md);
  Kokkos::deep_copy(mu.data(), 3.0);
  smo::decomposition mother(MPI_COMM_WORLD, 34);
  smo::distributed_grid<Mem> mw("mw", mother);
  expect_agreed_error([&] { mg.v_cycle(space, bad ? mw : mu, mf); }, "must belong to the multigrid's decomposition");
  expect_agreed_error([&] { mg.v_cycle(space, mu, bad ? mu : mf); }, "u and f must be different grids");
  so::solve_options so_opt;
  if (bad) so_opt.max_cycles = 0;
  expect_agreed_error([&] { mg.solve(space, mu, mf, so_opt); }, who + "sweep::mpi::ocean::multigrid::solve: max_cycles = 0");
  // Nothing was written by the refused calls.
  const auto mh = to_host(mu.data());
  CHECK(on_all_ranks(std::all_of(mh.begin(), mh.end(), [](double x) { return x == 3.0; })));
  // The model: a bad or differing parameter, an n other than the
  // decomposition's, a starting grid of another decomposition.
  so::model_parameters mp;
  mp.n = 34;
  so::model_parameters bad_robert = mp;
  if (bad) bad_robert.robert = 0.7;
  expect_agreed_error([&] { smo::qg_model<Space>(space, md, bad_robert); },
                      who + "sweep::mpi::ocean::qg_model: robert = 0.7 must lie in [0, 0.5)");
  so::model_parameters bad_n = mp;
  if (bad) bad_n.n = 66;
  expect_agreed_error([&] { smo::qg_model<Space>(space, md, bad_n); },
                      who + "sweep::mpi::ocean::qg_model: n = 66 differs from the decomposition's 34");
  if (p > 1) {
    so::model_parameters differ = mp;
    if (bad) differ.beta = 2.0;
    expect_agreed_error([&] { smo::qg_model<Space>(space, md, differ); }, "beta (bits) differs across ranks");
    so::model_parameters differ_solver = mp;
    if (bad) differ_solver.solver.max_cycles = 7;
    expect_agreed_error([&] { smo::qg_model<Space>(space, md, differ_solver); },
                        "solver max_cycles differs across ranks");
  }
  smo::qg_model<Space> model(space, md, mp);
  expect_agreed_error([&] { model.set_vorticity(bad ? mw : mu); },
                      "qg_model::set_vorticity: the grid must belong to the model's decomposition");
  CHECK(model.steps() == 0);
  const auto qh = to_host(model.q().data());
  CHECK(on_all_ranks(std::all_of(qh.begin(), qh.end(), [](double x) { return x == 0.0; })));
}
