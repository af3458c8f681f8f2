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
** into one perf.data image (a record without a time keeps its place after
** the one before it in its file), laid out as DIR/data with that data
** section, so the rest of the reader sees one file. Rowids are offsets in
** that image. The records are read file by file, each through its own
** window, into a stage of max_memory/16 bytes; a trace whose records fit
** in it is merged there into an image in memory. Else each full stage is
** sorted and written to a temporary file as a run, and the runs are
** merged (k ways) into the image, a second temporary file read through
** windows as any trace: memory stays flat however large the directory.
** A data.N missing between others is a warning;
** DIR/data given alone reads the whole directory; DIR/data.N given alone
** is an error naming the directory.
*/
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_scan.h"

#define PERF_DIR_MAX_FILES 4096               /* data.N files */
#define PERF_DIR_MAX_BYTES ((uint64_t)1<<40)  /* bytes of records merged */
#define PERF_DIR_FANIN     16                 /* sorted runs merged at once */
#define PERF_DIR_RUN_BUF   ((size_t)128<<10)  /* bytes read at once from a run */
#define PERF_DIR_KEY       20                 /* a run's record key: ts, iFile, iSeq */
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
  size_t nStageMax;               /* bytes staged before a run is written */
  uint64_t iSeq;                  /* records read so far, every file */
  uint64_t nBytes;                /* bytes of records in all */
  int fdRuns;                     /* the runs written, or -1 */
  uint64_t *aRunEnd; size_t nRun, nRunAlloc;   /* where each run ends in it */
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

/* Room for n more staging bytes; TL_OK or TL_ENOMEM. */
static int dir_stage(DirBuild *d, size_t n){
  if( d->nStage + n > d->nStageAlloc ){
    size_t nNew = d->nStageAlloc ? d->nStageAlloc : (size_t)1<<16;
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

/* ---- temporary files: sorted runs, and the image ------------------------ */

/* Buffered appends to a temporary file. */
typedef struct DirOut DirOut;
struct DirOut {
  int fd;
  uint64_t iOff;                  /* where the buffer goes */
  uint8_t *a; size_t n, nAlloc;
};

/* n bytes at a written at iOff of fd. */
static int fd_write(int fd, uint64_t iOff, const uint8_t *a, size_t n, TlErr *pErr){
  size_t nDone = 0;
  while( nDone<n ){
    ssize_t w = pwrite(fd, a + nDone, n - nDone, (off_t)(iOff + nDone));
    if( w<=0 ){
      return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "perf data directory: cannot write a temporary file: %s",
                        w<0 ? strerror(errno) : "no space");
    }
    nDone += (size_t)w;
  }
  return TL_OK;
}

static int out_flush(DirOut *o, TlErr *pErr){
  int rc = fd_write(o->fd, o->iOff, o->a, o->n, pErr);
  o->iOff += o->n;
  o->n = 0;
  return rc;
}

static int out_put(DirOut *o, const void *a, size_t n, TlErr *pErr){
  int rc;
  if( o->a==0 ){
    o->nAlloc = (size_t)1<<20;
    o->a = malloc(o->nAlloc);
    if( o->a==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( n > o->nAlloc - o->n ){
    if( (rc = out_flush(o, pErr))!=TL_OK ) return rc;
    if( n > o->nAlloc ){                          /* large: written as it is */
      rc = fd_write(o->fd, o->iOff, a, n, pErr);
      o->iOff += n;
      return rc;
    }
  }
  memcpy(o->a + o->n, a, n);
  o->n += n;
  return TL_OK;
}

/* A record's key in a run: its time, file and order read. */
static void key_put(uint8_t *a, const DirRec *e){
  memcpy(a, &e->ts, 8);
  memcpy(a + 8, &e->iFile, 4);
  memcpy(a + 12, &e->iSeq, 8);
}

/* The staged records, sorted, as a run at the end of the runs file. */
static int dir_spill(DirBuild *d, TlErr *pErr){
  DirOut o;
  size_t i;
  int rc = TL_OK;
  if( d->nRec==0 ) return TL_OK;
  if( d->nRun==d->nRunAlloc ){
    size_t nNew = d->nRunAlloc ? d->nRunAlloc*2 : 64;
    uint64_t *aNew = realloc(d->aRunEnd, nNew*sizeof(uint64_t));
    if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    d->aRunEnd = aNew;
    d->nRunAlloc = nNew;
  }
  if( d->fdRuns<0 && (rc = tl_tmpfile("perf data directory", &d->fdRuns, pErr))!=TL_OK ) return rc;
  memset(&o, 0, sizeof(o));
  o.fd = d->fdRuns;
  o.iOff = d->nRun ? d->aRunEnd[d->nRun-1] : 0;
  if( d->nRec>1 ) qsort(d->aRec, d->nRec, sizeof(DirRec), cmp_dirrec);
  for(i=0; rc==TL_OK && i<d->nRec; i++){
    uint8_t aKey[PERF_DIR_KEY];
    key_put(aKey, &d->aRec[i]);
    rc = out_put(&o, aKey, PERF_DIR_KEY, pErr);
    if( rc==TL_OK ) rc = out_put(&o, d->aStage + d->aRec[i].iOff, d->aRec[i].n, pErr);
  }
  if( rc==TL_OK ) rc = out_flush(&o, pErr);
  free(o.a);
  if( rc ) return rc;
  d->aRunEnd[d->nRun++] = o.iOff;
  d->nStage = 0;
  d->nRec = 0;
  return TL_OK;
}

/*
** The records of [iStart, iEnd) of pSrc (file iFile of the directory) into
** the staging buffer, each with its time; a full stage is written as a run.
** The walker reads pTrace->pSrc, which is pSrc while it runs. TL_OK or an
** error in pErr.
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
    if( n > PERF_DIR_MAX_BYTES - d->nBytes ){ rc = TL_ELIMIT; break; }
    if( d->nStage + n > d->nStageMax || (d->nRec+1)*sizeof(DirRec) > d->nStageMax ){
      if( (rc = dir_spill(d, pErr))!=TL_OK ) break;
    }
    if( (rc = dir_stage(d, n))!=TL_OK ) break;
    if( d->nRec==d->nRecAlloc ){
      size_t nNew = d->nRecAlloc ? d->nRecAlloc*2 : 4096;
      DirRec *aNew = realloc(d->aRec, nNew*sizeof(DirRec));
      if( aNew==0 ){ rc = TL_ENOMEM; break; }
      d->aRec = aNew;
      d->nRecAlloc = nNew;
    }
    if( rec_info(q, &r, &ri)==0 && ri.bTs ) tsPrev = ri.ts;
    e = &d->aRec[d->nRec++];
    e->ts = tsPrev;
    e->iFile = iFile;
    e->iSeq = d->iSeq++;
    e->iOff = d->nStage;
    e->n = (uint32_t)n;
    put_u32(d->aStage + d->nStage, r.type, q->bo);
    put_u16(d->aStage + d->nStage + 4, r.misc, q->bo);
    put_u16(d->aStage + d->nStage + 6, (uint16_t)n, q->bo);
    if( r.body.n ) memcpy(d->aStage + d->nStage + 8, r.body.a, r.body.n);
    d->nStage += n;
    d->nBytes += n;
  }
  perf_walk_free(&w);
  pTrace->pSrc = pKeep;
  if( rc==TL_DONE ) return TL_OK;
  if( rc==TL_ELIMIT ){
    return tl_err_set(pErr, TL_ELIMIT, TL_NO_OFFSET, "perf data directory: more than %llu GiB of records "
                      "to merge", (unsigned long long)(PERF_DIR_MAX_BYTES>>30));
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
** DIR/data's bytes before its data section (the header's data size set to
** nNew) and after it (the features, their table's offsets moved by the
** change in size), as new copies *paHead (q->iData bytes) and *paTail.
*/
static int dir_head_tail(const PerfData *q, const uint8_t *aData, size_t nData, uint64_t nNew,
                         uint8_t **paHead, uint8_t **paTail, size_t *pnTail, TlErr *pErr){
  uint64_t iOldEnd = q->iData + q->nData, delta, aFeat[4];
  size_t nTail, iTab = 0;
  TlBytes h;
  int k;
  *paHead = *paTail = 0;
  if( q->iData<104 ) return tl_err_set(pErr, TL_ECORRUPT, 40, "data: the data section starts inside the header");
  if( iOldEnd>nData ) return tl_err_set(pErr, TL_ECORRUPT, 40, "data: bad data section");
  h = tl_bytes(aData, (size_t)q->iData, q->bo);   /* the header's feature bits */
  if( tl_bytes_skip(&h, 72) ) return tl_err_set(pErr, TL_ECORRUPT, 72, "data: header cut short");
  for(k=0; k<4; k++) if( tl_bytes_u64e(&h, &aFeat[k]) ) aFeat[k] = 0;
  nTail = nData - (size_t)iOldEnd;
  *paHead = malloc((size_t)q->iData);
  *paTail = malloc(nTail ? nTail : 1);
  if( *paHead==0 || *paTail==0 ){
    free(*paHead); free(*paTail);
    *paHead = *paTail = 0;
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  memcpy(*paHead, aData, (size_t)q->iData);
  memcpy(*paTail, aData + iOldEnd, nTail);
  put_u64(*paHead + 48, nNew, q->bo);
  delta = nNew - q->nData;                        /* modulo 2^64: offsets move either way */
  for(k=1; k<PF_MAX; k++){                        /* the feature table starts the tail */
    uint64_t fOff;
    TlBytes e;
    if( !(aFeat[k/64] & ((uint64_t)1<<(k%64))) ) continue;
    if( iTab + 16 > nTail ) break;
    e = tl_bytes(*paTail + iTab, 16, q->bo);
    if( tl_bytes_u64e(&e, &fOff) ) break;
    if( fOff>=iOldEnd ) put_u64(*paTail + iTab, fOff + delta, q->bo);
    iTab += 16;
  }
  *pnTail = nTail;
  return TL_OK;
}

/* A run being merged: its current record is the KEY+nRec bytes at a+i. */
typedef struct DirRun DirRun;
struct DirRun {
  uint64_t iOff, iEnd;            /* the run's bytes in its file not read yet */
  uint8_t *a; size_t i, n;        /* bytes read; [i, n) not used */
  size_t nRec;                    /* the current record's size, 0: none */
};

/* Read more of run r (what is left moved to the start). */
static int run_fill(int fd, DirRun *r, TlErr *pErr){
  memmove(r->a, r->a + r->i, r->n - r->i);
  r->n -= r->i;
  r->i = 0;
  while( r->n < PERF_DIR_RUN_BUF && r->iOff < r->iEnd ){
    size_t want = PERF_DIR_RUN_BUF - r->n;
    ssize_t got;
    if( want > r->iEnd - r->iOff ) want = (size_t)(r->iEnd - r->iOff);
    got = pread(fd, r->a + r->n, want, (off_t)r->iOff);
    if( got<0 && errno==EINTR ) continue;
    if( got<=0 ){
      return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "perf data directory: cannot read a temporary file: %s",
                        got<0 ? strerror(errno) : "cut short");
    }
    r->n += (size_t)got;
    r->iOff += (uint64_t)got;
  }
  return TL_OK;
}

/* Past run r's current record to its next: 1, 0 at the run's end, else an error. */
static int run_next(int fd, DirRun *r, int bo, TlErr *pErr){
  TlBytes b;
  uint16_t n = 0;
  int rc;
  r->i += r->nRec ? PERF_DIR_KEY + r->nRec : 0;
  r->nRec = 0;
  if( r->n - r->i < PERF_DIR_KEY + 8 && (rc = run_fill(fd, r, pErr))!=TL_OK ) return rc;
  if( r->n==r->i ) return 0;
  b = tl_bytes(r->a + r->i, r->n - r->i, bo);
  if( tl_bytes_skip(&b, PERF_DIR_KEY + 6) || tl_bytes_u16e(&b, &n) || n<8 ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "perf data directory: a temporary file is damaged");
  }
  if( r->n - r->i < PERF_DIR_KEY + (size_t)n && (rc = run_fill(fd, r, pErr))!=TL_OK ) return rc;
  if( r->n - r->i < PERF_DIR_KEY + (size_t)n ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "perf data directory: a temporary file is damaged");
  }
  r->nRec = n;
  return 1;
}

/* Is run x's current record before run y's? */
static int run_before(const DirRun *x, const DirRun *y){
  DirRec a, b;
  memcpy(&a.ts, x->a + x->i, 8); memcpy(&a.iFile, x->a + x->i + 8, 4); memcpy(&a.iSeq, x->a + x->i + 12, 8);
  memcpy(&b.ts, y->a + y->i, 8); memcpy(&b.iFile, y->a + y->i + 8, 4); memcpy(&b.iSeq, y->a + y->i + 12, 8);
  return cmp_dirrec(&a, &b) < 0;
}

/* Heap aHeap[0..n) of runs, the first record first: entry k moved down to its place. */
static void heap_down(const DirRun *aRun, size_t *aHeap, size_t n, size_t k){
  for(;;){
    size_t c = 2*k + 1, t;
    if( c>=n ) return;
    if( c+1<n && run_before(&aRun[aHeap[c+1]], &aRun[aHeap[c]]) ) c++;
    if( !run_before(&aRun[aHeap[c]], &aRun[aHeap[k]]) ) return;
    t = aHeap[c]; aHeap[c] = aHeap[k]; aHeap[k] = t;
    k = c;
  }
}

/*
** Merge runs [iFirst, iLast) of fd (run k ends at aEnd[k], starts where
** k-1 ends) into o in order: with bKeys each record keeps its key (the
** output is a run), else the records alone (the image's data section).
*/
static int dir_merge(int fd, const uint64_t *aEnd, size_t iFirst, size_t iLast, int bo, int bKeys,
                     DirOut *o, TlErr *pErr){
  size_t nRun = iLast - iFirst, nHeap = 0, k;
  DirRun *aRun = calloc(nRun ? nRun : 1, sizeof(DirRun));
  size_t *aHeap = malloc((nRun ? nRun : 1)*sizeof(size_t));
  uint64_t nOut = 0;
  int rc = aRun && aHeap ? TL_OK : tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  for(k=0; rc==TL_OK && k<nRun; k++){
    DirRun *r = &aRun[k];
    r->iOff = iFirst + k ? aEnd[iFirst + k - 1] : 0;
    r->iEnd = aEnd[iFirst + k];
    r->a = malloc(PERF_DIR_RUN_BUF);
    if( r->a==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); break; }
    rc = run_next(fd, r, bo, pErr);
    if( rc==1 ){ aHeap[nHeap++] = k; rc = TL_OK; }
  }
  for(k=nHeap; rc==TL_OK && k>0; k--) heap_down(aRun, aHeap, nHeap, k-1);
  while( rc==TL_OK && nHeap ){
    DirRun *r = &aRun[aHeap[0]];
    rc = out_put(o, r->a + r->i + (bKeys ? 0 : PERF_DIR_KEY), (bKeys ? PERF_DIR_KEY : 0) + r->nRec, pErr);
    if( rc==TL_OK && (++nOut & 4095)==0 ) rc = tl_poll(pErr);
    if( rc==TL_OK ) rc = run_next(fd, r, bo, pErr);
    if( rc==0 ) aHeap[0] = aHeap[--nHeap];
    if( rc>=0 ){ rc = TL_OK; heap_down(aRun, aHeap, nHeap, 0); }
  }
  for(k=0; aRun && k<nRun; k++) free(aRun[k].a);
  free(aRun);
  free(aHeap);
  return rc;
}

/* Merge d's runs PERF_DIR_FANIN at a time into longer ones until no more are left. */
static int dir_cascade(DirBuild *d, int bo, TlErr *pErr){
  while( d->nRun > PERF_DIR_FANIN ){
    size_t nNew = 0, k;
    uint64_t *aNew = malloc(((d->nRun + PERF_DIR_FANIN - 1)/PERF_DIR_FANIN)*sizeof(uint64_t));
    DirOut o;
    int rc;
    memset(&o, 0, sizeof(o));
    if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    rc = tl_tmpfile("perf data directory", &o.fd, pErr);
    for(k=0; rc==TL_OK && k<d->nRun; k+=PERF_DIR_FANIN){
      size_t iLast = d->nRun - k < PERF_DIR_FANIN ? d->nRun : k + PERF_DIR_FANIN;
      rc = dir_merge(d->fdRuns, d->aRunEnd, k, iLast, bo, 1, &o, pErr);
      if( rc==TL_OK ) rc = out_flush(&o, pErr);
      aNew[nNew++] = o.iOff;
    }
    free(o.a);
    if( rc ){
      free(aNew);
      if( o.fd>=0 ) close(o.fd);
      return rc;
    }
    close(d->fdRuns);
    free(d->aRunEnd);
    d->fdRuns = o.fd;
    d->aRunEnd = aNew;
    d->nRun = d->nRunAlloc = nNew;
  }
  return TL_OK;
}

/*
** The merged image as a source: in memory when no run was written (the
** records staged, sorted there), else a temporary file the runs are
** merged into. aHead/aTail: dir_head_tail()'s.
*/
static int dir_image(const PerfData *q, DirBuild *d, const uint8_t *aHead, const uint8_t *aTail,
                     size_t nTail, const char *zDir, TlSource **ppImg, uint8_t **paImg, TlErr *pErr){
  size_t nHead = (size_t)q->iData, i, o;
  DirOut out;
  int rc;
  *ppImg = 0;
  *paImg = 0;
  if( d->fdRuns<0 ){
    size_t nImg = nHead + (size_t)d->nBytes + nTail;
    uint8_t *a = malloc(nImg ? nImg : 1);
    if( a==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    if( d->nRec>1 ) qsort(d->aRec, d->nRec, sizeof(DirRec), cmp_dirrec);
    memcpy(a, aHead, nHead);
    for(i=0, o=nHead; i<d->nRec; i++){
      memcpy(a + o, d->aStage + d->aRec[i].iOff, d->aRec[i].n);
      o += d->aRec[i].n;
    }
    memcpy(a + o, aTail, nTail);
    if( tl_source_mem(a, nImg, 0, ppImg) ){
      free(a);
      return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
    *paImg = a;                                   /* the source borrows it */
    return TL_OK;
  }
  rc = dir_spill(d, pErr);
  if( rc==TL_OK ) rc = dir_cascade(d, q->bo, pErr);
  memset(&out, 0, sizeof(out));
  out.fd = -1;
  if( rc==TL_OK ) rc = tl_tmpfile("perf data directory", &out.fd, pErr);
  if( rc==TL_OK ) rc = out_put(&out, aHead, nHead, pErr);
  if( rc==TL_OK ) rc = dir_merge(d->fdRuns, d->aRunEnd, 0, d->nRun, q->bo, 0, &out, pErr);
  if( rc==TL_OK ) rc = out_put(&out, aTail, nTail, pErr);
  if( rc==TL_OK ) rc = out_flush(&out, pErr);
  free(out.a);
  if( rc ){
    if( out.fd>=0 ) close(out.fd);
    return rc;
  }
  return tl_source_fd(out.fd, zDir, ppImg, pErr);
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
  uint8_t *aImg = 0, *aHead = 0, *aTail = 0;
  size_t nTail = 0;
  memset(&d, 0, sizeof(d));
  d.fdRuns = -1;
  d.nStageMax = (size_t)(tl_trace_max_memory(pTrace)/16);
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
  {
    TlWin w;                                      /* DIR/data whole: its header and features */
    TlBytes all;
    tl_win_init(&w, pData);
    rc = tl_win_get(&w, 0, (size_t)pData->nSize, q->bo, &all, pErr);
    if( rc==TL_OK && all.n!=pData->nSize ){
      rc = tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s/" PERF_DIR_DATA ": changed while it was read", zDir);
    }
    if( rc==TL_OK ) rc = dir_head_tail(q, all.a, all.n, d.nBytes, &aHead, &aTail, &nTail, pErr);
    tl_win_free(&w);
  }
  if( rc==TL_OK ) rc = dir_image(q, &d, aHead, aTail, nTail, zDir, &pImg, &aImg, pErr);
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
  free(aHead);
  free(aTail);
  free(aNum);
  free(d.aStage);
  free(d.aRec);
  free(d.aRunEnd);
  if( d.fdRuns>=0 ) close(d.fdRuns);
  perf_data_free(q);
  return rc;
}
