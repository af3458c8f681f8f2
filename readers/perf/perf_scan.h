/*
** perf_scan.h: what the files of the perf.data reader share beyond
** perf_int.h: a record's decoded view (RecInfo), the scan's state
** (TlScan), the index's chunk flags, and the small helpers the per-record
** loops of several files call (static inline, so they stay inlined).
**
** Files: perf.c (the reader's entry points), perf_open.c (header, attrs,
** features), perf_index.c (the walk that builds the chunk index),
** perf_threads.c (the thread list), perf_scan.c (events and callchains
** scans), perf_tally.c (grouped output: callchains by symbol),
** perf_rows.c (args JSON and the metadata tables' rows), perf_dir.c (a
** --threads directory's files), perf_merge.c (their records merged by
** time).
*/
#ifndef TL_PERF_SCAN_H
#define TL_PERF_SCAN_H

#include "perf_int.h"

#include <string.h>

#include "heap.h"
#include "reorder.h"

#define PERF_PKT_ROUND_END 1                        /* TlPacket.flags: ends after FINISHED_ROUND */
#define PERF_PKT_CUT       2                        /* TlPacket.flags: runs into damaged data, so its
                                                    ** counts are not the rows a scan gives */
#define PERF_PKT_NOCPU     4                        /* TlPacket.flags: a row without a cpu */
#define PERF_PKT_SAMPLE_NOCPU 8                     /* TlPacket.flags: a SAMPLE row without a cpu */
#define PERF_PKT_NOTS      16                       /* TlPacket.flags: a row without a time */
#define PERF_PKT_SAMPLE_NOTS 32                     /* TlPacket.flags: a SAMPLE row without a time */
/* TlPacket.flags from this bit on: the types of the chunk's records, a bit
** per kernel type (LOST, MMAP2, ...) and one for all user types */
#define PERF_PKT_TYPE_SHIFT 7
_Static_assert(PERF_PKT_TYPE_SHIFT + PERF_KERNEL_MAX < 32, "a type bit per kernel type and one more");
/* TlPacket.nEvents: records with a known type; TlPacket.iAux: SAMPLE records */
#define PERF_RUN_MAX       1024                     /* rows one repeated row stands for at most */
#define PERF_MAX_ORDER_BYTES ((uint64_t)128<<20)    /* the rounds held for ORDER BY ts */

static inline uint32_t perf_pkt_type_bit(uint32_t type){
  return (uint32_t)1 << (PERF_PKT_TYPE_SHIFT + (type<PERF_KERNEL_MAX ? type : PERF_KERNEL_MAX));
}

/*
** May chunk pk hold a record of type eType (-1: any)? A chunk that runs
** into damaged data is read whatever it holds: a scan of it ends in the
** error.
*/
static inline int perf_chunk_may_hold(const TlPacket *pk, int eType){
  return eType<0 || (pk->flags & (PERF_PKT_CUT | perf_pkt_type_bit((uint32_t)eType)))!=0;
}

/* What the index and the thread list need from one record. */
typedef struct RecInfo RecInfo;
struct RecInfo {
  int iAttr;                      /* its attr */
  int bTs; int64_t ts;            /* time */
  int bCpu; uint32_t cpu;
  int bTid; int64_t pid, tid;
  PerfSample s;                   /* the sample or trailer */
  int bSample;                    /* s is a full sample */
};

/* pid/tid stored in the body of some side-band records. */
static inline int body_pid_tid(const PerfRec *r, int64_t *pPid, int64_t *pTid){
  TlBytes b = r->body;
  uint32_t pid, tid;
  switch( r->type ){
    case PERF_MMAP: case PERF_MMAP2: case PERF_COMM: case PERF_READ:
    case PERF_ITRACE_START: case PERF_NAMESPACES:
      if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &tid) ) return 0;
      break;
    case PERF_FORK: case PERF_EXIT: {
      uint32_t ppid, ptid;
      if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid)
       || tl_bytes_u32e(&b, &tid) || tl_bytes_u32e(&b, &ptid) ) return 0;
      break;
    }
    default:
      return 0;
  }
  *pPid = (int32_t)pid;
  *pTid = (int32_t)tid;
  return 1;
}

/* Decode what a row needs: attr, sample or trailer, ts, cpu, pid, tid. */
static inline int rec_info(const PerfData *p, const PerfRec *r, RecInfo *ri){
  const PerfAttr *a;
  /* the fields before s; the decoders below clear s themselves */
  ri->iAttr = 0;
  ri->bTs = ri->bCpu = ri->bTid = ri->bSample = 0;
  ri->ts = ri->pid = ri->tid = 0;
  ri->cpu = 0;
  if( p->nAttr==0 ){ memset(&ri->s, 0, sizeof(ri->s)); return 0; }
  ri->iAttr = perf_attr_of(p, r);
  a = &p->aAttr[ri->iAttr];
  if( r->type==PERF_SAMPLE ){
    if( perf_sample_decode(a, r, &ri->s) ) return -1;
    ri->bSample = 1;
  }else if( r->type<PERF_HEADER_ATTR ){
    if( perf_trailer_decode(a, r, &ri->s) ) ri->s.mHave = 0;
  }else{
    memset(&ri->s, 0, sizeof(ri->s));
  }
  if( ri->s.mHave & PS_TIME ){ ri->bTs = 1; ri->ts = (int64_t)ri->s.time; }
  if( ri->s.mHave & PS_CPU ){ ri->bCpu = 1; ri->cpu = ri->s.cpu; }
  /* A record that names its thread in its body (MMAP, COMM, ...) belongs
  ** to that thread, as perf attaches it; the trailer of the ones perf
  ** synthesizes at the start is zeros. FORK and EXIT keep the trailer's. */
  if( r->type!=PERF_SAMPLE && r->type!=PERF_FORK && r->type!=PERF_EXIT
   && body_pid_tid(r, &ri->pid, &ri->tid) ){
    ri->bTid = 1;
  }else if( ri->s.mHave & PS_TID ){
    ri->bTid = 1;
    ri->pid = (int32_t)ri->s.pid;
    ri->tid = (int32_t)ri->s.tid;
  }else if( body_pid_tid(r, &ri->pid, &ri->tid) ){
    ri->bTid = 1;
  }
  if( !ri->bTs && (r->type==PERF_FORK || r->type==PERF_EXIT) ){
    TlBytes b = r->body;
    uint64_t t;
    if( tl_bytes_skip(&b, 16)==0 && tl_bytes_u64e(&b, &t)==0 ){ ri->bTs = 1; ri->ts = (int64_t)t; }
  }
  return 0;
}

/* ---- the scan's state ---------------------------------------------------- */

struct TlScan {
  TlTrace *pTrace;
  const PerfData *p;
  int iTable;
  TlFilter f;
  TlErr err;
  size_t iChunk;                  /* next chunk to open */
  size_t iChunkEnd;               /* one past the last chunk to read */
  int bInChunk;                   /* w is walking a chunk */
  PerfWalk w;
  PerfRec r;                      /* current record (callchains: its frames) */
  RecInfo ri;
  uint64_t iFrame;                /* callchains: next frame of r */
  uint64_t iDepth;                /* callchains: depth of the next real frame */
  const char *zContext;           /* callchains: current context */
  const char *azLast[3];          /* callchains: the context, symbol and dso */
  size_t anLast[3];               /* text given last, and its length */
  const struct TlSrcFrame *aSrc;  /* callchains: a frame's inlined functions, then */
  int nSrc, iSrc;                 /* itself, with source lines (srcline, inlined) */
  uint64_t ipSrc;                 /* that frame's address */
  size_t iRow;                    /* metadata tables */
  size_t iSym;                    /* symbols: next symbol of dso iRow */
  TlStr args, cc, tmp;
  struct PerfCols *pCols;         /* events: the stack column's state (perf_cols.c) */
  struct PerfUnwind *pUnwind;     /* user frames of dwarf samples (perf_unwind.c) */
  char zTidName[24];              /* events: ":TID", the comm of an unnamed thread */
  int bKeepText;                  /* a tally's: text stays at its address until the
                                  ** scan closes (reader.h), so ":TID" is kept per tid */
  TlMap tidNames;                 /* (bKeepText) tid -> its ":TID" in azTidName */
  char **azTidName;
  size_t nTidName, nTidNameAlloc;
  int eType;                      /* events: the one record type wanted, or -1 */
  int eChunkType;                 /* the chunks read hold it (-1: every chunk) */
  size_t nType;                   /* strlen(f.zType) */
  int bInfo;                      /* rows need rec_info (else type and rowid only) */
  uint64_t mNeed;                 /* events: columns to fill (used or checked) */
  int bPeek;                      /* events: a ts or cpu filter to try before decoding */
  int bLazyText;                  /* events: text, callchain, args TL_LAZY (perf_scan_value) */
  /* a chunk whose SAMPLE rows are all alike (bKey) stands for its rows (one
  ** row repeated), no record is read; a rowid asked for is found by walking
  ** the chunk (perf_scan_rowid), onward from the last one found */
  int bLazy;                      /* the record read last is such a chunk's rows */
  int bRowLazy;                   /* the row given last is (rowids: perfScanRowid) */
  uint64_t nBlock;                /* its rows */
  size_t iCountChunk;             /* the counted chunk */
  size_t iWalkChunk;              /* the chunk w walks for rowids, or SIZE_MAX */
  uint64_t nWalked;               /* rows of it w has passed */
  /* rows of equal values in a row (next_event_run) */
  int bRun, bRunPend, bRunDone;
  int bKey;                       /* SAMPLE runs: a chunk whose SAMPLE rows all
                                  ** show the same (PerfData.aKey) is not read */
  size_t nRun;
  int64_t aRun[PERF_RUN_MAX];     /* the run's rowids */
  /* ORDER BY ts: rows with no time first, then the rounds held in order */
  int iPhase;                     /* 0: no-time rows; 1: merge; 2: done */
  TlReorder order;                /* the records read, given back in time order */
  int64_t tsFlush;                /* entries with ts <= this may go out */
  int64_t tsMaxDone;              /* max ts of the rounds read before the current */
  int64_t tsMaxCur;               /* max ts of the round being read */
  int bRoundRead;                 /* the chunk's record read last was a FINISHED_ROUND */
  PerfRounds rounds;              /* the latest time after each of the last rounds */
  /* a directory's files merged in time order (the tables derived from
  ** every record): one scan in time order per file, the least on top */
  TlScan **aPart; int nPart;
  int64_t *aPartTs;
  TlHeap partHeap;
  int iPartLast;                  /* the file whose record was given last, or -1 */
  /* sched_slices, thread_states (perf_sched.c) */
  struct PerfSched *pSched;
  int (*xKeep)(const TlScan*);    /* the time-order merge keeps only the records
                                  ** this says yes to (before they are decoded) */
  int64_t iSchedRow;
};

/* A record held by the time-order merge: its PerfRec but the body's window
** (the body is held after it; the byte order is the file's). */
typedef struct PerfOrderHead PerfOrderHead;
struct PerfOrderHead {
  int64_t iRowid;
  uint64_t iOff;
  uint32_t type;
  uint16_t misc, size;
};

/*
** Could an events row with this time and cpu pass the ts and cpu filter?
** (The vtab checks again; this only saves building the rows it would drop.)
*/
static inline int ts_cpu_may_match(const TlFilter *f, int bTs, int64_t ts, int bCpu, uint32_t cpu){
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
    if( !bTs || ts<f->tsLo || ts>f->tsHi ) return 0;
  }
  if( f->nCpu>=0 ){
    int k;
    if( !bCpu ) return 0;
    for(k=0; k<f->nCpu && f->aCpu[k]<(int64_t)cpu; k++){}
    if( k>=f->nCpu || f->aCpu[k]!=(int64_t)cpu ) return 0;
  }
  return 1;
}

static inline int row_may_match(const TlScan *s){
  return ts_cpu_may_match(&s->f, s->ri.bTs, s->ri.ts, s->ri.bCpu, s->ri.cpu);
}

/* Start s->w on chunk pk (a read of it, for packets.args.reads). */
static inline void walk_chunk(TlScan *s, const TlPacket *pk){
  if( s->w.pTrace ) perf_walk_seek(&s->w, pk->iOff, pk->iOff + pk->nSize);
  else perf_walk_init(&s->w, s->pTrace, s->p, pk->iOff, pk->iOff + pk->nSize, &s->err);
  /* the scan's last chunk (a tally's one): the next is another thread's */
  perf_walk_stop(&s->w, pk - s->pTrace->index.a + 1 >= (ptrdiff_t)s->iChunkEnd);
  tl_packet_note_read(pk);
}

/* Is chunk pk one of the scan's stream (the engine merges the streams)? */
static inline int chunk_in_stream(const TlScan *s, const TlPacket *pk){
  return !s->f.bStream || pk->iStream==s->f.iStream;
}

/* Is the walk's current record one the scan gives (its type wanted, known)? */
static inline int record_wanted(const TlScan *s){
  return (s->eType<0 || s->r.type==(uint32_t)s->eType) && tl_perf_type_name(s->r.type)!=0;
}

/* ---- perf_open.c --------------------------------------------------------- */
int perf_probe(const uint8_t *a, size_t n, const char *zPath, int bDir);
int perf_open(TlTrace*, TlErr*);
void perf_data_free(PerfData*);
/* A user record (HEADER_ATTR, ID_INDEX, EVENT_UPDATE, ...) met by the index walk. */
int perf_open_user_record(TlTrace*, PerfData*, const PerfRec*, TlErr*);

/* ---- perf_index.c -------------------------------------------------------- */
/* The walk over the data section that builds the chunk index. */
int perf_index_build(TlTrace*, PerfData*, TlErr*);

/* ---- perf_merge.c: every record, a directory's files merged by time ------ */
typedef struct PerfMergeIn PerfMergeIn;
struct PerfMergeIn {
  PerfWalk w;
  PerfRec r;
  RecInfo ri;
};
typedef struct PerfMerge PerfMerge;
struct PerfMerge {
  PerfMergeIn *a; int n;
  int64_t *aTs;
  TlHeap heap;
  int iLast;                      /* the region whose record was given last, or -1 */
};
/* TL_OK, or TL_ENOMEM or an error in pErr (close it either way). */
int perf_merge_open(PerfMerge*, TlTrace*, const PerfData*, TlErr*);
/* The next record (*ppIn's r and ri): TL_ROW, TL_DONE or < 0. */
int perf_merge_next(PerfMerge*, const PerfData*, TlErr*, PerfMergeIn **ppIn);
void perf_merge_close(PerfMerge*);

/* ---- perf_threads.c ------------------------------------------------------ */
void perf_threads_clear(PerfData*);
/* Build the thread list once per trace, whichever scan comes first. */
int perf_threads_ready(TlTrace*, TlErr*);

/* ---- perf_scan.c --------------------------------------------------------- */
int perf_scan_open(TlTrace*, int iTable, const TlFilter*, TlScan**, TlErr*);
int perf_scan_next(TlScan*, TlRow*);
void perf_scan_close(TlScan*);
int perf_scan_rowid(TlScan*, int64_t iRepeat, int64_t *piRowid);
int perf_scan_value(TlScan*, int64_t iRepeat, int iCol, TlVal *pOut);
int perf_next_frame(TlScan*, TlRow*);
/* The record type named zType, or PERF_USER_MAX when none is. */
int perf_type_of_name(const char *zType);

/* The time-order merge from the first record (perf_sched.c's reading): of
** every file of a directory, merged; TL_OK or an error in the scan. */
int perf_scan_ordered_begin(TlScan*);
void perf_scan_parts_free(TlScan*);
int perf_scan_next_ordered(TlScan*);

/* ---- perf_sched.c: sched_slices and thread_states ------------------------ */
typedef struct PerfSched PerfSched;
int perf_sched_open(TlScan*, const TlFilter*);
int perf_sched_next(TlScan*, TlRow*);
void perf_sched_close(TlScan*);

/* ---- perf_count.c: the counting hooks (reader.h) ------------------------- */
uint64_t perf_count_cols(const TlTrace*, int iTable, const TlFilter*);
int perf_count_open(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
void perf_count_close(void *pState);
int perf_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr);
uint64_t perf_packet_count_bytes(void *pState, size_t iPacket);
int perf_packet_value(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                      TlErr *pErr);

/* ---- perf_tally.c: the tally hooks (reader.h) --------------------------- */
uint64_t perf_tally_cols(const TlTrace*, int iTable, const TlFilter*);
int perf_tally_open(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
void perf_tally_close(void *pState);
int perf_tally_packet(void *pState, size_t iPacket, TlTally*, TlErr*);

/* ---- perf_cols.c --------------------------------------------------------- */
typedef struct PerfCols PerfCols;
void perf_cols_free(PerfCols*);     /* NULL-safe */
/* Free the ":TID" names a tally's scan kept (bKeepText). */
void perf_cols_names_free(TlScan*);
/* The ":TID" names one tally's scan keeps at most (TL_THREADS_MAX; tests
** lower it, before their queries): past them the scan fails. */
extern unsigned tl_perf_tid_names_max;
/* The events columns of an ip's symbol, and all the model answers. */
#define PERF_COLS_IP (((uint64_t)1<<TL_EV_SYMBOL) | ((uint64_t)1<<TL_EV_DSO) \
                      | ((uint64_t)1<<TL_EV_SYMOFF) | ((uint64_t)1<<TL_EV_DSO_OFFSET))
#define PERF_COLS_MODEL (PERF_COLS_IP | ((uint64_t)1<<TL_EV_COMM) | ((uint64_t)1<<TL_EV_STACK))
/* those that need the threads: comm (and stack, by the command's name) */
#define PERF_COLS_THREADS (((uint64_t)1<<TL_EV_COMM) | ((uint64_t)1<<TL_EV_STACK))
/* comm, symbol, dso, symoff, dso_offset and stack of the current record,
** those of s->mNeed (comm: the threads are built) */
void perf_cols_fill(TlScan*, TlVal*);
/* The stack frames stackcollapse-perf.pl makes of the callchain entry
** "SYMBOL (DSO)", each ended by '\n', appended to pOut (pLine: scratch);
** bJava: the command starts with "java". */
void perf_cols_frame_names(const char *zSym, const char *zDso, int bJava, TlStr *pLine, TlStr *pOut);

/* ---- perf_unwind.c ------------------------------------------------------- */
typedef struct PerfUnwind PerfUnwind;
void perf_unwind_free(PerfUnwind*);   /* NULL-safe */
/* The unwound user frames of the current record when it is a sample with
** user registers and stack (*paIp, innermost first; computed once per
** record): their number, 0 for none. */
int perf_unwind_frames(TlScan*, const uint64_t **paIp);
/* The inlined functions at user address ip of the current record's
** process, then the frame itself, with source lines (*paOut, good until
** the next call): their number, 0 when no readable file holds ip. */
int perf_unwind_srclines(TlScan*, uint64_t ip, const struct TlSrcFrame **paOut);
/* The name of the k-th of them (an inlined function's; NULL for the frame). */
const char *perf_src_func(const struct TlSrcFrame *a, int k);

/* ---- perf_rows.c --------------------------------------------------------- */
void perf_side_args(const TlScan*, TlStr*);
void perf_sample_args(const TlScan*, TlStr*);
int perf_next_symbol(TlScan*, TlRow*);
int perf_next_track(TlScan*, TlRow*);
int perf_next_event_type(TlScan*, TlRow*);
int perf_next_feature(TlScan*, TlRow*);

#endif /* TL_PERF_SCAN_H */
