/*
** ctf_decode.c: the bit cursor for CTF stream decoding.
*/
#include "ctf/ctf_decode.h"

#include <string.h>

#include "bytes.h"

void tl_ctf_bits_init(TlCtfBits *p, const uint8_t *a, size_t n, uint64_t nBitEnd){
  p->a = a;
  p->n = n;
  p->iBit = 0;
  p->nBitEnd = nBitEnd <= (uint64_t)n*8 ? nBitEnd : (uint64_t)n*8;
}

/* Bit position after aligning iBit to nAlign, or UINT64_MAX on overflow. */
static uint64_t ctf_aligned(uint64_t iBit, unsigned nAlign){
  uint64_t m;
  if( nAlign<=1 ) return iBit;
  m = (uint64_t)nAlign - 1;
  if( iBit > UINT64_MAX - m ) return UINT64_MAX;
  return (iBit + m) & ~m;
}

int tl_ctf_bits_align(TlCtfBits *p, unsigned nAlign){
  uint64_t i = ctf_aligned(p->iBit, nAlign);
  if( i > p->nBitEnd ) return -1;
  p->iBit = i;
  return 0;
}

int tl_ctf_bits_uint(TlCtfBits *p, unsigned nAlign, unsigned nBits, int bo, uint64_t *pOut){
  uint64_t i = ctf_aligned(p->iBit, nAlign);
  uint64_t v;
  if( nBits==0 || nBits>64 || i > p->nBitEnd || p->nBitEnd - i < nBits ) return -1;
  if( ((i | nBits) & 7)==0 ){
    /* Whole bytes, the common case: no bit shuffling. */
    const uint8_t *a = p->a + i/8;
    unsigned k, n = nBits/8;
    v = 0;
    if( bo==TL_BE ){
      for(k=0; k<n; k++) v = (v << 8) | a[k];
    }else{
      for(k=n; k>0; k--) v = (v << 8) | a[k-1];
    }
  }else if( tl_bits_read(p->a, p->n, i, nBits, bo, &v) ){
    return -1;
  }
  p->iBit = i + nBits;
  *pOut = v;
  return 0;
}

int tl_ctf_bits_sint(TlCtfBits *p, unsigned nAlign, unsigned nBits, int bo, int64_t *pOut){
  uint64_t v;
  if( tl_ctf_bits_uint(p, nAlign, nBits, bo, &v) ) return -1;
  if( nBits<64 && (v >> (nBits-1)) & 1 ) v |= ~(uint64_t)0 << nBits;
  *pOut = (int64_t)v;
  return 0;
}

int tl_ctf_bits_float(TlCtfBits *p, unsigned nAlign, unsigned nBits, int bo, double *pOut){
  uint64_t v;
  if( nBits!=32 && nBits!=64 ) return -1;
  if( tl_ctf_bits_uint(p, nAlign, nBits, bo, &v) ) return -1;
  if( nBits==32 ){
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, sizeof(f));
    *pOut = (double)f;
  }else{
    double d;
    memcpy(&d, &v, sizeof(d));
    *pOut = d;
  }
  return 0;
}

int tl_ctf_bits_string(TlCtfBits *p, const char **pz, size_t *pn){
  uint64_t i = ctf_aligned(p->iBit, 8);
  TlBytes b;
  if( i > p->nBitEnd ) return -1;
  b = tl_bytes(p->a, (size_t)(p->nBitEnd/8), TL_LE);
  if( tl_bytes_seek(&b, (size_t)(i/8)) ) return -1;
  if( tl_bytes_cstr(&b, pz, pn) ) return -1;
  p->iBit = (uint64_t)b.i * 8;
  return 0;
}

/* cycles * 1e9 / freq, truncated; -1 if it exceeds INT64_MAX. */
static int ctf_cycles_ns(uint64_t freq, uint64_t cycles, __int128 *pNs){
  unsigned __int128 x = (unsigned __int128)cycles * 1000000000u / freq;
  if( x > (unsigned __int128)INT64_MAX ) return -1;
  *pNs = (__int128)x;
  return 0;
}

int tl_ctf_clock_ns(uint64_t freq, int64_t offsetS, uint64_t offset,
                    uint64_t cycles, int64_t *pNs){
  __int128 a, b, t;
  if( freq==0 ) return -1;
  if( ctf_cycles_ns(freq, offset, &a) || ctf_cycles_ns(freq, cycles, &b) ) return -1;
  t = (__int128)offsetS * 1000000000 + a + b;
  if( t > INT64_MAX || t < INT64_MIN ) return -1;
  *pNs = (int64_t)t;
  return 0;
}

/* babeltrace2's cycles to ns: exact at 1 GHz, else through a double. */
static uint64_t ctf_cycles_ns_bt(uint64_t freq, uint64_t cycles){
  double d;
  if( freq==1000000000u ) return cycles;
  d = 1e9 * (double)cycles / (double)freq;
  return d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
}

int tl_ctf_clock_ns_bt(uint64_t freq, int64_t offsetS, uint64_t offset,
                       uint64_t cycles, int64_t *pNs){
  __int128 t;
  if( freq==0 ) return -1;
  if( freq==1000000000u ){
    /* a cycle is a ns (the usual clock): the same sum, with no division */
    t = (__int128)offsetS * 1000000000 + (__int128)offset + (__int128)cycles;
  }else{
    /* Whole seconds of the cycle offset move into offset_s first. */
    t = (__int128)offsetS + (__int128)(offset / freq);
    t = t * 1000000000 + ctf_cycles_ns_bt(freq, offset % freq);
    t += ctf_cycles_ns_bt(freq, cycles);
  }
  if( t > INT64_MAX || t < INT64_MIN ) return -1;
  *pNs = (int64_t)t;
  return 0;
}
