/*
** trace.c: trace opening, format detection, the trace cache, queries.
*/
#define _GNU_SOURCE 1
#include "trace.h"
#include "count.h"
#include "derive.h"
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "intern.h"
#include "num.h"
#include "progress.h"

#define TL_CACHE_KEEP   8         /* unreferenced traces kept for reuse */
#define TL_WARN_MAX  1000         /* warnings kept per trace */
#define TL_PROBE_BYTES 4096       /* bytes given to xProbe */
#define TL_MAX_MEMORY_MB_MAX 1048576 /* max_memory= at most 1 TiB */

const char *const tl_common_options[] = { "format", "max_memory", "progress", "accel", "clock", "mmap", 0 };

typedef struct TraceWarn TraceWarn;
struct TraceWarn {
  char *zFile;                    /* file within the trace or NULL */
  uint64_t iOff;                  /* byte offset or TL_NO_OFFSET */
  char *zMsg;                     /* the warning */
};

typedef struct TraceInternal TraceInternal;
struct TraceInternal {
  /* cache key */
  uint64_t dev, ino, size;
  int64_t mtimeSec, mtimeNsec;
  int64_t ctimeSec, ctimeNsec;    /* (a rewrite that kept the mtime) */
  char *zKeyOpts;                 /* canonical options */
  char *zKeyPath;                 /* path as given (part of the key: CTF dirs) */
  int nRef;                       /* references held by tables (cacheMutex) */
  int bUncached;                  /* not in the cache: the one reference frees it;
                                  ** set before the trace is shared, never changed */
  uint64_t iLastUse;              /* LRU clock */
  pthread_mutex_t mutex;          /* guards aWarn */
  pthread_mutex_t lazy;           /* a reader's lazy state (tl_trace_lock); may warn */
  TraceWarn *aWarn;               /* warnings */
  int nWarn;                      /* warnings used */
  int nWarnAlloc;                 /* warnings allocated */
  int nWarnDropped;               /* warnings over TL_WARN_MAX */
  TlTrace *pNext;                 /* next trace in the cache list */
};

static pthread_mutex_t cacheMutex = PTHREAD_MUTEX_INITIALIZER;
static TlTrace *pCache = 0;       /* cached traces, most recent first */
static uint64_t iCacheClock = 0;  /* LRU clock */

void tl_val_textz(TlVal *p, const char *z){
  if( z==0 ){ p->t = TL_NULL; return; }
  tl_val_text(p, z, strlen(z));
}

void tl_val_text_kept(TlVal *p, const char *z, size_t n){
  const char *zKept = tl_intern(z, n);
  tl_val_text(p, zKept ? zKept : z, n);
  p->bKept = zKept!=0;
}

void tl_val_str(TlVal *p, const TlStr *pStr){
  if( pStr->bErr || pStr->z==0 ){ p->t = TL_NULL; return; }
  tl_val_text(p, pStr->z, pStr->n);
}

static TraceInternal *internal(TlTrace *p){
  return (TraceInternal*)p->pInternal;
}

void tl_trace_lock(TlTrace *p){ pthread_mutex_lock(&internal(p)->lazy); }
void tl_trace_unlock(TlTrace *p){ pthread_mutex_unlock(&internal(p)->lazy); }

void tl_trace_warn(TlTrace *p, const char *zFile, uint64_t iOff,
                   const char *zFmt, ...){
  TraceInternal *pI = internal(p);
  char zMsg[512];
  va_list ap;
  int i;
  va_start(ap, zFmt);
  vsnprintf(zMsg, sizeof(zMsg), zFmt, ap);
  va_end(ap);
  pthread_mutex_lock(&pI->mutex);
  for(i=0; i<pI->nWarn; i++){
    TraceWarn *w = &pI->aWarn[i];
    if( w->iOff==iOff && strcmp(w->zMsg, zMsg)==0
     && ((w->zFile==0 && zFile==0) || (w->zFile && zFile && strcmp(w->zFile, zFile)==0)) ){
      pthread_mutex_unlock(&pI->mutex);
      return;
    }
  }
  if( pI->nWarn>=TL_WARN_MAX ){
    pI->nWarnDropped++;
  }else{
    if( pI->nWarn==pI->nWarnAlloc ){
      int nNew = pI->nWarnAlloc ? pI->nWarnAlloc*2 : 8;
      TraceWarn *aNew = realloc(pI->aWarn, (size_t)nNew*sizeof(TraceWarn));
      if( aNew ){ pI->aWarn = aNew; pI->nWarnAlloc = nNew; }
    }
    if( pI->nWarn<pI->nWarnAlloc ){
      TraceWarn *w = &pI->aWarn[pI->nWarn];
      w->zFile = zFile ? strdup(zFile) : 0;
      w->iOff = iOff;
      w->zMsg = strdup(zMsg);
      if( w->zMsg ) pI->nWarn++; else free(w->zFile);
    }
  }
  pthread_mutex_unlock(&pI->mutex);
}

const TlReaderDef *tl_reader_find(const char *zName){
  int i;
  for(i=0; tl_readers[i]; i++){
    if( strcmp(tl_readers[i]->zName, zName)==0 ) return tl_readers[i];
  }
  return 0;
}

/* Free a trace that nobody references. */
static void trace_free(TlTrace *p){
  TraceInternal *pI;
  int i;
  if( p==0 ) return;
  pI = internal(p);
  if( p->pReader && p->pReader->xClose && p->pData ) p->pReader->xClose(p->pData);
  tl_index_free(&p->index);
  tl_source_close(p->pSrc);
  tl_opts_free(&p->opts);
  free(p->zPath);
  if( pI ){
    for(i=0; i<pI->nWarn; i++){ free(pI->aWarn[i].zFile); free(pI->aWarn[i].zMsg); }
    free(pI->aWarn);
    free(pI->zKeyOpts);
    free(pI->zKeyPath);
    pthread_mutex_destroy(&pI->mutex);
    pthread_mutex_destroy(&pI->lazy);
    free(pI);
  }
  free(p);
}

/*
** Options that name a file the readers read whole (binary=, kallsyms=):
** it must be a regular file. Checked here, before any reader opens it, so
** that a FIFO (whose open would wait for a writer) or a device is an error
** naming the option and the file. A missing file is left to the reader.
*/
static int check_option_files(const TlOpts *pOpts, TlErr *pErr){
  static const char *const azFile[] = { "binary", "kallsyms", 0 };
  int i;
  for(i=0; azFile[i]; i++){
    const char *z = tl_opts_get(pOpts, azFile[i]);
    struct stat st;
    if( z==0 || stat(z, &st)!=0 || S_ISREG(st.st_mode) ) continue;
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "%s=%s: is %s, expected a regular file", azFile[i], z,
        S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
        : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
  }
  return TL_OK;
}

/* Check every option key against the common and the readers' lists. */
static int check_options(const TlOpts *pOpts, TlErr *pErr){
  int i, j, k, eMode, bAccel, bMap;
  uint64_t nMax;
  for(i=0; i<pOpts->n; i++){
    int bKnown = 0;
    const char *zKey = pOpts->azKey[i];
    for(j=0; tl_common_options[j] && !bKnown; j++){
      if( strcmp(tl_common_options[j], zKey)==0 ) bKnown = 1;
    }
    for(j=0; tl_readers[j] && !bKnown; j++){
      const char *const *az = tl_readers[j]->azOptions;
      for(k=0; az && az[k]; k++){
        if( strcmp(az[k], zKey)==0 ){ bKnown = 1; break; }
      }
    }
    if( !bKnown ){
      return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "unknown option \"%s\"", zKey);
    }
  }
  if( tl_progress_mode(tl_opts_get(pOpts, "progress"), &eMode) ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "progress=%s: expected auto, on or off", tl_opts_get(pOpts, "progress"));
  }
  if( tl_opts_onoff(pOpts, "accel", 1, &bAccel) ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "accel=%s: expected on or off", tl_opts_get(pOpts, "accel"));
  }
  if( tl_opts_clock(pOpts, &eMode) ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "clock=%s: expected monotonic or realtime", tl_opts_get(pOpts, "clock"));
  }
  if( tl_opts_onoff(pOpts, "mmap", 0, &bMap) ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "mmap=%s: expected on or off", tl_opts_get(pOpts, "mmap"));
  }
  if( tl_opts_uint(pOpts, "max_memory", 1, TL_MAX_MEMORY_MB_MAX,
                   TL_DEFAULT_MAX_MEMORY_MB, &nMax) ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "max_memory=%s: expected a whole number of MiB from 1 to %llu",
        tl_opts_get(pOpts, "max_memory"), (unsigned long long)TL_MAX_MEMORY_MB_MAX);
  }
  return check_option_files(pOpts, pErr);
}

/*
** The options of one query rather than of the opened trace: progress=
** changes only what is reported on stderr, accel= only how a scan goes
** about its rows. Neither is part of the cache key, so that asking for
** progress or a plain scan on a trace already open does not open and index
** it again.
*/
static int is_query_option(const char *zKey){
  return strcmp(zKey, "progress")==0 || strcmp(zKey, "accel")==0;
}

/* The options that identify an opened trace in the cache (malloc'd). */
static char *trace_key_options(const TlOpts *pOpts){
  TlOpts key = *pOpts;            /* borrows the strings: not freed */
  int i, j;
  for(i=j=0; i<pOpts->n; i++){
    if( is_query_option(pOpts->azKey[i]) ) continue;
    key.azKey[j] = pOpts->azKey[i];
    key.azVal[j] = pOpts->azVal[i];
    j++;
  }
  key.n = j;
  return tl_opts_canonical(&key);
}

int tl_trace_opts_progress(const TlOpts *pOpts){
  int eMode = TL_PROGRESS_AUTO;
  if( tl_progress_mode(tl_opts_get(pOpts, "progress"), &eMode) ) eMode = TL_PROGRESS_AUTO;
  return eMode;
}

int tl_trace_opts_plain(const TlOpts *pOpts){
  int bAccel = 1;
  if( tl_opts_onoff(pOpts, "accel", 1, &bAccel) ) bAccel = 1;
  return !bAccel;
}

/*
** The index in tl_readers of the reader most confident that a[0..n) (the
** head of the file zPath, or nothing when bDir) is its own, or -1.
*/
static int probe_best(const uint8_t *a, size_t n, const char *zPath, int bDir){
  int i, iBest = -1, nBest = 0;
  for(i=0; tl_readers[i]; i++){
    int nConf = tl_readers[i]->xProbe(a, n, zPath, bDir);
    if( nConf>nBest ){ nBest = nConf; iBest = i; }
  }
  return iBest;
}

const char *tl_trace_sniff(const char *zPath){
  struct stat st;
  uint8_t aHead[TL_PROBE_BYTES];
  size_t nHead = 0;
  int iBest, fd;
  if( zPath==0 || stat(zPath, &st) ) return 0;
  if( S_ISDIR(st.st_mode) ){
    iBest = probe_best(0, 0, zPath, 1);
  }else{
    if( !S_ISREG(st.st_mode) ) return 0;  /* a FIFO would be consumed */
    fd = open(zPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if( fd<0 ) return 0;
    while( nHead<sizeof(aHead) ){
      ssize_t nRead = read(fd, aHead+nHead, sizeof(aHead)-nHead);
      if( nRead<0 && errno==EINTR ) continue;
      if( nRead<=0 ) break;
      nHead += (size_t)nRead;
    }
    close(fd);
    if( nHead==0 ) return 0;
    iBest = probe_best(aHead, nHead, zPath, 0);
  }
  return iBest<0 ? 0 : tl_readers[iBest]->zName;
}

/* Pick the reader: format= or the most confident probe. */
static int choose_reader(TlTrace *p, TlErr *pErr){
  const char *zFormat = tl_opts_get(&p->opts, "format");
  const uint8_t *aHead = 0;
  size_t nHead = 0;
  int iBest = -1;
  if( zFormat ){
    p->pReader = tl_reader_find(zFormat);
    if( p->pReader==0 ){
      return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "unknown format \"%s\"", zFormat);
    }
    return TL_OK;
  }
  if( p->pSrc ){
    TlWin w;
    TlBytes b;
    int rc;
    tl_win_init(&w, p->pSrc);
    rc = tl_win_get(&w, 0, TL_PROBE_BYTES, TL_LE, &b, pErr);
    if( rc ){ tl_win_free(&w); return rc; }
    aHead = b.a;
    nHead = b.n;
    iBest = probe_best(aHead, nHead, p->zPath, 0);
    tl_win_free(&w);
  }else{
    iBest = probe_best(0, 0, p->zPath, 1);
  }
  if( iBest<0 ){
    if( p->pSrc && p->pSrc->nSize==0 ){
      return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
                        "empty file: not a trace in a format tracelite reads");
    }
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "not a trace in a format tracelite reads (CTF, perf.data, XRay, CPEL)");
  }
  p->pReader = tl_readers[iBest];
  return TL_OK;
}

/* Open a trace without the cache. */
static int trace_open_uncached(const char *zPath, const TlOpts *pOpts,
                               const struct stat *pSt, TlSource *pMemSrc,
                               int iTable, uint64_t mCols, TlTrace **ppTrace, TlErr *pErr){
  TlTrace *p;
  TraceInternal *pI;
  int rc = TL_OK;
  int i;
  *ppTrace = 0;
  p = calloc(1, sizeof(*p));
  pI = calloc(1, sizeof(*pI));
  if( p==0 || pI==0 ){
    free(p); free(pI);
    tl_source_close(pMemSrc);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  p->pInternal = pI;
  pthread_mutex_init(&pI->mutex, 0);
  pthread_mutex_init(&pI->lazy, 0);
  tl_index_init(&p->index);
  tl_opts_init(&p->opts);
  p->pSrc = pMemSrc;              /* owned from here on, even on error */
  p->zPath = strdup(zPath);
  if( p->zPath==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto open_error; }
  for(i=0; i<pOpts->n && rc==TL_OK; i++){
    if( tl_opts_set(&p->opts, pOpts->azKey[i], pOpts->azVal[i]) ){
      rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  if( rc ) goto open_error;
  pI->dev = (uint64_t)pSt->st_dev;
  pI->ino = (uint64_t)pSt->st_ino;
  pI->size = (uint64_t)pSt->st_size;
  pI->mtimeSec = (int64_t)pSt->st_mtim.tv_sec;
  pI->mtimeNsec = (int64_t)pSt->st_mtim.tv_nsec;
  pI->ctimeSec = (int64_t)pSt->st_ctim.tv_sec;
  pI->ctimeNsec = (int64_t)pSt->st_ctim.tv_nsec;
  pI->zKeyOpts = trace_key_options(pOpts);
  pI->zKeyPath = strdup(zPath);
  if( pI->zKeyOpts==0 || pI->zKeyPath==0 ){
    rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    goto open_error;
  }
  if( pMemSrc ){
    p->pSrc = pMemSrc;
  }else if( S_ISDIR(pSt->st_mode) ){
    p->bDir = 1;
  }else{
    rc = tl_source_open_stream(zPath, &p->pSrc, pErr);
    if( rc ) goto open_error;
    if( tl_trace_mmap(p) ) (void)tl_source_map(p->pSrc);
  }
  rc = choose_reader(p, pErr);
  if( rc ) goto open_error;
  p->mOrdered = p->pReader->mOrdered;
  {
    TlProgress prog, *pPrev;
    int eMode = TL_PROGRESS_OFF;
    if( !pMemSrc ) tl_progress_mode(tl_opts_get(pOpts, "progress"), &eMode);
    pPrev = tl_progress_begin(&prog, eMode, "indexing", zPath, p->pSrc ? p->pSrc->nSize : 0);
    /* a directory's size is a walk of it: only when it will be shown */
    if( p->pSrc==0 && prog.eMode!=TL_PROGRESS_OFF ) prog.nTotal = tl_path_size(zPath);
    p->iOpenTable = iTable;
    p->mOpenCols = mCols;
    rc = p->pReader->xOpen(p, pErr);
    p->iOpenTable = -1;             /* (only the opening query's) */
    p->mOpenCols = 0;
    if( rc==TL_OK ) prog.nDone = prog.nTotal;   /* headers and trailers too */
    tl_progress_end(&prog, pPrev);
  }
  if( rc ) goto open_error;
  {
    int eClock;
    if( tl_opts_clock(pOpts, &eClock)==TL_OK && eClock!=TL_CLOCK_TRACE && !p->bClockDone ){
      tl_trace_warn(p, 0, TL_NO_OFFSET, "clock=%s: a %s trace says nothing that relates its"
                    " clock to CLOCK_%s: ts stays on the trace's clock", tl_opts_get(pOpts, "clock"),
                    p->pReader->zName, eClock==TL_CLOCK_MONOTONIC ? "MONOTONIC" : "REALTIME");
    }
  }
  if( p->nEventsHint==0 ){
    uint64_t n = tl_index_events(&p->index);
    if( n!=TL_UNKNOWN ) p->nEventsHint = n;
  }
  *ppTrace = p;
  return TL_OK;

open_error:
  trace_free(p);
  return rc;
}

/* Evict unreferenced traces beyond TL_CACHE_KEEP. Caller holds cacheMutex. */
static void cache_trim(int nKeep){
  for(;;){
    TlTrace *p, *pOld = 0;
    int nIdle = 0;
    for(p=pCache; p; p=internal(p)->pNext){
      if( internal(p)->nRef==0 ){
        nIdle++;
        if( pOld==0 || internal(p)->iLastUse < internal(pOld)->iLastUse ) pOld = p;
      }
    }
    if( nIdle<=nKeep || pOld==0 ) return;
    {
      TlTrace **pp;
      for(pp=&pCache; *pp; pp=&internal(*pp)->pNext){
        if( *pp==pOld ){ *pp = internal(pOld)->pNext; break; }
      }
    }
    trace_free(pOld);
  }
}

static TlTrace *cache_find(const struct stat *pSt, const char *zPath,
                           const char *zKeyOpts){
  TlTrace *p;
  for(p=pCache; p; p=internal(p)->pNext){
    TraceInternal *pI = internal(p);
    if( pI->dev==(uint64_t)pSt->st_dev && pI->ino==(uint64_t)pSt->st_ino
     && pI->size==(uint64_t)pSt->st_size
     && pI->mtimeSec==(int64_t)pSt->st_mtim.tv_sec
     && pI->mtimeNsec==(int64_t)pSt->st_mtim.tv_nsec
     && pI->ctimeSec==(int64_t)pSt->st_ctim.tv_sec
     && pI->ctimeNsec==(int64_t)pSt->st_ctim.tv_nsec
     && strcmp(pI->zKeyOpts, zKeyOpts)==0
     && (!S_ISDIR(pSt->st_mode) || strcmp(pI->zKeyPath, zPath)==0) ){
      return p;
    }
  }
  return 0;
}

int tl_trace_open_opts(const char *zPath, const TlOpts *pOpts,
                       TlTrace **ppTrace, TlErr *pErr){
  return tl_trace_open_for(zPath, pOpts, -1, 0, ppTrace, pErr);
}

int tl_trace_open_for(const char *zPath, const TlOpts *pOpts, int iTable, uint64_t mCols,
                      TlTrace **ppTrace, TlErr *pErr){
  struct stat st;
  char *zKeyOpts;
  TlTrace *p, *pOther;
  int rc;
  int bCache;
  *ppTrace = 0;
  rc = check_options(pOpts, pErr);
  if( rc ) return rc;
  if( zPath==0 || zPath[0]==0 ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "no trace path given");
  }
  if( stat(zPath, &st) ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "cannot open: %s", strerror(errno));
  }
  /* Only regular files and directories can be cached: a FIFO is read once. */
  bCache = S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
  zKeyOpts = trace_key_options(pOpts);
  if( zKeyOpts==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( bCache ){
    pthread_mutex_lock(&cacheMutex);
    p = cache_find(&st, zPath, zKeyOpts);
    if( p ){
      internal(p)->nRef++;
      internal(p)->iLastUse = ++iCacheClock;
      pthread_mutex_unlock(&cacheMutex);
      free(zKeyOpts);
      *ppTrace = p;
      return TL_OK;
    }
    pthread_mutex_unlock(&cacheMutex);
  }
  /* Open outside the lock: a large index build must not stall other traces. */
  rc = trace_open_uncached(zPath, pOpts, &st, 0, iTable, mCols, &p, pErr);
  if( rc ){ free(zKeyOpts); return rc; }
  internal(p)->nRef = 1;
  if( bCache ){
    pthread_mutex_lock(&cacheMutex);
    pOther = cache_find(&st, zPath, zKeyOpts);
    if( pOther ){
      /* Another thread opened it meanwhile: use theirs. */
      internal(pOther)->nRef++;
      internal(pOther)->iLastUse = ++iCacheClock;
      pthread_mutex_unlock(&cacheMutex);
      trace_free(p);
      free(zKeyOpts);
      *ppTrace = pOther;
      return TL_OK;
    }
    internal(p)->iLastUse = ++iCacheClock;
    internal(p)->pNext = pCache;
    pCache = p;
    cache_trim(TL_CACHE_KEEP);
    pthread_mutex_unlock(&cacheMutex);
  }else{
    internal(p)->bUncached = 1;   /* a FIFO: freed on release */
  }
  free(zKeyOpts);
  *ppTrace = p;
  return TL_OK;
}

int tl_trace_open(const char *zPath, const char *zOptions, TlTrace **ppTrace,
                  TlErr *pErr){
  TlOpts opts;
  int rc;
  tl_opts_init(&opts);
  rc = tl_opts_parse(&opts, zOptions, pErr);
  if( rc==TL_OK ) rc = tl_trace_open_opts(zPath, &opts, ppTrace, pErr);
  tl_opts_free(&opts);
  return rc;
}

int tl_trace_open_mem(const void *a, size_t n, const char *zOptions,
                      TlTrace **ppTrace, TlErr *pErr){
  TlOpts opts;
  TlSource *pSrc = 0;
  struct stat st;
  int rc;
  *ppTrace = 0;
  tl_opts_init(&opts);
  rc = tl_opts_parse(&opts, zOptions, pErr);
  if( rc==TL_OK ) rc = check_options(&opts, pErr);
  if( rc==TL_OK && tl_source_mem(a, n, 0, &pSrc) ){
    rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( rc==TL_OK ){
    memset(&st, 0, sizeof(st));
    st.st_mode = S_IFREG;
    st.st_size = (off_t)n;
    rc = trace_open_uncached("memory", &opts, &st, pSrc, -1, 0, ppTrace, pErr);
    if( rc==TL_OK ) internal(*ppTrace)->bUncached = 1;
  }
  tl_opts_free(&opts);
  return rc;
}

void tl_trace_release(TlTrace *p){
  if( p==0 ) return;
  if( internal(p)->bUncached ){   /* the only reference */
    trace_free(p);
    return;
  }
  pthread_mutex_lock(&cacheMutex);
  internal(p)->nRef--;
  cache_trim(TL_CACHE_KEEP);
  pthread_mutex_unlock(&cacheMutex);
}

void tl_trace_cache_clear(void){
  pthread_mutex_lock(&cacheMutex);
  cache_trim(0);
  pthread_mutex_unlock(&cacheMutex);
}

/*
** When the extension is unloaded (sqlite3_close of the last connection that
** loaded it, or process exit), free what the cache still holds: the
** mapping and its memory would otherwise outlive the code that owns them.
*/
__attribute__((destructor)) static void trace_cache_unload(void){
  tl_trace_cache_clear();
}

int tl_trace_cache_count(void){
  TlTrace *p;
  int n = 0;
  pthread_mutex_lock(&cacheMutex);
  for(p=pCache; p; p=internal(p)->pNext) n++;
  pthread_mutex_unlock(&cacheMutex);
  return n;
}

double tl_trace_estimate(TlTrace *p){
  double n = p->nEventsHint ? (double)p->nEventsHint : 1e6;
  return n<1 ? 1 : n;
}

/* ---- queries ---------------------------------------------------------- */

struct TlQuery {
  TlTrace *pTrace;                /* the trace (reference held by the caller) */
  int iTable;                     /* TL_TAB_* */
  TlFilter filter;                /* copy of the filter (aCpu borrowed) */
  TlScan *pScan;                  /* reader scan, or NULL for built-in tables */
  TlCount *pCount;                /* or a counted scan (count.h) */
  TlMerge *pMerge;                /* or the merge of stream scans (merge.h) */
  TlDerive *pDerive;              /* or a derived table's rows (derive.h) */
  size_t i;                       /* next packet / warning (built-in tables) */
  TlVal aVal[TL_MAX_NCOL];        /* the current row's values */
  int nCol;                       /* the table's columns (of aVal) */
  TlErr err;                      /* built-in tables' error */
  char *zTmp;                     /* built-in tables: text of the current row */
  TlProgress progress;            /* the scan's progress report */
  int bProgress;                  /* progress is begun (ended at close) */
  TlStr info;                     /* trace_info: the rows, packed (info_add) */
  size_t iInfo;                   /* trace_info: offset of the next row in info */
};

int tl_table_ncol(int iTable){
  static const int aN[TL_TAB_COUNT] = {
    [TL_TAB_EVENTS] = TL_EV_NCOL, [TL_TAB_TRACKS] = TL_TR_NCOL,
    [TL_TAB_SYMBOLS] = TL_SY_NCOL, [TL_TAB_EVENT_TYPES] = TL_ET_NCOL,
    [TL_TAB_PACKETS] = TL_PK_NCOL, [TL_TAB_PERF_FEATURES] = TL_PF_NCOL,
    [TL_TAB_XRAY_FUNCTIONS] = TL_XF_NCOL, [TL_TAB_CALLCHAINS] = TL_CC_NCOL,
    [TL_TAB_XRAY_CALLS] = TL_XC_NCOL, [TL_TAB_WARNINGS] = TL_TW_NCOL,
    [TL_TAB_SCHED_SLICES] = TL_SS_NCOL, [TL_TAB_THREAD_STATES] = TL_TS_NCOL,
    [TL_TAB_TRACE_INFO] = TL_TI_NCOL,
    [TL_TAB_CALLS] = TL_XC_NCOL,
    [TL_TAB_SYSCALLS] = TL_SC_NCOL,
    [TL_TAB_SCHED_THREADS] = TL_ST_NCOL,
    [TL_TAB_SYSCALL_STATS] = TL_SX_NCOL,
    [TL_TAB_CALL_STATS] = TL_CS_NCOL,
    [TL_TAB_CALL_STACKS] = TL_CK_NCOL,
  };
  return iTable>=0 && iTable<TL_TAB_COUNT && aN[iTable]>0 ? aN[iTable] : TL_MAX_NCOL;
}

/* ---- clock=: the trace's ts shift ------------------------------------- */

/* Is column iCol of table iTable a ts (ns on the trace's clock)? */
static int is_ts_col(int iTable, int iCol){
  switch( iTable ){
    case TL_TAB_EVENTS:     return iCol==TL_EV_TS;
    case TL_TAB_CALLCHAINS: return iCol==TL_CC_TS;
    case TL_TAB_XRAY_CALLS: return iCol==TL_XC_TS;
    case TL_TAB_CALLS:      return iCol==TL_XC_TS;
    case TL_TAB_TRACKS:     return iCol==TL_TR_FIRST_TS || iCol==TL_TR_LAST_TS;
    case TL_TAB_PACKETS:    return iCol==TL_PK_TS_BEGIN || iCol==TL_PK_TS_END;
    default:                return 0;
  }
}

/* The first ts column of a table of nCol columns (its order), or -1. */
static int ts_col(int iTable, int nCol){
  int j;
  for(j=0; j<nCol; j++) if( is_ts_col(iTable, j) ) return j;
  return -1;
}

/* The row's ts values moved by the trace's shift (clock=). */
static void shift_row(const TlQuery *q, TlVal *a){
  int j;
  for(j=0; j<q->nCol; j++){
    if( a[j].t==TL_INT && is_ts_col(q->iTable, j) ) a[j].i = tl_add_sat(a[j].i, q->pTrace->tsShift);
  }
}

/* The filter's ts window moved back onto the trace's own clock. */
static void shift_filter(TlFilter *f, int64_t d){
  if( f->tsLo!=TL_TS_MIN ) f->tsLo = tl_add_sat(f->tsLo, -d);
  if( f->tsHi!=TL_TS_MAX ) f->tsHi = tl_add_sat(f->tsHi, -d);
}

void tl_trace_reader_filter(const TlTrace *p, TlFilter *f){
  if( p->tsShift ) shift_filter(f, p->tsShift);
}

/*
** trace_info rows are kept packed in one string, each as: a flag byte
** ('t' trace given, '-' none; then 'i' integer, 's' text, '0' NULL), then
** trace, key, value (an integer as decimal), source, each NUL-terminated.
*/
static int info_add(void *pCtx, const TlInfo *p){
  TlStr *s = pCtx;
  char zNum[32];
  const char *zVal = "";
  char f = '0';
  size_t nVal = 0;
  if( p->val.t==TL_INT ){
    snprintf(zNum, sizeof(zNum), "%lld", (long long)p->val.i);
    zVal = zNum; nVal = strlen(zNum); f = 'i';
  }else if( p->val.t==TL_TEXT ){
    zVal = p->val.z; nVal = p->val.n; f = 's';
    if( memchr(zVal, 0, nVal) ) nVal = strlen(zVal);
  }
  tl_str_append(s, p->zTrace ? "t" : "-", 1);
  tl_str_append(s, &f, 1);
  tl_str_appendz(s, p->zTrace ? p->zTrace : ""); tl_str_append(s, "", 1);
  tl_str_appendz(s, p->zKey); tl_str_append(s, "", 1);
  tl_str_append(s, zVal, nVal); tl_str_append(s, "", 1);
  tl_str_appendz(s, p->zSource ? p->zSource : ""); tl_str_append(s, "", 1);
  return s->bErr ? TL_ENOMEM : TL_OK;
}

/* The next trace_info row from q->info. */
static __attribute__((noinline)) int query_next_info(TlQuery *q, TlRow *pRow){
  TlVal *a = q->aVal;
  const char *z;
  int j;
  if( q->iInfo >= q->info.n ) return TL_DONE;
  z = q->info.z + q->iInfo;
  for(j=0; j<TL_TI_NCOL; j++) tl_val_null(&a[j]);
  tl_val_int(&a[TL_TI_ID], (int64_t)q->i);
  if( z[0]=='t' ) tl_val_textz(&a[TL_TI_TRACE], z+2);
  z += 2 + strlen(z+2) + 1;
  tl_val_textz(&a[TL_TI_KEY], z);
  z += strlen(z) + 1;
  if( q->info.z[q->iInfo+1]=='i' ) tl_val_int(&a[TL_TI_VALUE], strtoll(z, 0, 10));
  else if( q->info.z[q->iInfo+1]=='s' ) tl_val_textz(&a[TL_TI_VALUE], z);
  z += strlen(z) + 1;
  if( z[0] ) tl_val_textz(&a[TL_TI_SOURCE], z);
  z += strlen(z) + 1;
  q->iInfo = (size_t)(z - q->info.z);
  pRow->iRowid = (int64_t)q->i;
  pRow->a = a;
  q->i++;
  return TL_ROW;
}

/* Collect the trace's trace_info rows into q->info. */
static int query_open_info(TlQuery *q, TlErr *pErr){
  const TlReaderDef *r = q->pTrace->pReader;
  int rc;
  tl_str_init(&q->info);
  if( r->xInfo==0 ) return TL_OK;
  rc = r->xInfo(q->pTrace, info_add, &q->info, pErr);
  if( rc==TL_ENOMEM || q->info.bErr ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  return rc;
}

int tl_query_open(TlTrace *pTrace, int iTable, const TlFilter *pFilter,
                  TlQuery **ppQuery, TlErr *pErr){
  TlQuery *q = calloc(1, sizeof(*q));
  int rc = TL_OK;
  *ppQuery = 0;
  if( q==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  rc = tl_source_check(pTrace->pSrc, pErr);
  if( rc ){ free(q); return rc; }
  q->pTrace = pTrace;
  q->nCol = tl_table_ncol(iTable);
  q->iTable = iTable;
  q->filter = *pFilter;
  tl_trace_reader_filter(pTrace, &q->filter);
  pFilter = &q->filter;
  tl_err_clear(&q->err);
  if( iTable==TL_TAB_TRACE_INFO ){
    rc = query_open_info(q, pErr);
    if( rc ){ tl_str_free(&q->info); free(q); return rc; }
  }else if( tl_derive_is(iTable) ){
    rc = tl_derive_open(pTrace, iTable, pFilter, &q->pDerive, pErr);
    if( rc ){ free(q); return rc; }
  }else if( iTable!=TL_TAB_PACKETS && iTable!=TL_TAB_WARNINGS ){
    /* The scan reports the packets it decodes (tl_packet_note_read), out
    ** of all the index holds, while xScanOpen and tl_query_next run. */
    TlProgress *pPrev = 0;
    int eMode = pFilter->eProgress;
    if( eMode!=TL_PROGRESS_OFF ){
      uint64_t nTotal = 0;
      size_t k;
      for(k=0; k<pTrace->index.n; k++) nTotal += pTrace->index.a[k].nSize;
      pPrev = tl_progress_begin(&q->progress, eMode, "scanning", pTrace->zPath, nTotal);
      q->bProgress = 1;
    }
    rc = tl_count_open(pTrace, iTable, q->nCol, pFilter, &q->pCount, pErr);
    if( rc==TL_DONE ){
      rc = tl_merge_open(pTrace, iTable, q->nCol, ts_col(iTable, q->nCol), pFilter,
                         &q->pMerge, pErr);
    }
    if( rc==TL_DONE ) rc = pTrace->pReader->xScanOpen(pTrace, iTable, pFilter, &q->pScan, pErr);
    if( q->bProgress && q->progress.eMode==TL_PROGRESS_OFF ){
      /* nothing will be shown (auto, stderr not a terminal): no report to
      ** switch to around every row */
      tl_progress_end(&q->progress, pPrev);
      q->bProgress = 0;
    }
    if( q->bProgress ){
      if( rc==TL_OK ){
        tl_progress_swap(pPrev);    /* current again while tl_query_next runs */
      }else{
        tl_progress_end(&q->progress, pPrev);
        q->bProgress = 0;
      }
    }
    if( rc==TL_DONE ){ q->pScan = 0; q->i = SIZE_MAX; rc = TL_OK; }
    if( rc ) tl_count_close(q->pCount);
    if( rc ){ free(q); return rc; }
  }
  *ppQuery = q;
  return TL_OK;
}

/* The packets table, straight from the index. */
static __attribute__((noinline)) int query_next_packet(TlQuery *q, TlRow *pRow){
  const TlIndex *pIdx = &q->pTrace->index;
  const TlPacket *p;
  TlVal *a = q->aVal;
  int j;
  while( q->i < pIdx->n ){
    p = &pIdx->a[q->i];
    if( q->filter.bRowid && (int64_t)q->i!=q->filter.iRowid ){ q->i++; continue; }
    break;
  }
  if( q->i >= pIdx->n ) return TL_DONE;
  p = &pIdx->a[q->i];
  for(j=0; j<TL_PK_NCOL; j++) tl_val_null(&a[j]);
  tl_val_int(&a[TL_PK_ID], (int64_t)q->i);
  if( p->iStream>=0 ) tl_val_int(&a[TL_PK_STREAM], p->iStream);
  if( p->iCpu>=0 ) tl_val_int(&a[TL_PK_CPU], p->iCpu);
  if( p->iFile < pIdx->nFile ) tl_val_textz(&a[TL_PK_FILE], pIdx->azFile[p->iFile]);
  tl_val_int(&a[TL_PK_OFFSET], (int64_t)p->iOff);
  tl_val_int(&a[TL_PK_SIZE], (int64_t)p->nSize);
  tl_val_int(&a[TL_PK_CONTENT_SIZE], (int64_t)p->nContent);
  /* (an empty range, begin past end: none of its events has a time) */
  if( p->tsBegin!=TL_TS_MIN && p->tsBegin<=p->tsEnd ) tl_val_int(&a[TL_PK_TS_BEGIN], p->tsBegin);
  if( p->tsEnd!=TL_TS_MAX && p->tsBegin<=p->tsEnd ) tl_val_int(&a[TL_PK_TS_END], p->tsEnd);
  if( p->nEvents!=TL_UNKNOWN ) tl_val_int(&a[TL_PK_EVENTS], (int64_t)p->nEvents);
  if( p->nDiscarded!=TL_UNKNOWN ) tl_val_int(&a[TL_PK_DISCARDED], (int64_t)p->nDiscarded);
  if( p->iSeq>=0 ) tl_val_int(&a[TL_PK_SEQ], p->iSeq);
  if( tl_col_used(&q->filter, TL_PK_ARGS) ){
    TlStr s;
    int c;
    tl_str_init(&s);
    tl_json_obj_begin(&s);
    if( p->mCpu ){
      tl_json_key(&s, "cpus");
      tl_json_arr_begin(&s);
      for(c=0; c<63; c++) if( p->mCpu & ((uint64_t)1<<c) ) tl_json_int(&s, c);
      if( p->mCpu & ((uint64_t)1<<63) ) tl_json_strz(&s, "other");
      tl_json_arr_end(&s);
    }
    tl_json_key(&s, "reads");
    tl_json_uint(&s, tl_packet_reads(p));
    tl_json_obj_end(&s);
    free(q->zTmp);
    q->zTmp = s.bErr ? 0 : s.z;
    if( s.bErr ) tl_str_free(&s);
    tl_val_textz(&a[TL_PK_ARGS], q->zTmp);
  }
  pRow->iRowid = (int64_t)q->i;
  pRow->a = a;
  q->i++;
  return TL_ROW;
}

/* The trace_warnings table. */
static __attribute__((noinline)) int query_next_warning(TlQuery *q, TlRow *pRow){
  TraceInternal *pI = internal(q->pTrace);
  TlVal *a = q->aVal;
  int rc = TL_DONE;
  pthread_mutex_lock(&pI->mutex);
  if( q->i < (size_t)pI->nWarn ){
    TraceWarn *w = &pI->aWarn[q->i];
    size_t nF = w->zFile ? strlen(w->zFile)+1 : 0;
    size_t nM = strlen(w->zMsg)+1;
    char *z = malloc(nF + nM);
    if( z==0 ){
      rc = tl_err_set(&q->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }else{
      free(q->zTmp);
      q->zTmp = z;
      if( nF ) memcpy(z, w->zFile, nF);
      memcpy(z+nF, w->zMsg, nM);
      tl_val_int(&a[TL_TW_ID], (int64_t)q->i);
      if( nF ) tl_val_textz(&a[TL_TW_FILE], z); else tl_val_null(&a[TL_TW_FILE]);
      if( w->iOff!=TL_NO_OFFSET ) tl_val_int(&a[TL_TW_OFFSET], (int64_t)w->iOff);
      else tl_val_null(&a[TL_TW_OFFSET]);
      tl_val_textz(&a[TL_TW_MESSAGE], z+nF);
      pRow->iRowid = (int64_t)q->i;
      pRow->a = a;
      q->i++;
      rc = TL_ROW;
    }
  }else if( q->i==(size_t)pI->nWarn && pI->nWarnDropped>0 ){
    free(q->zTmp);
    q->zTmp = malloc(80);
    if( q->zTmp ){
      snprintf(q->zTmp, 80, "%d more warnings were not kept", pI->nWarnDropped);
      tl_val_int(&a[TL_TW_ID], (int64_t)q->i);
      tl_val_null(&a[TL_TW_FILE]);
      tl_val_null(&a[TL_TW_OFFSET]);
      tl_val_textz(&a[TL_TW_MESSAGE], q->zTmp);
      pRow->iRowid = (int64_t)q->i;
      pRow->a = a;
      q->i++;
      rc = TL_ROW;
    }
  }
  pthread_mutex_unlock(&pI->mutex);
  return rc;
}

/* The next row of the counted, merged or reader's scan. */
static int scan_next(TlQuery *q, TlRow *pRow){
  if( q->pCount ) return tl_count_next(q->pCount, pRow);
  if( q->pMerge ) return tl_merge_next(q->pMerge, pRow);
  return q->pTrace->pReader->xScanNext(q->pScan, pRow);
}

/* The reader's next row with its progress report on (out of line: saves
** the usual path registers). */
static __attribute__((noinline)) int query_next_progress(TlQuery *q, TlRow *pRow){
  TlProgress *pPrev = tl_progress_swap(&q->progress);
  int rc = scan_next(q, pRow);
  tl_progress_swap(pPrev);
  if( rc!=TL_ROW ){ tl_progress_end(&q->progress, pPrev); q->bProgress = 0; }
  return rc;
}

/*
** A scan that ended: TL_DONE if the trace's file is as it was at open, else
** the error (in q->err) that it changed while it was read: the rows given
** may mix old and new bytes. (Multi-file traces: their reader's xCheck.)
*/
static int query_done(TlQuery *q, int rc){
  TlTrace *t = q->pTrace;
  if( rc==TL_DONE && (t->pReader->xCheck ? t->pReader->xCheck(t, &q->err)
                                         : tl_source_check(t->pSrc, &q->err)) ){
    return q->err.rc;
  }
  return rc;
}

/* The next row with the ts values as the trace's reader gives them. */
static int query_next_row(TlQuery *q, TlRow *pRow){
  int j;
  pRow->aVary = 0;
  if( q->iTable==TL_TAB_PACKETS ) return query_next_packet(q, pRow);
  if( q->iTable==TL_TAB_WARNINGS ) return query_next_warning(q, pRow);
  if( q->iTable==TL_TAB_TRACE_INFO ) return query_next_info(q, pRow);
  if( q->pDerive ){
    pRow->a = q->aVal;
    pRow->nRepeat = 0;
    return tl_derive_next(q->pDerive, q->aVal, &pRow->iRowid);
  }
  if( q->pScan==0 && q->pCount==0 && q->pMerge==0 ) return TL_DONE;
  if( q->pMerge==0 ) for(j=0; j<q->nCol; j++) q->aVal[j].t = TL_NULL;
  pRow->a = q->aVal;
  pRow->iRowid = 0;
  pRow->nRepeat = 0;
  if( q->bProgress ) return query_done(q, query_next_progress(q, pRow));
  return query_done(q, scan_next(q, pRow));
}

int tl_query_next(TlQuery *q, TlRow *pRow){
  int rc = query_next_row(q, pRow);
  if( rc==TL_ROW && q->pTrace->tsShift && pRow->a ) shift_row(q, pRow->a);
  return rc;
}

int tl_query_rowid(TlQuery *q, const TlRow *pRow, int64_t iRepeat, int64_t *piRowid){
  *piRowid = pRow->iRowid;
  if( pRow->iRowid!=TL_ROWID_LAZY ) return TL_OK;
  if( q->pCount ) return tl_count_rowid(q->pCount, iRepeat, piRowid);
  if( q->pMerge ) return tl_merge_rowid(q->pMerge, iRepeat, piRowid);
  if( q->pScan==0 || q->pTrace->pReader->xScanRowid==0 ) return TL_OK;
  return q->pTrace->pReader->xScanRowid(q->pScan, iRepeat, piRowid);
}

int tl_query_value(TlQuery *q, int64_t iRepeat, int iCol, TlVal *pOut){
  int rc;
  tl_val_null(pOut);
  if( q->pCount ){
    rc = tl_count_value(q->pCount, iRepeat, iCol, pOut);
  }else if( q->pMerge ){
    rc = tl_merge_value(q->pMerge, iRepeat, iCol, pOut);
  }else if( q->pScan==0 || q->pTrace->pReader->xScanValue==0 ){
    return TL_OK;
  }else{
    rc = q->pTrace->pReader->xScanValue(q->pScan, iRepeat, iCol, pOut);
  }
  if( rc==TL_OK && pOut->t==TL_INT && q->pTrace->tsShift && is_ts_col(q->iTable, iCol) ){
    pOut->i = tl_add_sat(pOut->i, q->pTrace->tsShift);
  }
  return rc;
}

const TlErr *tl_query_err(TlQuery *q){
  if( q->err.rc ) return &q->err;
  if( q->pDerive ) return tl_derive_err(q->pDerive);
  if( q->pCount ) return tl_count_err(q->pCount);
  if( q->pMerge ) return tl_merge_err(q->pMerge);
  if( q->pScan ) return q->pTrace->pReader->xScanErr(q->pScan);
  return &q->err;
}

void tl_query_close(TlQuery *q){
  if( q==0 ) return;
  if( q->bProgress ){             /* a scan stopped early (LIMIT) */
    TlProgress *pPrev = tl_progress_swap(&q->progress);
    tl_progress_end(&q->progress, pPrev);
  }
  if( q->pScan ) q->pTrace->pReader->xScanClose(q->pScan);
  tl_count_close(q->pCount);
  tl_merge_close(q->pMerge);
  tl_derive_close(q->pDerive);
  free(q->zTmp);
  tl_str_free(&q->info);
  free(q);
}

int tl_trace_mmap(const TlTrace *p){
  int bMap = 0;                   /* checked at open: on or off */
  if( p==0 || tl_opts_onoff(&p->opts, "mmap", 0, &bMap) ) bMap = 0;
  return bMap;
}

uint64_t tl_trace_max_memory(const TlTrace *p){
  uint64_t v;                     /* checked at open: in range */
  if( tl_opts_uint(&p->opts, "max_memory", 1, TL_MAX_MEMORY_MB_MAX,
                   TL_DEFAULT_MAX_MEMORY_MB, &v) ) v = TL_DEFAULT_MAX_MEMORY_MB;
  return v << 20;
}
