// Helpers of the MPI tests: this rank and the rank count, splits of a
// global length into rank parts (even, uneven with empty ranks, all on one
// rank), the rank's slice of a global vector, and checks that every rank
// saw the same thing, and that a bad call failed the same way everywhere.
#pragma once

#include "test_support.hpp"

#include <mpi.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sweep_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Start of each rank's part (size + 1 entries, first 0, last n).
struct split {
  std::string name;
  std::vector<std::size_t> start;
  std::size_t begin() const { return start[static_cast<std::size_t>(world_rank())]; }
  std::size_t end() const { return start[static_cast<std::size_t>(world_rank()) + 1]; }
  std::size_t count() const { return end() - begin(); }
};

/// The splits every test walks: equal parts (n not divisible by P), random
/// parts with empty ranks, everything on the last rank.
inline std::vector<split> splits(std::size_t n, std::uint64_t seed) {
  const std::size_t p = static_cast<std::size_t>(world_size());
  std::vector<split> out;
  split even{"even", {0}};
  for (std::size_t r = 1; r <= p; ++r) even.start.push_back(n * r / p);
  out.push_back(even);
  split uneven{"uneven with empty ranks", {0}};
  std::mt19937_64 gen(seed);
  std::vector<std::size_t> cuts;
  for (std::size_t r = 1; r < p; ++r) cuts.push_back(r % 2 == 1 ? std::uniform_int_distribution<std::size_t>(0, n)(gen) : cuts.empty() ? 0 : cuts.back());
  std::sort(cuts.begin(), cuts.end());
  for (auto c : cuts) uneven.start.push_back(c);
  uneven.start.push_back(n);
  out.push_back(uneven);
  split last{"all on the last rank", std::vector<std::size_t>(p, 0)};
  last.start.push_back(n);
  out.push_back(last);
  return out;
}

/// x[s.begin(), s.end()).
template <class T>
std::vector<T> slice(const std::vector<T>& x, const split& s) {
  return std::vector<T>(x.begin() + static_cast<std::ptrdiff_t>(s.begin()),
                        x.begin() + static_cast<std::ptrdiff_t>(s.end()));
}

/// x[b, e).
template <class T>
std::vector<T> slice(const std::vector<T>& x, std::size_t b, std::size_t e) {
  return std::vector<T>(x.begin() + static_cast<std::ptrdiff_t>(b), x.begin() + static_cast<std::ptrdiff_t>(e));
}

/// True on every rank when `text` is the same on every rank.
inline bool same_on_all_ranks(const std::string& text) {
  long long len = static_cast<long long>(text.size());
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string root(static_cast<std::size_t>(len), '\0');
  if (world_rank() == 0) root = text;
  MPI_Bcast(root.data(), static_cast<int>(len), MPI_CHAR, 0, MPI_COMM_WORLD);
  int mine = root == text ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

/// True on every rank when `ok` holds on every rank.
inline bool on_all_ranks(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

/// `f` threw on this rank, its message names `part`, and every rank got
/// the same message.
template <class F>
void expect_agreed_error(F&& f, const std::string& part) {
  const std::string message = thrown(f);
  CAPTURE(message);
  CHECK(message != nothing_thrown);
  CHECK(contains(message, part));
  CHECK(same_on_all_ranks(message));
}

}  // namespace sweep_test
