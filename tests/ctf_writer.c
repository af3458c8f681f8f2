/*
** ctf_writer.c: see ctf_writer.h.
*/
#include "ctf_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tltest.h"

void ctfw_init(CtfW *w, int bBig){
  memset(w, 0, sizeof(*w));
  w->bBig = bBig;
}

void ctfw_free(CtfW *w){
  free(w->a);
  memset(w, 0, sizeof(*w));
}

static void ctfw_grow(CtfW *w, uint64_t nBit){
  size_t n = (size_t)((nBit + 7) / 8);
  if( n > w->nAlloc ){
    size_t m = w->nAlloc ? w->nAlloc : 256;
    while( m < n ) m *= 2;
    w->a = realloc(w->a, m);
    assert_non_null(w->a);
    memset(w->a + w->nAlloc, 0, m - w->nAlloc);
    w->nAlloc = m;
  }
}

static void ctfw_put(CtfW *w, uint64_t iAt, unsigned nBits, uint64_t v){
  unsigned k;
  ctfw_grow(w, iAt + nBits);
  for(k=0; k<nBits; k++){
    uint64_t i = iAt + k;
    int bit;
    uint8_t *p = &w->a[i/8];
    if( w->bBig ){
      bit = (int)((v >> (nBits-1-k)) & 1);
      if( bit ) *p |= (uint8_t)(0x80 >> (i%8)); else *p &= (uint8_t)~(0x80 >> (i%8));
    }else{
      bit = (int)((v >> k) & 1);
      if( bit ) *p |= (uint8_t)(1u << (i%8)); else *p &= (uint8_t)~(1u << (i%8));
    }
  }
}

void ctfw_align(CtfW *w, unsigned nAlign){
  if( nAlign>1 ) w->iBit = (w->iBit + nAlign - 1) / nAlign * nAlign;
  ctfw_grow(w, w->iBit);
}

void ctfw_uint(CtfW *w, unsigned nAlign, unsigned nBits, uint64_t v){
  ctfw_align(w, nAlign);
  ctfw_put(w, w->iBit, nBits, v);
  w->iBit += nBits;
}

void ctfw_string(CtfW *w, const char *z){
  size_t i, n = strlen(z) + 1;
  ctfw_align(w, 8);
  for(i=0; i<n; i++) ctfw_uint(w, 8, 8, (uint8_t)z[i]);
}

void ctfw_patch(CtfW *w, uint64_t iBitAt, unsigned nBits, uint64_t v){
  ctfw_put(w, iBitAt, nBits, v);
}

size_t ctfw_bytes(const CtfW *w){
  return (size_t)((w->iBit + 7) / 8);
}

int ctfw_save_text(const char *zDir, const char *zName, const char *zText){
  char zPath[512];
  mkdir(zDir, 0755);
  snprintf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
  return tl_test_write_file(zPath, zText, strlen(zText));
}

int ctfw_save(const CtfW *w, const char *zDir, const char *zName, size_t nBytes){
  char zPath[512];
  mkdir(zDir, 0755);
  snprintf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
  return tl_test_write_file(zPath, w->a ? (const void*)w->a : (const void*)"", nBytes);
}
