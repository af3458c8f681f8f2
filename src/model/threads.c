/*
** threads.c: the threads of a trace and their names (model_threads.h).
**
** Threads are kept in the order they are first met; a map from tid to the
** tid's latest thread, and each thread's link to the tid's thread before
** it, find the thread of a tid at a time. A thread's names are a chain of
** entries (latest first) whose text lives in one pool: an inherited name
** is a new entry for the same text.
*/
#include "model_threads.h"

#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "num.h"

#define NONE UINT32_MAX

typedef struct ThName ThName;     /* a name given at a time */
struct ThName {
  int64_t ts;                     /* from then on (TL_THREADS_NO_TS: always) */
  size_t iText;                   /* its text in the pool (NUL-terminated) */
  uint32_t iPrev;                 /* the thread's name before it, or NONE */
  uint8_t bExec;
  uint8_t bInherited;             /* from the parent, at the fork */
};

typedef struct Th Th;
struct Th {
  int64_t id, tid, pid;
  int64_t tsStart;                /* the fork that reused the tid, INT64_MIN for the first */
  uint32_t iPrev;                 /* the tid's thread before it, or NONE */
  uint32_t iReuse;
  uint32_t iName, iNameFirst;     /* its last and first names, or NONE */
  int bExited;                    /* an exit was seen */
  int bTs;
  int64_t tsFirst, tsLast;
  uint64_t nEvents, nSamples;
};

struct TlThreads {
  Th *a; size_t n, nAlloc;
  TlMap latest;                   /* tid -> its latest thread */
  TlMap inherited;                /* tid not met yet -> the name a fork gave it */
  ThName *aName; size_t nName, nNameAlloc;
  char *zPool; size_t nPool, nPoolAlloc;
  int bReused;                    /* some tid names more than one thread */
  int bCapped;                    /* a thread was dropped at the cap */
  /* the last tid a record named, while it names one thread only and no
  ** thread was added since: most records repeat the tid before them */
  int64_t tidLast;
  uint32_t iLast;
  size_t nAtLast;
};

TlThreads *tl_threads_new(void){
  TlThreads *m = calloc(1, sizeof(TlThreads));
  if( m==0 ) return 0;
  tl_map_init(&m->latest);
  tl_map_init(&m->inherited);
  m->iLast = NONE;
  return m;
}

void tl_threads_free(TlThreads *m){
  if( m==0 ) return;
  tl_map_free(&m->latest);
  tl_map_free(&m->inherited);
  free(m->a);
  free(m->aName);
  free(m->zPool);
  free(m);
}

/* The thread of tid at ts, or NONE. */
static uint32_t thread_find(const TlThreads *m, int64_t tid, int64_t ts){
  uint32_t i;
  if( !tl_map_get(&m->latest, (uint64_t)tid, &i) ) return NONE;
  while( m->a[i].iPrev!=NONE && (ts==TL_THREADS_NO_TS || m->a[i].tsStart>ts) ){
    i = m->a[i].iPrev;
  }
  return i;
}

/* A new name entry for text iText, given at ts: its index into *pi. */
static int name_new(TlThreads *m, int64_t ts, size_t iText, int bExec, int bInherited,
                    uint32_t iPrev, uint32_t *pi){
  ThName *e, *aNew;
  if( m->nName>=NONE ) return TL_ENOMEM;
  aNew = tl_grow(m->aName, &m->nNameAlloc, m->nName, sizeof(ThName));
  if( aNew==0 ) return TL_ENOMEM;
  m->aName = aNew;
  e = &m->aName[m->nName];
  e->ts = ts;
  e->iText = iText;
  e->iPrev = iPrev;
  e->bExec = (uint8_t)bExec;
  e->bInherited = (uint8_t)bInherited;
  *pi = (uint32_t)m->nName++;
  return TL_OK;
}

/* Give thread t the name entry i (made with t's last name as iPrev). */
static void name_give(Th *t, uint32_t i){
  if( t->iNameFirst==NONE ) t->iNameFirst = i;
  t->iName = i;
}

/*
** A new thread of tid (a later one if iPrev is not NONE) into *pi; *pi is
** NONE at the cap. A tid's first thread takes the name a fork gave it.
*/
static int thread_new(TlThreads *m, int64_t tid, uint32_t iPrev, int64_t tsStart, uint32_t *pi){
  Th *t, *aNew;
  uint32_t iName;
  *pi = NONE;
  if( m->n>=TL_THREADS_MAX ){
    if( m->bCapped ) return TL_OK;
    m->bCapped = 1;
    return TL_DONE;
  }
  aNew = tl_grow(m->a, &m->nAlloc, m->n, sizeof(Th));
  if( aNew==0 ) return TL_ENOMEM;
  m->a = aNew;
  t = &m->a[m->n];
  memset(t, 0, sizeof(*t));
  t->tid = tid;
  t->pid = -1;
  t->iPrev = iPrev;
  t->tsStart = tsStart;
  t->iName = t->iNameFirst = NONE;
  if( iPrev!=NONE ){
    t->iReuse = m->a[iPrev].iReuse + 1;
    m->bReused = 1;
  }else if( tl_map_get(&m->inherited, (uint64_t)tid, &iName) ){
    name_give(t, iName);
  }
  t->id = tid + ((int64_t)t->iReuse<<32);
  if( tl_map_put(&m->latest, (uint64_t)tid, (uint32_t)m->n) ) return TL_ENOMEM;
  *pi = (uint32_t)m->n++;
  return TL_OK;
}

/* The thread of tid at ts, made if new, into *pi (NONE at the cap). */
static int thread_get(TlThreads *m, int64_t tid, int64_t ts, uint32_t *pi){
  *pi = thread_find(m, tid, ts);
  if( *pi!=NONE ) return TL_OK;
  return thread_new(m, tid, NONE, INT64_MIN, pi);
}

int tl_threads_record(TlThreads *m, int64_t ts, int64_t pid, int64_t tid, int bSample){
  Th *t;
  if( m->iLast!=NONE && tid==m->tidLast && m->n==m->nAtLast ){
    t = &m->a[m->iLast];
  }else{
    uint32_t i, iLatest;
    int rc = thread_get(m, tid, ts, &i);
    if( i==NONE ) return rc;
    t = &m->a[i];
    m->iLast = NONE;
    if( t->iPrev==NONE && tl_map_get(&m->latest, (uint64_t)tid, &iLatest) && iLatest==i ){
      m->tidLast = tid;
      m->iLast = i;
      m->nAtLast = m->n;
    }
  }
  t->nEvents++;
  if( pid>=0 ) t->pid = pid;
  if( bSample ) t->nSamples++;
  if( ts!=TL_THREADS_NO_TS ){
    if( !t->bTs || ts<t->tsFirst ) t->tsFirst = ts;
    if( !t->bTs || ts>t->tsLast ) t->tsLast = ts;
    t->bTs = 1;
  }
  return TL_OK;
}

int tl_threads_comm(TlThreads *m, int64_t ts, int64_t pid, int64_t tid,
                    const char *zName, size_t nName, int bExec){
  Th *t;
  uint32_t i, iName;
  size_t iText;
  int rc = thread_get(m, tid, ts, &i);
  (void)pid;
  if( i==NONE ) return rc;
  if( nName>=((size_t)1<<31) ) return TL_ENOMEM;
  if( m->nPool+nName+1>m->nPoolAlloc ){
    size_t nNew = m->nPoolAlloc ? m->nPoolAlloc*2 : 1024;
    char *zNew;
    while( nNew<m->nPool+nName+1 ) nNew *= 2;
    zNew = realloc(m->zPool, nNew);
    if( zNew==0 ) return TL_ENOMEM;
    m->zPool = zNew;
    m->nPoolAlloc = nNew;
  }
  iText = m->nPool;
  memcpy(m->zPool+iText, zName, nName);
  m->zPool[iText+nName] = 0;
  m->nPool += nName+1;
  t = &m->a[i];
  if( t->iName!=NONE && m->aName[t->iName].bInherited && m->aName[t->iName].ts==ts ){
    /* named at the fork's very time: the inherited name was never in force */
    uint32_t iInherited = t->iName;
    t->iName = m->aName[iInherited].iPrev;
    if( t->iNameFirst==iInherited ) t->iNameFirst = NONE;
  }
  if( name_new(m, ts, iText, bExec, 0, t->iName, &iName) ) return TL_ENOMEM;
  name_give(t, iName);
  return TL_OK;
}

/* The name entry in force for thread i at ts, or NONE. */
static uint32_t name_at(const TlThreads *m, uint32_t i, int64_t ts){
  uint32_t k = m->a[i].iName;
  if( ts==TL_THREADS_NO_TS ) return m->a[i].iNameFirst;
  while( k!=NONE && m->aName[k].ts>ts ) k = m->aName[k].iPrev;
  return k;
}

int tl_threads_fork(TlThreads *m, int64_t ts, int64_t ppid, int64_t ptid, int64_t pid, int64_t tid){
  uint32_t iParent = thread_find(m, ptid, ts), iName = NONE, iLast, iChild = NONE;
  int rc = TL_OK;
  (void)ppid; (void)pid;
  if( iParent!=NONE ) iName = name_at(m, iParent, ts);
  if( tl_map_get(&m->latest, (uint64_t)tid, &iLast) ){
    /* a fork of a tid whose latest thread has ended: a new thread */
    const Th *last = &m->a[iLast];
    if( ts!=TL_THREADS_NO_TS && last->bExited && last->bTs && last->tsLast<ts && ts>last->tsStart ){
      rc = thread_new(m, tid, iLast, ts, &iChild);
      if( iChild==NONE ) return rc;
    }else{
      iChild = thread_find(m, tid, ts);
    }
  }
  if( iName==NONE ) return rc;
  if( iChild==NONE ){
    /* a tid not met yet: its first thread takes the name when it comes */
    uint32_t iNew;
    if( name_new(m, ts, m->aName[iName].iText, 0, 1, NONE, &iNew)
     || tl_map_put(&m->inherited, (uint64_t)tid, iNew) ) return TL_ENOMEM;
  }else if( m->a[iChild].iName==NONE ){
    uint32_t iNew;
    if( name_new(m, ts, m->aName[iName].iText, 0, 1, NONE, &iNew) ) return TL_ENOMEM;
    name_give(&m->a[iChild], iNew);
  }
  return rc;
}

int tl_threads_exit(TlThreads *m, int64_t ts, int64_t pid, int64_t tid){
  uint32_t i;
  int rc = thread_get(m, tid, ts, &i);
  (void)pid;
  if( i!=NONE ) m->a[i].bExited = 1;
  return rc;
}

size_t tl_threads_count(const TlThreads *m){
  return m->n;
}

static const char *name_text(const TlThreads *m, uint32_t i){
  return i==NONE ? 0 : m->zPool + m->aName[i].iText;
}

void tl_threads_get(const TlThreads *m, size_t k, TlThread *pOut){
  const Th *t = &m->a[k];
  pOut->id = t->id;
  pOut->tid = t->tid;
  pOut->pid = t->pid;
  pOut->iReuse = t->iReuse;
  pOut->zName = name_text(m, t->iName);
  pOut->zNameFirst = name_text(m, t->iNameFirst);
  pOut->bTs = t->bTs;
  pOut->tsFirst = t->tsFirst;
  pOut->tsLast = t->tsLast;
  pOut->nEvents = t->nEvents;
  pOut->nSamples = t->nSamples;
}

int tl_threads_reused(const TlThreads *m){
  return m->bReused;
}

int64_t tl_threads_id(const TlThreads *m, int64_t tid, int64_t ts){
  uint32_t i = thread_find(m, tid, ts);
  return i==NONE ? tid : m->a[i].id;
}

const char *tl_threads_name_at(const TlThreads *m, int64_t tid, int64_t ts){
  uint32_t i = thread_find(m, tid, ts);
  return i==NONE ? 0 : name_text(m, name_at(m, i, ts));
}
