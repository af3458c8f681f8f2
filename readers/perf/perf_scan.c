/*
** perf_scan.c: the scans of events and callchains of a perf.data trace:
** the chunks that may match, chunks whose rows are known alike (a
** chunk's count stands for its rows), runs of equal rows, time order over two rounds,
** and the events and callchains rows. With accel=off (TlFilter.bPlain)
** none of these shortcuts: one row per record, none grouped.
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#include "model_sched.h"
#include "model_unwind.h"

/* First chunk that holds rowid (by file offset), or n. */
static size_t chunk_of_offset(const TlIndex *x, uint64_t iOff){
  size_t lo = 0, hi = x->n;
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( x->a[mid].iOff + x->a[mid].nSize <= iOff ) lo = mid+1; else hi = mid;
  }
  return lo;
}

int perf_type_of_name(const char *zType){
  int t;
  for(t=0; t<PERF_USER_MAX; t++){
    const char *z = tl_perf_type_name((uint32_t)t);
    if( z && strcmp(z, zType)==0 ) break;
  }
  return t;
}

int perf_scan_open(TlTrace *pTrace, int iTable, const TlFilter *pFilter,
                        TlScan **ppScan, TlErr *pErr){
  TlScan *s;
  *ppScan = 0;
  switch( iTable ){
    case TL_TAB_EVENTS: case TL_TAB_TRACKS: case TL_TAB_EVENT_TYPES:
    case TL_TAB_PERF_FEATURES: case TL_TAB_CALLCHAINS: case TL_TAB_SYMBOLS:
    case TL_TAB_SCHED_SLICES: case TL_TAB_THREAD_STATES: case TL_TAB_SYSCALLS:
    case TL_TAB_SCHED_THREADS: case TL_TAB_SYSCALL_STATS:
      break;
    default:
      return TL_DONE;
  }
  s = calloc(1, sizeof(*s));
  if( s==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  s->pTrace = pTrace;
  s->p = pTrace->pData;
  s->iTable = iTable;
  s->f = *pFilter;
  tl_err_clear(&s->err);
  tl_str_init(&s->args);
  tl_str_init(&s->cc);
  tl_str_init(&s->tmp);
  tl_reorder_init(&s->order, 2*PERF_MAX_ORDER_BYTES);
  s->iChunkEnd = pTrace->index.n;
  s->iWalkChunk = SIZE_MAX;
  s->eType = -1;
  s->eChunkType = -1;
  s->bInfo = 1;
  if( iTable==TL_TAB_EVENTS ){
    if( pFilter->zType ){
      /* type = 'X': the other types are skipped by their header alone */
      s->eType = perf_type_of_name(pFilter->zType);
      s->nType = strlen(pFilter->zType);
      /* ... and the chunks that hold none, by the index (not plain) */
      if( !pFilter->bPlain ) s->eChunkType = s->eType;
    }
    /* The columns SQLite uses and the ones the vtab checks the filter on. */
    s->mNeed = pFilter->mCols & (((uint64_t)1<<TL_EV_NCOL)-1);   /* not path, options */
    if( pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX || pFilter->bOrdered ){
      s->mNeed |= (uint64_t)1<<TL_EV_TS;
    }
    if( pFilter->nCpu>=0 ) s->mNeed |= (uint64_t)1<<TL_EV_CPU;
    if( pFilter->zType ) s->mNeed |= (uint64_t)1<<TL_EV_TYPE;
    s->bPeek = pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX || pFilter->nCpu>=0;
    /* Only type (and rowid) wanted, nothing checked on ts or cpu: no decode. */
    s->bInfo = (s->mNeed & ~((uint64_t)1<<TL_EV_TYPE))!=0
            || pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX || pFilter->nCpu>=0
            || pFilter->bOrdered;
  }
  if( (iTable==TL_TAB_TRACKS
       || (iTable==TL_TAB_EVENTS && (s->mNeed & (((uint64_t)1<<TL_EV_TRACK) | PERF_COLS_THREADS))))
   && perf_threads_ready(pTrace, pErr) ){
    perf_scan_close(s);
    return pErr->rc;
  }
  /* A rowid (events) or sample rowid (callchains) names one chunk. */
  if( (iTable==TL_TAB_EVENTS && pFilter->bRowid) || (iTable==TL_TAB_CALLCHAINS && pFilter->bKey) ){
    int64_t iSeek = iTable==TL_TAB_EVENTS ? pFilter->iRowid : pFilter->iKey;
    if( iSeek<0 ){
      s->iChunk = s->iChunkEnd;
    }else{
      s->iChunk = chunk_of_offset(&pTrace->index, PERF_ROWID_OFFSET(iSeek));
      s->iChunkEnd = s->iChunk < pTrace->index.n ? s->iChunk+1 : s->iChunk;
    }
  }
  /* text, callchain and args only for the rows SQLite reads them of (not under accel=off) */
  s->bLazyText = iTable==TL_TAB_EVENTS && !pFilter->bPlain;
  /* only values that repeat from record to record: runs of them are one row */
  s->bRun = iTable==TL_TAB_EVENTS && s->bInfo && !pFilter->bOrdered && !pFilter->bRowid
         && !pFilter->bPlain
         && (s->mNeed & ~(((uint64_t)1<<TL_EV_TYPE) | ((uint64_t)1<<TL_EV_CPU)
                          | ((uint64_t)1<<TL_EV_VALUE) | ((uint64_t)1<<TL_EV_NAME)))==0;
  s->bKey = s->bRun && s->eType==PERF_SAMPLE && s->p->aKey && s->p->nKey==pTrace->index.n;
  if( tl_sched_out_of_table(iTable) && perf_sched_open(s, pFilter) ){
    *pErr = s->err;
    perf_scan_close(s);
    return pErr->rc;
  }
  *ppScan = s;
  return TL_OK;
}

void perf_scan_close(TlScan *s){
  if( s==0 ) return;
  perf_sched_close(s);
  perf_scan_parts_free(s);
  tl_reorder_free(&s->order);
  perf_walk_free(&s->w);
  tl_str_free(&s->args);
  tl_str_free(&s->cc);
  tl_str_free(&s->tmp);
  perf_cols_free(s->pCols);
  perf_cols_names_free(s);
  perf_unwind_free(s->pUnwind);
  free(s);
}

/* The next record of the chunks that may match; TL_ROW with s->r, s->ri. */
static int next_record(TlScan *s){
  const TlIndex *x = &s->pTrace->index;
  s->bLazy = 0;
  for(;;){
    int rc;
    if( !s->bInChunk ){
      while( s->iChunk < s->iChunkEnd
          && (!chunk_in_stream(s, &x->a[s->iChunk])
              || !tl_packet_may_match(&x->a[s->iChunk], s->f.tsLo, s->f.tsHi, s->f.aCpu, s->f.nCpu)
              || !perf_chunk_may_hold(&x->a[s->iChunk], s->eChunkType)) ){
        s->iChunk++;
      }
      if( s->iChunk >= s->iChunkEnd ) return TL_DONE;
      if( s->bKey && !(x->a[s->iChunk].flags & PERF_PKT_CUT)
       && s->p->aKey[s->iChunk].eState!=PERF_KEY_MIXED ){
        /* its SAMPLE rows are one row repeated, known without reading it */
        const PerfChunkKey *k = &s->p->aKey[s->iChunk];
        uint64_t n = x->a[s->iChunk].iAux;
        s->iCountChunk = s->iChunk++;
        if( k->eState==PERF_KEY_NONE || n==0 ) continue;
        if( !ts_cpu_may_match(&s->f, 0, 0, k->bCpu, k->cpu) ) continue;
        s->r.type = PERF_SAMPLE;
        memset(&s->ri, 0, sizeof(s->ri));
        s->ri.iAttr = k->iAttr;
        s->ri.bCpu = k->bCpu;
        s->ri.cpu = k->cpu;
        s->ri.bSample = 1;
        if( k->bValue ){ s->ri.s.mHave = PS_PERIOD; s->ri.s.period = (uint64_t)k->value; }
        s->nBlock = n;
        s->bLazy = 1;
        return TL_ROW;
      }
      s->iWalkChunk = SIZE_MAX;
      walk_chunk(s, &x->a[s->iChunk]);
      s->bInChunk = 1;
      s->iChunk++;
    }
    rc = perf_walk_next(&s->w, &s->r);
    if( rc==TL_DONE ){ s->bInChunk = 0; continue; }
    if( rc<0 ) return rc;
    if( !record_wanted(s) ) continue;
    if( !s->bInfo ) return TL_ROW;
    if( s->bPeek && s->r.type==PERF_SAMPLE && s->p->nAttr>0 ){
      /* a sample's time and cpu first: most fail a narrow filter */
      int bTs, bCpu;
      int64_t ts = 0;
      uint32_t cpu = 0;
      perf_sample_peek(&s->p->aAttr[perf_attr_of(s->p, &s->r)], &s->r, &bTs, &ts, &bCpu, &cpu);
      if( !ts_cpu_may_match(&s->f, bTs, ts, bCpu, cpu) ) continue;
    }
    if( rec_info(s->p, &s->r, &s->ri) ){
      memset(&s->ri, 0, sizeof(s->ri));
      s->ri.iAttr = 0;
    }
    if( s->iTable==TL_TAB_EVENTS && !row_may_match(s) ) continue;
    return TL_ROW;
  }
}

/* Hold the record read for its turn in time order. */
static int order_push(TlScan *s){
  PerfOrderHead h;
  int rc;
  h.iRowid = s->r.iRowid;
  h.iOff = s->r.iOff;
  h.type = s->r.type;
  h.misc = s->r.misc;
  h.size = s->r.size;
  rc = tl_reorder_push(&s->order, s->ri.ts, s->ri.bCpu ? s->ri.cpu : UINT32_MAX,
                       &h, sizeof(h), s->r.body.a, s->r.body.n);
  if( rc==TL_ELIMIT ){
    return tl_err_set(&s->err, TL_ELIMIT, s->r.iOff,
        "ORDER BY ts needs more than %llu bytes of records in memory: query without it",
        (unsigned long long)s->order.nMax);
  }
  if( rc ) return tl_err_set(&s->err, rc, s->r.iOff, "out of memory");
  return TL_OK;
}

/* The least record held into s->r (its body held until the next pop). */
static void order_pop(TlScan *s){
  void *pHead;
  const uint8_t *aBody;
  size_t nBody;
  if( tl_reorder_pop(&s->order, &pHead, &aBody, &nBody) ){
    PerfOrderHead h;
    memcpy(&h, pHead, sizeof(h));
    s->r.type = h.type;
    s->r.misc = h.misc;
    s->r.size = h.size;
    s->r.body = tl_bytes(aBody, nBody, s->p->bo);
    s->r.iRowid = h.iRowid;
    s->r.iOff = h.iOff;
  }
}

/*
** The next record in time order. perf writes a FINISHED_ROUND after each
** pass over its buffers, and gives out, at each one, what it holds up to
** the latest time of the rounds before the one just read: a record is
** expected no earlier than that. Here that rule runs with the lag the
** index found the file to need (PerfData.iRoundLag, perf_index.c): after
** round k, records up to the latest time of rounds 1..k-lag go out (lag 1
** is perf's rule; a record written to its buffer after the pass over it
** comes a round late, and a larger lag waits for it), so the merge holds
** lag+1 rounds. A chunk not read (no record of it can match) or read with
** no FINISHED_ROUND at its end (a directory's file: the index marks where
** its rounds end) ends a round when the index says so: the rule holds for
** groups of rounds too. Lag 0 (no lag fits): only the chunks' round ends
** count, each chunk a group of rounds, every chunk's latest time taken.
*/
static void round_end(TlScan *s){
  if( s->tsMaxCur>s->tsMaxDone ) s->tsMaxDone = s->tsMaxCur;
  perf_rounds_end(&s->rounds, s->tsMaxDone);
  s->tsFlush = perf_rounds_flush(&s->rounds, perf_round_lag(s->p));
}

static int next_ordered(TlScan *s){
  const TlIndex *x = &s->pTrace->index;
  for(;;){
    int rc;
    int64_t ts;
    if( tl_reorder_least(&s->order, &ts) && ts<=s->tsFlush ){
      order_pop(s);
      if( rec_info(s->p, &s->r, &s->ri) ){ memset(&s->ri, 0, sizeof(s->ri)); }
      return TL_ROW;
    }
    if( !s->bInChunk ){
      const TlPacket *pk;
      if( s->iChunk >= s->iChunkEnd ){
        if( s->order.nRec==0 ) return TL_DONE;
        s->tsFlush = TL_TS_MAX;
        continue;
      }
      pk = &x->a[s->iChunk];
      if( !chunk_in_stream(s, pk) ){ s->iChunk++; continue; }
      if( tl_packet_may_match(pk, s->f.tsLo, s->f.tsHi, s->f.aCpu, s->f.nCpu)
       && perf_chunk_may_hold(pk, s->eChunkType) ){
        walk_chunk(s, pk);
        s->bInChunk = 1;
      }else{
        s->bInChunk = 2;                /* nothing to read, only the round's end */
      }
      /* its latest time counts at once, unless rounds end inside it (its
      ** records' times count as they are read) */
      if( (s->bInChunk==2 || s->p->iRoundLag==0)
       && pk->tsEnd!=TL_TS_MIN && pk->tsEnd>s->tsMaxCur ) s->tsMaxCur = pk->tsEnd;
    }
    rc = s->bInChunk==2 ? TL_DONE : perf_walk_next(&s->w, &s->r);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      /* the chunk is done; at a round's end the previous round may go out
      ** (unless its FINISHED_ROUND, read last, has let it) */
      if( (x->a[s->iChunk].flags & PERF_PKT_ROUND_END) && !s->bRoundRead ) round_end(s);
      s->iChunk++;
      s->bInChunk = 0;
      s->bRoundRead = 0;
      continue;
    }
    s->bRoundRead = s->r.type==PERF_FINISHED_ROUND && s->p->iRoundLag>0;
    if( s->bRoundRead ){
      round_end(s);
      continue;
    }
    if( !record_wanted(s) ) continue;
    if( s->xKeep && !s->xKeep(s) ) continue;
    if( rec_info(s->p, &s->r, &s->ri) || !s->ri.bTs ) continue;
    if( s->ri.ts<s->f.tsLo || s->ri.ts>s->f.tsHi ) continue;
    if( s->ri.ts>s->tsMaxCur ) s->tsMaxCur = s->ri.ts;
    rc = order_push(s);
    if( rc ) return rc;
  }
}

static void ordered_begin(TlScan *s){
  s->iPhase = 1;
  s->iChunk = 0;
  s->bInChunk = 0;
  s->tsFlush = TL_TS_MIN;
  s->tsMaxDone = TL_TS_MIN;
  s->tsMaxCur = TL_TS_MIN;
  s->bRoundRead = 0;
  s->rounds.n = 0;
}

/*
** A directory's files merged: a scan in time order of each file (its own
** rounds), the least current record on top, a tie to the lower file, as
** the engine merges streams.
*/
static int parts_open(TlScan *s){
  int k, n = s->p->nPart;
  s->iPartLast = -1;
  s->aPart = calloc((size_t)n, sizeof(TlScan*));
  s->aPartTs = calloc((size_t)n, sizeof(int64_t));
  if( s->aPart==0 || s->aPartTs==0 || tl_heap_init(&s->partHeap, n, s->aPartTs) ){
    return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  s->nPart = n;
  for(k=0; k<n; k++){
    TlScan *c = calloc(1, sizeof(TlScan));
    if( c==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    s->aPart[k] = c;
    tl_reorder_init(&c->order, 2*PERF_MAX_ORDER_BYTES);
    c->pTrace = s->pTrace;
    c->p = s->p;
    c->iTable = TL_TAB_EVENTS;
    c->f = s->f;
    c->f.bStream = 1;
    c->f.iStream = k;
    c->iChunkEnd = s->pTrace->index.n;
    c->eType = s->eType;
    c->eChunkType = s->eChunkType;
    c->xKeep = s->xKeep;
    c->pSched = s->pSched;          /* (read by xKeep; the parent's) */
    c->iPartLast = -1;
    tl_err_clear(&c->err);
    ordered_begin(c);
  }
  for(k=0; k<n; k++){
    int rc = next_ordered(s->aPart[k]);
    if( rc<0 ){ s->err = s->aPart[k]->err; return rc; }
    if( rc==TL_ROW ){ s->aPartTs[k] = s->aPart[k]->ri.ts; tl_heap_push(&s->partHeap, k); }
  }
  return TL_OK;
}

static int parts_next(TlScan *s){
  int k = s->iPartLast;
  if( k>=0 ){
    int rc = next_ordered(s->aPart[k]);
    if( rc<0 ){ s->err = s->aPart[k]->err; return rc; }
    if( rc==TL_ROW ){
      s->aPartTs[k] = s->aPart[k]->ri.ts;
      tl_heap_top_moved(&s->partHeap);
    }else{
      tl_heap_pop(&s->partHeap);
    }
  }
  k = s->iPartLast = tl_heap_top(&s->partHeap);
  if( k<0 ) return TL_DONE;
  s->r = s->aPart[k]->r;          /* (its body the file's scan's until its next) */
  s->ri = s->aPart[k]->ri;
  return TL_ROW;
}

void perf_scan_parts_free(TlScan *s){
  int k;
  for(k=0; k<s->nPart; k++){
    if( s->aPart[k] ) s->aPart[k]->pSched = 0;
    perf_scan_close(s->aPart[k]);
  }
  free(s->aPart);
  free(s->aPartTs);
  tl_heap_free(&s->partHeap);
  s->aPart = 0;
  s->nPart = 0;
}

int perf_scan_ordered_begin(TlScan *s){
  ordered_begin(s);
  if( s->p->nPart>1 && !s->f.bStream ) return parts_open(s);
  return TL_OK;
}

int perf_scan_next_ordered(TlScan *s){
  if( s->aPart ) return parts_next(s);
  return next_ordered(s);
}

/* The next events row: file order, or time order when asked. */
static int next_event_record(TlScan *s){
  int rc;
  if( !s->f.bOrdered || !(s->pTrace->mOrdered & (1u<<TL_TAB_EVENTS)) ) return next_record(s);
  if( s->iPhase==0 ){
    /* rows without a time come first; a ts bound excludes them anyway */
    if( s->f.tsLo==TL_TS_MIN ){
      while( (rc = next_record(s))==TL_ROW ){
        if( !s->ri.bTs ) return TL_ROW;
      }
      if( rc<0 ) return rc;
    }
    /* (a directory's files merged, when the engine does not merge them) */
    if( perf_scan_ordered_begin(s) ) return s->err.rc;
  }
  return perf_scan_next_ordered(s);
}

/* A tracepoint sample's text, as perf script prints its fields. */
static void fill_text(TlScan *s, TlVal *pOut){
  const PerfAttr *a = s->p->nAttr ? &s->p->aAttr[s->ri.iAttr] : 0;
  const PerfTp *t = a ? perf_tp_find(s->p, a->config) : 0;
  if( t==0 ) return;
  tl_str_reset(&s->tmp);
  tl_str_append(&s->tmp, "", 0);
  if( perf_printfmt_render(t->pFmt, t, s->ri.s.aRaw, s->ri.s.nRaw, s->p->bo, &s->tmp) ){
    /* no usable print fmt: the fields as name=value */
    TlStr scratch;
    tl_str_init(&scratch);
    tl_str_reset(&s->tmp);
    tl_str_append(&s->tmp, "", 0);
    perf_tp_decode(t, s->ri.s.aRaw, s->ri.s.nRaw, s->p->bo, &scratch, &s->tmp);
    tl_str_free(&scratch);
  }
  tl_val_str(pOut, &s->tmp);
}

/* A sample's callchain as a JSON array. */
static void fill_callchain(TlScan *s, TlVal *pOut){
  uint64_t k;
  tl_str_reset(&s->cc);
  tl_json_arr_begin(&s->cc);
  for(k=0; k<s->ri.s.nCallchain; k++){
    /* as signed 64-bit, like the ip column: exact in SQLite's JSON */
    tl_json_int(&s->cc, (int64_t)tl_load_u64_unchecked(s->ri.s.aCallchain + 8*k, s->p->bo));
  }
  tl_json_arr_end(&s->cc);
  tl_val_str(pOut, &s->cc);
}

/* The record's other fields as a JSON object. */
static void fill_args(TlScan *s, TlVal *pOut){
  tl_str_reset(&s->args);
  tl_json_obj_begin(&s->args);
  if( s->r.type==PERF_SAMPLE ) perf_sample_args(s, &s->args);
  else perf_side_args(s, &s->args);
  if( s->r.type!=PERF_SAMPLE && (s->ri.s.mHave & (PS_ID|PS_IDENTIFIER)) ){
    tl_json_key(&s->args, "id"); tl_json_uint(&s->args, s->ri.s.id);
  }
  tl_json_key(&s->args, "misc"); tl_json_uint(&s->args, s->r.misc);
  tl_json_obj_end(&s->args);
  tl_val_str(pOut, &s->args);
}

/* The current record's events row. */
static int fill_event(TlScan *s, TlRow *pRow){
  const PerfAttr *a;
  TlVal *v = pRow->a;
  const uint64_t m = s->mNeed;
  s->bRowLazy = s->bLazy;
  pRow->iRowid = s->bLazy ? TL_ROWID_LAZY : s->r.iRowid;
  if( s->bLazy ) pRow->nRepeat = (int64_t)s->nBlock;
  if( !s->bInfo ){
    if( s->eType>=0 ) tl_val_text(&v[TL_EV_TYPE], s->f.zType, s->nType);
    else if( !s->bLazy ) tl_val_textz(&v[TL_EV_TYPE], tl_perf_type_name(s->r.type));
    return TL_ROW;
  }
  a = s->p->nAttr ? &s->p->aAttr[s->ri.iAttr] : 0;
#define NEED(c) ((m>>(c)) & 1)
  if( s->ri.bTs ){ tl_val_int(&v[TL_EV_TS], s->ri.ts); tl_val_int(&v[TL_EV_TS_RAW], s->ri.ts); }
  if( s->ri.bCpu ) tl_val_int(&v[TL_EV_CPU], s->ri.cpu);
  if( s->ri.bTid ){
    tl_val_int(&v[TL_EV_PID], s->ri.pid);
    tl_val_int(&v[TL_EV_TID], s->ri.tid);
    if( NEED(TL_EV_TRACK) ){
      tl_val_int(&v[TL_EV_TRACK], perf_track_id(s->p, s->ri.tid, s->ri.bTs, s->ri.ts));
    }
  }
  if( NEED(TL_EV_TYPE) ) tl_val_textz(&v[TL_EV_TYPE], tl_perf_type_name(s->r.type));
  if( s->r.type==PERF_SAMPLE && a ){
    if( NEED(TL_EV_NAME) ) tl_val_textz(&v[TL_EV_NAME], a->zName);
    if( s->ri.s.mHave & PS_PERIOD ) tl_val_int(&v[TL_EV_VALUE], (int64_t)s->ri.s.period);
    else if( !(a->flags & PA_FREQ) ) tl_val_int(&v[TL_EV_VALUE], (int64_t)a->period);
    if( s->ri.s.mHave & PS_IP ) tl_val_int(&v[TL_EV_IP], (int64_t)s->ri.s.ip);
#undef NEED
    if( (s->ri.s.mHave & PS_RAW) && a->type==2 && tl_col_used(&s->f, TL_EV_TEXT) ){
      if( s->bLazyText ) v[TL_EV_TEXT].t = TL_LAZY; else fill_text(s, &v[TL_EV_TEXT]);
    }
    if( (s->ri.s.mHave & PS_CALLCHAIN) && tl_col_used(&s->f, TL_EV_CALLCHAIN) ){
      if( s->bLazyText ) v[TL_EV_CALLCHAIN].t = TL_LAZY; else fill_callchain(s, &v[TL_EV_CALLCHAIN]);
    }
  }
  if( m & PERF_COLS_MODEL ) perf_cols_fill(s, v);
  if( tl_col_used(&s->f, TL_EV_ARGS) ){
    if( s->bLazyText ) v[TL_EV_ARGS].t = TL_LAZY; else fill_args(s, &v[TL_EV_ARGS]);
  }
  return TL_ROW;
}

/*
** The current row's text, callchain or args, given TL_LAZY by
** fill_event(): SQLite asks for them only for the rows its WHERE keeps
** (`name = 'sched:sched_switch'` with `args ->> '$.prev_comm'`: JSON for
** the switches alone, not for every record).
*/
int perf_scan_value(TlScan *s, int64_t iRepeat, int iCol, TlVal *pOut){
  (void)iRepeat;
  tl_val_null(pOut);
  if( s->iTable!=TL_TAB_EVENTS ) return TL_OK;
  if( iCol==TL_EV_TEXT ) fill_text(s, pOut);
  else if( iCol==TL_EV_CALLCHAIN ) fill_callchain(s, pOut);
  else if( iCol==TL_EV_ARGS ) fill_args(s, pOut);
  return TL_OK;
}

/* What a row with only type, cpu, value and name used shows of a record. */
typedef struct PerfRowKey PerfRowKey;
struct PerfRowKey {
  uint32_t type;
  int bCpu; uint32_t cpu;
  int bValue; int64_t value;
  const char *zName;
};

/* The key of the current record, as fill_event() fills those columns. */
static void row_key(const TlScan *s, PerfRowKey *k){
  const PerfAttr *a = s->p->nAttr ? &s->p->aAttr[s->ri.iAttr] : 0;
  memset(k, 0, sizeof(*k));
  k->type = s->r.type;
  if( s->ri.bCpu ){ k->bCpu = 1; k->cpu = s->ri.cpu; }
  if( s->r.type==PERF_SAMPLE && a ){
    k->zName = a->zName;
    if( s->ri.s.mHave & PS_PERIOD ){ k->bValue = 1; k->value = (int64_t)s->ri.s.period; }
    else if( !(a->flags & PA_FREQ) ){ k->bValue = 1; k->value = (int64_t)a->period; }
  }
}

static int row_key_equal(const PerfRowKey *x, const PerfRowKey *y){
  return x->type==y->type && x->bCpu==y->bCpu && x->cpu==y->cpu && x->bValue==y->bValue
      && x->value==y->value && x->zName==y->zName;
}

/*
** Rows that use only type, cpu, value and name: consecutive records that
** show the same values are one row repeated (up to PERF_RUN_MAX), their
** rowids kept for xScanRowid. The record that ends a run starts the next.
*/
static int next_event_run(TlScan *s, TlRow *pRow){
  PerfRowKey k0, k1;
  size_t n = 1;
  int rc;
  if( s->bRunPend ){
    s->bRunPend = 0;
  }else{
    if( s->bRunDone ) return TL_DONE;
    rc = next_event_record(s);
    if( rc!=TL_ROW ) return rc;
  }
  rc = fill_event(s, pRow);
  if( rc!=TL_ROW || s->bLazy ) return rc;     /* (a chunk's rows are one row) */
  row_key(s, &k0);
  s->aRun[0] = s->r.iRowid;
  while( n<PERF_RUN_MAX ){
    rc = next_event_record(s);
    if( rc!=TL_ROW ){
      /* done, or an error the next call returns (s->err) */
      if( rc==TL_DONE ) s->bRunDone = 1;
      break;
    }
    if( s->bLazy ){ s->bRunPend = 1; break; }
    row_key(s, &k1);
    if( !row_key_equal(&k0, &k1) ){ s->bRunPend = 1; break; }
    s->aRun[n++] = s->r.iRowid;
  }
  s->nRun = n;
  if( n>1 ){
    pRow->iRowid = TL_ROWID_LAZY;
    pRow->nRepeat = (int64_t)n;
  }
  return TL_ROW;
}

static int next_event(TlScan *s, TlRow *pRow){
  int rc;
  if( s->bRun ) return next_event_run(s, pRow);
  rc = next_event_record(s);
  if( rc!=TL_ROW ) return rc;
  return fill_event(s, pRow);
}

/* The kernel's context: one string, so that a frame's is found by address. */
static const char zCtxKernel[] = "kernel";

/* Callchain context markers (PERF_CONTEXT_*), as signed values. */
static const char *context_name(int64_t v){
  switch( v ){
    case -32:   return "hv";
    case -128:  return zCtxKernel;
    case -512:  return "user";
    case -2048: return "guest";
    case -2176: return "guest_kernel";
    case -2560: return "guest_user";
    default:    return 0;
  }
}

/*
** Text z (a string that lasts as long as the trace: a context's, or the
** symbols model's) as column v: its length from the frame before when z is
** the same string as then (frames of a run of samples name the same
** symbols), slot i of s's memo.
*/
static void frame_text(TlScan *s, int i, TlVal *v, const char *z){
  if( z!=s->azLast[i] ){
    s->azLast[i] = z;
    s->anLast[i] = strlen(z);
  }
  tl_val_text(v, z, s->anLast[i]);
}

/* Is the frame at ip a kernel one: its context's, else its address's. */
static int frame_is_kernel(const TlScan *s, uint64_t ip){
  return s->zContext ? s->zContext==zCtxKernel : (ip>>63)!=0;
}

/*
** With srcline or inlined asked for, a user frame is its inlined functions'
** rows, then its own (perf script --inline): 1 when s->aSrc holds them.
*/
static int frame_src_start(TlScan *s, uint64_t ip){
  if( !(tl_col_used(&s->f, TL_CC_SRCLINE) || tl_col_used(&s->f, TL_CC_INLINED)) || frame_is_kernel(s, ip) ){
    return 0;
  }
  s->nSrc = perf_unwind_srclines(s, ip, &s->aSrc);
  s->iSrc = 0;
  s->ipSrc = ip;
  return s->nSrc>0;
}

int perf_next_frame(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  for(;;){
    uint64_t ip;
    const uint64_t *aUser;
    const char *zFunc = 0, *zSrc = 0;
    int nUser, bSrc = 0;
    if( s->iSrc < s->nSrc ){
      /* a row of a frame's inlined functions, or of the frame itself */
      ip = s->ipSrc;
      zFunc = s->aSrc[s->iSrc].zFunc;
      zSrc = s->aSrc[s->iSrc].zSrcline;
      bSrc = 1;
      s->iSrc++;
    }else if( s->r.type==PERF_SAMPLE && s->iFrame < s->ri.s.nCallchain ){
      const char *zCtx;
      ip = tl_load_u64_unchecked(s->ri.s.aCallchain + 8*s->iFrame, s->p->bo);
      zCtx = context_name((int64_t)ip);
      s->iFrame++;
      if( zCtx ){ s->zContext = zCtx; continue; }
      if( frame_src_start(s, ip) ) continue;
    }else if( s->r.type==PERF_SAMPLE && s->iFrame!=UINT64_MAX
           && (nUser = perf_unwind_frames(s, &aUser)) > 0
           && s->iFrame - s->ri.s.nCallchain < (uint64_t)nUser ){
      /* after the kernel's chain, the user frames unwound from the stack */
      ip = aUser[s->iFrame - s->ri.s.nCallchain];
      s->zContext = "user";
      s->iFrame++;
      if( frame_src_start(s, ip) ) continue;
    }else{
      int rc = next_record(s);
      if( rc!=TL_ROW ) return rc;
      if( s->f.bKey && s->r.iRowid!=s->f.iKey ){ s->r.type = 0; continue; }
      s->iFrame = 0;
      s->iDepth = 0;
      s->zContext = 0;
      s->nSrc = s->iSrc = 0;
      continue;
    }
    if( s->f.bDepth ){
      /* a depth range: skip the frames above it, end the chain below it */
      if( (int64_t)s->iDepth > s->f.depthHi ){ s->iFrame = UINT64_MAX; s->nSrc = 0; continue; }
      if( (int64_t)s->iDepth < s->f.depthLo ){ s->iDepth++; continue; }
    }
    /* stable, not unique across every file: the sample's rowid, shifted,
    ** with the frame's index in the chain (its depth when frames have
    ** rows for their inlined functions) */
    pRow->iRowid = (int64_t)(((uint64_t)s->r.iRowid << 10)
                             | ((bSrc ? s->iDepth : s->iFrame - 1) & 1023));
    tl_val_int(&v[TL_CC_EVENT], s->r.iRowid);
    if( s->ri.bTs ) tl_val_int(&v[TL_CC_TS], s->ri.ts);
    if( s->ri.bCpu ) tl_val_int(&v[TL_CC_CPU], s->ri.cpu);
    tl_val_int(&v[TL_CC_DEPTH], (int64_t)s->iDepth);
    tl_val_int(&v[TL_CC_IP], (int64_t)ip);
    if( s->zContext ) frame_text(s, 0, &v[TL_CC_CONTEXT], s->zContext);
    if( tl_col_used(&s->f, TL_CC_SYMBOL) || tl_col_used(&s->f, TL_CC_DSO) ){
      const char *zSym, *zDso;
      perf_symbolize(s->pTrace, s->p, s->ri.bTid ? s->ri.pid : -1, ip,
                     s->ri.bTs ? s->ri.ts : INT64_MIN, frame_is_kernel(s, ip), &zSym, &zDso);
      if( zFunc ) tl_val_textz(&v[TL_CC_SYMBOL], zFunc);   /* (the scan's own, not kept) */
      else frame_text(s, 1, &v[TL_CC_SYMBOL], zSym);
      frame_text(s, 2, &v[TL_CC_DSO], zDso);
    }
    if( zSrc ) tl_val_textz(&v[TL_CC_SRCLINE], zSrc);
    if( tl_col_used(&s->f, TL_CC_SRCLINE) || tl_col_used(&s->f, TL_CC_INLINED) ){
      tl_val_int(&v[TL_CC_INLINED], zFunc!=0);
    }
    s->iDepth++;
    return TL_ROW;
  }
}


int perf_scan_next(TlScan *s, TlRow *pRow){
  if( s->err.rc ) return s->err.rc;
  switch( s->iTable ){
    case TL_TAB_EVENTS:        return next_event(s, pRow);
    case TL_TAB_CALLCHAINS:    return perf_next_frame(s, pRow);
    case TL_TAB_SYMBOLS:       return perf_next_symbol(s, pRow);
    case TL_TAB_TRACKS:        return perf_next_track(s, pRow);
    case TL_TAB_EVENT_TYPES:   return perf_next_event_type(s, pRow);
    case TL_TAB_PERF_FEATURES: return perf_next_feature(s, pRow);
    case TL_TAB_SCHED_SLICES: case TL_TAB_THREAD_STATES: case TL_TAB_SYSCALLS:
    case TL_TAB_SCHED_THREADS: case TL_TAB_SYSCALL_STATS:
      return perf_sched_next(s, pRow);
    default:                   return TL_DONE;
  }
}

/*
** The rowid of the iRepeat-th row of a counted chunk: walk the chunk to it,
** onward from the row found last when it is not past this one.
*/
int perf_scan_rowid(TlScan *s, int64_t iRepeat, int64_t *piRowid){
  const TlIndex *x = &s->pTrace->index;
  const TlPacket *pk;
  /* (a run's rowids are known, even when reading ahead for
  ** the run met an error, which the next row returns) */
  if( s->bRun && !s->bRowLazy ){
    if( iRepeat<0 || (uint64_t)iRepeat>=s->nRun ){
      return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "row %lld of a run of %zu",
                        (long long)iRepeat, s->nRun);
    }
    *piRowid = s->aRun[iRepeat];
    return TL_OK;
  }
  if( s->err.rc ) return s->err.rc;
  if( !s->bRowLazy ){ *piRowid = s->r.iRowid; return TL_OK; }
  if( iRepeat<0 || (uint64_t)iRepeat>=s->nBlock ){
    return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "row %lld of a chunk of %llu rows",
                      (long long)iRepeat, (unsigned long long)s->nBlock);
  }
  pk = &x->a[s->iCountChunk];
  if( s->iWalkChunk!=s->iCountChunk || s->nWalked > (uint64_t)iRepeat ){
    walk_chunk(s, pk);
    s->iWalkChunk = s->iCountChunk;
    s->nWalked = 0;
  }
  while( s->nWalked <= (uint64_t)iRepeat ){
    int rc = perf_walk_next(&s->w, &s->r);
    if( rc==TL_DONE ){
      /* the file no longer holds what its index says */
      s->iWalkChunk = SIZE_MAX;
      return tl_err_set(&s->err, TL_ECORRUPT, pk->iOff + pk->nSize,
                        "expected %llu more records in this part of the file",
                        (unsigned long long)(s->nBlock - s->nWalked));
    }
    if( rc<0 ){ s->iWalkChunk = SIZE_MAX; return rc; }
    if( !record_wanted(s) ) continue;
    s->nWalked++;
  }
  *piRowid = s->r.iRowid;
  return TL_OK;
}
