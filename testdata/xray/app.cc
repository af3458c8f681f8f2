// A small program for XRay test logs: recursion, an argument, a tail call,
// a custom event, work on two threads.
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
#include <cstdio>
#include <cstring>
#include <thread>

[[gnu::noinline, clang::xray_always_instrument]] int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
[[gnu::noinline, clang::xray_always_instrument, clang::xray_log_args(1)]] long with_arg(long x) {
  return x * 3;
}
[[gnu::noinline, clang::xray_always_instrument]] int leaf() { return 7; }
[[gnu::noinline, clang::xray_always_instrument]] int tail_caller(int i) {
  if (i > 0) return leaf();
  return 0;
}
[[gnu::noinline, clang::xray_always_instrument]] void custom(int i) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, "custom-event-%d", i);
  __xray_customevent(buf, n);
}
volatile long sink;  // keeps the calls from being optimised away

[[gnu::noinline, clang::xray_always_instrument]] void worker(int id) {
  for (int i = 0; i < 3; i++) {
    sink = fib(3 + id);
    sink = with_arg(id * 100 + i);
    sink = tail_caller(i);
  }
  custom(id);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "xray-fdr";
  const char *cfg = argc > 2 ? argv[2] : "";
  __xray_log_select_mode(mode);
  __xray_log_init_mode(mode, cfg);
  __xray_patch();
  std::thread t0(worker, 0);
  t0.join();
  std::thread t1(worker, 1), t2(worker, 2);
  t1.join();
  t2.join();
  __xray_unpatch();
  __xray_log_finalize();
  __xray_log_flushLog();
  return 0;
}
