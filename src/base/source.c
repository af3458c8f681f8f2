/*
** source.c: read-only file access by mmap with a pread fallback.
*/
#define _GNU_SOURCE 1
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int tl_source_open(const char *zPath, TlSource **ppSrc, TlErr *pErr){
  TlSource *p;
  struct stat st;
  int fd;
  *ppSrc = 0;
  fd = open(zPath, O_RDONLY | O_CLOEXEC);
  if( fd<0 ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "cannot open: %s",
                      strerror(errno));
  }
  if( fstat(fd, &st) ){
    int e = errno;
    close(fd);
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "cannot stat: %s", strerror(e));
  }
  if( S_ISDIR(st.st_mode) ){
    close(fd);
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
                      "is a directory, expected a trace file");
  }
  p = calloc(1, sizeof(*p));
  if( p ) p->zPath = strdup(zPath);
  if( p==0 || p->zPath==0 ){
    free(p);
    close(fd);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  p->fd = fd;
  p->nSize = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
  p->mtimeSec = (int64_t)st.st_mtim.tv_sec;
  p->mtimeNsec = (int64_t)st.st_mtim.tv_nsec;
  if( S_ISREG(st.st_mode) && st.st_size>0 && (uint64_t)st.st_size<=SIZE_MAX ){
    void *pMap = mmap(0, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if( pMap!=MAP_FAILED ){
      p->aMap = pMap;
      p->pOwn = pMap;
      p->bMapped = 1;
      (void)madvise(pMap, (size_t)st.st_size, MADV_SEQUENTIAL);
    }
  }
  if( !S_ISREG(st.st_mode) ){
    /* A FIFO or device: read it all into memory, under the window cap.
    ** Such sources cannot be re-read, so this is the only way to scan them
    ** more than once. */
    size_t nAlloc = 0, n = 0;
    uint8_t *a = 0;
    for(;;){
      ssize_t got;
      if( n==nAlloc ){
        uint8_t *aNew;
        if( nAlloc>=TL_WIN_MAX ){
          free(a);
          tl_source_close(p);
          return tl_err_set(pErr, TL_ENOMEM, n,
              "stream is larger than %zu bytes, the limit for non-regular files",
              (size_t)TL_WIN_MAX);
        }
        nAlloc = nAlloc ? nAlloc*2 : 65536;
        aNew = realloc(a, nAlloc);
        if( aNew==0 ){ free(a); tl_source_close(p);
          return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
        a = aNew;
      }
      got = read(fd, a+n, nAlloc-n);
      if( got<0 && errno==EINTR ) continue;
      if( got<0 ){
        int e = errno;
        free(a);
        tl_source_close(p);
        return tl_err_set(pErr, TL_EIO, n, "read failed: %s", strerror(e));
      }
      if( got==0 ) break;
      n += (size_t)got;
    }
    p->aMap = a;
    p->pOwn = a;
    p->nSize = n;
  }
  *ppSrc = p;
  return TL_OK;
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

void tl_source_close(TlSource *p){
  if( p==0 ) return;
  if( p->bMapped ) munmap(p->pOwn, (size_t)p->nSize);
  else free(p->pOwn);
  if( p->fd>=0 ) close(p->fd);
  free(p->zPath);
  free(p);
}

int tl_source_check(const TlSource *p, TlErr *pErr){
  struct stat st;
  if( p==0 || p->fd<0 || !p->bMapped ) return TL_OK;
  if( fstat(p->fd, &st) ) return TL_OK;
  if( (uint64_t)st.st_size!=p->nSize ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
        "the file changed while it was in use (%llu bytes, was %llu): run the query again",
        (unsigned long long)st.st_size, (unsigned long long)p->nSize);
  }
  if( (int64_t)st.st_mtim.tv_sec!=p->mtimeSec || (int64_t)st.st_mtim.tv_nsec!=p->mtimeNsec ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET,
        "the file was modified while it was in use: run the query again");
  }
  return TL_OK;
}

void tl_win_init(TlWin *w, const TlSource *pSrc){
  w->pSrc = pSrc;
  w->aBuf = 0;
  w->nAlloc = 0;
}

void tl_win_free(TlWin *w){
  free(w->aBuf);
  w->aBuf = 0;
  w->nAlloc = 0;
}

/* n bytes at iOff (within the file) read into w's buffer. */
static int win_pread(TlWin *w, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
                     TlErr *pErr){
  const TlSource *p = w->pSrc;
  size_t nGot = 0;
  if( n > TL_WIN_MAX ){
    return tl_err_set(pErr, TL_ENOMEM, iOff,
                      "read of %zu bytes exceeds the %zu byte window limit",
                      n, (size_t)TL_WIN_MAX);
  }
  if( n > w->nAlloc ){
    uint8_t *aNew = realloc(w->aBuf, n);
    if( aNew==0 ) return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
    w->aBuf = aNew;
    w->nAlloc = n;
  }
  while( nGot<n ){
    ssize_t got = pread(p->fd, w->aBuf + nGot, n - nGot, (off_t)(iOff + nGot));
    if( got<0 && errno==EINTR ) continue;
    if( got<0 ){
      return tl_err_set(pErr, TL_EIO, iOff + nGot, "read failed: %s",
                        strerror(errno));
    }
    if( got==0 ) break;            /* the file shrank */
    nGot += (size_t)got;
  }
  *pOut = tl_bytes(w->aBuf, nGot, bo);
  return TL_OK;
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
    return TL_OK;
  }
  return win_pread(w, iOff, n, bo, pOut, pErr);
}

int tl_win_read(TlWin *w, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
                TlErr *pErr){
  const TlSource *p = w->pSrc;
  if( p->fd<0 || iOff >= p->nSize ) return tl_win_get(w, iOff, n, bo, pOut, pErr);
  if( n > p->nSize - iOff ) n = (size_t)(p->nSize - iOff);
  return win_pread(w, iOff, n, bo, pOut, pErr);
}
