/*
** percentile.c: median(Y), percentile(Y,P), percentile_cont(Y,P) and
** percentile_disc(Y,P), aggregate and window functions with the names and
** the results of SQLite's own percentile extension (ext/misc/percentile.c,
** part of the amalgamation's shell and of SQLite builds with
** SQLITE_ENABLE_PERCENTILE), for the hosts that lack them:
**
**   - the non-NULL Y values, sorted, are the points 0..N-1 of a graph
**     with straight lines between them; percentile(Y,P) is its height at
**     P*(N-1)/100, percentile_cont(Y,P) at P*(N-1) (P from 0 to 1),
**     median(Y) at (N-1)/2; percentile_disc(Y,P) the value at the integer
**     part of P*(N-1), one of the inputs. A REAL, or NULL without values;
**   - P must be a number in 0..100 (percentile) or 0..1 (the others) and
**     the same, within 0.001 of the 0..1 fraction, on every row; Y NULL
**     is left out, Y of another type than a number, or infinite, is an
**     error. The messages are SQLite's.
**
** Memory grows with the distinct values of a group (32 to 64 bytes each,
** a hash table a quarter to half full): up to 65,536 of them always (4
** MiB), past that up to what the values take one each (8 bytes a value),
** as in SQLite's. Past that, and in a window, they are kept one each.
**
** Registered by the extension only when `SELECT median(1)` does not
** prepare on the connection, so a host that has them keeps its own.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include "percentile.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

typedef struct PctFunc PctFunc;   /* one of the four */
struct PctFunc {
  const char *zName;
  int nArg;
  double rMax;                    /* P's largest value: 100 or 1 */
  int bDisc;                      /* percentile_disc: no interpolation */
};

static PctFunc aPctFunc[] = {       /* (user data: not const) */
  { "median",          1, 1.0,   0 },
  { "percentile",      2, 100.0, 0 },
  { "percentile_cont", 2, 1.0,   0 },
  { "percentile_disc", 2, 1.0,   1 },
};

/* A distinct value and how many times it came (n 0: an empty slot). */
typedef struct PctSlot PctSlot;
struct PctSlot {
  double y;
  uint64_t n;
};

/*
** A group's values. They are counted by distinct value first (aSlot, an
** open-addressing hash table at most half full), so that memory and the
** final sort grow with the distinct values, not the rows; when the table
** would outgrow the values one each (past PCT_DISTINCT_MIN distinct: so
** that the first rows, most of them distinct, do not decide it), or
** the rows of a window come and go, they are kept one each in a[]
** instead (bArray), as SQLite's extension keeps them.
*/
typedef struct PctAcc PctAcc;
struct PctAcc {
  double *a;                      /* bArray: the values */
  size_t nAlloc;
  PctSlot *aSlot;                 /* !bArray: value -> count */
  size_t nSlot, nDistinct;
  size_t n;                       /* the values counted (both ways) */
  double rFrac;                   /* P as a fraction of 1 */
  int bFrac;                      /* rFrac is set */
  int bArray;                     /* the values in a[], not aSlot */
  int bSorted;                    /* a[] is in order */
  int bKeep;                      /* keep a[] in order (a window's rows come and go) */
};

#define PCT_SLOTS_MIN 64
#define PCT_DISTINCT_MIN 65536    /* distinct values always counted */

/* An error "...%s()..." with the function's name in place of %s. */
static void pct_error(sqlite3_context *ctx, const char *zFmt){
  const PctFunc *f = (const PctFunc*)sqlite3_user_data(ctx);
  char *z = sqlite3_mprintf(zFmt, f->zName);
  if( z ){
    sqlite3_result_error(ctx, z, -1);
    sqlite3_free(z);
  }else{
    sqlite3_result_error_nomem(ctx);
  }
}

static int pct_cmp(const void *x, const void *y){
  double a = *(const double*)x, b = *(const double*)y;
  return a<b ? -1 : a>b;
}

static void pct_sort(PctAcc *p){
  if( !p->bSorted ){
    qsort(p->a, p->n, sizeof(double), pct_cmp);
    p->bSorted = 1;
  }
}

/* The first place in sorted a[] whose value is not below y. */
static size_t pct_lower_bound(const PctAcc *p, double y){
  size_t lo = 0, hi = p->n;
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( p->a[mid]<y ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/* ---- values counted by distinct value -------------------------------------- */

/* The slot of value y in aSlot (nSlot a power of two): its own, or the
** empty one it would take. */
static PctSlot *pct_slot(PctSlot *aSlot, size_t nSlot, double y){
  uint64_t u;
  size_t h;
  if( y==0.0 ) y = 0.0;               /* (-0.0: the same value) */
  memcpy(&u, &y, sizeof(u));
  h = (size_t)tl_mix64(u) & (nSlot-1);
  while( aSlot[h].n && aSlot[h].y!=y ) h = (h+1) & (nSlot-1);
  return &aSlot[h];
}

static int pct_slot_cmp(const void *x, const void *y){
  double a = ((const PctSlot*)x)->y, b = ((const PctSlot*)y)->y;
  return a<b ? -1 : a>b;
}

/* The distinct values to the front of aSlot, in order (the table is
** given up: only a[] or the result follows). */
static void pct_slots_sort(PctAcc *p){
  size_t i, j = 0;
  for(i=0; i<p->nSlot; i++){
    if( p->aSlot[i].n ) p->aSlot[j++] = p->aSlot[i];
  }
  qsort(p->aSlot, j, sizeof(PctSlot), pct_slot_cmp);
}

/* The counted values one each into a[], in order: SQLITE_OK or NOMEM. */
static int pct_to_array(PctAcc *p){
  size_t nAlloc = p->n + 256, i, k = 0;
  double *a = sqlite3_malloc64(nAlloc*sizeof(double));
  if( a==0 ) return SQLITE_NOMEM;
  pct_slots_sort(p);
  for(i=0; i<p->nDistinct; i++){
    uint64_t c;
    for(c=0; c<p->aSlot[i].n; c++) a[k++] = p->aSlot[i].y;
  }
  sqlite3_free(p->aSlot);
  p->aSlot = 0;
  p->nSlot = p->nDistinct = 0;
  p->a = a;
  p->nAlloc = nAlloc;
  p->bArray = 1;
  p->bSorted = 1;
  return SQLITE_OK;
}

/*
** Count y: SQLITE_OK, NOMEM, or SQLITE_DONE when the values are now in a[]
** (distinct enough that a[] holds them in less memory) for y to be added
** there.
*/
static int pct_count(PctAcc *p, double y){
  PctSlot *s;
  if( p->aSlot ){
    s = pct_slot(p->aSlot, p->nSlot, y);
    if( s->n ){
      s->n++;
      p->n++;
      return SQLITE_OK;
    }
  }
  if( (p->nDistinct+1)*2 > p->nSlot ){
    size_t nNew = p->nSlot ? p->nSlot*2 : PCT_SLOTS_MIN, i;
    PctSlot *aNew;
    /* (the larger table, 4 x 16 bytes a distinct value, would outgrow
    ** a[], 8 bytes a value) */
    if( p->nDistinct>=PCT_DISTINCT_MIN && p->nDistinct*8 > p->n ){
      return pct_to_array(p) ? SQLITE_NOMEM : SQLITE_DONE;
    }
    aNew = sqlite3_malloc64(nNew*sizeof(PctSlot));
    if( aNew==0 ) return SQLITE_NOMEM;
    memset(aNew, 0, nNew*sizeof(PctSlot));
    for(i=0; i<p->nSlot; i++){
      if( p->aSlot[i].n ) *pct_slot(aNew, nNew, p->aSlot[i].y) = p->aSlot[i];
    }
    sqlite3_free(p->aSlot);
    p->aSlot = aNew;
    p->nSlot = nNew;
  }
  s = pct_slot(p->aSlot, p->nSlot, y);
  s->y = y==0.0 ? 0.0 : y;
  s->n = 1;
  p->nDistinct++;
  p->n++;
  return SQLITE_OK;
}

/* ---- the functions ----------------------------------------------------------- */

/* Add y to a[]: SQLITE_OK or NOMEM. */
static int pct_append(PctAcc *p, double y){
  if( p->n==p->nAlloc ){
    size_t nNew = p->nAlloc*2 + 256;
    double *aNew = sqlite3_realloc64(p->a, nNew*sizeof(double));
    if( aNew==0 ) return SQLITE_NOMEM;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  if( p->n==0 ){
    p->bSorted = 1;
    p->a[p->n++] = y;
  }else if( p->bSorted && y>=p->a[p->n-1] ){
    p->a[p->n++] = y;
  }else if( p->bSorted && p->bKeep ){
    size_t i = pct_lower_bound(p, y);
    memmove(&p->a[i+1], &p->a[i], (p->n - i)*sizeof(double));
    p->a[i] = y;
    p->n++;
  }else{
    p->a[p->n++] = y;
    p->bSorted = 0;
  }
  return SQLITE_OK;
}

/* Y of a row: 0 and *pY for a number, 1 for NULL (left out), -1 after an
** error result. */
static int pct_value(sqlite3_context *ctx, sqlite3_value *v, double *pY){
  int eType = sqlite3_value_type(v);
  if( eType==SQLITE_NULL ) return 1;
  if( eType!=SQLITE_INTEGER && eType!=SQLITE_FLOAT ){
    pct_error(ctx, "input to %s() is not numeric");
    return -1;
  }
  *pY = sqlite3_value_double(v);
  if( isinf(*pY) ){
    pct_error(ctx, "Inf input to %s()");
    return -1;
  }
  return 0;
}

static void pctStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const PctFunc *f = (const PctFunc*)sqlite3_user_data(ctx);
  PctAcc *p;
  double rFrac = 0.5, y;
  int rc;
  if( argc==2 ){
    int eType = sqlite3_value_numeric_type(argv[1]);
    rFrac = sqlite3_value_double(argv[1]) / f->rMax;
    if( (eType!=SQLITE_INTEGER && eType!=SQLITE_FLOAT) || !(rFrac>=0.0 && rFrac<=1.0) ){
      char *z = sqlite3_mprintf("the fraction argument to %%s() is not between 0.0 and %.1f", f->rMax);
      if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
      pct_error(ctx, z);
      sqlite3_free(z);
      return;
    }
  }
  p = (PctAcc*)sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ) return;
  if( !p->bFrac ){
    p->rFrac = rFrac;
    p->bFrac = 1;
  }else if( fabs(p->rFrac - rFrac)>0.001 ){
    pct_error(ctx, "the fraction argument to %s() is not the same for all input rows");
    return;
  }
  rc = pct_value(ctx, argv[0], &y);
  if( rc ) return;
  rc = p->bArray ? SQLITE_DONE : pct_count(p, y);
  if( rc==SQLITE_DONE ) rc = pct_append(p, y);
  if( rc ) sqlite3_result_error_nomem(ctx);
}

/* A row leaving the window: its value out of the (then sorted) values. */
static void pctInverse(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PctAcc *p = (PctAcc*)sqlite3_aggregate_context(ctx, sizeof(*p));
  int eType = sqlite3_value_type(argv[0]);
  double y;
  size_t i;
  (void)argc;
  if( p==0 || p->n==0 ) return;
  if( eType!=SQLITE_INTEGER && eType!=SQLITE_FLOAT ) return;
  y = sqlite3_value_double(argv[0]);
  if( isinf(y) ) return;
  if( !p->bArray && pct_to_array(p) ){ sqlite3_result_error_nomem(ctx); return; }
  pct_sort(p);
  p->bKeep = 1;
  i = pct_lower_bound(p, y);
  if( i<p->n && p->a[i]==y ){
    memmove(&p->a[i], &p->a[i+1], (p->n - i - 1)*sizeof(double));
    p->n--;
  }
}

/* Values i and i+1 (if any, else i's) of the counted values in order. */
static void pct_slots_at(PctAcc *p, size_t i, double *pA, double *pB){
  size_t k, nBelow = 0;
  pct_slots_sort(p);
  for(k=0; nBelow + p->aSlot[k].n <= i; k++) nBelow += p->aSlot[k].n;
  *pA = *pB = p->aSlot[k].y;
  if( i+1 >= nBelow + p->aSlot[k].n && k+1<p->nDistinct ) *pB = p->aSlot[k+1].y;
}

static void pct_result(sqlite3_context *ctx, int bFinal){
  const PctFunc *f = (const PctFunc*)sqlite3_user_data(ctx);
  PctAcc *p = (PctAcc*)sqlite3_aggregate_context(ctx, 0);
  if( p==0 ) return;
  /* (a window's value: its rows come and go, a[] keeps them in order) */
  if( !bFinal && !p->bArray && pct_to_array(p) ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->n ){
    double x, v, w;
    size_t i;
    x = p->rFrac * (double)(p->n - 1);
    i = (size_t)x;
    if( p->bArray ){
      pct_sort(p);
      v = p->a[i];
      w = i+1<p->n ? p->a[i+1] : v;
    }else{
      pct_slots_at(p, i, &v, &w);
    }
    if( !f->bDisc && i+1<p->n && x>(double)i ) v += (w - v) * (x - (double)i);
    sqlite3_result_double(ctx, v);
  }
  if( bFinal ){
    sqlite3_free(p->a);
    sqlite3_free(p->aSlot);
    memset(p, 0, sizeof(*p));
  }else{
    p->bKeep = 1;
  }
}

static void pctFinal(sqlite3_context *ctx){ pct_result(ctx, 1); }
static void pctValue(sqlite3_context *ctx){ pct_result(ctx, 0); }

int tl_percentile_register(sqlite3 *db){
  sqlite3_stmt *pStmt = 0;
  size_t i;
  int rc = SQLITE_OK;
  if( sqlite3_prepare_v2(db, "SELECT median(1)", -1, &pStmt, 0)==SQLITE_OK ){
    sqlite3_finalize(pStmt);
    return SQLITE_OK;                /* the host's own */
  }
  for(i=0; i<sizeof(aPctFunc)/sizeof(aPctFunc[0]) && rc==SQLITE_OK; i++){
    rc = sqlite3_create_window_function(db, aPctFunc[i].zName, aPctFunc[i].nArg,
        SQLITE_UTF8 | SQLITE_INNOCUOUS, (void*)&aPctFunc[i],
        pctStep, pctFinal, pctValue, pctInverse, 0);
  }
  return rc;
}
