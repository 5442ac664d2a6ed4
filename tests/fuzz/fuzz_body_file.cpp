// libFuzzer target: sweep::nbody::read_bodies on arbitrary bytes. Built
// twice: as fuzz_body_csv (the input is the file) and as fuzz_body_binary
// (SWEEP_FUZZ_BINARY: the input follows the binary magic, so every run
// reaches the binary reader). A rejected file must throw
// std::invalid_argument; an accepted one must hold only finite fields and
// non-negative masses and survive a write/read round trip bit for bit in
// both formats.
#include "fuzz_support.hpp"

#include <sweep/nbody/body_io.hpp>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace {

bool same_bits(const std::vector<sweep::nbody::body>& a, const std::vector<sweep::nbody::body>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = sweep_fuzz::scratch_file(".bodies");
  static const std::string copy_csv = sweep_fuzz::scratch_file(".csv");
  static const std::string copy_bin = sweep_fuzz::scratch_file(".bin");
#ifdef SWEEP_FUZZ_BINARY
  std::vector<std::uint8_t> bytes(sweep::nbody::detail::binary_magic, sweep::nbody::detail::binary_magic + 8);
  bytes.insert(bytes.end(), data, data + size);
  sweep_fuzz::write_file(path, bytes.data(), bytes.size());
#else
  sweep_fuzz::write_file(path, data, size);
#endif
  std::vector<sweep::nbody::body> bodies;
  try {
    bodies = sweep::nbody::read_bodies(path);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  SWEEP_FUZZ_CHECK(!bodies.empty());
  for (const auto& b : bodies) {
    SWEEP_FUZZ_CHECK(std::isfinite(b.m) && std::isfinite(b.x) && std::isfinite(b.y) && std::isfinite(b.z));
    SWEEP_FUZZ_CHECK(std::isfinite(b.vx) && std::isfinite(b.vy) && std::isfinite(b.vz));
    SWEEP_FUZZ_CHECK(b.m >= 0);
  }
  sweep::nbody::write_bodies(copy_csv, bodies);
  SWEEP_FUZZ_CHECK(same_bits(sweep::nbody::read_bodies(copy_csv), bodies));
  sweep::nbody::write_bodies(copy_bin, bodies);
  SWEEP_FUZZ_CHECK(same_bits(sweep::nbody::read_bodies(copy_bin), bodies));
  return 0;
}
