/*
** heap.c: the binary min-heap of heap.h.
*/
#include "heap.h"

#include <stdlib.h>

#include "err.h"

int tl_heap_init(TlHeap *h, int nMax, const int64_t *aKey){
  h->n = 0;
  h->aKey = aKey;
  h->a = malloc(sizeof(int)*(size_t)(nMax>0 ? nMax : 1));
  return h->a ? TL_OK : TL_ENOMEM;
}

void tl_heap_free(TlHeap *h){
  free(h->a);
  h->a = 0;
  h->n = 0;
}

/* Does slot x come before slot y? */
static int heap_less(const TlHeap *h, int x, int y){
  int64_t kx = h->aKey[x], ky = h->aKey[y];
  if( kx!=ky ) return kx < ky;
  return x < y;
}

static void heap_down(TlHeap *h, int i){
  for(;;){
    int l = 2*i+1, r = l+1, m = i, tmp;
    if( l<h->n && heap_less(h, h->a[l], h->a[m]) ) m = l;
    if( r<h->n && heap_less(h, h->a[r], h->a[m]) ) m = r;
    if( m==i ) return;
    tmp = h->a[i]; h->a[i] = h->a[m]; h->a[m] = tmp;
    i = m;
  }
}

void tl_heap_push(TlHeap *h, int iSlot){
  int i = h->n++;
  h->a[i] = iSlot;
  while( i>0 ){
    int up = (i-1)/2, tmp;
    if( !heap_less(h, h->a[i], h->a[up]) ) return;
    tmp = h->a[i]; h->a[i] = h->a[up]; h->a[up] = tmp;
    i = up;
  }
}

void tl_heap_top_moved(TlHeap *h){
  if( h->n>1 ) heap_down(h, 0);
}

void tl_heap_pop(TlHeap *h){
  if( h->n==0 ) return;
  h->a[0] = h->a[--h->n];
  if( h->n>1 ) heap_down(h, 0);
}
