/*
** cpel_writer.c: the tests' CPEL writer (see cpel_writer.h).
*/
#include "cpel_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tltest.h"

static void put(CpelW *w, const void *a, size_t n){
  if( w->n + n > w->nAlloc ){
    size_t nNew = w->nAlloc ? w->nAlloc*2 : 1024;
    while( nNew < w->n + n ) nNew *= 2;
    w->a = realloc(w->a, nNew);
    assert_non_null(w->a);
    w->nAlloc = nNew;
  }
  memcpy(w->a + w->n, a, n);
  w->n += n;
}

void cw_u8(CpelW *w, uint8_t v){ put(w, &v, 1); }

void cw_u16(CpelW *w, uint16_t v){
  uint8_t b[2];
  if( w->bLittle ){ b[0] = (uint8_t)v; b[1] = (uint8_t)(v>>8); }
  else{ b[0] = (uint8_t)(v>>8); b[1] = (uint8_t)v; }
  put(w, b, 2);
}

void cw_u32(CpelW *w, uint32_t v){
  uint8_t b[4];
  int i;
  for(i=0; i<4; i++){
    int sh = w->bLittle ? 8*i : 8*(3-i);
    b[i] = (uint8_t)(v>>sh);
  }
  put(w, b, 4);
}

void cw_bytes(CpelW *w, const void *a, size_t n){ put(w, a, n); }

void cw_name(CpelW *w, const char *zName){
  uint8_t a[64];
  memset(a, 0, sizeof(a));
  memcpy(a, zName, strlen(zName) < 64 ? strlen(zName) : 64);
  put(w, a, 64);
}

void cw_init(CpelW *w, int bLittle, uint16_t nSections){
  memset(w, 0, sizeof(*w));
  w->bLittle = bLittle;
  cw_u8(w, (uint8_t)(1 | (bLittle ? 0x80 : 0)));
  cw_u8(w, 0);
  cw_u16(w, nSections);
  cw_u32(w, 1454622194);          /* Thu Feb  4 21:43:14 2016 */
}

void cw_free(CpelW *w){
  free(w->a);
  memset(w, 0, sizeof(*w));
}

void cw_sec_begin(CpelW *w, uint32_t type){
  cw_u32(w, type);
  w->iLen = w->n;
  cw_u32(w, 0);
}

void cw_sec_end(CpelW *w){
  uint32_t len = (uint32_t)(w->n - w->iLen - 4);
  size_t nSave = w->n;
  w->n = w->iLen;
  cw_u32(w, len);
  w->n = nSave;
}

void cw_strtab(CpelW *w, const char *const *az, int n, uint32_t *aOff){
  int i;
  uint32_t off = 0;
  cw_sec_begin(w, 1);
  for(i=0; i<n; i++){
    if( aOff ) aOff[i] = off;
    put(w, az[i], strlen(az[i])+1);
    off += (uint32_t)strlen(az[i]) + 1;
  }
  while( off%4 ){ cw_u8(w, 0); off++; }
  cw_sec_end(w);
}

void cw_event(CpelW *w, uint64_t ticks, uint32_t track, uint32_t code, uint32_t datum){
  cw_u32(w, (uint32_t)(ticks>>32));
  cw_u32(w, (uint32_t)ticks);
  cw_u32(w, track);
  cw_u32(w, code);
  cw_u32(w, datum);
}

const char *cw_save(CpelW *w, const char *zName){
  static char zPath[8][512];
  static int i = 0;
  char *z = zPath[i++ % 8];
  snprintf(z, 512, "%s/%s", tl_test_tmpdir(), zName);
  assert_int_equal(tl_test_write_file(z, w->a, w->n), 0);
  return z;
}
