/*
** heap.h: a binary min-heap of slots 0..n-1, each ordered by its key
** (aKey[slot], the caller's) and ties by the lower slot: the merge of
** sequences each in ascending key order (the engine's ts-order merge of
** stream scans, src/merge.c; a reader's merge of its own cursors).
**
** Which slot is on top depends only on the keys and slots, never on the
** order of the pushes: a merge gives the same rows however it is built.
*/
#ifndef TL_HEAP_H
#define TL_HEAP_H

#include <stdint.h>

typedef struct TlHeap TlHeap;
struct TlHeap {
  int *a;                         /* slots, in heap order */
  int n;                          /* slots in the heap */
  const int64_t *aKey;            /* key of each slot (the caller's array) */
};

/* Room for slots 0..nMax-1 keyed by aKey: TL_OK or TL_ENOMEM. */
int tl_heap_init(TlHeap*, int nMax, const int64_t *aKey);
void tl_heap_free(TlHeap*);

/* Add slot i (not in the heap), its key set. */
void tl_heap_push(TlHeap*, int i);

/* The slot with the least (key, slot), or -1 when the heap is empty. */
static inline int tl_heap_top(const TlHeap *h){ return h->n ? h->a[0] : -1; }

/* The top slot's key changed: put it in its place. */
void tl_heap_top_moved(TlHeap*);

/* Remove the top slot. */
void tl_heap_pop(TlHeap*);

#endif /* TL_HEAP_H */
