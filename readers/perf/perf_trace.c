/*
** perf_trace.c: tracepoint formats from HEADER_TRACING_DATA, and the
** decoding of PERF_SAMPLE_RAW into named fields.
**
** Tracing data (tools/perf/util/trace-event-read.c layout):
**   "\027\010Dtracing" version "0.6\0"  u8 big_endian  u8 long_size  u32 page_size
**   "header_page\0" u64 size, text     "header_event\0" u64 size, text
**   u32 count, count x { u64 size, ftrace format text }
**   u32 systems, systems x { system name "\0", u32 count, count x { u64 size, format text } }
**   u32 size, kallsyms; u32 size, printk formats; [0.6: u64 size, saved cmdlines]
** Numbers are in the byte order the tracing data names.
**
** A format text:
**   name: sched_switch
**   ID: 316
**   format:
**   \tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
**   ...
*/
#include "perf_int.h"

#include <stdlib.h>
#include <string.h>

#define TP_MAX_FIELDS 256

static void tp_free_one(PerfTp *t){
  int i;
  perf_printfmt_free(t->pFmt);
  for(i=0; i<t->nField; i++) free(t->aField[i].zName);
  free(t->aField);
  free(t->zName);
}

void perf_tp_free(PerfData *p){
  int i;
  for(i=0; i<p->nTp; i++) tp_free_one(&p->aTp[i]);
  free(p->aTp);
  p->aTp = 0;
  p->nTp = 0;
}

/* Value of "key:" within [z, zEnd) up to ';' or end of line, or NULL. */
static const char *find_key(const char *z, const char *zEnd, const char *zKey){
  size_t n = strlen(zKey);
  while( z && z<zEnd ){
    const char *zHit = memchr(z, zKey[0], (size_t)(zEnd - z));
    if( zHit==0 ) return 0;
    if( (size_t)(zEnd - zHit) > n && memcmp(zHit, zKey, n)==0 ) return zHit + n;
    z = zHit + 1;
  }
  return 0;
}

/* Parse one "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" line. */
static int parse_field(const char *z, const char *zEnd, PerfTpField *f){
  const char *zDecl = find_key(z, zEnd, "field:");
  const char *zSemi, *zName, *zNameEnd, *zv;
  memset(f, 0, sizeof(*f));
  if( zDecl==0 ) return -1;
  zSemi = memchr(zDecl, ';', (size_t)(zEnd - zDecl));
  if( zSemi==0 ) return -1;
  f->bDataLoc = (size_t)(zSemi - zDecl) > 10 && memcmp(zDecl, "__data_loc", 10)==0;
  zNameEnd = zSemi;
  if( zNameEnd>zDecl && zNameEnd[-1]==']' ){
    const char *zOpen = zNameEnd - 1;
    while( zOpen>zDecl && *zOpen!='[' ) zOpen--;
    if( *zOpen=='[' ){
      f->nElem = atoi(zOpen+1);
      f->bArray = 1;
      zNameEnd = zOpen;
    }
  }
  zName = zNameEnd;
  while( zName>zDecl && (zName[-1]=='_' || (zName[-1]>='a' && zName[-1]<='z')
      || (zName[-1]>='A' && zName[-1]<='Z') || (zName[-1]>='0' && zName[-1]<='9')) ) zName--;
  if( zName==zNameEnd ) return -1;
  f->zName = tl_strndup(zName, (size_t)(zNameEnd - zName));
  if( f->zName==0 ) return -2;
  {
    /* a char array (or data_loc char[]) is a string */
    const char *zc;
    for(zc=zDecl; zc+4<=zName; zc++){
      if( memcmp(zc, "char", 4)==0 ){ f->bChar = 1; break; }
    }
  }
  zv = find_key(zSemi, zEnd, "offset:");
  if( zv ) f->off = (uint32_t)atoi(zv);
  zv = find_key(zSemi, zEnd, "size:");
  if( zv ) f->size = (uint32_t)atoi(zv);
  zv = find_key(zSemi, zEnd, "signed:");
  if( zv ) f->bSigned = atoi(zv)!=0;
  f->bCommon = strncmp(f->zName, "common_", 7)==0;
  return 0;
}

/* Parse one event format text into *pOut (system given). */
static int parse_format(const char *z, size_t n, const char *zSystem, PerfTp *t){
  const char *zEnd = z + n, *zLine = z;
  const char *zName = 0, *zPrint = 0;
  size_t nName = 0, nPrint = 0;
  memset(t, 0, sizeof(*t));
  while( zLine<zEnd ){
    const char *zEol = memchr(zLine, '\n', (size_t)(zEnd - zLine));
    if( zEol==0 ) zEol = zEnd;
    if( (size_t)(zEol - zLine)>6 && memcmp(zLine, "name: ", 6)==0 ){
      zName = zLine + 6;
      nName = (size_t)(zEol - zName);
    }else if( (size_t)(zEol - zLine)>11 && memcmp(zLine, "print fmt: ", 11)==0 ){
      zPrint = zLine + 11;
      nPrint = (size_t)(zEol - zPrint);
    }else if( (size_t)(zEol - zLine)>4 && memcmp(zLine, "ID: ", 4)==0 ){
      t->id = strtoull(zLine + 4, 0, 10);
    }else if( find_key(zLine, zEol, "field:") && t->nField<TP_MAX_FIELDS ){
      PerfTpField f;
      int rc = parse_field(zLine, zEol, &f);
      if( rc==-2 ) return TL_ENOMEM;
      if( rc==0 ){
        if( (t->nField & 15)==0 ){
          PerfTpField *aNew = realloc(t->aField, (size_t)(t->nField+16)*sizeof(PerfTpField));
          if( aNew==0 ){ free(f.zName); return TL_ENOMEM; }
          t->aField = aNew;
        }
        t->aField[t->nField++] = f;
      }
    }
    zLine = zEol + 1;
  }
  if( zName==0 ) return TL_ECORRUPT;
  if( zPrint ) t->pFmt = perf_printfmt_parse(t, zPrint, nPrint);   /* NULL: not evaluable */
  {
    size_t nSys = strlen(zSystem);
    t->zName = malloc(nSys + 1 + nName + 1);
    if( t->zName==0 ) return TL_ENOMEM;
    memcpy(t->zName, zSystem, nSys);
    t->zName[nSys] = ':';
    memcpy(t->zName + nSys + 1, zName, nName);
    t->zName[nSys + 1 + nName] = 0;
  }
  return TL_OK;
}

static int add_tp(PerfData *p, PerfTp *t){
  if( (p->nTp & 31)==0 ){
    PerfTp *aNew = realloc(p->aTp, (size_t)(p->nTp+32)*sizeof(PerfTp));
    if( aNew==0 ) return TL_ENOMEM;
    p->aTp = aNew;
  }
  p->aTp[p->nTp++] = *t;
  return TL_OK;
}

int perf_tracing_parse(TlTrace *pTrace, PerfData *p, TlBytes b, uint64_t iOff,
                       TlErr *pErr){
  const uint8_t *a;
  const char *z;
  size_t n;
  uint8_t bBig, nLong;
  uint32_t nPage, nFtrace, nSys, i, j;
  uint64_t sz;
  int rc;
#define CUT(what) do{ tl_trace_warn(pTrace, 0, iOff + b.i, \
    "tracing data ends before its %s: tracepoint fields are not decoded", what); return TL_OK; }while(0)
  if( tl_bytes_ptr(&b, 10, &a) || memcmp(a, "\027\010Dtracing", 10) ) CUT("magic");
  if( tl_bytes_cstr(&b, &z, &n) ) CUT("version");
  if( tl_bytes_u8(&b, &bBig) || tl_bytes_u8(&b, &nLong) ) CUT("byte order");
  b.bo = bBig ? TL_BE : TL_LE;
  if( tl_bytes_u32e(&b, &nPage) ) CUT("page size");
  if( tl_bytes_cstr(&b, &z, &n) || tl_bytes_u64e(&b, &sz) || sz>tl_bytes_left(&b)
   || tl_bytes_skip(&b, (size_t)sz) ) CUT("header_page");
  if( tl_bytes_cstr(&b, &z, &n) || tl_bytes_u64e(&b, &sz) || sz>tl_bytes_left(&b)
   || tl_bytes_skip(&b, (size_t)sz) ) CUT("header_event");
  if( tl_bytes_u32e(&b, &nFtrace) ) CUT("ftrace formats");
  for(i=0; i<nFtrace; i++){
    if( tl_bytes_u64e(&b, &sz) || sz>tl_bytes_left(&b) || tl_bytes_skip(&b, (size_t)sz) ) CUT("ftrace formats");
  }
  if( tl_bytes_u32e(&b, &nSys) ) CUT("event formats");
  for(i=0; i<nSys; i++){
    const char *zSys;
    size_t nSysName;
    uint32_t nFmt;
    if( tl_bytes_cstr(&b, &zSys, &nSysName) || tl_bytes_u32e(&b, &nFmt) ) CUT("event formats");
    for(j=0; j<nFmt; j++){
      PerfTp t;
      char *zSysCopy;
      if( tl_bytes_u64e(&b, &sz) || sz>tl_bytes_left(&b) || tl_bytes_ptr(&b, (size_t)sz, &a) ) CUT("event formats");
      zSysCopy = tl_strndup(zSys, nSysName);
      if( zSysCopy==0 ) return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
      rc = parse_format((const char*)a, (size_t)sz, zSysCopy, &t);
      free(zSysCopy);
      if( rc==TL_ENOMEM ){ tp_free_one(&t); return tl_err_set(pErr, rc, iOff, "out of memory"); }
      if( rc ){ tp_free_one(&t); continue; }
      if( t.pFmt ) perf_printfmt_symbols(t.pFmt, pTrace, p->pSyms);   /* %pS names */
      if( add_tp(p, &t) ){ tp_free_one(&t); return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory"); }
    }
  }
#undef CUT
  (void)nLong; (void)nPage;
  return TL_OK;
}

const PerfTp *perf_tp_find(const PerfData *p, uint64_t id){
  int i;
  for(i=0; i<p->nTp; i++) if( p->aTp[i].id==id ) return &p->aTp[i];
  return 0;
}

/* One field's value: into args (JSON) and, unless common_, into text. */
static void tp_field(const PerfTpField *f, const uint8_t *a, size_t n, int bo,
                     TlStr *pArgs, TlStr *pText){
  const uint8_t *v;
  size_t nv;
  if( f->off > n || f->size > n - f->off ) return;
  v = a + f->off;
  nv = f->size;
  if( pText && !f->bCommon ){
    if( pText->n ) tl_str_appendc(pText, ' ');
    tl_str_appendf(pText, "%s=", f->zName);
  }
  tl_json_key(pArgs, f->zName);
  if( f->bDataLoc && nv>=4 ){
    uint32_t loc = tl_load_u32_unchecked(v, bo);
    uint32_t o = loc & 0xFFFF, len = loc >> 16;
    if( o<=n && len<=n-o ){ v = a + o; nv = len; }else{ nv = 0; }
    if( f->bChar ){
      const uint8_t *zNul = nv ? memchr(v, 0, nv) : 0;
      if( zNul ) nv = (size_t)(zNul - v);
      tl_json_str(pArgs, (const char*)v, nv);
      if( pText && !f->bCommon ) tl_str_append(pText, (const char*)v, nv);
    }else{
      tl_json_hex(pArgs, v, nv);
    }
    return;
  }
  if( f->bArray && f->bChar ){
    const uint8_t *zNul = nv ? memchr(v, 0, nv) : 0;
    if( zNul ) nv = (size_t)(zNul - v);
    tl_json_str(pArgs, (const char*)v, nv);
    if( pText && !f->bCommon ) tl_str_append(pText, (const char*)v, nv);
    return;
  }
  {
    uint32_t nElem = f->bArray && f->nElem>0 ? (uint32_t)f->nElem : 1;
    uint32_t sz = nv / nElem, k;
    if( sz!=1 && sz!=2 && sz!=4 && sz!=8 ){
      tl_json_hex(pArgs, v, nv);
      return;
    }
    if( f->bArray ) tl_json_arr_begin(pArgs);
    for(k=0; k<nElem; k++){
      const uint8_t *e = v + (size_t)k*sz;
      uint64_t u = sz==1 ? e[0] : sz==2 ? tl_load_u16_unchecked(e, bo)
                 : sz==4 ? tl_load_u32_unchecked(e, bo) : tl_load_u64_unchecked(e, bo);
      if( f->bSigned ){
        int64_t s = sz==1 ? (int8_t)u : sz==2 ? (int16_t)u : sz==4 ? (int32_t)u : (int64_t)u;
        tl_json_int(pArgs, s);
        if( pText && !f->bCommon ) tl_str_appendf(pText, "%s%lld", k ? "," : "", (long long)s);
      }else{
        tl_json_uint(pArgs, u);
        if( pText && !f->bCommon ) tl_str_appendf(pText, "%s%llu", k ? "," : "", (unsigned long long)u);
      }
    }
    if( f->bArray ) tl_json_arr_end(pArgs);
  }
}

void perf_tp_decode(const PerfTp *t, const uint8_t *a, size_t n, int bo,
                    TlStr *pArgs, TlStr *pText){
  int i;
  for(i=0; i<t->nField; i++) tp_field(&t->aField[i], a, n, bo, pArgs, pText);
}
