/*
** num.h: integer helpers for values read from traces, which may be
** anything: sums held at the int64 range.
*/
#ifndef TL_NUM_H
#define TL_NUM_H

#include <stddef.h>
#include <stdint.h>

/* a + b, held at the int64 range. */
static inline int64_t tl_add_sat(int64_t a, int64_t b){
  if( b>0 && a>INT64_MAX - b ) return INT64_MAX;
  if( b<0 && a<INT64_MIN - b ) return INT64_MIN;
  return a + b;
}

#endif /* TL_NUM_H */
