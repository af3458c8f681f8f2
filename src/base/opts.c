/*
** opts.c: the options string (see opts.h).
*/
#include "opts.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"

void tl_opts_init(TlOpts *p){
  memset(p, 0, sizeof(*p));
}

void tl_opts_free(TlOpts *p){
  int i;
  for(i=0; i<p->n; i++){
    free(p->azKey[i]);
    free(p->azVal[i]);
  }
  tl_opts_init(p);
}

int tl_opts_set(TlOpts *p, const char *zKey, const char *zVal){
  int i;
  char *zV = tl_strndup(zVal, strlen(zVal));
  if( zV==0 ) return TL_ENOMEM;
  for(i=0; i<p->n; i++){
    if( strcmp(p->azKey[i], zKey)==0 ){
      free(p->azVal[i]);
      p->azVal[i] = zV;
      return TL_OK;
    }
  }
  if( p->n>=TL_OPTS_MAX ){ free(zV); return TL_EMISUSE; }
  p->azKey[p->n] = tl_strndup(zKey, strlen(zKey));
  if( p->azKey[p->n]==0 ){ free(zV); return TL_ENOMEM; }
  p->azVal[p->n] = zV;
  p->n++;
  return TL_OK;
}

static int is_sep(char c){
  return c==',' || c==';' || isspace((unsigned char)c);
}

int tl_opts_parse(TlOpts *p, const char *z, TlErr *pErr){
  size_t i = 0;
  TlStr val;
  if( z==0 ) return TL_OK;
  tl_str_init(&val);
  for(;;){
    size_t iKey, nKey;
    char zKey[64];
    int rc;
    while( z[i] && is_sep(z[i]) ) i++;
    if( z[i]==0 ) break;
    iKey = i;
    while( isalnum((unsigned char)z[i]) || z[i]=='_' ) i++;
    nKey = i - iKey;
    if( nKey==0 || nKey>=sizeof(zKey) ){
      tl_str_free(&val);
      return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
          "options: expected a key at character %zu of \"%s\"", iKey+1, z);
    }
    memcpy(zKey, z+iKey, nKey);
    zKey[nKey] = 0;
    while( z[i]==' ' || z[i]=='\t' ) i++;
    if( z[i]!='=' ){
      tl_str_free(&val);
      return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
          "options: expected '=' after \"%s\" at character %zu", zKey, i+1);
    }
    i++;
    while( z[i]==' ' || z[i]=='\t' ) i++;
    tl_str_reset(&val);
    tl_str_append(&val, "", 0);
    if( z[i]=='\'' || z[i]=='"' ){
      char q = z[i++];
      for(;;){
        if( z[i]==0 ){
          tl_str_free(&val);
          return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
              "options: unterminated quote in the value of \"%s\"", zKey);
        }
        if( z[i]==q ){
          if( z[i+1]==q ){ tl_str_appendc(&val, q); i += 2; continue; }
          i++;
          break;
        }
        tl_str_appendc(&val, z[i++]);
      }
    }else{
      size_t iVal = i;
      while( z[i] && !is_sep(z[i]) ) i++;
      tl_str_append(&val, z+iVal, i-iVal);
    }
    if( val.bErr ){ tl_str_free(&val); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
    rc = tl_opts_set(p, zKey, val.z);
    if( rc ){
      tl_str_free(&val);
      return tl_err_set(pErr, rc, TL_NO_OFFSET,
          rc==TL_ENOMEM ? "out of memory" : "options: more than %d options", TL_OPTS_MAX);
    }
  }
  tl_str_free(&val);
  return TL_OK;
}

const char *tl_opts_get(const TlOpts *p, const char *zKey){
  int i;
  for(i=0; i<p->n; i++){
    if( strcmp(p->azKey[i], zKey)==0 ) return p->azVal[i];
  }
  return 0;
}

int tl_opts_onoff(const TlOpts *p, const char *zKey, int bDefault, int *pbOn){
  const char *z = tl_opts_get(p, zKey);
  *pbOn = bDefault;
  if( z==0 ) return TL_OK;
  if( strcmp(z, "on")==0 ){ *pbOn = 1; return TL_OK; }
  if( strcmp(z, "off")==0 ){ *pbOn = 0; return TL_OK; }
  return TL_EMISUSE;
}

int tl_opts_clock(const TlOpts *p, int *peClock){
  const char *z = tl_opts_get(p, "clock");
  *peClock = TL_CLOCK_TRACE;
  if( z==0 ) return TL_OK;
  if( strcmp(z, "monotonic")==0 ){ *peClock = TL_CLOCK_MONOTONIC; return TL_OK; }
  if( strcmp(z, "realtime")==0 ){ *peClock = TL_CLOCK_REALTIME; return TL_OK; }
  return TL_EMISUSE;
}

int tl_opts_uint(const TlOpts *p, const char *zKey, uint64_t nMin, uint64_t nMax,
                 uint64_t nDefault, uint64_t *pv){
  const char *z = tl_opts_get(p, zKey);
  uint64_t v = 0;
  *pv = nDefault;
  if( z==0 ) return TL_OK;
  if( *z==0 ) return TL_EMISUSE;
  for(; *z; z++){
    if( *z<'0' || *z>'9' || (uint64_t)(*z - '0')>nMax || v > (nMax - (uint64_t)(*z - '0'))/10 ) return TL_EMISUSE;
    v = v*10 + (uint64_t)(*z - '0');
  }
  if( v<nMin ) return TL_EMISUSE;
  *pv = v;
  return TL_OK;
}

static int cmp_idx(const TlOpts *p, int a, int b){
  return strcmp(p->azKey[a], p->azKey[b]);
}

char *tl_opts_canonical(const TlOpts *p){
  int aIdx[TL_OPTS_MAX];
  int i, j;
  TlStr s;
  for(i=0; i<p->n; i++) aIdx[i] = i;
  for(i=1; i<p->n; i++){               /* insertion sort: n <= 16 */
    int t = aIdx[i];
    for(j=i; j>0 && cmp_idx(p, aIdx[j-1], t)>0; j--) aIdx[j] = aIdx[j-1];
    aIdx[j] = t;
  }
  tl_str_init(&s);
  tl_str_append(&s, "", 0);
  for(i=0; i<p->n; i++){
    const char *zV = p->azVal[aIdx[i]];
    tl_str_appendf(&s, "%s%s='", i ? "," : "", p->azKey[aIdx[i]]);
    for(; *zV; zV++){
      if( *zV=='\'' ) tl_str_appendc(&s, '\'');
      tl_str_appendc(&s, *zV);
    }
    tl_str_appendc(&s, '\'');
  }
  if( s.bErr ){ tl_str_free(&s); return 0; }
  return s.z;
}
