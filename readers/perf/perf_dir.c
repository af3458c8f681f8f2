/*
** perf_dir.c: perf data directories, as `perf record --threads` writes
** them (perf 5.14 on; tools/perf/Documentation/perf.data-directory-format
** and util/data.c):
**
**   DIR/data      a perf.data file: header, attrs, the records perf's main
**                 thread wrote (the ones it synthesizes at the start), and
**                 the features, with HEADER_DIR_FORMAT (its version, u64)
**   DIR/data.N    one per recording thread: records only, no header, in
**                 the byte order and with the attrs of DIR/data; each in
**                 time order, the files interleaved in time
**
** The directory reads as one trace: its records are merged in time order
** into one perf.data image in memory (a record without a time keeps its
** place after the one before it in its file), laid out as DIR/data with
** that data section, so the rest of the reader sees one file. Rowids are
** offsets in that image. A data.N missing between others is a warning;
** DIR/data given alone reads the whole directory; DIR/data.N given alone
** is an error naming the directory.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf_scan.h"

#define PERF_DIR_MAX_FILES 4096               /* data.N files */
#define PERF_DIR_MAX_BYTES ((size_t)1<<30)    /* bytes of records merged in memory */
#define PERF_DIR_DATA      "data"

/* One record to merge: where it is in the staging buffer, and its place. */
typedef struct DirRec DirRec;
struct DirRec {
  int64_t ts;                     /* its time, or the time before it in its file */
  uint32_t iFile;                 /* 0: DIR/data, k: the k-th data.N */
  uint64_t iSeq;                  /* order read */
  uint64_t iOff; uint32_t n;      /* in the staging buffer */
};

typedef struct DirBuild DirBuild;
struct DirBuild {
  uint8_t *aStage; size_t nStage, nStageAlloc;
  DirRec *aRec; size_t nRec, nRecAlloc;
};

static int cmp_dirrec(const void *x, const void *y){
  const DirRec *a = x, *b = y;
  if( a->ts!=b->ts ) return a->ts < b->ts ? -1 : 1;
  if( a->iFile!=b->iFile ) return a->iFile < b->iFile ? -1 : 1;
  return a->iSeq < b->iSeq ? -1 : a->iSeq > b->iSeq;
}

/* The number N of a name "data.N", or -1. */
static long dir_part_number(const char *zName){
  const char *z;
  long v = 0;
  if( strncmp(zName, PERF_DIR_DATA ".", 5) || zName[5]==0 ) return -1;
  for(z=zName+5; *z; z++){
    if( *z<'0' || *z>'9' || v>=PERF_DIR_MAX_FILES ) return -1;
    v = v*10 + (*z - '0');
  }
  return v;
}

/* Does file zPath start with a perf.data magic? */
static int dir_is_perf_file(const char *zPath){
  FILE *f;
  uint8_t a[8];
  int b = 0;
  struct stat st;
  if( stat(zPath, &st) || !S_ISREG(st.st_mode) ) return 0;   /* never open a FIFO */
  f = fopen(zPath, "rb");
  if( f==0 ) return 0;
  if( fread(a, 1, 8, f)==8 ) b = memcmp(a, "PERFILE2", 8)==0 || memcmp(a, "2ELIFREP", 8)==0;
  fclose(f);
  return b;
}

/* The directory of zPath into z (of n bytes), and its last name into *pzBase. */
static int dir_split(const char *zPath, char *z, size_t n, const char **pzBase){
  const char *zSlash = strrchr(zPath, '/');
  *pzBase = zSlash ? zSlash + 1 : zPath;
  if( zSlash==0 ) return (size_t)snprintf(z, n, ".") >= n;
  return (size_t)snprintf(z, n, "%.*s", (int)(zSlash - zPath), zPath) >= n;
}

int perf_dir_probe(const char *zPath, int bDir){
  char zDir[4096], zData[4200];
  const char *zBase;
  if( zPath==0 ) return 0;
  if( bDir ){
    if( (size_t)snprintf(zData, sizeof(zData), "%s/" PERF_DIR_DATA, zPath) >= sizeof(zData) ) return 0;
    return dir_is_perf_file(zData) ? 100 : 0;
  }
  /* DIR/data.N given alone: ours, to say which directory to open */
  if( dir_split(zPath, zDir, sizeof(zDir), &zBase) || dir_part_number(zBase)<0 ) return 0;
  if( (size_t)snprintf(zData, sizeof(zData), "%s/" PERF_DIR_DATA, zDir) >= sizeof(zData) ) return 0;
  return dir_is_perf_file(zData) ? 40 : 0;
}

int perf_dir_part_error(TlTrace *pTrace, TlErr *pErr){
  char zDir[4096];
  const char *zBase;
  if( pTrace->bDir || dir_split(pTrace->zPath, zDir, sizeof(zDir), &zBase) || dir_part_number(zBase)<0 ){
    return TL_OK;
  }
  return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
                    "%s is one part of the perf data directory %s (perf record --threads): "
                    "open the directory, which reads its parts merged", zBase, zDir);
}

/* Room for n more staging bytes; TL_OK, TL_ENOMEM or TL_ELIMIT. */
static int dir_stage(DirBuild *d, size_t n){
  if( n > PERF_DIR_MAX_BYTES - d->nStage ) return TL_ELIMIT;
  if( d->nStage + n > d->nStageAlloc ){
    size_t nNew = d->nStageAlloc ? d->nStageAlloc : (size_t)1<<20;
    uint8_t *aNew;
    while( nNew < d->nStage + n ) nNew *= 2;
    aNew = realloc(d->aStage, nNew);
    if( aNew==0 ) return TL_ENOMEM;
    d->aStage = aNew;
    d->nStageAlloc = nNew;
  }
  return TL_OK;
}

static void put_u16(uint8_t *a, uint16_t v, int bo){
  if( bo==TL_BE ){ a[0] = (uint8_t)(v>>8); a[1] = (uint8_t)v; }
  else{ a[0] = (uint8_t)v; a[1] = (uint8_t)(v>>8); }
}
static void put_u32(uint8_t *a, uint32_t v, int bo){
  if( bo==TL_BE ){ put_u16(a, (uint16_t)(v>>16), bo); put_u16(a+2, (uint16_t)v, bo); }
  else{ put_u16(a, (uint16_t)v, bo); put_u16(a+2, (uint16_t)(v>>16), bo); }
}
static void put_u64(uint8_t *a, uint64_t v, int bo){
  if( bo==TL_BE ){ put_u32(a, (uint32_t)(v>>32), bo); put_u32(a+4, (uint32_t)v, bo); }
  else{ put_u32(a, (uint32_t)v, bo); put_u32(a+4, (uint32_t)(v>>32), bo); }
}

/*
** The records of [iStart, iEnd) of pSrc (file iFile of the directory) into
** the staging buffer, each with its time. The walker reads pTrace->pSrc,
** which is pSrc while it runs. TL_OK or an error in pErr.
*/
static int dir_collect(TlTrace *pTrace, const PerfData *q, TlSource *pSrc, uint64_t iStart,
                       uint64_t iEnd, uint32_t iFile, const char *zName, DirBuild *d, TlErr *pErr){
  TlSource *pKeep = pTrace->pSrc;
  PerfWalk w;
  PerfRec r;
  RecInfo ri;
  int64_t tsPrev = INT64_MIN;
  int rc;
  pTrace->pSrc = pSrc;
  perf_walk_init(&w, pTrace, q->bo, iStart, iEnd, pErr);
  while( (rc = perf_walk_next(&w, &r))==TL_ROW ){
    DirRec *e;
    size_t n = 8 + r.body.n;
    if( n>0xffff ){ rc = tl_err_set(pErr, TL_ECORRUPT, r.iOff, "%s: a record over 64 KiB", zName); break; }
    if( (rc = dir_stage(d, n))!=TL_OK ) break;
    if( d->nRec==d->nRecAlloc ){
      size_t nNew = d->nRecAlloc ? d->nRecAlloc*2 : 4096;
      DirRec *aNew = realloc(d->aRec, nNew*sizeof(DirRec));
      if( aNew==0 ){ rc = TL_ENOMEM; break; }
      d->aRec = aNew;
      d->nRecAlloc = nNew;
    }
    if( rec_info(q, &r, &ri)==0 && ri.bTs ) tsPrev = ri.ts;
    e = &d->aRec[d->nRec];
    e->ts = tsPrev;
    e->iFile = iFile;
    e->iSeq = d->nRec++;
    e->iOff = d->nStage;
    e->n = (uint32_t)n;
    put_u32(d->aStage + d->nStage, r.type, q->bo);
    put_u16(d->aStage + d->nStage + 4, r.misc, q->bo);
    put_u16(d->aStage + d->nStage + 6, (uint16_t)n, q->bo);
    if( r.body.n ) memcpy(d->aStage + d->nStage + 8, r.body.a, r.body.n);
    d->nStage += n;
  }
  perf_walk_free(&w);
  pTrace->pSrc = pKeep;
  if( rc==TL_DONE ) return TL_OK;
  if( rc==TL_ELIMIT ){
    return tl_err_set(pErr, TL_ELIMIT, TL_NO_OFFSET, "perf data directory: more than %zu MiB of records "
                      "to merge in memory", PERF_DIR_MAX_BYTES>>20);
  }
  if( rc==TL_ENOMEM ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  return rc;
}

/* The numbers of the data.N files of zDir, sorted, into *paNum; their count, or -1. */
static int dir_parts(const char *zDir, long **paNum){
  DIR *pD = opendir(zDir);
  struct dirent *e;
  long *a = 0;
  int n = 0, i, j;
  *paNum = 0;
  if( pD==0 ) return -1;
  while( (e = readdir(pD))!=0 ){
    long k = dir_part_number(e->d_name);
    long *aNew;
    if( k<0 || n>=PERF_DIR_MAX_FILES ) continue;
    aNew = realloc(a, (size_t)(n+1)*sizeof(long));
    if( aNew==0 ){ free(a); closedir(pD); return -1; }
    a = aNew;
    a[n++] = k;
  }
  closedir(pD);
  for(i=1; i<n; i++){                             /* insertion sort: a few files */
    long v = a[i];
    for(j=i; j>0 && a[j-1]>v; j--) a[j] = a[j-1];
    a[j] = v;
  }
  *paNum = a;
  return n;
}

/*
** The image: DIR/data's bytes before its data section, the merged records,
** then its bytes after (features), the header's data size and the feature
** table's offsets moved by the change in size.
*/
static int dir_image(const PerfData *q, const uint8_t *aData, size_t nData, DirBuild *d,
                     uint8_t **paImg, size_t *pnImg, TlErr *pErr){
  uint64_t iOldEnd = q->iData + q->nData, nNew = 0, delta, iTab;
  size_t i, nImg, o;
  uint8_t *a;
  uint64_t aFeat[4];
  int k;
  for(i=0; i<d->nRec; i++) nNew += d->aRec[i].n;
  if( q->iData<104 ) return tl_err_set(pErr, TL_ECORRUPT, 40, "data: the data section starts inside the header");
  if( iOldEnd>nData || nData - iOldEnd > PERF_DIR_MAX_BYTES ) return tl_err_set(pErr, TL_ECORRUPT, 40, "data: bad data section");
  nImg = (size_t)q->iData + (size_t)nNew + (nData - (size_t)iOldEnd);
  a = malloc(nImg ? nImg : 1);
  if( a==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  memcpy(a, aData, (size_t)q->iData);
  o = (size_t)q->iData;
  for(i=0; i<d->nRec; i++){
    memcpy(a + o, d->aStage + d->aRec[i].iOff, d->aRec[i].n);
    o += d->aRec[i].n;
  }
  memcpy(a + o, aData + iOldEnd, nData - (size_t)iOldEnd);
  put_u64(a + 48, nNew, q->bo);
  delta = nNew - q->nData;                        /* modulo 2^64: offsets move either way */
  {
    TlBytes h = tl_bytes(aData, (size_t)q->iData, q->bo);   /* the header's feature bits */
    if( tl_bytes_skip(&h, 72) ){ free(a); return tl_err_set(pErr, TL_ECORRUPT, 72, "data: header cut short"); }
    for(k=0; k<4; k++) if( tl_bytes_u64e(&h, &aFeat[k]) ) aFeat[k] = 0;
  }
  iTab = q->iData + nNew;
  for(k=1; k<PF_MAX; k++){
    uint64_t fOff;
    if( !(aFeat[k/64] & ((uint64_t)1<<(k%64))) ) continue;
    TlBytes e;
    if( iTab + 16 > nImg ) break;
    e = tl_bytes(a + iTab, 16, q->bo);
    if( tl_bytes_u64e(&e, &fOff) ) break;
    if( fOff>=iOldEnd ) put_u64(a + iTab, fOff + delta, q->bo);
    iTab += 16;
  }
  *paImg = a;
  *pnImg = nImg;
  return TL_OK;
}

/* Warn of data.N missing between the first and the last there are. */
static void dir_warn_gaps(TlTrace *pTrace, const long *aNum, int nNum){
  int i;
  long nMissing = 0, iFirst = -1;
  for(i=0; i<nNum; i++){
    long iPrev = i ? aNum[i-1] : -1;
    if( aNum[i] > iPrev + 1 ){
      if( iFirst<0 ) iFirst = iPrev + 1;
      nMissing += aNum[i] - iPrev - 1;
    }
  }
  if( nMissing ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "perf data directory: %ld data.N file%s missing (the first: data.%ld): "
                  "the records of %s are not read", nMissing, nMissing==1 ? " is" : "s are", iFirst,
                  nMissing==1 ? "that thread" : "those threads");
  }
}

int perf_dir_open(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  char zDir[4096], zPath[4200];
  const char *zBase;
  PerfData *q = 0;
  TlSource *pData = 0, *pPart = 0, *pImg = 0;
  DirBuild d;
  long *aNum = 0;
  int nNum, i, rc;
  uint8_t *aImg = 0;
  size_t nImg = 0;
  memset(&d, 0, sizeof(d));
  if( pTrace->bDir ){
    if( (size_t)snprintf(zDir, sizeof(zDir), "%s", pTrace->zPath) >= sizeof(zDir) ) return TL_OK;
  }else if( dir_split(pTrace->zPath, zDir, sizeof(zDir), &zBase) || strcmp(zBase, PERF_DIR_DATA) ){
    return TL_OK;
  }
  snprintf(zPath, sizeof(zPath), "%s/" PERF_DIR_DATA, zDir);
  if( pTrace->bDir ){
    rc = tl_source_open(zPath, &pData, pErr);
    if( rc ) return rc;
  }else{
    pData = pTrace->pSrc;                         /* DIR/data given: is it a directory's? */
  }
  q = calloc(1, sizeof(*q));
  if( q==0 || perf_sym_init(pTrace, q) ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto dir_done; }
  pTrace->pSrc = pData;
  rc = perf_open_header(pTrace, q, pErr);
  if( rc ) goto dir_done;
  for(i=0; i<q->nFeat && q->aFeat[i].id!=PF_DIR_FORMAT; i++){}
  if( i==q->nFeat || q->bPipe ){
    if( pTrace->bDir ) rc = tl_err_set(pErr, TL_ECORRUPT, TL_NO_OFFSET, "%s has no HEADER_DIR_FORMAT: "
                                       "not a perf data directory's header", zPath);
    goto dir_done;                                /* DIR/data of no directory: read as it is */
  }
  nNum = dir_parts(zDir, &aNum);
  if( nNum<0 ){ rc = tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s: cannot list the directory", zDir); goto dir_done; }
  rc = dir_collect(pTrace, q, pData, q->iData, q->iData + q->nData, 0, PERF_DIR_DATA, &d, pErr);
  for(i=0; rc==TL_OK && i<nNum; i++){
    char zName[32];
    snprintf(zName, sizeof(zName), PERF_DIR_DATA ".%ld", aNum[i]);
    snprintf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
    rc = tl_source_open(zPath, &pPart, pErr);
    if( rc==TL_OK ) rc = dir_collect(pTrace, q, pPart, 0, pPart->nSize, (uint32_t)i+1, zName, &d, pErr);
    tl_source_close(pPart);
    pPart = 0;
  }
  if( rc ) goto dir_done;
  dir_warn_gaps(pTrace, aNum, nNum);
  if( d.nRec>1 ) qsort(d.aRec, d.nRec, sizeof(DirRec), cmp_dirrec);
  {
    TlWin w;                                      /* DIR/data whole: its header and features */
    TlBytes all;
    tl_win_init(&w, pData);
    rc = tl_win_get(&w, 0, (size_t)pData->nSize, q->bo, &all, pErr);
    if( rc==TL_OK && all.n!=pData->nSize ){
      rc = tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s/" PERF_DIR_DATA ": changed while it was read", zDir);
    }
    if( rc==TL_OK ) rc = dir_image(q, all.a, all.n, &d, &aImg, &nImg, pErr);
    tl_win_free(&w);
  }
  if( rc==TL_OK && tl_source_mem(aImg, nImg, 0, &pImg) ){
    rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( rc==TL_OK ){
    p->aImage = aImg;                             /* the image source borrows it */
    aImg = 0;
    tl_source_close(pData);                       /* DIR/data: read into the image */
    pTrace->pSrc = pImg;
    pData = 0;
  }
dir_done:
  if( pData ) pTrace->pSrc = pTrace->bDir ? 0 : pData;
  if( pData && pTrace->bDir ) tl_source_close(pData);
  free(aImg);
  free(aNum);
  free(d.aStage);
  free(d.aRec);
  perf_data_free(q);
  return rc;
}
