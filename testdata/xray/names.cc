// A C++ program for XRay name tests: every kind of name llvm-xray
// demangles (templates, lambdas, namespaces, static functions, operators,
// constructors and destructors, const members, the anonymous namespace)
// called on three threads.
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
#include <map>
#include <string>
#include <cstdint>
#include <pthread.h>
#include <vector>

volatile long sink;

namespace geo {
struct Vec {
  long x, y;
  Vec(long a, long b) : x(a), y(b) { sink = a; }
  ~Vec() { sink = x; }
  Vec operator+(const Vec &o) const { return Vec(x + o.x, y + o.y); }
  bool operator<(const Vec &o) const { return x < o.x; }
  long dot(const Vec &o) const { return x * o.x + y * o.y; }
  static long origin() { return 0; }
};
template <typename T, int N> struct Box {
  T v[N];
  T sum() const {
    T s{};
    for (int i = 0; i < N; i++) s = s + v[i];
    return s;
  }
};
} // namespace geo

namespace {
long hidden(long x) { return x * 7; }
struct Counter {
  std::map<int, std::vector<long>> m;
  void add(int k, long v) { m[k].push_back(v); }
};
} // namespace

static long worker(int id, long n) {
  long r = 0;
  for (long i = 0; i < n; i++) {
    geo::Vec a(i, id), b(id, i);
    geo::Vec c = a + b;
    r += c.dot(a) + (a < b) + geo::Vec::origin();
  }
  return r + hidden(id);
}

template <typename F> long apply(F f, int k) { return f(k); }
template <typename... Ts> long count_args(Ts... ts) { return sizeof...(ts); }
template <typename A, typename B> struct Pair {
  A a; B b;
  template <typename C> C as() const { return C(a) + C(b); }
};

long templates(int id) {
  geo::Box<long, 3> bl{{1, 2, 3}};
  geo::Box<double, 2> bd{{1.5, 2.5}};
  Pair<int, std::map<int, std::vector<long>>::size_type> p{id, 2};
  Counter cnt;
  cnt.add(id, 1);
  long r = bl.sum() + (long)bd.sum() + p.as<long>() + count_args() + count_args(1, 2.0);
  auto sq = [](int k) { return (long)k * k; };
  auto add = [id](int k) { return (long)k + id; };
  r += apply(sq, id) + apply(add, id);
  std::string s = std::to_string(r);
  return r + (long)s.size();
}

void thread_main(int id) {
  sink = worker(id, 2);
  sink = templates(id);
}

// Ends the log from inside run_all and itself: neither call returns
// before the flush, so both stay open in the log, with the calls that
// finished inside run_all.
void flush_log() {
  __xray_unpatch();
  __xray_log_finalize();
  __xray_log_flushLog();
}

void run_all() {
  thread_main(2);
  flush_log();
}

// One thread at a time and nothing recorded on the main thread meanwhile,
// so that the log's buffers are in time order, as llvm-xray account wants
// them. Not instrumented, and pthread's rather than std::thread's
// (whose template code would be).
static void *thread_entry(void *p) {
  thread_main((int)(intptr_t)p);
  return nullptr;
}
[[clang::xray_never_instrument]] static void run_thread(int id) {
  pthread_t t;
  pthread_create(&t, nullptr, thread_entry, (void *)(intptr_t)id);
  pthread_join(t, nullptr);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "xray-fdr";
  __xray_log_select_mode(mode);
  __xray_log_init_mode(mode, "");
  __xray_patch();
  run_thread(0);
  run_thread(1);
  run_all();
  return 0;
}
