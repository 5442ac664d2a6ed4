// Wall-clock time of work queued on an execution space.
#pragma once

#include <chrono>

namespace sweep::detail {

/// Seconds `f` takes, its work on `space` included (fenced before and
/// after): the phase times of the simulations and the renderer.
template <class ExecSpace, class F>
double fenced_seconds(const ExecSpace& space, F&& f) {
  space.fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  space.fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace sweep::detail
