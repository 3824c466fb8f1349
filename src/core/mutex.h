#pragma once

// A mutex the compiler checks: clang's thread-safety analysis (-Wthread-safety) knows which data
// each Mutex guards (GUARDED_BY), which functions must hold it (REQUIRES), and proves every read
// and write of guarded data happens under its lock. libstdc++'s std::mutex carries no such
// annotations, so Mutex wraps it. The build's compiler (GCC) ignores the attributes; the
// `lint.thread_safety` test (tools/thread_safety.sh) compiles every file that includes this
// header with clang and the analysis on, warnings as errors.
//
//   class Ledger {
//     mutable Mutex mutex_;
//     std::vector<Entry> entries_ GUARDED_BY(mutex_);
//   };
//   MutexLock lock(mutex_);  // entries_ readable and writable until `lock` ends.
//
// A condition variable waits on a MutexLock through std::condition_variable_any.

#include <mutex>

#if defined(__clang__)
#define ADX_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ADX_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) ADX_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY ADX_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) ADX_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) ADX_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) ADX_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) ADX_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) ADX_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) ADX_THREAD_ANNOTATION(release_capability(__VA_ARGS__))

namespace adaexplore {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mutex_.lock(); }
  void unlock() RELEASE() { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

// Holds a Mutex for its scope. lock() and unlock() let a condition variable (any) release it
// while it waits.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : mutex_(mutex) { mutex_.lock(); }
  ~MutexLock() RELEASE() { mutex_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void lock() ACQUIRE() { mutex_.lock(); }
  void unlock() RELEASE() { mutex_.unlock(); }

 private:
  Mutex& mutex_;
};

}  // namespace adaexplore
