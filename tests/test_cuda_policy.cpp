// The CUDA single-pass scan's shared-memory tile (cuda/policy.hpp), checked
// on the host against a model of the 32 four-byte banks: for the policy of
// every value size, every warp's access in both orders the kernel uses
// (striped: lane t of warp w touches element k * threads + 32 w + t;
// blocked: element (32 w + t) * items + k) must touch 32 different banks,
// once per 4-byte word of the value (the kernel moves staged values a word
// at a time), and no two words of the tile may share a slot. A bank
// conflict costs a GPU a replay per extra word in a bank; the model needs
// no GPU.
#include <test_support.hpp>

#include <sweep/cuda/policy.hpp>

#include <array>
#include <cstdint>
#include <set>

namespace {

template <std::size_t Bytes>
struct value_of {
  std::array<std::uint32_t, Bytes / 4> words;
};

struct bank_report {
  int conflicted_accesses = 0;  // warp accesses that touch a bank twice
  int overlaps = 0;             // words of the tile that share a slot
  int out_of_range = 0;         // slots past the staged bytes
};

/// The conflicts of a staged tile layout in the model above. Stage gives
/// the tile's elements, the 4-byte words of each and word(j, m), the index
/// in 4-byte words of word m of element j.
template <class Stage, int Threads, int Items>
bank_report model_banks() {
  bank_report r;
  std::set<long> slots;
  for (int j = 0; j < Threads * Items; ++j)
    for (int m = 0; m < Stage::words; ++m) {
      const long at = Stage::word(j, m);
      if (!slots.insert(at).second) ++r.overlaps;
      if (at < 0 || (at + 1) * 4 > long(Stage::bytes)) ++r.out_of_range;
    }
  for (int striped = 0; striped < 2; ++striped)
    for (int k = 0; k < Items; ++k)
      for (int w = 0; w < Threads / 32; ++w)
        for (int m = 0; m < Stage::words; ++m) {
          std::array<int, 32> used{};
          bool conflict = false;
          for (int lane = 0; lane < 32; ++lane) {
            const int t = 32 * w + lane;
            const int j = striped ? k * Threads + t : t * Items + k;
            conflict = used[Stage::word(j, m) % 32]++ > 0 || conflict;
          }
          r.conflicted_accesses += conflict;
        }
  return r;
}

/// Sweep's layout of a tile of T.
template <class T, int Threads, int Items>
bank_report model_stage() {
  using stage = sweep::cuda::tile_stage<T, Threads, Items>;
  static_assert(stage::by_words || sizeof(T) == 4, "the model counts 4-byte words");
  return model_banks<stage, Threads, Items>();
}

/// For contrast: values staged whole, one pad slot per 32 values (the
/// words of a value side by side), as a kernel that copies T at once would.
template <class T, int Threads, int Items>
struct element_wise {
  static constexpr int words = int(sizeof(T) / 4);
  static constexpr std::size_t bytes = sizeof(T) * std::size_t(Threads * Items + Threads * Items / 32);
  static constexpr int word(int j, int m) { return (j + (j >> 5)) * words + m; }
};

template <std::size_t Bytes>
void check_policy() {
  using policy = sweep::cuda::scan_policy<Bytes>;
  using T = value_of<Bytes>;
  CAPTURE(Bytes);
  const auto r = model_stage<T, policy::block_threads, policy::items_per_thread>();
  CHECK(r.conflicted_accesses == 0);
  CHECK(r.overlaps == 0);
  CHECK(r.out_of_range == 0);
  // The staged tile is the largest region of the block's shared memory.
  using storage = sweep::cuda::tile_storage<T, policy::block_threads, policy::items_per_thread>;
  CHECK(storage::bytes >= sweep::cuda::tile_stage<T, policy::block_threads, policy::items_per_thread>::bytes + Bytes);
}

}  // namespace

TEST_CASE("the staged tile of every CUDA scan policy meets each bank once per warp access") {
  check_policy<4>();
  check_policy<8>();
  check_policy<12>();
  check_policy<16>();
  check_policy<24>();
  check_policy<32>();
  check_policy<64>();
  check_policy<128>();
}

TEST_CASE("staged as words, 8-32 byte values meet each bank once where whole values do not") {
  // The model can fail: whole 8-byte values put lanes 8 bytes apart on
  // the striped side, and an even run that is not a power of two (12
  // items) conflicts on the blocked side whatever the padding.
  CHECK(model_banks<element_wise<value_of<8>, 256, 16>, 256, 16>().conflicted_accesses > 0);
  CHECK(model_banks<element_wise<value_of<32>, 256, 4>, 256, 4>().conflicted_accesses > 0);
  CHECK(model_stage<value_of<8>, 256, 16>().conflicted_accesses == 0);
  CHECK(model_stage<value_of<8>, 256, 13>().conflicted_accesses == 0);
  CHECK(model_stage<value_of<8>, 256, 12>().conflicted_accesses > 0);
  CHECK(model_stage<value_of<32>, 256, 4>().conflicted_accesses == 0);
  CHECK(model_stage<value_of<4>, 256, 12>().conflicted_accesses > 0);
  CHECK(model_stage<value_of<4>, 128, 15>().conflicted_accesses == 0);
  struct nine_bytes {
    std::array<std::uint8_t, 9> bytes;
  };
  CHECK(!sweep::cuda::tile_stage<nine_bytes, 256, 4>::by_words);
  CHECK(!sweep::cuda::tile_stage<std::uint32_t, 256, 16>::by_words);
  CHECK(sweep::cuda::tile_stage<double, 256, 13>::words == 2);
  CHECK(sweep::cuda::tile_stage<value_of<16>, 256, 8>::words == 4);
}
