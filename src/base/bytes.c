/*
** bytes.c: the bounds-checked byte cursor (see bytes.h).
**
** The checks compare the request with the bytes that remain (n - i), never
** i + request with n, so a huge request cannot wrap around.
*/
#include "bytes.h"

#include <string.h>

int tl_bytes_seek(TlBytes *p, size_t i){
  if( i > p->n ) return -1;
  p->i = i;
  return 0;
}

int tl_bytes_align(TlBytes *p, size_t nAlign){
  size_t r;
  if( nAlign<=1 ) return 0;
  r = p->i % nAlign;
  if( r==0 ) return 0;
  return tl_bytes_skip(p, nAlign - r);
}

int tl_bytes_copy(TlBytes *p, void *a, size_t n){
  if( p->n - p->i < n ) return -1;
  if( n ) memcpy(a, p->a + p->i, n);
  p->i += n;
  return 0;
}

int tl_bytes_sub(TlBytes *p, size_t n, TlBytes *pOut){
  if( p->n - p->i < n ) return -1;
  pOut->a = p->a + p->i;
  pOut->n = n;
  pOut->i = 0;
  pOut->bo = p->bo;
  p->i += n;
  return 0;
}

int tl_bytes_cstr(TlBytes *p, const char **pz, size_t *pn){
  const uint8_t *z;
  size_t nLeft = p->n - p->i;
  if( nLeft==0 ) return -1;
  z = memchr(p->a + p->i, 0, nLeft);
  if( z==0 ) return -1;
  *pz = (const char*)(p->a + p->i);
  *pn = (size_t)(z - (p->a + p->i));
  p->i += *pn + 1;
  return 0;
}

int tl_bytes_peek_u32(const TlBytes *p, int bo, uint32_t *pOut){
  if( p->n - p->i < 4 ) return -1;
  *pOut = tl_load_u32_unchecked(p->a + p->i, bo);
  return 0;
}

int tl_bits_read(const uint8_t *a, size_t n, uint64_t iBit, unsigned nBits,
                 int bo, uint64_t *pOut){
  uint64_t v = 0;
  uint64_t iPos = iBit;
  unsigned nGot = 0;
  if( nBits==0 || nBits>64 ) return -1;
  if( iBit/8 >= n ) return -1;
  if( (n - iBit/8)*8 - (iBit%8) < nBits ) return -1;
  if( n - iBit/8 >= 8 && iBit%8 + nBits <= 64 ){
    /* the field lies within 8 readable bytes: one load and two shifts */
    unsigned s = (unsigned)(iBit%8);
    if( bo==TL_LE ){
      v = tl_load_u64_unchecked(a + iBit/8, TL_LE) >> s;
      if( nBits<64 ) v &= ((uint64_t)1 << nBits) - 1;
    }else{
      v = (tl_load_u64_unchecked(a + iBit/8, TL_BE) << s) >> (64 - nBits);
    }
    *pOut = v;
    return 0;
  }
  while( nGot<nBits ){
    unsigned b = a[iPos/8];
    unsigned iOff = (unsigned)(iPos%8);
    unsigned nTake = 8 - iOff;
    uint64_t bits;
    if( nTake > nBits - nGot ) nTake = nBits - nGot;
    if( bo==TL_LE ){
      /* bits are numbered from the least significant bit of each byte */
      bits = (b >> iOff) & ((1u<<nTake)-1);
      v |= bits << nGot;
    }else{
      /* bits are numbered from the most significant bit of each byte */
      bits = (b >> (8 - iOff - nTake)) & ((1u<<nTake)-1);
      v = (nTake==64 ? 0 : (v << nTake)) | bits;
    }
    nGot += nTake;
    iPos += nTake;
  }
  *pOut = v;
  return 0;
}

#ifdef TL_CHECK_RECORDS
#include <stdio.h>
#include <stdlib.h>
/* A load outside its record window: a reader's offsets are wrong. */
void tl_rec_overrun(const TlRec *r, size_t off, size_t n){
  fprintf(stderr, "tracelite: load of %zu bytes at offset %zu of a %zu-byte record\n",
          n, off, r->n);
  abort();
}
#endif
