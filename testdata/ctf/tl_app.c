/*
** tl_app.c: emits the "tl" tracepoints for the CTF test traces.
**   tl_app N    N rounds on two threads, each pinned to one CPU (0 and 1
**               when the machine has them), so streams of both CPUs exist
** Each round: one tl:ints, one tl:mixed, one tl:tick. The values are
** functions of the round number (see tl_tp.h), including a negative
** int8, a uint64 above INT64_MAX, an empty string and empty sequences.
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl_tp.h"

static int nRound = 10;
static int bBurst = 0;                /* no pause between rounds: the buffers overflow */

static void *worker(void *pArg){
  int cpu = (int)(intptr_t)pArg, i;
  cpu_set_t set;
  static const char *const azWord[] = { "", "ab", "hello", "x\"y\\z", "tracelite" };
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof(set), &set);
  for(i=0; i<nRound; i++){
    int32_t arr[4] = { i, -i, i*i, 7 };
    /* the empty string only in the first round: babeltrace2 2.0.4 prints a
    ** stale value for an empty string that follows a non-empty one */
    const char *s = i==0 ? azWord[0] : azWord[1 + i % 4];
    char t[8] = { 0 };                /* s padded with NULs: text4 reads 4 bytes */
    size_t n = (size_t)(i % 4);
    snprintf(t, sizeof(t), "%s", s);
    lttng_ust_tracepoint(tl, ints, i, UINT64_C(0xF000000000000000) + (uint64_t)i);
    /* seqtext is never empty: babeltrace2 2.0.4 prints a stale value for an
    ** empty text sequence that follows a non-empty one */
    lttng_ust_tracepoint(tl, mixed, i, s, t, arr, n, 1 + (size_t)(i % 3));
    lttng_ust_tracepoint(tl, tick, i + 1000*cpu);
    if( !bBurst ) usleep(200);
  }
  return 0;
}

int main(int argc, char **argv){
  pthread_t a[2];
  int k, nCpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if( argc>1 ) nRound = atoi(argv[1]);
  if( argc>2 ) bBurst = strcmp(argv[2], "burst")==0;
  for(k=0; k<2; k++) pthread_create(&a[k], 0, worker, (void*)(intptr_t)(k % (nCpu>1 ? 2 : 1)));
  for(k=0; k<2; k++) pthread_join(a[k], 0);
  return 0;
}
