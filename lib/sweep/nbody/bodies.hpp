// Bodies of an N-body system: a host description (`body`, one struct per
// body, what generators and files produce) and the structure-of-arrays
// copy a simulation works on (`body_arrays`: positions, velocities,
// accelerations, potentials, masses, the interaction count of each body's
// last force evaluation, and a stable id = its position in the input).
//
// Checked at the door: N = 0, a NaN/Inf in any field or a negative mass
// throw std::invalid_argument naming the body.
#pragma once

#include <sweep/core.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sweep::nbody {

/// One body as stored in files and made by the generators.
struct body {
  double m = 0;
  double x = 0, y = 0, z = 0;
  double vx = 0, vy = 0, vz = 0;
};

namespace detail {

/// Throws unless the bodies are a valid input: N > 0, all fields finite,
/// masses >= 0 with a positive total.
inline void check_bodies(const std::vector<body>& b, const char* where) {
  sweep::detail::require(!b.empty(), where, "N = 0: there are no bodies");
  double total = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const body& q = b[i];
    const double f[7] = {q.m, q.x, q.y, q.z, q.vx, q.vy, q.vz};
    for (double v : f) sweep::detail::require(std::isfinite(v), where, "body ", i, " has a non-finite value (", v, ")");
    sweep::detail::require(q.m >= 0, where, "body ", i, " has negative mass ", q.m);
    total += q.m;
  }
  sweep::detail::require(total > 0, where, "the total mass is 0");
}

}  // namespace detail

/// Structure of arrays in MemorySpace; kernels index it by body.
template <class MemorySpace>
struct body_arrays {
  using memory_space = MemorySpace;
  using real_view = Kokkos::View<double*, MemorySpace>;
  real_view x, y, z, vx, vy, vz, ax, ay, az, m, phi;
  Kokkos::View<std::uint32_t*, MemorySpace> cost;  // interactions of the last force evaluation
  Kokkos::View<std::int64_t*, MemorySpace> id;     // position in the input

  body_arrays() = default;
  explicit body_arrays(index_t n)
      : x("sweep::nbody::x", n), y("sweep::nbody::y", n), z("sweep::nbody::z", n), vx("sweep::nbody::vx", n),
        vy("sweep::nbody::vy", n), vz("sweep::nbody::vz", n), ax("sweep::nbody::ax", n), ay("sweep::nbody::ay", n),
        az("sweep::nbody::az", n), m("sweep::nbody::m", n), phi("sweep::nbody::phi", n),
        cost("sweep::nbody::cost", n), id("sweep::nbody::id", n) {}

  index_t size() const { return static_cast<index_t>(x.extent(0)); }

  /// Copies every array of `other` (same size) into this one.
  template <class ExecSpace>
  void assign(const ExecSpace& space, const body_arrays& other) const {
    sweep::detail::require(other.size() == size(), "sweep::nbody::body_arrays::assign", "sizes differ: ", size(),
                           " vs ", other.size());
    Kokkos::deep_copy(space, x, other.x), Kokkos::deep_copy(space, y, other.y), Kokkos::deep_copy(space, z, other.z);
    Kokkos::deep_copy(space, vx, other.vx), Kokkos::deep_copy(space, vy, other.vy);
    Kokkos::deep_copy(space, vz, other.vz), Kokkos::deep_copy(space, ax, other.ax);
    Kokkos::deep_copy(space, ay, other.ay), Kokkos::deep_copy(space, az, other.az);
    Kokkos::deep_copy(space, m, other.m), Kokkos::deep_copy(space, phi, other.phi);
    Kokkos::deep_copy(space, cost, other.cost), Kokkos::deep_copy(space, id, other.id);
  }

  /// Uploads checked host bodies; accelerations, potentials, costs start at 0.
  static body_arrays from_host(const std::vector<body>& b) {
    detail::check_bodies(b, "sweep::nbody::body_arrays");
    body_arrays out(static_cast<index_t>(b.size()));
    auto hx = Kokkos::create_mirror_view(out.x), hy = Kokkos::create_mirror_view(out.y),
         hz = Kokkos::create_mirror_view(out.z), hvx = Kokkos::create_mirror_view(out.vx),
         hvy = Kokkos::create_mirror_view(out.vy), hvz = Kokkos::create_mirror_view(out.vz),
         hm = Kokkos::create_mirror_view(out.m);
    auto hid = Kokkos::create_mirror_view(out.id);
    for (std::size_t i = 0; i < b.size(); ++i) {
      hm(i) = b[i].m;
      hx(i) = b[i].x, hy(i) = b[i].y, hz(i) = b[i].z;
      hvx(i) = b[i].vx, hvy(i) = b[i].vy, hvz(i) = b[i].vz;
      hid(i) = static_cast<std::int64_t>(i);
    }
    Kokkos::deep_copy(out.x, hx), Kokkos::deep_copy(out.y, hy), Kokkos::deep_copy(out.z, hz);
    Kokkos::deep_copy(out.vx, hvx), Kokkos::deep_copy(out.vy, hvy), Kokkos::deep_copy(out.vz, hvz);
    Kokkos::deep_copy(out.m, hm), Kokkos::deep_copy(out.id, hid);
    return out;
  }

  /// The bodies in input order (by id), for files and checks.
  std::vector<body> to_host() const {
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    auto hz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
    auto hvx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vx);
    auto hvy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vy);
    auto hvz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vz);
    auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m);
    auto hid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), id);
    std::vector<body> out(static_cast<std::size_t>(size()));
    for (index_t i = 0; i < size(); ++i) out[std::size_t(hid(i))] = {hm(i), hx(i), hy(i), hz(i), hvx(i), hvy(i), hvz(i)};
    return out;
  }
};

namespace detail {

/// Gathers every array of `from` through perm (to(i) = from(perm(i))).
template <class Mem>
struct gather_bodies {
  body_arrays<Mem> from, to;
  Kokkos::View<const std::int32_t*, Mem> perm;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const {
    const index_t s = perm(i);
    to.x(i) = from.x(s), to.y(i) = from.y(s), to.z(i) = from.z(s);
    to.vx(i) = from.vx(s), to.vy(i) = from.vy(s), to.vz(i) = from.vz(s);
    to.ax(i) = from.ax(s), to.ay(i) = from.ay(s), to.az(i) = from.az(s);
    to.m(i) = from.m(s), to.phi(i) = from.phi(s), to.cost(i) = from.cost(s), to.id(i) = from.id(s);
  }
};

/// Reorders the bodies by perm through `spare` (same size); afterwards
/// `bodies` holds the reordered arrays and `spare` the old ones.
template <class ExecSpace, class Mem>
void permute(const ExecSpace& space, body_arrays<Mem>& bodies, body_arrays<Mem>& spare,
             std::type_identity_t<Kokkos::View<const std::int32_t*, Mem>> perm) {
  Kokkos::parallel_for("sweep::nbody::permute", sweep::detail::range_policy<ExecSpace>(space, 0, bodies.size()),
                       gather_bodies<Mem>{bodies, spare, perm});
  std::swap(bodies, spare);
}

}  // namespace detail
}  // namespace sweep::nbody
