/*
** perf_merge.c: the records of a trace in time order across a directory's
** files, for what is derived from every record at once (the thread list,
** the maps of the symbols model).
**
** The records of every region (the data section, or a directory's files)
** one after the other, or, for a directory, merged by time: each file's
** next record in turn, the one of the least time (a record without one
** takes the time before it in its file), a tie to the lower file, as the
** engine merges streams. perf writes a directory's files nearly in time
** order (side-band records may come late); a late record is taken where
** its file gives it.
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

/* Region k's next record of a known type that decodes: TL_ROW, TL_DONE or < 0. */
static int merge_in_next(const PerfData *p, PerfMergeIn *x, int64_t *pTs, TlErr *pErr){
  for(;;){
    int rc = perf_walk_next(&x->w, &x->r);
    if( rc==TL_ECORRUPT ){ tl_err_clear(pErr); rc = TL_DONE; }   /* (the open warned) */
    if( rc!=TL_ROW ) return rc;
    if( tl_perf_type_name(x->r.type)==0 || rec_info(p, &x->r, &x->ri) ) continue;
    if( x->ri.bTs ) *pTs = x->ri.ts;
    return TL_ROW;
  }
}

int perf_merge_open(PerfMerge *t, TlTrace *pTrace, const PerfData *p, TlErr *pErr){
  int k;
  memset(t, 0, sizeof(*t));
  t->iLast = -1;
  t->n = perf_ranges(p);
  t->a = calloc((size_t)t->n, sizeof(PerfMergeIn));
  t->aTs = calloc((size_t)t->n, sizeof(int64_t));
  if( t->a==0 || t->aTs==0 || tl_heap_init(&t->heap, t->n, t->aTs) ) return TL_ENOMEM;
  for(k=0; k<t->n; k++){
    uint64_t iStart, iEnd;
    int rc;
    perf_range(p, k, &iStart, &iEnd);
    perf_walk_init(&t->a[k].w, pTrace, p, iStart, iEnd, pErr);
    /* one region, walked onward to its end: read ahead on a helper (a
    ** directory's files are walked a little of each in turn) */
    if( t->n==1 ) perf_walk_ahead(&t->a[k].w);
    t->aTs[k] = TL_TS_MIN;
    rc = merge_in_next(p, &t->a[k], &t->aTs[k], pErr);
    if( rc<0 ) return rc;
    if( rc==TL_ROW ) tl_heap_push(&t->heap, k);
  }
  return TL_OK;
}

int perf_merge_next(PerfMerge *t, const PerfData *p, TlErr *pErr, PerfMergeIn **ppIn){
  int k = t->iLast;
  if( k>=0 ){
    int rc = merge_in_next(p, &t->a[k], &t->aTs[k], pErr);
    if( rc<0 ) return rc;
    if( rc==TL_ROW ) tl_heap_top_moved(&t->heap);
    else tl_heap_pop(&t->heap);
  }
  k = t->iLast = tl_heap_top(&t->heap);
  if( k<0 ) return TL_DONE;
  *ppIn = &t->a[k];
  return TL_ROW;
}

void perf_merge_close(PerfMerge *t){
  int k;
  for(k=0; t->a && k<t->n; k++) perf_walk_free(&t->a[k].w);
  free(t->a);
  free(t->aTs);
  tl_heap_free(&t->heap);
}

