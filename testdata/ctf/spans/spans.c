/*
** spans.c: the program of the spans trace. Two threads each begin a
** request before the session starts (its end is recorded without its
** begin), then run ROUNDS requests with nested steps (a step within a
** step, a note inside), and begin one more request and step that the
** session stops before they end.
**
**   ./spans ROUNDS   (waits for the file "go", writes "done", waits for "stop")
*/
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "span_tp.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int nRounds;
static pthread_barrier_t done;

static void wait_for(const char *zFile){
  while( access(zFile, F_OK)!=0 ) usleep(10000);
}

static void spin(int n){
  volatile int i;
  for(i=0; i<n; i++){}
}

static void *worker(void *pArg){
  int base = (int)(long)pArg, r;
  lttng_ust_tracepoint(tlspan, req_begin, base - 1);   /* before the session */
  wait_for("go");
  lttng_ust_tracepoint(tlspan, req_end, base - 1);
  for(r=0; r<nRounds; r++){
    lttng_ust_tracepoint(tlspan, req_begin, base + r);
    spin(2000);
    lttng_ust_tracepoint(tlspan, step_entry, 1);
    spin(1000);
    lttng_ust_tracepoint(tlspan, step_entry, 2);
    lttng_ust_tracepoint(tlspan, note, r);
    spin(500 * (r % 3));
    lttng_ust_tracepoint(tlspan, step_exit, 2);
    lttng_ust_tracepoint(tlspan, step_exit, 1);
    spin(300);
    lttng_ust_tracepoint(tlspan, req_end, base + r);
    usleep(100);
  }
  lttng_ust_tracepoint(tlspan, req_begin, base + nRounds);   /* never ends */
  lttng_ust_tracepoint(tlspan, step_entry, 1);
  pthread_barrier_wait(&done);
  wait_for("stop");
  return 0;
}

int main(int argc, char **argv){
  pthread_t t[2];
  long i;
  nRounds = argc>1 ? atoi(argv[1]) : 10;
  pthread_barrier_init(&done, 0, 3);
  for(i=0; i<2; i++) pthread_create(&t[i], 0, worker, (void*)(1000 * (i + 1)));
  pthread_barrier_wait(&done);
  fclose(fopen("done", "w"));
  for(i=0; i<2; i++) pthread_join(t[i], 0);
  return 0;
}
