/*
** marker.c: one program seen by two tracers at once, for the clock=
** alignment test. Each of N rounds marks the same instant twice, back to
** back: the LTTng-UST tracepoint tl:tick (n = the round) and the getppid
** system call, which `perf record -e syscalls:sys_enter_getppid` sees.
** Built with -finstrument-functions, so that with
** liblttng-ust-cyg-profile.so preloaded each call of work() is a
** func_entry/func_exit pair in the CTF trace.
*/
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tl_tp.h"

static volatile long nSink;

/* A little work between the marks, as a function the profiler sees. */
__attribute__((noinline)) static void work(int n){
  long i;
  for(i=0; i<20000L*(n%4+1); i++) nSink += i;
}

int main(int argc, char **argv){
  int i, n = argc>1 ? atoi(argv[1]) : 20;
  for(i=0; i<n; i++){
    lttng_ust_tracepoint(tl, tick, i);
    syscall(SYS_getppid);
    work(i);
    usleep(1000);
  }
  return 0;
}
