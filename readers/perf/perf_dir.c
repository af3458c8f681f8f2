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
** The directory reads as one trace of several files, nothing copied: its
** files are laid end to end in one space of offsets (PerfPart), DIR/data
** first, then the data.N in the order of N, so a rowid (an offset in that
** space) names its file and its record. The index is built file by file,
** a chunk of each file's records a packet whose stream is its file
** (TlPacket.iStream, iFile); a scan in ts order is the engine's merge of
** one scan per file (xStreams), the tables derived from every record (the
** threads, sched_*) the merge of the files' walks by time (perf_merge.c).
** Every file is read through windows under the descriptor budget
** (tl_source_drop_fd). A data.N missing between others is a warning;
** DIR/data given alone reads the whole directory; DIR/data.N given alone
** is an error naming the directory.
*/
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_scan.h"

#define PERF_DIR_MAX_FILES 4096               /* data.N files */
#define PERF_DIR_MAX_BYTES ((uint64_t)1<<40)  /* bytes of all files (inner rowids
                                              ** hold offsets below 2^42) */
#define PERF_DIR_DATA      "data"

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

/* The next part of p, pSrc (file zName), at *piBase, which moves past it. */
static int dir_part_add(PerfData *p, TlSource *pSrc, const char *zName, uint64_t *piBase, TlErr *pErr){
  PerfPart *e = &p->aPart[p->nPart];
  if( pSrc->nSize > PERF_DIR_MAX_BYTES - *piBase ){
    tl_source_close(pSrc);
    return tl_err_set(pErr, TL_ELIMIT, TL_NO_OFFSET, "perf data directory: more than %llu GiB of files "
                      "(at %s)", (unsigned long long)(PERF_DIR_MAX_BYTES>>30), zName);
  }
  e->pSrc = pSrc;
  e->iBase = *piBase;
  e->iStart = *piBase;
  e->iEnd = *piBase + pSrc->nSize;
  *piBase = (e->iEnd + 7) & ~(uint64_t)7;
  p->nPart++;
  return TL_OK;
}

int perf_dir_open(TlTrace *pTrace, PerfData *p, TlErr *pErr){
  char zDir[4096], zPath[4200];
  const char *zBase;
  PerfData *q = 0;
  TlSource *pData = 0;
  long *aNum = 0;
  int nNum, i, rc;
  uint64_t iBase = 0;
  uint32_t iFile;
  if( pTrace->bDir ){
    if( (size_t)snprintf(zDir, sizeof(zDir), "%s", pTrace->zPath) >= sizeof(zDir) ) return TL_OK;
  }else if( dir_split(pTrace->zPath, zDir, sizeof(zDir), &zBase) || strcmp(zBase, PERF_DIR_DATA) ){
    return TL_OK;
  }
  snprintf(zPath, sizeof(zPath), "%s/" PERF_DIR_DATA, zDir);
  if( pTrace->bDir ){
    rc = tl_source_open(zPath, &pData, pErr);
    if( rc ) return rc;
    pTrace->pSrc = pData;                         /* the trace's from here on */
  }
  pData = pTrace->pSrc;
  q = calloc(1, sizeof(*q));
  if( q==0 || perf_sym_init(pTrace, q) ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto dir_done; }
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
  p->aPart = calloc((size_t)nNum + 1, sizeof(PerfPart));
  if( p->aPart==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto dir_done; }
  rc = dir_part_add(p, pData, PERF_DIR_DATA, &iBase, pErr);
  if( rc==TL_OK ) rc = tl_index_add_file(&pTrace->index, PERF_DIR_DATA, &iFile) ? TL_ENOMEM : TL_OK;
  for(i=0; rc==TL_OK && i<nNum; i++){
    char zName[32];
    TlSource *pPart = 0;
    snprintf(zName, sizeof(zName), PERF_DIR_DATA ".%ld", aNum[i]);
    snprintf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
    rc = tl_source_open(zPath, &pPart, pErr);
    if( rc ) break;
    if( tl_trace_mmap(pTrace) ) (void)tl_source_map(pPart);
    else tl_source_drop_fd(pPart);                /* windows open it: a budget of descriptors */
    rc = dir_part_add(p, pPart, zName, &iBase, pErr);
    if( rc==TL_OK && tl_index_add_file(&pTrace->index, zName, &iFile) ) rc = TL_ENOMEM;
  }
  if( rc==TL_ENOMEM ) rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( rc==TL_OK ) dir_warn_gaps(pTrace, aNum, nNum);
dir_done:
  free(aNum);
  perf_data_free(q);
  return rc;
}

void perf_dir_free(PerfData *p){
  int k;
  for(k=1; k<p->nPart; k++) tl_source_close(p->aPart[k].pSrc);   /* (0: the trace's) */
  free(p->aPart);
  p->aPart = 0;
  p->nPart = 0;
}

/* Part 0, DIR/data: its records are its data section (once the header is read). */
void perf_dir_data_section(PerfData *p){
  if( p->nPart ){
    p->aPart[0].iStart = p->iData;
    p->aPart[0].iEnd = p->iData + p->nData;
  }
}

int perf_part_of(const PerfData *p, uint64_t iOff){
  int lo = 0, hi = p->nPart;
  if( p->nPart==0 ) return -1;
  while( hi - lo > 1 ){
    int mid = lo + (hi - lo)/2;
    if( p->aPart[mid].iBase <= iOff ) lo = mid; else hi = mid;
  }
  return lo;
}

const char *perf_part_name(const TlTrace *pTrace, int k){
  return k>=0 && (size_t)k < pTrace->index.nFile ? pTrace->index.azFile[k] : 0;
}

void perf_warn_at(TlTrace *pTrace, const PerfData *p, uint64_t iOff, const char *zFmt, ...){
  char zMsg[400];
  int k = perf_part_of(p, iOff);
  va_list ap;
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof(zMsg), zFmt, ap);
  va_end(ap);
  if( iOff==TL_NO_OFFSET ) k = -1;
  tl_trace_warn(pTrace, perf_part_name(pTrace, k), k<0 ? iOff : iOff - p->aPart[k].iBase, "%s", zMsg);
}

int perf_ranges(const PerfData *p){
  return p->nPart ? p->nPart : 1;
}

void perf_range(const PerfData *p, int k, uint64_t *piStart, uint64_t *piEnd){
  if( p->nPart ){
    *piStart = p->aPart[k].iStart;
    *piEnd = p->aPart[k].iEnd;
  }else{
    *piStart = p->iData;
    *piEnd = p->iData + p->nData;
  }
}
