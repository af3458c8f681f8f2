/*
** xray_scan.c: scans of an XRay log: events, xray_calls (also one packet at
** a time, for the tallies of xray_tally.c), tracks, xray_functions; the
** reader's definition.
*/
#include "xray_rec.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const xray_azKind[4] = {
  "function-enter", "function-exit", "function-tail-exit", "function-enter-arg"
};

static const TlErr *xrayScanErr(TlScan *s){ return &s->err; }

/* The fields of a new (zeroed) scan s that are not zero; no file yet. */
void xray_scan_init(TlScan *s, TlTrace *pTrace, int iTable, const TlFilter *pFilter){
  s->pTrace = pTrace;
  s->p = pTrace->pData;
  s->iTable = iTable;
  s->f = *pFilter;
  tl_err_clear(&s->err);
  tl_str_init(&s->args);
  tl_str_init(&s->text);
  tl_map_init(&s->stacks);
  tl_paths_init(&s->paths);
  s->bPaths = iTable==TL_TAB_XRAY_CALLS && tl_col_used(&s->f, TL_XC_STACK);
  s->iPacketEnd = SIZE_MAX;
  tl_win_init(&s->win, pTrace->pSrc);
  tl_win_init(&s->winW, pTrace->pSrc);
  s->iWalkPacket = SIZE_MAX;
}

static int xrayScanOpen(TlTrace *pTrace, int iTable, const TlFilter *pFilter,
                        TlScan **ppScan, TlErr *pErr){
  TlScan *s;
  *ppScan = 0;
  if( iTable==TL_TAB_CALLS ) iTable = TL_TAB_XRAY_CALLS;   /* (the same rows) */
  if( iTable!=TL_TAB_EVENTS && iTable!=TL_TAB_TRACKS && iTable!=TL_TAB_XRAY_CALLS
   && iTable!=TL_TAB_XRAY_FUNCTIONS ) return TL_DONE;
  if( ((const XrData*)pTrace->pData)->bMapOnly && iTable!=TL_TAB_XRAY_FUNCTIONS ) return TL_DONE;
  s = calloc(1, sizeof(*s));
  if( s==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  xray_scan_init(s, pTrace, iTable, pFilter);
  *ppScan = s;
  return TL_OK;
}

void xray_scan_free(TlScan *s){
  size_t k;
  if( s==0 ) return;
  for(k=0; k<s->nStack; k++) tl_calls_free(&s->aStack[k].calls);
  free(s->aStack);
  free(s->aOut);
  tl_map_free(&s->stacks);
  tl_paths_free(&s->paths);
  tl_win_free(&s->win);
  tl_win_free(&s->winW);
  tl_str_free(&s->args);
  tl_str_free(&s->text);
  free(s);
}

static int printable(const uint8_t *a, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    if( a[i]<0x20 || a[i]>=0x7F ) return 0;
  }
  return 1;
}

static int next_event(TlScan *s, TlRow *pRow){
  XrEv e;
  TlVal *v = pRow->a;
  int bOk;
  int64_t ts;
  int rc;
  rc = next_raw(s, &e, 0);
  if( rc!=TL_ROW ) return rc;
  pRow->iRowid = (int64_t)e.iOff;
  ts = tsc_ns(s->p, e.tsc, &bOk);
  if( bOk ) tl_val_int(&v[TL_EV_TS], ts);
  if( e.tsc<=(uint64_t)INT64_MAX ) tl_val_int(&v[TL_EV_TS_RAW], (int64_t)e.tsc);
  else tl_val_real(&v[TL_EV_TS_RAW], (double)e.tsc);
  tl_val_int(&v[TL_EV_CPU], e.cpu);
  if( e.bPid ) tl_val_int(&v[TL_EV_PID], e.pid);
  tl_val_int(&v[TL_EV_TID], e.tid);
  tl_val_int(&v[TL_EV_TRACK], e.tid);
  tl_val_textz(&v[TL_EV_TYPE], e.zKind);
  if( e.bFunc ){
    const XrFunc *fn = xray_map_func(&s->p->map, e.funcId);
    tl_val_int(&v[TL_EV_VALUE], e.funcId);
    if( fn ){
      tl_val_textz(&v[TL_EV_NAME], fn->zName);
      tl_val_int(&v[TL_EV_IP], (int64_t)fn->addr);
    }
  }
  if( e.aData && tl_col_used(&s->f, TL_EV_TEXT) && printable(e.aData, e.nData) ){
    tl_val_text(&v[TL_EV_TEXT], (const char*)e.aData, e.nData);
  }
  if( tl_col_used(&s->f, TL_EV_ARGS) && (e.nArg || e.aData) ){
    int k;
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    if( e.nArg ){
      tl_json_key(&s->args, "args");
      tl_json_arr_begin(&s->args);
      for(k=0; k<e.nArg; k++) tl_json_uint(&s->args, e.aArg[k]);
      tl_json_arr_end(&s->args);
    }
    if( e.aData ){
      tl_json_key(&s->args, "data"); tl_json_hex(&s->args, e.aData, e.nData);
    }
    if( e.bTyped ){ tl_json_key(&s->args, "event_type"); tl_json_uint(&s->args, e.typedType); }
    tl_json_obj_end(&s->args);
    tl_val_str(&v[TL_EV_ARGS], &s->args);
  }
  return TL_ROW;
}

/* ---- xray_calls ----------------------------------------------------------- */

/*
** The function records of each thread matched into calls by the model's
** call stacks (model_calls.h: llvm-xray's rules). Finished calls come as
** their exits are read; the calls still open at the end come last,
** outermost first, with no dur. For a tally (xray_tally.c) calls go
** straight to it. (Here, with the
** events, so that xrayScanNext() reaches either without a call between
** files.)
*/

/* Queue call c of stack st's thread to be returned. */
static int out_add(TlScan *s, const XrStack *st, const TlCall *c){
  XrCall *o;
  if( s->nOut==s->nOutAlloc ){
    size_t nNew = s->nOutAlloc ? s->nOutAlloc*2 : 16;
    XrCall *aNew = realloc(s->aOut, nNew*sizeof(XrCall));
    if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    s->aOut = aNew;
    s->nOutAlloc = nNew;
  }
  o = &s->aOut[s->nOut++];
  o->c = *c;
  o->tid = st->tid; o->pid = st->pid; o->bPid = st->bPid;
  return TL_OK;
}

/*
** One function record (kind 0-3, at file offset iOff) of stack st's
** thread: entries (kinds 0 and 3) open a call, exits and tail exits end
** the calls the model says they end.
*/
static int stack_apply(TlScan *s, XrStack *st, unsigned kind, int32_t funcId,
                       uint64_t tsc, uint32_t cpu, uint64_t iOff){
  if( kind==0 || kind==3 ){
    int rc = tl_calls_enter(&st->calls, (int64_t)iOff, funcId, tsc, cpu);
    if( rc==TL_CALLS_TOO_DEEP ){
      tl_trace_warn(s->pTrace, 0, iOff, "call depth over %d on thread %u: deeper calls are not matched",
                    TL_CALLS_MAX_DEPTH, st->tid);
      return TL_OK;
    }
    if( rc==TL_OK && s->bPaths ) rc = tl_calls_path(&st->calls, &s->paths);
    if( rc ) return tl_err_set(&s->err, TL_ENOMEM, iOff, "out of memory");
  }else{
    size_t n = tl_calls_exit(&st->calls, funcId);
    while( n-- ){
      TlCall c;
      int rc;
      tl_calls_pop(&st->calls, tsc, &c);
      rc = s->pTally ? xray_tally_call(s, st, &c) : out_add(s, st, &c);
      if( rc ) return rc;
    }
  }
  return TL_OK;
}

/* The stack of thread tid (made if new) into *pSt. */
static int stack_of(TlScan *s, uint32_t tid, uint64_t iOff, XrStack **pSt){
  uint32_t iSt;
  if( s->nStack>0 && s->aStack[s->iStackLast].tid==tid ){
    iSt = (uint32_t)s->iStackLast;         /* most records repeat the thread */
  }else if( !tl_map_get(&s->stacks, tid, &iSt) ){
    if( s->nStack==s->nStackAlloc ){
      size_t nNew = s->nStackAlloc ? s->nStackAlloc*2 : 8;
      XrStack *aNew = realloc(s->aStack, nNew*sizeof(XrStack));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, iOff, "out of memory");
      s->aStack = aNew;
      s->nStackAlloc = nNew;
    }
    iSt = (uint32_t)s->nStack++;
    memset(&s->aStack[iSt], 0, sizeof(XrStack));
    s->aStack[iSt].tid = tid;
    if( tl_map_put(&s->stacks, tid, iSt) ) return tl_err_set(&s->err, TL_ENOMEM, iOff, "out of memory");
  }
  s->iStackLast = iSt;
  *pSt = &s->aStack[iSt];
  return TL_OK;
}

/* the most records calls_step() takes at once (bounds the calls it makes) */
#define XR_CALLS_RUN 4096

/*
** One record the long way, and then the plain function records that follow
** it in the same buffer (one thread's, with no metadata between) at once.
*/
static int calls_step(TlScan *s){
  XrEv e;
  XrStack *st = 0;
  XrCur *c = &s->c;
  uint32_t w, d;
  int n;
  int rc = next_raw(s, &e, 1);
  if( rc!=TL_ROW ) return rc;
  if( !e.bFunc ) return TL_OK;
  rc = stack_of(s, e.tid, e.iOff, &st);
  if( rc ) return rc;
  if( e.bPid ){ st->pid = e.pid; st->bPid = 1; }
  rc = stack_apply(s, st, e.zKind==xray_azKind[0] || e.zKind==xray_azKind[3] ? 0 : 1,
                   e.funcId, e.tsc, e.cpu, e.iOff);
  if( rc || s->f.bPlain || !s->bInPacket || !c->bInBuf || s->p->nType!=1 ) return rc;
  /* the rest of the run: what fdr_next() would give, without its event
  ** (a plain scan takes every record the long way) */
  for(n=0; n<XR_CALLS_RUN && fdr_plain_at(c, c->b.i, &w, &d); n++){
    size_t iRec = c->b.i;
    c->b.i += XR_FUNC;
    c->tsc += d;
    rc = stack_apply(s, st, fdr_func_type(s->p, w), fdr_func_id(s->p, w), c->tsc, c->cpu, c->iBase + iRec);
    if( rc ) return rc;
  }
  return TL_OK;
}

/* The calls of stack st still open, outermost first, with no dur: to the
** tally, or queued to be returned. */
static int stack_drain(TlScan *s, XrStack *st){
  size_t k;
  for(k=0; k<st->calls.n; k++){
    TlCall c;
    int rc;
    tl_calls_get(&st->calls, k, 0, 0, &c);
    rc = s->pTally ? xray_tally_call(s, st, &c) : out_add(s, st, &c);
    if( rc ) return rc;
  }
  st->calls.n = 0;
  return TL_OK;
}

/* The next call (finished, then the ones open at the end): TL_ROW with *pc. */
int xray_call_next(TlScan *s, const XrCall **pc){
  while( s->iOut>=s->nOut ){
    int rc;
    s->nOut = s->iOut = 0;
    if( !s->bDrained ){
      rc = calls_step(s);
      if( rc==TL_DONE ) s->bDrained = 1;
      else if( rc<0 ) return rc;
      continue;
    }
    /* the calls still open at the end: outermost first, dur NULL */
    while( s->iDrainStack<s->nStack && s->aStack[s->iDrainStack].calls.n==0 ) s->iDrainStack++;
    if( s->iDrainStack>=s->nStack ) return TL_DONE;
    rc = stack_drain(s, &s->aStack[s->iDrainStack]);
    if( rc ) return rc;
  }
  *pc = &s->aOut[s->iOut++];
  return TL_ROW;
}

int xray_calls_packet(TlScan *s, size_t iPacket){
  int rc;
  s->iPacket = iPacket;
  s->iPacketEnd = iPacket + 1;
  s->bInPacket = 0;
  while( (rc = calls_step(s))==TL_OK ){}
  return rc==TL_DONE ? TL_OK : rc;
}

int xray_calls_drain(TlScan *s, uint32_t tid){
  uint32_t iSt;
  if( !tl_map_get(&s->stacks, tid, &iSt) ) return TL_OK;
  return stack_drain(s, &s->aStack[iSt]);
}

/* A function's name in a stack, as llvm-xray stack names it: its symbol,
** @(address) for one of the map without a symbol, #id for one not in it. */
static const char *frame_name(const void *pCtx, int32_t funcId, TlStr *pScratch){
  const XrData *p = (const XrData*)pCtx;
  const XrFunc *fn = xray_map_func(&p->map, funcId);
  if( fn && fn->zName ) return fn->zName;
  tl_str_reset(pScratch);
  if( fn ) tl_str_appendf(pScratch, "@(%llx)", (unsigned long long)fn->addr);
  else tl_str_appendf(pScratch, "#%d", (int)funcId);
  return pScratch->bErr ? 0 : pScratch->z;
}

static int next_call(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  const XrCall *c = 0;
  int bOk;
  int64_t ts;
  int rc = xray_call_next(s, &c);
  if( rc!=TL_ROW ) return rc;
  pRow->iRowid = c->c.fr.id;
  tl_val_int(&v[TL_XC_ID], c->c.fr.id);
  tl_val_int(&v[TL_XC_TID], c->tid);
  if( c->bPid ) tl_val_int(&v[TL_XC_PID], c->pid);
  tl_val_int(&v[TL_XC_CPU], c->c.fr.cpu);
  tl_val_int(&v[TL_XC_FUNC_ID], c->c.fr.funcId);
  /* the name's lookup and the time's conversion only when used */
  if( tl_col_used(&s->f, TL_XC_NAME) ){
    const XrFunc *fn = xray_map_func(&s->p->map, c->c.fr.funcId);
    if( fn ) tl_val_textz(&v[TL_XC_NAME], fn->zName);
  }
  if( tl_col_used(&s->f, TL_XC_TS) ){
    ts = tsc_ns(s->p, c->c.fr.ts, &bOk);
    if( bOk ) tl_val_int(&v[TL_XC_TS], ts);
  }
  if( tl_col_used(&s->f, TL_XC_DUR) ){
    int64_t d = call_dur(s, c);
    if( d!=XR_DUR_NULL ) tl_val_int(&v[TL_XC_DUR], d);
  }
  tl_val_int(&v[TL_XC_DEPTH], (int64_t)c->c.depth);
  if( c->c.bParent ) tl_val_int(&v[TL_XC_PARENT], c->c.parent);
  if( s->bPaths ){
    const char *z = tl_paths_text(&s->paths, c->c.fr.iPath, frame_name, s->p);
    if( z==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    tl_val_textz(&v[TL_XC_STACK], z);
  }
  return TL_ROW;
}

static int next_track(TlScan *s, TlRow *pRow){
  const XrThread *t;
  TlVal *v = pRow->a;
  if( s->iRow >= s->p->nThread ) return TL_DONE;
  t = &s->p->aThread[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&v[TL_TR_ID], t->tid);
  tl_val_text(&v[TL_TR_KIND], "thread", 6);
  if( t->pid ) tl_val_int(&v[TL_TR_PID], t->pid);
  tl_val_int(&v[TL_TR_TID], t->tid);
  if( t->bTs ){
    tl_val_int(&v[TL_TR_FIRST_TS], t->tsFirst);
    tl_val_int(&v[TL_TR_LAST_TS], t->tsLast);
  }
  tl_val_int(&v[TL_TR_EVENTS], (int64_t)t->nEvents);
  return TL_ROW;
}

static int next_function(TlScan *s, TlRow *pRow){
  const XrFunc *f;
  TlVal *v = pRow->a;
  unsigned k;
  if( s->iRow >= (size_t)s->p->map.nFunc ) return TL_DONE;
  f = &s->p->map.aFunc[s->iRow];
  pRow->iRowid = f->id;
  s->iRow++;
  tl_val_int(&v[TL_XF_FUNC_ID], f->id);
  tl_val_int(&v[TL_XF_ADDRESS], (int64_t)f->addr);
  tl_val_textz(&v[TL_XF_NAME], f->zName);
  tl_str_reset(&s->text);
  tl_str_append(&s->text, "", 0);
  for(k=0; k<32; k++){
    if( f->mKinds & (1u<<k) ){
      if( s->text.n ) tl_str_appendc(&s->text, ',');
      if( xray_sled_kind(k) ) tl_str_appendz(&s->text, xray_sled_kind(k));
      else tl_str_appendf(&s->text, "%u", k);
    }
  }
  tl_val_str(&v[TL_XF_KINDS], &s->text);
  tl_val_int(&v[TL_XF_ALWAYS_INSTRUMENT], f->bAlways);
  tl_val_int(&v[TL_XF_SLEDS], f->nSleds);
  return TL_ROW;
}

static int xrayScanNext(TlScan *s, TlRow *pRow){
  if( s->err.rc ) return s->err.rc;
  switch( s->iTable ){
    case TL_TAB_EVENTS:     return next_event(s, pRow);
    case TL_TAB_XRAY_CALLS: return next_call(s, pRow);
    case TL_TAB_XRAY_FUNCTIONS: return next_function(s, pRow);
    default:                return next_track(s, pRow);
  }
}

static void xrayScanClose(TlScan *s){ xray_scan_free(s); }

/* (every row has its rowid) */
static int xrayScanRowid(TlScan *s, int64_t iRepeat, int64_t *piRowid){
  (void)piRowid;
  return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "no counted row %lld", (long long)iRepeat);
}

static const char *const xrayOptions[] = { "binary", 0 };

const TlReaderDef tl_xray_reader = {
  .zName      = "xray",
  .azOptions  = xrayOptions,
  .mOrdered   = 0,
  .xProbe     = xrayProbe,
  .xOpen      = xrayOpen,
  .xClose     = xrayClose,
  .xScanOpen  = xrayScanOpen,
  .xScanNext  = xrayScanNext,
  .xScanClose = xrayScanClose,
  .xScanErr   = xrayScanErr,
  .xScanRowid = xrayScanRowid,
  .mCount     = 1u<<TL_TAB_EVENTS,
  .xCountCols = xray_count_cols,
  .xCountOpen = xray_count_open,
  .xCountClose = xray_count_close,
  .xPacketCount = xray_packet_count,
  .xPacketCountBytes = xray_packet_count_bytes,
  .xPacketValue = xray_packet_value,
  .mTally     = (1u<<TL_TAB_XRAY_CALLS) | (1u<<TL_TAB_CALLS),
  .xTallyCols = xray_tally_cols,
  .xTallyOpen = xray_tally_open,
  .xTallyPacket = xray_tally_packet,
  .xTallyClose = xray_tally_close,
  .xInfo      = xray_info,
};

