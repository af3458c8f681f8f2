/*
** perf_tally.c: the tally hooks of the perf.data reader (reader.h): the
** frames of a chunk's samples, each a callchains row, tallied by the
** columns a query groups on (symbol, dso, depth, ...), and a chunk's
** events rows by theirs (name, comm, symbol, dso, ...), for the engine's
** grouped output, without the rows going through SQLite one by one.
*/
#include "perf_scan.h"

uint64_t perf_tally_cols(const TlTrace *pTrace, int iTable, const TlFilter *f){
  (void)pTrace; (void)f;
  if( iTable==TL_TAB_EVENTS ){
    /* what a record shows that is not its own per row (ts, text, args,
    ** callchain, stack, srcline: made per record, not kept) */
    return ((uint64_t)1<<TL_EV_CPU) | ((uint64_t)1<<TL_EV_PID) | ((uint64_t)1<<TL_EV_TID)
         | ((uint64_t)1<<TL_EV_TRACK) | ((uint64_t)1<<TL_EV_TYPE) | ((uint64_t)1<<TL_EV_NAME)
         | ((uint64_t)1<<TL_EV_VALUE) | ((uint64_t)1<<TL_EV_IP) | ((uint64_t)1<<TL_EV_COMM)
         | PERF_COLS_IP;
  }
  if( iTable!=TL_TAB_CALLCHAINS ) return 0;
  /* (not srcline and inlined: the text of an inlined function's row is
  ** the scan's own, not kept at its address; not ts, which the engine
  ** moves for clock=) */
  return ((uint64_t)1<<TL_CC_EVENT) | ((uint64_t)1<<TL_CC_CPU)
       | ((uint64_t)1<<TL_CC_DEPTH) | ((uint64_t)1<<TL_CC_IP) | ((uint64_t)1<<TL_CC_CONTEXT)
       | ((uint64_t)1<<TL_CC_SYMBOL) | ((uint64_t)1<<TL_CC_DSO);
}

int perf_tally_open(TlTrace *pTrace, int iTable, const TlFilter *f, void **ppState, TlErr *pErr){
  const PerfData *p = pTrace->pData;
  TlScan *s = 0;
  int rc, i;
  *ppState = 0;
  if( iTable!=TL_TAB_CALLCHAINS && iTable!=TL_TAB_EVENTS ) return TL_DONE;
  for(i=0; iTable==TL_TAB_CALLCHAINS && i<p->nAttr; i++){
    /* user stacks unwound: the unwinder's modules carry over from sample to
    ** sample, so a chunk's frames may depend on the chunks before it */
    if( p->aAttr[i].sample_type & PS_STACK_USER ) return TL_DONE;
  }
  rc = perf_scan_open(pTrace, iTable, f, &s, pErr);
  if( rc ) return rc;
  /* events: a record at a time (a chunk known alike still stands for its
  ** rows), no runs: the tally knows equal rows again by their values */
  s->bRun = 0;
  s->bKeepText = 1;
  *ppState = s;
  return TL_OK;
}

void perf_tally_close(void *pState){
  perf_scan_close(pState);
}

/*
** The rows of chunk iPacket to the tally: callchains, each sample's frames
** a row each; events, each record's (a chunk whose samples are known
** alike: its rows at once).
*/
int perf_tally_packet(void *pState, size_t iPacket, TlTally *pTally, TlErr *pErr){
  TlScan *s = pState;
  TlVal a[TL_MAX_NCOL];
  TlRow row;
  int rc, nCol = s->iTable==TL_TAB_EVENTS ? TL_EV_NCOL : TL_CC_NCOL;
  s->iChunk = iPacket;
  s->iChunkEnd = iPacket + 1;
  s->bInChunk = 0;
  s->r.type = 0;                  /* (no frame left of an earlier sample) */
  s->nSrc = s->iSrc = 0;
  memset(&row, 0, sizeof(row));
  row.a = a;
  for(;;){
    int k;
    for(k=0; k<nCol; k++) a[k].t = TL_NULL;
    row.nRepeat = 0;
    rc = perf_scan_next(s, &row);
    if( rc!=TL_ROW ) break;
    if( s->err.rc ){                /* (a ":TID" name not kept) */
      rc = s->err.rc;
      break;
    }
    rc = tl_tally_add(pTally, a, row.nRepeat>1 ? (uint64_t)row.nRepeat : 1);
    if( rc ) return rc;
  }
  if( rc<0 ){
    *pErr = s->err;
    return rc;
  }
  return TL_OK;
}
