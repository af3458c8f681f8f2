/*
** num.h: integer helpers for values read from traces, which may be
** anything: sums held at the int64 range, arrays grown by doubling.
*/
#ifndef TL_NUM_H
#define TL_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* a + b, held at the int64 range. */
static inline int64_t tl_add_sat(int64_t a, int64_t b){
  if( b>0 && a>INT64_MAX - b ) return INT64_MAX;
  if( b<0 && a<INT64_MIN - b ) return INT64_MIN;
  return a + b;
}

/*
** Array a (of *pnAlloc elements of sz bytes) with room for element n: a
** itself, a larger copy (twice the room, 64 elements at first), or NULL
** when out of memory or past SIZE_MAX bytes (a is kept).
*/
static inline void *tl_grow(void *a, size_t *pnAlloc, size_t n, size_t sz){
  size_t nNew;
  void *aNew;
  if( n<*pnAlloc ) return a;
  nNew = *pnAlloc ? *pnAlloc*2 : 64;
  if( nNew < *pnAlloc || nNew > SIZE_MAX/sz ) return 0;
  aNew = realloc(a, nNew*sz);
  if( aNew ) *pnAlloc = nNew;
  return aNew;
}

#endif /* TL_NUM_H */
