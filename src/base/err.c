/*
** err.c: the error record (see err.h).
*/
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tl_err_clear(TlErr *p){
  p->rc = TL_OK;
  p->iOff = TL_NO_OFFSET;
  p->zFile[0] = 0;
  p->zMsg[0] = 0;
}

int tl_err_set(TlErr *p, int rc, uint64_t iOff, const char *zFmt, ...){
  va_list ap;
  int n;
  if( p==0 ) return rc;
  if( p->rc!=TL_OK ) return p->rc;
  p->rc = rc;
  p->iOff = iOff;
  va_start(ap, zFmt);
  n = vsnprintf(p->zMsg, sizeof(p->zMsg), zFmt, ap);
  va_end(ap);
  if( n>=(int)sizeof(p->zMsg) ){     /* cut: say so */
    memcpy(p->zMsg + sizeof(p->zMsg) - 4, "...", 4);
  }
  return rc;
}

void tl_err_file(TlErr *p, const char *zFile){
  if( p && zFile && p->zFile[0]==0 ){
    snprintf(p->zFile, sizeof(p->zFile), "%s", zFile);
  }
}

int tl_err_format(const TlErr *p, const char *zPath, char *z, int nz){
  const char *zSep = p->zFile[0] ? "/" : "";
  int n;
  if( nz<=0 ){ z = 0; nz = 0; }
  if( zPath==0 ) zPath = "";
  if( p->iOff!=TL_NO_OFFSET ){
    n = snprintf(z, (size_t)nz, "%s%s%s: offset %llu: %s", zPath, zSep, p->zFile,
                 (unsigned long long)p->iOff, p->zMsg);
  }else{
    n = snprintf(z, (size_t)nz, "%s%s%s: %s", zPath, zSep, p->zFile, p->zMsg);
  }
  return n<0 ? 0 : n;
}
