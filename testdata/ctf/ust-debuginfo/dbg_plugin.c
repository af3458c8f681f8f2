/*
** dbg_plugin.c: libdbgplugin.so, which dbg_app dlopens and dlcloses:
** emits dbg:hit from a function of its own.
*/
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "dbg_tp.h"

int dbg_plugin_run(int i){
  lttng_ust_tracepoint(dbg, hit, 200 + i);
  return i * 2;
}
