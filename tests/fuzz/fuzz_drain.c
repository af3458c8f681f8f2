/*
** fuzz_drain.c: what every fuzz target does with an opened trace: scan
** every table fully, in file order, in ts order, through a ts window with
** a CPU filter, and by rowid; then the shapes the readers answer from
** their index or grouped (no column, a ts window over ts alone, grouping
** by name, func_id or cpu), and the engine's grouped output (events by
** name, callchains by symbol: the readers' tallies).
**
** Each shape runs twice: as the engine asks for it, and as the engine
** asks under accel=off (TlFilter.bPlain, nothing grouped or ordered). The
** rows that pass the constraints (tl_filter_match, as the engine checks
** them) are compared as multisets: every repeat of a repeated row is
** expanded, with its rowid and lazy values asked of the reader as SQLite
** would (tl_query_rowid, tl_query_value), and hashed. A difference when
** both scans succeed is a bug: abort(). When exactly one of them fails (an
** accelerated count need not decode a damaged event body that the plain
** scan rejects), or a plain scan gives rows that are not plain, the
** counters tl_fuzz_drain_report() prints say so. The counted shapes (no
** column, a type, a window) run twice more with the helper thread of
** count.c counting ahead from the second packet, then from the first: it
** starts only for 1 MiB of packets or after 10 ms of counting otherwise,
** which no fuzz input has or takes.
*/
#include "fuzz_drain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "group.h"

#define FUZZ_MAX_ROWS 200000      /* per scan, repeats expanded: a bound,
                                  ** not an expectation */

/* What one scan gave: a multiset of row hashes, kept as sums. */
typedef struct DrainSum DrainSum;
struct DrainSum {
  int rc;                         /* TL_OK, or the scan's error */
  int bCut;                       /* stopped at FUZZ_MAX_ROWS: not compared */
  int bNotPlain;                  /* bPlain, and a row had repeats or lazy parts */
  uint64_t nRow;                  /* rows, repeats expanded */
  uint64_t sum, sumMix;           /* sums of the row hashes and of mix(hash) */
};

static uint64_t nPairs;           /* scans compared with their plain twin */
static uint64_t nOneFailed;       /* pairs where exactly one scan failed */
static uint64_t nNotPlain;        /* plain scans that gave accelerated rows */

/* A 64-bit mixer (the splitmix64 finalizer). */
static uint64_t mix64(uint64_t x){
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27; x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t hash_bytes(const char *z, size_t n){
  uint64_t h = 0xcbf29ce484222325ULL;   /* FNV-1a */
  size_t i;
  for(i=0; i<n; i++){ h ^= (uint8_t)z[i]; h *= 0x100000001b3ULL; }
  return h;
}

static uint64_t hash_val(const TlVal *v){
  uint64_t r;
  switch( v->t ){
    case TL_INT:  return mix64((uint64_t)v->i) ^ 1;
    case TL_REAL: memcpy(&r, &v->r, sizeof(r)); return mix64(r) ^ 2;
    case TL_TEXT: return hash_bytes(v->z, v->n) ^ 3;
    case TL_BLOB: return hash_bytes(v->z, v->n) ^ 4;
    default:      return 0x9e3779b97f4a7c15ULL;   /* NULL */
  }
}

/*
** The hash of repeat k of the current row: its rowid and the used columns
** (mCols) of the table's nCol, as SQLite would see them. < 0: the reader's
** error.
*/
static int row_hash(TlQuery *q, TlGroup *g, const TlRow *pRow, int64_t k, uint64_t mCols,
                    int nCol, uint64_t *pHash){
  TlRow row = *pRow;
  int64_t iRowid;
  uint64_t h;
  int j, rc;
  if( k>0 ) row.iRowid = TL_ROWID_LAZY;   /* as the engine's tlNext leaves it */
  rc = g ? tl_group_rowid(g, k, &iRowid) : tl_query_rowid(q, &row, k, &iRowid);
  if( rc<0 ) return rc;
  h = mix64((uint64_t)iRowid);
  for(j=0; j<nCol; j++){
    TlVal v;
    if( !((mCols >> j) & 1) ) continue;
    v = pRow->a[j];
    if( pRow->aVary && j==pRow->iVary ) v.i = pRow->aVary[k];
    if( v.t==TL_LAZY && q ){
      rc = tl_query_value(q, k, j, &v);
      if( rc<0 ) return rc;
    }
    h = mix64(h ^ hash_val(&v) ^ ((uint64_t)j << 56));
  }
  *pHash = h;
  return TL_OK;
}

/* Is the current row a plain one (one record, every part given)? */
static int row_is_plain(const TlRow *pRow, int nCol){
  int j;
  if( pRow->nRepeat>1 || pRow->iRowid==TL_ROWID_LAZY ) return 0;
  for(j=0; j<nCol; j++){
    if( pRow->a[j].t==TL_LAZY ) return 0;
  }
  return 1;
}

/* Add every repeat of the current row to *pSum; < 0: the reader's error. */
static int add_row(TlQuery *q, TlGroup *g, const TlRow *pRow, uint64_t mCols, int nCol,
                   DrainSum *pSum){
  int64_t k, nRep = pRow->nRepeat>1 ? pRow->nRepeat : 1;
  for(k=0; k<nRep; k++){
    uint64_t h = 0;
    int rc;
    if( pSum->nRow>=FUZZ_MAX_ROWS ){ pSum->bCut = 1; return TL_OK; }
    rc = row_hash(q, g, pRow, k, mCols, nCol, &h);
    if( rc<0 ) return rc;
    pSum->nRow++;
    pSum->sum += h;
    pSum->sumMix += mix64(h ^ 0x5555555555555555ULL);
  }
  return TL_OK;
}

/* The columns the drain's constraints are about (events; callchains' depth). */
static void filter_cols(int iTable, const TlFilter *f, TlFilterCols *c){
  memset(c, 0, sizeof(*c));
  c->iTs = c->iCpu = c->iKey = -1;
  if( iTable==TL_TAB_EVENTS ){
    c->iTs = TL_EV_TS;
    c->iCpu = TL_EV_CPU;
    c->iType = TL_EV_TYPE;
    c->nType = f->zType ? strlen(f->zType) : 0;
  }
  if( iTable==TL_TAB_CALLCHAINS ) c->iDepth = TL_CC_DEPTH;
}

/*
** Scan table iTable with f into *pSum; mGroupBy not 0: the engine's grouped
** output by those columns (from the reader's tallies when it has them),
** the columns of mVary varying (a few KiB of them in memory, the rest in
** the temporary file).
*/
static void drain(TlTrace *pTrace, int iTable, const TlFilter *f, uint64_t mGroupBy,
                  uint64_t mVary, DrainSum *pSum){
  TlQuery *q = 0;
  TlGroup *g = 0;
  TlFilterCols cols;
  TlErr err;
  TlRow row;
  uint64_t mCols = f->mCols;
  int nCol = tl_table_ncol(iTable);
  int rc;
  memset(pSum, 0, sizeof(*pSum));
  filter_cols(iTable, f, &cols);
  /* packets.args counts the reads of each packet so far: not a row value */
  if( iTable==TL_TAB_PACKETS ) mCols &= ~((uint64_t)1<<TL_PK_ARGS);
  tl_err_clear(&err);
  if( mGroupBy ){
    pSum->rc = tl_group_open(pTrace, iTable, nCol, f, &cols, mGroupBy, &g, &err);
    if( g && mVary ){
      tl_group_set_vary(g, mVary);
      tl_group_set_vary_cap(g, 4096);
    }
  }else{
    pSum->rc = tl_query_open(pTrace, iTable, f, &q, &err);
  }
  if( pSum->rc ) return;
  memset(&row, 0, sizeof(row));
  while( !pSum->bCut ){
    rc = g ? tl_group_next(g, &row) : tl_query_next(q, &row);
    if( rc==TL_DONE ) break;
    if( rc<0 ){ pSum->rc = rc; break; }
    if( f->bPlain && !row_is_plain(&row, nCol) ) pSum->bNotPlain = 1;
    if( !tl_filter_match(f, &cols, &row) ) continue;
    rc = add_row(q, g, &row, mCols, nCol, pSum);
    if( rc<0 ){ pSum->rc = rc; break; }
  }
  tl_query_close(q);
  tl_group_close(g);
}

/*
** Scan with f as the engine would ask, then as it asks under accel=off,
** and compare what came out.
*/
static void drain_pair_vary(TlTrace *pTrace, int iTable, const TlFilter *f, uint64_t mGroupBy,
                            uint64_t mVary){
  TlFilter plain = *f;
  DrainSum a, b;
  plain.bPlain = 1;
  plain.bOrdered = 0;
  drain(pTrace, iTable, f, mGroupBy, mVary, &a);
  drain(pTrace, iTable, &plain, 0, 0, &b);
  nPairs++;
  if( b.bNotPlain ) nNotPlain++;
  if( (a.rc<0)!=(b.rc<0) ){ nOneFailed++; return; }
  if( a.rc<0 || a.bCut || b.bCut ) return;
  if( a.nRow!=b.nRow || a.sum!=b.sum || a.sumMix!=b.sumMix ){
    fprintf(stderr, "drain: table %d gives other rows under accel=off: %llu rows, "
            "%llu plain (mCols %llx, bOrdered %d, varying %llx, "
            "nCpu %d, bRowid %d, type %s)\n", iTable,
            (unsigned long long)a.nRow, (unsigned long long)b.nRow,
            (unsigned long long)f->mCols, f->bOrdered, (unsigned long long)mVary,
            f->nCpu, f->bRowid, f->zType ? f->zType : "-");
    abort();
  }
}

static void drain_pair_by(TlTrace *pTrace, int iTable, const TlFilter *f, uint64_t mGroupBy){
  drain_pair_vary(pTrace, iTable, f, mGroupBy, 0);
}

static void drain_pair(TlTrace *pTrace, int iTable, const TlFilter *f){
  drain_pair_by(pTrace, iTable, f, 0);
}

/* drain_pair(), and again with counts ahead on a helper thread from the
** second packet on, then from the first. */
static void drain_pair_ahead(TlTrace *pTrace, int iTable, const TlFilter *f){
  int64_t nAfter = tl_count_ahead_after_ns;
  uint64_t nBytes = tl_count_ahead_bytes;
  drain_pair(pTrace, iTable, f);
  tl_count_ahead_after_ns = 0;
  drain_pair(pTrace, iTable, f);
  tl_count_ahead_after_ns = nAfter;
  tl_count_ahead_bytes = 0;
  drain_pair(pTrace, iTable, f);
  tl_count_ahead_bytes = nBytes;
}

static void filter_init(TlFilter *f){
  memset(f, 0, sizeof(*f));
  f->tsLo = TL_TS_MIN; f->tsHi = TL_TS_MAX;
  f->nCpu = -1;
  f->mCols = ~(uint64_t)0;
}

/* The events shapes: orders, windows, rowid, counts, groupings. */
static void drain_events(TlTrace *pTrace, int64_t iRowid){
  const int iTable = TL_TAB_EVENTS;
  int64_t aCpu[2] = { 0, 1 };
  TlFilter f;
  filter_init(&f);
  f.bOrdered = (pTrace->mOrdered >> iTable) & 1;
  drain_pair(pTrace, iTable, &f);
  f.tsLo = 1000; f.tsHi = 2000000000;
  f.aCpu = aCpu; f.nCpu = 2;
  drain_pair(pTrace, iTable, &f);
  filter_init(&f);
  f.bRowid = 1; f.iRowid = iRowid;
  drain_pair(pTrace, iTable, &f);
  /* count(*), also SAMPLE rows only; a window over ts alone */
  filter_init(&f);
  f.mCols = 0;
  drain_pair_ahead(pTrace, iTable, &f);
  f.zType = "SAMPLE";
  f.mCols = (uint64_t)1<<TL_EV_TYPE;
  drain_pair_ahead(pTrace, iTable, &f);
  filter_init(&f);
  f.tsLo = 1000; f.tsHi = 2000000000;
  f.mCols = ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_TS_RAW);
  drain_pair_ahead(pTrace, iTable, &f);
  /* grouped by name; cpu and value (the columns a run compares) */
  filter_init(&f);
  f.mCols = (uint64_t)1<<TL_EV_NAME;
  drain_pair_by(pTrace, iTable, &f, f.mCols);
  f.aCpu = aCpu; f.nCpu = 2;
  f.mCols |= (uint64_t)1<<TL_EV_CPU;
  drain_pair_by(pTrace, iTable, &f, f.mCols);
  /* GROUP BY comm, symbol, dso of the SAMPLE rows, with their values (the
  ** model's columns: perf tallies them per chunk) */
  filter_init(&f);
  f.zType = "SAMPLE";
  f.mCols = ((uint64_t)1<<TL_EV_TYPE) | ((uint64_t)1<<TL_EV_COMM) | ((uint64_t)1<<TL_EV_SYMBOL)
          | ((uint64_t)1<<TL_EV_DSO) | ((uint64_t)1<<TL_EV_VALUE);
  drain_pair_by(pTrace, iTable, &f, ((uint64_t)1<<TL_EV_COMM) | ((uint64_t)1<<TL_EV_SYMBOL)
                                    | ((uint64_t)1<<TL_EV_DSO));
  /* GROUP BY name with min(ts), max(ts): ts varying within a name */
  filter_init(&f);
  f.mCols = ((uint64_t)1<<TL_EV_NAME) | ((uint64_t)1<<TL_EV_TS);
  drain_pair_vary(pTrace, iTable, &f, (uint64_t)1<<TL_EV_NAME, (uint64_t)1<<TL_EV_TS);
  filter_init(&f);
  f.mCols = ((uint64_t)1<<TL_EV_CPU) | ((uint64_t)1<<TL_EV_VALUE);
  drain_pair(pTrace, iTable, &f);
}

void tl_fuzz_drain(TlTrace *pTrace, int64_t iRowid){
  TlFilter f;
  int iTable;
  for(iTable=0; iTable<TL_TAB_COUNT; iTable++){
    filter_init(&f);
    drain_pair(pTrace, iTable, &f);
    if( iTable==TL_TAB_EVENTS ) drain_events(pTrace, iRowid);
    if( iTable==TL_TAB_SCHED_SLICES || iTable==TL_TAB_THREAD_STATES
     || iTable==TL_TAB_CALLS || iTable==TL_TAB_SYSCALLS ){
      /* the scheduling model's, and the calls', ts window and CPU set */
      static const int64_t aCpu[1] = { 1 };
      filter_init(&f);
      f.tsLo = 1000; f.tsHi = 2000000000;
      f.aCpu = aCpu; f.nCpu = 1;
      drain_pair(pTrace, iTable, &f);
    }
    if( iTable==TL_TAB_CALLCHAINS ){
      /* GROUP BY symbol, and by symbol at depth 0 (tallied per chunk) */
      filter_init(&f);
      f.mCols = (uint64_t)1<<TL_CC_SYMBOL;
      drain_pair_by(pTrace, iTable, &f, f.mCols);
      f.bDepth = 1; f.depthLo = f.depthHi = 0;
      f.mCols |= (uint64_t)1<<TL_CC_DEPTH;
      drain_pair_by(pTrace, iTable, &f, (uint64_t)1<<TL_CC_SYMBOL);
    }
    if( iTable==TL_TAB_XRAY_CALLS || iTable==TL_TAB_CALLS ){
      /* GROUP BY func_id with sum(dur), dur varying (tallied by XRay) */
      filter_init(&f);
      f.mCols = ((uint64_t)1<<TL_XC_FUNC_ID) | ((uint64_t)1<<TL_XC_NAME) | ((uint64_t)1<<TL_XC_DUR);
      drain_pair_vary(pTrace, iTable, &f, (uint64_t)1<<TL_XC_FUNC_ID, (uint64_t)1<<TL_XC_DUR);
    }
  }
}

void tl_fuzz_drain_report(void){
  if( nPairs==0 ) return;
  printf("drain: %llu scans compared with accel=off; in %llu only one of the two "
         "failed; %llu plain scans gave accelerated rows\n",
         (unsigned long long)nPairs, (unsigned long long)nOneFailed,
         (unsigned long long)nNotPlain);
}
