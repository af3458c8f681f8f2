/*
** dbg_app.c: emits dbg:hit from main, from a thread, from libdbg.so
** (linked) and from libdbgplugin.so (dlopened, then dlclosed).
**   dbg_app N    N rounds
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "dbg_tp.h"

int dbg_lib_work(int i);

static int nRound = 3;

static void *worker(void *pArg){
  int i;
  (void)pArg;
  for(i=0; i<nRound; i++){
    lttng_ust_tracepoint(dbg, hit, 10 + i);
    dbg_lib_work(i);
  }
  return 0;
}

static void run_plugin(int i){
  void *h = dlopen("libdbgplugin.so", RTLD_NOW);
  int (*xRun)(int);
  if( h==0 ){ fprintf(stderr, "%s\n", dlerror()); exit(1); }
  *(void**)&xRun = dlsym(h, "dbg_plugin_run");
  if( xRun ) xRun(i);
  dlclose(h);
}

int main(int argc, char **argv){
  pthread_t t;
  int i;
  if( argc>1 ) nRound = atoi(argv[1]);
  lttng_ust_tracepoint(dbg, hit, 0);
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  for(i=0; i<nRound; i++) run_plugin(i);
  lttng_ust_tracepoint(dbg, hit, 1);
  return 0;
}
