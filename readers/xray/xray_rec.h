/*
** xray_rec.h: the XRay record cursor (layout in xray.h), shared by the open
** walk and the scans. Inline: it runs once per record.
*/
#ifndef TL_XRAY_REC_H
#define TL_XRAY_REC_H

#include <string.h>

#include "xray_int.h"

/*
** floor(n / freq) without a division (one per record would cost more than
** the rest of reading it): q = floor(n * floor(2^64/freq) / 2^64) is at
** most the quotient and at most 2 below it; the remainder corrects it.
*/
static inline uint64_t freq_div(const XrData *p, uint64_t n){
  uint64_t q, r;
  if( p->freqInv==0 ) return n / p->freq;
  q = (uint64_t)(((unsigned __int128)n * p->freqInv) >> 64);
  r = n - q*p->freq;
  while( r >= p->freq ){ q++; r -= p->freq; }
  return q;
}

/*
** floor(c * 1e9 / freq) (freq > 0), or -1 when above INT64_MAX: one 64-bit
** quotient (freq_div) when c*1e9 fits 64 bits; else, with c = a*freq + b, it
** is a*1e9 + floor(b*1e9 / freq): two when b*1e9 fits (any freq up to
** 18 GHz), a 128-bit division otherwise.
*/
static inline int64_t cycles_ns(const XrData *p, uint64_t c){
  const uint64_t freq = p->freq;
  uint64_t a, b;
  unsigned __int128 x;
  if( c <= UINT64_MAX/1000000000u ){
    /* a call's length, mostly */
    uint64_t ns = freq_div(p, c*1000000000u);
    return ns > (uint64_t)INT64_MAX ? -1 : (int64_t)ns;
  }
  a = freq_div(p, c);
  b = c - a*freq;
  if( freq <= UINT64_MAX/1000000000u && a <= (uint64_t)INT64_MAX/1000000000u ){
    uint64_t ns = a*1000000000u + freq_div(p, b*1000000000u);
    return ns > (uint64_t)INT64_MAX ? -1 : (int64_t)ns;
  }
  x = (unsigned __int128)c * 1000000000u / freq;
  return x > (unsigned __int128)INT64_MAX ? -1 : (int64_t)x;
}

static inline int64_t tsc_ns(const XrData *p, uint64_t tsc, int *pbOk){
  int64_t ns;
  *pbOk = 0;
  if( p->freq==0 ) return 0;
  ns = cycles_ns(p, tsc);
  if( ns<0 ) return 0;
  *pbOk = 1;
  return ns;
}

/*
** The first byte of an FDR record: a little-endian producer puts the
** discriminant in bit 0 and the metadata kind in bits 1-7; a big-endian one
** numbers the bitfield from the top: discriminant in bit 7, kind in bits 0-6.
** Function records likewise: type in bits 1-3 and id in bits 4-31 of the
** little-endian u32; type in bits 28-30 and id in bits 0-27 of the big-endian.
*/
static inline int fdr_is_meta(const XrData *p, uint8_t b){
  return p->bo==TL_LE ? (b & 1) : (b >> 7);
}
static inline unsigned fdr_meta_kind(const XrData *p, uint8_t b){
  return p->bo==TL_LE ? (unsigned)(b >> 1) : (unsigned)(b & 0x7F);
}
static inline unsigned fdr_func_type(const XrData *p, uint32_t w){
  return p->bo==TL_LE ? (w >> 1) & 7 : (w >> 28) & 7;
}
static inline int32_t fdr_func_id(const XrData *p, uint32_t w){
  return (int32_t)(p->bo==TL_LE ? w >> 4 : w & 0x0FFFFFFF);
}

/* ---- basic mode ------------------------------------------------------------ */

static inline int basic_next(XrCur *c, XrEv *e){
  for(;;){
    const uint8_t *a;
    uint16_t rt;
    uint8_t type;
    size_t iRec = c->b.i;
    if( c->b.i >= c->iEnd ) return TL_DONE;
    if( c->iEnd - c->b.i < XR_BASIC_REC ){
      tl_trace_warn(c->pTrace, 0, c->iBase + c->b.i, "the log ends inside a 32-byte record (%zu bytes left)",
                    c->iEnd - c->b.i);
      c->b.i = c->iEnd;
      return TL_DONE;
    }
    if( tl_bytes_ptr(&c->b, XR_BASIC_REC, &a) ){
      /* a guard: the 32 bytes were checked above */
      return tl_err_set(c->pErr, TL_ECORRUPT, c->iBase + iRec, "expected a 32-byte basic-mode record");
    }
    rt = tl_load_u16_unchecked(a, c->p->bo);
    if( rt==1 ){
      /* a payload with no function record before it in this walk */
      continue;
    }
    if( rt!=0 ){
      return tl_err_set(c->pErr, TL_ECORRUPT, c->iBase + iRec,
          "expected a basic-mode record type 0 or 1, found %u", rt);
    }
    type = a[3];
    if( type>3 ){
      return tl_err_set(c->pErr, TL_ECORRUPT, c->iBase + iRec,
          "expected a function record type 0-3, found %u", type);
    }
    memset(e, 0, sizeof(*e));
    e->zKind = xray_azKind[type];
    e->bFunc = 1;
    e->cpu = a[2];
    e->funcId = (int32_t)tl_load_u32_unchecked(a+4, c->p->bo);
    e->tsc = tl_load_u64_unchecked(a+8, c->p->bo);
    e->tid = tl_load_u32_unchecked(a+16, c->p->bo);
    if( c->p->nVersion>=3 ){ e->pid = tl_load_u32_unchecked(a+20, c->p->bo); e->bPid = 1; }
    e->iOff = c->iBase + iRec;
    /* argument payloads that follow */
    while( c->iEnd - c->b.i >= XR_BASIC_REC
        && tl_load_u16_unchecked(c->b.a + c->b.i, c->p->bo)==1 ){
      const uint8_t *q;
      if( tl_bytes_ptr(&c->b, XR_BASIC_REC, &q) ) break;   /* a guard: checked above */
      if( e->nArg<XR_MAX_ARGS ) e->aArg[e->nArg++] = tl_load_u64_unchecked(q+16, c->p->bo);
    }
    if( e->nArg ) e->zKind = xray_azKind[3];
    return TL_ROW;
  }
}

/* ---- FDR mode -------------------------------------------------------------- */

/*
** A WallTimeMarker (u64 seconds, u32 microseconds of CLOCK_MONOTONIC, read
** by compiler-rt as it sets up a buffer) waits for the buffer's first TSC;
** a value out of range is left out.
*/
static inline void fdr_wall_marker(XrCur *c, const uint8_t *a){
  uint64_t s = tl_load_u64_unchecked(a+1, c->p->bo);
  uint32_t us = tl_load_u32_unchecked(a+9, c->p->bo);
  c->bWall = 0;
  if( s > (uint64_t)INT64_MAX/1000000000u - 1 || us>=1000000u ) return;
  c->wallNs = (int64_t)s*1000000000 + (int64_t)us*1000;
  c->bWall = 1;
}

/*
** The first NewCPUId after the marker holds the TSC read just before it (in
** the same call of the runtime): marker minus that TSC's ts is CLOCK_MONOTONIC
** minus ts, less than a microsecond below it (the marker is cut to
** microseconds) and above it by the time between the two reads. The least
** over the buffers is kept.
*/
static inline void fdr_wall_pair(XrCur *c){
  int bOk;
  int64_t ns = tsc_ns(c->p, c->tsc, &bOk);
  c->bWall = 0;
  if( !bOk ) return;
  if( !c->bMonoOff || c->wallNs - ns < c->monoOff ){
    c->monoOff = c->wallNs - ns;
    c->bMonoOff = 1;
  }
}

/* Start of a buffer at c->b.i: v2+ BufferExtents, v1 the fixed size. */
static inline int fdr_buffer_start(XrCur *c){
  const uint8_t *a;
  size_t iRec = c->b.i;
  c->iBufStart = iRec;
  if( c->p->nVersion>=2 ){
    uint64_t n;
    if( c->iEnd - c->b.i < XR_META ){
      tl_trace_warn(c->pTrace, 0, c->iBase + iRec, "the log ends inside a buffer header (%zu bytes left)", c->iEnd - iRec);
      c->b.i = c->iEnd;
      return TL_DONE;
    }
    a = c->b.a + c->b.i;
    if( !fdr_is_meta(c->p, a[0]) || fdr_meta_kind(c->p, a[0])!=XR_EXTENTS ){
      /* compiler-rt 14 under-counts buffers holding typed events: read what
      ** could be read, say where the rest starts */
      tl_trace_warn(c->pTrace, 0, c->iBase + iRec,
          "expected a BufferExtents record to start a buffer, found byte 0x%02x: "
          "the last %zu bytes of the log are not read", a[0], c->iEnd - iRec);
      c->b.i = c->iEnd;
      return TL_DONE;
    }
    n = tl_load_u64_unchecked(a+1, c->p->bo);
    c->b.i += XR_META;
    if( n > c->iEnd - c->b.i ){
      tl_trace_warn(c->pTrace, 0, c->iBase + iRec,
          "buffer of %llu bytes is cut short by the end of the log (%zu bytes left)",
          (unsigned long long)n, c->iEnd - c->b.i);
      n = c->iEnd - c->b.i;
    }
    c->iBufEnd = c->b.i + (size_t)n;
  }else{
    uint64_t n = c->p->nBufSize;
    if( n==0 || n > c->iEnd - c->b.i ) n = c->iEnd - c->b.i;
    c->iBufEnd = c->b.i + (size_t)n;
  }
  c->bInBuf = 1;
  /* a buffer says its own thread, CPU and time (NewBuffer, NewCPU): a
  ** scan of one buffer starts with none, so the walk of all of them must
  ** not carry the previous buffer's into one that lacks them */
  c->tid = 0; c->pid = 0; c->cpu = 0; c->tsc = 0;
  c->bPid = 0;
  c->bWall = 0;
  return TL_ROW;
}

static inline int fdr_next(XrCur *c, XrEv *e){
  for(;;){
    const uint8_t *a;
    size_t iRec;
    int rc;
    if( !c->bInBuf || c->b.i >= c->iBufEnd ){
      c->bInBuf = 0;
      if( c->b.i >= c->iEnd ) return TL_DONE;
      rc = fdr_buffer_start(c);
      if( rc!=TL_ROW ) return rc;
      continue;
    }
    iRec = c->b.i;
    a = c->b.a + iRec;
    if( !fdr_is_meta(c->p, a[0]) ){
      /* function record */
      uint32_t w;
      unsigned type;
      if( c->iBufEnd - iRec < XR_FUNC ){
        tl_trace_warn(c->pTrace, 0, c->iBase + iRec, "a buffer ends inside a function record");
        c->b.i = c->iBufEnd;
        continue;
      }
      w = tl_load_u32_unchecked(a, c->p->bo);
      type = fdr_func_type(c->p, w);
      c->b.i += XR_FUNC;
      if( type>3 ){
        return tl_err_set(c->pErr, TL_ECORRUPT, c->iBase + iRec, "expected a function record type 0-3, found %u", type);
      }
      c->tsc += tl_load_u32_unchecked(a+4, c->p->bo);
      /* every field but aArg[nArg..] (a record per call: no memset) */
      e->nArg = 0;
      e->aData = 0; e->nData = 0;
      e->bTyped = 0; e->typedType = 0;
      e->zKind = xray_azKind[type];
      e->bFunc = 1;
      e->funcId = fdr_func_id(c->p, w);
      e->tsc = c->tsc;
      e->cpu = c->cpu; e->tid = c->tid; e->pid = c->pid; e->bPid = c->bPid;
      e->iOff = c->iBase + iRec;
      /* call arguments that follow */
      while( c->iBufEnd - c->b.i >= XR_META && fdr_is_meta(c->p, c->b.a[c->b.i])
          && fdr_meta_kind(c->p, c->b.a[c->b.i])==XR_CALL_ARG ){
        if( e->nArg<XR_MAX_ARGS ) e->aArg[e->nArg++] = tl_load_u64_unchecked(c->b.a + c->b.i + 1, c->p->bo);
        c->b.i += XR_META;
      }
      if( e->nArg ) e->zKind = xray_azKind[3];
      return TL_ROW;
    }
    if( c->iBufEnd - iRec < XR_META ){
      tl_trace_warn(c->pTrace, 0, c->iBase + iRec, "a buffer ends inside a metadata record");
      c->b.i = c->iBufEnd;
      continue;
    }
    c->b.i += XR_META;
    switch( fdr_meta_kind(c->p, a[0]) ){
      case XR_NEW_BUFFER:  c->tid = tl_load_u32_unchecked(a+1, c->p->bo); break;
      case XR_END_OF_BUFFER: c->b.i = c->iBufEnd; break;
      case XR_NEW_CPU:
        c->cpu = tl_load_u16_unchecked(a+1, c->p->bo);
        c->tsc = tl_load_u64_unchecked(a+3, c->p->bo);
        if( c->bWall ) fdr_wall_pair(c);
        break;
      case XR_TSC_WRAP:    c->tsc = tl_load_u64_unchecked(a+1, c->p->bo); break;
      case XR_WALLCLOCK:   fdr_wall_marker(c, a); break;
      case XR_PID:         c->pid = tl_load_u32_unchecked(a+1, c->p->bo); c->bPid = 1; break;
      case XR_CALL_ARG:    break;       /* an argument with no function before it */
      case XR_EXTENTS:
        return tl_err_set(c->pErr, TL_ECORRUPT, c->iBase + iRec, "BufferExtents record inside a buffer");
      case XR_CUSTOM: case XR_TYPED: {
        int32_t n = (int32_t)tl_load_u32_unchecked(a+1, c->p->bo);
        memset(e, 0, sizeof(*e));
        if( n<0 || (size_t)n > c->iBufEnd - c->b.i ){
          tl_trace_warn(c->pTrace, 0, c->iBase + iRec,
              "event payload of %d bytes does not fit in its buffer (%zu bytes left): "
              "the rest of the buffer is skipped", n, c->iBufEnd - c->b.i);
          c->b.i = c->iBufEnd;
          continue;
        }
        if( fdr_meta_kind(c->p, a[0])==XR_TYPED ){
          c->tsc += tl_load_u32_unchecked(a+5, c->p->bo);
          e->bTyped = 1;
          e->typedType = tl_load_u16_unchecked(a+9, c->p->bo);
          e->zKind = "typed-event";
        }else{
          if( c->p->nVersion>=5 ) c->tsc += tl_load_u32_unchecked(a+5, c->p->bo);
          else c->tsc = tl_load_u64_unchecked(a+5, c->p->bo);
          e->zKind = "custom-event";
        }
        e->tsc = c->tsc;
        e->cpu = c->cpu; e->tid = c->tid; e->pid = c->pid; e->bPid = c->bPid;
        e->aData = c->b.a + c->b.i;
        e->nData = (size_t)n;
        e->iOff = c->iBase + iRec;
        c->b.i += (size_t)n;
        return TL_ROW;
      }
      default:
        return tl_err_set(c->pErr, TL_ECORRUPT, c->iBase + iRec, "unknown metadata record kind %u",
                          fdr_meta_kind(c->p, a[0]));
    }
  }
}

/*
** Whether the record at i of c's buffer is a plain function record: whole,
** of type 0-3, and with no call argument after it. Then *pw is its first
** word and *pDelta its TSC delta.
*/
static inline int fdr_plain_at(const XrCur *c, size_t i, uint32_t *pw, uint32_t *pDelta){
  const XrData *p = c->p;
  const uint8_t *a = c->b.a;
  size_t end = c->iBufEnd;
  uint32_t w;
  if( i>end || end - i < XR_FUNC || fdr_is_meta(p, a[i]) ) return 0;
  w = tl_load_u32_unchecked(a + i, p->bo);
  if( fdr_func_type(p, w)>3 ) return 0;
  if( end - (i + XR_FUNC) >= XR_META && fdr_is_meta(p, a[i + XR_FUNC])
   && fdr_meta_kind(p, a[i + XR_FUNC])==XR_CALL_ARG ) return 0;
  *pw = w;
  *pDelta = tl_load_u32_unchecked(a + i + 4, p->bo);
  return 1;
}

static inline int cur_next(XrCur *c, XrEv *e){
  return c->p->nType==0 ? basic_next(c, e) : fdr_next(c, e);
}

/* ---- the scans' cursor -------------------------------------------------- */

/*
** Start cursor c on packet pk of the scan's file, read into window pWin:
** the cursor's offsets are the window's, c->iBase that of its first byte.
*/
static inline int cur_packet(TlScan *s, XrCur *c, TlWin *pWin, const TlPacket *pk){
  TlBytes b;
  int rc;
  memset(c, 0, sizeof(*c));
  c->pTrace = s->pTrace;
  c->p = s->p;
  c->pErr = &s->err;
  rc = tl_win_get(pWin, pk->iOff, (size_t)pk->nSize, TL_LE, &b, &s->err);
  if( rc ) return rc;
  c->b = b;
  c->iBase = pk->iOff;
  c->iEnd = b.n;
  return TL_OK;
}

/* The next event of the packets that may match, into *e. */
static inline int next_raw(TlScan *s, XrEv *e, int bAll){
  const TlIndex *x = &s->pTrace->index;
  for(;;){
    int rc;
    if( !s->bInPacket ){
      const TlPacket *pk;
      while( s->iPacket < x->n && s->iPacket < s->iPacketEnd
          && !bAll
          && (!tl_packet_may_match(&x->a[s->iPacket], s->f.tsLo, s->f.tsHi, s->f.aCpu, s->f.nCpu)
              || (s->f.bRowid && (s->f.iRowid < (int64_t)x->a[s->iPacket].iOff
                                  || s->f.iRowid >= (int64_t)(x->a[s->iPacket].iOff
                                                              + x->a[s->iPacket].nSize)))) ){
        s->iPacket++;
      }
      if( s->iPacket >= x->n || s->iPacket >= s->iPacketEnd ) return TL_DONE;
      pk = &x->a[s->iPacket++];
      tl_packet_note_read(pk);
      rc = cur_packet(s, &s->c, &s->win, pk);
      if( rc ) return rc;
      s->bInPacket = 1;
    }
    rc = cur_next(&s->c, e);
    if( rc==TL_DONE ){ s->bInPacket = 0; continue; }
    return rc;
  }
}

/* The dur in ns of a call from TSC a to b, or XR_DUR_NULL (no frequency,
** negative, too long). */
static inline int64_t tsc_dur(const TlScan *s, uint64_t a, uint64_t b){
  if( s->p->freq && b>=a ){
    int64_t d = cycles_ns(s->p, b - a);
    if( d>=0 ) return d;
  }
  return XR_DUR_NULL;
}

/* A call's dur in ns, or XR_DUR_NULL (still open, or as tsc_dur()). */
static inline int64_t call_dur(const TlScan *s, const XrCall *c){
  return c->c.bDone ? tsc_dur(s, c->c.fr.ts, c->c.tsEnd) : XR_DUR_NULL;
}

#endif /* TL_XRAY_REC_H */
