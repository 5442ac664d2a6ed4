// The sparse walk of the host pack and unpack kernels, written once and
// included by host/bitmask_kernels.hpp, in namespace sweep::detail, inside
// each target region whose queue it calls (SWEEP_BITMASK_WALK_LEVEL names
// the namespace): a function's target comes from where it is defined, and
// the queue's append must inline into the walk. No include guard, by
// design.

namespace SWEEP_BITMASK_WALK_LEVEL {

/// Walks words [w0, w1) in groups of four words (or the queue's
/// group_words, 4 or 8): clear groups are skipped with one test each, a
/// queue with append_group takes a group in one step where it can, sparse
/// words (at most sparse_bits set) go to the queue (`flush()` empties it,
/// and is called before any dense word so the order holds), dense words go
/// to `dense(j, w)`.
template <class Queue, class Flush, class Dense>
void walk_words(const host_mask& m, index_t w0, index_t w1, Queue& queue, Flush&& flush, Dense&& dense) {
  const index_t full = m.n / 64;  // words entirely below n
  const auto step = [&](index_t j, std::uint64_t w) {
    if (_mm_popcnt_u64(w) <= sparse_bits) {
      queue.append(64 * j, w);
      if (queue.size > Queue::capacity - 64) flush();
    } else {
      flush();
      dense(j, w);
    }
  };
  constexpr index_t G = [] {
    if constexpr (requires { Queue::group_words; }) return index_t(Queue::group_words);
    else return index_t(4);
  }();
  index_t j = w0;
  while (j < w1) {
    if (j + G <= w1 && j + G <= full) {
      const __m256i g0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m.words + 2 * j));
      __m256i g1 = g0;
      if constexpr (G == 8) g1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m.words + 2 * j + 8));
      const __m256i g = _mm256_or_si256(g0, g1);
      if (!_mm256_testz_si256(g, g)) {
        if constexpr (requires { queue.append_group(index_t{}, m.words); }) {
          if (queue.append_group(64 * j, m.words + 2 * j)) {
            if (queue.size > Queue::capacity - 64) flush();
            j += G;
            continue;
          }
        }
        alignas(32) std::uint64_t w[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(w), g0);
        if constexpr (G == 8) _mm256_store_si256(reinterpret_cast<__m256i*>(w + 4), g1);
        for (int e = 0; e < G; ++e) step(j + e, w[e]);
      }
      j += G;
    } else {
      step(j, m.word(j));
      ++j;
    }
  }
  flush();
}

}  // namespace SWEEP_BITMASK_WALK_LEVEL
