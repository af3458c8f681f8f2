/*
** ctf_sched.c: the sched_slices, thread_states and syscalls tables of CTF traces:
** kernel scheduler events (LTTng's, or perf's in a trace from perf data
** convert --to-ctf) as inputs of the scheduling model (model_sched.h).
**
** The events of every stream are read in time order (the events scan's
** merge) from the start. An event whose class name the model knows
** becomes a TlSchedRec: each field name the model lists is looked up in
** the payload, then the event context, then the stream event context; the
** CPU is the packet context's cpu_id. The model's outputs are the rows.
*/
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_cur.h"
#include "map.h"
#include "model_sched.h"

struct CtfSched {
  TlSched *pModel;
  TlMap kinds;                    /* event class address -> its TL_SCHED_* kind */
  int64_t iRow;                   /* rowid of the row given last */
  TlSchedOut out;                 /* the current row's output */
};

/* The node of field zName of the current event (payload first), or -1. */
static int ctf_sched_node(const TlCtfDec *d, const char *zName){
  static const int aiScope[3] = {
    TL_CTF_SCOPE_EV_PAYLOAD, TL_CTF_SCOPE_EV_CONTEXT, TL_CTF_SCOPE_EV_SCONTEXT
  };
  int s;
  for(s=0; s<3; s++){
    int i;
    if( d->aRoot[aiScope[s]]<0 ) continue;
    i = tl_ctf_dec_member(d, d->aRoot[aiScope[s]], zName);
    if( i>=0 ) return i;
  }
  return -1;
}

/* The current event of cursor c as the model's input: 1 with *r, or 0. */
static int ctf_sched_rec(CtfSched *ps, const CtfCur *c, TlSchedRec *r){
  const TlSchedField *aF;
  uint32_t v;
  int eKind, n, k;
  uint64_t key = (uint64_t)(uintptr_t)c->pEC;
  if( tl_map_get(&ps->kinds, key, &v) ){
    eKind = (int)v;
  }else{
    eKind = tl_sched_kind(c->pEC->zName);
    if( tl_map_put(&ps->kinds, key, (uint32_t)eKind) ) return -1;
  }
  if( !tl_sched_takes(ps->pModel, eKind) ) return 0;
  tl_sched_rec_clear(r, eKind);
  r->zEvent = c->pEC->zName;
  r->bTs = c->bTs; r->ts = c->ts;
  r->bCpu = c->iCpu>=0; r->cpu = c->iCpu;
  aF = tl_sched_fields(eKind, &n);
  for(k=0; k<n; k++){
    const TlCtfVal *pV;
    int i;
    if( r->mHave & ((uint32_t)1<<aF[k].iRole) ) continue;
    if( aF[k].zWith && ctf_sched_node(&c->dec, aF[k].zWith)<0 ) continue;
    i = ctf_sched_node(&c->dec, aF[k].zName);
    if( i<0 ) continue;
    pV = &c->dec.aVal[i];
    if( aF[k].iRole>=TL_SF_PREV_COMM ){
      if( pV->z ) tl_sched_rec_text(r, aF[k].iRole, pV->z, pV->n);
    }else if( tl_ctf_dec_is_int(&c->dec, i) ){
      tl_sched_rec_int(r, aF[k].iRole, pV->pField->bSigned ? pV->v.i : (int64_t)pV->v.u);
    }
  }
  return 1;
}

static int ctf_has_switch(const CtfData *p, int bAny);

int tl_ctf_sched_open(CtfScan *pScan, const TlFilter *pFilter){
  CtfSched *ps = calloc(1, sizeof(*ps));
  if( ps==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pScan->pSched = ps;
  tl_map_init(&ps->kinds);
  ps->pModel = tl_sched_new(tl_sched_out_of_table(pScan->iTable), pFilter->tsLo,
                            pFilter->tsHi, pFilter->aCpu, pFilter->nCpu);
  if( ps->pModel==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  /* no scheduler event in the trace: no row, nothing to read */
  if( !ctf_has_switch(pScan->p, 1) ) tl_sched_finish(ps->pModel);
  return TL_OK;
}

void tl_ctf_sched_close(CtfScan *pScan){
  CtfSched *ps = pScan->pSched;
  const char *zOdd;
  uint64_t nOdd;
  if( ps==0 ) return;
  if( ps->pModel && (nOdd = tl_sched_oddities(ps->pModel, &zOdd))>0 ){
    tl_trace_warn(pScan->pTrace, 0, TL_NO_OFFSET,
        "ctf: scheduling: %llu events the model could not place (first: %s)",
        (unsigned long long)nOdd, zOdd);
  }
  tl_sched_free(ps->pModel);
  tl_map_free(&ps->kinds);
  free(ps);
  pScan->pSched = 0;
}

int tl_ctf_sched_next(CtfScan *pScan, TlRow *pRow){
  CtfSched *ps = pScan->pSched;
  int rc;
  while( (rc = tl_sched_next(ps->pModel, pScan->iTable, &ps->out, pScan->aCol))==TL_OK ){
    TlSchedRec rec;
    rc = tl_ctf_merge_next(pScan);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      tl_sched_finish(ps->pModel);
      continue;
    }
    rc = ctf_sched_rec(ps, &pScan->aCur[pScan->iLast], &rec);
    if( rc>0 ) rc = tl_sched_feed(ps->pModel, &rec);
    if( rc<0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( rc==TL_ROW ){
    pRow->a = pScan->aCol;
    pRow->iRowid = ++ps->iRow;
  }
  return rc;
}

/* ---- events: the thread of a kernel event ---------------------------------- */

/* A scheduler switch event class (*pCtx: any event class the model takes)? */
static int ctf_sched_class(const char *zName, void *pCtx){
  int k = tl_sched_kind(zName);
  return k==TL_SCHED_SWITCH || (*(const int*)pCtx && k!=TL_SCHED_NONE);
}

/* Does the trace hold a scheduler switch event class (bAny: any event
** class the model takes)? */
static int ctf_has_switch(const CtfData *p, int bAny){
  return tl_ctf_has_class(p, ctf_sched_class, &bAny);
}

int tl_ctf_thread_wanted(const CtfData *p, const TlFilter *f){
  return (tl_col_used(f, TL_EV_PID) || tl_col_used(f, TL_EV_TID) || tl_col_used(f, TL_EV_COMM))
      && ctf_has_switch(p, 0);
}

int tl_ctf_thread_open(CtfScan *pScan){
  CtfSched *ps;
  if( !ctf_has_switch(pScan->p, 0) ) return TL_OK;
  ps = calloc(1, sizeof(*ps));
  if( ps==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  tl_map_init(&ps->kinds);
  ps->pModel = tl_sched_new(0, TL_TS_MIN, TL_TS_MAX, 0, -1);
  pScan->pThreads = ps;
  if( ps->pModel==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  /* the thread at the window's start needs the switches before it */
  pScan->f.tsLo = TL_TS_MIN;
  return TL_OK;
}

void tl_ctf_thread_close(CtfScan *pScan){
  CtfSched *ps = pScan->pThreads;
  if( ps==0 ) return;
  tl_sched_free(ps->pModel);
  tl_map_free(&ps->kinds);
  free(ps);
  pScan->pThreads = 0;
}

int tl_ctf_thread_cols(CtfScan *pScan, const CtfCur *c, TlVal *a){
  CtfSched *ps = pScan->pThreads;
  TlSchedRec rec;
  int64_t tid, pid;
  const char *zComm;
  int rc;
  if( c->iCpu>=0 && tl_sched_current(ps->pModel, c->iCpu, &tid, &pid, &zComm) ){
    if( a[TL_EV_TID].t==TL_NULL ) tl_val_int(&a[TL_EV_TID], tid);
    if( a[TL_EV_PID].t==TL_NULL && pid>=0 ) tl_val_int(&a[TL_EV_PID], pid);
    if( a[TL_EV_COMM].t==TL_NULL && zComm ){
      size_t n = strlen(zComm);
      if( n>=sizeof(ps->out.zComm) ) n = sizeof(ps->out.zComm)-1;
      memcpy(ps->out.zComm, zComm, n);          /* (kept until the next row) */
      ps->out.zComm[n] = 0;
      tl_val_text(&a[TL_EV_COMM], ps->out.zComm, n);
    }
  }
  /* the event itself moves the model on (a switch: for the events after it) */
  rc = ctf_sched_rec(ps, c, &rec);
  if( rc>0 ) rc = tl_sched_feed(ps->pModel, &rec);
  if( rc<0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  return TL_OK;
}
