/*
** progress.c: progress reports on stderr (see progress.h).
*/
#include "progress.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "source.h"

#define TL_PROGRESS_DELAY  1.0    /* auto: seconds of work before the first line */
#define TL_PROGRESS_EVERY  1.0    /* on: seconds between lines */
#define TL_PROGRESS_REDRAW 0.25   /* auto on a terminal: seconds between redraws */
#define TL_DIR_DEPTH 16           /* levels of a directory counted for its size */
#define TL_DIR_ENTRIES 131072L    /* entries looked at for its size, at most */

/* The calling thread's current report, or NULL. */
static _Thread_local TlProgress *pCurrent = 0;

static double now_seconds(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec/1e9;
}

int tl_progress_mode(const char *zVal, int *peMode){
  if( zVal==0 || strcmp(zVal, "auto")==0 ){ *peMode = TL_PROGRESS_AUTO; return 0; }
  if( strcmp(zVal, "on")==0 ){ *peMode = TL_PROGRESS_ON; return 0; }
  if( strcmp(zVal, "off")==0 ){ *peMode = TL_PROGRESS_OFF; return 0; }
  return -1;
}

TlProgress *tl_progress_swap(TlProgress *p){
  TlProgress *pPrev = pCurrent;
  pCurrent = p;
  return pPrev;
}

TlProgress *tl_progress_begin(TlProgress *p, int eMode, const char *zWhat,
                              const char *zPath, uint64_t nTotal){
  const char *zBase;
  size_t n;
  memset(p, 0, sizeof(*p));
  p->bTty = isatty(2);
  p->eMode = (eMode==TL_PROGRESS_AUTO && !p->bTty) ? TL_PROGRESS_OFF : eMode;
  p->zWhat = zWhat;
  p->nTotal = nTotal;
  if( zPath ){
    n = strlen(zPath);
    while( n>1 && zPath[n-1]=='/' ) n--;           /* "trace/" names "trace" */
    zBase = zPath + n;
    while( zBase>zPath && zBase[-1]!='/' ) zBase--;
    n = (size_t)(zPath + n - zBase);
    if( n>=sizeof(p->zName) ) n = sizeof(p->zName)-1;
    memcpy(p->zName, zBase, n);
    p->zName[n] = 0;
  }
  if( p->eMode!=TL_PROGRESS_OFF ) p->tStart = now_seconds();
  return tl_progress_swap(p);
}

/* "12.3 MiB"-style text of n bytes into z. */
static void fmt_bytes(char *z, size_t nz, double n){
  static const char *const azUnit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  int i = 0;
  while( n>=1024.0 && i<4 ){ n /= 1024.0; i++; }
  snprintf(z, nz, i ? "%.1f %s" : "%.0f %s", n, azUnit[i]);
}

/* Write the line for p; bLast ends it (a terminal's line is then kept). */
static void show(TlProgress *p, double t, int bLast){
  char zDone[32], zTotal[32], zRate[32], zPct[16], zEnd[48];
  double dt = t - p->tStart;
  fmt_bytes(zDone, sizeof(zDone), (double)p->nDone);
  fmt_bytes(zTotal, sizeof(zTotal), (double)p->nTotal);
  zRate[0] = 0;
  if( dt>=0.01 ){                 /* a rate over less is noise */
    memcpy(zRate, ", ", 3);
    fmt_bytes(zRate+2, sizeof(zRate)-2, (double)p->nDone/dt);
    strcat(zRate, "/s");
  }
  zPct[0] = 0;
  if( p->nTotal ){
    double r = 100.0*(double)p->nDone/(double)p->nTotal;
    snprintf(zPct, sizeof(zPct), " (%.0f%%)", r>100.0 ? 100.0 : r);
  }
  zEnd[0] = 0;
  if( bLast ) snprintf(zEnd, sizeof(zEnd), ", done in %.2f s", dt);
  if( p->bTty && p->eMode==TL_PROGRESS_AUTO ){
    fprintf(stderr, "\rtracelite: %s %s: %s of %s%s%s%s\033[K",
            p->zWhat, p->zName, zDone, zTotal, zPct, zRate, zEnd);
    if( bLast ) fputc('\n', stderr);
  }else{
    fprintf(stderr, "tracelite: %s %s: %s of %s%s%s%s\n",
            p->zWhat, p->zName, zDone, zTotal, zPct, zRate, zEnd);
  }
  fflush(stderr);
  p->tLast = t;
}

/* Show a line for p if it is time to. */
static void tick(TlProgress *p){
  double t;
  if( p->eMode==TL_PROGRESS_OFF ) return;
  t = now_seconds();
  if( p->eMode==TL_PROGRESS_AUTO ){
    if( t - p->tStart < TL_PROGRESS_DELAY ) return;
    if( p->tLast>0 && t - p->tLast < TL_PROGRESS_REDRAW ) return;
  }else if( p->tLast>0 && t - p->tLast < TL_PROGRESS_EVERY ){
    return;
  }
  show(p, t, 0);
}

void tl_progress_add(uint64_t n){
  TlProgress *p = pCurrent;
  if( p==0 || p->eMode==TL_PROGRESS_OFF ) return;
  p->nDone += n;
  tick(p);
}

void tl_progress_reach(uint32_t iFile, uint64_t iEnd){
  TlProgress *p = pCurrent;
  if( p==0 || p->eMode==TL_PROGRESS_OFF ) return;
  if( iFile!=p->iFile ){          /* the next file of a multi-file trace */
    p->nBase += p->nFileEnd;
    p->nFileEnd = 0;
    p->iFile = iFile;
  }
  if( iEnd>p->nFileEnd ) p->nFileEnd = iEnd;
  p->nDone = p->nBase + p->nFileEnd;
  tick(p);
}

void tl_progress_end(TlProgress *p, TlProgress *pPrev){
  if( p->eMode!=TL_PROGRESS_OFF && (p->tLast>0 || p->eMode==TL_PROGRESS_ON) ){
    show(p, now_seconds(), 1);
  }
  p->eMode = TL_PROGRESS_OFF;
  pCurrent = pPrev;
}

/*
** Bytes of the regular files below zDir, nDepth levels deep; *pnLeft
** entries at most (counted down), and none once the caller asks to stop
** (tl_poll()): the total is only shown, a partial one does no harm.
*/
static uint64_t dir_size(const char *zDir, int nDepth, long *pnLeft){
  uint64_t n = 0;
  DIR *d;
  struct dirent *e;
  TlErr err;
  if( nDepth<=0 ) return 0;
  d = opendir(zDir);
  if( d==0 ) return 0;
  tl_err_clear(&err);
  while( (e = readdir(d))!=0 ){
    struct stat st;
    size_t nPath;
    char *zPath;
    if( strcmp(e->d_name, ".")==0 || strcmp(e->d_name, "..")==0 ) continue;
    if( --*pnLeft < 0 || tl_poll(&err) ){ *pnLeft = 0; break; }
    nPath = strlen(zDir) + strlen(e->d_name) + 2;
    zPath = malloc(nPath);
    if( zPath==0 ) break;
    snprintf(zPath, nPath, "%s/%s", zDir, e->d_name);
    if( lstat(zPath, &st)==0 ){
      if( S_ISREG(st.st_mode) ) n += (uint64_t)st.st_size;
      else if( S_ISDIR(st.st_mode) ) n += dir_size(zPath, nDepth-1, pnLeft);
    }
    free(zPath);
  }
  closedir(d);
  return n;
}

uint64_t tl_path_size(const char *zPath){
  struct stat st;
  if( stat(zPath, &st) ) return 0;
  if( S_ISDIR(st.st_mode) ){
    long nLeft = TL_DIR_ENTRIES;
    return dir_size(zPath, TL_DIR_DEPTH, &nLeft);
  }
  return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}
