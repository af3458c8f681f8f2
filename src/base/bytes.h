/*
** bytes.h: the bounds-checked byte cursor.
**
** Every read of file data goes through a TlBytes window. A window never
** reaches past its end: each reader checks the bytes that remain before it
** reads, and a failed read leaves the cursor where it was. Byte order is
** explicit in every call (or set once in the window, for the _e forms).
**
** Only bytes.c and the unchecked loads below index raw buffers.
*/
#ifndef TL_BYTES_H
#define TL_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Cursor results must be looked at: a read that failed wrote nothing. */
#if defined(__GNUC__)
# define TL_MUST_USE __attribute__((warn_unused_result))
#else
# define TL_MUST_USE
#endif

#define TL_LE 0                   /* little-endian */
#define TL_BE 1                   /* big-endian */

typedef struct TlBytes TlBytes;
struct TlBytes {
  const uint8_t *a;               /* First byte of the window */
  size_t n;                       /* Size of the window in bytes */
  size_t i;                       /* Offset of the next unread byte; i<=n */
  int bo;                         /* Byte order for the _e readers: TL_LE/TL_BE */
};

/* Make a window over n bytes at a, positioned at 0, with byte order bo. */
static inline TlBytes tl_bytes(const void *a, size_t n, int bo){
  TlBytes b;
  b.a = (const uint8_t*)a;
  b.n = a ? n : 0;
  b.i = 0;
  b.bo = bo;
  return b;
}

/* Bytes left to read. */
static inline size_t tl_bytes_left(const TlBytes *p){ return p->n - p->i; }

static inline uint16_t tl_load_u16_unchecked(const uint8_t*, int bo);
static inline uint32_t tl_load_u32_unchecked(const uint8_t*, int bo);
static inline uint64_t tl_load_u64_unchecked(const uint8_t*, int bo);

/*
** Each reader returns 0 on success and -1 when fewer bytes remain than it
** needs; on failure the cursor does not move and *pOut is left untouched.
** The fixed-size reads are inline: decoders make one per field, and a call
** each was a twentieth of a scan of perf tracepoint records.
*/
TL_MUST_USE static inline int tl_bytes_u8(TlBytes *p, uint8_t *pOut){
  if( p->n - p->i < 1 ) return -1;
  *pOut = p->a[p->i++];
  return 0;
}
TL_MUST_USE static inline int tl_bytes_u16(TlBytes *p, int bo, uint16_t *pOut){
  if( p->n - p->i < 2 ) return -1;
  *pOut = tl_load_u16_unchecked(p->a + p->i, bo);
  p->i += 2;
  return 0;
}
TL_MUST_USE static inline int tl_bytes_u32(TlBytes *p, int bo, uint32_t *pOut){
  if( p->n - p->i < 4 ) return -1;
  *pOut = tl_load_u32_unchecked(p->a + p->i, bo);
  p->i += 4;
  return 0;
}
TL_MUST_USE static inline int tl_bytes_u64(TlBytes *p, int bo, uint64_t *pOut){
  if( p->n - p->i < 8 ) return -1;
  *pOut = tl_load_u64_unchecked(p->a + p->i, bo);
  p->i += 8;
  return 0;
}
/* (in p->bo) */
TL_MUST_USE static inline int tl_bytes_u16e(TlBytes *p, uint16_t *pOut){ return tl_bytes_u16(p, p->bo, pOut); }
TL_MUST_USE static inline int tl_bytes_u32e(TlBytes *p, uint32_t *pOut){ return tl_bytes_u32(p, p->bo, pOut); }
TL_MUST_USE static inline int tl_bytes_u64e(TlBytes *p, uint64_t *pOut){ return tl_bytes_u64(p, p->bo, pOut); }
TL_MUST_USE static inline int tl_bytes_skip(TlBytes *p, size_t n){
  if( p->n - p->i < n ) return -1;
  p->i += n;
  return 0;
}
TL_MUST_USE int tl_bytes_seek(TlBytes*, size_t i);         /* absolute; i<=n */
TL_MUST_USE int tl_bytes_align(TlBytes*, size_t nAlign);   /* skip to a multiple of nAlign */

/* Point *pz at the next n bytes (borrowed) and advance. */
TL_MUST_USE static inline int tl_bytes_ptr(TlBytes *p, size_t n, const uint8_t **pz){
  if( p->n - p->i < n ) return -1;
  *pz = p->a + p->i;
  p->i += n;
  return 0;
}

/* Copy the next n bytes into a and advance. */
TL_MUST_USE int tl_bytes_copy(TlBytes*, void *a, size_t n);

/* Child window of the next n bytes (same byte order); advances the parent. */
TL_MUST_USE int tl_bytes_sub(TlBytes*, size_t n, TlBytes *pOut);

/*
** A NUL-terminated string starting at the cursor: *pz points at it, *pn is
** its length without the NUL, the cursor moves past the NUL. Fails when no
** NUL occurs before the end of the window.
*/
TL_MUST_USE int tl_bytes_cstr(TlBytes*, const char **pz, size_t *pn);

/* Peek without moving: the same contract as the readers above. */
TL_MUST_USE int tl_bytes_peek_u32(const TlBytes*, int bo, uint32_t *pOut);

/*
** Unchecked loads from a buffer the caller has already bounds-checked
** (for example through tl_bytes_ptr). They never look past a+2/4/8.
** Inline: decoders call them once per field.
*/
static inline uint16_t tl_load_u16_unchecked(const uint8_t *a, int bo){
  if( bo==TL_BE ) return (uint16_t)((a[0]<<8) | a[1]);
  return (uint16_t)((a[1]<<8) | a[0]);
}

static inline uint32_t tl_load_u32_unchecked(const uint8_t *a, int bo){
  if( bo==TL_BE ){
    return ((uint32_t)a[0]<<24) | ((uint32_t)a[1]<<16)
         | ((uint32_t)a[2]<<8) | (uint32_t)a[3];
  }
  return ((uint32_t)a[3]<<24) | ((uint32_t)a[2]<<16)
       | ((uint32_t)a[1]<<8) | (uint32_t)a[0];
}

static inline uint64_t tl_load_u64_unchecked(const uint8_t *a, int bo){
  uint64_t hi, lo;
  if( bo==TL_BE ){
    hi = tl_load_u32_unchecked(a, bo);
    lo = tl_load_u32_unchecked(a+4, bo);
  }else{
    lo = tl_load_u32_unchecked(a, bo);
    hi = tl_load_u32_unchecked(a+4, bo);
  }
  return (hi<<32) | lo;
}

/*
** A record window: n bytes that one check has shown to be there (for
** example a record whose size its header gave). Inside it, fixed fields are
** read by offset without a check each: tl_rec_u16/u32/u64 stay within
** [a, a+n) by the caller's offsets, which builds with TL_CHECK_RECORDS (the
** sanitizer builds of `make check` and the fuzzers) verify on every load.
*/
typedef struct TlRec TlRec;
struct TlRec {
  const uint8_t *a;               /* First byte of the record */
  size_t n;                       /* Bytes checked to be there */
  int bo;                         /* Byte order of its fields */
};

#ifdef TL_CHECK_RECORDS
void tl_rec_overrun(const TlRec*, size_t off, size_t n);   /* aborts */
# define TL_REC_CHECK(r, off, sz) \
   do{ if( (off)>(r)->n || (sz)>(r)->n-(off) ) tl_rec_overrun((r), (off), (sz)); }while(0)
#else
# define TL_REC_CHECK(r, off, sz) ((void)0)
#endif

/* The next n bytes of p as a record window; advances p. -1 (p unmoved)
** when fewer than n bytes remain. */
TL_MUST_USE static inline int tl_bytes_rec(TlBytes *p, size_t n, TlRec *pOut){
  if( n > p->n - p->i ) return -1;
  pOut->a = p->a + p->i;
  pOut->n = n;
  pOut->bo = p->bo;
  p->i += n;
  return 0;
}

static inline uint8_t tl_rec_u8(const TlRec *r, size_t off){
  TL_REC_CHECK(r, off, 1);
  return r->a[off];
}
static inline uint16_t tl_rec_u16(const TlRec *r, size_t off){
  TL_REC_CHECK(r, off, 2);
  return tl_load_u16_unchecked(r->a + off, r->bo);
}
static inline uint32_t tl_rec_u32(const TlRec *r, size_t off){
  TL_REC_CHECK(r, off, 4);
  return tl_load_u32_unchecked(r->a + off, r->bo);
}
static inline uint64_t tl_rec_u64(const TlRec *r, size_t off){
  TL_REC_CHECK(r, off, 8);
  return tl_load_u64_unchecked(r->a + off, r->bo);
}

/*
** Read nBits (1..64) starting at bit offset iBit of the n-byte buffer a.
** bo TL_LE: bits are numbered from the least significant bit of each byte
** (CTF little-endian bitfields); TL_BE: from the most significant bit. Returns
** -1 if the field does not fit in the buffer.
*/
TL_MUST_USE int tl_bits_read(const uint8_t *a, size_t n, uint64_t iBit, unsigned nBits,
                 int bo, uint64_t *pOut);

#endif /* TL_BYTES_H */
