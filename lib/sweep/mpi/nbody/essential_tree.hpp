// Locally essential trees: what each rank's octree must show every other
// rank so that the other rank's force walk, over its own tree and what it
// received, equals a walk over all the ranks' trees.
//
//   sweep::mpi::nbody::essential_trees<ExecSpace> let;
//   let.exchange(comm, space, tree, domains);  // domains: every rank's box
//   sweep::nbody::tree_accelerations(space, tree, let.forest(), ...);
//
// For a receiving rank q with domain D (the bounding box of its bodies),
// a node of this rank's tree is sent
//   - as a node (mass, centre of mass, quadrupole) that every body of q
//     accepts, when the nearest point of D is farther from the node's
//     centre of mass than the node's opening radius: no body inside D can
//     open it (the conservative test); it arrives as a node that every
//     walk accepts;
//   - with its children when some body of D could open it: the node itself
//     goes too (a body of D that accepts it takes its moments, as on the
//     sending rank), and each child is tested in turn;
//   - with its bodies (positions and masses) when it is such a leaf.
// Nodes no body of D reaches are not sent. A walk (a body's, or a group's
// on a host space) over its own tree and the received trees then makes the
// decisions a walk over every rank's tree makes, node for node: the error
// is that of the same opening criterion (theta = 0 sends every leaf: the
// direct sum).
//
// Method, level by level from the root, on the execution space: the (rank,
// node) pairs still to send, tested in one pass; an exclusive scan of the
// children counts places the next level's pairs and one of the body counts
// places the leaves' bodies; then each pair is written to its rank's
// part of one send buffer (children and bodies renumbered within it).
// Sizes first (MPI_Alltoall), then one MPI_Alltoallv for the nodes (112
// bytes each, with the quadrupole) and one for the bodies (32 bytes).
// Cost: O(sent nodes) work and one host round trip per tree level.
#pragma once

#include <sweep/mpi/core.hpp>
#include <sweep/nbody/gravity.hpp>
#include <sweep/nbody/octree.hpp>
#include <sweep/scan.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace sweep::mpi::nbody {

namespace nb = sweep::nbody;

/// A sent node: the octree node (children and bodies renumbered within
/// what its rank receives) and its quadrupole.
struct essential_node {
  nb::tree_node node;
  nb::quadrupole quad;
};

/// What one exchange sent and received (this rank's part).
struct essential_report {
  index_t nodes_sent = 0, bodies_sent = 0, nodes_received = 0, bodies_received = 0;
  std::uint64_t bytes_sent() const {
    return std::uint64_t(nodes_sent) * sizeof(essential_node) + std::uint64_t(bodies_sent) * sizeof(nb::point);
  }
  std::uint64_t bytes_received() const {
    return std::uint64_t(nodes_received) * sizeof(essential_node) +
           std::uint64_t(bodies_received) * sizeof(nb::point);
  }
};

namespace detail {

enum : std::int32_t { send_as_node = 0, send_bodies = 1, send_children = 2 };

/// One level of the frontier: the (rank, node) pairs to send, ordered by
/// rank then node, and what the pass over them found.
template <class Mem>
struct let_level {
  Kokkos::View<std::int32_t*, Mem> rank, node, kind;
  Kokkos::View<index_t*, Mem> child_at, body_at;  // exclusive scans over the level
  std::vector<index_t> rank_start;                // first pair of each rank, size + 1 entries
  std::vector<index_t> body_start;                // body_at at rank_start (the level's total at the end)
};

}  // namespace detail

/// The exchange of locally essential trees, and the forest this rank
/// received (kept until the next exchange).
template <class ExecSpace>
class essential_trees {
 public:
  using memory_space = typename ExecSpace::memory_space;

  /// Sends every other rank the part of `tree` its domain needs and
  /// receives theirs (collective). `tree` is nullptr on a rank without
  /// bodies; domains[q] is rank q's box (lo > hi: empty, sent nothing).
  /// The tree must be summarized.
  void exchange(MPI_Comm comm, const ExecSpace& space, const nb::octree<ExecSpace>* tree,
                const std::vector<nb::box>& domains, transport how = transport::automatic) {
    static constexpr const char* where = "sweep::mpi::nbody::essential_trees::exchange";
    sweep::detail::scoped_region region(where);
    using Mem = memory_space;
    using sweep::mpi::detail::as_count;
    const int size = sweep::mpi::detail::comm_size(comm), me = sweep::mpi::detail::comm_rank(comm);
    const auto P = std::size_t(size);
    std::vector<detail::let_level<Mem>> levels;
    // Level 0: the root, for every other rank with bodies.
    std::vector<std::int32_t> first;
    if (tree != nullptr && tree->size() > 0)
      for (int q = 0; q < size; ++q)
        if (q != me && domains[std::size_t(q)].lo[0] <= domains[std::size_t(q)].hi[0]) first.push_back(q);
    Kokkos::View<nb::box*, Mem> boxes("sweep::mpi::nbody::let_domains", size);
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), boxes);
      for (int q = 0; q < size; ++q) h(q) = domains[std::size_t(q)];
      Kokkos::deep_copy(space, boxes, h);
    }
    index_t width = index_t(first.size());
    if (width > 0) {
      detail::let_level<Mem> l0;
      l0.rank = Kokkos::View<std::int32_t*, Mem>("sweep::mpi::nbody::let_rank", width);
      l0.node = Kokkos::View<std::int32_t*, Mem>("sweep::mpi::nbody::let_node", width);
      Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hf(first.data(), first.size());
      Kokkos::deep_copy(space, l0.rank, hf);
      levels.push_back(std::move(l0));
    }
    const auto nodes = tree != nullptr ? tree->nodes() : typename nb::octree<ExecSpace>::node_view();
    while (width > 0) {
      auto& lv = levels.back();
      lv.kind = Kokkos::View<std::int32_t*, Mem>("sweep::mpi::nbody::let_kind", width);
      lv.child_at = Kokkos::View<index_t*, Mem>("sweep::mpi::nbody::let_child_at", width);
      lv.body_at = Kokkos::View<index_t*, Mem>("sweep::mpi::nbody::let_body_at", width);
      const auto rank = lv.rank, node = lv.node, kind = lv.kind;
      const auto child_at = lv.child_at, body_at = lv.body_at;
      Kokkos::parallel_for(
          "sweep::mpi::nbody::let_test", sweep::mpi::detail::range<ExecSpace>(space, 0, width),
          KOKKOS_LAMBDA(const index_t k) {
            const nb::tree_node& nd = nodes(node(k));
            const bool far = nb::detail::box_distance2(boxes(rank(k)), nd.x, nd.y, nd.z) > nd.rcrit2;
            const std::int32_t kd =
                far ? detail::send_as_node : (nd.child < 0 ? detail::send_bodies : detail::send_children);
            kind(k) = kd;
            child_at(k) = kd == detail::send_children ? index_t(nd.nchild) : 0;
            body_at(k) = kd == detail::send_bodies ? index_t(nd.end - nd.begin) : 0;
          });
      const index_t next = exclusive_scan("sweep::mpi::nbody::let_children", space, child_at, child_at, index_t(0));
      const index_t bodies = exclusive_scan("sweep::mpi::nbody::let_bodies", space, body_at, body_at, index_t(0));
      // Where each rank's pairs start, and their bodies.
      Kokkos::View<index_t*, Mem> starts("sweep::mpi::nbody::let_starts", 2 * (size + 1));
      Kokkos::parallel_for(
          "sweep::mpi::nbody::let_starts", sweep::mpi::detail::range<ExecSpace>(space, 0, size + 1),
          KOKKOS_LAMBDA(const index_t q) {
            index_t a = 0, e = width;
            while (a < e) {
              const index_t mid = a + (e - a) / 2;
              if (index_t(rank(mid)) < q) a = mid + 1;
              else e = mid;
            }
            starts(q) = a;
            starts(size + 1 + q) = a < width ? body_at(a) : bodies;
          });
      auto hs = Kokkos::create_mirror_view(Kokkos::HostSpace(), starts);
      Kokkos::deep_copy(space, hs, starts);
      space.fence();
      lv.rank_start.assign(hs.data(), hs.data() + size + 1);
      lv.body_start.assign(hs.data() + size + 1, hs.data() + 2 * (size + 1));
      if (next == 0) break;
      detail::let_level<Mem> nl;
      nl.rank = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_rank"),
                                                 next);
      nl.node = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_node"),
                                                 next);
      const auto nrank = nl.rank, nnode = nl.node;
      Kokkos::parallel_for(
          "sweep::mpi::nbody::let_expand", sweep::mpi::detail::range<ExecSpace>(space, 0, width),
          KOKKOS_LAMBDA(const index_t k) {
            if (kind(k) != detail::send_children) return;
            const nb::tree_node& nd = nodes(node(k));
            for (int c = 0; c < nd.nchild; ++c) nrank(child_at(k) + c) = rank(k), nnode(child_at(k) + c) = nd.child + c;
          });
      levels.push_back(std::move(nl));
      width = next;
    }

    // Each rank's part of the send buffers: its pairs level by level.
    const std::size_t depth = levels.size();
    std::vector<index_t> node_count(P, 0), body_count(P, 0);
    // node_base[l][q], body_base[l][q]: where rank q's pairs of level l and
    // their bodies start in the send buffers.
    std::vector<std::vector<index_t>> node_base(depth + 1, std::vector<index_t>(P, 0)),
        body_base(depth + 1, std::vector<index_t>(P, 0));
    std::vector<index_t> node_displ(P + 1, 0), body_displ(P + 1, 0);
    for (std::size_t q = 0; q < P; ++q)
      for (std::size_t l = 0; l < depth; ++l) {
        node_count[q] += levels[l].rank_start[q + 1] - levels[l].rank_start[q];
        body_count[q] += levels[l].body_start[q + 1] - levels[l].body_start[q];
      }
    for (std::size_t q = 0; q < P; ++q) {
      node_displ[q + 1] = node_displ[q] + node_count[q];
      body_displ[q + 1] = body_displ[q] + body_count[q];
    }
    for (std::size_t q = 0; q < P; ++q) {
      index_t at = node_displ[q], bt = body_displ[q];
      for (std::size_t l = 0; l <= depth; ++l) {
        node_base[l][q] = at;
        body_base[l][q] = bt;
        if (l < depth) {
          at += levels[l].rank_start[q + 1] - levels[l].rank_start[q];
          bt += levels[l].body_start[q + 1] - levels[l].body_start[q];
        }
      }
    }
    Kokkos::View<essential_node*, Mem> send_nodes(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_send_nodes"), node_displ[P]);
    Kokkos::View<nb::point*, Mem> send_points(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_send_points"), body_displ[P]);
    for (std::size_t l = 0; l < depth; ++l) {
      const auto& lv = levels[l];
      // Per rank: node and body bases of this level and the next, the
      // level's and the next level's first pair, the first body offset.
      Kokkos::View<index_t*, Kokkos::HostSpace> hb("sweep::mpi::nbody::let_bases_host", 7 * P);
      for (std::size_t q = 0; q < P; ++q) {
        hb(q) = node_base[l][q];
        hb(P + q) = node_base[l + 1][q] - node_displ[q];
        hb(2 * P + q) = body_base[l][q];
        hb(3 * P + q) = body_base[l][q] - body_displ[q];
        hb(4 * P + q) = lv.rank_start[q];
        hb(5 * P + q) = l + 1 < depth ? levels[l + 1].rank_start[q] : 0;
        hb(6 * P + q) = lv.body_start[q];
      }
      Kokkos::View<index_t*, Mem> bases("sweep::mpi::nbody::let_bases", 7 * P);
      Kokkos::deep_copy(space, bases, hb);
      const auto rank = lv.rank, node = lv.node, kind = lv.kind;
      const auto child_at = lv.child_at, body_at = lv.body_at;
      const auto quads = tree->quadrupoles();
      const auto points = tree->points();
      const index_t np = index_t(P);
      Kokkos::parallel_for(
          "sweep::mpi::nbody::let_write", sweep::mpi::detail::range<ExecSpace>(space, 0, index_t(lv.rank.extent(0))),
          KOKKOS_LAMBDA(const index_t k) {
            const index_t q = rank(k);
            const std::int32_t id = node(k);
            nb::tree_node nd = nodes(id);
            const index_t own_at = bases(4 * np + q);
            const index_t body_from = body_at(k) - bases(6 * np + q);
            if (kind(k) == detail::send_as_node) {
              nd.rcrit2 = -1;  // every body of the receiving domain accepts it
              nd.child = -1, nd.nchild = 0, nd.begin = 0, nd.end = 0;
            } else if (kind(k) == detail::send_bodies) {
              const std::int32_t count = nd.end - nd.begin;
              for (std::int32_t j = 0; j < count; ++j)
                send_points(bases(2 * np + q) + body_from + j) = points(nd.begin + j);
              nd.begin = std::int32_t(bases(3 * np + q) + body_from);
              nd.end = nd.begin + count;
            } else {
              nd.child = std::int32_t(bases(np + q) + child_at(k) - bases(5 * np + q));
              nd.begin = 0, nd.end = 0;
            }
            send_nodes(bases(q) + (k - own_at)) = essential_node{nd, quads(id)};
          });
    }

    // Sizes, then the nodes and the bodies. Counts beyond MPI's int, or
    // more than a tree's 32-bit indices reach, fail on every rank.
    std::vector<int> counts(2 * P), got(2 * P);
    sweep::mpi::detail::checked(comm, where, [&] {
      for (std::size_t q = 0; q < P; ++q) {
        counts[2 * q] = as_count(node_count[q], where);
        counts[2 * q + 1] = as_count(body_count[q], where);
      }
    });
    sweep::mpi::detail::check_mpi(MPI_Alltoall(counts.data(), 2, MPI_INT, got.data(), 2, MPI_INT, comm),
                                  "MPI_Alltoall");
    std::vector<int> sn(P), sd(P), sb(P), sbd(P), rn(P), rd(P), rb(P), rbd(P);
    index_t rnodes = 0, rbodies = 0;
    for (std::size_t q = 0; q < P; ++q) rnodes += got[2 * q], rbodies += got[2 * q + 1];
    sweep::mpi::detail::checked(comm, where, [&] {
      sweep::detail::require(rnodes < (index_t(1) << 31) && rbodies < (index_t(1) << 31), where, rnodes,
                             " nodes and ", rbodies, " bodies would arrive on one rank; a forest indexes at most "
                             "2^31 - 1 of each");
      for (std::size_t q = 0; q < P; ++q) sd[q] = as_count(node_displ[q], where), sbd[q] = as_count(body_displ[q], where);
    });
    rnodes = 0, rbodies = 0;
    m_report = {};
    for (std::size_t q = 0; q < P; ++q) {
      sn[q] = counts[2 * q], sb[q] = counts[2 * q + 1];
      rn[q] = got[2 * q], rb[q] = got[2 * q + 1];
      rd[q] = int(rnodes), rbd[q] = int(rbodies);
      rnodes += rn[q], rbodies += rb[q];
    }
    m_report.nodes_sent = node_displ[P], m_report.bodies_sent = body_displ[P];
    m_report.nodes_received = rnodes, m_report.bodies_received = rbodies;
    Kokkos::View<essential_node*, Mem> recv_nodes(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_recv_nodes"), rnodes);
    m_points = Kokkos::View<nb::point*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_points"), rbodies);
    sweep::mpi::detail::alltoallv(comm, space, send_nodes, sn, sd, recv_nodes, rn, rd, how);
    sweep::mpi::detail::alltoallv(comm, space, send_points, sb, sbd, m_points, rb, rbd, how);

    // One forest: every received tree's children and bodies renumbered into
    // the joint arrays, its root listed.
    std::vector<std::int32_t> roots;
    Kokkos::View<index_t*, Kokkos::HostSpace> hd("sweep::mpi::nbody::let_recv_displs_host", 2 * (P + 1));
    for (std::size_t q = 0; q <= P; ++q) {
      hd(q) = q < P ? rd[q] : rnodes;
      hd(P + 1 + q) = q < P ? rbd[q] : rbodies;
      if (q < P && rn[q] > 0) roots.push_back(rd[q]);
    }
    Kokkos::View<index_t*, Mem> displs("sweep::mpi::nbody::let_recv_displs", 2 * (P + 1));
    Kokkos::deep_copy(space, displs, hd);
    m_nodes = Kokkos::View<nb::tree_node*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_nodes"), rnodes);
    m_quads = Kokkos::View<nb::quadrupole*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sweep::mpi::nbody::let_quadrupoles"), rnodes);
    const auto out_nodes = m_nodes;
    const auto out_quads = m_quads;
    const index_t np = index_t(P);
    Kokkos::parallel_for(
        "sweep::mpi::nbody::let_renumber", sweep::mpi::detail::range<ExecSpace>(space, 0, rnodes),
        KOKKOS_LAMBDA(const index_t k) {
          index_t a = 0, e = np;  // the source: the last rank whose part starts at or before k
          while (a < e) {
            const index_t mid = a + (e - a + 1) / 2;
            if (displs(mid) <= k) a = mid;
            else e = mid - 1;
          }
          essential_node r = recv_nodes(k);
          if (r.node.child >= 0) r.node.child += std::int32_t(displs(a));
          if (r.node.end > r.node.begin) {
            r.node.begin += std::int32_t(displs(np + 1 + a));
            r.node.end += std::int32_t(displs(np + 1 + a));
          }
          out_nodes(k) = r.node;
          out_quads(k) = r.quad;
        });
    m_roots = Kokkos::View<std::int32_t*, Mem>("sweep::mpi::nbody::let_roots", roots.size());
    Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hr(roots.data(), roots.size());
    Kokkos::deep_copy(space, m_roots, hr);
    space.fence();
  }

  /// The trees received by the last exchange.
  nb::forest<memory_space> forest() const { return {m_nodes, m_quads, m_points, m_roots}; }
  const essential_report& report() const { return m_report; }

 private:
  Kokkos::View<nb::tree_node*, memory_space> m_nodes;
  Kokkos::View<nb::quadrupole*, memory_space> m_quads;
  Kokkos::View<nb::point*, memory_space> m_points;
  Kokkos::View<std::int32_t*, memory_space> m_roots;
  essential_report m_report;
};

}  // namespace sweep::mpi::nbody
