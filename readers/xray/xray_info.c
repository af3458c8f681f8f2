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
