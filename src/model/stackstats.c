/*
** stackstats.c: calls summed per thread and call stack (stackstats.h), as
** llvm-xray stack -all-stacks sums them, in the one pass over the calls.
**
** A group is one thread's calls at one stack text. Groups are found by a
** hash of (thread, text) in an open-addressing table of group numbers;
** each group keeps a copy of its text and of its innermost function's
** name, so memory grows with the distinct (thread, stack) pairs, not the
** calls. At the end the groups are sorted by thread and text.
*/
#include "stackstats.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "num.h"
#include "str.h"

typedef struct SsGrp SsGrp;
struct SsGrp {
  TlStackStat st;                 /* zStack and zName: the copies below */
  char *zStackCopy, *zNameCopy;
  uint64_t h;                     /* its key's hash */
};

struct TlStackStats {
  SsGrp *aGrp; size_t nGrp, nGrpAlloc;
  uint32_t *aSlot; size_t nSlot;  /* group + 1, 0 empty; nSlot a power of two */
  uint64_t nMaxBytes, nTextBytes;
  uint32_t *aOrder;               /* tl_stackstats_next(): groups in order */
  size_t iOut;
  int bSorted;
};

#define SS_SLOTS_MIN 256

TlStackStats *tl_stackstats_new(uint64_t nMaxBytes){
  TlStackStats *p = calloc(1, sizeof(*p));
  if( p ) p->nMaxBytes = nMaxBytes;
  return p;
}

void tl_stackstats_free(TlStackStats *p){
  size_t i;
  if( p==0 ) return;
  for(i=0; i<p->nGrp; i++){
    free(p->aGrp[i].zStackCopy);
    free(p->aGrp[i].zNameCopy);
  }
  free(p->aGrp);
  free(p->aSlot);
  free(p->aOrder);
  free(p);
}

uint64_t tl_stackstats_bytes(const TlStackStats *p){
  return (uint64_t)p->nGrpAlloc*sizeof(SsGrp) + (uint64_t)p->nSlot*sizeof(uint32_t) + p->nTextBytes;
}

/* The hash of a key: thread and text. */
static uint64_t ss_hash(const TlStackStat *c){
  uint64_t h = tl_mix64((uint64_t)c->tid ^ ((uint64_t)c->bTid<<63) ^ (c->zStack ? 0x5bd1e995u : 0));
  size_t i = 0;
  if( c->zStack==0 ) return h;
  for(; i+8<=c->nStack; i+=8){
    uint64_t w;
    memcpy(&w, c->zStack+i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  if( i<c->nStack ){
    uint64_t w = 0;
    memcpy(&w, c->zStack+i, c->nStack-i);
    h = (h ^ w ^ ((uint64_t)(c->nStack-i)<<56)) * 0x9e3779b97f4a7c15ull;
  }
  return tl_mix64(h ^ c->nStack);
}

static int ss_same(const TlStackStat *a, const TlStackStat *b){
  if( a->bTid!=b->bTid || (a->bTid && a->tid!=b->tid) ) return 0;
  if( (a->zStack==0)!=(b->zStack==0) ) return 0;
  return a->zStack==0 || (a->nStack==b->nStack && memcmp(a->zStack, b->zStack, a->nStack)==0);
}

/* The slot of key c (hash h): its group's, or the empty one it would take. */
static uint32_t *ss_slot(const TlStackStats *p, uint32_t *aSlot, size_t nSlot,
                         const TlStackStat *c, uint64_t h){
  size_t k = (size_t)h & (nSlot-1);
  while( aSlot[k] ){
    const SsGrp *g = &p->aGrp[aSlot[k]-1];
    if( g->h==h && c && ss_same(&g->st, c) ) break;
    k = (k+1) & (nSlot-1);
  }
  return &aSlot[k];
}

/* Room for one more group: TL_OK, TL_ENOMEM or TL_ELIMIT. */
static int ss_room(TlStackStats *p, size_t nText){
  SsGrp *aNew;
  uint64_t nGrow;
  if( p->nGrp>=TL_STACKSTATS_MAX_GROUPS ) return TL_ELIMIT;
  /* (the groups' array doubles when full) */
  nGrow = p->nGrp<p->nGrpAlloc ? 0 : (uint64_t)(p->nGrpAlloc ? p->nGrpAlloc : 64)*sizeof(SsGrp);
  if( tl_stackstats_bytes(p) + nText + nGrow > p->nMaxBytes ) return TL_ELIMIT;
  if( (p->nGrp+1)*2 > p->nSlot ){
    size_t nNew = p->nSlot ? p->nSlot*2 : SS_SLOTS_MIN, i;
    uint32_t *aNewSlot;
    if( tl_stackstats_bytes(p) + nText + nGrow + (uint64_t)nNew*sizeof(uint32_t) > p->nMaxBytes ){
      return TL_ELIMIT;
    }
    aNewSlot = calloc(nNew, sizeof(uint32_t));
    if( aNewSlot==0 ) return TL_ENOMEM;
    for(i=0; i<p->nGrp; i++) *ss_slot(p, aNewSlot, nNew, 0, p->aGrp[i].h) = (uint32_t)(i+1);
    free(p->aSlot);
    p->aSlot = aNewSlot;
    p->nSlot = nNew;
  }
  aNew = tl_grow(p->aGrp, &p->nGrpAlloc, p->nGrp, sizeof(SsGrp));
  if( aNew==0 ) return TL_ENOMEM;
  p->aGrp = aNew;
  return TL_OK;
}

/* A copy of n bytes at z, NUL-terminated, or NULL (z NULL, or no memory:
** *pbErr). */
static char *ss_copy(const char *z, size_t n, int *pbErr){
  char *zCopy;
  if( z==0 ) return 0;
  zCopy = tl_strndup(z, n);
  if( zCopy==0 ) *pbErr = 1;
  return zCopy;
}

int tl_stackstats_add(TlStackStats *p, const TlStackStat *c, int bDur, int64_t dur){
  uint64_t h;
  uint32_t *pSlot;
  SsGrp *g;
  if( p->bSorted ) return TL_ENOMEM;            /* (misuse: the sums are given) */
  h = ss_hash(c);
  if( p->nSlot ){
    pSlot = ss_slot(p, p->aSlot, p->nSlot, c, h);
  }else{
    pSlot = 0;
  }
  if( pSlot==0 || *pSlot==0 ){
    size_t nText = (c->zStack ? c->nStack + 1 : 0) + (c->zName ? c->nName + 1 : 0);
    int rc = ss_room(p, nText), bErr = 0;
    if( rc ) return rc;
    g = &p->aGrp[p->nGrp];
    memset(g, 0, sizeof(*g));
    g->st = *c;
    g->zStackCopy = ss_copy(c->zStack, c->nStack, &bErr);
    g->zNameCopy = ss_copy(c->zName, c->nName, &bErr);
    if( bErr ){
      free(g->zStackCopy);
      free(g->zNameCopy);
      return TL_ENOMEM;
    }
    g->st.zStack = g->zStackCopy;
    g->st.zName = g->zNameCopy;
    g->st.nCalls = g->st.nDone = 0;
    g->st.total = 0;
    g->st.min = INT64_MAX;
    g->st.max = INT64_MIN;
    g->h = h;
    p->nTextBytes += nText;
    *ss_slot(p, p->aSlot, p->nSlot, 0, h) = (uint32_t)(p->nGrp + 1);
    p->nGrp++;
  }else{
    g = &p->aGrp[*pSlot-1];
  }
  g->st.nCalls++;
  if( bDur ){
    g->st.nDone++;
    g->st.total = tl_add_sat(g->st.total, dur);
    if( dur<g->st.min ) g->st.min = dur;
    if( dur>g->st.max ) g->st.max = dur;
  }
  return TL_OK;
}

static int ss_cmp(const TlStackStat *a, const TlStackStat *b){
  size_t n;
  int c;
  if( a->bTid!=b->bTid ) return a->bTid<b->bTid ? -1 : 1;
  if( a->bTid && a->tid!=b->tid ) return a->tid<b->tid ? -1 : 1;
  if( (a->zStack==0)!=(b->zStack==0) ) return a->zStack==0 ? -1 : 1;
  if( a->zStack==0 ) return 0;
  n = a->nStack<b->nStack ? a->nStack : b->nStack;
  c = n ? memcmp(a->zStack, b->zStack, n) : 0;
  if( c ) return c;
  return a->nStack<b->nStack ? -1 : a->nStack>b->nStack;
}

/* (qsort of group numbers needs the groups: sorted as pairs instead) */
typedef struct SsRef SsRef;
struct SsRef { const TlStackStat *st; uint32_t i; };

static int ss_ref_cmp(const void *x, const void *y){
  return ss_cmp(((const SsRef*)x)->st, ((const SsRef*)y)->st);
}

int tl_stackstats_next(TlStackStats *p, TlStackStat *pOut){
  if( !p->bSorted ){
    SsRef *a;
    size_t i;
    p->bSorted = 1;
    if( p->nGrp==0 ) return 0;
    a = malloc(p->nGrp*sizeof(SsRef));
    p->aOrder = malloc(p->nGrp*sizeof(uint32_t));
    if( a==0 || p->aOrder==0 ){
      free(a);
      free(p->aOrder);
      p->aOrder = 0;
      return -1;
    }
    for(i=0; i<p->nGrp; i++){ a[i].st = &p->aGrp[i].st; a[i].i = (uint32_t)i; }
    qsort(a, p->nGrp, sizeof(SsRef), ss_ref_cmp);
    for(i=0; i<p->nGrp; i++) p->aOrder[i] = a[i].i;
    free(a);
  }
  if( p->aOrder==0 || p->iOut>=p->nGrp ) return 0;
  *pOut = p->aGrp[p->aOrder[p->iOut++]].st;
  return 1;
}
