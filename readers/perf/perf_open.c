/*
** perf_open.c: opening a perf.data file: the probe, the byte order, the
** file header (attributes, ids, the feature table), the features the
** records need, then the index walk (perf_index.c), the event names, and
** what the trace offers its scans.
*/
#include "perf_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

#define PERF_MAGIC2        0x32454c4946524550ull    /* "PERFILE2" little-endian */
#define PERF_MAGIC1        0x454c494646524550ull    /* "PERFFILE" */
#define PERF_FILE_HDR      104
#define PERF_MAX_ATTRS     65536
#define PERF_MAX_FEAT_COPY ((size_t)16<<20)

void perf_data_free(PerfData *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nAttr; i++) free(p->aAttr[i].zName);
  for(i=0; i<p->nFeat; i++) free(p->aFeat[i].aCopy);
  perf_threads_clear(p);
  free(p->aAttr); free(p->aId); free(p->aFeat); free(p->aKey);
  tl_map_free(&p->idMap);
  perf_tp_free(p);
  perf_sym_free(p);
  perf_dir_free(p);
  free(p);
}

static int add_attr(PerfData *p, const PerfAttr *a){
  if( p->nAttr>=PERF_MAX_ATTRS ) return TL_ECORRUPT;
  if( p->nAttr==p->nAttrAlloc ){
    int nNew = p->nAttrAlloc ? p->nAttrAlloc*2 : 8;
    PerfAttr *aNew = realloc(p->aAttr, (size_t)nNew*sizeof(PerfAttr));
    if( aNew==0 ) return TL_ENOMEM;
    p->aAttr = aNew;
    p->nAttrAlloc = nNew;
  }
  p->aAttr[p->nAttr++] = *a;
  return TL_OK;
}

/* Add the n ids at b (u64 each, checked by the caller) for attr iAttr, in
** the file's order; an id met before keeps its first attr. */
static int add_ids(PerfData *p, TlBytes *b, uint64_t n, int iAttr){
  uint64_t k;
  if( n==0 ) return TL_OK;
  if( n > tl_bytes_left(b)/8 ) return TL_ECORRUPT;
  if( p->nId + n > (size_t)p->nIdAlloc ){
    size_t nNew = p->nIdAlloc ? p->nIdAlloc : 64;
    PerfId *aNew;
    while( nNew < p->nId + n ) nNew *= 2;
    aNew = realloc(p->aId, nNew*sizeof(PerfId));
    if( aNew==0 ) return TL_ENOMEM;
    p->aId = aNew;
    p->nIdAlloc = nNew;
  }
  for(k=0; k<n; k++){
    uint32_t iHad;
    uint64_t id;
    if( tl_bytes_u64e(b, &id) ) return TL_ECORRUPT;   /* (checked above) */
    p->aId[p->nId].id = id;
    p->aId[p->nId].iAttr = iAttr;
    p->nId++;
    if( !tl_map_get(&p->idMap, id, &iHad) && tl_map_put(&p->idMap, id, (uint32_t)iAttr) ){
      return TL_ENOMEM;
    }
  }
  return TL_OK;
}

static int add_feat(PerfData *p, int id, uint64_t iOff, uint64_t n,
                    const uint8_t *aCopy){
  PerfFeat *f;
  if( p->nFeat==p->nFeatAlloc ){
    int nNew = p->nFeatAlloc ? p->nFeatAlloc*2 : 16;
    PerfFeat *aNew = realloc(p->aFeat, (size_t)nNew*sizeof(PerfFeat));
    if( aNew==0 ) return TL_ENOMEM;
    p->aFeat = aNew;
    p->nFeatAlloc = nNew;
  }
  f = &p->aFeat[p->nFeat];
  memset(f, 0, sizeof(*f));
  f->id = id;
  f->iOff = iOff;
  f->n = n;
  if( aCopy ){
    f->aCopy = malloc(n ? (size_t)n : 1);
    if( f->aCopy==0 ) return TL_ENOMEM;
    if( n ) memcpy(f->aCopy, aCopy, (size_t)n);
  }
  p->nFeat++;
  return TL_OK;
}

/* The user records that define attributes, ids, names and features. */
/* The user records that define attributes, ids, names and features. */
int perf_open_user_record(TlTrace *pTrace, PerfData *p, const PerfRec *r, TlErr *pErr){
  TlBytes b = r->body;
  int rc = TL_OK;
  switch( r->type ){
    case PERF_HEADER_ATTR: {
      PerfAttr a;
      uint32_t nSize;
      TlBytes attrBytes;
      TlBytes peek = b;
      if( tl_bytes_skip(&peek, 4) || tl_bytes_u32e(&peek, &nSize) ) break;
      if( nSize==0 ) nSize = 64;
      if( tl_bytes_sub(&b, nSize, &attrBytes) || perf_attr_parse(&attrBytes, p->bo, &a) ){
        return tl_err_set(pErr, TL_ECORRUPT, r->iOff,
            "HEADER_ATTR record of %u bytes is shorter than its attr size %u", r->size, nSize);
      }
      rc = add_attr(p, &a);
      if( rc==TL_OK ) rc = add_ids(p, &b, tl_bytes_left(&b)/8, p->nAttr-1);
      if( rc ) return tl_err_set(pErr, rc, r->iOff, rc==TL_ENOMEM ? "out of memory" : "too many attributes");
      break;
    }
    case PERF_ID_INDEX: {
      uint64_t nr, k;
      if( tl_bytes_u64e(&b, &nr) || nr > tl_bytes_left(&b)/32 ) break;
      for(k=0; k<nr; k++){
        uint64_t id, idx, cpu, tid;
        TlBytes one;
        if( tl_bytes_u64e(&b, &id) || tl_bytes_u64e(&b, &idx)
         || tl_bytes_u64e(&b, &cpu) || tl_bytes_u64e(&b, &tid) ) break;   /* (checked above) */
        if( idx < (uint64_t)p->nAttr && perf_attr_for_id(p, id)==0 ){
          uint8_t a8[8];
          int i;
          for(i=0; i<8; i++) a8[i] = (uint8_t)(id >> (p->bo==TL_LE ? 8*i : 8*(7-i)));
          one = tl_bytes(a8, 8, p->bo);
          rc = add_ids(p, &one, 1, (int)idx);
          if( rc ) return tl_err_set(pErr, rc, r->iOff, "out of memory");
        }
      }
      break;
    }
    case PERF_EVENT_UPDATE: {
      uint64_t type, id;
      if( tl_bytes_u64e(&b, &type) || tl_bytes_u64e(&b, &id) ) break;
      if( type==2 ){                     /* PERF_EVENT_UPDATE__NAME */
        const PerfAttr *a = perf_attr_for_id(p, id);
        const uint8_t *z = tl_bytes_left(&b) ? memchr(b.a + b.i, 0, tl_bytes_left(&b)) : 0;
        if( a && z && !a->bNameFromDesc ){
          PerfAttr *pa = &p->aAttr[a - p->aAttr];
          char *zNew = tl_strndup((const char*)(b.a + b.i), (size_t)(z - (b.a + b.i)));
          if( zNew==0 ) return tl_err_set(pErr, TL_ENOMEM, r->iOff, "out of memory");
          free(pa->zName);
          pa->zName = zNew;
        }
      }
      break;
    }
    case PERF_HEADER_TRACING_DATA: {
      /* the payload follows the record; only in the file itself */
      uint32_t n;
      TlWin win;
      TlBytes td;
      if( PERF_ROWID_IS_INNER(r->iRowid) || tl_bytes_u32e(&b, &n) || p->nTp ) break;
      tl_win_init(&win, pTrace->pSrc);
      rc = tl_win_get(&win, r->iOff + r->size, n, p->bo, &td, pErr);
      if( rc==TL_OK ) rc = perf_tracing_parse(pTrace, p, td, r->iOff + r->size, pErr);
      tl_win_free(&win);
      if( rc ) return rc;
      break;
    }
    case PERF_HEADER_BUILD_ID: {
      /* pipe mode: one build_id_event, the layout of the BUILD_ID feature's entries */
      if( perf_buildid_entry(p, r->misc, r->body) ){
        return tl_err_set(pErr, TL_ENOMEM, r->iOff, "out of memory");
      }
      break;
    }
    case PERF_HEADER_FEATURE: {
      uint64_t id;
      if( tl_bytes_u64e(&b, &id) || id==0 || id>=PF_MAX ) break;
      if( tl_bytes_left(&b) > PERF_MAX_FEAT_COPY ) break;
      rc = add_feat(p, (int)id, TL_UNKNOWN, tl_bytes_left(&b), b.a + b.i);
      if( rc ) return tl_err_set(pErr, rc, r->iOff, "out of memory");
      break;
    }
    default:
      break;
  }
  return TL_OK;
}

/* Parse the file-mode header: attrs, ids, data section, feature table. */
static int open_file_header(TlTrace *pTrace, PerfData *p, TlWin *pWin, TlErr *pErr){
  uint64_t nFile = pTrace->pSrc->nSize;
  uint64_t hsize, attrSize, attrOff, attrLen, evOff, evLen, aFeat[4];
  TlBytes b;
  uint64_t k, nAttr;
  int rc, i;

  rc = tl_win_get(pWin, 0, PERF_FILE_HDR, p->bo, &b, pErr);
  if( rc ) return rc;
  if( b.n<PERF_FILE_HDR ){
    return tl_err_set(pErr, TL_ECORRUPT, b.n, "expected a %d-byte perf.data header, the file has %zu bytes",
                      PERF_FILE_HDR, b.n);
  }
  if( tl_bytes_skip(&b, 8) || tl_bytes_u64e(&b, &hsize) || tl_bytes_u64e(&b, &attrSize)
   || tl_bytes_u64e(&b, &attrOff) || tl_bytes_u64e(&b, &attrLen)
   || tl_bytes_u64e(&b, &p->iData) || tl_bytes_u64e(&b, &p->nData)
   || tl_bytes_u64e(&b, &evOff) || tl_bytes_u64e(&b, &evLen) ){
    return tl_err_set(pErr, TL_ECORRUPT, b.i, "expected a %d-byte perf.data header", PERF_FILE_HDR);
  }
  for(i=0; i<4; i++){
    if( tl_bytes_u64e(&b, &aFeat[i]) ){
      return tl_err_set(pErr, TL_ECORRUPT, b.i, "expected a %d-byte perf.data header", PERF_FILE_HDR);
    }
  }
  if( hsize==PERF_FILE_HDR-32 ){
    memset(aFeat, 0, sizeof(aFeat));   /* an early header, before the feature bits */
  }else if( hsize<PERF_FILE_HDR ){
    return tl_err_set(pErr, TL_ECORRUPT, 8, "header size %llu is less than %d",
                      (unsigned long long)hsize, PERF_FILE_HDR);
  }
  if( attrSize<64+16 || attrSize>65536 ){
    return tl_err_set(pErr, TL_ECORRUPT, 16, "attr_size %llu is outside 80..65536",
                      (unsigned long long)attrSize);
  }
  if( attrOff>nFile || attrLen>nFile-attrOff ){
    return tl_err_set(pErr, TL_ECORRUPT, 24,
        "attrs section (offset %llu, %llu bytes) lies outside the %llu-byte file",
        (unsigned long long)attrOff, (unsigned long long)attrLen, (unsigned long long)nFile);
  }
  nAttr = attrLen/attrSize;
  if( nAttr>PERF_MAX_ATTRS ){
    return tl_err_set(pErr, TL_ECORRUPT, 32, "%llu attributes is more than %d",
                      (unsigned long long)nAttr, PERF_MAX_ATTRS);
  }
  for(k=0; k<nAttr; k++){
    PerfAttr a;
    TlBytes ab, ids;
    uint64_t idOff, idLen;
    uint64_t iOff = attrOff + k*attrSize;
    rc = tl_win_get(pWin, iOff, (size_t)attrSize, p->bo, &b, pErr);
    if( rc ) return rc;
    if( tl_bytes_sub(&b, (size_t)attrSize-16, &ab) || perf_attr_parse(&ab, p->bo, &a)
     || tl_bytes_u64e(&b, &idOff) || tl_bytes_u64e(&b, &idLen) ){
      return tl_err_set(pErr, TL_ECORRUPT, iOff, "expected a %llu-byte attribute",
                        (unsigned long long)attrSize);
    }
    rc = add_attr(p, &a);
    if( rc ) return tl_err_set(pErr, rc, iOff, "out of memory");
    if( idLen ){
      if( idOff>nFile || idLen>nFile-idOff ){
        return tl_err_set(pErr, TL_ECORRUPT, iOff + attrSize - 16,
            "ids of attribute %llu (offset %llu, %llu bytes) lie outside the file",
            (unsigned long long)k, (unsigned long long)idOff, (unsigned long long)idLen);
      }
      rc = tl_win_get(pWin, idOff, (size_t)idLen, p->bo, &ids, pErr);
      if( rc ) return rc;
      rc = add_ids(p, &ids, idLen/8, p->nAttr-1);
      if( rc ) return tl_err_set(pErr, rc, idOff, "out of memory");
    }
  }
  /* The data section; a file cut short keeps what is there. */
  if( p->iData>nFile ){
    return tl_err_set(pErr, TL_ECORRUPT, 40, "data section starts at %llu, past the end of the %llu-byte file",
                      (unsigned long long)p->iData, (unsigned long long)nFile);
  }
  if( p->nData==0 && nFile>p->iData ){
    tl_trace_warn(pTrace, 0, 48,
        "the header says the data section is empty (perf did not finish writing): reading to the end of the file");
    p->nData = nFile - p->iData;
  }else if( p->nData > nFile - p->iData ){
    tl_trace_warn(pTrace, 0, nFile,
        "the data section should end at %llu but the file ends at %llu: the file was cut short",
        (unsigned long long)(p->iData + p->nData), (unsigned long long)nFile);
    p->nData = nFile - p->iData;
    return TL_OK;                       /* the feature table is gone too */
  }
  /* Features: one {offset, size} per bit set, after the data section. */
  {
    uint64_t iTab = p->iData + p->nData;
    for(i=1; i<PF_MAX; i++){
      uint64_t fOff, fLen;
      if( !(aFeat[i/64] & ((uint64_t)1<<(i%64))) ) continue;
      rc = tl_win_get(pWin, iTab, 16, p->bo, &b, pErr);
      if( rc ) return rc;
      if( tl_bytes_u64e(&b, &fOff) || tl_bytes_u64e(&b, &fLen) ){
        tl_trace_warn(pTrace, 0, iTab, "the feature table is cut short at feature %d", i);
        break;
      }
      if( fOff>nFile || fLen>nFile-fOff ){
        tl_trace_warn(pTrace, 0, iTab, "feature %d (offset %llu, %llu bytes) lies outside the file",
                      i, (unsigned long long)fOff, (unsigned long long)fLen);
      }else{
        rc = add_feat(p, i, fOff, fLen, 0);
        if( rc ) return tl_err_set(pErr, rc, iTab, "out of memory");
      }
      iTab += 16;
    }
  }
  return TL_OK;
}

int perf_probe(const uint8_t *a, size_t n, const char *zPath, int bDir){
  uint64_t m;
  if( bDir || n<16 ) return perf_dir_probe(zPath, bDir);
  m = tl_load_u64_unchecked(a, TL_LE);
  if( m==PERF_MAGIC2 || m==__builtin_bswap64(PERF_MAGIC2) ) return 100;
  if( m==PERF_MAGIC1 || m==__builtin_bswap64(PERF_MAGIC1) ) return 90;
  return perf_dir_probe(zPath, 0);
}

/*
** The byte order from the magic. Version 1 ("PERFFILE", the same in either
** byte order) has the layout of version 2, whose byte order perf tells from
** the header size (pipe mode: 16) or the attr_size (file mode: a plausible
** attr + section).
*/
static int open_byte_order(PerfData *p, TlWin *pWin, TlErr *pErr){
  TlBytes b;
  uint64_t magic;
  int rc = tl_win_get(pWin, 0, 16, TL_LE, &b, pErr);
  if( rc ) return rc;
  if( b.n<16 ) return tl_err_set(pErr, TL_ECORRUPT, 0, "expected a 16-byte perf.data header");
  magic = tl_load_u64_unchecked(b.a, TL_LE);
  if( magic==PERF_MAGIC2 ){ p->bo = TL_LE; return TL_OK; }
  if( magic==__builtin_bswap64(PERF_MAGIC2) ){ p->bo = TL_BE; return TL_OK; }
  if( magic==PERF_MAGIC1 ){
    uint64_t h = tl_load_u64_unchecked(b.a + 8, TL_LE), as;
    TlBytes b24;
    if( h==16 ){ p->bo = TL_LE; return TL_OK; }
    if( h==__builtin_bswap64((uint64_t)16) ){ p->bo = TL_BE; return TL_OK; }
    rc = tl_win_get(pWin, 0, 24, TL_LE, &b24, pErr);
    if( rc ) return rc;
    if( b24.n<24 ){
      return tl_err_set(pErr, TL_ECORRUPT, b24.n, "expected a perf.data header, the file ends");
    }
    as = tl_load_u64_unchecked(b24.a + 16, TL_LE);
    if( as>=64+16 && as<=65536 ){ p->bo = TL_LE; return TL_OK; }
    if( __builtin_bswap64(as)>=64+16 && __builtin_bswap64(as)<=65536 ){ p->bo = TL_BE; return TL_OK; }
    return tl_err_set(pErr, TL_ECORRUPT, 16,
        "perf.data version 1: expected an attr_size that gives the byte order");
  }
  return tl_err_set(pErr, TL_ECORRUPT, 0, "expected the perf.data magic \"PERFILE2\"");
}

/*
** The features the records need (file mode): event names (EVENT_DESC),
** tracepoint formats (TRACING_DATA), the build ids of the mapped files.
*/
static int open_features(TlTrace *pTrace, PerfData *p, TlWin *pWin, TlErr *pErr){
  int i, rc;
  for(i=0; i<p->nFeat; i++){
    const PerfFeat *f = &p->aFeat[i];
    if( f->id==PF_EVENT_DESC ){
      rc = perf_event_desc_apply(pTrace, p, f, pErr);
      if( rc ) return rc;
    }
    if( f->id==PF_TRACING_DATA ){
      TlBytes td;
      rc = tl_win_get(pWin, f->iOff, (size_t)f->n, p->bo, &td, pErr);
      if( rc==TL_OK ) rc = perf_tracing_parse(pTrace, p, td, f->iOff, pErr);
      if( rc ) return rc;
    }
    if( f->id==PF_BUILD_ID ){
      /* the build ids of the mapped files, for symbols (a feature that
      ** cannot be read gives none: symbols come without them) */
      TlBytes bb, body;
      TlErr e2;
      uint16_t misc;
      tl_err_clear(&e2);
      if( f->iOff==UINT64_MAX || tl_win_get(pWin, f->iOff, (size_t)f->n, p->bo, &bb, &e2) ) continue;
      while( perf_buildid_list_next(&bb, &misc, &body) ){
        if( perf_buildid_entry(p, misc, body) ) return tl_err_set(pErr, TL_ENOMEM, f->iOff, "out of memory");
      }
    }
  }
  return TL_OK;
}

/* Names: EVENT_DESC (pipe-mode features), EVENT_UPDATE, else the type. */
static int open_names(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  int i, rc;
  for(i=0; i<p->nFeat && p->bPipe; i++){
    if( p->aFeat[i].id==PF_EVENT_DESC ){
      rc = perf_event_desc_apply(pTrace, p, &p->aFeat[i], pErr);
      if( rc ) return rc;
    }
  }
  for(i=0; i<p->nAttr; i++){
    PerfAttr *a = &p->aAttr[i];
    const PerfTp *t = a->type==2 ? perf_tp_find(p, a->config) : 0;
    char z[64];
    if( a->zName ) continue;
    if( t ){
      a->zName = tl_strndup(t->zName, strlen(t->zName));
    }else{
      perf_attr_default_name(a, z, sizeof(z));
      a->zName = tl_strndup(z, strlen(z));
    }
    if( a->zName==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  return TL_OK;
}

/* What the trace offers its scans, from the index. */
static void open_offers(TlTrace *pTrace, const PerfData *p){
  uint64_t aGroup[PERF_ROUND_RING] = {0}, nHeld = 0;
  int nLag = perf_round_lag(p), nGroup = 0, i;
  size_t k;
  /* Time order needs every record in its round or later (perf_index.c,
  ** round_note) ... */
  if( p->nLate ) pTrace->mOrdered &= ~(1u<<TL_TAB_EVENTS);
  /* ... and the rounds it holds in memory (the lag's and the one read,
  ** taken by chunks, which group rounds): allow it when that is small.
  ** A record held takes its bytes in the file (its 8-byte header covers
  ** the body's rounding) and a header (perf_scan.c, order_push: 64 bytes). */
  for(k=0; k<pTrace->index.n; k++){
    if( k && pTrace->index.a[k].iStream!=pTrace->index.a[k-1].iStream ){
      nGroup = 0;                               /* a directory's next file: a scan of its own */
      nHeld = 0;
    }
    nHeld += pTrace->index.a[k].nSize
           + pTrace->index.a[k].nEvents*tl_reorder_rec_bytes(sizeof(PerfOrderHead), 0);
    if( nHeld + (nGroup ? aGroup[nGroup-1] : 0) > PERF_MAX_ORDER_BYTES ){
      pTrace->mOrdered &= ~(1u<<TL_TAB_EVENTS);
      break;
    }
    if( pTrace->index.a[k].flags & PERF_PKT_ROUND_END ){
      /* aGroup[i]: the bytes of the i+1 groups before this one */
      for(i=nLag-1; i>0; i--) aGroup[i] = aGroup[i-1] + nHeld;
      aGroup[0] = nHeld;
      if( nGroup<nLag ) nGroup++;
      nHeld = 0;
    }
  }
}

/* The header (pipe mode: none), then the features the records need. */
static int open_header(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  TlWin win;
  TlBytes b;
  int rc;
  tl_win_init(&win, pTrace->pSrc);
  rc = open_byte_order(p, &win, pErr);
  if( rc==TL_OK ) rc = tl_win_get(&win, 0, 16, p->bo, &b, pErr);
  if( rc==TL_OK && b.n<16 ) rc = tl_err_set(pErr, TL_ECORRUPT, 0, "expected a 16-byte perf.data header");
  if( rc==TL_OK && tl_load_u64_unchecked(b.a + 8, p->bo)==16 ){
    p->bPipe = 1;
    p->iData = 16;
    p->nData = pTrace->pSrc->nSize - 16;
  }else if( rc==TL_OK ){
    rc = open_file_header(pTrace, p, &win, pErr);
    if( rc==TL_OK ) rc = open_features(pTrace, p, &win, pErr);
  }
  tl_win_free(&win);
  return rc;
}

int perf_open_header(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  return open_header(pTrace, p, pErr);
}

int perf_open(TlTrace *pTrace, TlErr *pErr){
  PerfData *p;
  int rc = perf_dir_part_error(pTrace, pErr);
  if( rc ) return rc;
  p = calloc(1, sizeof(*p));
  if( p==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( perf_sym_init(pTrace, p) ){
    free(p);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  /* a data directory, or its DIR/data: its files */
  rc = perf_dir_open(pTrace, p, pErr);
  if( rc==TL_OK && pTrace->pSrc==0 ){
    rc = tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "a perf.data trace is a file or a perf data directory");
  }
  if( rc==TL_OK ) rc = open_header(pTrace, p, pErr);
  if( rc==TL_OK ) perf_dir_data_section(p);
  if( rc==TL_OK ) perf_sym_prefetch(pTrace, p);
  if( rc==TL_OK ) rc = perf_index_build(pTrace, p, pErr);
  if( rc==TL_OK ) rc = open_names(pTrace, p, pErr);
  if( rc==TL_OK ) rc = perf_clock_apply(pTrace, p, pErr);
  if( rc ){ perf_data_free(p); return rc; }
  if( p->nUnknown ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "%llu records of unknown types were skipped",
                  (unsigned long long)p->nUnknown);
  }
  pTrace->nEventsHint = tl_index_events(&pTrace->index);
  open_offers(pTrace, p);
  perf_maps_finish(p);
  pTrace->pData = p;
  return TL_OK;
}
