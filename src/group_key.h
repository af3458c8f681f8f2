/*
** group_key.h: the keys of the engine's grouped output (src/group.c): their
** hash and their order. A key is its values one after the other, each a
** tag byte and its bytes (group.c's header comment); and the words a
** tally's memo knows a key by. Inline, as they run per row.
*/
#ifndef TL_GROUP_KEY_H
#define TL_GROUP_KEY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "num.h"

#define KEY_GROUP 0x80              /* tag bit: a GROUP BY column */

/*
** a[0..n) onto h, eight bytes a step (a byte a step cost more than the rest
** of a row's grouping; tl_mix64() spreads the bits).
*/
static inline uint64_t hash_add(uint64_t h, const uint8_t *a, size_t n){
  uint64_t w;
  while( n>=8 ){
    memcpy(&w, a, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 32;
    a += 8;
    n -= 8;
  }
  w = 0;                            /* the tail (up to 7 bytes) and its length */
  if( n ) memcpy(&w, a, n);
  w = w << 8 | n;
  h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

static inline uint64_t key_hash(const uint8_t *a, size_t n){
  return tl_mix64(hash_add(0xcbf29ce484222325ULL, a, n));
}

/* The bytes of the value at a (its tag, then 8 bytes, then text or blob). */
static inline size_t val_size(const uint8_t *a){
  uint64_t n;
  switch( a[0] & ~KEY_GROUP ){
    case 'i': case 'r': return 9;
    case 't': case 'b': memcpy(&n, a+1, 8); return 9 + (size_t)n;
    default: return 1;
  }
}

/* The value of index k in key a (n bytes), or NULL when it has fewer. */
static inline const uint8_t *key_val(const uint8_t *a, size_t n, int k){
  size_t i = 0;
  while( i<n && k-- > 0 ) i += val_size(a + i);
  return i<n ? a + i : 0;
}

/* Compare the values at a and b in SQLite's order (NULL, numbers, text,
** blob; text and blobs by their bytes). */
static inline int val_cmp(const uint8_t *a, const uint8_t *b){
  static const char zRank[] = "nirtb";
  int ta = a[0] & ~KEY_GROUP, tb = b[0] & ~KEY_GROUP;
  const char *pa = strchr(zRank, ta), *pb = strchr(zRank, tb);
  int ra = pa ? (int)(pa - zRank) : 0, rb = pb ? (int)(pb - zRank) : 0;
  if( ra==2 ) ra = 1;                 /* i and r: one rank */
  if( rb==2 ) rb = 1;
  if( ra!=rb ) return ra<rb ? -1 : 1;
  if( ra==1 ){
    int64_t xa, xb;
    double da, db;
    memcpy(&xa, a+1, 8);
    memcpy(&xb, b+1, 8);
    if( ta=='i' && tb=='i' ) return xa<xb ? -1 : xa>xb;
    if( ta=='i' ) da = (double)xa; else memcpy(&da, a+1, 8);
    if( tb=='i' ) db = (double)xb; else memcpy(&db, b+1, 8);
    return da<db ? -1 : da>db;
  }
  if( ra>=3 ){
    uint64_t la, lb;
    int c;
    memcpy(&la, a+1, 8);
    memcpy(&lb, b+1, 8);
    c = memcmp(a+9, b+9, (size_t)(la<lb ? la : lb));
    return c ? c : (la<lb ? -1 : la>lb);
  }
  return 0;
}

/* Compare the GROUP BY values of two keys (SQLite's order of types). */
static inline int key_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb){
  size_t i = 0, j = 0;
  while( i<na && j<nb ){
    if( a[i] & KEY_GROUP ){
      int c = val_cmp(a+i, b+j);
      if( c ) return c;
    }
    i += val_size(a+i);
    j += val_size(b+j);
  }
  return 0;
}

/* A hash of n words (the memo's slot). */
static inline uint64_t memo_hash(const uint64_t *a, int n){
  uint64_t h = 0;
  int i;
  for(i=0; i<n; i++) h = ((h << 17) | (h >> 47)) ^ a[i];
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

/* Are the n words at a and b the same? */
static inline int memo_same(const uint64_t *a, const uint64_t *b, int n){
  int i;
  for(i=0; i<n; i++) if( a[i]!=b[i] ) return 0;
  return 1;
}

#endif /* TL_GROUP_KEY_H */
