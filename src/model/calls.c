/*
** calls.c: calls from function entry and exit records (model_calls.h).
** The per-record steps are inline in the header; here is what is rare.
*/
#include "model_calls.h"

#include <stdlib.h>

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
