/*
** model_sched.h: threads on CPUs, from scheduler events (the model layer's
** scheduling, src/model/sched.c), for readers.
**
** A reader hands the model its scheduler records in time order, each as a
** format-neutral TlSchedRec: the kind of event and its fields by role. The
** model owns the names: tl_sched_kind() knows the event names (perf's
** "sched:sched_switch", LTTng's "sched_switch") and tl_sched_fields() the
** field names of each kind (perf's prev_pid, LTTng's prev_tid, ...), so a
** reader looks each name up in its own event description once and never
** knows which tracer wrote the trace.
**
** From the records the model makes, in one pass:
**
**   slices  one per period a thread ran on a CPU (Perfetto's sched_slice):
**           from a switch in to the switch out on that CPU. A slice running
**           at the first switch of its CPU has no known start; one running
**           at the end has no end.
**   syscalls  one per system call: from a thread's entry to its next
**           record, when that is an exit of the call: of the same number
**           for a numbered exit (perf trace -s counts a call under its
**           exit's number), else whatever the entry names (lttng-analyses
**           counts it under its entry's name; LTTng's exit_syscall names
**           none); an entry followed by anything else, and an exit not
**           just after its entry, are rows of their own (no exit, no
**           entry). The thread is the record's (CUR_TID), else the one its
**           CPU runs. Calls numbered below 0 pair with nothing. A numbered
**           call's exit without its entry is timed (dur) from its thread's
**           latest entry, as perf trace -s times it after lost records.
**   states  one per interval of a thread's state (Perfetto's thread_state):
**           Running (a slice), Runnable (after a wakeup, or switched out
**           with state R), Runnable (Preempted) (R+), Sleeping (S),
**           Uninterruptible (D), Stopped (T), Traced (t), Dead (X),
**           Zombie (Z), Parked (P), Idle (I). Intervals still open at the
**           end have no end. The idle thread (tid 0) has no states.
**   threads  one per thread with states, at the end: its waits as perf
**           sched latency -p counts them and its runs as perf sched
**           timehist -s does (TlSchedSum), summed in the same pass from
**           its states and slices.
**   syscall stats  one per thread and system call, at the end: the
**           syscalls' rows of the thread summed per call, as perf trace -s
**           and lttng-syscallstats sum them (TlSysStat), in the same pass.
**
** A record out of time order (older than the last one), a switch out of a
** thread the CPU was not running, a wakeup of a thread never seen: the
** model keeps going, leaves what it cannot know unknown and counts the
** oddity (tl_sched_oddities) for the reader to warn about.
**
** Memory: O(threads + CPUs), and O(threads x their kinds of calls) for
** the syscall stats, capped at TL_SCHED_MAX_THREADS threads and
** TL_SCHED_MAX_CPUS CPUs (later ones are ignored and counted).
*/
#ifndef TL_MODEL_SCHED_H
#define TL_MODEL_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "reader.h"

#define TL_SCHED_MAX_THREADS (1u<<20)
#define TL_SCHED_MAX_CPUS    4096
#define TL_SCHED_COMM_MAX    32         /* bytes of a name kept, NUL included */

/* TlSchedRec.eKind */
enum {
  TL_SCHED_NONE,                  /* not a scheduler event */
  TL_SCHED_SWITCH, TL_SCHED_WAKEUP, TL_SCHED_WAKEUP_NEW, TL_SCHED_WAKING,
  TL_SCHED_MIGRATE, TL_SCHED_FORK, TL_SCHED_EXIT, TL_SCHED_EXEC, TL_SCHED_FREE,
  TL_SCHED_STAT_RUNTIME,
  /* side-band facts about threads (perf's COMM and FORK records) */
  TL_SCHED_NAME,                  /* thread TID (of PID) is named COMM from ts */
  TL_SCHED_NEW_THREAD,            /* PID/TID made by PARENT_PID/PARENT_TID */
  /* system calls: the call is NR, or named by the event (zEvent: LTTng's
  ** syscall_entry_NAME, before lttng-modules 2.6 sys_NAME) */
  TL_SCHED_SYS_ENTER, TL_SCHED_SYS_EXIT,
  TL_SCHED_NKIND
};

/* Field roles: TlSchedRec.a[role], present when bit role of mHave is set. */
enum {
  TL_SF_CUR_TID,                  /* the thread running when the event was
                                  ** recorded (perf's common_pid) */
  TL_SF_CUR_PID,
  TL_SF_CPU,                      /* the CPU, when the record's CPU is not set
                                  ** (perf_cpu of older perf conversions) */
  TL_SF_PREV_TID, TL_SF_PREV_PRIO, TL_SF_PREV_STATE,
  TL_SF_NEXT_TID, TL_SF_NEXT_PRIO,
  TL_SF_TID, TL_SF_PID, TL_SF_PRIO, TL_SF_TARGET_CPU, TL_SF_ORIG_CPU, TL_SF_DEST_CPU,
  TL_SF_PARENT_TID, TL_SF_PARENT_PID, TL_SF_CHILD_TID, TL_SF_CHILD_PID,
  TL_SF_OLD_TID, TL_SF_RUNTIME, TL_SF_NR, TL_SF_RET,
  /* text roles: TlSchedRec.az[role - TL_SF_PREV_COMM] */
  TL_SF_PREV_COMM, TL_SF_NEXT_COMM, TL_SF_COMM, TL_SF_CHILD_COMM, TL_SF_FILENAME,
  TL_SF_NROLE
};
#define TL_SF_NTEXT (TL_SF_NROLE - TL_SF_PREV_COMM)

typedef struct TlSchedField TlSchedField;
struct TlSchedField {
  const char *zName;              /* as the trace names the field */
  int iRole;                      /* TL_SF_* */
  const char *zWith;              /* NULL, or a field the event must also
                                  ** have for this name to mean this role */
};

/* The kind of the event named zName (TL_SCHED_NONE when it is none). */
int tl_sched_kind(const char *zName);

/*
** The field names a record of kind eKind may carry, with their roles:
** *pn entries (several names may have one role: a reader takes the
** first its event has).
*/
const TlSchedField *tl_sched_fields(int eKind, int *pn);

typedef struct TlSchedRec TlSchedRec;
struct TlSchedRec {
  int eKind;                      /* TL_SCHED_* */
  const char *zEvent;             /* the event's name (NULL: none), kept by
                                  ** the reader while the model lives */
  int bTs; int64_t ts;            /* time, ns */
  int bCpu; int64_t cpu;          /* the CPU that recorded it */
  uint32_t mHave;                 /* bit r: role r is set */
  int64_t a[TL_SF_PREV_COMM];     /* integer roles */
  const char *az[TL_SF_NTEXT];    /* text roles, borrowed for the call */
  size_t an[TL_SF_NTEXT];
};

static inline void tl_sched_rec_clear(TlSchedRec *r, int eKind){
  r->eKind = eKind;
  r->zEvent = 0;
  r->bTs = r->bCpu = 0;
  r->ts = r->cpu = 0;
  r->mHave = 0;
}
static inline void tl_sched_rec_int(TlSchedRec *r, int iRole, int64_t v){
  r->a[iRole] = v;
  r->mHave |= (uint32_t)1<<iRole;
}
static inline void tl_sched_rec_text(TlSchedRec *r, int iRole, const char *z, size_t n){
  r->az[iRole - TL_SF_PREV_COMM] = z;
  r->an[iRole - TL_SF_PREV_COMM] = n;
  r->mHave |= (uint32_t)1<<iRole;
}

/* What the model gives: a slice or a state interval. */
#define TL_SCHED_OUT_SLICE 1
#define TL_SCHED_OUT_STATE 2
#define TL_SCHED_OUT_SYSCALL 4
#define TL_SCHED_OUT_THREAD 8
#define TL_SCHED_OUT_SYSSTAT 16

/*
** A thread's system calls of one kind (a name when the events name the
** call, else a number), summed from its syscalls rows of that kind (the
** entry's when paired). A row is a call when it has an exit and either
** its entry or a number of 0 or more (perf trace -s counts every numbered
** exit; lttng-analyses a paired one); its time is its dur, 0 when that is
** unknown. The mean and M2 (the sum of the
** squared differences from it) are updated per call in the order of the
** exits, by Welford's rule as perf's update_stats() does.
*/
typedef struct TlSysStat TlSysStat;
struct TlSysStat {
  int64_t nEvent;                 /* its entries and exits with a time */
  int64_t nCall, nErr;            /* its calls, those with a negative return */
  int64_t total, min, max;        /* their time (total saturated), ns */
  double mean, m2;                /* their mean time, and M2 */
};

/*
** A thread's waits, as perf sched latency counts them: from its states
** other than Runnable (Preempted) (a preemption) and a Runnable made by
** sched_waking (perf waits from the sched_wakeup after it). A wait is a
** Runnable interval that ended; a thread whose first state is Running
** with a known start (first seen switched in) has one switch more, with
** no wait.
*/
typedef struct TlSchedSum TlSchedSum;
struct TlSchedSum {
  int64_t nSwitch;                /* waits, and the first switch in */
  int64_t delay;                  /* their total time */
  int64_t maxDelay;               /* the longest (0: none longer than 0) */
  int bMaxTs; int64_t maxTs;      /* when the first of the longest began */
  int64_t runtime;                /* its Running states' runtime */
  /* its slices that ended, as perf sched timehist -s sums them: how many,
  ** their run time (0 for one of unknown start), shortest and longest,
  ** and their wait times (0 when none) */
  int64_t nSlice, run, minRun, maxRun, wait;
};

typedef struct TlSchedOut TlSchedOut;
struct TlSchedOut {
  int eOut;                       /* TL_SCHED_OUT_* */
  int bTs; int64_t ts;            /* start (unknown: running at a CPU's first switch) */
  int bEnd; int64_t tsEnd;        /* end (unknown: still open at the end) */
  int bCpu; int64_t cpu;          /* slices: the CPU; states: where it ran or was
                                  ** woken to run (target_cpu) */
  int64_t tid;
  int bPid; int64_t pid;
  char zComm[TL_SCHED_COMM_MAX];  /* its name at the start ("" unknown) */
  int bPrio; int64_t prio;        /* slices: the priority it ran at */
  const char *zEndState;          /* slices: the state it left the CPU in
                                  ** ("R", "R+", "S", "D", ...), or NULL */
  const char *zState;             /* states: its name, as above */
  int bWaker; int64_t waker;      /* states: the thread whose wakeup made it Runnable */
  int eWakeup;                    /* states: the kind of event that made it Runnable
                                  ** (TL_SCHED_WAKING, _WAKEUP, _WAKEUP_NEW), or 0 */
  /* slices, what perf sched timehist prints for the switch out: the time
  ** since its previous switch out (wait) and since it was woken or
  ** preempted (delay), up to this slice's start */
  int bWait; int64_t wait;
  int bDelay; int64_t delay;
  /* slices and Running states: the runtime sched_stat_runtime reported
  ** for the thread since its previous Running interval ended */
  int bRuntime; int64_t runtime;
  /* syscalls: bTs/ts the entry, bEnd/tsEnd the exit, cpu the entry's
  ** (else the exit's); the thread unknown when bNoTid */
  int bNoTid;
  int bNr; int64_t nr;            /* the call's number */
  const char *zSys; size_t nSys;  /* its name (NULL: none), from zEvent */
  int bRet; int64_t ret;          /* the exit's return value */
  int bDur; int64_t dur;          /* the call's time: the exit's less the entry's;
                                  ** a numbered call's exit without its entry, from
                                  ** its thread's latest entry (perf trace's rule) */
  TlSchedSum sum;                 /* threads: tid, pid and zComm (the name of
                                  ** its last state) are set too */
  TlSysStat stat;                 /* syscall stats: tid, pid, zComm, bNr/nr and
                                  ** zSys/nSys are set too */
};

typedef struct TlSched TlSched;

/*
** A new model giving the outputs in mOut (TL_SCHED_OUT_* bits), those
** whose start is in [tsLo, tsHi] and whose CPU is wanted (nCpu < 0: any;
** else aCpu[0..nCpu), copied), or NULL when out of memory.
*/
TlSched *tl_sched_new(int mOut, int64_t tsLo, int64_t tsHi, const int64_t *aCpu, int nCpu);
void tl_sched_free(TlSched*);           /* NULL-safe */

/* One record: TL_OK or TL_ENOMEM. The outputs it completes are queued. */
int tl_sched_feed(TlSched*, const TlSchedRec*);

/* The trace has ended: queue what is still open (with no end). */
void tl_sched_finish(TlSched*);

/* The next queued output: 1 with *pOut, 0 when none is queued. */
int tl_sched_take(TlSched*, TlSchedOut *pOut);

/*
** Can nothing more be given? After a record past tsHi: when no wanted
** output is still open, the reader may stop reading.
*/
int tl_sched_done(const TlSched*);

/* The thread running on cpu as the records so far tell: 1 with its tid,
** pid (-1 unknown) and name (NULL unknown), or 0 when not known. */
int tl_sched_current(const TlSched*, int64_t cpu, int64_t *pTid, int64_t *pPid,
                     const char **pzComm);

/* The trace's name records (TL_SCHED_NAME, TL_SCHED_NEW_THREAD: perf's COMM
** and FORK records) name its threads as its tools print them: the
** syscalls' threads are named by them only (perf trace names a thread no
** COMM record named by its tid), not by the events' comm fields. */
void tl_sched_names_recorded(TlSched*);

/* Does the model take records of kind eKind (its outputs need them)? A
** reader may skip the others without decoding them. */
int tl_sched_takes(const TlSched*, int eKind);

/* Oddities met so far (records out of order, unknown threads, caps hit),
** and a description of the first one (NULL when none). */
uint64_t tl_sched_oddities(const TlSched*, const char **pzFirst);

/*
** The reader's loop: TL_ROW with the next row of table iTable in a[] (text
** borrowed from *pOut, which the caller keeps until the next call),
** TL_DONE when every row was given, or TL_OK when the model needs the next
** record (tl_sched_feed), or tl_sched_finish() when there is none.
*/
int tl_sched_next(TlSched*, int iTable, TlSchedOut *pOut, TlVal *a);

/* Output o as a row of table iTable (sched_slices, thread_states, syscalls,
** sched_threads, syscall_stats) into
** a[] (text borrowed from o). 0 when o is not of that table. */
int tl_sched_row(const TlSchedOut *o, int iTable, TlVal *a);

/* The mOut bit for table iTable (0: not a scheduling table). */
int tl_sched_out_of_table(int iTable);

#endif /* TL_MODEL_SCHED_H */
