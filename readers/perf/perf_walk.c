/*
** perf_walk.c: the perf.data record walker (see perf_int.h).
**
** Walks the records of [iStart, iEnd) of the file. A COMPRESSED or
** COMPRESSED2 record is not returned: its zstd frames are decompressed and
** the records inside are returned instead, with a record cut at the end of
** one container's output continued by the next container. Payloads that
** header.size does not count (HEADER_TRACING_DATA, AUXTRACE) are skipped.
**
** A region that ends inside a record (a file cut short) ends the walk with
** a warning; a record whose size is smaller than its header is corruption.
*/
#include "perf_int.h"

#include <stdlib.h>
#include <string.h>


/* Read the file of the directory part that holds iStart (none: the trace's). */
static void walk_file(PerfWalk *w, const TlTrace *pTrace, uint64_t iStart, int bInit){
  int k = perf_part_of(w->p, iStart);
  if( !bInit ){
    if( k==w->iPart ) return;
    tl_win_free(&w->win);
  }
  w->iPart = k;
  w->iBase = k<0 ? 0 : w->p->aPart[k].iBase;
  tl_win_init(&w->win, k<0 ? pTrace->pSrc : w->p->aPart[k].pSrc);
  w->aWin = 0;
  w->iWin = w->nWin = 0;
}

/* The directory's file the walk reads, for a warning (with its offset in it). */
static const char *walk_zfile(const PerfWalk *w){
  return perf_part_name(w->pTrace, w->iPart);
}

void perf_walk_init(PerfWalk *w, TlTrace *pTrace, const PerfData *p, uint64_t iStart,
                    uint64_t iEnd, TlErr *pErr){
  memset(w, 0, sizeof(*w));
  w->p = p;
  w->bo = p->bo;
  walk_file(w, pTrace, iStart, 1);
  w->pTrace = pTrace;
  w->iOff = iStart;
  w->iEnd = iEnd;
  w->pErr = pErr;
  w->nMaxOut = tl_trace_max_memory(pTrace);
}

void perf_walk_seek(PerfWalk *w, uint64_t iStart, uint64_t iEnd){
  if( w->pTrace==0 ) return;
  walk_file(w, w->pTrace, iStart, 0);
  if( w->pZ ) ZSTD_DCtx_reset(w->pZ, ZSTD_reset_session_only);
  w->nOut = w->iOut = 0;
  w->bMidFrame = 0;
  w->iCont = 0;
  w->iInner = 0;
  w->iOff = iStart;
  w->iEnd = iEnd;
}

void perf_walk_stop(PerfWalk *w, int bStop){
  tl_win_stop(&w->win, bStop ? w->iEnd - w->iBase : 0);
}

void perf_walk_ahead(PerfWalk *w){
  (void)tl_win_walk(&w->win, w->iOff - w->iBase, w->iEnd - w->iBase, PERF_WALK_WIN);
}

void perf_walk_free(PerfWalk *w){
  tl_win_free(&w->win);
  if( w->pZ ) ZSTD_freeDStream(w->pZ);
  free(w->aOut);
  memset(w, 0, sizeof(*w));
}

/* Decompress one container's zstd data, appending to aOut. */
static int walk_inflate(PerfWalk *w, const uint8_t *a, size_t n, uint64_t iOff){
  ZSTD_inBuffer in;
  if( w->pZ==0 ){
    w->pZ = ZSTD_createDStream();
    if( w->pZ==0 ) return tl_err_set(w->pErr, TL_ENOMEM, iOff, "out of memory");
    ZSTD_initDStream(w->pZ);
  }
  /* Keep only the unread tail. */
  if( w->iOut>0 ){
    memmove(w->aOut, w->aOut + w->iOut, w->nOut - w->iOut);
    w->nOut -= w->iOut;
    w->iOut = 0;
  }
  in.src = a;
  in.size = n;
  in.pos = 0;
  for(;;){
    ZSTD_outBuffer out;
    size_t r;
    if( w->nAlloc - w->nOut < 65536 ){
      size_t nNew = w->nAlloc ? w->nAlloc*2 : 262144;
      uint8_t *aNew;
      if( nNew>w->nMaxOut ){
        return tl_err_set(w->pErr, TL_ELIMIT, iOff,
            "compressed record expands beyond %llu MiB (max_memory=)", (unsigned long long)(w->nMaxOut>>20));
      }
      aNew = realloc(w->aOut, nNew);
      if( aNew==0 ) return tl_err_set(w->pErr, TL_ENOMEM, iOff, "out of memory");
      w->aOut = aNew;
      w->nAlloc = nNew;
    }
    out.dst = w->aOut + w->nOut;
    out.size = w->nAlloc - w->nOut;
    out.pos = 0;
    r = ZSTD_decompressStream(w->pZ, &out, &in);
    if( ZSTD_isError(r) ){
      return tl_err_set(w->pErr, TL_ECORRUPT, iOff,
          "zstd data of a compressed record does not decode: %s", ZSTD_getErrorName(r));
    }
    w->nOut += out.pos;
    w->bMidFrame = r!=0;
    /* Done when the input is used up and the output had room to spare
    ** (a full output buffer may leave decoded bytes inside zstd). */
    if( in.pos==in.size && (out.pos<out.size || out.pos==0) ) break;
  }
  return TL_OK;
}

/* Bytes that follow a record without being counted in its header.size. */
static int walk_extra(PerfWalk *w, uint32_t type, const TlBytes *pBody,
                      uint64_t *pnExtra){
  TlBytes b = *pBody;
  *pnExtra = 0;
  if( type==PERF_HEADER_TRACING_DATA ){
    uint32_t n;
    if( tl_bytes_u32e(&b, &n)==0 ) *pnExtra = ((uint64_t)n + 7) & ~(uint64_t)7;
  }else if( type==PERF_AUXTRACE ){
    uint64_t n;
    if( tl_bytes_u64e(&b, &n)==0 ) *pnExtra = n;
  }
  (void)w;
  return TL_OK;
}

/*
** The bytes from w->iOff on, at least n of them unless the file ends: from
** the window the walk holds, else a new window of PERF_WALK_WIN bytes (the
** whole region when the file is mapped), so that a record costs no call.
*/
static int walk_window(PerfWalk *w, size_t n, TlBytes *pOut){
  if( w->iOff < w->iWin || w->iOff - w->iWin > w->nWin || w->nWin - (w->iOff - w->iWin) < n ){
    uint64_t nWant = w->iEnd - w->iOff;
    TlBytes b;
    int rc;
    if( w->win.pSrc->aMap==0 && nWant > PERF_WALK_WIN ) nWant = PERF_WALK_WIN;
    if( nWant < n ) nWant = n;
    rc = tl_win_get(&w->win, w->iOff - w->iBase, (size_t)nWant, w->bo, &b, w->pErr);
    if( rc ) return rc;
    w->aWin = b.a;
    w->iWin = w->iOff;
    w->nWin = b.n;
  }
  *pOut = tl_bytes(w->aWin + (w->iOff - w->iWin), (size_t)(w->nWin - (w->iOff - w->iWin)), w->bo);
  return TL_OK;
}

int perf_walk_next(PerfWalk *w, PerfRec *r){
  for(;;){
    TlBytes b;
    uint32_t type;
    uint16_t misc, size;
    uint64_t nExtra;
    int rc;

    /* Records waiting in decompressed output come first. */
    if( w->nOut - w->iOut >= 8 ){
      const uint8_t *a = w->aOut + w->iOut;
      type = tl_load_u32_unchecked(a, w->bo);
      misc = tl_load_u16_unchecked(a+4, w->bo);
      size = tl_load_u16_unchecked(a+6, w->bo);
      if( size<8 ){
        return tl_err_set(w->pErr, TL_ECORRUPT, w->iCont,
            "record %u inside the compressed record has size %u, less than its 8-byte header",
            w->iInner, size);
      }
      if( size <= w->nOut - w->iOut ){
        r->type = type;
        r->misc = misc;
        r->size = size;
        r->body = tl_bytes(a + 8, (size_t)size - 8, w->bo);
        r->iOff = w->iCont;
        r->iRowid = PERF_INNER_ROWID(w->iCont, w->iInner);
        w->iInner++;
        w->iOut += size;
        return TL_ROW;
      }
    }

    if( w->iOff >= w->iEnd ){
      if( w->nOut > w->iOut ){
        tl_trace_warn(w->pTrace, walk_zfile(w), w->iCont - w->iBase,
            "compressed data ends inside a record (%zu bytes left over)", w->nOut - w->iOut);
        w->iOut = w->nOut;
      }
      return TL_DONE;
    }
    if( w->iEnd - w->iOff < 8 ){
      tl_trace_warn(w->pTrace, walk_zfile(w), w->iOff - w->iBase,
          "the data ends inside a record header (%llu bytes left)",
          (unsigned long long)(w->iEnd - w->iOff));
      w->iOff = w->iEnd;
      continue;
    }
    rc = walk_window(w, 8, &b);
    if( rc ) return rc;
    if( b.n<8 ){
      tl_trace_warn(w->pTrace, walk_zfile(w), w->iOff - w->iBase, "the file ends inside a record header");
      w->iOff = w->iEnd;
      continue;
    }
    type = tl_load_u32_unchecked(b.a, w->bo);
    misc = tl_load_u16_unchecked(b.a+4, w->bo);
    size = tl_load_u16_unchecked(b.a+6, w->bo);
    if( size<8 ){
      return tl_err_set(w->pErr, TL_ECORRUPT, w->iOff,
          "record of type %u has size %u, less than its 8-byte header", type, size);
    }
    if( size > w->iEnd - w->iOff ){
      tl_trace_warn(w->pTrace, walk_zfile(w), w->iOff - w->iBase,
          "record of type %u and %u bytes is cut short by the end of the data (%llu bytes left)",
          type, size, (unsigned long long)(w->iEnd - w->iOff));
      w->iOff = w->iEnd;
      continue;
    }
    if( b.n<size ){
      rc = walk_window(w, size, &b);
      if( rc ) return rc;
    }
    if( b.n<size ){
      tl_trace_warn(w->pTrace, walk_zfile(w), w->iOff - w->iBase, "the file ends inside a record");
      w->iOff = w->iEnd;
      continue;
    }
    b = tl_bytes(b.a + 8, (size_t)size - 8, w->bo);
    walk_extra(w, type, &b, &nExtra);
    if( nExtra > w->iEnd - w->iOff - size ){
      tl_trace_warn(w->pTrace, walk_zfile(w), w->iOff - w->iBase,
          "record of type %u announces %llu payload bytes but the data has %llu left",
          type, (unsigned long long)nExtra,
          (unsigned long long)(w->iEnd - w->iOff - size));
      nExtra = w->iEnd - w->iOff - size;
    }

    if( type==PERF_COMPRESSED || type==PERF_COMPRESSED2 ){
      const uint8_t *aData = b.a;
      size_t nData = b.n;
      if( type==PERF_COMPRESSED2 ){
        uint64_t nDecl;
        if( tl_bytes_u64e(&b, &nDecl) || nDecl > tl_bytes_left(&b) ){
          return tl_err_set(w->pErr, TL_ECORRUPT, w->iOff,
              "COMPRESSED2 record of %u bytes declares more data than it holds", size);
        }
        aData = b.a + b.i;
        nData = (size_t)nDecl;
      }
      rc = walk_inflate(w, aData, nData, w->iOff);
      if( rc ) return rc;
      w->iCont = w->iOff;
      w->iInner = 0;
      w->iOff += size;
      continue;
    }

    if( w->nOut > w->iOut ){
      tl_trace_warn(w->pTrace, walk_zfile(w), w->iOff - w->iBase,
          "a record left incomplete by compressed data was dropped (%zu bytes)",
          w->nOut - w->iOut);
      w->iOut = w->nOut;
    }
    r->type = type;
    r->misc = misc;
    r->size = size;
    r->body = b;
    r->iOff = w->iOff;
    r->iRowid = (int64_t)w->iOff;
    w->iOff += size + nExtra;
    if( w->iOff - w->iWin + 4096 <= w->nWin ){
      /* the records a few ahead: their headers decide where the walk goes */
      __builtin_prefetch(w->aWin + (w->iOff - w->iWin) + 4096);
    }
    return TL_ROW;
  }
}
