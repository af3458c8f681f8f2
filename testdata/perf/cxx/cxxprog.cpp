// cxxprog.cpp: C++ functions whose mangled names perf demangles: a class
// template in nested namespaces, a lambda, a static function, a function
// in an anonymous namespace, a constructor, an operator, and a std::thread.
// Each spins for a while so that samples land in it.
#include <cstdlib>
#include <thread>

static volatile unsigned long sink;
static long rounds = 1;

/* a busy loop in the body of the function that runs it */
#define SPIN(n) for(long i_ = 0; i_ < (n) * rounds; i_++) sink = sink + (unsigned long)i_

namespace outer { namespace inner {
template<typename T, int N> struct Matrix {
  T a[N];
  __attribute__((noinline)) T trace_sum(int k) const {
    T s = 0;
    for(long r = 0; r < 2000000L * rounds; r++) s += a[(r + k) % N];
    return s;
  }
};
} }

namespace {
__attribute__((noinline)) int anon_work(int x){ SPIN(1000000); return x + 1; }
}

__attribute__((noinline)) static int static_spin(int x){ SPIN(1000000); return x * 2; }

struct Counter {
  long v;
  __attribute__((noinline)) explicit Counter(long x) : v(x) { SPIN(1000000); }
  __attribute__((noinline)) Counter &operator+=(long d){ SPIN(1000000); v += d; return *this; }
};

__attribute__((noinline)) static void thread_body(int n){ SPIN(1000000L * n); }

int main(int argc, char **argv){
  if( argc > 1 ) rounds = std::atol(argv[1]);
  outer::inner::Matrix<double, 16> m{};
  sink = (unsigned long)m.trace_sum(3);
  auto lambda = [](int k) __attribute__((noinline)) { SPIN(1000000L * k); return k; };
  sink = sink + (unsigned long)lambda(1);
  sink = sink + (unsigned long)anon_work(1);
  sink = sink + (unsigned long)static_spin(1);
  Counter c(1);
  c += 2;
  std::thread t(thread_body, 1);
  t.join();
  return c.v == 0;
}
