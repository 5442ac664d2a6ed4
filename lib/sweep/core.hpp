// Sweep's shared vocabulary: the index type, argument checks that throw
// std::invalid_argument with a message naming the argument and the sizes,
// compile-time checks of View rank and accessibility, and the RAII
// Kokkos::Profiling region every public call opens. Header-only, no cost
// beyond the checks themselves (O(1) per call).
#pragma once

#include <sweep/config.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace sweep {

/// Sizes and indices are 64-bit throughout: n > 2^31 works everywhere.
using index_t = std::int64_t;

/// Direction of a scan: forward is a prefix scan, backward a suffix scan
/// computed from the end.
enum class direction { forward, backward };

namespace detail {

/// A 1D range with 64-bit indices on every backend (Kokkos 3.4.1 gives CUDA
/// a 32-bit index by default, which would wrap at n = 2^32). Every Sweep
/// kernel over elements uses it.
template <class ExecSpace, class... Traits>
using range_policy = Kokkos::RangePolicy<ExecSpace, Traits..., Kokkos::IndexType<index_t>>;

/// Copies one element of a View to the host on the caller's instance and
/// fences that instance (a user's non-blocking stream included).
template <class ExecSpace, class View>
typename View::non_const_value_type read_element(const ExecSpace& space, const View& v, index_t i) {
  typename View::non_const_value_type h;
  Kokkos::deep_copy(space, h, Kokkos::subview(v, i));
  space.fence();
  return h;
}

/// Opens a named Kokkos::Profiling region for the lifetime of the object,
/// so Kokkos Tools attribute the kernels inside to the public call.
class scoped_region {
 public:
  explicit scoped_region(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~scoped_region() { Kokkos::Profiling::popRegion(); }
  scoped_region(const scoped_region&) = delete;
  scoped_region& operator=(const scoped_region&) = delete;
};

/// Builds a message from streamable pieces.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

/// Throws std::invalid_argument("<where>: <message>") when cond is false.
template <class... Parts>
void require(bool cond, const char* where, const Parts&... parts) {
  if (!cond) throw std::invalid_argument(concat(where, ": ", parts...));
}

template <class View>
inline constexpr bool is_rank1_view_v = Kokkos::is_view<View>::value && (View::rank == 1);

/// True when ExecSpace can dereference the View's memory.
template <class ExecSpace, class View>
inline constexpr bool accessible_from_v =
    Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;

/// First byte and one-past-last byte a rank-1 View spans (strided Views span
/// more than extent * sizeof). Empty Views span nothing.
template <class View>
std::pair<std::uintptr_t, std::uintptr_t> byte_span(const View& v) {
  if (v.extent(0) == 0 || v.data() == nullptr) return {0, 0};
  auto first = reinterpret_cast<std::uintptr_t>(v.data());
  auto last = first + ((v.extent(0) - 1) * v.stride(0) + 1) * sizeof(typename View::value_type);
  return {first, last};
}

/// True when two Views share memory.
template <class A, class B>
bool overlap(const A& a, const B& b) {
  auto [a0, a1] = byte_span(a);
  auto [b0, b1] = byte_span(b);
  return a0 < b1 && b0 < a1;
}

/// True when a and b are the same elements in the same order.
template <class A, class B>
bool same_elements(const A& a, const B& b) {
  return static_cast<const void*>(a.data()) == static_cast<const void*>(b.data()) &&
         a.extent(0) == b.extent(0) && a.stride(0) == b.stride(0);
}

/// sqrt on host and device alike (Kokkos 3.4 has no Kokkos::sqrt; 4.x
/// deprecates Kokkos::Experimental's).
KOKKOS_INLINE_FUNCTION double square_root(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}

/// cos and sin on host and device alike.
KOKKOS_INLINE_FUNCTION double cosine(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::cos(x);
#else
  return std::cos(x);
#endif
}
KOKKOS_INLINE_FUNCTION double sine(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::sin(x);
#else
  return std::sin(x);
#endif
}

/// Number of threads (CPU) or concurrent lanes (GPU) an instance offers.
template <class ExecSpace>
int concurrency(const ExecSpace& space) {
  return space.concurrency();
}

}  // namespace detail
}  // namespace sweep
