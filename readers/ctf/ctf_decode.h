/*
** ctf_decode.h: the bit cursor the CTF stream decoder reads fields with.
**
** A cursor covers one packet's bytes; positions are in bits. Every read is
** bounds-checked against the end (the packet's content_size), aligns
** first, and leaves the cursor where it was when it fails.
*/
#ifndef TL_CTF_DECODE_H
#define TL_CTF_DECODE_H

#include <stddef.h>
#include <stdint.h>

typedef struct TlCtfBits TlCtfBits;
struct TlCtfBits {
  const uint8_t *a;               /* first byte of the packet */
  size_t n;                       /* bytes at a */
  uint64_t iBit;                  /* next bit to read */
  uint64_t nBitEnd;               /* reads stop here (content_size) */
};

/* A cursor over n bytes with nBitEnd readable bits (clamped to 8*n). */
void tl_ctf_bits_init(TlCtfBits*, const uint8_t *a, size_t n, uint64_t nBitEnd);

/* Skip to a multiple of nAlign bits (a power of two). -1 past the end. */
int tl_ctf_bits_align(TlCtfBits*, unsigned nAlign);

/*
** An integer of nBits (1..64) after aligning to nAlign, in byte order bo
** (TL_LE/TL_BE), sign-extended when signed. -1 past the end.
*/
int tl_ctf_bits_uint(TlCtfBits*, unsigned nAlign, unsigned nBits, int bo, uint64_t *pOut);
int tl_ctf_bits_sint(TlCtfBits*, unsigned nAlign, unsigned nBits, int bo, int64_t *pOut);

/* A 32- or 64-bit IEEE float. -1 past the end or for another size. */
int tl_ctf_bits_float(TlCtfBits*, unsigned nAlign, unsigned nBits, int bo, double *pOut);

/*
** A NUL-terminated string at the next byte boundary: *pz borrowed, *pn
** without the NUL. -1 when no NUL comes before the end.
*/
int tl_ctf_bits_string(TlCtfBits*, const char **pz, size_t *pn);



/*
** The clock value after a field of nBits (1..64) holding v updates a clock
** whose previous value is prev: the low nBits are replaced, and when the
** result is below prev the field wrapped, so 2^nBits is added (the CTF
** 1.8 rule for narrow timestamp fields such as LTTng's 27-bit ones).
*/
static inline uint64_t tl_ctf_clock_update(uint64_t prev, uint64_t v, unsigned nBits){
  uint64_t mask, cur;
  if( nBits>=64 ) return v;
  mask = ((uint64_t)1 << nBits) - 1;
  v &= mask;
  cur = (prev & ~mask) | v;
  if( v < (prev & mask) ) cur += (uint64_t)1 << nBits;
  return cur;
}

/*
** Nanoseconds from the clock's origin for a value in cycles:
** offsetS * 1e9 + (offset + cycles) * 1e9 / freq, in exact integer
** arithmetic (each of offset and cycles converted then truncated).
** Returns -1 when freq is 0 or the result does not fit int64.
*/
int tl_ctf_clock_ns(uint64_t freq, int64_t offsetS, uint64_t offset,
                    uint64_t cycles, int64_t *pNs);

/*
** The same as babeltrace2 computes it: the cycle offset's whole seconds
** moved into offsetS, then each cycle count converted exactly at 1 GHz
** and through a double (1e9 * cycles / freq, truncated) at any other
** frequency. Equal to tl_ctf_clock_ns() at 1 GHz; may differ by a
** nanosecond or more elsewhere. -1 as tl_ctf_clock_ns().
*/
int tl_ctf_clock_ns_bt(uint64_t freq, int64_t offsetS, uint64_t offset,
                       uint64_t cycles, int64_t *pNs);
#endif
