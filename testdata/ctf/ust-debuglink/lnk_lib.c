/*
** lnk_lib.c: liblnk.so, linked by lnk_app: holds the "lnk" probes and
** emits lnk:hit from a function of its own.
*/
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lnk_tp.h"

int lnk_lib_work(int i){
  int k, s = 0;
  for(k=0; k<i; k++) s += k;
  lttng_ust_tracepoint(lnk, hit, 100 + i);
  return s;
}
