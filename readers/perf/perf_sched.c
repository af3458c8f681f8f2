/*
** perf_sched.c: the sched_slices, thread_states and syscalls tables of perf.data:
** perf's records as inputs of the scheduling model (model_sched.h).
**
** The records are read in time order (the events scan's merge of rounds)
** from the start of the data: a tracepoint sample of a scheduler event
** becomes a TlSchedRec with the fields the model names, looked up once
** per attr in its tracepoint format; COMM records name threads and FORK
** records give a new thread its process and its parent's name, as perf
** sched keeps them. The model's outputs are the rows.
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#include "model_sched.h"

#define PERF_TYPE_TRACEPOINT 2
#define PERF_MISC_COMM_EXEC (1u<<13)

typedef struct PerfSchedAttr PerfSchedAttr;
struct PerfSchedAttr {
  int eKind;                      /* TL_SCHED_*, NONE for other attrs */
  const PerfTp *pTp;
  int aField[TL_SF_NROLE];        /* index in pTp->aField, or -1 */
};

struct PerfSched {
  TlSched *pModel;
  PerfSchedAttr *aAttr;           /* one per attr */
  int iTable;
  TlSchedOut out;                 /* the current row's output */
  TlVal aCol[TL_MAX_NCOL];
};

static int tp_field(const PerfTp *t, const char *zName){
  int i;
  for(i=0; i<t->nField; i++){
    if( strcmp(t->aField[i].zName, zName)==0 ) return i;
  }
  return -1;
}

/* The kind and the fields of each attr's scheduler event. */
static void sched_attrs(const PerfData *p, PerfSchedAttr *aAttr){
  int i, k, n;
  for(i=0; i<p->nAttr; i++){
    PerfSchedAttr *sa = &aAttr[i];
    const PerfAttr *a = &p->aAttr[i];
    const TlSchedField *aF;
    for(k=0; k<TL_SF_NROLE; k++) sa->aField[k] = -1;
    sa->pTp = a->type==PERF_TYPE_TRACEPOINT ? perf_tp_find(p, a->config) : 0;
    sa->eKind = sa->pTp ? tl_sched_kind(sa->pTp->zName) : TL_SCHED_NONE;
    if( sa->eKind==TL_SCHED_NONE ) continue;
    aF = tl_sched_fields(sa->eKind, &n);
    for(k=0; k<n; k++){
      int iF;
      if( sa->aField[aF[k].iRole]>=0 ) continue;
      if( aF[k].zWith && tp_field(sa->pTp, aF[k].zWith)<0 ) continue;
      iF = tp_field(sa->pTp, aF[k].zName);
      if( iF>=0 && !sa->pTp->aField[iF].bDataLoc ) sa->aField[aF[k].iRole] = iF;
    }
  }
}

/* Field iF of the raw data as role iRole of r (skipped when out of bounds). */
static void tp_value(const PerfTpField *f, const PerfSample *s, int bo, int iRole,
                     TlSchedRec *r){
  TlBytes b = tl_bytes(s->aRaw, s->nRaw, bo);
  const uint8_t *z;
  if( tl_bytes_skip(&b, f->off) || tl_bytes_ptr(&b, f->size, &z) ) return;
  if( iRole>=TL_SF_PREV_COMM ){
    size_t n = 0;
    while( n<f->size && z[n] ) n++;
    tl_sched_rec_text(r, iRole, (const char*)z, n);
  }else{
    TlBytes v = tl_bytes(z, f->size, bo);
    int64_t x;
    switch( f->size ){
      case 1: { uint8_t u; if( tl_bytes_u8(&v, &u) ) return; x = f->bSigned ? (int64_t)(int8_t)u : (int64_t)u; break; }
      case 2: { uint16_t u; if( tl_bytes_u16e(&v, &u) ) return; x = f->bSigned ? (int64_t)(int16_t)u : (int64_t)u; break; }
      case 4: { uint32_t u; if( tl_bytes_u32e(&v, &u) ) return; x = f->bSigned ? (int64_t)(int32_t)u : (int64_t)u; break; }
      case 8: { uint64_t u; if( tl_bytes_u64e(&v, &u) ) return; x = (int64_t)u; break; }
      default: return;
    }
    tl_sched_rec_int(r, iRole, x);
  }
}

/* The current record as the model's input: 1 with *r, or 0 (none). */
static int sched_rec(const TlScan *s, TlSchedRec *r){
  const RecInfo *ri = &s->ri;
  if( s->r.type==PERF_SAMPLE ){
    const PerfSchedAttr *sa;
    int k;
    if( ri->iAttr<0 || ri->iAttr>=s->p->nAttr ) return 0;
    sa = &s->pSched->aAttr[ri->iAttr];
    if( !tl_sched_takes(s->pSched->pModel, sa->eKind) ) return 0;
    tl_sched_rec_clear(r, sa->eKind);
    r->zEvent = sa->pTp->zName;
    if( ri->bTid ){
      tl_sched_rec_int(r, TL_SF_CUR_TID, ri->tid);
      tl_sched_rec_int(r, TL_SF_CUR_PID, ri->pid);
    }
    for(k=0; k<TL_SF_NROLE; k++){
      if( sa->aField[k]>=0 && !(r->mHave & ((uint32_t)1<<k)) ){
        tp_value(&sa->pTp->aField[sa->aField[k]], &ri->s, s->p->bo, k, r);
      }
    }
  }else if( s->r.type==PERF_COMM ){
    TlBytes b = s->r.body;
    uint32_t pid, tid;
    const char *z;
    size_t n;
    if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &tid) || tl_bytes_cstr(&b, &z, &n) ) return 0;
    tl_sched_rec_clear(r, TL_SCHED_NAME);
    tl_sched_rec_int(r, TL_SF_TID, (int32_t)tid);
    tl_sched_rec_int(r, TL_SF_PID, (int32_t)pid);
    tl_sched_rec_text(r, TL_SF_COMM, z, n);
  }else if( s->r.type==PERF_FORK ){
    TlBytes b = s->r.body;
    uint32_t pid, ppid, tid, ptid;
    if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid)
     || tl_bytes_u32e(&b, &tid) || tl_bytes_u32e(&b, &ptid) ) return 0;
    tl_sched_rec_clear(r, TL_SCHED_NEW_THREAD);
    tl_sched_rec_int(r, TL_SF_PARENT_TID, (int32_t)ptid);
    tl_sched_rec_int(r, TL_SF_PARENT_PID, (int32_t)ppid);
    tl_sched_rec_int(r, TL_SF_CHILD_TID, (int32_t)tid);
    tl_sched_rec_int(r, TL_SF_CHILD_PID, (int32_t)pid);
  }else{
    return 0;
  }
  r->bTs = ri->bTs; r->ts = ri->ts;
  r->bCpu = ri->bCpu; r->cpu = ri->cpu;
  return 1;
}

/* Does the time-order merge keep the record (s->r, not yet decoded)? */
static int sched_keep(const TlScan *s){
  int iAttr;
  if( s->r.type==PERF_COMM || s->r.type==PERF_FORK ) return 1;
  if( s->r.type!=PERF_SAMPLE || s->p->nAttr==0 ) return 0;
  iAttr = perf_attr_of(s->p, &s->r);
  return iAttr>=0 && iAttr<s->p->nAttr
      && tl_sched_takes(s->pSched->pModel, s->pSched->aAttr[iAttr].eKind);
}

int perf_sched_open(TlScan *s, const TlFilter *pFilter){
  PerfSched *ps = calloc(1, sizeof(*ps));
  int mOut = tl_sched_out_of_table(s->iTable);
  if( ps==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  s->pSched = ps;
  ps->iTable = s->iTable;
  ps->aAttr = calloc(s->p->nAttr ? (size_t)s->p->nAttr : 1, sizeof(PerfSchedAttr));
  ps->pModel = tl_sched_new(mOut, pFilter->tsLo, pFilter->tsHi, pFilter->aCpu, pFilter->nCpu);
  if( ps->aAttr==0 || ps->pModel==0 ){
    return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  sched_attrs(s->p, ps->aAttr);
  tl_sched_names_recorded(ps->pModel);
  {
    int i, bAny = 0;
    for(i=0; i<s->p->nAttr; i++) bAny |= tl_sched_takes(ps->pModel, ps->aAttr[i].eKind);
    /* no scheduler tracepoint in the trace: no row, nothing to read */
    if( !bAny ) tl_sched_finish(ps->pModel);
  }
  /* every record from the start, in time order */
  s->f.tsLo = TL_TS_MIN;
  s->f.tsHi = TL_TS_MAX;
  s->f.nCpu = -1;
  s->f.aCpu = 0;
  s->xKeep = sched_keep;
  return perf_scan_ordered_begin(s);
}

void perf_sched_close(TlScan *s){
  PerfSched *ps = s->pSched;
  const char *zOdd;
  uint64_t nOdd;
  if( ps==0 ) return;
  if( ps->pModel && (nOdd = tl_sched_oddities(ps->pModel, &zOdd))>0 ){
    tl_trace_warn(s->pTrace, 0, TL_NO_OFFSET,
        "perf: scheduling: %llu records the model could not place (first: %s)",
        (unsigned long long)nOdd, zOdd);
  }
  tl_sched_free(ps->pModel);
  free(ps->aAttr);
  free(ps);
  s->pSched = 0;
}

int perf_sched_next(TlScan *s, TlRow *pRow){
  PerfSched *ps = s->pSched;
  int rc;
  while( (rc = tl_sched_next(ps->pModel, ps->iTable, &ps->out, ps->aCol))==TL_OK ){
    TlSchedRec rec;
    rc = perf_scan_next_ordered(s);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      tl_sched_finish(ps->pModel);
    }else if( sched_rec(s, &rec) && tl_sched_feed(ps->pModel, &rec) ){
      return tl_err_set(&s->err, TL_ENOMEM, s->r.iOff, "out of memory");
    }
  }
  if( rc==TL_ROW ){
    pRow->a = ps->aCol;
    pRow->iRowid = ++s->iSchedRow;
  }
  return rc;
}
