/*
** ctf_calls.c: the calls table of CTF traces: entry and exit events paired
** into calls by the model (model_calls.h, TlCallSet).
**
** Pairs read, in time order from the start of the trace:
**
**   - LTTng-UST cyg-profile (liblttng-ust-cyg-profile.so and its _fast
**     variant, programs built with -finstrument-functions):
**     lttng_ust_cyg_profile[_fast]:func_entry opens a call of the function
**     at its `addr` field; func_exit ends the call of its `addr` (the fast
**     variant's exit has no addr: it ends the newest call). A function is
**     named as the debug info names the address at its first entry (the
**     trace's statedump and dlopen events, ctf_debuginfo.c: the DWARF
**     subprogram, else the ELF symbol starting there), else by its address
**     in hex ("0x401166").
**   - kernel system calls: LTTng's syscall_entry_X / syscall_exit_X (and
**     compat_syscall_*), perf's syscalls:sys_enter_X / sys_exit_X (perf
**     data convert --to-ctf); the call is named X.
**
** A call's thread is the event's vtid or tid context field (the payload's
** perf_tid in a perf conversion); in a kernel trace without one, the
** thread the scheduler events put on the event's CPU (ctf_sched.c); else
** the CPU: a stack per CPU, tid NULL. pid likewise from vpid or pid.
*/
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_cur.h"
#include "map.h"
#include "model_calls.h"

enum { CC_NONE, CC_ENTER, CC_EXIT, CC_EXIT_ANY };

typedef struct CcSys CcSys;       /* a system call's function */
struct CcSys { char *zName; int32_t id; };

struct CtfCalls {
  TlCallSet *pSet;
  TlMap kinds;                    /* event class address -> kind | funcId<<2 */
  TlMap addrs;                    /* function address -> funcId */
  CcSys *aSys; size_t nSys, nSysAlloc;
  TlStr name;                     /* a name being made */
  int bDone;                      /* the events are read through */
};

static const char *const azCygEnter[2] = {
  "lttng_ust_cyg_profile:func_entry", "lttng_ust_cyg_profile_fast:func_entry"
};
static const char *const azCygExit[2] = {
  "lttng_ust_cyg_profile:func_exit", "lttng_ust_cyg_profile_fast:func_exit"
};

/* The name after prefix zPre of z, or NULL. */
static const char *after(const char *z, const char *zPre){
  size_t n = strlen(zPre);
  return strncmp(z, zPre, n)==0 && z[n] ? z+n : 0;
}

/* The id of system call zName (made if new), or -1 when out of memory. */
static int32_t sys_func(CtfCalls *pc, const char *zName){
  size_t i;
  int32_t id;
  for(i=0; i<pc->nSys; i++){
    if( strcmp(pc->aSys[i].zName, zName)==0 ) return pc->aSys[i].id;
  }
  if( pc->nSys==pc->nSysAlloc ){
    size_t nNew = pc->nSysAlloc ? pc->nSysAlloc*2 : 16;
    CcSys *aNew = realloc(pc->aSys, nNew*sizeof(CcSys));
    if( aNew==0 ) return -1;
    pc->aSys = aNew;
    pc->nSysAlloc = nNew;
  }
  if( tl_callset_func(pc->pSet, zName, strlen(zName), &id) ) return -1;
  pc->aSys[pc->nSys].zName = tl_strndup(zName, strlen(zName));
  if( pc->aSys[pc->nSys].zName==0 ) return -1;
  pc->aSys[pc->nSys++].id = id;
  return id;
}

/* What event class zName is: CC_* and, for a system call, its name in *pzSys. */
static int name_kind(const char *zName, const char **pzSys){
  static const char *const azPre[6] = {
    "syscall_entry_", "compat_syscall_entry_", "syscalls:sys_enter_",
    "syscall_exit_", "compat_syscall_exit_", "syscalls:sys_exit_"
  };
  int k;
  *pzSys = 0;
  if( zName==0 ) return CC_NONE;                  /* a class the metadata did not name */
  for(k=0; k<2; k++){
    if( strcmp(zName, azCygEnter[k])==0 ) return CC_ENTER;
    if( strcmp(zName, azCygExit[k])==0 ) return k ? CC_EXIT_ANY : CC_EXIT;
  }
  for(k=0; k<6; k++){
    if( (*pzSys = after(zName, azPre[k]))!=0 ) return k<3 ? CC_ENTER : CC_EXIT;
  }
  return CC_NONE;
}

/* What event class zName is for the calls: CC_* | funcId<<2 (a system
** call's id; 0 for cyg-profile, whose functions come from each event);
** UINT32_MAX when out of memory. */
static uint32_t class_kind(CtfCalls *pc, const char *zName){
  const char *zSys;
  int eKind = name_kind(zName, &zSys);
  if( zSys ){
    int32_t id = sys_func(pc, zSys);
    if( id<0 || id>=(1<<29) ) return UINT32_MAX;
    return (uint32_t)eKind | (uint32_t)id<<2;
  }
  return (uint32_t)eKind;
}

/* Does event class zName enter or exit a call? */
static int is_call_class(const char *zName, void *pCtx){
  const char *zSys;
  (void)pCtx;
  return name_kind(zName, &zSys)!=CC_NONE;
}

/* The integer field zName of the current event's contexts (bPayload: of
** its payload), 1 with *pv, or 0. A payload's pid is a system call's
** argument, not the thread's. */
static int event_int(const TlCtfDec *d, const char *zName, int bPayload, int64_t *pv){
  static const int aiScope[3] = {
    TL_CTF_SCOPE_EV_SCONTEXT, TL_CTF_SCOPE_EV_CONTEXT, TL_CTF_SCOPE_EV_PAYLOAD
  };
  int s;
  for(s=bPayload ? 2 : 0; s<(bPayload ? 3 : 2); s++){
    int i;
    if( d->aRoot[aiScope[s]]<0 ) continue;
    i = tl_ctf_dec_member(d, d->aRoot[aiScope[s]], zName);
    if( tl_ctf_dec_is_int(d, i) ){
      *pv = d->aVal[i].pField->bSigned ? d->aVal[i].v.i : (int64_t)d->aVal[i].v.u;
      return 1;
    }
  }
  return 0;
}

/* The function of the address in the current event (of cursor c)'s addr
** field, 1 with *pId, 0 (no addr), or -1 when out of memory. */
static int addr_func(CtfScan *pScan, const CtfCur *c, int32_t *pId){
  CtfCalls *pc = pScan->pCalls;
  const TlCtfDec *d = &c->dec;
  int64_t v, pid;
  uint32_t id;
  uint64_t addr;
  const char *zName = 0;
  if( !event_int(d, "addr", 1, &v) ) return 0;
  addr = (uint64_t)v;
  if( tl_map_get(&pc->addrs, addr, &id) ){
    *pId = (int32_t)id;
    return 1;
  }
  tl_str_reset(&pc->name);
  if( pScan->pDbg && (event_int(d, "vpid", 0, &pid) || event_int(d, "pid", 0, &pid)) ){
    zName = tl_ctf_dbg_func_at(pScan, pid, c->ts, addr);
  }
  if( zName ) tl_str_append(&pc->name, zName, strlen(zName));
  else tl_str_appendf(&pc->name, "0x%llx", (unsigned long long)addr);
  if( pc->name.bErr || tl_callset_func(pc->pSet, pc->name.z, pc->name.n, pId) ) return -1;
  if( tl_map_put(&pc->addrs, addr, (uint32_t)*pId) ) return -1;
  return 1;
}

/* The CPU's thread by the scheduler events before the current event of
** cursor c (a[TL_EV_TID], a[TL_EV_PID], NULL if not known), the event
** moving them on. */
static int sched_thread(CtfScan *pScan, const CtfCur *c, TlVal *a){
  int k;
  for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
  return tl_ctf_thread_cols(pScan, c, a) ? pScan->err.rc : TL_OK;
}

/* The thread of the current event of cursor c: its stack in *piThread. */
static int event_thread(CtfScan *pScan, const CtfCur *c, size_t *piThread){
  CtfCalls *pc = pScan->pCalls;
  TlVal a[TL_EV_NCOL];
  int64_t tid = 0, pid = 0;
  int bTid, bPid;
  uint64_t key;
  bTid = event_int(&c->dec, "vtid", 0, &tid) || event_int(&c->dec, "tid", 0, &tid)
      || event_int(&c->dec, "perf_tid", 1, &tid);
  bPid = event_int(&c->dec, "vpid", 0, &pid) || event_int(&c->dec, "pid", 0, &pid)
      || event_int(&c->dec, "perf_pid", 1, &pid);
  if( pScan->pThreads ){
    int rc = sched_thread(pScan, c, a);
    if( rc ) return rc;
    if( !bTid && a[TL_EV_TID].t==TL_INT ){ tid = a[TL_EV_TID].i; bTid = 1; }
    if( !bPid && a[TL_EV_PID].t==TL_INT ){ pid = a[TL_EV_PID].i; bPid = 1; }
  }
  key = bTid ? (uint64_t)tid : (uint64_t)1<<63 | (uint64_t)c->iCpu;
  if( tl_callset_thread(pc->pSet, key, tid, bTid, pid, bPid, piThread) ){
    return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  return TL_OK;
}

/* The current event of the merge, into the model. */
static int calls_feed(CtfScan *pScan){
  CtfCalls *pc = pScan->pCalls;
  const CtfCur *c = &pScan->aCur[pScan->iLast];
  uint64_t key = (uint64_t)(uintptr_t)c->pEC;
  uint32_t v;
  int32_t funcId;
  size_t iTh;
  int rc;
  if( !tl_map_get(&pc->kinds, key, &v) ){
    v = class_kind(pc, c->pEC->zName);
    if( v==UINT32_MAX || tl_map_put(&pc->kinds, key, v) ) goto no_mem;
  }
  if( (v&3)==CC_NONE ){
    /* (a scheduler event still moves the CPUs' threads on) */
    TlVal a[TL_EV_NCOL];
    return pScan->pThreads ? sched_thread(pScan, c, a) : TL_OK;
    return TL_OK;
  }
  if( !c->bTs ) return TL_OK;
  funcId = (int32_t)(v>>2);
  if( funcId==0 && (v&3)!=CC_EXIT_ANY ){
    rc = addr_func(pScan, c, &funcId);
    if( rc<0 ) goto no_mem;
    if( rc==0 ) return TL_OK;
  }
  rc = event_thread(pScan, c, &iTh);
  if( rc ) return rc;
  if( (v&3)==CC_ENTER ){
    rc = tl_callset_enter(pc->pSet, iTh, c->iRowid, funcId, (uint64_t)c->ts,
                          c->iCpu>=0 && c->iCpu<UINT32_MAX ? (uint32_t)c->iCpu : UINT32_MAX);
    if( rc==TL_CALLS_TOO_DEEP ){
      tl_trace_warn(pScan->pTrace, 0, TL_NO_OFFSET,
                    "ctf: call depth over %d: deeper calls are not matched", TL_CALLS_MAX_DEPTH);
      return TL_OK;
    }
  }else{
    rc = tl_callset_exit(pc->pSet, iTh, funcId, (v&3)==CC_EXIT_ANY, (uint64_t)c->ts);
  }
  if( rc ) goto no_mem;
  return TL_OK;
no_mem:
  return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
}

int tl_ctf_calls_open(CtfScan *pScan){
  CtfCalls *pc = calloc(1, sizeof(*pc));
  if( pc==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pScan->pCalls = pc;
  tl_map_init(&pc->kinds);
  tl_map_init(&pc->addrs);
  tl_str_init(&pc->name);
  pc->pSet = tl_callset_new(tl_col_used(&pScan->f, TL_XC_STACK));
  if( pc->pSet==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  /* no entry or exit event class in the trace: no row, nothing to read */
  if( !tl_ctf_has_class(pScan->p, is_call_class, 0) ){
    pc->bDone = 1;
    return TL_OK;
  }
  /* cyg-profile functions named by the statedump's files (debug info) */
  if( tl_ctf_dbg_has_events(pScan->p) ){
    int rc = tl_ctf_dbg_open(pScan);
    if( rc ) return rc;
  }
  return tl_ctf_thread_open(pScan);
}

void tl_ctf_calls_close(CtfScan *pScan){
  CtfCalls *pc = pScan->pCalls;
  size_t i;
  if( pc==0 ) return;
  tl_callset_free(pc->pSet);
  tl_map_free(&pc->kinds);
  tl_map_free(&pc->addrs);
  for(i=0; i<pc->nSys; i++) free(pc->aSys[i].zName);
  free(pc->aSys);
  tl_str_free(&pc->name);
  free(pc);
  pScan->pCalls = 0;
}

/* Call o as the row's values. */
static int calls_row(CtfScan *pScan, const TlCallOut *o, TlRow *pRow){
  CtfCalls *pc = pScan->pCalls;
  TlVal *a = pScan->aCol;
  int k;
  for(k=0; k<TL_XC_NCOL; k++) tl_val_null(&a[k]);
  tl_val_int(&a[TL_XC_ID], o->c.fr.id);
  if( o->bTid ) tl_val_int(&a[TL_XC_TID], o->tid);
  if( o->bPid ) tl_val_int(&a[TL_XC_PID], o->pid);
  if( o->c.fr.cpu!=UINT32_MAX ) tl_val_int(&a[TL_XC_CPU], o->c.fr.cpu);  /* (else unknown) */
  tl_val_int(&a[TL_XC_FUNC_ID], o->c.fr.funcId);
  tl_val_textz(&a[TL_XC_NAME], tl_callset_name(pc->pSet, o->c.fr.funcId));
  tl_val_int(&a[TL_XC_TS], (int64_t)o->c.fr.ts);
  if( o->c.bDone ) tl_val_int(&a[TL_XC_DUR], (int64_t)(o->c.tsEnd - o->c.fr.ts));
  tl_val_int(&a[TL_XC_DEPTH], (int64_t)o->c.depth);
  if( o->c.bParent ) tl_val_int(&a[TL_XC_PARENT], o->c.parent);
  if( tl_col_used(&pScan->f, TL_XC_STACK) ){
    const char *z = tl_callset_stack(pc->pSet, o->c.fr.iPath);
    if( z==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    tl_val_textz(&a[TL_XC_STACK], z);
  }
  pRow->a = a;
  pRow->iRowid = o->c.fr.id;
  return TL_ROW;
}

int tl_ctf_calls_next(CtfScan *pScan, TlRow *pRow){
  CtfCalls *pc = pScan->pCalls;
  const TlCallOut *o;
  for(;;){
    int rc;
    if( tl_callset_next(pc->pSet, &o)==TL_ROW ) return calls_row(pScan, o, pRow);
    if( pc->bDone ) return TL_DONE;
    rc = tl_ctf_merge_next(pScan);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      pc->bDone = 1;
      if( tl_callset_finish(pc->pSet) ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      continue;
    }
    rc = calls_feed(pScan);
    if( rc ) return rc;
  }
}
