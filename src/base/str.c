/*
** str.c: growable string and JSON builder (see str.h).
*/
#include "str.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tl_strndup(const char *z, size_t n){
  char *zOut = malloc(n+1);
  if( zOut ){
    if( n ) memcpy(zOut, z, n);
    zOut[n] = 0;
  }
  return zOut;
}

void tl_str_init(TlStr *p){
  memset(p, 0, sizeof(*p));
}

void tl_str_reset(TlStr *p){
  p->n = 0;
  p->bErr = 0;
  p->nDepth = 0;
  memset(p->aFirst, 0, sizeof(p->aFirst));
  if( p->z ) p->z[0] = 0;
}

void tl_str_free(TlStr *p){
  free(p->z);
  tl_str_init(p);
}

/* Make room for n more bytes plus a NUL. Returns 0 or -1 (bErr set). */
static int str_grow(TlStr *p, size_t n){
  size_t nNew;
  char *zNew;
  if( p->bErr ) return -1;
  if( n > TL_STR_MAX || p->n > TL_STR_MAX - n ){ p->bErr = 1; return -1; }
  if( p->n + n + 1 <= p->nAlloc ) return 0;
  nNew = p->nAlloc ? p->nAlloc : 64;
  while( nNew < p->n + n + 1 ) nNew *= 2;
  zNew = realloc(p->z, nNew);
  if( zNew==0 ){ p->bErr = 1; return -1; }
  p->z = zNew;
  p->nAlloc = nNew;
  return 0;
}

void tl_str_append(TlStr *p, const char *z, size_t n){
  if( str_grow(p, n) ) return;
  if( n ) memcpy(p->z + p->n, z, n);
  p->n += n;
  p->z[p->n] = 0;
}

void tl_str_appendz(TlStr *p, const char *z){
  tl_str_append(p, z, strlen(z));
}

void tl_str_appendc(TlStr *p, char c){
  if( str_grow(p, 1) ) return;
  p->z[p->n++] = c;
  p->z[p->n] = 0;
}

void tl_str_appendf(TlStr *p, const char *zFmt, ...){
  va_list ap;
  int n;
  char aBuf[256];
  va_start(ap, zFmt);
  n = vsnprintf(aBuf, sizeof(aBuf), zFmt, ap);
  va_end(ap);
  if( n<0 ){ p->bErr = 1; return; }
  if( (size_t)n < sizeof(aBuf) ){
    tl_str_append(p, aBuf, (size_t)n);
    return;
  }
  if( str_grow(p, (size_t)n) ) return;
  va_start(ap, zFmt);
  vsnprintf(p->z + p->n, (size_t)n + 1, zFmt, ap);
  va_end(ap);
  p->n += (size_t)n;
}

/* Length of the valid UTF-8 sequence at z[0..n), or 0 if invalid. */
size_t tl_utf8_put(char *z, uint32_t c){
  if( c<0x80 ){ z[0] = (char)c; return 1; }
  if( c<0x800 ){ z[0] = (char)(0xC0 | c>>6); z[1] = (char)(0x80 | (c & 63)); return 2; }
  if( c<0x10000 ){
    z[0] = (char)(0xE0 | c>>12); z[1] = (char)(0x80 | (c>>6 & 63)); z[2] = (char)(0x80 | (c & 63));
    return 3;
  }
  z[0] = (char)(0xF0 | c>>18); z[1] = (char)(0x80 | (c>>12 & 63));
  z[2] = (char)(0x80 | (c>>6 & 63)); z[3] = (char)(0x80 | (c & 63));
  return 4;
}

static size_t utf8_len(const unsigned char *z, size_t n){
  unsigned c = z[0];
  size_t len, k;
  unsigned cp;
  if( c<0x80 ) return 1;
  if( c>=0xC2 && c<=0xDF ){ len = 2; cp = c & 0x1F; }
  else if( c>=0xE0 && c<=0xEF ){ len = 3; cp = c & 0x0F; }
  else if( c>=0xF0 && c<=0xF4 ){ len = 4; cp = c & 0x07; }
  else return 0;
  if( n<len ) return 0;
  for(k=1; k<len; k++){
    if( (z[k] & 0xC0)!=0x80 ) return 0;
    cp = (cp<<6) | (z[k] & 0x3F);
  }
  if( len==3 && (cp<0x800 || (cp>=0xD800 && cp<=0xDFFF)) ) return 0;
  if( len==4 && (cp<0x10000 || cp>0x10FFFF) ) return 0;
  return len;
}

void tl_json_string(TlStr *p, const char *z, size_t n){
  const unsigned char *u = (const unsigned char*)z;
  size_t i = 0, iStart = 0;
  tl_str_appendc(p, '"');
  while( i<n ){
    unsigned c = u[i];
    size_t len;
    if( c>=0x20 && c<0x80 && c!='"' && c!='\\' ){ i++; continue; }
    len = (c>=0x80) ? utf8_len(u+i, n-i) : 1;
    if( c>=0x80 && len>0 ){ i += len; continue; }
    tl_str_append(p, z+iStart, i-iStart);
    if( c>=0x80 ){
      tl_str_append(p, "\xEF\xBF\xBD", 3);
    }else if( c=='"' ){
      tl_str_append(p, "\\\"", 2);
    }else if( c=='\\' ){
      tl_str_append(p, "\\\\", 2);
    }else if( c=='\n' ){
      tl_str_append(p, "\\n", 2);
    }else if( c=='\t' ){
      tl_str_append(p, "\\t", 2);
    }else if( c=='\r' ){
      tl_str_append(p, "\\r", 2);
    }else{
      tl_str_appendf(p, "\\u%04x", c);
    }
    i++;
    iStart = i;
  }
  tl_str_append(p, z+iStart, i-iStart);
  tl_str_appendc(p, '"');
}

/* Separator before a value or key in the current container. */
static void json_sep(TlStr *p){
  int d = p->nDepth - 1;
  uint64_t m;
  if( d<0 || d>=TL_JSON_MAXDEPTH ) return;
  m = (uint64_t)1<<(d%64);
  if( p->aFirst[d/64] & m ){
    p->aFirst[d/64] &= ~m;
  }else{
    tl_str_appendc(p, ',');
  }
}

/* Keys set this flag so that the value right after them adds no comma. */
#define JSON_AFTER_KEY(p) ((p)->bErr==0 && (p)->n>0 && (p)->z[(p)->n-1]==':')

static void json_value_sep(TlStr *p){
  if( !JSON_AFTER_KEY(p) ) json_sep(p);
}

static void json_open(TlStr *p, char c){
  int d = p->nDepth;
  if( d>=TL_JSON_MAXDEPTH ){ p->bErr = 1; return; }
  json_value_sep(p);
  tl_str_appendc(p, c);
  p->nDepth++;
  p->aFirst[d/64] |= (uint64_t)1<<(d%64);
}

static void json_close(TlStr *p, char c){
  tl_str_appendc(p, c);
  if( p->nDepth>0 ) p->nDepth--;
}

void tl_json_obj_begin(TlStr *p){ json_open(p, '{'); }
void tl_json_obj_end(TlStr *p){ json_close(p, '}'); }
void tl_json_arr_begin(TlStr *p){ json_open(p, '['); }
void tl_json_arr_end(TlStr *p){ json_close(p, ']'); }

void tl_json_key(TlStr *p, const char *zKey){
  json_sep(p);
  tl_json_string(p, zKey, strlen(zKey));
  tl_str_appendc(p, ':');
}

void tl_json_int(TlStr *p, int64_t v){
  json_value_sep(p);
  tl_str_appendf(p, "%lld", (long long)v);
}

void tl_json_uint(TlStr *p, uint64_t v){
  json_value_sep(p);
  tl_str_appendf(p, "%llu", (unsigned long long)v);
}

void tl_json_double(TlStr *p, double v){
  char aBuf[40];
  int i;
  json_value_sep(p);
  if( isnan(v) ){ tl_str_appendz(p, "\"NaN\""); return; }
  if( isinf(v) ){ tl_str_appendz(p, v<0 ? "\"-Infinity\"" : "\"Infinity\""); return; }
  /* Shortest form that reads back to the same double. */
  for(i=15; i<=17; i++){
    snprintf(aBuf, sizeof(aBuf), "%.*g", i, v);
    if( strtod(aBuf, 0)==v ) break;
  }
  /* JSON needs a digit before any exponent or dot, which %g gives. */
  tl_str_appendz(p, aBuf);
}

void tl_json_str(TlStr *p, const char *z, size_t n){
  json_value_sep(p);
  tl_json_string(p, z, n);
}

void tl_json_strz(TlStr *p, const char *z){
  tl_json_str(p, z, strlen(z));
}

void tl_json_bool(TlStr *p, int b){
  json_value_sep(p);
  tl_str_appendz(p, b ? "true" : "false");
}

void tl_json_null(TlStr *p){
  json_value_sep(p);
  tl_str_appendz(p, "null");
}

void tl_json_hex(TlStr *p, const uint8_t *a, size_t n){
  static const char hex[] = "0123456789abcdef";
  size_t i;
  json_value_sep(p);
  tl_str_appendc(p, '"');
  for(i=0; i<n; i++){
    char c2[2];
    c2[0] = hex[a[i]>>4];
    c2[1] = hex[a[i]&15];
    tl_str_append(p, c2, 2);
  }
  tl_str_appendc(p, '"');
}

void tl_json_raw(TlStr *p, const char *z, size_t n){
  json_value_sep(p);
  tl_str_append(p, z, n);
}
