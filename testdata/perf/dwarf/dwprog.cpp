// C++: templates, a lambda, a class method, std::thread, calling into a
// shared library; inlined at -O2.
#include <cstdlib>
#include <thread>
#include <vector>

extern "C" unsigned long dw_lib_work(unsigned long n);

namespace dw {
template<typename T> struct Acc {
  T v = 0;
  void add(T x){ v = v*31 + x; }
  T run(unsigned long n){
    for(unsigned long i=0; i<n; i++) add((T)(i ^ (v >> 5)));
    return v;
  }
};

static unsigned long spin(unsigned long n){
  Acc<unsigned long> a;
  return a.run(n) + dw_lib_work(n/4);
}

class Runner {
public:
  explicit Runner(unsigned long n) : n_(n) {}
  unsigned long go(){
    unsigned long t = 0;
    auto step = [this](unsigned long k){ return spin(n_ + k); };
    for(unsigned long k=0; k<40; k++) t += step(k);
    return t;
  }
private:
  unsigned long n_;
};
}

int main(int argc, char **argv){
  unsigned long n = argc>1 ? std::strtoul(argv[1], 0, 10) : 100000;
  std::vector<std::thread> v;
  volatile unsigned long sink = 0;
  for(int i=0; i<2; i++) v.emplace_back([n, &sink]{ dw::Runner r(n); sink = sink + r.go(); });
  dw::Runner r(n/2);
  sink = sink + r.go();
  for(auto &t : v) t.join();
  return 0;
}
