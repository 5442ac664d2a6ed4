// The scan algorithm list: one entry per algorithm of sweep::scan_algorithm
// (automatic is the backend's choice and has no entry). An entry names the
// algorithm, says how it runs segmented scans, and runs it on a scan io
// (detail/scan_io.hpp: plain, backward and lifted segmented problems look
// alike). Dispatch, the public list sweep::scan_algorithms and the
// segmented scans' refusals all come from scan_algorithm_list.
#pragma once

#include <sweep/scan_options.hpp>
#include <sweep/tuning.hpp>
#include <sweep/detail/scan_backend.hpp>
#include <sweep/detail/scan_blelloch.hpp>
#include <sweep/detail/scan_brent_kung.hpp>
#include <sweep/detail/scan_chunked.hpp>
#include <sweep/detail/scan_hillis_steele.hpp>
#include <sweep/detail/scan_sequential.hpp>
#include <sweep/detail/scan_single_pass.hpp>
#include <sweep/detail/scan_tiled.hpp>
#include <sweep/detail/segmented_blelloch.hpp>

#include <array>
#include <string>

namespace sweep::detail {

template <class... Entries>
struct algorithm_list {};

/// Elements per single_pass chunk on ExecSpace for values of type T.
template <class ExecSpace, class T>
index_t default_chunk_elements() {
  const index_t e = static_cast<index_t>(tuning<ExecSpace>::scan::chunk_bytes / sizeof(T));
  return e < 256 ? 256 : e;
}

struct sequential_entry {
  static constexpr scan_algorithm id = scan_algorithm::sequential;
  static constexpr const char* name = "sequential";
  static constexpr segmented_form segmented = segmented_form::lifted;
  template <class ExecSpace, class IO, class T>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options&,
               const std::string& label) {
    return scan_sequential(space, io, init, exclusive, label);
  }
};

struct hillis_steele_entry {
  static constexpr scan_algorithm id = scan_algorithm::hillis_steele;
  static constexpr const char* name = "hillis_steele";
  static constexpr segmented_form segmented = segmented_form::lifted;
  template <class ExecSpace, class IO, class T>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options&,
               const std::string& label) {
    return scan_hillis_steele(space, io, init, exclusive, label);
  }
};

struct blelloch_entry {
  static constexpr scan_algorithm id = scan_algorithm::blelloch;
  static constexpr const char* name = "blelloch";
  static constexpr segmented_form segmented = segmented_form::own;
  template <class ExecSpace, class IO, class T>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options&,
               const std::string& label) {
    return scan_blelloch(space, io, init, exclusive, label);
  }
  /// Segmented scans: flag propagation through the same tree.
  template <class ExecSpace, class IO>
  static void run_segmented(const ExecSpace& space, const IO& io, const std::string& label) {
    segmented_scan_blelloch(space, io, label);
  }
};

struct brent_kung_entry {
  static constexpr scan_algorithm id = scan_algorithm::brent_kung;
  static constexpr const char* name = "brent_kung";
  static constexpr segmented_form segmented = segmented_form::lifted;
  template <class ExecSpace, class IO, class T>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options&,
               const std::string& label) {
    return scan_brent_kung(space, io, init, exclusive, label);
  }
};

struct tiled_entry {
  static constexpr scan_algorithm id = scan_algorithm::tiled;
  static constexpr const char* name = "tiled";
  static constexpr segmented_form segmented = segmented_form::none;
  template <class ExecSpace, class IO, class T>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options& opt,
               const std::string& label) {
    return scan_tiled(space, io, init, exclusive, opt.tile_size > 0 ? opt.tile_size : tuning<ExecSpace>::scan::tile_size,
                      label);
  }
};

struct chunked_entry {
  static constexpr scan_algorithm id = scan_algorithm::chunked;
  static constexpr const char* name = "chunked";
  static constexpr segmented_form segmented = segmented_form::none;
  template <class ExecSpace, class IO, class T>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options&,
               const std::string& label) {
    return scan_chunked(space, io, init, exclusive, label);
  }
};

struct single_pass_entry {
  static constexpr scan_algorithm id = scan_algorithm::single_pass;
  static constexpr const char* name = "single_pass";
  static constexpr segmented_form segmented = segmented_form::lifted;
  /// The total goes to `sink` (detail/look_back.hpp) straight from the
  /// tile states: to a device View without a host sync.
  template <class ExecSpace, class IO, class T, class Sink = total_on_host>
  static T run(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options& opt,
               const std::string& label, const Sink& sink = Sink{}) {
    const index_t chunk = opt.chunk_size > 0 ? opt.chunk_size : default_chunk_elements<ExecSpace, T>();
    return scan_single_pass(space, io, init, exclusive, chunk,
                            scan_backend<ExecSpace>::chunk_kernels(space, io, chunk), label, sink);
  }
};

/// The algorithms, in the order of the public list.
using scan_algorithm_list = algorithm_list<sequential_entry, hillis_steele_entry, blelloch_entry, brent_kung_entry,
                                           tiled_entry, chunked_entry, single_pass_entry>;

template <class... Entries>
constexpr auto algorithm_infos(algorithm_list<Entries...>) {
  return std::array<scan_algorithm_info, 1 + sizeof...(Entries)>{
      scan_algorithm_info{scan_algorithm::automatic, "automatic", segmented_form::lifted},
      scan_algorithm_info{Entries::id, Entries::name, Entries::segmented}...};
}

/// Runs algorithm `a` (not automatic) of the list on io; with Lifted, only
/// the entries that run lifted segmented scans are candidates. Returns
/// false when no entry matched (the caller's checks prevent it).
/// The total goes to `sink`: through an entry's own sink parameter where it
/// has one (single_pass), else from the host value it returns.
template <bool Lifted, class ExecSpace, class IO, class T, class Sink, class... Entries>
bool run_listed(algorithm_list<Entries...>, scan_algorithm a, const ExecSpace& space, const IO& io, const T& init,
                bool exclusive, const scan_options& opt, const std::string& label, const Sink& sink, T& total) {
  auto one = [&](auto entry) {
    using E = decltype(entry);
    if constexpr (Lifted && E::segmented != segmented_form::lifted) {
      return false;
    } else {
      if (a != E::id) return false;
      if constexpr (requires { E::template run<ExecSpace>(space, io, init, exclusive, opt, label, sink); })
        total = E::template run<ExecSpace>(space, io, init, exclusive, opt, label, sink);
      else
        total = sink.put(space, E::template run<ExecSpace>(space, io, init, exclusive, opt, label));
      return true;
    }
  };
  return (one(Entries{}) || ...);
}

/// Runs the segmented algorithm of its own of entry `a` on a segmented io;
/// false when `a` has none.
template <class ExecSpace, class IO, class... Entries>
bool run_own_segmented(algorithm_list<Entries...>, scan_algorithm a, const ExecSpace& space, const IO& io,
                       const std::string& label) {
  auto one = [&](auto entry) {
    using E = decltype(entry);
    if constexpr (E::segmented != segmented_form::own) {
      return false;
    } else {
      if (a != E::id) return false;
      E::run_segmented(space, io, label);
      return true;
    }
  };
  return (one(Entries{}) || ...);
}

/// Runs opt.algorithm on io; with Lifted, io is a lifted segmented problem
/// and only the entries that run lifted are candidates. The total goes to
/// `sink` (returned by default; detail/look_back.hpp).
template <bool Lifted = false, class ExecSpace, class IO, class T, class Sink = total_on_host>
T run_scan_io(const ExecSpace& space, const IO& io, const T& init, bool exclusive, const scan_options& opt,
              const std::string& label, const Sink& sink = Sink{}) {
  using backend = scan_backend<ExecSpace>;
  scan_algorithm algorithm = opt.algorithm;
  if (algorithm == scan_algorithm::automatic) {
    if constexpr (backend::own_automatic)
      return backend::template automatic<Lifted>(space, io, init, exclusive, opt, label, sink);
    algorithm = backend::resolve(io.n);
  }
  T total = init;
  run_listed<Lifted>(scan_algorithm_list{}, algorithm, space, io, init, exclusive, opt, label, sink, total);
  return total;
}

}  // namespace sweep::detail
