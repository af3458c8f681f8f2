/* symprog.c: a small program whose samples land in named functions. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf_work(unsigned long n){
  unsigned long s = 0, i;
  for(i=0; i<n; i++) s += i*i ^ (s >> 3);
  return s;
}

__attribute__((noinline)) unsigned long fib(unsigned n){
  if( n<2 ) return leaf_work(2000);
  return fib(n-1) + fib(n-2);
}

__attribute__((noinline)) void spin(unsigned long n){
  sink += leaf_work(n);
}

int main(int argc, char **argv){
  int i, rounds = argc>1 ? atoi(argv[1]) : 20;
  for(i=0; i<rounds; i++){
    sink += fib(12);
    spin(400000);
  }
  printf("%lu\n", sink);
  return 0;
}
