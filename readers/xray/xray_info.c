/*
** xray_info.c: what an XRay log says about itself (the trace_info table):
** its 32-byte file header (compiler-rt's XRayFileHeader), as
** `llvm-xray convert -output-format=yaml` prints it under `header:`:
** format_version (version), mode ("basic" for type 0, "fdr" for type 1),
** clock ("tsc"), clock_freq (cycle frequency, Hz), constant_tsc and
** nonstop_tsc.
*/
#include "xray/xray_int.h"

int xray_info(TlTrace *pTrace, TlInfoFn xRow, void *pCtx, TlErr *pErr){
  const XrData *p = pTrace->pData;
  const char *zMode = p->nType==0 ? "basic" : p->nType==1 ? "fdr" : 0;
  int rc;
  (void)pErr;
  if( p->bMapOnly ) return TL_OK;           /* the binary, not a log */
  rc = tl_info_text(xRow, pCtx, 0, "tracer", "xray", "XRayFileHeader");
  if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, 0, "format_version", p->nVersion, "header.version");
  if( rc==TL_OK && zMode ) rc = tl_info_text(xRow, pCtx, 0, "mode", zMode, "header.type");
  if( rc==TL_OK ) rc = tl_info_text(xRow, pCtx, 0, "clock", "tsc", "header");
  if( rc==TL_OK && p->freq<=INT64_MAX ){
    rc = tl_info_int(xRow, pCtx, 0, "clock_freq", (int64_t)p->freq, "header.cycle_frequency");
  }
  if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, 0, "constant_tsc", p->bConstTsc, "header.constant_tsc");
  if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, 0, "nonstop_tsc", p->bNonstopTsc, "header.nonstop_tsc");
  return rc;
}

/*
** clock=: an FDR log marks each buffer with CLOCK_MONOTONIC (compiler-rt's
** WallTimeMarker, despite its name) next to a TSC, so monotonic is the ts
** plus the least marker-minus-ts of the buffers (open walk, xray_rec.h).
** Nothing in a log relates it to CLOCK_REALTIME, and a basic-mode log has
** no marker: a warning, and ts stays TSC-derived.
*/
void xray_clock_apply(TlTrace *pTrace, const XrData *p){
  int eClock;
  const char *zWhy = 0;
  if( tl_opts_clock(&pTrace->opts, &eClock) || eClock==TL_CLOCK_TRACE ) return;
  pTrace->bClockDone = 1;
  if( p->nType==0 ){
    zWhy = "a basic-mode log has no WallTimeMarker";
  }else if( p->freq==0 ){
    zWhy = "the cycle frequency is 0";
  }else if( eClock==TL_CLOCK_REALTIME ){
    zWhy = "an FDR log's WallTimeMarker records hold CLOCK_MONOTONIC, nothing relates it to CLOCK_REALTIME";
  }else if( !p->bMonoOff ){
    zWhy = "no buffer has a WallTimeMarker followed by a NewCPUId";
  }
  if( zWhy ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "clock=%s: %s: ts stays TSC-derived",
                  tl_opts_get(&pTrace->opts, "clock"), zWhy);
    return;
  }
  pTrace->tsShift = p->monoOff;
}
