// The workspace leases a call takes, for the tests that check that repeated
// calls reuse the space's workspace.
#pragma once

#include "test_support.hpp"

#include <sweep/detail/workspace.hpp>

#include <cstddef>

namespace sweep_test {

/// Runs `call` (queued work fenced on `space`, pending leases settled
/// before and after) and returns the leases it took. When `steady`, also
/// checks that it grew no buffer and left nothing pending.
template <class Space, class F>
std::size_t workspace_leases(const Space& space, const F& call, bool steady) {
  using pool = sweep::detail::workspace_pool<typename Space::memory_space>;
  space.fence();
  pool::get().settle();
  const auto before = pool::get().footprint();
  call();
  space.fence();
  pool::get().settle();
  auto after = pool::get().footprint();
  const std::size_t leases = after.leases - before.leases;
  after.leases = before.leases;
  if (steady) CHECK(after == before);
  return leases;
}

}  // namespace sweep_test
