/*
** trace.h: opening traces, the per-process trace cache, and queries.
**
** tl_trace_open() finds the format by content (or by the format= option),
** runs the reader's xOpen (metadata + packet index) and keeps the result in
** a process-wide cache keyed by (device, inode, size, mtime, options; not
** the query's own progress= and accel=), so that later queries and other
** connections reuse the parsed metadata and the index. Cache access is
** serialized by a mutex; an opened trace is read-only and shared between
** threads.
**
** A TlQuery is one scan of one table: the reader's own scan, or, for the
** packets and trace_warnings tables, a walk of what the trace holds.
*/
#ifndef TL_TRACE_H
#define TL_TRACE_H

#include <string.h>

#include "reader.h"

/*
** Open (or find in the cache) the trace at zPath with options zOptions
** (may be NULL). On success *ppTrace holds a reference that must be given
** back with tl_trace_release(). On failure pErr says why.
*/
int tl_trace_open(const char *zPath, const char *zOptions, TlTrace **ppTrace,
                  TlErr *pErr);

/* The same with the options already parsed (checked here). */
int tl_trace_open_opts(const char *zPath, const TlOpts *pOpts,
                       TlTrace **ppTrace, TlErr *pErr);

/*
** tl_trace_open_opts() for a query of table iTable using columns mCols:
** when the trace is opened now (not found in the cache), its reader's
** xOpen sees them (TlTrace.iOpenTable, mOpenCols) and may start early on
** what the query will need.
*/
int tl_trace_open_for(const char *zPath, const TlOpts *pOpts, int iTable, uint64_t mCols,
                      TlTrace **ppTrace, TlErr *pErr);

/*
** A query's own options, which are not part of the cache key (the trace a
** query gets may have been opened without them), for TlFilter: the
** progress= mode (TL_PROGRESS_*; auto when absent or invalid), and whether
** accel=off asks for a plain scan (TlFilter.bPlain; 0 when absent or
** invalid). tl_trace_open_opts reports invalid values.
*/
int tl_trace_opts_progress(const TlOpts*);
int tl_trace_opts_plain(const TlOpts*);
void tl_trace_release(TlTrace*);   /* NULL-safe */

/*
** Open a trace held in memory (fuzzers, tests), outside the cache. The n
** bytes at a are borrowed and must outlive the trace. Release it with
** tl_trace_release().
*/
int tl_trace_open_mem(const void *a, size_t n, const char *zOptions,
                      TlTrace **ppTrace, TlErr *pErr);

/* Drop every unreferenced cached trace (tests, and the extension's unload). */
void tl_trace_cache_clear(void);

/* Number of traces in the cache (tests). */
int tl_trace_cache_count(void);

/*
** The format the file or directory zPath looks like ("perf", "ctf", ...),
** by the probes tl_trace_open() uses, or NULL when no reader claims it or
** it cannot be read. Reads at most the first 4 KiB of a regular file; any
** other kind of file (FIFO, device) gives NULL. The name is static.
*/
const char *tl_trace_sniff(const char *zPath);

/* The reader named zName, or NULL. */
const TlReaderDef *tl_reader_find(const char *zName);

/*
** The filter f as the reader sees it: its ts window moved back onto the
** trace's own clock (clock=), as tl_query_open() gives it to the reader.
*/
void tl_trace_reader_filter(const TlTrace*, TlFilter *f);

/* Estimated number of records in the trace (>=1). */
double tl_trace_estimate(TlTrace*);

typedef struct TlQuery TlQuery;

/*
** Start a scan of table iTable. *ppQuery is set even when the table has no
** rows (then the first tl_query_next returns TL_DONE).
*/
int tl_query_open(TlTrace*, int iTable, const TlFilter*, TlQuery **ppQuery,
                  TlErr *pErr);

/* TL_ROW (pRow->a points at the query's values), TL_DONE, or < 0. */
int tl_query_next(TlQuery*, TlRow *pRow);

/*
** The current row's rowid (of its iRepeat-th repeat when the row has
** nRepeat): pRow->iRowid, or, when the reader left it TL_ROWID_LAZY, the
** one the reader works out (TL_OK, or a negative code with the error in
** tl_query_err).
*/
int tl_query_rowid(TlQuery*, const TlRow *pRow, int64_t iRepeat, int64_t *piRowid);
/* Column iCol of the iRepeat-th repeat of the current row, which gave it as
** TL_LAZY: TL_OK with *pOut, or < 0 (tl_query_err). */
int tl_query_value(TlQuery*, int64_t iRepeat, int iCol, TlVal *pOut);

/*
** Column iCol of repeat k of row pRow, which query q gave: a varying
** column's value from aVary, a lazy one asked of q (left TL_LAZY when q is
** NULL), else the row's own. TL_OK, or < 0 (tl_query_err).
*/
static inline int tl_query_row_value(TlQuery *q, const TlRow *pRow, int64_t k, int iCol,
                                     TlVal *pOut){
  *pOut = pRow->a[iCol];
  if( pOut->t==TL_LAZY ) return q ? tl_query_value(q, k, iCol, pOut) : TL_OK;
  if( pRow->aVary && iCol==pRow->iVary ) tl_val_int(pOut, pRow->aVary[k]);
  return TL_OK;
}

/* The number of columns of table iTable (TL_TAB_*). */
int tl_table_ncol(int iTable);

/*
** The columns of a table that a TlFilter's constraints are about, for
** tl_filter_match.
*/
typedef struct TlFilterCols TlFilterCols;
struct TlFilterCols {
  int iTs, iCpu, iKey;            /* ts, cpu and key column, or -1 */
  int iDepth, iType;              /* depth and type column, or 0 */
  size_t nType;                   /* strlen(zType) when the filter has one */
};

/*
** Does pRow pass every constraint of f exactly? Readers treat the filter
** as a hint; this is the check after them. A TL_LAZY ts, cpu or type
** passes: the reader vouches for every repeat of the row.
*/
static inline int tl_filter_match(const TlFilter *f, const TlFilterCols *c,
                                  const TlRow *pRow){
  const TlVal *a = pRow->a;
  if( f->bRowid && pRow->iRowid!=f->iRowid ) return 0;
  if( c->iTs>=0 && (f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX) ){
    const TlVal *v = &a[c->iTs];
    if( v->t!=TL_LAZY && (v->t!=TL_INT || v->i<f->tsLo || v->i>f->tsHi) ) return 0;
  }
  if( c->iCpu>=0 && f->nCpu>=0 && a[c->iCpu].t!=TL_LAZY ){
    const TlVal *v = &a[c->iCpu];
    int lo = 0, hi = f->nCpu;
    if( v->t!=TL_INT ) return 0;
    while( lo<hi ){                 /* aCpu is sorted */
      int mid = (lo+hi)/2;
      if( f->aCpu[mid]<v->i ) lo = mid+1; else hi = mid;
    }
    if( lo>=f->nCpu || f->aCpu[lo]!=v->i ) return 0;
  }
  if( c->iKey>=0 && f->bKey ){
    const TlVal *v = &a[c->iKey];
    if( v->t!=TL_INT || v->i!=f->iKey ) return 0;
  }
  if( c->iDepth>0 && f->bDepth ){
    const TlVal *v = &a[c->iDepth];
    if( v->t!=TL_INT || v->i<f->depthLo || v->i>f->depthHi ) return 0;
  }
  if( c->iType>0 && f->zType ){
    const TlVal *v = &a[c->iType];
    if( v->t!=TL_LAZY && (v->t!=TL_TEXT || v->n!=c->nType || memcmp(v->z, f->zType, v->n)!=0) ) return 0;
  }
  return 1;
}

/* The error after tl_query_next returned < 0. */
const TlErr *tl_query_err(TlQuery*);

void tl_query_close(TlQuery*);     /* NULL-safe */

/* Options every trace accepts, whatever its format. */
extern const char *const tl_common_options[];

#endif /* TL_TRACE_H */
