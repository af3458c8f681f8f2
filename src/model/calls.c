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
