// Bad input to sweep::nbody: malformed, truncated or non-finite body files
// (with the line or byte offset in the message), N = 0, bad parameters;
// each throws std::invalid_argument and nothing is overwritten.
#include <sweep/nbody.hpp>

#include "test_support.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

namespace nb = sweep::nbody;
using sweep_test::contains;
using sweep_test::scratch_dir;
using sweep_test::thrown;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string binary_header(std::uint64_t n) {
  std::string h = "SWEEPNB1";
  for (int k = 0; k < 8; ++k) h.push_back(char((n >> (8 * k)) & 0xff));
  return h;
}

}  // namespace

TEST_CASE("malformed CSV body files name the file and the line") {
  scratch_dir d("sweep-galaxy-errors");
  const std::string header = "m,x,y,z,vx,vy,vz\n";
  const auto bad_number = d.write("a.csv", header + "1,0,0,0,0,0,0\n# comment\n1,0,zero,0,0,0,0\n");
  CHECK(thrown([&] { nb::read_bodies(bad_number); }) ==
        "sweep::nbody::read_bodies: " + bad_number + ": line 4: field 3 ('zero') is not a number");
  const auto short_line = d.write("b.csv", header + "1,2,3,4,5,6\n");
  CHECK(thrown([&] { nb::read_bodies(short_line); }) ==
        "sweep::nbody::read_bodies: " + short_line +
            ": line 2: expected 7 comma-separated numbers (m,x,y,z,vx,vy,vz), found 6");
  const auto long_line = d.write("c.csv", "1,2,3,4,5,6,7,8\n");
  CHECK(contains(thrown([&] { nb::read_bodies(long_line); }), "line 1: expected 7 comma-separated numbers"));
  const auto nan = d.write("d.csv", header + "1,nan,0,0,0,0,0\n");
  CHECK(thrown([&] { nb::read_bodies(nan); }) ==
        "sweep::nbody::read_bodies: " + nan + ": line 2: field 2 (x) is not finite (nan)");
  const auto inf = d.write("e.csv", "1,0,0,0,0,0,inf\n");
  CHECK(contains(thrown([&] { nb::read_bodies(inf); }), "line 1: field 7 (vz) is not finite"));
  const auto negative = d.write("f.csv", "-1,0,0,0,0,0,0\n");
  CHECK(contains(thrown([&] { nb::read_bodies(negative); }), "line 1: negative mass -1"));
  const auto empty = d.write("g.csv", header + "\n# nothing\n");
  CHECK(thrown([&] { nb::read_bodies(empty); }) == "sweep::nbody::read_bodies: " + empty + ": no bodies (N = 0)");
  const auto trailing = d.write("h.csv", "1,0,0,0,0,0,0x\n");
  CHECK(contains(thrown([&] { nb::read_bodies(trailing); }), "line 1: field 7 ('0x') is not a number"));
  // Zero masses one by one are fine, but not all of them (found by fuzzing:
  // such a file was read, then refused by write_bodies and the simulations).
  const auto massless = d.write("i.csv", "0,0,0,0,0,0,0\n0,1,0,0,0,0,0\n");
  CHECK(thrown([&] { nb::read_bodies(massless); }) ==
        "sweep::nbody::read_bodies: " + massless + ": the total mass is 0 (N = 2, every mass is 0)");
  CHECK(nb::read_bodies(d.write("j.csv", "0,0,0,0,0,0,0\n1e-300,1,0,0,0,0,0\n")).size() == 2);
  const auto missing = (d.path / "missing.csv").string();
  CHECK(contains(thrown([&] { nb::read_bodies(missing); }), missing + ": cannot open"));
  // Well-formed input with spaces, CRLF and a leading '+' reads.
  const auto fine = d.write("ok.csv", "# a body\r\n 0.5 , +1, -2e-3,0,0,0,1\r\n");
  const auto ok = nb::read_bodies(fine);
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].m == 0.5);
  CHECK(ok[0].y == -2e-3);
  CHECK(ok[0].vz == 1);
}

TEST_CASE("truncated or damaged binary body files name the byte offset") {
  scratch_dir d("sweep-galaxy-errors");
  const auto header_only = d.write("a.bin", binary_header(3).substr(0, 12));
  CHECK(thrown([&] { nb::read_bodies(header_only); }) ==
        "sweep::nbody::read_bodies: " + header_only + ": truncated at byte offset 12: the header (magic + count) needs 16 bytes");
  const auto truncated = d.write("b.bin", binary_header(100) + std::string(1000, '\0'));
  CHECK(thrown([&] { nb::read_bodies(truncated); }) ==
        "sweep::nbody::read_bodies: " + truncated +
            ": truncated at byte offset 1016: the header declares 100 bodies (5616 bytes), the file has 1016 bytes");
  const auto extra = d.write("c.bin", binary_header(1) + std::string(56 + 3, '\0'));
  CHECK(thrown([&] { nb::read_bodies(extra); }) ==
        "sweep::nbody::read_bodies: " + extra + ": 3 unexpected bytes after the last body at byte offset 72");
  const auto zero = d.write("d.bin", binary_header(0));
  CHECK(contains(thrown([&] { nb::read_bodies(zero); }), "no bodies (N = 0 in the header)"));
  const auto massless = d.write("g.bin", binary_header(1) + std::string(56, '\0'));
  CHECK(thrown([&] { nb::read_bodies(massless); }) ==
        "sweep::nbody::read_bodies: " + massless + ": the total mass is 0 (N = 1, every mass is 0)");
  // A NaN position in the second body.
  std::vector<nb::body> two = {{1, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 0, 0, 0}};
  const auto good = (d.path / "e.bin").string();
  nb::write_bodies(good, two);
  std::string bytes = read_all(good);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(bytes.data() + 16 + 56 + 16, &nan, 8);  // body 1, field 3 (y)
  const auto damaged = d.write("f.bin", bytes);
  CHECK(thrown([&] { nb::read_bodies(damaged); }) ==
        "sweep::nbody::read_bodies: " + damaged + ": body 1 at byte offset 72: field 3 (y) is not finite (nan)");
}

TEST_CASE("write_bodies refuses bad bodies and never leaves a damaged file") {
  scratch_dir d("sweep-galaxy-errors");
  const std::vector<nb::body> good = {{1, 0, 0, 0, 0, 0, 0}};
  const auto target = (d.path / "keep.csv").string();
  nb::write_bodies(target, good);
  const std::string before = read_all(target);
  std::vector<nb::body> bad = {{1, 0, std::nan(""), 0, 0, 0, 0}};
  CHECK(thrown([&] { nb::write_bodies(target, bad); }) ==
        "sweep::nbody::write_bodies: body 0 has a non-finite value (nan)");
  CHECK(thrown([&] { nb::write_bodies(target, {}); }) == "sweep::nbody::write_bodies: N = 0: there are no bodies");
  CHECK(read_all(target) == before);
  const auto nowhere = (d.path / "no-such-folder" / "x.bin").string();
  CHECK(contains(thrown([&] { nb::write_bodies(nowhere, good); }), "cannot create"));
  CHECK_FALSE(std::filesystem::exists(nowhere));
  CHECK_FALSE(std::filesystem::exists(target + ".partial"));
}

TEST_CASE_TEMPLATE("bad parameters and N = 0 are refused with the parameter named", Space, SWEEP_TEST_SPACES) {
  Space space;
  const auto bodies = nb::plummer(100, 1);
  auto with = [&](auto change) {
    nb::simulation_parameters p;
    change(p);
    return thrown([&] { nb::simulation<Space> s(space, bodies, p); });
  };
  CHECK(with([](auto& p) { p.theta = -0.1; }) == "sweep::nbody::simulation: theta = -0.1 must be finite and >= 0");
  CHECK(with([](auto& p) { p.dt = 0; }) == "sweep::nbody::simulation: dt = 0 must be finite and > 0");
  CHECK(with([](auto& p) { p.dt = -1; }) == "sweep::nbody::simulation: dt = -1 must be finite and > 0");
  CHECK(contains(with([](auto& p) { p.dt = std::nan(""); }), "dt = nan"));
  CHECK(with([](auto& p) { p.eps = -1; }) == "sweep::nbody::simulation: eps = -1 must be finite and >= 0");
  CHECK(with([](auto& p) { p.G = 0; }) == "sweep::nbody::simulation: G = 0 must be finite and > 0");
  CHECK(with([](auto& p) { p.leaf_capacity = 0; }) == "sweep::nbody::simulation: leaf_capacity = 0 must be >= 1");
  CHECK(with([](auto& p) { p.partitions = -2; }) == "sweep::nbody::simulation: partitions = -2 must be >= 0");
  CHECK(thrown([&] { nb::simulation<Space> s(space, {}, {}); }) == "sweep::nbody::body_arrays: N = 0: there are no bodies");
  auto nan_body = bodies;
  nan_body[42].vy = std::numeric_limits<double>::infinity();
  CHECK(thrown([&] { nb::simulation<Space> s(space, nan_body, {}); }) ==
        "sweep::nbody::body_arrays: body 42 has a non-finite value (inf)");
  CHECK(thrown([&] { nb::plummer(0); }) == "sweep::nbody::plummer: N = 0 must be in [1, 2^31)");
  CHECK(thrown([&] { nb::octree<Space> t(0); }) == "sweep::nbody::octree: leaf_capacity = 0 must be >= 1");
  nb::octree<Space> unbuilt;
  CHECK(thrown([&] { unbuilt.summarize(space, 0.5); }) == "sweep::nbody::octree::summarize: the tree has not been built");
  auto b = nb::body_arrays<typename Space::memory_space>::from_host(bodies);
  CHECK(thrown([&] { nb::make_partition(space, nb::scheme::orb, b, 0); }) ==
        "sweep::nbody::make_partition: parts = 0 must be >= 1");
}
