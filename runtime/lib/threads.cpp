//===-- threads.cpp - the thread pool of the GEMM microkernels ------------===//
//
// mixrt_set_num_threads: a pool of n - 1 workers that runs the parallel
// loops of the core's microkernels (mixrt_ukernel_set_parallel) together
// with the calling thread. One loop at a time; a loop started while another
// runs executes on its caller alone (results do not depend on who runs a
// part).
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include "mixrt/ukernel.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif

namespace mixrt {
namespace {

/// How long a worker waiting for the next loop, and the caller waiting for
/// the workers, spin before they block on a condition variable. Waking a
/// blocked thread costs a system call and, on a virtual machine, an
/// inter-processor interrupt the hypervisor delivers: about 30 us per loop
/// on the 2-vCPU machines (a 2^20 multiply-add GEMM called with a gap after
/// each call: 55 us per call on one thread, 83 on two blocking, 50 on two
/// spinning), more than many of the layers the loops split save (an int8
/// MobileNet-V2 stack ran 1.4x slower on 2 threads than on one). A network
/// calls one loop after another, with its single-threaded code between;
/// spinning across those gaps keeps the workers awake for the whole call.
/// MIXRT_SPIN_US (0 to 100000) overrides the default; with more threads than
/// CPUs the default is 0 (a spinning worker would take the CPU of the thread it
/// waits for).
constexpr int64_t kDefaultSpinMicros = 1000;

int64_t spinMicros(int threads) {
  if (const char *env = std::getenv("MIXRT_SPIN_US")) {
    char *end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && v >= 0 && v <= 100000)
      return v;
  }
  int cpus = static_cast<int>(std::thread::hardware_concurrency());
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    cpus = CPU_COUNT(&set);
#endif
  return cpus > 0 && threads > cpus ? 0 : kDefaultSpinMicros;
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Spins until `done()` or `micros` have passed; returns done().
template <class Done> bool spinUntil(int64_t micros, Done done) {
  if (micros <= 0)
    return done();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done())
        return true;
      cpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return done();
  }
}

class ThreadPool {
public:
  /// Starts `workers` threads; throws std::system_error if one cannot start
  /// (the ones started are joined).
  explicit ThreadPool(int workers) : spin_(spinMicros(workers + 1)) {
    try {
      for (int i = 0; i < workers; ++i)
        threads_.emplace_back([this] { work(); });
    } catch (...) {
      stop();
      throw;
    }
  }
  ~ThreadPool() { stop(); }

  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  static void parallelFor(void *pool, int64_t count, mixrt_parallel_task task,
                          void *context) {
    static_cast<ThreadPool *>(pool)->run(count, task, context);
  }

private:
  void run(int64_t count, mixrt_parallel_task task, void *context) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) {
      task(context, 0, count);
      return;
    }
    {
      // The fields are read by workers only after they see the new
      // generation (release/acquire), and written again only after every
      // worker has counted itself out of active_.
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      context_ = context;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      active_.store(static_cast<int>(threads_.size()),
                    std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all(); // no system call when every worker spins
    runItems();
    if (spinUntil(spin_, [this] { return allDone(); }))
      return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return allDone(); });
  }

  bool allDone() const { return active_.load(std::memory_order_acquire) == 0; }

  /// Takes items until none is left.
  void runItems() {
    for (int64_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
         i = next_.fetch_add(1, std::memory_order_relaxed))
      task_(context_, i, i + 1);
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      auto ready = [&] {
        return stopping_.load(std::memory_order_acquire) ||
               generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spinUntil(spin_, ready)) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, ready);
      }
      if (stopping_.load(std::memory_order_acquire))
        return;
      seen = generation_.load(std::memory_order_acquire);
      runItems();
      if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Under the mutex: the caller either saw active_ == 0 or is
        // already waiting on done_.
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread &t : threads_)
      t.join();
    threads_.clear();
  }

  const int64_t spin_; // microseconds to spin before blocking
  std::mutex busy_;    // held by the loop that owns the workers
  std::mutex mutex_;   // pairs with the condition variables
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  mixrt_parallel_task task_ = nullptr;
  void *context_ = nullptr;
  int64_t count_ = 0;
  std::atomic<int64_t> next_{0};
  std::atomic<int> active_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
};

std::mutex poolMutex;
std::unique_ptr<ThreadPool> pool;

} // namespace
} // namespace mixrt

extern "C" mixrt_status_code mixrt_set_num_threads(int32_t n) {
  using namespace mixrt;
  return detail::guardC([&]() -> absl::Status {
    if (n < 1 || n > 256)
      return detail::invalidArgument("set_num_threads: n (", n,
                                     ") is outside [1, 256]");
    std::lock_guard<std::mutex> lock(poolMutex);
    std::unique_ptr<ThreadPool> next;
    if (n > 1) {
      try {
        next = std::make_unique<ThreadPool>(n - 1);
      } catch (const std::system_error &e) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "set_num_threads: cannot start ", n - 1, " threads: ", e.what()));
      }
    }
    mixrt_ukernel_set_parallel(next ? &ThreadPool::parallelFor : nullptr,
                               next.get(), n);
    pool = std::move(next); // the old pool's workers are joined here
    return absl::OkStatus();
  });
}
