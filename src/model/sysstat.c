/*
** sysstat.c: system calls summed per thread and kind of call (sysstat.h),
** as perf trace -s and lttng-syscallstats print them, from the syscalls
** rows the scheduling model makes in its one pass.
**
** A group is a thread's calls of one kind: one name (LTTng's
** syscall_entry_NAME; lttng-modules 2.5's sys_unknown names calls of many
** numbers, which lttng-syscallstats counts as one) or, for calls the
** events do not name, one number (perf's raw_syscalls); the entry's when
** the row pairs an entry and an exit. Groups are found by a hash of
** (thread, kind) in a map whose value is the newest group of that hash;
** the groups of one hash are chained, so a thread of many kinds of call
** costs no more per row than one of few.
*/
#include "sysstat.h"

#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "num.h"

#define NONE UINT32_MAX

typedef struct SysGrp SysGrp;
struct SysGrp {
  uint32_t iThr;                  /* its thread, in aThr */
  uint32_t iNext;                 /* the thread's next group (NONE: last) */
  uint32_t iHashNext;             /* the next group of the same hash */
  int bNr; int64_t nr;            /* its kind: a number, */
  const char *z; size_t n;        /* or a name (borrowed: the model's event names) */
  TlSysStat st;
};

typedef struct SysThr SysThr;
struct SysThr {
  int64_t tid;
  int bPid; int64_t pid;          /* its process at its latest row */
  uint32_t iFirst, iLast;         /* its groups, in the order of their first rows */
  /* its name at its latest row of a call (a number of 0 or more, or a
  ** name), the later row on a tie: the name perf trace -s prints */
  int bLast; int64_t tLast;
  char zLast[TL_SCHED_COMM_MAX];
  /* its name when its first named call (an entry and its exit) ended, the
  ** lesser name on a tie: the name lttng-syscallstats prints */
  int bFirst; int64_t tFirst;
  char zFirst[TL_SCHED_COMM_MAX];
};

struct TlSysStats {
  SysThr *aThr; size_t nThr, nThrAlloc;
  SysGrp *aGrp; size_t nGrp, nGrpAlloc;
  TlMap thrMap;                   /* tid -> index in aThr */
  TlMap grpMap;                   /* hash of (thread, kind) -> newest group */
  size_t iOutThr; uint32_t iOutGrp; int bOut;   /* tl_sysstats_next()'s place */
};

TlSysStats *tl_sysstats_new(void){
  TlSysStats *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  tl_map_init(&p->thrMap);
  tl_map_init(&p->grpMap);
  return p;
}

void tl_sysstats_free(TlSysStats *p){
  if( p==0 ) return;
  free(p->aThr);
  free(p->aGrp);
  tl_map_free(&p->thrMap);
  tl_map_free(&p->grpMap);
  free(p);
}

/* A key for the kind of call (number or name) of thread iThr: the words
** mixed, then the name's bytes by FNV-1a (the map mixes the key again). */
static uint64_t kind_hash(uint32_t iThr, int bNr, int64_t nr, const char *z, size_t n){
  uint64_t h = tl_mix64((uint64_t)iThr << 1 | (uint64_t)(bNr!=0)) ^ (bNr ? (uint64_t)nr : 0);
  size_t i;
  for(i=0; i<n; i++){ h ^= (unsigned char)z[i]; h *= 0x100000001b3ull; }
  return h;
}

static int same_kind(const SysGrp *g, int bNr, int64_t nr, const char *z, size_t n){
  if( g->bNr!=bNr || (bNr && g->nr!=nr) ) return 0;
  if( (g->z==0)!=(z==0) ) return 0;
  return z==0 || (g->n==n && (g->z==z || memcmp(g->z, z, n)==0));
}

/* Thread tid's index into *pi: TL_OK, or TL_ENOMEM. */
static int thr_of(TlSysStats *p, int64_t tid, uint32_t *pi){
  SysThr *t;
  if( tl_map_get(&p->thrMap, (uint64_t)tid, pi) ) return TL_OK;
  if( (t = tl_grow(p->aThr, &p->nThrAlloc, p->nThr, sizeof(SysThr)))==0 ) return TL_ENOMEM;
  p->aThr = t;
  if( tl_map_put(&p->thrMap, (uint64_t)tid, (uint32_t)p->nThr) ) return TL_ENOMEM;
  t = &p->aThr[p->nThr];
  memset(t, 0, sizeof(*t));
  t->tid = tid;
  t->iFirst = t->iLast = NONE;
  *pi = (uint32_t)p->nThr++;
  return TL_OK;
}

/* The group of kind (bNr, nr, z) of thread iThr into *pg (NULL: left out,
** past the cap): TL_OK, or TL_ENOMEM. */
static int grp_of(TlSysStats *p, uint32_t iThr, int bNr, int64_t nr, const char *z, size_t n,
                  SysGrp **pg){
  uint64_t h = kind_hash(iThr, bNr, nr, z, n);
  uint32_t i = NONE, iHead = NONE;
  SysGrp *g;
  SysThr *t = &p->aThr[iThr];
  *pg = 0;
  if( tl_map_get(&p->grpMap, h, &iHead) ){
    for(i=iHead; i!=NONE; i=p->aGrp[i].iHashNext){
      g = &p->aGrp[i];
      if( g->iThr==iThr && same_kind(g, bNr, nr, z, n) ){ *pg = g; return TL_OK; }
    }
  }
  if( p->nGrp>=TL_SYSSTAT_MAX_GROUPS ) return TL_OK;
  if( (g = tl_grow(p->aGrp, &p->nGrpAlloc, p->nGrp, sizeof(SysGrp)))==0 ) return TL_ENOMEM;
  p->aGrp = g;
  if( tl_map_put(&p->grpMap, h, (uint32_t)p->nGrp) ) return TL_ENOMEM;
  g = &p->aGrp[p->nGrp];
  memset(g, 0, sizeof(*g));
  g->iThr = iThr;
  g->iNext = NONE;
  g->iHashNext = iHead;
  g->bNr = bNr; g->nr = bNr ? nr : 0;
  g->z = z; g->n = z ? n : 0;
  if( t->iLast==NONE ) t->iFirst = (uint32_t)p->nGrp; else p->aGrp[t->iLast].iNext = (uint32_t)p->nGrp;
  t->iLast = (uint32_t)p->nGrp++;
  *pg = g;
  return TL_OK;
}

int tl_sysstats_add(TlSysStats *p, const TlSchedOut *o, int *pbLeft){
  uint32_t iThr;
  SysThr *t;
  SysGrp *g;
  int bKind = o->zSys!=0 || (o->bNr && o->nr>=0);   /* a call, not perf's -1 */
  int bNr = o->zSys==0 && o->bNr;                    /* a name is the kind when given */
  int rc;
  *pbLeft = 0;
  if( (rc = thr_of(p, o->tid, &iThr))!=TL_OK ) return rc;
  if( (rc = grp_of(p, iThr, bNr, o->nr, o->zSys, o->nSys, &g))!=TL_OK ) return rc;
  if( g==0 ){ *pbLeft = 1; return TL_OK; }
  t = &p->aThr[iThr];
  if( o->bPid ){ t->bPid = 1; t->pid = o->pid; }
  g->st.nEvent += o->bTs + o->bEnd;
  if( bKind && (o->bEnd || o->bTs) ){
    int64_t tAt = o->bEnd ? o->tsEnd : o->ts;
    if( !t->bLast || tAt>=t->tLast ){
      t->bLast = 1; t->tLast = tAt;
      memcpy(t->zLast, o->zComm, sizeof(t->zLast));
    }
  }
  if( o->zSys && o->bTs && o->bEnd && o->zComm[0] ){
    if( !t->bFirst || o->tsEnd<t->tFirst
     || (o->tsEnd==t->tFirst && strcmp(o->zComm, t->zFirst)<0) ){
      t->bFirst = 1; t->tFirst = o->tsEnd;
      memcpy(t->zFirst, o->zComm, sizeof(t->zFirst));
    }
  }
  /* a call: an exit with its entry, or a numbered one (perf counts each) */
  if( o->bEnd && (o->bTs || (o->bNr && o->nr>=0)) ){
    TlSysStat *s = &g->st;
    int64_t d = o->bDur ? o->dur : 0;
    double delta;
    if( s->nCall==0 || d<s->min ) s->min = d;
    if( s->nCall==0 || d>s->max ) s->max = d;
    s->nCall++;
    s->nErr += o->bRet && o->ret<0;
    s->total = tl_add_sat(s->total, d);
    /* Welford's rule, as perf's update_stats() */
    delta = (double)d - s->mean;
    s->mean += delta / (double)s->nCall;
    s->m2 += delta * ((double)d - s->mean);
  }
  return TL_OK;
}

int tl_sysstats_next(TlSysStats *p, TlSchedOut *pOut){
  const SysThr *t;
  const SysGrp *g;
  if( !p->bOut ){
    p->bOut = 1;
    p->iOutThr = 0;
    p->iOutGrp = p->nThr ? p->aThr[0].iFirst : NONE;
  }
  while( p->iOutThr<p->nThr && p->iOutGrp==NONE ){
    if( ++p->iOutThr<p->nThr ) p->iOutGrp = p->aThr[p->iOutThr].iFirst;
  }
  if( p->iOutThr>=p->nThr ) return 0;
  t = &p->aThr[p->iOutThr];
  g = &p->aGrp[p->iOutGrp];
  p->iOutGrp = g->iNext;
  memset(pOut, 0, sizeof(*pOut));
  pOut->eOut = TL_SCHED_OUT_SYSSTAT;
  pOut->tid = t->tid;
  pOut->bPid = t->bPid; pOut->pid = t->pid;
  memcpy(pOut->zComm, t->bFirst ? t->zFirst : t->zLast, sizeof(pOut->zComm));
  pOut->bNr = g->bNr; pOut->nr = g->nr;
  pOut->zSys = g->z; pOut->nSys = g->n;
  pOut->stat = g->st;
  return 1;
}
