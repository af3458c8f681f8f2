/*
** num.h: integer helpers for values read from traces, which may be
** anything: sums held at the int64 range, arrays grown by doubling, keys
** mixed for hash tables.
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

/*
** Key k with every bit mixed into every other (MurmurHash3's 64-bit
** finalizer): a hash table's slot may be any of its bits, low or high,
** even for keys that differ only in a few (doubles of small integers,
** addresses a page apart).
*/
static inline uint64_t tl_mix64(uint64_t k){
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

#endif /* TL_NUM_H */
