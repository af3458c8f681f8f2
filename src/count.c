/*
** count.c: counted scans (count.h). One row per packet that holds rows
** passing the filter, standing for them (TlRow.nRepeat); the reader counts
** them by its cheapest means and answers rowids and values when asked.
**
** A helper thread counts packets ahead of the rows given, with a reader
** state of its own, from the start when the packets that may match need
** 1 MiB or more read to count them (xPacketCountBytes), else once the
** scan has spent 10 ms counting alone (quicker counts, and counts the
** index answers, do not pay for a thread and a reader state: the time
** SQLite spends on the rows is not counted), when two packets or
** more may still match, the index knowing each one's start time (so each
** is counted on its own: a CTF packet with no timestamp_begin takes its
** clock from the one before).
** Both threads take the next packet not yet taken, in index order, at most
** COUNT_AHEAD past the row given; the rows are still given in index order.
** The state that counted a packet may have moved on when its row is given,
** so rowids and values come from a third state, which counts the given
** row's packet again first (forward only: rows come in index order). A
** packet whose count failed is counted again there, so the error is the
** one the scan meets first, after every row before it.
*/
#include "count.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define COUNT_AHEAD 8                 /* packets counted ahead of the row given */

/* Nanoseconds of counting alone before a helper starts (count.h). */
int64_t tl_count_ahead_after_ns = 10000000;

/* Bytes to read to count the packets that may match (xPacketCountBytes)
** from which a helper starts with the scan (count.h). */
uint64_t tl_count_ahead_bytes = (uint64_t)1 << 20;

/* Helper threads started by counted scans so far (count.h). */
uint64_t tl_count_helpers = 0;
#define COUNT_TEXT 128                /* bytes of a counted row's text kept */

typedef struct CountSlot CountSlot;
struct CountSlot {
  int eState;                       /* SLOT_* */
  uint64_t n;                       /* rows of the packet */
  TlVal aRow[TL_MAX_NCOL];          /* the values the count set */
  char aText[COUNT_TEXT];           /* their text, copied */
};
#define SLOT_TAKEN 1                  /* being counted */
#define SLOT_DONE  2                  /* counted: n, aRow */
#define SLOT_AGAIN 3                  /* failed, or text too long: count again to give it */

typedef struct CountAhead CountAhead;
struct CountAhead {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;                /* a slot done, or room to count ahead */
  void *pHelper;                    /* the helper's reader state */
  void *pValues;                    /* the state rowids and values come from */
  size_t iValues;                   /* the packet it counted last (SIZE_MAX none) */
  size_t *aPkt, nPkt;               /* the packets that may match: the jobs */
  size_t iTake;                     /* the next job not taken */
  size_t iGive;                     /* the job whose row is given next, or is given */
  int bGiven;                       /* job iGive's row is given */
  int bStop;                        /* (atomic) the helper stops */
  uint64_t nBytes;                  /* (atomic) bytes of the packets the helper counted */
  uint64_t nNoted;                  /* of them, passed on to the progress line */
  CountSlot aSlot[COUNT_AHEAD];     /* job j's in aSlot[j % COUNT_AHEAD] */
};

struct TlCount {
  TlTrace *pTrace;
  const TlReaderDef *pReader;
  TlFilter f;                     /* the scan's filter (aCpu borrowed) */
  void *pState;                   /* the reader's */
  int nCol;                       /* the table's columns */
  uint64_t mLazy;                 /* columns counted rows give (the used ones and
                                  ** those the filter is about, unused or not):
                                  ** TL_LAZY unless the reader fixes them */
  size_t iNext;                   /* next packet to count */
  size_t iCur;                    /* the current row's packet */
  uint64_t nCur;                  /* its rows */
  int iTable;
  CountAhead *pAhead;             /* counting ahead on a helper thread, or NULL */
  int bAheadTried;                /* ahead_start() was called */
  int64_t nsCounted;              /* nanoseconds counting alone so far */
  TlErr err;
};

/* The columns of a table of nCol columns (not the hidden ones). */
static uint64_t visible_cols(int nCol){
  return nCol>=64 ? ~(uint64_t)0 : (((uint64_t)1<<nCol) - 1);
}

/*
** May a scan with filter f be counted by the trace's reader? 1 with
** *pmCols the columns counted rows give (the used ones among them), or 0.
*/
static int count_allowed(const TlTrace *pTrace, int iTable, int nCol, const TlFilter *f,
                         uint64_t *pmCols){
  const TlReaderDef *r = pTrace->pReader;
  if( !r->xCountCols || !r->xCountOpen || !r->xPacketCount || !r->xPacketValue ) return 0;
  if( f->bPlain || f->bOrdered ) return 0;
  if( f->bRowid || f->bKey || f->bDepth ) return 0;
  if( iTable<0 || iTable>=32 || !((r->mCount>>iTable) & 1) ) return 0;
  *pmCols = r->xCountCols(pTrace, iTable, f) & visible_cols(nCol);
  return (f->mCols & visible_cols(nCol) & ~*pmCols)==0;
}

/* Count packet i with reader state pState into n and a (the lazy columns TL_LAZY). */
static int count_packet(const TlCount *c, void *pState, size_t i, uint64_t *pn, TlVal *a,
                        TlErr *pErr){
  int j, rc;
  for(j=0; j<c->nCol; j++) a[j].t = (c->mLazy>>j & 1) ? TL_LAZY : TL_NULL;
  *pn = 0;
  rc = c->pReader->xPacketCount(pState, i, pn, a, pErr);
  if( rc<0 && pErr->rc==0 ) tl_err_set(pErr, rc, TL_NO_OFFSET, "counting a packet failed");
  return rc<0 ? pErr->rc : TL_OK;
}

/* ---- counting ahead on a helper thread ------------------------------------ */

/* Keep a count's values in slot s, its text copied: SLOT_DONE, or SLOT_AGAIN
** when the text does not fit. */
static int slot_keep(const TlCount *c, CountSlot *s, uint64_t n, const TlVal *a){
  size_t nText = 0;
  int j;
  s->n = n;
  for(j=0; j<c->nCol; j++){
    s->aRow[j] = a[j];
    if( (a[j].t==TL_TEXT || a[j].t==TL_BLOB) && !a[j].bKept ){
      if( a[j].n > COUNT_TEXT - nText ) return SLOT_AGAIN;
      if( a[j].n ) memcpy(s->aText + nText, a[j].z, a[j].n);
      s->aRow[j].z = s->aText + nText;
      nText += a[j].n;
    }
  }
  return SLOT_DONE;
}

/*
** Take the next job and count it with state pState (the caller holds the
** lock, released while it counts): 1 when there was one to take, else 0.
*/
static int ahead_count_one(TlCount *c, void *pState, int bHelper){
  CountAhead *h = c->pAhead;
  size_t j = h->iTake, i;
  CountSlot *s;
  TlVal a[TL_MAX_NCOL];
  TlErr err;
  uint64_t n;
  int e;
  if( j>=h->nPkt || j>=h->iGive + COUNT_AHEAD ) return 0;
  h->iTake++;
  s = &h->aSlot[j % COUNT_AHEAD];
  s->eState = SLOT_TAKEN;
  i = h->aPkt[j];
  pthread_mutex_unlock(&h->mu);
  tl_err_clear(&err);
  e = count_packet(c, pState, i, &n, a, &err)==TL_OK ? slot_keep(c, s, n, a) : SLOT_AGAIN;
  if( bHelper ) __atomic_add_fetch(&h->nBytes, c->pTrace->index.a[i].nSize, __ATOMIC_RELAXED);
  pthread_mutex_lock(&h->mu);
  s->eState = e;
  pthread_cond_broadcast(&h->cv);
  if( e==SLOT_AGAIN && bHelper ){
    __atomic_store_n(&h->bStop, 1, __ATOMIC_RELAXED);   /* (the rest is counted in turn) */
  }
  return 1;
}

/* The xStop of the helper's TlPoll: the scan ends. */
static int ahead_stopped(void *pArg){
  CountAhead *h = pArg;
  return __atomic_load_n(&h->bStop, __ATOMIC_RELAXED);
}

static void *ahead_main(void *pArg){
  TlCount *c = pArg;
  CountAhead *h = c->pAhead;
  TlPoll poll, *pPrev;
  memset(&poll, 0, sizeof(poll));
  poll.xStop = ahead_stopped;       /* (its window reads stop when the scan does) */
  poll.pArg = h;
  pPrev = tl_poll_swap(&poll);
  pthread_mutex_lock(&h->mu);
  while( !ahead_stopped(h) && h->iTake<h->nPkt ){
    if( !ahead_count_one(c, h->pHelper, 1) ) pthread_cond_wait(&h->cv, &h->mu);
  }
  pthread_mutex_unlock(&h->mu);
  tl_poll_swap(pPrev);
  return 0;
}

/*
** Count the packets from c->iNext on ahead, when two or more may match, each
** with its start time in the index, needing nMin bytes or more read to count
** them (xPacketCountBytes, else their content),
** and there is a second core. Failing to, the scan counts alone (nothing is
** lost but time).
*/
static void ahead_start(TlCount *c, uint64_t nMin){
  const TlIndex *x = &c->pTrace->index;
  const TlFilter *f = &c->f;
  CountAhead *h;
  TlErr err;
  size_t i, n = 0;
  uint64_t nBytes = 0, nPkt;
  long nCpu = sysconf(_SC_NPROCESSORS_ONLN);
  if( nCpu<2 ) return;
  for(i=c->iNext; i<x->n; i++){
    if( !tl_packet_may_match(&x->a[i], f->tsLo, f->tsHi, f->aCpu, f->nCpu) ) continue;
    if( x->a[i].tsBegin==TL_TS_MIN ) return;
    nPkt = c->pReader->xPacketCountBytes ? c->pReader->xPacketCountBytes(c->pState, i)
         : x->a[i].nContent ? x->a[i].nContent : x->a[i].nSize;
    nBytes = nPkt > UINT64_MAX - nBytes ? UINT64_MAX : nBytes + nPkt;
    n++;
  }
  if( n<2 || nBytes<nMin || (h = calloc(1, sizeof(*h)))==0 ) return;
  h->aPkt = malloc(n*sizeof(size_t));
  tl_err_clear(&err);
  if( h->aPkt==0 || c->pReader->xCountOpen(c->pTrace, c->iTable, f, &h->pHelper, &err)!=TL_OK ){
    free(h->aPkt);
    free(h);
    return;
  }
  for(i=c->iNext; i<x->n; i++){
    if( tl_packet_may_match(&x->a[i], f->tsLo, f->tsHi, f->aCpu, f->nCpu) ) h->aPkt[h->nPkt++] = i;
  }
  h->iValues = SIZE_MAX;
  pthread_mutex_init(&h->mu, 0);
  pthread_cond_init(&h->cv, 0);
  c->pAhead = h;
  if( pthread_create(&h->th, 0, ahead_main, c)!=0 ){
    c->pAhead = 0;
    c->pReader->xCountClose(h->pHelper);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h->aPkt);
    free(h);
    return;
  }
  __atomic_add_fetch(&tl_count_helpers, 1, __ATOMIC_RELAXED);
}

static void ahead_end(TlCount *c){
  CountAhead *h = c->pAhead;
  if( h==0 ) return;
  pthread_mutex_lock(&h->mu);
  __atomic_store_n(&h->bStop, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
  pthread_join(h->th, 0);
  c->pReader->xCountClose(h->pHelper);
  if( h->pValues ) c->pReader->xCountClose(h->pValues);
  pthread_cond_destroy(&h->cv);
  pthread_mutex_destroy(&h->mu);
  free(h->aPkt);
  free(h);
  c->pAhead = 0;
}

/* Count packet i where rowids and values come from (h->pValues, opened
** on first use): TL_OK with *pn and a, or an error in c's. */
static int ahead_count_values(TlCount *c, size_t i, uint64_t *pn, TlVal *a){
  CountAhead *h = c->pAhead;
  int rc;
  if( h->pValues==0 ){
    rc = c->pReader->xCountOpen(c->pTrace, c->iTable, &c->f, &h->pValues, &c->err);
    if( rc!=TL_OK ){
      h->pValues = 0;
      if( c->err.rc==0 ) tl_err_set(&c->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      return c->err.rc;
    }
  }
  h->iValues = SIZE_MAX;
  rc = count_packet(c, h->pValues, i, pn, a, &c->err);
  if( rc==TL_OK ) h->iValues = i;
  return rc;
}

/* The state the current row's rowids and values come from, its packet counted. */
static int ahead_values(TlCount *c, void **ppState){
  CountAhead *h = c->pAhead;
  TlVal a[TL_MAX_NCOL];
  uint64_t n;
  int rc;
  if( h->iValues!=c->iCur || h->pValues==0 ){
    rc = ahead_count_values(c, c->iCur, &n, a);
    if( rc ) return rc;
    if( n!=c->nCur ){
      return tl_err_set(&c->err, TL_ECORRUPT, TL_NO_OFFSET,
                        "packet %zu held %llu rows of the scan, then %llu (changed while read?)",
                        c->iCur, (unsigned long long)c->nCur, (unsigned long long)n);
    }
  }
  *ppState = h->pValues;
  return TL_OK;
}

/* Wait (the lock held) for a slot's count, up to TL_POLL_MS; then poll. */
static int ahead_wait(TlCount *c){
  CountAhead *h = c->pAhead;
  int rc;
  tl_cond_wait_poll(&h->cv, &h->mu);
  pthread_mutex_unlock(&h->mu);
  rc = tl_poll(&c->err);
  pthread_mutex_lock(&h->mu);
  return rc;
}

/*
** The next row of a scan counted ahead: job iGive's, once counted (by
** either thread; while the helper counts it, this thread counts the jobs
** after it). TL_ROW, TL_DONE or < 0 with the error in c's.
*/
static int ahead_next(TlCount *c, TlRow *pRow){
  CountAhead *h = c->pAhead;
  uint64_t nBytes;
  int rc = TL_DONE;
  pthread_mutex_lock(&h->mu);
  if( h->bGiven ){
    h->iGive++;                     /* (the row given last is done with) */
    h->bGiven = 0;
    pthread_cond_broadcast(&h->cv);
  }
  c->iCur = SIZE_MAX;
  while( h->iGive<h->nPkt ){
    CountSlot *s = &h->aSlot[h->iGive % COUNT_AHEAD];
    size_t i = h->aPkt[h->iGive];
    uint64_t n;
    if( h->iGive>=h->iTake || s->eState==SLOT_TAKEN ){
      if( !ahead_count_one(c, c->pState, 0) && (rc = ahead_wait(c))<0 ) break;
      rc = TL_DONE;
      continue;
    }
    if( s->eState==SLOT_AGAIN ){
      /* counted again in turn: the error a scan meets first, or the row */
      pthread_mutex_unlock(&h->mu);
      rc = ahead_count_values(c, i, &n, pRow->a);
      pthread_mutex_lock(&h->mu);
      if( rc<0 ) break;
    }else{
      n = s->n;
      memcpy(pRow->a, s->aRow, (size_t)c->nCol*sizeof(TlVal));
    }
    if( n==0 ){
      h->iGive++;
      pthread_cond_broadcast(&h->cv);
      rc = TL_DONE;
      continue;
    }
    c->iCur = i;
    c->nCur = n;
    h->bGiven = 1;
    pRow->iRowid = TL_ROWID_LAZY;
    pRow->nRepeat = (int64_t)n;
    rc = TL_ROW;
    break;
  }
  pthread_mutex_unlock(&h->mu);
  nBytes = __atomic_load_n(&h->nBytes, __ATOMIC_RELAXED);
  tl_progress_add(nBytes - h->nNoted);
  h->nNoted = nBytes;
  return rc;
}

/* ---- the engine's side ----------------------------------------------------- */

int tl_count_open(TlTrace *pTrace, int iTable, int nCol, const TlFilter *f, TlCount **ppCount,
                  TlErr *pErr){
  TlCount *c;
  uint64_t mCols = 0;
  int rc;
  *ppCount = 0;
  if( !count_allowed(pTrace, iTable, nCol, f, &mCols) ) return TL_DONE;
  c = calloc(1, sizeof(*c));
  if( c==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  rc = pTrace->pReader->xCountOpen(pTrace, iTable, f, &c->pState, pErr);
  if( rc ){
    free(c);
    return rc;
  }
  c->pTrace = pTrace;
  c->pReader = pTrace->pReader;
  c->f = *f;
  c->nCol = nCol;
  c->iTable = iTable;
  c->mLazy = mCols;
  c->iCur = SIZE_MAX;
  tl_err_clear(&c->err);
  *ppCount = c;
  return TL_OK;
}

int tl_count_next(TlCount *c, TlRow *pRow){
  const TlIndex *x = &c->pTrace->index;
  const TlFilter *f = &c->f;
  if( c->err.rc ) return c->err.rc;
  if( c->pAhead ) return ahead_next(c, pRow);
  if( c->iNext==0 ){
    /* much to count: a helper from the start; else once counting takes long */
    ahead_start(c, tl_count_ahead_bytes);
    if( c->pAhead ){
      c->bAheadTried = 1;
      return ahead_next(c, pRow);
    }
  }
  while( c->iNext < x->n ){
    size_t i = c->iNext++;
    uint64_t n = 0;
    if( !tl_packet_may_match(&x->a[i], f->tsLo, f->tsHi, f->aCpu, f->nCpu) ) continue;
    if( c->bAheadTried ){
      if( count_packet(c, c->pState, i, &n, pRow->a, &c->err) ) return c->err.rc;
    }else{
      /* (the rows after this one are counted ahead from the next call) */
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      if( count_packet(c, c->pState, i, &n, pRow->a, &c->err) ) return c->err.rc;
      clock_gettime(CLOCK_MONOTONIC, &t1);
      c->nsCounted += (int64_t)(t1.tv_sec - t0.tv_sec)*1000000000 + (t1.tv_nsec - t0.tv_nsec);
      if( c->nsCounted >= tl_count_ahead_after_ns ){
        c->bAheadTried = 1;
        ahead_start(c, 0);
      }
    }
    if( n==0 ){
      if( c->pAhead ) return ahead_next(c, pRow);
      continue;
    }
    c->iCur = i;
    c->nCur = n;
    pRow->iRowid = TL_ROWID_LAZY;
    pRow->nRepeat = (int64_t)n;
    return TL_ROW;
  }
  return TL_DONE;
}

/* Column iCol (-1: rowid) of repeat iRepeat of the current row. */
static int count_value(TlCount *c, int64_t iRepeat, int iCol, TlVal *pOut){
  void *pState = c->pState;
  int rc;
  if( c->err.rc ) return c->err.rc;
  if( c->iCur==SIZE_MAX || iRepeat<0 || (uint64_t)iRepeat>=c->nCur ){
    return tl_err_set(&c->err, TL_EMISUSE, TL_NO_OFFSET, "no counted row %lld",
                      (long long)iRepeat);
  }
  if( c->pAhead && ahead_values(c, &pState) ) return c->err.rc;
  rc = c->pReader->xPacketValue(pState, c->iCur, (uint64_t)iRepeat, iCol, pOut, &c->err);
  if( rc<0 && c->err.rc==0 ) tl_err_set(&c->err, rc, TL_NO_OFFSET, "a counted row's value failed");
  return rc<0 ? c->err.rc : TL_OK;
}

int tl_count_rowid(TlCount *c, int64_t iRepeat, int64_t *piRowid){
  TlVal v;
  int rc;
  tl_val_null(&v);
  rc = count_value(c, iRepeat, -1, &v);
  if( rc ) return rc;
  *piRowid = v.i;
  return TL_OK;
}

int tl_count_value(TlCount *c, int64_t iRepeat, int iCol, TlVal *pOut){
  tl_val_null(pOut);
  if( iCol<0 || iCol>=c->nCol ) return TL_OK;
  return count_value(c, iRepeat, iCol, pOut);
}

const TlErr *tl_count_err(TlCount *c){
  return &c->err;
}

void tl_count_close(TlCount *c){
  if( c==0 ) return;
  ahead_end(c);
  if( c->pReader->xCountClose ) c->pReader->xCountClose(c->pState);
  free(c);
}
