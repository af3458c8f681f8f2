/*
** lnk_app.c: emits lnk:hit from main, from a static function and from
** liblnk.so (linked).
**   lnk_app N    N rounds
*/
#include <stdlib.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "lnk_tp.h"

int lnk_lib_work(int i);

static void step(int i){
  lttng_ust_tracepoint(lnk, hit, 10 + i);
  lnk_lib_work(i);
}

int main(int argc, char **argv){
  int i, n = argc>1 ? atoi(argv[1]) : 3;
  lttng_ust_tracepoint(lnk, hit, 0);
  for(i=0; i<n; i++) step(i);
  lttng_ust_tracepoint(lnk, hit, 1);
  return 0;
}
