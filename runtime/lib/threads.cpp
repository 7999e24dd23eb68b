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
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace mixrt {
namespace {

class ThreadPool {
public:
  /// Starts `workers` threads; throws std::system_error if one cannot start
  /// (the ones started are joined).
  explicit ThreadPool(int workers) {
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
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      context_ = context;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      active_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    wake_.notify_all();
    runItems();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return active_ == 0; });
  }

  /// Takes items until none is left.
  void runItems() {
    for (int64_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
         i = next_.fetch_add(1, std::memory_order_relaxed))
      task_(context_, i, i + 1);
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_)
          return;
        seen = generation_;
      }
      runItems();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--active_ == 0)
        done_.notify_one();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : threads_)
      t.join();
    threads_.clear();
  }

  std::mutex busy_;  // held by the loop that owns the workers
  std::mutex mutex_; // guards the fields below but next_
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  mixrt_parallel_task task_ = nullptr;
  void *context_ = nullptr;
  int64_t count_ = 0;
  std::atomic<int64_t> next_{0};
  int active_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
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
