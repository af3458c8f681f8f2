/*
** dbg_lib.c: libdbg.so, linked by dbg_app: holds the "dbg" probes and
** emits dbg:hit from a function of its own.
*/
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "dbg_tp.h"

int dbg_lib_work(int i){
  int k, s = 0;
  for(k=0; k<i; k++) s += k;
  lttng_ust_tracepoint(dbg, hit, 100 + i);
  return s;
}
