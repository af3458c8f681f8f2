/*
** calls.c: calls from function entry and exit records (model_calls.h).
** The per-record steps are inline in the header; here is what is rare.
*/
#include "model_calls.h"

#include <stdlib.h>
#include <string.h>

int tl_calls_grow(TlCallStack *st){
  size_t nNew = st->nAlloc ? st->nAlloc*2 : 16;
  TlCallFrame *aNew;
  if( nNew>TL_CALLS_MAX_DEPTH ) nNew = TL_CALLS_MAX_DEPTH;   /* (nAlloc is below it) */
  aNew = realloc(st->a, nNew*sizeof(TlCallFrame));
  if( aNew==0 ) return TL_ENOMEM;
  st->a = aNew;
  st->nAlloc = nNew;
  return TL_OK;
}

void tl_calls_free(TlCallStack *st){
  free(st->a);
  st->a = 0;
  st->n = st->nAlloc = 0;
}

/* ---- call paths ------------------------------------------------------------ */

void tl_paths_init(TlCallPaths *p){
  memset(p, 0, sizeof(*p));
  tl_map_init(&p->kids);
  tl_str_init(&p->text);
  tl_str_init(&p->name);
}

void tl_paths_free(TlCallPaths *p){
  size_t i;
  for(i=0; i<p->n; i++) free(p->a[i].zText);
  free(p->a);
  free(p->aChain);
  tl_map_free(&p->kids);
  tl_str_free(&p->text);
  tl_str_free(&p->name);
  memset(p, 0, sizeof(*p));
}

/* The node of path parent + funcId, made if new: TL_OK or TL_ENOMEM. */
static int paths_child(TlCallPaths *p, uint32_t parent, int32_t funcId, uint32_t *piNode){
  uint64_t key = (uint64_t)parent<<32 | (uint32_t)funcId;
  if( p->n==0 ){                        /* node 0, the empty path */
    p->a = calloc(16, sizeof(TlCallPath));
    if( p->a==0 ) return TL_ENOMEM;
    p->nAlloc = 16;
    p->n = 1;
  }
  if( tl_map_get(&p->kids, key, piNode) ) return TL_OK;
  if( p->n>=UINT32_MAX-1 ) return TL_ENOMEM;
  if( p->n==p->nAlloc ){
    TlCallPath *aNew = realloc(p->a, p->nAlloc*2*sizeof(TlCallPath));
    if( aNew==0 ) return TL_ENOMEM;
    p->a = aNew;
    p->nAlloc *= 2;
  }
  p->a[p->n].parent = parent;
  p->a[p->n].funcId = funcId;
  p->a[p->n].zText = 0;
  if( tl_map_put(&p->kids, key, (uint32_t)p->n) ) return TL_ENOMEM;
  *piNode = (uint32_t)p->n++;
  return TL_OK;
}

int tl_calls_path(TlCallStack *st, TlCallPaths *p){
  TlCallFrame *f = &st->a[st->n-1];
  uint32_t parent = st->n>1 ? st->a[st->n-2].iPath : 0;
  return paths_child(p, parent, f->funcId, &f->iPath);
}

const char *tl_paths_text(TlCallPaths *p, uint32_t iPath, TlCallName xName, const void *pCtx){
  size_t nChain = 0, k;
  uint32_t i;
  if( iPath==0 || iPath>=p->n ) return "";
  if( p->a[iPath].zText ) return p->a[iPath].zText;
  /* its functions, innermost first, up to a kept text or the root */
  tl_str_reset(&p->text);
  tl_str_append(&p->text, "", 0);
  for(i=iPath; i!=0; i=p->a[i].parent){
    if( p->a[i].zText ){
      tl_str_appendz(&p->text, p->a[i].zText);
      break;
    }
    if( nChain==p->nChainAlloc ){
      size_t nNew = p->nChainAlloc ? p->nChainAlloc*2 : 64;
      int32_t *aNew = realloc(p->aChain, nNew*sizeof(int32_t));
      if( aNew==0 ) return 0;
      p->aChain = aNew;
      p->nChainAlloc = nNew;
    }
    p->aChain[nChain++] = p->a[i].funcId;
  }
  for(k=nChain; k>0; k--){
    const char *z = xName(pCtx, p->aChain[k-1], &p->name);
    if( p->text.n ) tl_str_appendc(&p->text, ';');
    tl_str_appendz(&p->text, z ? z : "");
  }
  if( p->text.bErr ) return 0;
  if( p->nText + p->text.n + 1 <= TL_CALLS_PATHS_TEXT_MAX ){
    p->a[iPath].zText = tl_strndup(p->text.z, p->text.n);
    if( p->a[iPath].zText ){
      p->nText += p->text.n + 1;
      return p->a[iPath].zText;
    }
  }
  return p->text.z;
}

/* ---- calls of many threads -------------------------------------------------- */

typedef struct CsThread CsThread;
struct CsThread {
  TlCallStack st;
  int64_t tid, pid;
  int bTid, bPid;
};

struct TlCallSet {
  int bPaths;
  TlCallPaths paths;
  char **azName; size_t nName, nNameAlloc;   /* function id-1 -> name */
  CsThread *aTh; size_t nTh, nThAlloc;
  TlMap threads;                  /* key -> index in aTh */
  TlCallOut *aOut; size_t nOut, nOutAlloc, iOut;  /* queued calls */
  int bFinished;
};

TlCallSet *tl_callset_new(int bPaths){
  TlCallSet *cs = calloc(1, sizeof(*cs));
  if( cs==0 ) return 0;
  cs->bPaths = bPaths;
  tl_paths_init(&cs->paths);
  tl_map_init(&cs->threads);
  return cs;
}

void tl_callset_free(TlCallSet *cs){
  size_t i;
  if( cs==0 ) return;
  tl_paths_free(&cs->paths);
  for(i=0; i<cs->nName; i++) free(cs->azName[i]);
  free(cs->azName);
  for(i=0; i<cs->nTh; i++) tl_calls_free(&cs->aTh[i].st);
  free(cs->aTh);
  tl_map_free(&cs->threads);
  free(cs->aOut);
  free(cs);
}

/* Room for one more of n elements of size sz in *pa (nAlloc of them). */
static int cs_grow(void **pa, size_t n, size_t *pnAlloc, size_t sz){
  size_t nNew;
  void *aNew;
  if( n<*pnAlloc ) return TL_OK;
  nNew = *pnAlloc ? *pnAlloc*2 : 16;
  aNew = realloc(*pa, nNew*sz);
  if( aNew==0 ) return TL_ENOMEM;
  *pa = aNew;
  *pnAlloc = nNew;
  return TL_OK;
}

int tl_callset_func(TlCallSet *cs, const char *z, size_t n, int32_t *pId){
  char *zCopy;
  if( cs->nName>=INT32_MAX-1 ) return TL_ENOMEM;
  if( cs_grow((void**)&cs->azName, cs->nName, &cs->nNameAlloc, sizeof(char*)) ) return TL_ENOMEM;
  zCopy = tl_strndup(z, n);
  if( zCopy==0 ) return TL_ENOMEM;
  cs->azName[cs->nName++] = zCopy;
  *pId = (int32_t)cs->nName;
  return TL_OK;
}

const char *tl_callset_name(const TlCallSet *cs, int32_t id){
  return id>0 && (size_t)id<=cs->nName ? cs->azName[id-1] : 0;
}

int tl_callset_thread(TlCallSet *cs, uint64_t key, int64_t tid, int bTid,
                      int64_t pid, int bPid, size_t *piThread){
  uint32_t i;
  CsThread *t;
  if( !tl_map_get(&cs->threads, key, &i) ){
    if( cs->nTh>=UINT32_MAX-1 ) return TL_ENOMEM;
    if( cs_grow((void**)&cs->aTh, cs->nTh, &cs->nThAlloc, sizeof(CsThread)) ) return TL_ENOMEM;
    i = (uint32_t)cs->nTh;
    if( tl_map_put(&cs->threads, key, i) ) return TL_ENOMEM;
    memset(&cs->aTh[i], 0, sizeof(CsThread));
    cs->nTh++;
  }
  t = &cs->aTh[i];
  if( bTid ){ t->tid = tid; t->bTid = 1; }
  if( bPid ){ t->pid = pid; t->bPid = 1; }
  *piThread = i;
  return TL_OK;
}

int tl_callset_enter(TlCallSet *cs, size_t iThread, int64_t id, int32_t funcId,
                     uint64_t ts, uint32_t cpu){
  TlCallStack *st = &cs->aTh[iThread].st;
  int rc = tl_calls_enter(st, id, funcId, ts, cpu);
  if( rc==TL_OK && cs->bPaths ) rc = tl_calls_path(st, &cs->paths);
  return rc;
}

/* Queue call k of thread iThread (ended at tsEnd if bDone). */
static int cs_queue(TlCallSet *cs, size_t iThread, size_t k, int bDone, uint64_t tsEnd){
  const CsThread *t = &cs->aTh[iThread];
  TlCallOut *o;
  if( cs_grow((void**)&cs->aOut, cs->nOut, &cs->nOutAlloc, sizeof(TlCallOut)) ) return TL_ENOMEM;
  o = &cs->aOut[cs->nOut++];
  tl_calls_get(&t->st, k, bDone, tsEnd, &o->c);
  o->tid = t->tid; o->bTid = t->bTid;
  o->pid = t->pid; o->bPid = t->bPid;
  return TL_OK;
}

int tl_callset_exit(TlCallSet *cs, size_t iThread, int32_t funcId, int bAny, uint64_t ts){
  TlCallStack *st = &cs->aTh[iThread].st;
  size_t n = bAny ? tl_calls_exit_top(st) : tl_calls_exit(st, funcId);
  while( n-- ){
    if( cs_queue(cs, iThread, st->n-1, 1, ts) ) return TL_ENOMEM;
    st->n--;
  }
  return TL_OK;
}

int tl_callset_finish(TlCallSet *cs){
  size_t i, k;
  if( cs->bFinished ) return TL_OK;
  cs->bFinished = 1;
  for(i=0; i<cs->nTh; i++){
    for(k=0; k<cs->aTh[i].st.n; k++){
      if( cs_queue(cs, i, k, 0, 0) ) return TL_ENOMEM;
    }
    cs->aTh[i].st.n = 0;
  }
  return TL_OK;
}

int tl_callset_next(TlCallSet *cs, const TlCallOut **ppOut){
  if( cs->iOut>=cs->nOut ){
    cs->iOut = cs->nOut = 0;
    return TL_DONE;
  }
  *ppOut = &cs->aOut[cs->iOut++];
  return TL_ROW;
}

static const char *cs_frame_name(const void *pCtx, int32_t funcId, TlStr *pScratch){
  (void)pScratch;
  return tl_callset_name((const TlCallSet*)pCtx, funcId);
}

const char *tl_callset_stack(TlCallSet *cs, uint32_t iPath){
  return tl_paths_text(&cs->paths, iPath, cs_frame_name, cs);
}
