/*
** sched.c: threads on CPUs from scheduler records (model_sched.h).
**
** One pass in time order. Each CPU keeps the thread it runs and since
** when (its open slice); each thread keeps its open state interval, when
** it last left a CPU and when it was last made ready to run (woken, or
** preempted), which is what perf sched timehist reports as wait time and
** scheduling delay (from its first wakeup since it left, as the perf
** sched of perf 6.1 counts it: a preempted thread has no delay). An output is queued when its interval ends; at the end
** the open ones are given without an end, one by one.
*/
#include "model_sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "num.h"
#include "sysstat.h"

/* ---- names ---------------------------------------------------------------- */

static const struct { const char *zName; int eKind; } aKind[] = {
  /* perf tracepoints (also in perf data convert --to-ctf), LTTng kernel */
  { "sched:sched_switch", TL_SCHED_SWITCH },        { "sched_switch", TL_SCHED_SWITCH },
  { "sched:sched_wakeup", TL_SCHED_WAKEUP },        { "sched_wakeup", TL_SCHED_WAKEUP },
  { "sched:sched_wakeup_new", TL_SCHED_WAKEUP_NEW },{ "sched_wakeup_new", TL_SCHED_WAKEUP_NEW },
  { "sched:sched_waking", TL_SCHED_WAKING },        { "sched_waking", TL_SCHED_WAKING },
  { "sched:sched_migrate_task", TL_SCHED_MIGRATE }, { "sched_migrate_task", TL_SCHED_MIGRATE },
  { "sched:sched_process_fork", TL_SCHED_FORK },    { "sched_process_fork", TL_SCHED_FORK },
  { "sched:sched_process_exit", TL_SCHED_EXIT },    { "sched_process_exit", TL_SCHED_EXIT },
  { "sched:sched_process_exec", TL_SCHED_EXEC },    { "sched_process_exec", TL_SCHED_EXEC },
  { "sched:sched_process_free", TL_SCHED_FREE },    { "sched_process_free", TL_SCHED_FREE },
  { "sched:sched_stat_runtime", TL_SCHED_STAT_RUNTIME }, { "sched_stat_runtime", TL_SCHED_STAT_RUNTIME },
  /* LTTng's state dump names the threads running when tracing started */
  { "lttng_statedump_process_state", TL_SCHED_NAME },
  /* perf data convert --to-ctf --all: perf's COMM and FORK records */
  { "perf_comm", TL_SCHED_NAME },                   { "perf_fork", TL_SCHED_NEW_THREAD },
  /* system calls: perf's by number; LTTng's by name (the prefixes below),
  ** before lttng-modules 2.6 sys_NAME and one exit_syscall naming no call */
  { "raw_syscalls:sys_enter", TL_SCHED_SYS_ENTER }, { "raw_syscalls:sys_exit", TL_SCHED_SYS_EXIT },
  { "exit_syscall", TL_SCHED_SYS_EXIT },
};
#define SYS_ENTRY "syscall_entry_"
#define SYS_EXIT  "syscall_exit_"
#define SYS_ENTRY_OLD "sys_"

/* The call an LTTng entry or exit event zEvent names (*pn bytes), or NULL. */
static const char *sys_name(const char *zEvent, int eKind, size_t *pn){
  const char *zPre = eKind==TL_SCHED_SYS_ENTER ? SYS_ENTRY : SYS_EXIT;
  const char *z = 0;
  if( zEvent==0 ) return 0;
  if( strncmp(zEvent, zPre, strlen(zPre))==0 ){
    z = zEvent + strlen(zPre);
  }else if( eKind==TL_SCHED_SYS_ENTER
         && strncmp(zEvent, SYS_ENTRY_OLD, sizeof(SYS_ENTRY_OLD)-1)==0 ){
    z = zEvent + sizeof(SYS_ENTRY_OLD)-1;
  }
  if( z ) *pn = strlen(z);
  return z;
}

int tl_sched_kind(const char *zName){
  size_t i;
  if( zName==0 ) return TL_SCHED_NONE;
  for(i=0; i<sizeof(aKind)/sizeof(aKind[0]); i++){
    if( strcmp(aKind[i].zName, zName)==0 ) return aKind[i].eKind;
  }
  if( strncmp(zName, SYS_ENTRY, sizeof(SYS_ENTRY)-1)==0 ) return TL_SCHED_SYS_ENTER;
  if( strncmp(zName, SYS_EXIT, sizeof(SYS_EXIT)-1)==0 ) return TL_SCHED_SYS_EXIT;
  if( strncmp(zName, SYS_ENTRY_OLD, sizeof(SYS_ENTRY_OLD)-1)==0 ) return TL_SCHED_SYS_ENTER;
  return TL_SCHED_NONE;
}

/*
** Field names by kind. The thread running at the event: perf's common_pid
** (perf_tid/perf_pid in a converted trace). Where perf says pid it means
** the thread; LTTng says tid, and its pid is the process.
*/
#define CUR_FIELDS \
  { "perf_tid", TL_SF_CUR_TID, 0 }, { "common_pid", TL_SF_CUR_TID, 0 }, \
  { "perf_pid", TL_SF_CUR_PID, 0 }, { "perf_cpu", TL_SF_CPU, 0 }
static const TlSchedField aSwitch[] = {
  CUR_FIELDS,
  { "prev_tid", TL_SF_PREV_TID, 0 }, { "prev_pid", TL_SF_PREV_TID, 0 },
  { "prev_prio", TL_SF_PREV_PRIO, 0 }, { "prev_state", TL_SF_PREV_STATE, 0 },
  { "prev_comm", TL_SF_PREV_COMM, 0 },
  { "next_tid", TL_SF_NEXT_TID, 0 }, { "next_pid", TL_SF_NEXT_TID, 0 },
  { "next_prio", TL_SF_NEXT_PRIO, 0 }, { "next_comm", TL_SF_NEXT_COMM, 0 },
};
static const TlSchedField aTask[] = {   /* wakeups, migrate, exit, free */
  CUR_FIELDS,
  { "tid", TL_SF_TID, 0 }, { "pid", TL_SF_TID, 0 }, { "pid", TL_SF_PID, "tid" },
  { "prio", TL_SF_PRIO, 0 }, { "comm", TL_SF_COMM, 0 },
  { "target_cpu", TL_SF_TARGET_CPU, 0 },
  { "orig_cpu", TL_SF_ORIG_CPU, 0 }, { "dest_cpu", TL_SF_DEST_CPU, 0 },
  { "runtime", TL_SF_RUNTIME, 0 },
};
static const TlSchedField aFork[] = {
  CUR_FIELDS,
  { "parent_tid", TL_SF_PARENT_TID, 0 }, { "parent_pid", TL_SF_PARENT_TID, 0 },
  { "parent_pid", TL_SF_PARENT_PID, "parent_tid" },
  { "child_tid", TL_SF_CHILD_TID, 0 }, { "child_pid", TL_SF_CHILD_TID, 0 },
  { "child_pid", TL_SF_CHILD_PID, "child_tid" },
  { "child_comm", TL_SF_CHILD_COMM, 0 },
};
static const TlSchedField aExec[] = {
  CUR_FIELDS,
  { "tid", TL_SF_TID, 0 }, { "pid", TL_SF_TID, 0 },
  { "old_tid", TL_SF_OLD_TID, 0 }, { "old_pid", TL_SF_OLD_TID, 0 },
  { "filename", TL_SF_FILENAME, 0 },
};
static const TlSchedField aName[] = {   /* the state dump; perf's COMM records */
  { "tid", TL_SF_TID, 0 }, { "pid", TL_SF_PID, 0 }, { "name", TL_SF_COMM, 0 },
  { "comm", TL_SF_COMM, 0 },
};
static const TlSchedField aSys[] = {
  CUR_FIELDS, { "id", TL_SF_NR, 0 }, { "ret", TL_SF_RET, 0 },
};
static const TlSchedField aNewThread[] = {  /* perf's FORK records */
  { "ptid", TL_SF_PARENT_TID, 0 }, { "ppid", TL_SF_PARENT_PID, 0 },
  { "tid", TL_SF_CHILD_TID, 0 }, { "pid", TL_SF_CHILD_PID, 0 },
};

#define N(a) ((int)(sizeof(a)/sizeof(a[0])))

const TlSchedField *tl_sched_fields(int eKind, int *pn){
  switch( eKind ){
    case TL_SCHED_SWITCH: *pn = N(aSwitch); return aSwitch;
    case TL_SCHED_WAKEUP: case TL_SCHED_WAKEUP_NEW: case TL_SCHED_WAKING:
    case TL_SCHED_MIGRATE: case TL_SCHED_EXIT: case TL_SCHED_FREE:
    case TL_SCHED_STAT_RUNTIME:
      *pn = N(aTask); return aTask;
    case TL_SCHED_FORK: *pn = N(aFork); return aFork;
    case TL_SCHED_EXEC: *pn = N(aExec); return aExec;
    case TL_SCHED_NAME: *pn = N(aName); return aName;
    case TL_SCHED_NEW_THREAD: *pn = N(aNewThread); return aNewThread;
    case TL_SCHED_SYS_ENTER: case TL_SCHED_SYS_EXIT: *pn = N(aSys); return aSys;
    default: *pn = 0; return 0;
  }
}

/* ---- state ------------------------------------------------------------- */

/* Thread states; ST_NONE: no interval open. */
enum {
  ST_NONE, ST_RUNNING, ST_RUNNABLE, ST_PREEMPTED, ST_SLEEPING, ST_UNINT,
  ST_STOPPED, ST_TRACED, ST_DEAD, ST_ZOMBIE, ST_PARKED, ST_IDLE, ST_UNKNOWN
};
static const char *const azState[] = {
  0, "Running", "Runnable", "Runnable (Preempted)", "Sleeping", "Uninterruptible",
  "Stopped", "Traced", "Dead", "Zombie", "Parked", "Idle", "Unknown"
};
/* prev_state bits below TASK_REPORT_MAX, lowest first (the kernel's
** __trace_sched_switch_state; LTTng records the same values) */
static const char *const azEnd[] = { "S", "D", "T", "t", "X", "Z", "P", "I" };
static const int aEndState[] = {
  ST_SLEEPING, ST_UNINT, ST_STOPPED, ST_TRACED, ST_DEAD, ST_ZOMBIE, ST_PARKED, ST_IDLE
};

/* A system call's entry or exit, as the rows need it. */
typedef struct Sys Sys;
struct Sys {
  int b;                          /* set (a thread's: an entry is pending) */
  int bTs; int64_t ts;
  int bCpu; int64_t cpu;
  int bNr; int64_t nr;
  const char *z; size_t n;        /* the call's name, or NULL */
  int bWanted;                    /* an entry counted in nPending */
};

/* A thread's waits so far, from its states (TlSchedSum's). */
typedef struct ThrSum ThrSum;
struct ThrSum {
  int bAny;                       /* a state counted */
  int64_t nWait, delay, runtime;
  int bMax; int64_t maxDelay, maxTs;
  int64_t nNoTs;                  /* states of unknown start */
  int bMin; int64_t tsMin;        /* the first start */
  int bRun; int64_t tsRun;        /* the first Running start */
  int64_t endLast;                /* the last end (open: the greatest) */
  char zLast[TL_SCHED_COMM_MAX];  /* the thread's name at that end */
  int64_t nSlice, run, minRun, maxRun, wait;   /* its slices (TlSchedSum) */
};

typedef struct Thr Thr;
struct Thr {
  int64_t tid;
  int bPid; int64_t pid;
  char zComm[TL_SCHED_COMM_MAX];
  int bNamed;                     /* named by a name record: the fields' comms
                                  ** no longer rename it */
  int eState;                     /* the open interval (ST_NONE: none) */
  int bTs; int64_t ts;            /* its start */
  int bCpu; int64_t cpu;
  int bWaker; int64_t waker;
  int eWakeup;                    /* the wakeup's kind, or 0 */
  int bWanted;                    /* counted in nPending */
  int bLastOut; int64_t tsLastOut;/* its last switch out */
  int bReady; int64_t tsReady;    /* woken or preempted since then */
  int bRuntime; int64_t runtime;  /* sched_stat_runtime since its last run ended */
  Sys sys;                        /* its system call entered last, if pending */
  int bEntered; int64_t tsEntered;/* its latest entry of a numbered call, paired
                                  ** or not (perf trace's entry_time) */
  char zRec[TL_SCHED_COMM_MAX];   /* its name from name records (and its parent's,
                                  ** at a fork) only */
  ThrSum sum;                     /* its waits (sched_threads) */
};

typedef struct Cpu Cpu;
struct Cpu {
  int bCur; int64_t tid;          /* the thread it runs: its slice is open */
  int bTs; int64_t ts;            /* the slice's start */
  int bPrio; int64_t prio;
  int bWait; int64_t wait;
  int bDelay; int64_t delay;
  int bWanted;                    /* counted in nPending */
  int bSw; int64_t tsSw;          /* its last switch */
  Thr idle;                       /* its idle thread (tid 0) */
};

struct TlSched {
  int mOut;
  int64_t tsLo, tsHi;
  int64_t *aCpuWant; int nCpuWant;
  Cpu *aCpu; size_t nCpu;
  Thr *aThr; size_t nThr, nThrAlloc;
  TlMap thrMap;                   /* tid -> index in aThr */
  int bLast; int64_t tsLast;      /* the latest time fed */
  int bPast;                      /* a record after tsHi was fed */
  int bWaking;                    /* a sched_waking was fed */
  int bRecNames;                  /* syscalls: threads named by name records only */
  uint64_t nPending;              /* open intervals that will be given */
  TlSchedOut *aQ; size_t nQ, iQ, nQAlloc;
  int bFinish; size_t iFin;       /* finishing: next CPU, then thread */
  TlSysStats *pStats;             /* the system calls summed (TL_SCHED_OUT_SYSSTAT) */
  uint64_t nOdd;
  const char *zOdd;
};

TlSched *tl_sched_new(int mOut, int64_t tsLo, int64_t tsHi, const int64_t *aCpu, int nCpu){
  TlSched *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  p->mOut = mOut;
  p->tsLo = tsLo;
  p->tsHi = tsHi;
  p->nCpuWant = nCpu;
  if( nCpu>0 ){
    p->aCpuWant = malloc(sizeof(int64_t)*(size_t)nCpu);
    if( p->aCpuWant==0 ){ free(p); return 0; }
    memcpy(p->aCpuWant, aCpu, sizeof(int64_t)*(size_t)nCpu);
  }
  tl_map_init(&p->thrMap);
  if( (mOut & TL_SCHED_OUT_SYSSTAT) && (p->pStats = tl_sysstats_new())==0 ){
    tl_sched_free(p);
    return 0;
  }
  return p;
}

void tl_sched_free(TlSched *p){
  if( p==0 ) return;
  free(p->aCpuWant);
  free(p->aCpu);
  free(p->aThr);
  free(p->aQ);
  tl_map_free(&p->thrMap);
  tl_sysstats_free(p->pStats);
  free(p);
}

static void odd(TlSched *p, const char *zWhat){
  if( p->nOdd++==0 ) p->zOdd = zWhat;
}

uint64_t tl_sched_oddities(const TlSched *p, const char **pzFirst){
  *pzFirst = p->zOdd;
  return p->nOdd;
}

/* Would an output starting at (bTs, ts) on (bCpu, cpu) be given? */
static int wanted(const TlSched *p, int eOut, int bTs, int64_t ts, int bCpu, int64_t cpu){
  int k;
  if( !(p->mOut & eOut) ) return 0;
  if( p->tsLo!=TL_TS_MIN || p->tsHi!=TL_TS_MAX ){
    if( !bTs || ts<p->tsLo || ts>p->tsHi ) return 0;
  }
  if( p->nCpuWant>=0 ){
    if( !bCpu ) return 0;
    for(k=0; k<p->nCpuWant && p->aCpuWant[k]!=cpu; k++){}
    if( k==p->nCpuWant ) return 0;
  }
  return 1;
}

/* Room for one more queued output, or NULL when out of memory. */
static TlSchedOut *queue_add(TlSched *p){
  TlSchedOut *o;
  if( p->iQ==p->nQ ) p->iQ = p->nQ = 0;
  if( p->nQ==p->nQAlloc ){
    size_t nNew = p->nQAlloc ? p->nQAlloc*2 : 16;
    TlSchedOut *aNew = realloc(p->aQ, nNew*sizeof(TlSchedOut));
    if( aNew==0 ) return 0;
    p->aQ = aNew;
    p->nQAlloc = nNew;
  }
  o = &p->aQ[p->nQ++];
  memset(o, 0, sizeof(*o));
  return o;
}

static void out_thread(TlSchedOut *o, const Thr *t){
  o->tid = t->tid;
  o->bPid = t->bPid;
  o->pid = t->pid;
  memcpy(o->zComm, t->zComm, sizeof(o->zComm));
}

/* ---- threads and CPUs ---------------------------------------------------- */

static Cpu *cpu_get(TlSched *p, int bCpu, int64_t cpu){
  if( !bCpu || cpu<0 || cpu>=TL_SCHED_MAX_CPUS ){
    if( bCpu ) odd(p, "a CPU number past the model's cap");
    return 0;
  }
  if( (size_t)cpu>=p->nCpu ){
    size_t nNew = (size_t)cpu + 1, k;
    Cpu *aNew = realloc(p->aCpu, nNew*sizeof(Cpu));
    if( aNew==0 ) return 0;
    for(k=p->nCpu; k<nNew; k++){
      memset(&aNew[k], 0, sizeof(Cpu));
      strcpy(aNew[k].idle.zComm, "swapper");
      aNew[k].idle.bPid = 1;
    }
    p->aCpu = aNew;
    p->nCpu = nNew;
  }
  return &p->aCpu[cpu];
}

/* Thread tid (made when new; tid 0: the CPU's idle thread), or NULL (out of
** memory, past the cap, or an idle thread of no known CPU). */
static Thr *thr_get(TlSched *p, int64_t tid, Cpu *pCpu){
  uint32_t k;
  Thr *t;
  if( tid==0 ) return pCpu ? &pCpu->idle : 0;
  if( tl_map_get(&p->thrMap, (uint64_t)tid, &k) ) return &p->aThr[k];
  if( p->nThr>=TL_SCHED_MAX_THREADS ){ odd(p, "more threads than the model keeps"); return 0; }
  if( p->nThr==p->nThrAlloc ){
    size_t nNew = p->nThrAlloc ? p->nThrAlloc*2 : 256;
    Thr *aNew = realloc(p->aThr, nNew*sizeof(Thr));
    if( aNew==0 ) return 0;
    p->aThr = aNew;
    p->nThrAlloc = nNew;
  }
  if( tl_map_put(&p->thrMap, (uint64_t)tid, (uint32_t)p->nThr) ) return 0;
  t = &p->aThr[p->nThr++];
  memset(t, 0, sizeof(*t));
  t->tid = tid;
  return t;
}

/* Thread tid if the model has it (tid 0: the CPU's idle thread), else NULL. */
static Thr *thr_find(TlSched *p, int64_t tid, Cpu *pCpu){
  uint32_t k;
  if( tid==0 ) return pCpu ? &pCpu->idle : 0;
  return tl_map_get(&p->thrMap, (uint64_t)tid, &k) ? &p->aThr[k] : 0;
}

static void name_copy(char *zTo, const char *z, size_t n){
  if( z==0 ) return;
  if( n>=TL_SCHED_COMM_MAX ) n = TL_SCHED_COMM_MAX-1;
  memcpy(zTo, z, n);
  zTo[n] = 0;
}
static void name_set(Thr *t, const char *z, size_t n){
  name_copy(t->zComm, z, n);
}

/* A comm field naming t: kept unless a name record named it. */
static void name_field(const TlSchedRec *r, int iRole, Thr *t){
  if( t && !t->bNamed && t->tid!=0 && (r->mHave & ((uint32_t)1<<iRole)) ){
    name_set(t, r->az[iRole - TL_SF_PREV_COMM], r->an[iRole - TL_SF_PREV_COMM]);
  }
}

/* The time from a to b (a <= b, as fed), held at INT64_MAX. */
static int64_t sum_span(int64_t a, int64_t b){
  uint64_t d = (uint64_t)b - (uint64_t)a;
  return d>(uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/*
** t's state interval ending at (bEnd, tsEnd), counted in its waits as
** perf sched latency counts them (TlSchedSum): not a preemption, nor a
** Runnable made by sched_waking.
*/
static void sum_state(Thr *t, int bEnd, int64_t tsEnd){
  ThrSum *s = &t->sum;
  int64_t end = bEnd ? tsEnd : INT64_MAX;
  if( t->eState==ST_PREEMPTED || t->eWakeup==TL_SCHED_WAKING ) return;
  if( !s->bAny || end>s->endLast || (end==s->endLast && strcmp(t->zComm, s->zLast)<0) ){
    s->endLast = end;
    memcpy(s->zLast, t->zComm, sizeof(s->zLast));
  }
  s->bAny = 1;
  if( t->eState==ST_RUNNING && t->bRuntime ) s->runtime = tl_add_sat(s->runtime, t->runtime);
  if( !t->bTs ){ s->nNoTs++; return; }
  if( !s->bMin || t->ts<s->tsMin ){ s->bMin = 1; s->tsMin = t->ts; }
  if( t->eState==ST_RUNNING ){
    if( !s->bRun || t->ts<s->tsRun ){ s->bRun = 1; s->tsRun = t->ts; }
  }else if( t->eState==ST_RUNNABLE && bEnd ){
    int64_t d = sum_span(t->ts, tsEnd);
    s->nWait++;
    s->delay = tl_add_sat(s->delay, d);
    if( !s->bMax || d>s->maxDelay || (d==s->maxDelay && t->ts<s->maxTs) ){
      s->bMax = 1; s->maxDelay = d; s->maxTs = t->ts;
    }
  }
}

/* t's waits as a sched_threads row. */
static void sum_out(const Thr *t, TlSchedOut *o){
  const ThrSum *s = &t->sum;
  int bRun1 = s->nNoTs==0 && s->bMin && s->bRun && s->tsMin==s->tsRun;
  o->eOut = TL_SCHED_OUT_THREAD;
  out_thread(o, t);
  memcpy(o->zComm, s->zLast, sizeof(o->zComm));
  o->sum.nSwitch = s->nWait + bRun1;
  o->sum.delay = s->delay;
  o->sum.runtime = s->runtime;
  o->sum.nSlice = s->nSlice;
  o->sum.run = s->run;
  o->sum.minRun = s->minRun;
  o->sum.maxRun = s->maxRun;
  o->sum.wait = s->wait;
  if( s->bMax && s->maxDelay>0 ){
    o->sum.maxDelay = s->maxDelay;
    o->sum.bMaxTs = 1; o->sum.maxTs = s->maxTs;
  }
}

/* End t's open state interval at (bTs, ts): queued when wanted. */
static int state_end(TlSched *p, Thr *t, int bTs, int64_t ts){
  if( t->eState==ST_NONE ) return TL_OK;
  if( (p->mOut & TL_SCHED_OUT_THREAD) && t->tid!=0 ) sum_state(t, bTs, ts);
  if( t->bWanted ){
    TlSchedOut *o = queue_add(p);
    p->nPending--;
    if( o==0 ) return TL_ENOMEM;
    o->eOut = TL_SCHED_OUT_STATE;
    o->bTs = t->bTs; o->ts = t->ts;
    o->bEnd = bTs; o->tsEnd = ts;
    o->bCpu = t->bCpu; o->cpu = t->cpu;
    out_thread(o, t);
    o->zState = azState[t->eState];
    o->bWaker = t->bWaker; o->waker = t->waker;
    o->eWakeup = t->eWakeup;
    if( t->eState==ST_RUNNING ){ o->bRuntime = t->bRuntime; o->runtime = t->runtime; }
  }
  if( t->eState==ST_RUNNING ){ t->bRuntime = 0; t->runtime = 0; }
  t->eState = ST_NONE;
  t->bWanted = 0;
  return TL_OK;
}

/* Open state eState for t at (bTs, ts) on (bCpu, cpu). */
static void state_begin(TlSched *p, Thr *t, int eState, int bTs, int64_t ts,
                        int bCpu, int64_t cpu){
  t->eState = eState;
  t->bTs = bTs; t->ts = ts;
  t->bCpu = bCpu; t->cpu = cpu;
  t->bWaker = 0;
  t->eWakeup = 0;
  t->bWanted = t->tid!=0 && wanted(p, TL_SCHED_OUT_STATE, bTs, ts, bCpu, cpu);
  if( t->bWanted ) p->nPending++;
}

/* End CPU c's slice (of thread t, or NULL) at (bTs, ts), left in zEnd. */
static int slice_end(TlSched *p, Cpu *c, int64_t cpu, Thr *t, int bTs, int64_t ts,
                     const char *zEnd){
  Thr *w = (p->mOut & TL_SCHED_OUT_THREAD) && bTs ? (t ? t : thr_find(p, c->tid, c)) : 0;
  if( w && w->tid!=0 ){
    /* a slice that ended, in its thread's runs (perf sched timehist -s) */
    ThrSum *s = &w->sum;
    int64_t run = c->bTs ? sum_span(c->ts, ts) : 0;
    if( s->nSlice==0 || run<s->minRun ) s->minRun = run;
    if( s->nSlice==0 || run>s->maxRun ) s->maxRun = run;
    s->nSlice++;
    s->run = tl_add_sat(s->run, run);
    if( c->bWait ) s->wait = tl_add_sat(s->wait, c->wait);
  }
  if( c->bWanted ){
    TlSchedOut *o = queue_add(p);
    p->nPending--;
    c->bWanted = 0;
    if( o==0 ) return TL_ENOMEM;
    o->eOut = TL_SCHED_OUT_SLICE;
    o->bTs = c->bTs; o->ts = c->ts;
    o->bEnd = bTs; o->tsEnd = ts;
    o->bCpu = 1; o->cpu = cpu;
    if( t ){
      out_thread(o, t);
      o->bRuntime = t->bRuntime; o->runtime = t->runtime;
    }else{
      o->tid = c->tid;
    }
    o->bPrio = c->bPrio; o->prio = c->prio;
    o->zEndState = zEnd;
    o->bWait = c->bWait; o->wait = c->wait;
    o->bDelay = c->bDelay; o->delay = c->delay;
  }
  c->bCur = 0;
  return TL_OK;
}

/* The state a thread leaves a CPU in (prev_state) and its letters. */
static int end_state(const TlSchedRec *r, const char **pzEnd){
  uint64_t v;
  int b;
  if( !(r->mHave & ((uint32_t)1<<TL_SF_PREV_STATE)) ){ *pzEnd = 0; return ST_UNKNOWN; }
  v = (uint64_t)r->a[TL_SF_PREV_STATE];
  if( v==0 ){ *pzEnd = "R"; return ST_RUNNABLE; }
  for(b=0; b<8; b++){
    if( v & ((uint64_t)1<<b) ){ *pzEnd = azEnd[b]; return aEndState[b]; }
  }
  /* TASK_REPORT_MAX alone: preempted while running */
  *pzEnd = "R+";
  return ST_PREEMPTED;
}

static int has(const TlSchedRec *r, int iRole){ return (r->mHave >> iRole) & 1; }

/* Thread t is switched in on CPU c (of record r) at the slice's start. */
static void slice_begin(Cpu *c, const TlSchedRec *r, Thr *t, int iPrio){
  c->bCur = 1; c->tid = t->tid;
  c->bPrio = has(r, iPrio); c->prio = r->a[iPrio];
  c->bWait = c->bTs && t->bLastOut && t->tsLastOut<=c->ts;
  c->wait = c->ts - t->tsLastOut;
  c->bDelay = c->bTs && t->bReady && t->tsReady<=c->ts;
  c->delay = c->ts - t->tsReady;
  t->bReady = 0;
}

/* CPU c's open slice becomes prev's: the thread it ran ends at an unknown
** time, prev runs from the slice's start. */
static int slice_take_over(TlSched *p, Cpu *c, const TlSchedRec *r, Thr *prev){
  Thr *old = c->bCur ? thr_find(p, c->tid, c) : 0;
  int rc;
  if( old && old->eState==ST_RUNNING && old->bCpu && old->cpu==r->cpu ){
    if( (rc = state_end(p, old, 0, 0))!=0 ) return rc;
  }
  slice_begin(c, r, prev, TL_SF_PREV_PRIO);
  if( prev->eState!=ST_RUNNING ){
    /* when it stopped waiting is not known: no switch in said */
    if( (rc = state_end(p, prev, 0, 0))!=0 ) return rc;
    state_begin(p, prev, ST_RUNNING, c->bTs, c->ts, 1, r->cpu);
  }
  return TL_OK;
}

/* ---- the records ----------------------------------------------------------- */

static int on_switch(TlSched *p, const TlSchedRec *r, int bTs, int64_t ts){
  Cpu *c = cpu_get(p, r->bCpu, r->cpu);
  Thr *prev, *next;
  const char *zEnd;
  int eEnd, rc;
  int64_t tidPrev;
  if( c==0 ) return r->bCpu && r->cpu>=0 && r->cpu<TL_SCHED_MAX_CPUS ? TL_ENOMEM : TL_OK;
  tidPrev = has(r, TL_SF_PREV_TID) ? r->a[TL_SF_PREV_TID]
          : has(r, TL_SF_CUR_TID) ? r->a[TL_SF_CUR_TID] : (c->bCur ? c->tid : -1);
  eEnd = end_state(r, &zEnd);
  prev = tidPrev>=0 ? thr_get(p, tidPrev, c) : 0;
  if( c->bCur && c->tid!=tidPrev ){
    /* the CPU ran another thread as far as the records tell (a switch was
    ** lost): as perf sched does, the slice since the CPU's last switch is
    ** the thread that leaves now; the other one's end is unknown */
    odd(p, "a switch out of a thread the CPU was not running");
    if( prev==0 ){
      rc = slice_end(p, c, r->cpu, thr_find(p, c->tid, c), bTs, ts, 0);
      if( rc ) return rc;
    }else if( (rc = slice_take_over(p, c, r, prev))!=0 ){
      return rc;
    }
  }
  if( prev ){
    name_field(r, TL_SF_PREV_COMM, prev);
    if( !c->bCur ){
      /* running since the CPU's last switch (unknown: before its first) */
      c->bTs = c->bSw; c->ts = c->tsSw;
      c->bWanted = wanted(p, TL_SCHED_OUT_SLICE, c->bTs, c->ts, 1, r->cpu);
      if( c->bWanted ) p->nPending++;
      if( (rc = slice_take_over(p, c, r, prev))!=0 ) return rc;
    }
    if( (rc = slice_end(p, c, r->cpu, prev, bTs, ts, zEnd))!=0 ) return rc;
    if( (rc = state_end(p, prev, bTs, ts))!=0 ) return rc;
    state_begin(p, prev, eEnd, bTs, ts, 1, r->cpu);
    prev->bLastOut = bTs; prev->tsLastOut = ts;
    prev->bReady = 0;             /* (perf: only a wakeup makes it ready) */
  }else if( c->bCur ){
    if( (rc = slice_end(p, c, r->cpu, 0, bTs, ts, zEnd))!=0 ) return rc;
  }
  c->bCur = 0;
  c->bSw = bTs; c->tsSw = ts;
  if( !has(r, TL_SF_NEXT_TID) ) return TL_OK;
  next = thr_get(p, r->a[TL_SF_NEXT_TID], c);
  if( next==0 ) return p->nThr>=TL_SCHED_MAX_THREADS ? TL_OK : TL_ENOMEM;
  name_field(r, TL_SF_NEXT_COMM, next);
  if( next->eState==ST_RUNNING && next->tid!=0 && next->bCpu && next->cpu!=r->cpu ){
    /* switched in here while running elsewhere: that slice's end is unknown */
    Cpu *o = cpu_get(p, 1, next->cpu);
    odd(p, "a switch in of a thread running on another CPU");
    if( o && o->bCur && o->tid==next->tid ){
      if( (rc = slice_end(p, o, next->cpu, next, 0, 0, 0))!=0 ) return rc;
    }
    if( (rc = state_end(p, next, 0, 0))!=0 ) return rc;
  }
  if( (rc = state_end(p, next, bTs, ts))!=0 ) return rc;
  c->bTs = bTs; c->ts = ts;
  slice_begin(c, r, next, TL_SF_NEXT_PRIO);
  c->bWanted = wanted(p, TL_SCHED_OUT_SLICE, bTs, ts, 1, r->cpu);
  if( c->bWanted ) p->nPending++;
  state_begin(p, next, ST_RUNNING, bTs, ts, 1, r->cpu);
  return TL_OK;
}

static int on_wakeup(TlSched *p, const TlSchedRec *r, int bTs, int64_t ts){
  Cpu *c = cpu_get(p, r->bCpu, r->cpu);
  Thr *t;
  int rc, bWaker = 0;
  int64_t waker = 0;
  if( !has(r, TL_SF_TID) ) return TL_OK;
  t = thr_get(p, r->a[TL_SF_TID], c);
  if( t==0 ) return TL_OK;
  name_field(r, TL_SF_COMM, t);
  if( has(r, TL_SF_PID) ){ t->bPid = 1; t->pid = r->a[TL_SF_PID]; }
  if( r->eKind==TL_SCHED_WAKING ) p->bWaking = 1;
  if( t->eState==ST_RUNNING ) return TL_OK;
  /* Runnable already: only the sched_wakeup that follows a sched_waking
  ** starts an interval of its own (perf sched latency waits from it) */
  if( t->eState==ST_RUNNABLE
   && !(t->eWakeup==TL_SCHED_WAKING && r->eKind==TL_SCHED_WAKEUP) ) return TL_OK;
  /* the first wakeup since it left a CPU makes it ready; with sched_waking
  ** in the trace, the sched_wakeup after it does not (perf sched's rule) */
  if( !t->bReady && !(p->bWaking && r->eKind==TL_SCHED_WAKEUP) ){
    t->bReady = bTs; t->tsReady = ts;
  }
  if( has(r, TL_SF_CUR_TID) ){
    bWaker = 1; waker = r->a[TL_SF_CUR_TID];
  }else if( c && c->bCur ){
    bWaker = 1; waker = c->tid;
  }
  if( (rc = state_end(p, t, bTs, ts))!=0 ) return rc;
  if( has(r, TL_SF_TARGET_CPU) ){
    state_begin(p, t, ST_RUNNABLE, bTs, ts, 1, r->a[TL_SF_TARGET_CPU]);
  }else{
    state_begin(p, t, ST_RUNNABLE, bTs, ts, r->bCpu, r->cpu);
  }
  t->bWaker = bWaker; t->waker = waker;
  t->eWakeup = r->eKind;
  return TL_OK;
}

static int on_fork(TlSched *p, const TlSchedRec *r){
  Thr *parent = 0, *child;
  int bNamed;
  char zName[TL_SCHED_COMM_MAX];
  if( has(r, TL_SF_PARENT_TID) ){
    parent = thr_get(p, r->a[TL_SF_PARENT_TID], 0);
    if( parent && has(r, TL_SF_PARENT_PID) ){ parent->bPid = 1; parent->pid = r->a[TL_SF_PARENT_PID]; }
  }
  if( !has(r, TL_SF_CHILD_TID) ) return TL_OK;
  bNamed = parent && parent->bNamed;
  if( parent ) memcpy(zName, parent->zComm, sizeof(zName));
  child = thr_get(p, r->a[TL_SF_CHILD_TID], 0);
  if( child==0 ) return TL_OK;
  /* (adding the child may have moved the threads: the parent again) */
  if( parent ) parent = thr_find(p, r->a[TL_SF_PARENT_TID], 0);
  if( child->zRec[0]==0 && parent && parent!=child ){
    memcpy(child->zRec, parent->zRec, sizeof(child->zRec));
  }
  if( has(r, TL_SF_CHILD_PID) ){ child->bPid = 1; child->pid = r->a[TL_SF_CHILD_PID]; }
  if( has(r, TL_SF_PID) ){ child->bPid = 1; child->pid = r->a[TL_SF_PID]; }
  if( has(r, TL_SF_CHILD_COMM) ){
    /* the name the kernel gave the child */
    name_field(r, TL_SF_CHILD_COMM, child);
  }else if( !child->bNamed && bNamed ){
    /* a fork's child has its parent's name until it names itself */
    memcpy(child->zComm, zName, sizeof(zName));
    child->bNamed = 1;
  }
  return TL_OK;
}

/* An exec: the thread is named after the file (the kernel's comm: its base
** name, 15 bytes at most) and the events' comm fields name it again. */
static int on_exec(TlSched *p, const TlSchedRec *r){
  Thr *t;
  const char *z, *zBase;
  size_t n;
  if( !has(r, TL_SF_TID) || !has(r, TL_SF_FILENAME) ) return TL_OK;
  t = thr_get(p, r->a[TL_SF_TID], 0);
  if( t==0 || t->tid==0 ) return TL_OK;
  z = r->az[TL_SF_FILENAME - TL_SF_PREV_COMM];
  n = r->an[TL_SF_FILENAME - TL_SF_PREV_COMM];
  for(zBase=z; z<r->az[TL_SF_FILENAME - TL_SF_PREV_COMM]+n; z++){
    if( *z=='/' ) zBase = z+1;
  }
  n -= (size_t)(zBase - r->az[TL_SF_FILENAME - TL_SF_PREV_COMM]);
  name_set(t, zBase, n<15 ? n : 15);
  t->bNamed = 0;
  return TL_OK;
}

/* A name record (perf COMM, LTTng state dump). */
static int on_name(TlSched *p, const TlSchedRec *r){
  Thr *t;
  if( !has(r, TL_SF_TID) ) return TL_OK;
  t = thr_get(p, r->a[TL_SF_TID], 0);
  if( t==0 ) return TL_OK;
  if( has(r, TL_SF_PID) ){ t->bPid = 1; t->pid = r->a[TL_SF_PID]; }
  if( has(r, TL_SF_COMM) ){
    name_set(t, r->az[TL_SF_COMM - TL_SF_PREV_COMM], r->an[TL_SF_COMM - TL_SF_PREV_COMM]);
    name_copy(t->zRec, r->az[TL_SF_COMM - TL_SF_PREV_COMM], r->an[TL_SF_COMM - TL_SF_PREV_COMM]);
    t->bNamed = 1;
  }
  return TL_OK;
}

/* ---- system calls -------------------------------------------------------- */

/*
** A row of thread t (NULL: unknown) for the call entered at e and left at
** x (either NULL: none), with the exit's return value: queued when wanted,
** summed into the thread's stats when they are kept.
*/
static int sys_emit(TlSched *p, const Thr *t, const Sys *e, const Sys *x,
                    int bRet, int64_t ret){
  const Sys *w = e ? e : x;
  TlSchedOut row, *o = &row;
  int bRow = e ? e->bWanted : wanted(p, TL_SCHED_OUT_SYSCALL, 0, 0, x->bCpu, x->cpu);
  if( !bRow && (p->pStats==0 || t==0) ) return TL_OK;
  memset(o, 0, sizeof(*o));
  o->eOut = TL_SCHED_OUT_SYSCALL;
  if( e ){ o->bTs = e->bTs; o->ts = e->ts; }
  if( x ){ o->bEnd = x->bTs; o->tsEnd = x->ts; }
  if( e && x ){
    o->bDur = e->bTs && x->bTs; o->dur = x->ts - e->ts;
  }else if( x && t && t->bEntered && x->bTs && x->bNr && x->nr>=0 ){
    /* an exit of a numbered call without its entry just before it: as perf
    ** trace measures it, from the thread's latest entry (0 when not after it) */
    o->bDur = 1; o->dur = x->ts>t->tsEntered ? x->ts - t->tsEntered : 0;
  }
  o->bCpu = w->bCpu; o->cpu = w->cpu;
  if( t ) out_thread(o, t); else o->bNoTid = 1;
  if( t && p->bRecNames ) memcpy(o->zComm, t->zRec, sizeof(o->zComm));
  o->bNr = w->bNr; o->nr = w->nr;
  o->zSys = w->z; o->nSys = w->n;
  o->bRet = bRet; o->ret = ret;
  if( p->pStats && t ){
    int bLeft;
    if( tl_sysstats_add(p->pStats, o, &bLeft) ) return TL_ENOMEM;
    if( bLeft ) odd(p, "more kinds of system call per thread than the model keeps");
  }
  if( !bRow ) return TL_OK;
  if( e ) p->nPending--;
  if( (o = queue_add(p))==0 ) return TL_ENOMEM;
  *o = row;
  return TL_OK;
}

/* A thread's pending entry is a row of its own (no exit). */
static int sys_flush(TlSched *p, Thr *t){
  int rc = TL_OK;
  if( t->sys.b ){
    rc = sys_emit(p, t, &t->sys, 0, 0, 0);
    t->sys.b = 0;
  }
  return rc;
}

/* The entry or exit r (time bTs, ts) of its thread's, or its CPU's thread's,
** system call. */
static int on_syscall(TlSched *p, const TlSchedRec *r, int bTs, int64_t ts){
  Cpu *c = cpu_get(p, r->bCpu, r->cpu);
  Thr *t = 0;
  Sys s;
  int rc;
  memset(&s, 0, sizeof(s));
  s.b = 1;
  s.bTs = bTs; s.ts = ts;
  s.bCpu = r->bCpu; s.cpu = r->cpu;
  s.bNr = has(r, TL_SF_NR); s.nr = s.bNr ? r->a[TL_SF_NR] : 0;
  s.z = sys_name(r->zEvent, r->eKind, &s.n);
  if( has(r, TL_SF_CUR_TID) ){
    t = thr_get(p, r->a[TL_SF_CUR_TID], c);
  }else if( c && c->bCur ){
    t = thr_get(p, c->tid, c);
  }
  if( t==0 || (s.bNr && s.nr<0) ){
    /* no thread to pair in, or no call (perf's -1): a row of its own */
    if( r->eKind==TL_SCHED_SYS_ENTER ){
      s.bWanted = wanted(p, TL_SCHED_OUT_SYSCALL, s.bTs, s.ts, s.bCpu, s.cpu);
      if( s.bWanted ) p->nPending++;
      return sys_emit(p, t, &s, 0, 0, 0);
    }
    return sys_emit(p, t, 0, &s, has(r, TL_SF_RET), r->a[TL_SF_RET]);
  }
  if( r->eKind==TL_SCHED_SYS_ENTER ){
    if( (rc = sys_flush(p, t))!=0 ) return rc;
    if( s.bNr && s.bTs ){ t->bEntered = 1; t->tsEntered = s.ts; }
    s.bWanted = wanted(p, TL_SCHED_OUT_SYSCALL, s.bTs, s.ts, s.bCpu, s.cpu);
    if( s.bWanted ) p->nPending++;
    t->sys = s;
    return TL_OK;
  }
  /* a numbered exit pairs with the entry of its number (perf trace -s
  ** counts a call under its exit's number); any other with the pending
  ** entry, whatever it names (lttng-analyses counts a call under its
  ** entry's name; exit_syscall names none) */
  if( t->sys.b && (!s.bNr || (t->sys.bNr && t->sys.nr==s.nr)) ){
    t->sys.b = 0;
    return sys_emit(p, t, &t->sys, &s, has(r, TL_SF_RET), r->a[TL_SF_RET]);
  }
  if( (rc = sys_flush(p, t))!=0 ) return rc;
  return sys_emit(p, t, 0, &s, has(r, TL_SF_RET), r->a[TL_SF_RET]);
}

void tl_sched_names_recorded(TlSched *p){
  p->bRecNames = 1;
}

int tl_sched_takes(const TlSched *p, int eKind){
  if( eKind==TL_SCHED_NONE ) return 0;
  if( eKind==TL_SCHED_SYS_ENTER || eKind==TL_SCHED_SYS_EXIT ){
    return (p->mOut & (TL_SCHED_OUT_SYSCALL|TL_SCHED_OUT_SYSSTAT))!=0;
  }
  return 1;
}

int tl_sched_feed(TlSched *p, const TlSchedRec *rIn){
  int bTs = rIn->bTs;
  int64_t ts = rIn->ts;
  TlSchedRec rCpu;
  const TlSchedRec *r = rIn;
  if( !r->bCpu && has(r, TL_SF_CPU) ){
    rCpu = *rIn;
    rCpu.bCpu = 1;
    rCpu.cpu = r->a[TL_SF_CPU];
    r = &rCpu;
  }
  if( bTs ){
    if( p->bLast && ts<p->tsLast ){
      /* older than a record already fed: its time is not used */
      odd(p, "a record older than the one before it");
      bTs = 0;
    }else{
      p->bLast = 1;
      p->tsLast = ts;
      if( ts>p->tsHi ) p->bPast = 1;
    }
  }
  if( has(r, TL_SF_CUR_TID) && has(r, TL_SF_CUR_PID) && r->a[TL_SF_CUR_TID]>0 ){
    Thr *t = thr_get(p, r->a[TL_SF_CUR_TID], 0);
    if( t ){ t->bPid = 1; t->pid = r->a[TL_SF_CUR_PID]; }
  }
  switch( r->eKind ){
    case TL_SCHED_SWITCH: return on_switch(p, r, bTs, ts);
    case TL_SCHED_WAKEUP: case TL_SCHED_WAKEUP_NEW: case TL_SCHED_WAKING:
      return on_wakeup(p, r, bTs, ts);
    case TL_SCHED_FORK: case TL_SCHED_NEW_THREAD: return on_fork(p, r);
    case TL_SCHED_NAME: return on_name(p, r);
    case TL_SCHED_EXEC: return on_exec(p, r);
    case TL_SCHED_SYS_ENTER: case TL_SCHED_SYS_EXIT:
      /* (its own time, when older than the one before it too: the thread's
      ** records are in order) */
      return p->mOut & (TL_SCHED_OUT_SYSCALL|TL_SCHED_OUT_SYSSTAT)
           ? on_syscall(p, r, r->bTs, r->ts) : TL_OK;
    case TL_SCHED_STAT_RUNTIME: {
      Thr *t = has(r, TL_SF_TID) && has(r, TL_SF_RUNTIME) && r->a[TL_SF_TID]>0
             ? thr_get(p, r->a[TL_SF_TID], 0) : 0;
      if( t ){ t->bRuntime = 1; t->runtime += r->a[TL_SF_RUNTIME]; }
      return TL_OK;
    }
    case TL_SCHED_FREE: {
      Thr *t = has(r, TL_SF_TID) && r->a[TL_SF_TID]>0 ? thr_get(p, r->a[TL_SF_TID], 0) : 0;
      return t && t->eState!=ST_RUNNING ? state_end(p, t, bTs, ts) : TL_OK;
    }
    default: return TL_OK;
  }
}

void tl_sched_finish(TlSched *p){
  p->bFinish = 1;
  p->iFin = 0;
}

int tl_sched_take(TlSched *p, TlSchedOut *pOut){
  for(;;){
    if( p->iQ<p->nQ ){
      *pOut = p->aQ[p->iQ++];
      return 1;
    }
    if( !p->bFinish ) return 0;
    if( p->iFin>=p->nCpu + p->nThr ){
      /* every call is summed: the stats last */
      return p->pStats ? tl_sysstats_next(p->pStats, pOut) : 0;
    }
    if( p->iFin<p->nCpu ){
      size_t k = p->iFin++;
      Cpu *c = &p->aCpu[k];
      if( c->bCur ){
        Thr *t = thr_find(p, c->tid, c);
        if( slice_end(p, c, (int64_t)k, t, 0, 0, 0) ) return 0;
      }
      if( sys_flush(p, &c->idle) ) return 0;
    }else{
      Thr *t = &p->aThr[p->iFin++ - p->nCpu];
      if( state_end(p, t, 0, 0) || sys_flush(p, t) ) return 0;
      if( (p->mOut & TL_SCHED_OUT_THREAD) && t->tid!=0 && (t->sum.bAny || t->sum.nSlice) ){
        TlSchedOut *o = queue_add(p);
        if( o==0 ) return 0;
        sum_out(t, o);
      }
    }
  }
}

int tl_sched_done(const TlSched *p){
  return p->bPast && p->nPending==0;
}

int tl_sched_current(const TlSched *p, int64_t cpu, int64_t *pTid, int64_t *pPid,
                     const char **pzComm){
  const Cpu *c;
  uint32_t k;
  if( cpu<0 || (size_t)cpu>=p->nCpu ) return 0;
  c = &p->aCpu[cpu];
  if( !c->bCur ) return 0;
  *pTid = c->tid;
  *pPid = -1;
  *pzComm = 0;
  if( c->tid==0 ){
    *pPid = 0;
    *pzComm = c->idle.zComm;
  }else if( tl_map_get(&p->thrMap, (uint64_t)c->tid, &k) ){
    const Thr *t = &p->aThr[k];
    if( t->bPid ) *pPid = t->pid;
    if( t->zComm[0] ) *pzComm = t->zComm;
  }
  return 1;
}

/* ---- rows ---------------------------------------------------------------- */

int tl_sched_out_of_table(int iTable){
  if( iTable==TL_TAB_SCHED_SLICES ) return TL_SCHED_OUT_SLICE;
  if( iTable==TL_TAB_THREAD_STATES ) return TL_SCHED_OUT_STATE;
  if( iTable==TL_TAB_SYSCALLS ) return TL_SCHED_OUT_SYSCALL;
  if( iTable==TL_TAB_SCHED_THREADS ) return TL_SCHED_OUT_THREAD;
  if( iTable==TL_TAB_SYSCALL_STATS ) return TL_SCHED_OUT_SYSSTAT;
  return 0;
}

static void val_opt(TlVal *p, int b, int64_t v){
  if( b ) tl_val_int(p, v); else tl_val_null(p);
}

int tl_sched_row(const TlSchedOut *o, int iTable, TlVal *a){
  int bDur = o->bTs && o->bEnd;
  if( tl_sched_out_of_table(iTable)!=o->eOut ) return 0;
  if( iTable==TL_TAB_SCHED_SLICES ){
    val_opt(&a[TL_SS_TS], o->bTs, o->ts);
    val_opt(&a[TL_SS_DUR], bDur, o->tsEnd - o->ts);
    val_opt(&a[TL_SS_CPU], o->bCpu, o->cpu);
    tl_val_int(&a[TL_SS_TID], o->tid);
    val_opt(&a[TL_SS_PID], o->bPid, o->pid);
    if( o->zComm[0] ) tl_val_textz(&a[TL_SS_COMM], o->zComm); else tl_val_null(&a[TL_SS_COMM]);
    val_opt(&a[TL_SS_PRIO], o->bPrio, o->prio);
    tl_val_textz(&a[TL_SS_END_STATE], o->zEndState);
    val_opt(&a[TL_SS_TS_END], o->bEnd, o->tsEnd);
    val_opt(&a[TL_SS_WAIT_TIME], o->bWait, o->wait);
    val_opt(&a[TL_SS_SCHED_DELAY], o->bDelay, o->delay);
    val_opt(&a[TL_SS_RUNTIME], o->bRuntime, o->runtime);
  }else if( iTable==TL_TAB_SCHED_THREADS ){
    tl_val_int(&a[TL_ST_TID], o->tid);
    val_opt(&a[TL_ST_PID], o->bPid, o->pid);
    if( o->zComm[0] ) tl_val_textz(&a[TL_ST_COMM], o->zComm); else tl_val_null(&a[TL_ST_COMM]);
    tl_val_int(&a[TL_ST_SWITCHES], o->sum.nSwitch);
    tl_val_int(&a[TL_ST_DELAY], o->sum.delay);
    tl_val_int(&a[TL_ST_MAX_DELAY], o->sum.maxDelay);
    val_opt(&a[TL_ST_MAX_DELAY_TS], o->sum.bMaxTs, o->sum.maxTs);
    tl_val_int(&a[TL_ST_RUNTIME], o->sum.runtime);
    tl_val_int(&a[TL_ST_SLICES], o->sum.nSlice);
    tl_val_int(&a[TL_ST_RUN_TIME], o->sum.run);
    tl_val_int(&a[TL_ST_MIN_RUN], o->sum.minRun);
    tl_val_int(&a[TL_ST_MAX_RUN], o->sum.maxRun);
    tl_val_int(&a[TL_ST_WAIT_TIME], o->sum.wait);
  }else if( iTable==TL_TAB_SYSCALL_STATS ){
    const TlSysStat *st = &o->stat;
    tl_val_int(&a[TL_SX_TID], o->tid);
    val_opt(&a[TL_SX_PID], o->bPid, o->pid);
    if( o->zComm[0] ) tl_val_textz(&a[TL_SX_COMM], o->zComm); else tl_val_null(&a[TL_SX_COMM]);
    val_opt(&a[TL_SX_NR], o->bNr, o->nr);
    if( o->zSys ) tl_val_text(&a[TL_SX_NAME], o->zSys, o->nSys); else tl_val_null(&a[TL_SX_NAME]);
    tl_val_int(&a[TL_SX_EVENTS], st->nEvent);
    tl_val_int(&a[TL_SX_CALLS], st->nCall);
    tl_val_int(&a[TL_SX_ERRORS], st->nErr);
    tl_val_int(&a[TL_SX_TOTAL_DUR], st->total);
    val_opt(&a[TL_SX_MIN_DUR], st->nCall>0, st->min);
    val_opt(&a[TL_SX_MAX_DUR], st->nCall>0, st->max);
    if( st->nCall>0 ) tl_val_real(&a[TL_SX_AVG_DUR], st->mean); else tl_val_null(&a[TL_SX_AVG_DUR]);
    if( st->nCall>1 ){
      tl_val_real(&a[TL_SX_STDDEV_DUR], sqrt(fmax(st->m2, 0) / (double)(st->nCall - 1)));
    }else{
      tl_val_null(&a[TL_SX_STDDEV_DUR]);
    }
  }else if( iTable==TL_TAB_SYSCALLS ){
    val_opt(&a[TL_SC_TS], o->bTs, o->ts);
    val_opt(&a[TL_SC_DUR], o->bDur, o->dur);
    val_opt(&a[TL_SC_TID], !o->bNoTid, o->tid);
    val_opt(&a[TL_SC_PID], o->bPid, o->pid);
    if( o->zComm[0] ) tl_val_textz(&a[TL_SC_COMM], o->zComm); else tl_val_null(&a[TL_SC_COMM]);
    val_opt(&a[TL_SC_CPU], o->bCpu, o->cpu);
    val_opt(&a[TL_SC_NR], o->bNr, o->nr);
    if( o->zSys ) tl_val_text(&a[TL_SC_NAME], o->zSys, o->nSys); else tl_val_null(&a[TL_SC_NAME]);
    val_opt(&a[TL_SC_RET], o->bRet, o->ret);
    val_opt(&a[TL_SC_TS_END], o->bEnd, o->tsEnd);
  }else{
    val_opt(&a[TL_TS_TS], o->bTs, o->ts);
    val_opt(&a[TL_TS_DUR], bDur, o->tsEnd - o->ts);
    tl_val_int(&a[TL_TS_TID], o->tid);
    val_opt(&a[TL_TS_PID], o->bPid, o->pid);
    if( o->zComm[0] ) tl_val_textz(&a[TL_TS_COMM], o->zComm); else tl_val_null(&a[TL_TS_COMM]);
    tl_val_textz(&a[TL_TS_STATE], o->zState);
    val_opt(&a[TL_TS_CPU], o->bCpu, o->cpu);
    val_opt(&a[TL_TS_WAKER_TID], o->bWaker, o->waker);
    tl_val_null(&a[TL_TS_IO_WAIT]);
    val_opt(&a[TL_TS_TS_END], o->bEnd, o->tsEnd);
    tl_val_textz(&a[TL_TS_WAKEUP], o->eWakeup==TL_SCHED_WAKING ? "sched_waking"
                 : o->eWakeup==TL_SCHED_WAKEUP ? "sched_wakeup"
                 : o->eWakeup==TL_SCHED_WAKEUP_NEW ? "sched_wakeup_new" : 0);
    val_opt(&a[TL_TS_RUNTIME], o->bRuntime, o->runtime);
  }
  return 1;
}

int tl_sched_next(TlSched *p, int iTable, TlSchedOut *pOut, TlVal *a){
  for(;;){
    if( tl_sched_take(p, pOut) ){
      if( tl_sched_row(pOut, iTable, a) ) return TL_ROW;
      continue;
    }
    if( p->bFinish ) return TL_DONE;
    /* nothing wanted is open past the window: what is left gives no row */
    if( !tl_sched_done(p) ) return TL_OK;
    tl_sched_finish(p);
  }
}
