/*
** callstats.c: calls summed per function (callstats.h), as llvm-xray
** account sums them, in the one pass over the calls.
**
** The percentiles need every duration of a function in order. A call adds
** its duration to a count per (function, duration) in one open-addressing
** table, so memory grows with the distinct durations, not the calls
** (durations in ns repeat: a hot function's calls last a few hundred
** distinct values); at the end the counts are sorted by function and
** duration and each function's percentiles are found by walking its
** counts. A function is found by its id in a map, the last one first
** (calls of one function often come in runs).
*/
#include "callstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "map.h"
#include "num.h"
#include "str.h"

typedef struct CsFunc CsFunc;
struct CsFunc {
  int64_t funcId;
  char *zName;                    /* the first name given, or NULL */
  uint64_t n;
  int64_t total, min, max;
};

/* A function's calls of one duration; n 0: an empty slot. */
typedef struct CsDur CsDur;
struct CsDur {
  int64_t dur;
  uint64_t n;
  uint32_t iFunc;
};

/* A function's place in the output order. */
typedef struct CsOrder CsOrder;
struct CsOrder {
  int64_t funcId;
  uint32_t iFunc;
};

#define CS_SLOTS_MIN 1024

struct TlCallStats {
  CsFunc *aFunc; size_t nFunc, nFuncAlloc;
  TlMap funcs;                    /* funcId -> index in aFunc */
  int64_t lastId; uint32_t iLast; int bLast;   /* the last call's function */
  CsDur *aDur; size_t nSlot, nDistinct;        /* nSlot a power of two */
  uint64_t nMaxBytes, nNameBytes;
  /* tl_callstats_next(): the functions in funcId order, each one's counts */
  int bSorted;
  CsOrder *aOrder;                /* the functions by funcId */
  size_t *aStart;                 /* function i's counts: aDur[aStart[i]..aStart[i+1]) */
  size_t iOut;
};

TlCallStats *tl_callstats_new(uint64_t nMaxBytes){
  TlCallStats *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  tl_map_init(&p->funcs);
  p->nMaxBytes = nMaxBytes;
  return p;
}

void tl_callstats_free(TlCallStats *p){
  size_t i;
  if( p==0 ) return;
  for(i=0; i<p->nFunc; i++) free(p->aFunc[i].zName);
  free(p->aFunc);
  tl_map_free(&p->funcs);
  free(p->aDur);
  free(p->aOrder);
  free(p->aStart);
  free(p);
}

uint64_t tl_callstats_bytes(const TlCallStats *p){
  return (uint64_t)p->nSlot*sizeof(CsDur) + (uint64_t)p->nFuncAlloc*sizeof(CsFunc)
       + (uint64_t)p->funcs.nSlot*(sizeof(uint64_t) + sizeof(uint32_t)) + p->nNameBytes;
}

static size_t dur_hash(uint32_t iFunc, int64_t dur){
  return (size_t)tl_mix64((uint64_t)dur + (uint64_t)iFunc*0x9e3779b97f4a7c15ull);
}

/* The slot of (iFunc, dur) in a (nSlot a power of two): its own or the
** empty one it would take. */
static CsDur *dur_slot(CsDur *a, size_t nSlot, uint32_t iFunc, int64_t dur){
  size_t h = dur_hash(iFunc, dur) & (nSlot-1);
  while( a[h].n && (a[h].dur!=dur || a[h].iFunc!=iFunc) ) h = (h+1) & (nSlot-1);
  return &a[h];
}

/* Room for one more distinct duration: TL_OK, TL_ENOMEM or TL_ELIMIT. */
static int dur_room(TlCallStats *p){
  size_t nNew, i;
  CsDur *aNew;
  if( (p->nDistinct+1)*2 <= p->nSlot ) return TL_OK;
  nNew = p->nSlot ? p->nSlot*2 : CS_SLOTS_MIN;
  if( nNew > SIZE_MAX/sizeof(CsDur) ) return TL_ENOMEM;
  if( tl_callstats_bytes(p) + (uint64_t)nNew*sizeof(CsDur) > p->nMaxBytes ) return TL_ELIMIT;
  aNew = calloc(nNew, sizeof(CsDur));
  if( aNew==0 ) return TL_ENOMEM;
  for(i=0; i<p->nSlot; i++){
    if( p->aDur[i].n ) *dur_slot(aNew, nNew, p->aDur[i].iFunc, p->aDur[i].dur) = p->aDur[i];
  }
  free(p->aDur);
  p->aDur = aNew;
  p->nSlot = nNew;
  return TL_OK;
}

/* The index of function funcId, made if new: TL_OK, TL_ENOMEM or TL_ELIMIT. */
static int func_find(TlCallStats *p, int64_t funcId, const char *z, size_t n, uint32_t *piFunc){
  CsFunc *f, *aNew;
  uint32_t i;
  if( p->bLast && p->lastId==funcId ){
    *piFunc = p->iLast;
    return TL_OK;
  }
  if( !tl_map_get(&p->funcs, (uint64_t)funcId, &i) ){
    /* (the functions' array doubles when full; the map may double too) */
    uint64_t nGrow = p->nFunc<p->nFuncAlloc ? 0 : (uint64_t)(p->nFuncAlloc ? p->nFuncAlloc : 64)*sizeof(CsFunc);
    uint64_t nMap = (uint64_t)(p->funcs.nSlot ? p->funcs.nSlot : 64)*(sizeof(uint64_t) + sizeof(uint32_t));
    if( p->nFunc>=TL_CALLSTATS_MAX_FUNCS ) return TL_ELIMIT;
    if( tl_callstats_bytes(p) + nGrow + nMap + n + 1 > p->nMaxBytes ) return TL_ELIMIT;
    aNew = tl_grow(p->aFunc, &p->nFuncAlloc, p->nFunc, sizeof(CsFunc));
    if( aNew==0 ) return TL_ENOMEM;
    p->aFunc = aNew;
    i = (uint32_t)p->nFunc;
    if( tl_map_put(&p->funcs, (uint64_t)funcId, i) ) return TL_ENOMEM;
    f = &p->aFunc[i];
    memset(f, 0, sizeof(*f));
    f->funcId = funcId;
    f->min = INT64_MAX;
    f->max = INT64_MIN;
    p->nFunc++;
  }
  f = &p->aFunc[i];
  if( f->zName==0 && z ){
    if( tl_callstats_bytes(p) + n + 1 > p->nMaxBytes ) return TL_ELIMIT;
    f->zName = tl_strndup(z, n);
    if( f->zName==0 ) return TL_ENOMEM;
    p->nNameBytes += n + 1;
  }
  p->lastId = funcId;
  p->iLast = i;
  p->bLast = 1;
  *piFunc = i;
  return TL_OK;
}

int tl_callstats_add(TlCallStats *p, int64_t funcId, const char *z, size_t n, int64_t dur){
  uint32_t iFunc;
  CsDur *s;
  CsFunc *f;
  int rc;
  if( p->bSorted ) return TL_ENOMEM;            /* (misuse: the sums are given) */
  /* (a new name is looked at once per function, not per call) */
  if( !(p->bLast && p->lastId==funcId) || (z && p->aFunc[p->iLast].zName==0) ){
    p->bLast = 0;
    rc = func_find(p, funcId, z, n, &iFunc);
    if( rc ) return rc;
  }else{
    iFunc = p->iLast;
  }
  if( p->nSlot==0 ){
    rc = dur_room(p);
    if( rc ) return rc;
  }
  s = dur_slot(p->aDur, p->nSlot, iFunc, dur);
  if( s->n==0 ){
    rc = dur_room(p);
    if( rc ) return rc;
    s = dur_slot(p->aDur, p->nSlot, iFunc, dur);
    s->dur = dur;
    s->iFunc = iFunc;
    p->nDistinct++;
  }
  s->n++;
  f = &p->aFunc[iFunc];
  f->n++;
  f->total = tl_add_sat(f->total, dur);
  if( dur<f->min ) f->min = dur;
  if( dur>f->max ) f->max = dur;
  return TL_OK;
}

static int order_cmp(const void *x, const void *y){
  int64_t a = ((const CsOrder*)x)->funcId, b = ((const CsOrder*)y)->funcId;
  return a<b ? -1 : a>b;
}

static int dur_cmp(const void *x, const void *y){
  const CsDur *a = x, *b = y;
  if( a->iFunc!=b->iFunc ) return a->iFunc<b->iFunc ? -1 : 1;
  return a->dur<b->dur ? -1 : a->dur>b->dur;
}

/* The counts to the front of aDur in (function, duration) order, the
** functions in funcId order: TL_OK or TL_ENOMEM. */
static int callstats_sort(TlCallStats *p){
  size_t i, j = 0;
  p->aOrder = malloc((p->nFunc ? p->nFunc : 1)*sizeof(CsOrder));
  p->aStart = malloc((p->nFunc + 1)*sizeof(size_t));
  if( p->aOrder==0 || p->aStart==0 ) return TL_ENOMEM;
  for(i=0; i<p->nSlot; i++){
    if( p->aDur[i].n ) p->aDur[j++] = p->aDur[i];
  }
  if( j ) qsort(p->aDur, j, sizeof(CsDur), dur_cmp);
  /* function i's counts: from the first of its own, or from where the
  ** next function's start when it has none */
  for(i=0, j=0; i<=p->nFunc; i++){
    while( j<p->nDistinct && p->aDur[j].iFunc<i ) j++;
    p->aStart[i] = j;
  }
  for(i=0; i<p->nFunc; i++){
    p->aOrder[i].funcId = p->aFunc[i].funcId;
    p->aOrder[i].iFunc = (uint32_t)i;
  }
  if( p->nFunc>1 ) qsort(p->aOrder, p->nFunc, sizeof(CsOrder), order_cmp);
  return TL_OK;
}

/* The value at index k (0-based) of the durations counted in a[0..n). */
static int64_t dur_at(const CsDur *a, size_t n, uint64_t k){
  size_t i;
  for(i=0; i+1<n && k>=a[i].n; i++) k -= a[i].n;
  return a[i].dur;
}

int tl_callstats_next(TlCallStats *p, TlCallStat *pOut){
  const CsFunc *f;
  const CsDur *a;
  size_t nA;
  uint32_t iFunc;
  if( !p->bSorted ){
    p->bSorted = 1;
    if( callstats_sort(p) ) return -1;
  }
  do{
    if( p->aOrder==0 || p->aStart==0 || p->iOut>=p->nFunc ) return 0;
    iFunc = p->aOrder[p->iOut++].iFunc;
    f = &p->aFunc[iFunc];
  }while( f->n==0 );                /* (made by a call that then failed) */
  a = &p->aDur[p->aStart[iFunc]];
  nA = p->aStart[iFunc+1] - p->aStart[iFunc];
  memset(pOut, 0, sizeof(*pOut));
  pOut->funcId = f->funcId;
  pOut->zName = f->zName;
  pOut->nCalls = f->n;
  pOut->total = f->total;
  pOut->min = f->min;
  pOut->max = f->max;
  if( nA ){
    /* llvm-xray: the median at n / 2, the others at floor(n * p) in doubles */
    pOut->med = dur_at(a, nA, f->n/2);
    pOut->p90 = dur_at(a, nA, (uint64_t)floor((double)f->n * 0.9));
    pOut->p99 = dur_at(a, nA, (uint64_t)floor((double)f->n * 0.99));
  }
  return 1;
}
