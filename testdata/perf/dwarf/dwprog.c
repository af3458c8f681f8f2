/* C: a main thread and two threads calling through a few frames, some
** static (inlined at -O2), into a shared library and back. */
#include <pthread.h>
#include <stdlib.h>

unsigned long dw_lib_work(unsigned long n);
unsigned long dw_lib_call(unsigned long (*pFn)(unsigned long), unsigned long n);

static unsigned long leaf(unsigned long n){
  volatile unsigned long x = 0;
  unsigned long i;
  for(i=0; i<n; i++) x += i ^ (x >> 3);
  return x;
}

static unsigned long middle(unsigned long n){
  return leaf(n) + dw_lib_work(n/2);
}

unsigned long callback(unsigned long n){
  return middle(n);
}

static void *worker(void *arg){
  unsigned long n = (unsigned long)arg, k, t = 0;
  for(k=0; k<40; k++) t += dw_lib_call(callback, n);
  return (void*)t;
}

int main(int argc, char **argv){
  unsigned long n = argc>1 ? strtoul(argv[1], 0, 10) : 100000;
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void*)n);
  pthread_create(&b, 0, worker, (void*)(n/2));
  worker((void*)(n/4));
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
