/*
** source.c: read-only file access by pread into bounded windows, mapping
** as an opt-in.
*/
#define _GNU_SOURCE 1
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The calling thread's current TlPoll, or NULL. */
static _Thread_local TlPoll *pPollCur = 0;

TlPoll *tl_poll_swap(TlPoll *p){
  TlPoll *pPrev = pPollCur;
  pPollCur = p;
  return pPrev;
}

#ifdef TL_TEST_HOOKS
void (*tl_test_poll_hook)(void) = 0;
#endif

void tl_cond_wait_poll(pthread_cond_t *pCond, pthread_mutex_t *pMutex){
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += TL_POLL_MS*1000000L;
  if( ts.tv_nsec>=1000000000L ){ ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
  (void)pthread_cond_timedwait(pCond, pMutex, &ts);
}

int tl_poll(TlErr *pErr){
  TlPoll *p = pPollCur;
  struct timespec ts;
  int64_t ms;
#ifdef TL_TEST_HOOKS
  if( tl_test_poll_hook ) tl_test_poll_hook();
#endif
  if( p==0 ) return TL_OK;
  if( !p->bStopped ){
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    ms = (int64_t)ts.tv_sec*1000 + ts.tv_nsec/1000000;
    if( ms < p->msNext ) return TL_OK;
    p->msNext = ms + TL_POLL_MS;
    p->bStopped = p->xStop(p->pArg)!=0;
    if( !p->bStopped ) return TL_OK;
  }
  return tl_err_set(pErr, TL_EINTR, TL_NO_OFFSET, "interrupted");
}

/*
** Open zPath without blocking (a FIFO with no writer would block open(2)
** for ever) and stat what was opened. A directory is refused; so is any
** file that is not regular unless bStream. Regular files are put back in
** blocking mode; others stay non-blocking for source_slurp(). Returns TL_OK
** with *pFd and *pSt set, or an error naming what the file is.
*/
static int source_open_fd(const char *zPath, int bStream, int *pFd,
                          struct stat *pSt, TlErr *pErr){
  int fd = open(zPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  const char *zKind = 0;
  *pFd = -1;
  if( fd<0 ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "cannot open: %s", strerror(errno));
  }
  if( fstat(fd, pSt) ){
    int e = errno;
    close(fd);
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "cannot stat: %s", strerror(e));
  }
  if( S_ISDIR(pSt->st_mode) ){
    close(fd);
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
                      "is a directory, expected a trace file");
  }
  if( S_ISREG(pSt->st_mode) ){
    int fl = fcntl(fd, F_GETFL);
    if( fl>=0 ) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  }else if( !bStream ){
    zKind = S_ISFIFO(pSt->st_mode) ? "a FIFO" : S_ISSOCK(pSt->st_mode) ? "a socket"
          : S_ISCHR(pSt->st_mode) || S_ISBLK(pSt->st_mode) ? "a device" : "not a file";
    close(fd);
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
                      "is %s, expected a regular file", zKind);
  }
  *pFd = fd;
  return TL_OK;
}

/*
** Wait up to ms milliseconds for fd to have bytes or an end. Returns the
** poll(2) events (0 on timeout or a signal).
*/
static int source_wait(int fd, int ms){
  struct pollfd pfd;
  pfd.fd = fd;
  pfd.events = POLLIN;
  pfd.revents = 0;
  if( poll(&pfd, 1, ms)<=0 ) return 0;
  return pfd.revents;
}

/*
** Read the whole of non-blocking descriptor fd (a FIFO, a device) into a
** new buffer, up to TL_WIN_MAX bytes. A FIFO that no writer has opened
** reads as empty at once: it is waited for, in steps of 100 ms, for at
** most TL_FIFO_WAIT_MS, then it is an error. Once a writer has been seen
** (or bytes read) the read goes on until the writer closes.
*/
static int source_slurp(int fd, int bFifo, uint8_t **pa, size_t *pn, TlErr *pErr){
  size_t nAlloc = 0, n = 0;
  uint8_t *a = 0;
  int bWriter = 0, bHup = 0, msWaited = 0, ev;
  *pa = 0;
  *pn = 0;
  for(;;){
    ssize_t got;
    if( n==nAlloc ){
      uint8_t *aNew;
      if( nAlloc>=TL_WIN_MAX ){
        free(a);
        return tl_err_set(pErr, TL_ELIMIT, n,
            "stream is larger than %zu bytes, the limit for non-regular files",
            (size_t)TL_WIN_MAX);
      }
      nAlloc = nAlloc ? nAlloc*2 : 65536;
      aNew = realloc(a, nAlloc);
      if( aNew==0 ){ free(a); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
      a = aNew;
    }
    got = read(fd, a+n, nAlloc-n);
    if( got>0 ){ n += (size_t)got; bWriter = 1; continue; }
    if( got<0 && errno==EINTR ) continue;
    if( got<0 && (errno==EAGAIN || errno==EWOULDBLOCK) ){
      bWriter = 1;                  /* a writer is there, with nothing yet */
      (void)source_wait(fd, 100);
      continue;
    }
    if( got<0 ){
      int e = errno;
      free(a);
      return tl_err_set(pErr, TL_EIO, n, "read failed: %s", strerror(e));
    }
    /* got==0: the end, unless a FIFO still waits for its first writer */
    if( !bFifo || bWriter || bHup ) break;
    ev = source_wait(fd, 100);
    if( ev & POLLHUP ){
      bHup = 1;                     /* a writer came and went: read what it left */
    }else if( ev==0 && (msWaited += 100)>=TL_FIFO_WAIT_MS ){
      free(a);
      return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
          "a FIFO that no writer opened within %d seconds", TL_FIFO_WAIT_MS/1000);
    }
  }
  *pa = a;
  *pn = n;
  return TL_OK;
}

/* The source of open descriptor fd (owned from here on) with stat st. */
static int source_new(const char *zPath, int fd, const struct stat *pSt,
                      TlSource **ppSrc, TlErr *pErr){
  TlSource *p = calloc(1, sizeof(*p));
  int rc;
  *ppSrc = 0;
  if( p ) p->zPath = strdup(zPath);
  if( p==0 || p->zPath==0 ){
    free(p);
    close(fd);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  p->fd = fd;
  p->nSize = S_ISREG(pSt->st_mode) ? (uint64_t)pSt->st_size : 0;
  p->mtimeSec = (int64_t)pSt->st_mtim.tv_sec;
  p->mtimeNsec = (int64_t)pSt->st_mtim.tv_nsec;
  p->ctimeSec = (int64_t)pSt->st_ctim.tv_sec;
  p->ctimeNsec = (int64_t)pSt->st_ctim.tv_nsec;
  p->bRegular = S_ISREG(pSt->st_mode);
  p->dev = (uint64_t)pSt->st_dev;
  p->ino = (uint64_t)pSt->st_ino;
  if( p->bRegular ){
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  }else{
    /* A FIFO or device: read it all into memory, under the window cap.
    ** Such sources cannot be re-read, so this is the only way to scan them
    ** more than once. */
    uint8_t *a;
    size_t n;
    rc = source_slurp(fd, S_ISFIFO(pSt->st_mode), &a, &n, pErr);
    if( rc ){ tl_source_close(p); return rc; }
    p->aMap = a;
    p->pOwn = a;
    p->nSize = n;
  }
  *ppSrc = p;
  return TL_OK;
}

int tl_source_open(const char *zPath, TlSource **ppSrc, TlErr *pErr){
  struct stat st;
  int fd;
  int rc = source_open_fd(zPath, 0, &fd, &st, pErr);
  *ppSrc = 0;
  return rc ? rc : source_new(zPath, fd, &st, ppSrc, pErr);
}

int tl_source_open_stream(const char *zPath, TlSource **ppSrc, TlErr *pErr){
  struct stat st;
  int fd;
  int rc = source_open_fd(zPath, 1, &fd, &st, pErr);
  *ppSrc = 0;
  return rc ? rc : source_new(zPath, fd, &st, ppSrc, pErr);
}

#define TL_BIG_ALIGN ((size_t)2<<20)   /* a transparent huge page */

/* n rounded up to whole huge pages; 0 when that overflows. */
static size_t big_size(size_t n){
  if( n==0 ) n = 1;
  if( n > SIZE_MAX - TL_BIG_ALIGN ) return 0;
  return (n + TL_BIG_ALIGN - 1) & ~(TL_BIG_ALIGN - 1);
}

void *tl_big_alloc(size_t n){
  size_t nMap = big_size(n);
  uintptr_t lo, at;
  uint8_t *a;
  if( nMap==0 || nMap > SIZE_MAX - TL_BIG_ALIGN ) return 0;
  /* one huge page more than asked, then the ends cut off: aligned */
  a = mmap(0, nMap + TL_BIG_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if( a==MAP_FAILED ) return 0;
  lo = (uintptr_t)a;
  at = (lo + TL_BIG_ALIGN - 1) & ~(uintptr_t)(TL_BIG_ALIGN - 1);
  if( at>lo ) munmap(a, at - lo);
  if( lo + TL_BIG_ALIGN > at ) munmap((void*)(at + nMap), lo + TL_BIG_ALIGN - at);
#ifdef MADV_HUGEPAGE
  (void)madvise((void*)at, nMap, MADV_HUGEPAGE);   /* a hint: without it, 4 KiB pages */
#endif
  return (void*)at;
}

void *tl_big_realloc(void *p, size_t nOld, size_t nNew){
  size_t nFrom = big_size(nOld), nTo = big_size(nNew);
  void *q;
  if( p==0 ) return tl_big_alloc(nNew);
  if( nTo==0 ) return 0;
  if( nTo==nFrom ) return p;
  q = mremap(p, nFrom, nTo, MREMAP_MAYMOVE);
  if( q==MAP_FAILED ) return 0;
#ifdef MADV_HUGEPAGE
  (void)madvise(q, nTo, MADV_HUGEPAGE);
#endif
  return q;
}

void tl_big_free(void *p, size_t n){
  if( p ) munmap(p, big_size(n));
}

/* a grown to n bytes (from nOld), by realloc or, with bBig, tl_big_realloc. */
static char *file_grow(char *a, size_t nOld, size_t n, int bBig){
  return bBig ? tl_big_realloc(a, nOld, n) : realloc(a, n);
}

static void file_free(char *a, size_t n, int bBig){
  if( bBig ) tl_big_free(a, n);
  else free(a);
}

/* tl_file_read (bBig 0) and tl_file_read_big (bBig 1, *pnAlloc set). */
static int file_read(const char *zPath, size_t nMax, int bBig, char **pz, size_t *pn,
                     size_t *pnAlloc, TlErr *pErr){
  struct stat st;
  char *a = 0;
  size_t n = 0, nAlloc = 0;
  int fd;
  int rc = source_open_fd(zPath, 0, &fd, &st, pErr);
  *pz = 0;
  *pn = 0;
  if( rc ) return rc;
  for(;;){                        /* /proc files say size 0: read to the end */
    ssize_t got;
    if( n==nAlloc ){
      char *aNew;
      size_t nNew;
      if( nAlloc>=nMax ) break;   /* the rest is not read */
      nNew = nAlloc ? nAlloc*2 : bBig ? TL_BIG_ALIGN*2 : 65536;
      if( nNew>nMax ) nNew = nMax;
      aNew = file_grow(a, a ? nAlloc + 1 : 0, nNew + 1, bBig);
      if( aNew==0 ){
        file_free(a, nAlloc + 1, bBig);
        close(fd);
        return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      }
      a = aNew;
      nAlloc = nNew;
    }
    got = read(fd, a+n, nAlloc-n);
    if( got<0 && errno==EINTR ) continue;
    if( got<0 ){
      int e = errno;
      file_free(a, nAlloc + 1, bBig);
      close(fd);
      return tl_err_set(pErr, TL_EIO, n, "read failed: %s", strerror(e));
    }
    if( got==0 ) break;
    n += (size_t)got;
  }
  close(fd);
  if( a==0 && (a = file_grow(0, 0, 1, bBig))==0 ){
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  a[n] = 0;
  *pz = a;
  *pn = n;
  if( pnAlloc ) *pnAlloc = nAlloc + 1;
  return TL_OK;
}

int tl_file_read(const char *zPath, size_t nMax, char **pz, size_t *pn, TlErr *pErr){
  return file_read(zPath, nMax, 0, pz, pn, 0, pErr);
}

int tl_file_read_big(const char *zPath, size_t nMax, char **pz, size_t *pn, size_t *pnAlloc,
                     TlErr *pErr){
  return file_read(zPath, nMax, 1, pz, pn, pnAlloc, pErr);
}

int tl_source_mem(const void *a, size_t n, int bCopy, TlSource **ppSrc){
  TlSource *p = calloc(1, sizeof(*p));
  *ppSrc = 0;
  if( p==0 ) return TL_ENOMEM;
  p->fd = -1;
  p->nSize = n;
  if( bCopy ){
    uint8_t *aCopy = malloc(n ? n : 1);
    if( aCopy==0 ){ free(p); return TL_ENOMEM; }
    if( n ) memcpy(aCopy, a, n);
    p->aMap = aCopy;
    p->pOwn = aCopy;
  }else{
    p->aMap = a;
  }
  p->zPath = strdup("memory");
  if( p->zPath==0 ){ tl_source_close(p); return TL_ENOMEM; }
  *ppSrc = p;
  return TL_OK;
}

int tl_source_fd(int fd, const char *zName, TlSource **ppSrc, TlErr *pErr){
  struct stat st;
  *ppSrc = 0;
  if( fstat(fd, &st) || !S_ISREG(st.st_mode) ){
    int e = errno;
    close(fd);
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s: cannot stat: %s", zName, strerror(e));
  }
  return source_new(zName, fd, &st, ppSrc, pErr);
}

int tl_tmpfile(const char *zWhat, int *pFd, TlErr *pErr){
  const char *zDir = getenv("TMPDIR");
  char zPath[4096];
  *pFd = -1;
  if( zDir==0 || zDir[0]==0 ) zDir = P_tmpdir;
  if( snprintf(zPath, sizeof(zPath), "%s/tracelite-XXXXXX", zDir) >= (int)sizeof(zPath) ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s: TMPDIR is too long a path", zWhat);
  }
  *pFd = mkostemp(zPath, O_CLOEXEC);
  if( *pFd<0 ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s: cannot create a temporary file in %s: %s",
                      zWhat, zDir, strerror(errno));
  }
  unlink(zPath);
  return TL_OK;
}

int tl_source_map(TlSource *p){
  void *pMap;
  if( p==0 || !p->bRegular || p->aMap || p->nSize==0 || p->nSize>SIZE_MAX ) return p && p->aMap;
  pMap = mmap(0, (size_t)p->nSize, PROT_READ, MAP_PRIVATE, p->fd, 0);
  if( pMap==MAP_FAILED ) return 0;
  p->aMap = pMap;
  p->pOwn = pMap;
  p->bMapped = 1;
  (void)madvise(pMap, (size_t)p->nSize, MADV_SEQUENTIAL);
  return 1;
}

int tl_source_load(TlSource *p, uint64_t nMax, TlErr *pErr){
  TlWin w;
  TlBytes b;
  int rc;
  if( p->aMap ) return TL_OK;
  if( p->nSize > nMax || p->nSize > TL_WIN_MAX ){
    return tl_err_set(pErr, TL_ELIMIT, TL_NO_OFFSET,
        "%s has %llu bytes, more than the %llu read whole", p->zPath,
        (unsigned long long)p->nSize,
        (unsigned long long)(nMax < TL_WIN_MAX ? nMax : TL_WIN_MAX));
  }
  tl_win_init(&w, p);
  rc = tl_win_read(&w, 0, (size_t)p->nSize, TL_LE, &b, pErr);
  if( rc==TL_OK && b.n!=p->nSize ){
    rc = tl_err_set(pErr, TL_EIO, b.n, "%s changed while it was read", p->zPath);
  }
  if( rc ){ tl_win_free(&w); return rc; }
  p->aMap = w.aBuf;               /* the window's buffer is the source's now */
  p->pOwn = w.aBuf;
  return TL_OK;
}

void tl_source_close(TlSource *p){
  if( p==0 ) return;
  if( p->bMapped==TL_SOURCE_BIG ) tl_big_free(p->pOwn, (size_t)p->nSize);
  else if( p->bMapped ) munmap(p->pOwn, (size_t)p->nSize);
  else free(p->pOwn);
  if( p->fd>=0 ) close(p->fd);
  free(p->zPath);
  free(p);
}

void tl_source_drop_fd(TlSource *p){
  if( p && p->bRegular && p->fd>=0 && !p->aMap ){
    close(p->fd);
    p->fd = -1;
    p->bDropped = 1;
  }
}

/* Is st (of the file now at p's path, or of p's descriptor) p's file as it
** was at open? TL_OK, or TL_EIO naming it. */
static int source_same(const TlSource *p, const struct stat *pSt, TlErr *pErr){
  if( (uint64_t)pSt->st_dev!=p->dev || (uint64_t)pSt->st_ino!=p->ino ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
        "%s changed while it was read (another file is at its path now): "
        "run the query again", p->zPath);
  }
  if( (uint64_t)pSt->st_size!=p->nSize ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
        "%s changed while it was read (%llu bytes, was %llu): run the query again",
        p->zPath, (unsigned long long)pSt->st_size, (unsigned long long)p->nSize);
  }
  if( (int64_t)pSt->st_mtim.tv_sec!=p->mtimeSec || (int64_t)pSt->st_mtim.tv_nsec!=p->mtimeNsec
   || (int64_t)pSt->st_ctim.tv_sec!=p->ctimeSec || (int64_t)pSt->st_ctim.tv_nsec!=p->ctimeNsec ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
        "%s changed while it was read (it was written to): run the query again",
        p->zPath);
  }
  return TL_OK;
}

int tl_source_check(const TlSource *p, TlErr *pErr){
  struct stat st;
  if( p==0 || !p->bRegular ) return TL_OK;
  if( p->bDropped ){
    if( stat(p->zPath, &st) ){
      return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
          "%s changed while it was read (%s): run the query again", p->zPath, strerror(errno));
    }
  }else if( p->fd<0 || fstat(p->fd, &st) ){
    return TL_OK;
  }
  return source_same(p, &st, pErr);
}

/* Windows' own descriptors open now (dropped sources). */
static int nWinFds = 0;

static void win_fd_close(TlWin *w){
  if( w->fdOwn>0 ){
    close(w->fdOwn - 1);
    w->fdOwn = 0;
    __atomic_sub_fetch(&nWinFds, 1, __ATOMIC_RELAXED);
  }
}

/* The descriptor window w reads p by: p's, or w's own (opened, checked). */
static int win_fd(TlWin *w, TlErr *pErr){
  const TlSource *p = w->pSrc;
  struct stat st;
  int rc, fd;
  if( !p->bDropped ) return p->fd;
  if( w->fdOwn>0 ) return w->fdOwn - 1;
  fd = open(p->zPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if( fd<0 ){
    tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s: cannot open: %s", p->zPath, strerror(errno));
    return -1;
  }
  w->fdOwn = fd + 1;
  __atomic_add_fetch(&nWinFds, 1, __ATOMIC_RELAXED);
  rc = fstat(fd, &st) ? tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "%s: cannot stat: %s",
                                   p->zPath, strerror(errno))
                      : source_same(p, &st, pErr);
  if( rc ){ win_fd_close(w); return -1; }
  return fd;
}

void tl_win_init(TlWin *w, const TlSource *pSrc){
  w->pSrc = pSrc;
  w->aBuf = 0;
  w->nAlloc = 0;
  w->nUnchecked = 0;
  w->iBufOff = 0;
  w->nBuf = 0;
  w->fdOwn = 0;
  w->nAhead = 0;
  w->nHeld = 0;
  w->iBufAt = 0;
  w->pAhead = 0;
  w->iStop = 0;
}

/* Bytes windows hold beyond TL_WIN_AHEAD to read ahead (their nHeld). */
static size_t nAheadHeld = 0;

/*
** Buffers of windows freed, kept for the next windows: a buffer of a
** megabyte, freed, goes back to the system and comes back as new pages,
** each a fault to fill (most of a short query's time: a CTF time window
** reads two to four packets of 1 MiB). At most TL_WIN_POOL of them and
** TL_WIN_POOL_BYTES in all.
*/
#define TL_WIN_POOL 4
#define TL_WIN_POOL_BYTES ((size_t)8<<20)
static pthread_mutex_t poolMu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *aPoolBuf[TL_WIN_POOL];
static size_t aPoolN[TL_WIN_POOL];
static size_t nPoolBytes = 0;

/* A kept buffer of at least n bytes (its size in *pnAlloc), or NULL. */
static uint8_t *pool_take(size_t n, size_t *pnAlloc){
  uint8_t *a = 0;
  int i, best = -1;
  pthread_mutex_lock(&poolMu);
  for(i=0; i<TL_WIN_POOL; i++){
    if( aPoolBuf[i] && aPoolN[i]>=n && (best<0 || aPoolN[i]<aPoolN[best]) ) best = i;
  }
  if( best>=0 ){
    a = aPoolBuf[best];
    *pnAlloc = aPoolN[best];
    nPoolBytes -= aPoolN[best];
    aPoolBuf[best] = 0;
    aPoolN[best] = 0;
  }
  pthread_mutex_unlock(&poolMu);
  return a;
}

/* Keep buffer a of n bytes for a later window, or free it. */
static void pool_put(uint8_t *a, size_t n){
  int i;
  if( a==0 ) return;
  pthread_mutex_lock(&poolMu);
  for(i=0; i<TL_WIN_POOL && n<=TL_WIN_POOL_BYTES - nPoolBytes; i++){
    if( aPoolBuf[i]==0 ){
      aPoolBuf[i] = a;
      aPoolN[i] = n;
      nPoolBytes += n;
      a = 0;
      break;
    }
  }
  pthread_mutex_unlock(&poolMu);
  free(a);
}

/* When the library is unloaded or the process ends. */
__attribute__((destructor)) static void pool_free(void){
  int i;
  for(i=0; i<TL_WIN_POOL; i++){
    free(aPoolBuf[i]);
    aPoolBuf[i] = 0;
    aPoolN[i] = 0;
  }
  nPoolBytes = 0;
}

static void ahead_stop(TlWin *w);

void tl_win_free(TlWin *w){
  if( w->pAhead ) ahead_stop(w);
  win_fd_close(w);
  pool_put(w->aBuf, w->nAlloc);
  if( w->nHeld ) __atomic_sub_fetch(&nAheadHeld, w->nHeld, __ATOMIC_RELAXED);
  w->aBuf = 0;
  w->nAlloc = 0;
  w->nBuf = 0;
  w->nAhead = 0;
  w->nHeld = 0;
}

/*
** The bytes a miss of n bytes at iOff reads: TL_WIN_AHEAD, or twice the
** last miss's when it comes at or just past the end of the bytes held (a
** walk onward), up to TL_WIN_AHEAD_MAX and within the budget all windows
** share; n when that is more.
*/
static size_t win_ahead(TlWin *w, uint64_t iOff, size_t n){
  size_t nAhead = w->nAhead ? w->nAhead : TL_WIN_AHEAD;
  if( w->nBuf && iOff >= w->iBufOff && iOff - w->iBufOff <= w->nBuf + TL_WIN_AHEAD ){
    if( nAhead < TL_WIN_AHEAD_MAX ) nAhead *= 2;
  }else{
    nAhead = TL_WIN_AHEAD;
  }
  if( nAhead - TL_WIN_AHEAD > w->nHeld ){
    size_t nMore = nAhead - TL_WIN_AHEAD - w->nHeld;
    if( __atomic_add_fetch(&nAheadHeld, nMore, __ATOMIC_RELAXED) > TL_WIN_AHEAD_BUDGET ){
      __atomic_sub_fetch(&nAheadHeld, nMore, __ATOMIC_RELAXED);
      nAhead = TL_WIN_AHEAD + w->nHeld;       /* no more than it holds already */
    }else{
      w->nHeld += nMore;
    }
  }
  w->nAhead = nAhead;
  return n > nAhead ? n : nAhead;
}

/*
** A new buffer of n bytes for a window, its pages made present at once
** (MADV_POPULATE_WRITE; nothing where the kernel has no such advice): a
** read fills the whole buffer, so each page is written anyway, and one
** call that maps them all costs a fraction of a fault per page (in a
** virtual machine a fault costs some 15 microseconds, a 1 MiB packet's
** buffer 4 ms, more than the read). Free with free().
*/
static uint8_t *win_buf_new(size_t n){
  uint8_t *a = malloc(n);
  long nPage = sysconf(_SC_PAGESIZE);
  if( a && n >= TL_WIN_AHEAD && nPage>0 ){
    uintptr_t iLo = ((uintptr_t)a + (uintptr_t)nPage - 1) & ~(uintptr_t)(nPage - 1);
    uintptr_t iHi = ((uintptr_t)a + n) & ~(uintptr_t)(nPage - 1);
#ifdef MADV_POPULATE_WRITE
    if( iHi > iLo ) (void)madvise((void*)iLo, iHi - iLo, MADV_POPULATE_WRITE);
#else
    (void)iHi;
#endif
  }
  return a;
}

/* n bytes at iOff (within the file) read from w's descriptor into aDst. */
static int win_pread_to(TlWin *w, uint64_t iOff, size_t n, uint8_t *aDst, TlErr *pErr){
  const TlSource *p = w->pSrc;
  size_t nGot = 0;
  int fd = win_fd(w, pErr), rc;
  if( fd<0 ) return pErr->rc;
  while( nGot<n ){
    ssize_t got = pread(fd, aDst + nGot, n - nGot, (off_t)(iOff + nGot));
    if( got<0 && errno==EINTR ) continue;
    if( got<0 ){
      return tl_err_set(pErr, TL_EIO, iOff + nGot, "read failed: %s",
                        strerror(errno));
    }
    if( got==0 ){                  /* the file shrank */
      return tl_err_set(pErr, TL_EIO, iOff + nGot,
          "%s changed while it was read (it ends before %llu bytes, had %llu): "
          "run the query again", p->zPath,
          (unsigned long long)(iOff + n), (unsigned long long)p->nSize);
    }
    nGot += (size_t)got;
  }
  w->nUnchecked += n;
  if( w->nUnchecked >= TL_WIN_CHECK || iOff + n == p->nSize ){
    rc = tl_source_check(p, pErr);
    if( rc ) return rc;
    w->nUnchecked = 0;
  }
  if( w->fdOwn>0 && __atomic_load_n(&nWinFds, __ATOMIC_RELAXED) > TL_WIN_FDS ) win_fd_close(w);
  return TL_OK;
}

/* n bytes at iOff (within the file) read into w's buffer. */
static int win_pread(TlWin *w, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
                     TlErr *pErr){
  int rc = tl_poll(pErr);
  if( rc ) return rc;
  if( n > TL_WIN_MAX ){
    return tl_err_set(pErr, TL_ELIMIT, iOff,
                      "read of %zu bytes exceeds the %zu byte window limit",
                      n, (size_t)TL_WIN_MAX);
  }
  if( n > w->nAlloc ){
    size_t nKept = 0;
    uint8_t *aNew = pool_take(n, &nKept);
    pool_put(w->aBuf, w->nAlloc);
    w->aBuf = 0;
    w->nAlloc = 0;
    if( aNew==0 ){
      aNew = win_buf_new(n);
      if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
      nKept = n;
    }
    w->aBuf = aNew;
    w->nAlloc = nKept;
  }
  w->nBuf = 0;
  rc = win_pread_to(w, iOff, n, w->aBuf, pErr);
  if( rc ) return rc;
  w->iBufOff = iOff;
  w->iBufAt = 0;
  w->nBuf = n;
  *pOut = tl_bytes(w->aBuf, n, bo);
  return TL_OK;
}

/*
** Reading ahead of a walk on a helper thread (tl_win_walk()). The helper
** preads the chunks that follow the window's bytes, in order, into the
** buffers of a ring of slots (four of 256 KiB chunks, fewer of larger ones:
** about 2 MiB read ahead, at least one chunk), each chunk nHead bytes into
** its buffer, and waits when no slot is free. The caller's next miss,
** when it starts in the last nHead bytes of its window and ends
** within the next chunk, waits for that chunk, copies those last bytes in
** front of it and takes the slot's buffer in exchange for its own (the
** slot is then free). Any other miss reads by itself and starts the ring
** again after what it read: chunks read before (and the one being read,
** once it is) are dropped, told apart by a generation number. One mutex
** and one condition guard the ring; the helper touches a slot's buffer
** only while the slot is AHEAD_FILLING, the caller only while it is not.
*/
#define TL_AHEAD_HEAD ((size_t)64<<10)      /* the least room for a window's last bytes */
#define TL_AHEAD_SLOTS 4                    /* the most slots */
#define TL_AHEAD_RING ((size_t)2<<20)       /* the chunks read ahead, about */
#define TL_AHEAD_CHUNK_MAX ((size_t)64<<20) /* larger chunks: no reading ahead */

enum { AHEAD_FREE, AHEAD_FILLING, AHEAD_READ, AHEAD_FAILED };

typedef struct TlAheadSlot TlAheadSlot;
struct TlAheadSlot {
  uint8_t *aBuf;                  /* the chunk, at aBuf + nHead */
  size_t nAlloc;                  /* bytes at aBuf (nBuf or more) */
  uint64_t iOff;                  /* the chunk's file offset */
  size_t n;                       /* and size */
  int eState;                     /* AHEAD_... */
};

typedef struct TlAhead TlAhead;
struct TlAhead {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int fd;                         /* its own descriptor (a dup of the window's) */
  uint64_t iEnd;                  /* where the walk ends */
  size_t nChunk;                  /* bytes the helper reads at once */
  size_t nHead;                   /* room before a chunk for a window's last bytes */
  size_t nBuf;                    /* nHead + nChunk: each buffer's size */
  int nSlot;                      /* slots in the ring (a[0..nSlot-1]) */
  size_t nHeld;                   /* bytes counted in the read-ahead budget */
  uint8_t *aSpare;                /* nBuf bytes for the slot that gets the
                                  ** window's first buffer when that is smaller */
  uint64_t iNext;                 /* the next chunk the helper reads */
  int iFill;                      /* the slot it reads into next */
  int iTake;                      /* the slot the caller takes next */
  uint64_t iTakeOff;              /* the file offset of that slot's chunk */
  unsigned gen;                   /* changed when the ring starts again */
  int bQuit;                      /* tl_win_free(): end the thread */
  TlAheadSlot a[TL_AHEAD_SLOTS];
};

uint64_t tl_win_walk_bytes = (uint64_t)8<<20;

/* The size of the chunk at iOff (the walk ends at a->iEnd). */
static size_t ahead_chunk(const TlAhead *a, uint64_t iOff){
  if( iOff >= a->iEnd ) return 0;
  return a->iEnd - iOff < a->nChunk ? (size_t)(a->iEnd - iOff) : a->nChunk;
}

static void *ahead_main(void *pArg){
  TlAhead *a = pArg;
  pthread_mutex_lock(&a->mu);
  for(;;){
    TlAheadSlot *s;
    uint8_t *aDst;
    uint64_t iOff;
    size_t n, nGot = 0;
    unsigned gen;
    while( !a->bQuit && (a->iNext >= a->iEnd || a->a[a->iFill].eState!=AHEAD_FREE) ){
      pthread_cond_wait(&a->cv, &a->mu);
    }
    if( a->bQuit ) break;
    s = &a->a[a->iFill];
    s->iOff = iOff = a->iNext;
    s->n = n = ahead_chunk(a, iOff);
    s->eState = AHEAD_FILLING;
    aDst = s->aBuf + a->nHead;
    gen = a->gen;
    a->iNext += n;
    a->iFill = (a->iFill + 1) % a->nSlot;
    pthread_mutex_unlock(&a->mu);
    while( nGot<n ){
      ssize_t got = pread(a->fd, aDst + nGot, n - nGot, (off_t)(iOff + nGot));
      if( got<0 && errno==EINTR ) continue;
      if( got<=0 ) break;         /* the caller reads it again, and reports */
      nGot += (size_t)got;
    }
    pthread_mutex_lock(&a->mu);
    s->eState = gen!=a->gen ? AHEAD_FREE : nGot==n ? AHEAD_READ : AHEAD_FAILED;
    pthread_cond_broadcast(&a->cv);
  }
  pthread_mutex_unlock(&a->mu);
  return 0;
}

/* Start the ring again after w's bytes (mutex held). */
static void ahead_restart(TlWin *w){
  TlAhead *a = w->pAhead;
  int i;
  a->gen++;
  for(i=0; i<a->nSlot; i++){
    if( a->a[i].eState!=AHEAD_FILLING ) a->a[i].eState = AHEAD_FREE;
  }
  a->iNext = a->iTakeOff = w->iBufOff + w->nBuf;
  a->iFill = a->iTake = 0;
  pthread_cond_broadcast(&a->cv);
}

/* After the caller read by itself: the ring starts again after those bytes. */
static void ahead_ask(TlWin *w){
  TlAhead *a = w->pAhead;
  pthread_mutex_lock(&a->mu);
  ahead_restart(w);
  pthread_mutex_unlock(&a->mu);
}

/*
** A miss of n bytes at iOff (within the file) served by the ring's next
** chunk: TL_OK with *pOut, an error (the file changed), or TL_DONE when
** that chunk does not serve it (the caller then reads).
*/
static int ahead_take(TlWin *w, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
                      TlErr *pErr){
  TlAhead *a = w->pAhead;
  TlAheadSlot *s = &a->a[a->iTake];
  uint64_t iChunk = a->iTakeOff;  /* the caller's alone to change */
  size_t nChunk = ahead_chunk(a, iChunk), nTail;
  uint8_t *aSwap;
  int rc, eState;
  if( nChunk==0 || w->nBuf==0 || iChunk!=w->iBufOff + w->nBuf || iOff < w->iBufOff
   || iOff > iChunk || iChunk - iOff > a->nHead || (iChunk - iOff) + nChunk < n ){
    return TL_DONE;
  }
  pthread_mutex_lock(&a->mu);
  while( (eState = s->eState)==AHEAD_FILLING || (eState==AHEAD_FREE && !a->bQuit) ){
    pthread_cond_wait(&a->cv, &a->mu);
  }
  pthread_mutex_unlock(&a->mu);
  if( eState!=AHEAD_READ ) return TL_DONE;  /* read by the caller, who reports */
  rc = tl_poll(pErr);
  if( rc ) return rc;
  nTail = (size_t)(iChunk - iOff);
  memcpy(s->aBuf + a->nHead - nTail, w->aBuf + w->iBufAt + (iOff - w->iBufOff), nTail);
  aSwap = w->aBuf; w->aBuf = s->aBuf; s->aBuf = aSwap;
  { size_t t = w->nAlloc; w->nAlloc = s->nAlloc; s->nAlloc = t; }
  if( s->nAlloc < a->nBuf ){
    /* (once at most: the window's buffer from before tl_win_walk(), smaller
    ** than nBuf, for which the spare was made; its buffers since are slots'
    ** or grew past it, as win_pread() only grows them) */
    pool_put(s->aBuf, s->nAlloc);
    s->aBuf = a->aSpare;
    s->nAlloc = a->nBuf;
    a->aSpare = 0;
  }
  w->iBufOff = iOff;
  w->iBufAt = a->nHead - nTail;
  w->nBuf = nTail + nChunk;
  pthread_mutex_lock(&a->mu);
  s->eState = AHEAD_FREE;
  a->iTake = (a->iTake + 1) % a->nSlot;
  a->iTakeOff = iChunk + nChunk;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  w->nUnchecked += nChunk;
  if( w->nUnchecked >= TL_WIN_CHECK || iChunk + nChunk == w->pSrc->nSize ){
    w->nUnchecked = 0;
    rc = tl_source_check(w->pSrc, pErr);
    if( rc ){ w->nBuf = 0; return rc; }
  }
  *pOut = tl_bytes(w->aBuf + w->iBufAt, n, bo);
  return TL_OK;
}

/* Free what a (not started, or ended) holds. */
static void ahead_free(TlAhead *a){
  int i;
  if( a->fd>=0 ) close(a->fd);
  for(i=0; i<a->nSlot; i++) pool_put(a->a[i].aBuf, a->a[i].nAlloc);
  pool_put(a->aSpare, a->nBuf);
  __atomic_sub_fetch(&nAheadHeld, a->nHeld, __ATOMIC_RELAXED);
  free(a);
}

int tl_win_walk(TlWin *w, uint64_t iStart, uint64_t iEnd, size_t nChunk){
  const TlSource *p = w->pSrc;
  TlAhead *a;
  TlErr err;
  size_t nHead, nBuf, nHeld;
  int fd, i, nSlot, bOk;
  if( w->pAhead || p->aMap || !p->bRegular ) return w->pAhead!=0;
  if( iEnd > p->nSize ) iEnd = p->nSize;
  if( iStart >= iEnd || iEnd - iStart < tl_win_walk_bytes ) return 0;
  if( nChunk==0 ) nChunk = TL_WIN_AHEAD_MAX;
  if( nChunk > TL_AHEAD_CHUNK_MAX ) return 0;
  nHead = nChunk/4 > TL_AHEAD_HEAD ? nChunk/4 : TL_AHEAD_HEAD;
  nBuf = nHead + nChunk;
  nSlot = TL_AHEAD_RING/nChunk < 1 ? 1 : TL_AHEAD_RING/nChunk > TL_AHEAD_SLOTS
        ? TL_AHEAD_SLOTS : (int)(TL_AHEAD_RING/nChunk);
  nHeld = (size_t)(nSlot + 1)*nBuf;   /* the ring and the window's own */
  if( __atomic_add_fetch(&nAheadHeld, nHeld, __ATOMIC_RELAXED) > TL_WIN_AHEAD_BUDGET ){
    __atomic_sub_fetch(&nAheadHeld, nHeld, __ATOMIC_RELAXED);
    return 0;
  }
  a = calloc(1, sizeof(*a));
  if( a==0 ){
    __atomic_sub_fetch(&nAheadHeld, nHeld, __ATOMIC_RELAXED);
    return 0;
  }
  a->nHeld = nHeld;
  a->nChunk = nChunk;
  a->nHead = nHead;
  a->nBuf = nBuf;
  a->nSlot = nSlot;
  memset(&err, 0, sizeof(err));
  fd = win_fd(w, &err);
  a->fd = fd<0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
  bOk = a->fd>=0;
  if( bOk && w->nAlloc < nBuf ){
    a->aSpare = win_buf_new(nBuf);
    bOk = a->aSpare!=0;
  }
  for(i=0; bOk && i<nSlot; i++){
    a->a[i].aBuf = win_buf_new(nBuf);
    a->a[i].nAlloc = a->a[i].aBuf ? nBuf : 0;
    bOk = a->a[i].aBuf!=0;
  }
  if( !bOk ){ ahead_free(a); return 0; }
  a->iEnd = iEnd;
  a->iNext = a->iEnd;             /* nothing to read before the first miss */
  pthread_mutex_init(&a->mu, 0);
  pthread_cond_init(&a->cv, 0);
  if( pthread_create(&a->th, 0, ahead_main, a) ){
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    ahead_free(a);
    return 0;
  }
  w->pAhead = a;
  return 1;
}

/* End w's helper thread and free what it held. */
static void ahead_stop(TlWin *w){
  TlAhead *a = w->pAhead;
  pthread_mutex_lock(&a->mu);
  a->bQuit = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->th, 0);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->cv);
  ahead_free(a);
  w->pAhead = 0;
}

int tl_win_get(TlWin *w, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
               TlErr *pErr){
  const TlSource *p = w->pSrc;
  if( iOff >= p->nSize ){
    *pOut = tl_bytes(0, 0, bo);
    return TL_OK;
  }
  if( n > p->nSize - iOff ) n = (size_t)(p->nSize - iOff);
  if( p->aMap ){
    *pOut = tl_bytes(p->aMap + iOff, n, bo);
    return tl_poll(pErr);
  }
  if( w->nBuf && iOff>=w->iBufOff && iOff - w->iBufOff <= w->nBuf
   && n <= w->nBuf - (iOff - w->iBufOff) ){
    *pOut = tl_bytes(w->aBuf + w->iBufAt + (iOff - w->iBufOff), n, bo);   /* read before */
    return TL_OK;
  }
  if( w->pAhead ){
    int rc = ahead_take(w, iOff, n, bo, pOut, pErr);
    if( rc!=TL_DONE ) return rc;
  }
  {
    size_t nRead = win_ahead(w, iOff, n);
    int rc;
    if( nRead > p->nSize - iOff ) nRead = (size_t)(p->nSize - iOff);
    if( w->iStop > iOff && nRead > n && nRead > w->iStop - iOff ){
      nRead = w->iStop - iOff > n ? (size_t)(w->iStop - iOff) : n;
    }
    rc = win_pread(w, iOff, nRead, bo, pOut, pErr);
    if( rc==TL_OK ) pOut->n = n;
    if( rc==TL_OK && w->pAhead ) ahead_ask(w);
    return rc;
  }
}

int tl_win_read(TlWin *w, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
                TlErr *pErr){
  const TlSource *p = w->pSrc;
  if( !p->bRegular || iOff >= p->nSize ) return tl_win_get(w, iOff, n, bo, pOut, pErr);
  if( n > p->nSize - iOff ) n = (size_t)(p->nSize - iOff);
  return win_pread(w, iOff, n, bo, pOut, pErr);
}

int tl_win_read_to(TlWin *w, uint64_t iOff, size_t n, uint8_t *aDst, TlErr *pErr){
  const TlSource *p = w->pSrc;
  TlBytes b;
  int rc;
  if( !p->bRegular || iOff >= p->nSize || n > p->nSize - iOff ){
    rc = tl_win_get(w, iOff, n, TL_LE, &b, pErr);
    if( rc==TL_OK && b.n<n ){
      rc = tl_err_set(pErr, TL_EIO, iOff + b.n, "%s changed while it was read (it ends before %llu bytes): "
                      "run the query again", p->zPath, (unsigned long long)(iOff + n));
    }
    if( rc==TL_OK ) memcpy(aDst, b.a, n);
    return rc;
  }
  rc = tl_poll(pErr);
  return rc ? rc : win_pread_to(w, iOff, n, aDst, pErr);
}
