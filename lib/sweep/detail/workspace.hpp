// Temporary storage reused across calls (CUB's temp storage, kept by the
// library): per memory space, a small pool of byte buffers, each grown on
// demand. A call leases one buffer for its duration, so calls running at
// the same time (different host threads, different instances) get
// different buffers; the buffers live until Kokkos::finalize, so repeated
// calls allocate nothing. Only what is small next to the data is kept this
// way: what scales with n / tile (the look-back tile states, the tiled and
// chunked scans' tile totals, the totals the look-back, tiled, chunked and
// sequential scans return, radix sort's digit counts and its host scatter's
// staging buffers (a few KiB per thread), the per-block set-bit
// counts a bitmask index build scans) and the head bits segment offsets
// convert to (n / 8 bytes). n-sized temporaries (radix sort's keys and
// values, the classic scans' trees, a segmented reduction's list of
// non-empty segments) are still allocated per call, so a large sort does
// not pin its memory for the rest of the run.
//
// A lease may be returned while kernels that use it are still queued (a
// call that writes its total to a device View and does not fence, or one
// that failed after queueing work): it is returned pending, and whoever
// leases that buffer next fences first (Kokkos::fence(): the caller's
// instance may be gone by then, its stream destroyed). A new lease
// prefers a buffer with nothing pending, and the pool adds buffers (up to
// max_buffers) before it fences one, so calls queued back to back on one
// stream do not wait for each other.
#pragma once

#include <sweep/core.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace sweep::detail {

/// Runs `f` at the start of Kokkos::finalize (Kokkos::push_finalize_hook,
/// whose list has no lock of its own, so every Sweep registration goes
/// through this one mutex).
inline void on_finalize(std::function<void()> f) {
  static std::mutex lock;
  const std::lock_guard<std::mutex> guard(lock);
  Kokkos::push_finalize_hook(std::move(f));
}

template <class Mem>
class workspace_pool {
 public:
  /// Buffers the pool holds before a lease waits on a pending one.
  static constexpr std::size_t max_buffers = 8;

  struct buffer {
    Kokkos::View<unsigned char*, Mem> bytes;
    bool leased = false;
    std::function<void()> pending;  // fences the instance that may still use it
  };

  /// What the pool holds (for tests and diagnostics).
  struct state {
    std::size_t buffers = 0, bytes = 0, pending = 0, leases = 0;  // leases: acquisitions so far
    bool operator==(const state&) const = default;
  };

  /// The pool of Mem (made on first use, emptied at Kokkos::finalize).
  /// Never destroyed: a program that leaves Kokkos::finalize to its exit
  /// handlers runs the emptying hook after static objects made later than
  /// Kokkos::initialize are gone.
  static workspace_pool& get() {
    static workspace_pool* const pool = new workspace_pool();
    return *pool;
  }

  /// A buffer of at least `size` bytes, leased to the caller until
  /// release(). In order of preference: a free buffer with nothing pending
  /// that is large enough; one with nothing pending, regrown; a new one
  /// while the pool has fewer than max_buffers; a free pending one, after
  /// fencing its instance.
  buffer* acquire(std::size_t size) {
    buffer* pick = nullptr;
    std::function<void()> wait;
    {
      const std::lock_guard<std::mutex> guard(lock_);
      if (!hooked_) {
        on_finalize([] { get().clear(); });
        hooked_ = true;
      }
      int best = -1;  // 3: idle and large enough, 2: idle, 1: pending and large enough, 0: pending
      for (auto& b : buffers_) {
        if (b->leased) continue;
        const int score = 2 * int(!b->pending) + int(b->bytes.extent(0) >= size);
        if (score > best) best = score, pick = b.get();
      }
      if (best < 2 && buffers_.size() < max_buffers) {
        buffers_.push_back(std::make_unique<buffer>());
        pick = buffers_.back().get();
      }
      if (pick == nullptr) {  // every buffer leased: a new one beyond the cap
        buffers_.push_back(std::make_unique<buffer>());
        pick = buffers_.back().get();
      }
      pick->leased = true;
      wait = std::move(pick->pending);
      pick->pending = nullptr;
      ++leases_;
    }
    try {
      if (wait) wait();
      if (pick->bytes.extent(0) < size) {
        Kokkos::View<unsigned char*, Mem> grown(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("sweep::workspace")), size);
        const std::lock_guard<std::mutex> guard(lock_);
        pick->bytes = std::move(grown);
      }
    } catch (...) {
      release(pick, nullptr);
      throw;
    }
    return pick;
  }

  /// Returns a leased buffer; `pending` (may be empty) fences the work
  /// still queued on it.
  void release(buffer* b, std::function<void()> pending) {
    const std::lock_guard<std::mutex> guard(lock_);
    b->pending = std::move(pending);
    b->leased = false;
  }

  /// Fences every instance a free buffer is pending on (then nothing is).
  void settle() {
    std::vector<std::function<void()>> waits;
    {
      const std::lock_guard<std::mutex> guard(lock_);
      for (auto& b : buffers_)
        if (!b->leased && b->pending) waits.push_back(std::exchange(b->pending, nullptr));
    }
    for (auto& w : waits) w();
  }

  state footprint() {
    const std::lock_guard<std::mutex> guard(lock_);
    state s;
    s.buffers = buffers_.size();
    s.leases = leases_;
    for (const auto& b : buffers_) {
      s.bytes += b->bytes.extent(0);
      s.pending += b->pending ? 1 : 0;
    }
    return s;
  }

 private:
  void clear() {
    std::vector<std::unique_ptr<buffer>> old;
    {
      const std::lock_guard<std::mutex> guard(lock_);
      old.swap(buffers_);
      hooked_ = false;
    }
    for (auto& b : old)
      if (b->pending) b->pending();
  }

  std::mutex lock_;
  std::vector<std::unique_ptr<buffer>> buffers_;
  std::size_t leases_ = 0;
  bool hooked_ = false;
};

/// One call's lease of a workspace buffer of Mem. take<T>(count) hands out
/// consecutive 64-byte-aligned pieces of it. Returned when destroyed: free
/// at once, or, after release_after(space) and until settled(), with that
/// instance to fence.
template <class Mem>
class workspace_lease {
 public:
  explicit workspace_lease(std::size_t size) : buffer_(workspace_pool<Mem>::get().acquire(size)), size_(size) {}
  workspace_lease(const workspace_lease&) = delete;
  workspace_lease& operator=(const workspace_lease&) = delete;
  workspace_lease(workspace_lease&& other) noexcept
      : buffer_(std::exchange(other.buffer_, nullptr)), size_(other.size_), used_(other.used_),
        pending_(std::move(other.pending_)) {}
  workspace_lease& operator=(workspace_lease&&) = delete;
  ~workspace_lease() {
    if (buffer_ != nullptr) workspace_pool<Mem>::get().release(buffer_, std::move(pending_));
  }

  /// The bytes a piece of `bytes` takes: rounded up to 64.
  static constexpr std::size_t piece(std::size_t bytes) { return (bytes + 63) / 64 * 64; }

  /// The next `count` elements of T (64-byte aligned), uninitialised.
  template <class T>
  T* take(std::size_t count) {
    static_assert(alignof(T) <= 64, "workspace pieces are 64-byte aligned");
    const std::size_t bytes = piece(count * sizeof(T));
    require(used_ + bytes <= size_, "sweep::detail::workspace_lease", "a piece of ", bytes, " bytes at ", used_,
            " does not fit the ", size_, " leased");
    T* out = reinterpret_cast<T*>(buffer_->bytes.data() + used_);
    used_ += bytes;
    return out;
  }

  /// take<T>(count) as an unmanaged View.
  template <class T>
  Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged> view(std::size_t count) {
    return Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged>(take<T>(count), count);
  }

  /// One T as an unmanaged rank-0 View.
  template <class T>
  Kokkos::View<T, Mem, Kokkos::MemoryUnmanaged> scalar() {
    return Kokkos::View<T, Mem, Kokkos::MemoryUnmanaged>(take<T>(1));
  }

  /// The whole lease as one unmanaged byte View (to zero it on an instance).
  Kokkos::View<unsigned char*, Mem, Kokkos::MemoryUnmanaged> bytes() const {
    return Kokkos::View<unsigned char*, Mem, Kokkos::MemoryUnmanaged>(buffer_->bytes.data(), size_);
  }

  /// Work queued on `space` may use the lease: unless settled() is called
  /// (after a fence of `space`), the next user fences first. That fence is
  /// Kokkos::fence() (every instance), not a fence of a kept copy of
  /// `space`: the instance may be built on a stream its owner destroys
  /// before the buffer is leased again or the pool is emptied at finalize.
  template <class ExecSpace>
  void release_after(const ExecSpace&) {
    pending_ = [] { Kokkos::fence(); };
  }

  /// The queued work is known to be done (the caller fenced its instance).
  void settled() { pending_ = nullptr; }

 private:
  typename workspace_pool<Mem>::buffer* buffer_;
  std::size_t size_;
  std::size_t used_ = 0;
  std::function<void()> pending_;
};

}  // namespace sweep::detail
