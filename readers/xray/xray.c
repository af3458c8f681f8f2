/*
** xray.c: LLVM XRay log reader (layout in xray.h).
**
** One walk at open builds the packet index (FDR: one packet per buffer;
** basic mode: runs of records of one thread) and the thread list. A scan
** starts at any packet: every FDR buffer names its thread, process, CPU and
** base TSC, and basic records are self-contained.
*/
#include "xray_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map.h"
#include "progress.h"

#define XR_HDR           32
#define XR_BASIC_REC     32
#define XR_META          16
#define XR_FUNC           8
#define XR_MAX_ARGS       8
#define XR_BASIC_RUN   4096        /* records per basic-mode packet at most */
#define XR_MAX_THREADS (1u<<20)
#define XR_PKT_CUT        1        /* TlPacket.flags: runs into damaged data, so its
                                   ** count is not the rows a scan gives */

enum { XR_NEW_BUFFER = 0, XR_END_OF_BUFFER = 1, XR_NEW_CPU = 2, XR_TSC_WRAP = 3,
       XR_WALLCLOCK = 4, XR_CUSTOM = 5, XR_CALL_ARG = 6, XR_EXTENTS = 7,
       XR_TYPED = 8, XR_PID = 9 };

static const char *const azKind[] = {
  "function-enter", "function-exit", "function-tail-exit", "function-enter-arg"
};

typedef struct XrThread XrThread;
struct XrThread {
  uint32_t tid, pid;
  int64_t tsFirst, tsLast;
  int bTs;
  uint64_t nEvents;
  uint64_t tscFirst, tscLast;     /* while the log is first read */
};

typedef struct XrData XrData;
struct XrData {
  int bo;                         /* TL_LE, or TL_BE for a big-endian producer */
  int nVersion, nType;            /* header */
  uint64_t freq;                  /* cycle frequency */
  uint64_t freqInv;               /* floor(2^64 / freq) for freq >= 2, else 0 */
  int bConstTsc, bNonstopTsc;
  uint64_t nBufSize;              /* FDR v1: fixed buffer size */
  XrThread *aThread; size_t nThread, nAlloc;
  XrMap map;                      /* instrumentation map (binary=), or empty */
  int bMapOnly;                   /* the trace is the binary itself */
};

/* One event, decoded. */
typedef struct XrEv XrEv;
struct XrEv {
  const char *zKind;              /* llvm-xray YAML kind */
  int bFunc; int32_t funcId;
  uint64_t tsc;
  uint32_t cpu, tid, pid;
  int bPid;
  uint64_t aArg[XR_MAX_ARGS]; int nArg;
  const uint8_t *aData; size_t nData; /* custom / typed event payload */
  int bTyped; uint16_t typedType;
  uint64_t iOff;                  /* file offset of its record */
};

/* The walk over one packet (or the whole file at open). */
typedef struct XrCur XrCur;
struct XrCur {
  TlTrace *pTrace;
  const XrData *p;
  TlBytes b;                      /* the whole file */
  size_t iEnd;                    /* end of the region */
  size_t iBufStart;               /* FDR: offset of the current buffer */
  size_t iBufEnd;                 /* FDR: end of the current buffer */
  int bInBuf;                     /* FDR: inside a buffer */
  uint32_t tid, pid, cpu;
  int bPid;
  uint64_t tsc;                   /* FDR: running TSC */
  TlErr *pErr;
};

/*
** floor(c * 1e9 / freq) (freq > 0), or -1 when above INT64_MAX: one 64-bit
** quotient (freq_div) when c*1e9 fits 64 bits; else, with c = a*freq + b, it
** is a*1e9 + floor(b*1e9 / freq): two when b*1e9 fits (any freq up to
** 18 GHz), a 128-bit division otherwise.
*/
static uint64_t freq_div(const XrData *p, uint64_t n);
static int64_t cycles_ns(const XrData *p, uint64_t c){
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

/*
** floor(n / freq) without a division (one per record would cost more than
** the rest of reading it): q = floor(n * floor(2^64/freq) / 2^64) is at
** most the quotient and at most 2 below it; the remainder corrects it.
*/
static uint64_t freq_div(const XrData *p, uint64_t n){
  uint64_t q, r;
  if( p->freqInv==0 ) return n / p->freq;
  q = (uint64_t)(((unsigned __int128)n * p->freqInv) >> 64);
  r = n - q*p->freq;
  while( r >= p->freq ){ q++; r -= p->freq; }
  return q;
}

static int64_t tsc_ns(const XrData *p, uint64_t tsc, int *pbOk){
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
static int fdr_is_meta(const XrData *p, uint8_t b){
  return p->bo==TL_LE ? (b & 1) : (b >> 7);
}
static unsigned fdr_meta_kind(const XrData *p, uint8_t b){
  return p->bo==TL_LE ? (unsigned)(b >> 1) : (unsigned)(b & 0x7F);
}
static unsigned fdr_func_type(const XrData *p, uint32_t w){
  return p->bo==TL_LE ? (w >> 1) & 7 : (w >> 28) & 7;
}
static int32_t fdr_func_id(const XrData *p, uint32_t w){
  return (int32_t)(p->bo==TL_LE ? w >> 4 : w & 0x0FFFFFFF);
}

/* ---- basic mode ------------------------------------------------------------ */

static int basic_next(XrCur *c, XrEv *e){
  for(;;){
    const uint8_t *a;
    uint16_t rt;
    uint8_t type;
    size_t iRec = c->b.i;
    if( c->b.i >= c->iEnd ) return TL_DONE;
    if( c->iEnd - c->b.i < XR_BASIC_REC ){
      tl_trace_warn(c->pTrace, 0, c->b.i, "the log ends inside a 32-byte record (%zu bytes left)",
                    c->iEnd - c->b.i);
      c->b.i = c->iEnd;
      return TL_DONE;
    }
    if( tl_bytes_ptr(&c->b, XR_BASIC_REC, &a) ){
      /* a guard: the 32 bytes were checked above */
      return tl_err_set(c->pErr, TL_ECORRUPT, iRec, "expected a 32-byte basic-mode record");
    }
    rt = tl_load_u16_unchecked(a, c->p->bo);
    if( rt==1 ){
      /* a payload with no function record before it in this walk */
      continue;
    }
    if( rt!=0 ){
      return tl_err_set(c->pErr, TL_ECORRUPT, iRec,
          "expected a basic-mode record type 0 or 1, found %u", rt);
    }
    type = a[3];
    if( type>3 ){
      return tl_err_set(c->pErr, TL_ECORRUPT, iRec,
          "expected a function record type 0-3, found %u", type);
    }
    memset(e, 0, sizeof(*e));
    e->zKind = azKind[type];
    e->bFunc = 1;
    e->cpu = a[2];
    e->funcId = (int32_t)tl_load_u32_unchecked(a+4, c->p->bo);
    e->tsc = tl_load_u64_unchecked(a+8, c->p->bo);
    e->tid = tl_load_u32_unchecked(a+16, c->p->bo);
    if( c->p->nVersion>=3 ){ e->pid = tl_load_u32_unchecked(a+20, c->p->bo); e->bPid = 1; }
    e->iOff = iRec;
    /* argument payloads that follow */
    while( c->iEnd - c->b.i >= XR_BASIC_REC
        && tl_load_u16_unchecked(c->b.a + c->b.i, c->p->bo)==1 ){
      const uint8_t *q;
      if( tl_bytes_ptr(&c->b, XR_BASIC_REC, &q) ) break;   /* a guard: checked above */
      if( e->nArg<XR_MAX_ARGS ) e->aArg[e->nArg++] = tl_load_u64_unchecked(q+16, c->p->bo);
    }
    if( e->nArg ) e->zKind = azKind[3];
    return TL_ROW;
  }
}

/* ---- FDR mode -------------------------------------------------------------- */

/* Start of a buffer at c->b.i: v2+ BufferExtents, v1 the fixed size. */
static int fdr_buffer_start(XrCur *c){
  const uint8_t *a;
  size_t iRec = c->b.i;
  c->iBufStart = iRec;
  if( c->p->nVersion>=2 ){
    uint64_t n;
    if( c->iEnd - c->b.i < XR_META ){
      tl_trace_warn(c->pTrace, 0, iRec, "the log ends inside a buffer header (%zu bytes left)", c->iEnd - iRec);
      c->b.i = c->iEnd;
      return TL_DONE;
    }
    a = c->b.a + c->b.i;
    if( !fdr_is_meta(c->p, a[0]) || fdr_meta_kind(c->p, a[0])!=XR_EXTENTS ){
      /* compiler-rt 14 under-counts buffers holding typed events: read what
      ** could be read, say where the rest starts */
      tl_trace_warn(c->pTrace, 0, iRec,
          "expected a BufferExtents record to start a buffer, found byte 0x%02x: "
          "the last %zu bytes of the log are not read", a[0], c->iEnd - iRec);
      c->b.i = c->iEnd;
      return TL_DONE;
    }
    n = tl_load_u64_unchecked(a+1, c->p->bo);
    c->b.i += XR_META;
    if( n > c->iEnd - c->b.i ){
      tl_trace_warn(c->pTrace, 0, iRec,
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
  c->bPid = 0;
  return TL_ROW;
}

static int fdr_next(XrCur *c, XrEv *e){
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
        tl_trace_warn(c->pTrace, 0, iRec, "a buffer ends inside a function record");
        c->b.i = c->iBufEnd;
        continue;
      }
      w = tl_load_u32_unchecked(a, c->p->bo);
      type = fdr_func_type(c->p, w);
      c->b.i += XR_FUNC;
      if( type>3 ){
        return tl_err_set(c->pErr, TL_ECORRUPT, iRec, "expected a function record type 0-3, found %u", type);
      }
      c->tsc += tl_load_u32_unchecked(a+4, c->p->bo);
      /* every field but aArg[nArg..] (a record per call: no memset) */
      e->nArg = 0;
      e->aData = 0; e->nData = 0;
      e->bTyped = 0; e->typedType = 0;
      e->zKind = azKind[type];
      e->bFunc = 1;
      e->funcId = fdr_func_id(c->p, w);
      e->tsc = c->tsc;
      e->cpu = c->cpu; e->tid = c->tid; e->pid = c->pid; e->bPid = c->bPid;
      e->iOff = iRec;
      /* call arguments that follow */
      while( c->iBufEnd - c->b.i >= XR_META && fdr_is_meta(c->p, c->b.a[c->b.i])
          && fdr_meta_kind(c->p, c->b.a[c->b.i])==XR_CALL_ARG ){
        if( e->nArg<XR_MAX_ARGS ) e->aArg[e->nArg++] = tl_load_u64_unchecked(c->b.a + c->b.i + 1, c->p->bo);
        c->b.i += XR_META;
      }
      if( e->nArg ) e->zKind = azKind[3];
      return TL_ROW;
    }
    if( c->iBufEnd - iRec < XR_META ){
      tl_trace_warn(c->pTrace, 0, iRec, "a buffer ends inside a metadata record");
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
        break;
      case XR_TSC_WRAP:    c->tsc = tl_load_u64_unchecked(a+1, c->p->bo); break;
      case XR_WALLCLOCK:   break;
      case XR_PID:         c->pid = tl_load_u32_unchecked(a+1, c->p->bo); c->bPid = 1; break;
      case XR_CALL_ARG:    break;       /* an argument with no function before it */
      case XR_EXTENTS:
        return tl_err_set(c->pErr, TL_ECORRUPT, iRec, "BufferExtents record inside a buffer");
      case XR_CUSTOM: case XR_TYPED: {
        int32_t n = (int32_t)tl_load_u32_unchecked(a+1, c->p->bo);
        memset(e, 0, sizeof(*e));
        if( n<0 || (size_t)n > c->iBufEnd - c->b.i ){
          tl_trace_warn(c->pTrace, 0, iRec,
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
        e->iOff = iRec;
        c->b.i += (size_t)n;
        return TL_ROW;
      }
      default:
        return tl_err_set(c->pErr, TL_ECORRUPT, iRec, "unknown metadata record kind %u",
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

/*
** Open's walk, past a record it took the long way: the plain function
** records that follow in the same buffer, at once. Stops before a record
** that is not one (metadata, a bad type, one whose TSC would pass tscMax or
** wrap, the buffer's end; past the little-endian loop also one with call
** arguments after it), which the long way then reads. Returns how many it
** passed, with *pLast the last one's TSC. (Their TSCs only grow from the
** record before them, so that one's is their least.)
*/
static uint64_t fdr_func_run(XrCur *c, uint64_t tscMax, uint64_t *pLast){
  size_t i = c->b.i, end = c->iBufEnd;
  uint64_t tsc = c->tsc, n = 0;
  uint32_t w, d;
  if( !c->bInBuf || c->p->nType!=1 ) return 0;
  if( c->p->bo==TL_LE && i<=end && end - i>=XR_FUNC && tscMax>=UINT32_MAX ){
    /* The usual run, a few instructions a record: records of type 0-3 (bits
    ** 0 and 3 of the first byte clear) while no delta can pass tscMax or
    ** wrap. Call arguments after a record are not counted either way (the
    ** long way skips one it meets alone), so they need not stop it. What
    ** stops it, the loop below goes on from. */
    const uint8_t *a = c->b.a;
    size_t i0 = i, iLast = end - XR_FUNC;
    uint64_t tscSafe = tscMax - UINT32_MAX;
    while( i<=iLast && tsc<=tscSafe && (a[i] & 9)==0 ){
      tsc += tl_load_u32_unchecked(a + i + 4, TL_LE);
      i += XR_FUNC;
    }
    n = (i - i0) / XR_FUNC;
  }
  while( fdr_plain_at(c, i, &w, &d) ){
    uint64_t t = tsc + d;
    if( t<tsc || t>tscMax ) break;
    tsc = t;
    i += XR_FUNC;
    n++;
  }
  c->b.i = i;
  c->tsc = tsc;
  *pLast = tsc;
  return n;
}

static int cur_next(XrCur *c, XrEv *e){
  return c->p->nType==0 ? basic_next(c, e) : fdr_next(c, e);
}

/* ---- open -------------------------------------------------------------- */

/*
** The byte order of a header: the one in which version and type make
** sense (type 0 with version 1-3, type 1 with version 1-5), or -1.
*/
static int xray_byte_order(const uint8_t *a){
  int k;
  for(k=0; k<2; k++){
    int bo = k ? TL_BE : TL_LE;
    unsigned ver = tl_load_u16_unchecked(a, bo), type = tl_load_u16_unchecked(a+2, bo);
    if( type<=1 && ver>=1 && ver<=(type ? 5u : 3u) ) return bo;
  }
  return -1;
}

static int xrayProbe(const uint8_t *a, size_t n, const char *zPath, int bDir){
  uint16_t ver, type;
  (void)zPath;
  if( bDir || n<XR_HDR ) return 0;
  if( memcmp(a, "\177ELF", 4)==0 ) return 20;      /* an instrumented binary: its map */
  {
    XrData d;
    memset(&d, 0, sizeof(d));
    d.bo = xray_byte_order(a);
    if( d.bo<0 ) return 0;
    ver = tl_load_u16_unchecked(a, d.bo);
    type = tl_load_u16_unchecked(a+2, d.bo);
    /* the flag word's other bits are not cleared by every runtime: not checked */
    if( n==XR_HDR ) return 30;                       /* an empty log */
    if( type==1 ){
      if( !fdr_is_meta(&d, a[XR_HDR]) ) return 0;
      if( fdr_meta_kind(&d, a[XR_HDR])!=XR_EXTENTS && fdr_meta_kind(&d, a[XR_HDR])!=XR_NEW_BUFFER ) return 0;
      return 80;
    }
    if( n>=XR_HDR+4 && tl_load_u16_unchecked(a+XR_HDR, d.bo)<=1 && a[XR_HDR+3]<=3 ) return 50;
    (void)ver;
    return 0;
  }
}

static void xrayClose(void *pData){
  XrData *p = pData;
  if( p==0 ) return;
  xray_map_free(&p->map);
  free(p->aThread);
  free(p);
}

/* A packet's time range from its least and greatest cycle counts. */
static void packet_times(const XrData *p, TlPacket *pk, int bAny, uint64_t lo, uint64_t hi){
  int bOk;
  if( !bAny ) return;
  pk->tsBegin = tsc_ns(p, lo, &bOk);
  pk->tsEnd = tsc_ns(p, hi, &bOk);
}

static int xrayOpen(TlTrace *pTrace, TlErr *pErr){
  XrData *p;
  XrCur c;
  XrEv e;
  TlMap threads;
  TlPacket pk;
  TlWin win;
  TlBytes b;
  int rc = TL_OK;
  size_t iPkStart;
  uint64_t nRun = 0;
  uint32_t runTid = 0;
  int bRun = 0;
  uint64_t tscOk = 0;             /* the greatest cycle count that has a ts */
  uint64_t tscLo = UINT64_MAX, tscHi = 0;  /* the packet's, in cycles */
  int bPkTs = 0;
  uint32_t tidLast = 0, iTLast = 0;
  int bLastT = 0;

  if( pTrace->pSrc==0 ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "an XRay log is a file, not a directory");
  }
  p = calloc(1, sizeof(*p));
  if( p==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  tl_map_init(&threads);
  tl_win_init(&win, pTrace->pSrc);
  rc = tl_win_get(&win, 0, (size_t)pTrace->pSrc->nSize, TL_LE, &b, pErr);
  if( rc ) goto open_done;
  if( b.n>=4 && memcmp(b.a, "\177ELF", 4)==0 ){
    /* xray_functions('app'): the binary's map, no records */
    p->bMapOnly = 1;
    rc = xray_map_parse(b.a, b.n, pTrace->zPath, &p->map, pErr);
    goto open_done;
  }
  if( tl_opts_get(&pTrace->opts, "binary") ){
    rc = xray_map_load(tl_opts_get(&pTrace->opts, "binary"), &p->map, pErr);
    if( rc ) goto open_done;
  }
  if( b.n<XR_HDR ){
    rc = tl_err_set(pErr, TL_ECORRUPT, b.n, "expected a 32-byte XRay file header, the file has %zu bytes", b.n);
    goto open_done;
  }
  p->bo = xray_byte_order(b.a);
  if( p->bo<0 ) p->bo = TL_LE;       /* format=xray on a header we do not know: say why below */
  p->nVersion = tl_load_u16_unchecked(b.a, p->bo);
  p->nType = tl_load_u16_unchecked(b.a+2, p->bo);
  p->bConstTsc = (b.a[4] & 1)!=0;
  p->bNonstopTsc = (b.a[4] & 2)!=0;
  p->freq = tl_load_u64_unchecked(b.a+8, p->bo);
  if( p->freq>=2 ) p->freqInv = (uint64_t)(((unsigned __int128)1 << 64) / p->freq);
  p->nBufSize = tl_load_u64_unchecked(b.a+16, p->bo);
  if( p->nType>1 ){
    rc = tl_err_set(pErr, TL_EUNSUPPORTED, 2, "XRay log type %d is not supported (0 basic, 1 FDR)", p->nType);
    goto open_done;
  }
  if( p->nVersion<1 || p->nVersion>(p->nType ? 5 : 3) ){
    rc = tl_err_set(pErr, TL_EUNSUPPORTED, 0, "XRay %s log version %d is not supported (expected 1-%d)",
                    p->nType ? "FDR" : "basic", p->nVersion, p->nType ? 5 : 3);
    goto open_done;
  }
  if( b.n==XR_HDR ){
    tl_trace_warn(pTrace, 0, XR_HDR, "the log has a header and no records");
  }
  if( p->freq==0 ){
    tl_trace_warn(pTrace, 0, 8, "cycle frequency is 0: ts is NULL, ts_raw has the TSC");
  }

  if( p->freq ){
    /* ns grow with cycles: the last cycle count below INT64_MAX ns */
    uint64_t lo = 0, hi = UINT64_MAX;
    int bOk;
    while( lo<hi ){
      uint64_t mid = lo + (hi - lo)/2 + 1;
      tsc_ns(p, mid, &bOk);
      if( bOk ) lo = mid; else hi = mid - 1;
    }
    tscOk = lo;
  }
  memset(&c, 0, sizeof(c));
  c.pTrace = pTrace;
  c.p = p;
  c.b = tl_bytes(b.a, b.n, p->bo);
  c.b.i = XR_HDR;
  c.iEnd = b.n;
  c.pErr = pErr;
  memset(&pk, 0, sizeof(pk));
  pk.iStream = -1; pk.iCpu = -1; pk.nDiscarded = TL_UNKNOWN; pk.iSeq = -1;
  pk.tsBegin = TL_TS_MAX; pk.tsEnd = TL_TS_MIN;
  iPkStart = XR_HDR;
  for(;;){
    int bOk;
    uint32_t iT;
    int bNewPacket;
    size_t iBefore = c.b.i;
    size_t iBufBefore = c.iBufStart;
    int bBufBefore = c.bInBuf;
    rc = cur_next(&c, &e);
    if( rc==TL_DONE ){ rc = TL_OK; break; }
    if( rc<0 ){
      /* keep what came before; the scan of the last packet reports it */
      tl_trace_warn(pTrace, 0, pErr->iOff, "%s", pErr->zMsg);
      tl_err_clear(pErr);
      rc = TL_OK;
      pk.nEvents++;
      pk.flags |= XR_PKT_CUT;
      c.b.i = c.iEnd;
      break;
    }
    /* packet boundaries: FDR buffers; basic runs of one thread */
    if( p->nType==1 ){
      /* a record from a buffer that began during this call */
      bNewPacket = !bBufBefore || c.iBufStart!=iBufBefore;
      if( bNewPacket ) iBefore = c.iBufStart;
    }else{
      bNewPacket = bRun && (e.tid!=runTid || nRun>=XR_BASIC_RUN);
    }
    if( bNewPacket && pk.nEvents ){
      pk.iOff = iPkStart;
      pk.nSize = iBefore - iPkStart;
      pk.nContent = pk.nSize;
      packet_times(p, &pk, bPkTs, tscLo, tscHi);
      if( tl_index_add(&pTrace->index, &pk) ){ rc = tl_err_set(pErr, TL_ENOMEM, iBefore, "out of memory"); break; }
      pk.nEvents = 0; pk.tsBegin = TL_TS_MAX; pk.tsEnd = TL_TS_MIN; pk.mCpu = 0;
      bPkTs = 0; tscLo = UINT64_MAX; tscHi = 0;
      iPkStart = iBefore;
      nRun = 0;
    }else if( bNewPacket ){
      iPkStart = iBefore;
    }
    bRun = 1; runTid = e.tid; nRun++;
    pk.nEvents++;
    pk.iStream = e.tid;
    /* times in cycles until the packet and the threads are done: ns grow
    ** with cycles, so the least and greatest convert to the least and
    ** greatest ns (of the cycles that have a ts at all) */
    bOk = p->freq!=0 && e.tsc<=tscOk;
    if( bOk ){
      if( e.tsc<tscLo ) tscLo = e.tsc;
      if( e.tsc>tscHi ) tscHi = e.tsc;
      bPkTs = 1;
    }
    pk.mCpu |= e.cpu<63 ? ((uint64_t)1<<e.cpu) : ((uint64_t)1<<63);
    if( bLastT && e.tid==tidLast ){
      iT = iTLast;
    }else if( !tl_map_get(&threads, e.tid, &iT) ){
      if( p->nThread>=XR_MAX_THREADS ) continue;
      if( p->nThread==p->nAlloc ){
        size_t nNew = p->nAlloc ? p->nAlloc*2 : 16;
        XrThread *aNew = realloc(p->aThread, nNew*sizeof(XrThread));
        if( aNew==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, e.iOff, "out of memory"); break; }
        p->aThread = aNew;
        p->nAlloc = nNew;
      }
      iT = (uint32_t)p->nThread++;
      memset(&p->aThread[iT], 0, sizeof(XrThread));
      p->aThread[iT].tid = e.tid;
      if( tl_map_put(&threads, e.tid, iT) ){ rc = tl_err_set(pErr, TL_ENOMEM, e.iOff, "out of memory"); break; }
    }
    bLastT = 1; tidLast = e.tid; iTLast = iT;
    {
      XrThread *t = &p->aThread[iT];
      uint64_t n, last = 0;
      t->nEvents++;
      if( e.bPid ) t->pid = e.pid;
      if( bOk ){
        if( !t->bTs || e.tsc<t->tscFirst ) t->tscFirst = e.tsc;
        if( !t->bTs || e.tsc>t->tscLast ) t->tscLast = e.tsc;
        t->bTs = 1;
      }
      /* the plain function records after it in its buffer: the same
      ** packet, thread and CPU, counted at once; their TSCs are at or after
      ** its, so with a frequency it has a ts and theirs are the greatest */
      n = fdr_func_run(&c, p->freq ? tscOk : UINT64_MAX, &last);
      if( n ){
        pk.nEvents += n;
        t->nEvents += n;
        if( p->freq ){
          if( last>tscHi ) tscHi = last;
          if( last>t->tscLast ) t->tscLast = last;
        }
      }
    }
  }
  {
    size_t k;
    int bOk;
    for(k=0; k<p->nThread; k++){
      XrThread *t = &p->aThread[k];
      if( t->bTs ){
        t->tsFirst = tsc_ns(p, t->tscFirst, &bOk);
        t->tsLast = tsc_ns(p, t->tscLast, &bOk);
      }
    }
  }
  if( rc==TL_OK && pk.nEvents ){
    pk.iOff = iPkStart;
    pk.nSize = c.b.i - iPkStart;
    pk.nContent = pk.nSize;
    packet_times(p, &pk, bPkTs, tscLo, tscHi);
    if( tl_index_add(&pTrace->index, &pk) ) rc = tl_err_set(pErr, TL_ENOMEM, c.b.i, "out of memory");
  }
  pTrace->nEventsHint = tl_index_events(&pTrace->index);

open_done:
  tl_win_free(&win);
  tl_map_free(&threads);
  if( rc ){ xrayClose(p); return rc; }
  pTrace->pData = p;
  return TL_OK;
}

/* ---- scans --------------------------------------------------------------- */

typedef struct XrFrame XrFrame;   /* an open call */
struct XrFrame {
  int64_t id;                     /* rowid of its entry record */
  int32_t funcId;
  uint64_t tsc;
  uint32_t cpu;
};

typedef struct XrStack XrStack;   /* the open calls of one thread */
struct XrStack {
  uint32_t tid, pid;
  int bPid;
  XrFrame *a; size_t n, nAlloc;
};

/* xray_calls GROUP BY func_id: one function's durs (XR_DUR_NULL: none) */
#define XR_DUR_NULL INT64_MIN
#define XR_GROUP_MEM ((size_t)16 << 20)
#define XR_READ_DURS 65536
#define XR_GROUP_HOT 64           /* a power of 2 */
typedef struct XrBlock XrBlock;
struct XrBlock { uint64_t iOff; uint64_t n; };    /* durs in the temporary file */
typedef struct XrGroup XrGroup;
struct XrGroup {
  int32_t funcId;
  XrBlock *aBlock; size_t nBlock, nBlockAlloc;   /* written out, in order */
  int64_t *a; size_t n, nAlloc;                  /* the latest, in memory */
};

typedef struct XrCall XrCall;     /* a finished (or, at the end, open) call */
struct XrCall {
  XrFrame fr;
  uint32_t tid, pid; int bPid;
  int64_t parent; int bParent;
  size_t depth;
  int bDone; uint64_t tscEnd;
};

struct TlScan {
  TlTrace *pTrace;
  const XrData *p;
  int iTable;
  TlFilter f;
  TlErr err;
  TlWin win;
  TlBytes file;                   /* the whole file */
  size_t iPacket;                 /* next packet */
  int bInPacket;
  XrCur c;
  size_t iRow;
  TlStr args, text;
  /* count(*): a packet's count stands for its events (one row repeated);
  ** a rowid asked for is found by reading the packet (xrayScanRowid) */
  int bCount;                     /* counts may stand for rows */
  int bLazy;                      /* the current row is a counted packet's */
  size_t iCountPacket;            /* that packet */
  uint64_t nBlock;                /* its events */
  XrCur cw;                       /* reads it for rowids */
  size_t iWalkPacket;             /* the packet cw reads, or SIZE_MAX */
  uint64_t nWalked;               /* its events cw has passed */
  /* xray_calls */
  TlMap stacks;                   /* tid -> index in aStack */
  XrStack *aStack; size_t nStack, nStackAlloc;
  size_t iStackLast;              /* the stack of the last record's thread */
  XrCall *aOut; size_t nOut, iOut, nOutAlloc;  /* calls ready to return */
  int bDrained;                   /* the events are all read */
  size_t iDrainStack;             /* open calls returned at the end */
  /* xray_calls GROUP BY func_id (f.bGroupName, no column but func_id, name,
  ** dur): every call's dur is kept by function first (XR_GROUP_MEM bytes in
  ** memory, the rest in a temporary file), then the rows come function by
  ** function, numbered in the order given */
  int bGroupStarted;
  int bGroupDirect;               /* finished calls go to their group, not aOut */
  size_t nGroupMem;               /* bytes of durs kept in memory at most */
  XrGroup *aGroup; size_t nGroup, nGroupAlloc;
  TlMap groups;                   /* func_id -> index in aGroup */
  struct { int32_t funcId; uint32_t iG; } aGroupHot[XR_GROUP_HOT];  /* its
                                  ** recent lookups, by func_id's low bits
                                  ** (iG UINT32_MAX: none) */
  size_t nBuffered;               /* durs in the groups' memory */
  int fdTmp;                      /* the temporary file, or -1 */
  uint64_t nTmp;                  /* bytes written to it */
  size_t iGroupOrd;               /* the group being given (aGroup is by
                                  ** func_id then) */
  size_t iGroupNamed;             /* the group groupName names */
  TlVal groupName;                /* its name, or NULL */
  size_t iBlock;                  /* its next block */
  int bMem;                       /* its blocks are done: its memory's durs */
  int64_t *aRead; size_t nRead, iRead;  /* durs read, the next one */
  uint64_t iReadOff, nReadLeft;   /* the rest of the block being read */
  int64_t iGroupRow;
  int64_t iGroupBase;             /* the rowid of the current row (its first repeat) */
  int64_t nGroupBatch;            /* the rows it stands for */
  /* the groups are built on two threads when the log has threads for both:
  ** each reads the buffers of its threads (aSide[packet]==iSide), and the
  ** second's groups are its scan's (pHelper), given after this one's of the
  ** same function (aOrd: both scans' groups by func_id) */
  const uint8_t *aSide;           /* each packet's side, or NULL: all */
  uint8_t *aSideOwn;              /* aSide, when this scan made it */
  int iSide;
  TlScan *pHelper;                /* the second thread's scan, or NULL */
  int rcHelper;                   /* what its build returned */
  uint64_t nNoted;                /* bytes of the packets it read (progress) */
  struct XrOrd { TlScan *pOwner; size_t iG; } *aOrd;
  size_t nOrd;
};

static const TlErr *xrayScanErr(TlScan *s){ return &s->err; }

/* The fields of a new (zeroed) scan s that are not zero; no file yet. */
static void scan_init(TlScan *s, TlTrace *pTrace, int iTable, const TlFilter *pFilter){
  s->pTrace = pTrace;
  s->p = pTrace->pData;
  s->iTable = iTable;
  s->f = *pFilter;
  if( s->f.bPlain ) s->f.bGroupName = 0;  /* (the engine does not ask: sure) */
  tl_err_clear(&s->err);
  tl_str_init(&s->args);
  tl_str_init(&s->text);
  tl_map_init(&s->stacks);
  tl_map_init(&s->groups);
  s->fdTmp = -1;
  tl_win_init(&s->win, pTrace->pSrc);
  s->iWalkPacket = SIZE_MAX;
}

static int xrayScanOpen(TlTrace *pTrace, int iTable, const TlFilter *pFilter,
                        TlScan **ppScan, TlErr *pErr){
  TlScan *s;
  int rc;
  *ppScan = 0;
  if( iTable!=TL_TAB_EVENTS && iTable!=TL_TAB_TRACKS && iTable!=TL_TAB_XRAY_CALLS
   && iTable!=TL_TAB_XRAY_FUNCTIONS ) return TL_DONE;
  if( ((const XrData*)pTrace->pData)->bMapOnly && iTable!=TL_TAB_XRAY_FUNCTIONS ) return TL_DONE;
  s = calloc(1, sizeof(*s));
  if( s==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  scan_init(s, pTrace, iTable, pFilter);
  rc = tl_win_get(&s->win, 0, (size_t)pTrace->pSrc->nSize, TL_LE, &s->file, pErr);
  if( rc ){ tl_win_free(&s->win); free(s); return rc; }
  /* no column, nothing to check: the packets' counts are the rows (not
  ** for a plain scan, which reads every record) */
  s->bCount = iTable==TL_TAB_EVENTS && !pFilter->bPlain
           && (pFilter->mCols & (((uint64_t)1<<TL_EV_NCOL)-1))==0
           && pFilter->zType==0 && !pFilter->bRowid && !pFilter->bOrdered && !pFilter->bGroupCpu
           && pFilter->tsLo==TL_TS_MIN && pFilter->tsHi==TL_TS_MAX && pFilter->nCpu<0;
  *ppScan = s;
  return TL_OK;
}

static void xrayScanClose(TlScan *s){
  size_t k;
  if( s==0 ) return;
  for(k=0; k<s->nStack; k++) free(s->aStack[k].a);
  free(s->aStack);
  free(s->aOut);
  tl_map_free(&s->stacks);
  for(k=0; k<s->nGroup; k++){ free(s->aGroup[k].aBlock); free(s->aGroup[k].a); }
  free(s->aGroup);
  free(s->aRead);
  tl_map_free(&s->groups);
  xrayScanClose(s->pHelper);
  free(s->aSideOwn);
  free(s->aOrd);
  if( s->fdTmp>=0 ) close(s->fdTmp);
  tl_win_free(&s->win);
  tl_str_free(&s->args);
  tl_str_free(&s->text);
  free(s);
}

static int printable(const uint8_t *a, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    if( a[i]<0x20 || a[i]>=0x7F ) return 0;
  }
  return 1;
}

/* Start a cursor on packet pk of the scan's file. */
static void cur_packet(TlScan *s, XrCur *c, const TlPacket *pk){
  memset(c, 0, sizeof(*c));
  c->pTrace = s->pTrace;
  c->p = s->p;
  c->b = s->file;
  c->b.i = (size_t)pk->iOff;
  c->iEnd = (size_t)(pk->iOff + pk->nSize);
  if( c->iEnd > s->file.n ) c->iEnd = s->file.n;
  c->pErr = &s->err;
}

/* The next event of the packets that may match, into *e. */
static int next_raw(TlScan *s, XrEv *e, int bAll){
  const TlIndex *x = &s->pTrace->index;
  for(;;){
    int rc;
    if( !s->bInPacket ){
      const TlPacket *pk;
      while( s->iPacket < x->n
          && ((s->aSide && s->aSide[s->iPacket]!=s->iSide)
              || (!bAll
                  && (!tl_packet_may_match(&x->a[s->iPacket], s->f.tsLo, s->f.tsHi, s->f.aCpu, s->f.nCpu)
                      || (s->f.bRowid && (s->f.iRowid < (int64_t)x->a[s->iPacket].iOff
                                          || s->f.iRowid >= (int64_t)(x->a[s->iPacket].iOff
                                                                      + x->a[s->iPacket].nSize)))))) ){
        s->iPacket++;
      }
      if( s->iPacket >= x->n ) return TL_DONE;
      pk = &x->a[s->iPacket++];
      tl_packet_note_read(pk);
      s->nNoted += pk->nSize;
      cur_packet(s, &s->c, pk);
      s->bInPacket = 1;
    }
    rc = cur_next(&s->c, e);
    if( rc==TL_DONE ){ s->bInPacket = 0; continue; }
    return rc;
  }
}

static int next_event(TlScan *s, TlRow *pRow){
  XrEv e;
  TlVal *v = pRow->a;
  int bOk;
  int64_t ts;
  int rc;
  s->bLazy = 0;
  if( s->bCount && !s->bInPacket ){
    const TlIndex *x = &s->pTrace->index;
    while( s->iPacket < x->n && !(x->a[s->iPacket].flags & XR_PKT_CUT) ){
      const TlPacket *pk = &x->a[s->iPacket];
      s->iCountPacket = s->iPacket++;
      if( pk->nEvents==0 ) continue;
      s->bLazy = 1;
      s->nBlock = pk->nEvents;
      pRow->iRowid = TL_ROWID_LAZY;
      pRow->nRepeat = (int64_t)pk->nEvents;
      return TL_ROW;
    }
  }
  rc = next_raw(s, &e, 0);
  if( rc!=TL_ROW ) return rc;
  pRow->iRowid = (int64_t)e.iOff;
  ts = tsc_ns(s->p, e.tsc, &bOk);
  if( bOk ) tl_val_int(&v[TL_EV_TS], ts);
  if( e.tsc<=(uint64_t)INT64_MAX ) tl_val_int(&v[TL_EV_TS_RAW], (int64_t)e.tsc);
  else tl_val_real(&v[TL_EV_TS_RAW], (double)e.tsc);
  tl_val_int(&v[TL_EV_CPU], e.cpu);
  if( e.bPid ) tl_val_int(&v[TL_EV_PID], e.pid);
  tl_val_int(&v[TL_EV_TID], e.tid);
  tl_val_int(&v[TL_EV_TRACK], e.tid);
  tl_val_textz(&v[TL_EV_TYPE], e.zKind);
  if( e.bFunc ){
    const XrFunc *fn = xray_map_func(&s->p->map, e.funcId);
    tl_val_int(&v[TL_EV_VALUE], e.funcId);
    if( fn ){
      tl_val_textz(&v[TL_EV_NAME], fn->zName);
      tl_val_int(&v[TL_EV_IP], (int64_t)fn->addr);
    }
  }
  if( e.aData && tl_col_used(&s->f, TL_EV_TEXT) && printable(e.aData, e.nData) ){
    tl_val_text(&v[TL_EV_TEXT], (const char*)e.aData, e.nData);
  }
  if( tl_col_used(&s->f, TL_EV_ARGS) && (e.nArg || e.aData) ){
    int k;
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    if( e.nArg ){
      tl_json_key(&s->args, "args");
      tl_json_arr_begin(&s->args);
      for(k=0; k<e.nArg; k++) tl_json_uint(&s->args, e.aArg[k]);
      tl_json_arr_end(&s->args);
    }
    if( e.aData ){
      tl_json_key(&s->args, "data"); tl_json_hex(&s->args, e.aData, e.nData);
    }
    if( e.bTyped ){ tl_json_key(&s->args, "event_type"); tl_json_uint(&s->args, e.typedType); }
    tl_json_obj_end(&s->args);
    tl_val_str(&v[TL_EV_ARGS], &s->args);
  }
  return TL_ROW;
}

static int next_track(TlScan *s, TlRow *pRow){
  const XrThread *t;
  TlVal *v = pRow->a;
  if( s->iRow >= s->p->nThread ) return TL_DONE;
  t = &s->p->aThread[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&v[TL_TR_ID], t->tid);
  tl_val_text(&v[TL_TR_KIND], "thread", 6);
  if( t->pid ) tl_val_int(&v[TL_TR_PID], t->pid);
  tl_val_int(&v[TL_TR_TID], t->tid);
  if( t->bTs ){
    tl_val_int(&v[TL_TR_FIRST_TS], t->tsFirst);
    tl_val_int(&v[TL_TR_LAST_TS], t->tsLast);
  }
  tl_val_int(&v[TL_TR_EVENTS], (int64_t)t->nEvents);
  return TL_ROW;
}

#define XR_MAX_DEPTH 4096

static int out_add(TlScan *s, const XrStack *st, size_t iFrame, int bDone, uint64_t tscEnd){
  XrCall *c;
  if( s->nOut==s->nOutAlloc ){
    size_t nNew = s->nOutAlloc ? s->nOutAlloc*2 : 16;
    XrCall *aNew = realloc(s->aOut, nNew*sizeof(XrCall));
    if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    s->aOut = aNew;
    s->nOutAlloc = nNew;
  }
  c = &s->aOut[s->nOut++];
  c->fr = st->a[iFrame];
  c->tid = st->tid; c->pid = st->pid; c->bPid = st->bPid;
  c->depth = iFrame;
  c->parent = iFrame>0 ? st->a[iFrame-1].id : 0;
  c->bParent = iFrame>0;
  c->bDone = bDone;
  c->tscEnd = tscEnd;
  return TL_OK;
}

static int64_t tsc_dur(const TlScan *s, uint64_t a, uint64_t b);
static int group_add(TlScan *s, int32_t funcId, int64_t dur);

/*
** Match entries with exits per thread: an exit whose function is on top of
** the thread's stack ends that call; one whose function is deeper also
** ends the calls above it (their exits were not recorded), as llvm-xray
** account -deduce-sibling-calls does; an exit of a function not on the
** stack is ignored. Tail exits end their call like exits. This is one
** function record (kind 0-3, at file offset iOff) of stack st's thread.
*/
static int stack_apply(TlScan *s, XrStack *st, unsigned kind, int32_t funcId,
                       uint64_t tsc, uint32_t cpu, uint64_t iOff){
  if( kind==0 || kind==3 ){
    XrFrame *f;
    if( st->n>=XR_MAX_DEPTH ){
      tl_trace_warn(s->pTrace, 0, iOff, "call depth over %d on thread %u: deeper calls are not matched",
                    XR_MAX_DEPTH, st->tid);
      return TL_OK;
    }
    if( st->n==st->nAlloc ){
      size_t nNew = st->nAlloc ? st->nAlloc*2 : 16;
      XrFrame *aNew = realloc(st->a, nNew*sizeof(XrFrame));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, iOff, "out of memory");
      st->a = aNew;
      st->nAlloc = nNew;
    }
    f = &st->a[st->n++];
    f->id = (int64_t)iOff;
    f->funcId = funcId;
    f->tsc = tsc;
    f->cpu = cpu;
  }else{
    size_t k = st->n;
    while( k>0 && st->a[k-1].funcId!=funcId ) k--;
    if( k==0 ) return TL_OK;                  /* not on the stack */
    while( st->n>=k ){
      const XrFrame *f = &st->a[st->n-1];
      int rc = s->bGroupDirect ? group_add(s, f->funcId, tsc_dur(s, f->tsc, tsc))
                               : out_add(s, st, st->n-1, 1, tsc);
      if( rc ) return rc;
      st->n--;
      if( st->n==0 ) break;
    }
  }
  return TL_OK;
}

/* the most records calls_step() takes at once (bounds the calls it makes) */
#define XR_CALLS_RUN 4096

/*
** One record the long way, and then the plain function records that follow
** it in the same buffer (one thread's, with no metadata between) at once.
*/
static int calls_step(TlScan *s){
  XrEv e;
  XrStack *st;
  XrCur *c = &s->c;
  uint32_t iSt, w, d;
  int n;
  int rc = next_raw(s, &e, 1);
  if( rc!=TL_ROW ) return rc;
  if( !e.bFunc ) return TL_OK;
  if( s->nStack>0 && s->aStack[s->iStackLast].tid==e.tid ){
    iSt = (uint32_t)s->iStackLast;         /* most records repeat the thread */
  }else if( !tl_map_get(&s->stacks, e.tid, &iSt) ){
    if( s->nStack==s->nStackAlloc ){
      size_t nNew = s->nStackAlloc ? s->nStackAlloc*2 : 8;
      XrStack *aNew = realloc(s->aStack, nNew*sizeof(XrStack));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, e.iOff, "out of memory");
      s->aStack = aNew;
      s->nStackAlloc = nNew;
    }
    iSt = (uint32_t)s->nStack++;
    memset(&s->aStack[iSt], 0, sizeof(XrStack));
    s->aStack[iSt].tid = e.tid;
    if( tl_map_put(&s->stacks, e.tid, iSt) ) return tl_err_set(&s->err, TL_ENOMEM, e.iOff, "out of memory");
  }
  s->iStackLast = iSt;
  st = &s->aStack[iSt];
  if( e.bPid ){ st->pid = e.pid; st->bPid = 1; }
  rc = stack_apply(s, st, e.zKind==azKind[0] || e.zKind==azKind[3] ? 0 : 1,
                   e.funcId, e.tsc, e.cpu, e.iOff);
  if( rc || s->f.bPlain || !s->bInPacket || !c->bInBuf || s->p->nType!=1 ) return rc;
  /* the rest of the run: what fdr_next() would give, without its event
  ** (a plain scan takes every record the long way) */
  for(n=0; n<XR_CALLS_RUN && fdr_plain_at(c, c->b.i, &w, &d); n++){
    size_t iRec = c->b.i;
    c->b.i += XR_FUNC;
    c->tsc += d;
    rc = stack_apply(s, st, fdr_func_type(s->p, w), fdr_func_id(s->p, w), c->tsc, c->cpu, iRec);
    if( rc ) return rc;
  }
  return TL_OK;
}

/* The next call (finished, then the ones open at the end): TL_ROW with *pc. */
static int call_next(TlScan *s, const XrCall **pc){
  while( s->iOut>=s->nOut ){
    int rc;
    s->nOut = s->iOut = 0;
    if( !s->bDrained ){
      rc = calls_step(s);
      if( rc==TL_DONE ) s->bDrained = 1;
      else if( rc<0 ) return rc;
      continue;
    }
    /* the calls still open at the end: outermost first, dur NULL */
    while( s->iDrainStack<s->nStack && s->aStack[s->iDrainStack].n==0 ) s->iDrainStack++;
    if( s->iDrainStack>=s->nStack ) return TL_DONE;
    {
      XrStack *st = &s->aStack[s->iDrainStack];
      size_t k;
      for(k=0; k<st->n; k++){
        rc = out_add(s, st, k, 0, 0);
        if( rc ) return rc;
      }
      st->n = 0;
    }
  }
  *pc = &s->aOut[s->iOut++];
  return TL_ROW;
}

/* The dur in ns of a call from TSC a to b, or XR_DUR_NULL (no frequency,
** negative, too long). */
static int64_t tsc_dur(const TlScan *s, uint64_t a, uint64_t b){
  if( s->p->freq && b>=a ){
    int64_t d = cycles_ns(s->p, b - a);
    if( d>=0 ) return d;
  }
  return XR_DUR_NULL;
}

/* A call's dur in ns, or XR_DUR_NULL (still open, or as tsc_dur()). */
static int64_t call_dur(const TlScan *s, const XrCall *c){
  return c->bDone ? tsc_dur(s, c->fr.tsc, c->tscEnd) : XR_DUR_NULL;
}

static int next_call(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  const XrCall *c = 0;
  int bOk;
  int64_t ts;
  int rc = call_next(s, &c);
  if( rc!=TL_ROW ) return rc;
  pRow->iRowid = c->fr.id;
  tl_val_int(&v[TL_XC_ID], c->fr.id);
  tl_val_int(&v[TL_XC_TID], c->tid);
  if( c->bPid ) tl_val_int(&v[TL_XC_PID], c->pid);
  tl_val_int(&v[TL_XC_CPU], c->fr.cpu);
  tl_val_int(&v[TL_XC_FUNC_ID], c->fr.funcId);
  /* the name's lookup and the time's conversion only when used */
  if( tl_col_used(&s->f, TL_XC_NAME) ){
    const XrFunc *fn = xray_map_func(&s->p->map, c->fr.funcId);
    if( fn ) tl_val_textz(&v[TL_XC_NAME], fn->zName);
  }
  if( tl_col_used(&s->f, TL_XC_TS) ){
    ts = tsc_ns(s->p, c->fr.tsc, &bOk);
    if( bOk ) tl_val_int(&v[TL_XC_TS], ts);
  }
  if( tl_col_used(&s->f, TL_XC_DUR) ){
    int64_t d = call_dur(s, c);
    if( d!=XR_DUR_NULL ) tl_val_int(&v[TL_XC_DUR], d);
  }
  tl_val_int(&v[TL_XC_DEPTH], (int64_t)c->depth);
  if( c->bParent ) tl_val_int(&v[TL_XC_PARENT], c->parent);
  return TL_ROW;
}

/* Write every group's durs in memory to the temporary file, as a block each. */
static int group_spill(TlScan *s){
  size_t k;
  if( s->fdTmp<0 ){
    const char *zDir = getenv("TMPDIR");
    char zPath[4096];
    if( zDir==0 || zDir[0]==0 ) zDir = "/tmp";
    if( snprintf(zPath, sizeof(zPath), "%s/tracelite-XXXXXX", zDir) >= (int)sizeof(zPath) ){
      return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET, "TMPDIR is too long a path");
    }
    s->fdTmp = mkstemp(zPath);
    if( s->fdTmp<0 ){
      return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET,
          "GROUP BY func_id: cannot create a temporary file in %s: %s", zDir, strerror(errno));
    }
    unlink(zPath);
  }
  for(k=0; k<s->nGroup; k++){
    XrGroup *g = &s->aGroup[k];
    size_t nByte = g->n*sizeof(int64_t), nDone = 0;
    if( g->n==0 ) continue;
    if( g->nBlock==g->nBlockAlloc ){
      size_t nNew = g->nBlockAlloc ? g->nBlockAlloc*2 : 8;
      XrBlock *aNew = realloc(g->aBlock, nNew*sizeof(XrBlock));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      g->aBlock = aNew;
      g->nBlockAlloc = nNew;
    }
    while( nDone<nByte ){
      ssize_t w = pwrite(s->fdTmp, (const char*)g->a + nDone, nByte - nDone, (off_t)(s->nTmp + nDone));
      if( w<=0 ){
        return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET,
            "GROUP BY func_id: cannot write the temporary file: %s", w<0 ? strerror(errno) : "no space");
      }
      nDone += (size_t)w;
    }
    g->aBlock[g->nBlock].iOff = s->nTmp;
    g->aBlock[g->nBlock].n = g->n;
    g->nBlock++;
    s->nTmp += nByte;
    /* (freed: the next round's functions may be others) */
    free(g->a);
    g->a = 0;
    g->n = g->nAlloc = 0;
  }
  s->nBuffered = 0;
  return TL_OK;
}

static int group_cmp_func(const void *a, const void *b){
  int32_t x = ((const XrGroup*)a)->funcId, y = ((const XrGroup*)b)->funcId;
  return x<y ? -1 : x>y;
}

/* The index in aGroup of function funcId's group, which is made if new. */
static int group_of(TlScan *s, int32_t funcId, uint32_t *piG){
  uint32_t iG, h = (uint32_t)funcId & (XR_GROUP_HOT-1);
  if( s->aGroupHot[h].iG!=UINT32_MAX && s->aGroupHot[h].funcId==funcId ){
    *piG = s->aGroupHot[h].iG;
    return TL_OK;
  }
  if( !tl_map_get(&s->groups, (uint64_t)(uint32_t)funcId, &iG) ){
    if( s->nGroup==s->nGroupAlloc ){
      size_t nNew = s->nGroupAlloc ? s->nGroupAlloc*2 : 16;
      XrGroup *aNew = realloc(s->aGroup, nNew*sizeof(XrGroup));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      s->aGroup = aNew;
      s->nGroupAlloc = nNew;
    }
    iG = (uint32_t)s->nGroup++;
    memset(&s->aGroup[iG], 0, sizeof(XrGroup));
    s->aGroup[iG].funcId = funcId;
    if( tl_map_put(&s->groups, (uint64_t)(uint32_t)funcId, iG) ){
      return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  s->aGroupHot[h].funcId = funcId;
  s->aGroupHot[h].iG = iG;
  *piG = iG;
  return TL_OK;
}

/* Add a call's dur to function funcId's group. */
static int group_add(TlScan *s, int32_t funcId, int64_t dur){
  uint32_t iG = 0;
  XrGroup *g;
  int rc = group_of(s, funcId, &iG);
  if( rc ) return rc;
  g = &s->aGroup[iG];
  if( g->n==g->nAlloc ){
    size_t nNew = g->nAlloc ? g->nAlloc*2 : 64;
    int64_t *aNew;
    if( (s->nBuffered + nNew - g->nAlloc)*sizeof(int64_t) > s->nGroupMem ){
      /* memory is full: out to the file with all of it */
      rc = group_spill(s);
      if( rc ) return rc;
      nNew = 64;
    }
    aNew = realloc(g->a, nNew*sizeof(int64_t));
    if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    s->nBuffered += nNew - g->nAlloc;
    g->a = aNew;
    g->nAlloc = nNew;
  }
  g->a[g->n++] = dur;
  return TL_OK;
}

/*
** Read every call of the scan's buffers into its function's group (finished
** calls straight from the stacks, the ones still open at the end through
** call_next()).
*/
static int group_collect(TlScan *s){
  const XrCall *c = 0;
  size_t k;
  int rc;
  for(k=0; k<XR_GROUP_HOT; k++) s->aGroupHot[k].iG = UINT32_MAX;
  s->bGroupDirect = 1;
  while( (rc = call_next(s, &c))==TL_ROW ){
    rc = group_add(s, c->fr.funcId, call_dur(s, c));
    if( rc ) break;
  }
  s->bGroupDirect = 0;
  return rc==TL_DONE ? TL_OK : rc;
}

static void *group_helper_main(void *pArg){
  TlScan *h = pArg;
  h->rcHelper = group_collect(h);
  return 0;
}

/*
** A second scan, h, for half of the log's threads: each thread's buffers go
** to the side with fewer events so far, most events first. The calls of a
** thread depend on its own records only, so each side matches its threads
** as one scan would. TL_OK, or TL_DONE when there is nothing to share (one
** thread) or no memory for it (one scan reads all, as before).
*/
typedef struct XrLoad XrLoad;
struct XrLoad { uint64_t nEvents; uint32_t iThread; };

static int load_cmp_desc(const void *a, const void *b){
  const XrLoad *x = a, *y = b;
  if( x->nEvents!=y->nEvents ) return x->nEvents > y->nEvents ? -1 : 1;
  return x->iThread < y->iThread ? -1 : x->iThread > y->iThread;
}

static int group_split(TlScan *s){
  const XrData *p = s->p;
  const TlIndex *x = &s->pTrace->index;
  uint64_t aLoad[2] = {0, 0};
  XrLoad *aOrder;
  TlMap side;
  TlScan *h;
  size_t k;
  if( p->nThread<2 || x->n<2 ) return TL_DONE;
  aOrder = malloc(p->nThread*sizeof(XrLoad));
  s->aSideOwn = malloc(x->n);
  h = calloc(1, sizeof(*h));
  tl_map_init(&side);
  if( aOrder==0 || s->aSideOwn==0 || h==0 ) goto no_split;
  /* threads by events, most first */
  for(k=0; k<p->nThread; k++){
    aOrder[k].nEvents = p->aThread[k].nEvents;
    aOrder[k].iThread = (uint32_t)k;
  }
  qsort(aOrder, p->nThread, sizeof(XrLoad), load_cmp_desc);
  for(k=0; k<p->nThread; k++){
    const XrThread *t = &p->aThread[aOrder[k].iThread];
    int iSide = aLoad[1] < aLoad[0];
    aLoad[iSide] += t->nEvents;
    if( tl_map_put(&side, t->tid, (uint32_t)iSide) ) goto no_split;
  }
  for(k=0; k<x->n; k++){
    uint32_t v = 0;
    /* (a packet of a thread the log has too many of to list: this side) */
    if( x->a[k].iStream>=0 && !tl_map_get(&side, (uint64_t)x->a[k].iStream, &v) ) v = 0;
    s->aSideOwn[k] = (uint8_t)v;
  }
  tl_map_free(&side);
  free(aOrder);
  scan_init(h, s->pTrace, s->iTable, &s->f);
  h->file = s->file;              /* (read-only: shared) */
  s->nGroupMem /= 2;
  h->nGroupMem = s->nGroupMem;
  s->aSide = h->aSide = s->aSideOwn;
  s->iSide = 0;
  h->iSide = 1;
  s->pHelper = h;
  return TL_OK;

 no_split:
  tl_map_free(&side);
  free(aOrder);
  free(h);
  free(s->aSideOwn);
  s->aSideOwn = 0;
  return TL_DONE;
}

/* aOrd: the groups of s and of its helper by func_id, s's first of a pair. */
static int group_order(TlScan *s){
  const TlScan *h = s->pHelper;
  size_t i = 0, j = 0, nH = h ? h->nGroup : 0;
  s->aOrd = malloc((s->nGroup + nH + 1)*sizeof(*s->aOrd));
  if( s->aOrd==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  while( i<s->nGroup || j<nH ){
    if( j>=nH || (i<s->nGroup && s->aGroup[i].funcId<=h->aGroup[j].funcId) ){
      s->aOrd[s->nOrd].pOwner = s;
      s->aOrd[s->nOrd++].iG = i++;
    }else{
      s->aOrd[s->nOrd].pOwner = s->pHelper;
      s->aOrd[s->nOrd++].iG = j++;
    }
  }
  return TL_OK;
}

/*
** Read every call into its function's group, on two threads when the log's
** threads can be shared (group_split()); then the groups by func_id.
*/
static int group_build(TlScan *s){
  pthread_t th;
  int rc, bThread = 0;
  /* a sixteenth of max_memory= (16 MiB by default) in memory */
  s->nGroupMem = (size_t)(tl_trace_max_memory(s->pTrace)/16);
  if( s->nGroupMem > XR_GROUP_MEM ) s->nGroupMem = XR_GROUP_MEM;
  if( group_split(s)==TL_OK ){
    bThread = pthread_create(&th, 0, group_helper_main, s->pHelper)==0;
  }
  rc = group_collect(s);
  if( s->pHelper ){
    TlScan *h = s->pHelper;
    if( bThread ){
      pthread_join(th, 0);
      tl_progress_add(h->nNoted);
    }else{
      h->rcHelper = group_collect(h);       /* (no thread: here, after) */
    }
    if( rc>=0 && h->rcHelper<0 ){
      s->err = h->err;
      rc = h->rcHelper;
    }
    if( rc>=0 && h->nGroup>1 ) qsort(h->aGroup, h->nGroup, sizeof(XrGroup), group_cmp_func);
  }
  if( rc<0 ) return rc;
  s->aRead = malloc(XR_READ_DURS*sizeof(int64_t));
  if( s->aRead==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( s->nGroup>1 ) qsort(s->aGroup, s->nGroup, sizeof(XrGroup), group_cmp_func);
  return group_order(s);
}

/* The next dur of group g, whose spilled blocks are in file fd (its blocks,
** then its memory): TL_ROW, TL_DONE. */
static int group_next_dur(TlScan *s, const XrGroup *g, int fd, int64_t *pDur){
  for(;;){
    size_t n, nDone = 0;
    if( s->bMem ){
      if( s->iRead>=g->n ) return TL_DONE;
      *pDur = g->a[s->iRead++];
      return TL_ROW;
    }
    if( s->iRead<s->nRead ){
      *pDur = s->aRead[s->iRead++];
      return TL_ROW;
    }
    if( s->nReadLeft==0 ){
      if( s->iBlock>=g->nBlock ){
        s->bMem = 1;
        s->iRead = 0;
        continue;
      }
      s->iReadOff = g->aBlock[s->iBlock].iOff;
      s->nReadLeft = g->aBlock[s->iBlock].n;
      s->iBlock++;
    }
    n = s->nReadLeft > XR_READ_DURS ? XR_READ_DURS : (size_t)s->nReadLeft;
    while( nDone < n*sizeof(int64_t) ){
      ssize_t r = pread(fd, (char*)s->aRead + nDone, n*sizeof(int64_t) - nDone,
                        (off_t)(s->iReadOff + nDone));
      if( r<=0 ){
        return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET, "GROUP BY func_id: cannot read the temporary "
                          "file back: %s", r<0 ? strerror(errno) : "it is shorter than written");
      }
      nDone += (size_t)r;
    }
    s->iReadOff += n*sizeof(int64_t);
    s->nReadLeft -= n;
    s->nRead = n;
    s->iRead = 0;
  }
}

/* xray_calls GROUP BY func_id: the calls function by function. */
static int next_call_grouped(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  if( !s->bGroupStarted ){
    int rc;
    s->bGroupStarted = 1;
    rc = group_build(s);
    if( rc ) return rc;
    s->iGroupNamed = SIZE_MAX;
  }
  for(;;){
    const XrGroup *g;
    int64_t d = 0;
    int rc;
    if( s->iGroupOrd>=s->nOrd ) return TL_DONE;
    g = &s->aOrd[s->iGroupOrd].pOwner->aGroup[s->aOrd[s->iGroupOrd].iG];
    rc = group_next_dur(s, g, s->aOrd[s->iGroupOrd].pOwner->fdTmp, &d);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      s->iGroupOrd++;
      s->iBlock = 0;
      s->bMem = 0;
      s->nRead = s->iRead = 0;
      s->nReadLeft = 0;
      continue;
    }
    if( d!=XR_DUR_NULL ){
      /* the durs after it up to the next NULL, in the buffer it came from:
      ** one row repeated, dur varying (TlRow.aVary) */
      const int64_t *aBuf = s->bMem ? g->a : s->aRead;
      size_t nBuf = s->bMem ? g->n : s->nRead, i0 = s->iRead - 1;
      while( s->iRead<nBuf && aBuf[s->iRead]!=XR_DUR_NULL ) s->iRead++;
      s->nGroupBatch = (int64_t)(s->iRead - i0);
      if( s->nGroupBatch>1 ){
        pRow->nRepeat = s->nGroupBatch;
        pRow->aVary = aBuf + i0;
        pRow->iVary = TL_XC_DUR;
      }
    }else{
      s->nGroupBatch = 1;
    }
    s->iGroupBase = s->iGroupRow;
    s->iGroupRow += s->nGroupBatch;
    pRow->iRowid = s->nGroupBatch>1 ? TL_ROWID_LAZY : s->iGroupBase;
    tl_val_int(&v[TL_XC_FUNC_ID], g->funcId);
    if( tl_col_used(&s->f, TL_XC_NAME) ){
      if( s->iGroupNamed!=s->iGroupOrd ){
        /* (the name of many rows: given to SQLite without a copy each) */
        const XrFunc *fn = xray_map_func(&s->p->map, g->funcId);
        s->iGroupNamed = s->iGroupOrd;
        s->groupName.t = TL_NULL;
        if( fn && fn->zName ) tl_val_text_kept(&s->groupName, fn->zName, strlen(fn->zName));
      }
      v[TL_XC_NAME] = s->groupName;
    }
    if( d!=XR_DUR_NULL ) tl_val_int(&v[TL_XC_DUR], d);
    return TL_ROW;
  }
}

static int next_function(TlScan *s, TlRow *pRow){
  const XrFunc *f;
  TlVal *v = pRow->a;
  unsigned k;
  if( s->iRow >= (size_t)s->p->map.nFunc ) return TL_DONE;
  f = &s->p->map.aFunc[s->iRow];
  pRow->iRowid = f->id;
  s->iRow++;
  tl_val_int(&v[TL_XF_FUNC_ID], f->id);
  tl_val_int(&v[TL_XF_ADDRESS], (int64_t)f->addr);
  tl_val_textz(&v[TL_XF_NAME], f->zName);
  tl_str_reset(&s->text);
  tl_str_append(&s->text, "", 0);
  for(k=0; k<32; k++){
    if( f->mKinds & (1u<<k) ){
      if( s->text.n ) tl_str_appendc(&s->text, ',');
      if( xray_sled_kind(k) ) tl_str_appendz(&s->text, xray_sled_kind(k));
      else tl_str_appendf(&s->text, "%u", k);
    }
  }
  tl_val_str(&v[TL_XF_KINDS], &s->text);
  tl_val_int(&v[TL_XF_ALWAYS_INSTRUMENT], f->bAlways);
  tl_val_int(&v[TL_XF_SLEDS], f->nSleds);
  return TL_ROW;
}

static int xrayScanNext(TlScan *s, TlRow *pRow){
  if( s->err.rc ) return s->err.rc;
  switch( s->iTable ){
    case TL_TAB_EVENTS:     return next_event(s, pRow);
    case TL_TAB_XRAY_CALLS: return s->f.bGroupName ? next_call_grouped(s, pRow) : next_call(s, pRow);
    case TL_TAB_XRAY_FUNCTIONS: return next_function(s, pRow);
    default:                return next_track(s, pRow);
  }
}

/*
** The rowid of the iRepeat-th event of a counted packet: read the packet
** to it, onward from the event found last when it is not past this one.
*/
static int xrayScanRowid(TlScan *s, int64_t iRepeat, int64_t *piRowid){
  const TlPacket *pk;
  XrEv e;
  if( s->iTable==TL_TAB_XRAY_CALLS && s->f.bGroupName ){
    /* grouped calls: their rows are numbered in the order given */
    if( iRepeat<0 || iRepeat>=s->nGroupBatch ){
      return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "no grouped row %lld", (long long)iRepeat);
    }
    *piRowid = s->iGroupBase + iRepeat;
    return TL_OK;
  }
  if( s->err.rc ) return s->err.rc;
  if( !s->bLazy || iRepeat<0 || (uint64_t)iRepeat>=s->nBlock ){
    return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "no counted row %lld", (long long)iRepeat);
  }
  pk = &s->pTrace->index.a[s->iCountPacket];
  if( s->iWalkPacket!=s->iCountPacket || s->nWalked > (uint64_t)iRepeat ){
    cur_packet(s, &s->cw, pk);
    tl_packet_note_read(pk);
    s->iWalkPacket = s->iCountPacket;
    s->nWalked = 0;
  }
  memset(&e, 0, sizeof(e));
  while( s->nWalked <= (uint64_t)iRepeat ){
    int rc = cur_next(&s->cw, &e);
    if( rc!=TL_ROW ){
      s->iWalkPacket = SIZE_MAX;
      if( rc<0 ) return rc;
      /* the file no longer holds what its index says */
      return tl_err_set(&s->err, TL_ECORRUPT, pk->iOff + pk->nSize,
                        "expected %llu more records in this part of the file",
                        (unsigned long long)(s->nBlock - s->nWalked));
    }
    s->nWalked++;
  }
  *piRowid = (int64_t)e.iOff;
  return TL_OK;
}

static const char *const xrayOptions[] = { "binary", 0 };

const TlReaderDef tl_xray_reader = {
  .zName      = "xray",
  .azOptions  = xrayOptions,
  .mOrdered   = 0,
  .mGroupName = 1u<<TL_TAB_XRAY_CALLS,    /* (by func_id) */
  .xProbe     = xrayProbe,
  .xOpen      = xrayOpen,
  .xClose     = xrayClose,
  .xScanOpen  = xrayScanOpen,
  .xScanNext  = xrayScanNext,
  .xScanClose = xrayScanClose,
  .xScanErr   = xrayScanErr,
  .xScanRowid = xrayScanRowid,
};
