/*
** ctf_int.h: what the files of the CTF 1.8 / CTF 2 reader share.
**
** A path names a trace directory, its metadata file, or any directory
** above traces: every directory holding a file named "metadata" below it
** is a trace (as babeltrace2 finds them), and all their streams read as one
** time-ordered event stream.
**
** xOpen parses each trace's metadata into the model (tsdl_parse.c,
** ctf2_meta.c) and walks the packet headers and contexts of every stream
** file (jumping by packet_size), which gives the packet index: per packet
** its offset, sizes, CPU, begin/end time and discarded events. Event scans
** then open one cursor per stream that can match the filter, start each at
** the first packet whose end is not before the window, and merge the
** cursors by timestamp with a binary heap.
**
** The files, one concern each:
**   ctf_open.c    discovery of traces, metadata, stream files, xOpen,
**                 xProbe, xClose and the reader's definition
**   ctf_index.c   packet headers and contexts, the per-stream packet index
**   ctf_scan.c    event cursors, the time-ordered merge, scans (xScan*)
**   ctf_cur.h     the per-event read, inline in the files that call it
**   ctf_count.c   the counting and tally hooks: packets counted with the
**                 plans, time windows by clock values, counts by class
**   ctf_walk.c    walks in a plain scan's order beside a scan: the plain
**                 scan's first error
**   ctf_rows.c    event_types and tracks rows; which event classes a trace has
**   ctf_debuginfo.c  symbol, dso, srcline of LTTng-UST events with an ip
**                 context, from the statedump and dlopen events
*/
#ifndef TL_CTF_INT_H
#define TL_CTF_INT_H

#include "reader.h"
#include "heap.h"
#include "ctf/ctf_decode.h"
#include "ctf/ctf_stream.h"
#include "ctf/ctf_value.h"

#define CTF_MAX_DEPTH    16           /* directory levels searched for traces */
#define CTF_MAX_TRACES   4096         /* traces below one path */
#define CTF_MAX_FILES    65536        /* stream files in all */
#define CTF_MAX_METADATA (64u<<20)    /* bytes of one metadata file */
#define CTF_HDR_WINDOW   ((size_t)1<<20) /* bytes read to index a packet header */
#define CTF_HDR_PEEK     ((size_t)4096)  /* bytes of it tried first */
#define CTF_PART         ((size_t)64<<10) /* bytes of a packet a count reads at once */
#define CTF_PKT_MAGIC    0xC1FC1FC1u
#define CTF_EV_BITS      28           /* rowid = packet << 28 | event in packet */

/* TlPacket.flags */
#define CTF_PF_TSBEGIN   1            /* iAux holds timestamp_begin in cycles */
#define CTF_PF_CUT       2            /* the file ends inside this packet */
#define CTF_PF_DUP       4            /* a copy of an earlier file's packet: skipped */

typedef struct CtfTr CtfTr;
struct CtfTr {
  char *zDir;                     /* the trace directory */
  char *zRel;                     /* relative to the opened path, "" for itself */
  TlCtfModel m;
  int bModel;                     /* m was parsed */
  int *aScClock;                  /* per stream class: its clock, or -1 */
  TlCtfSkip **aaSkip;             /* per stream class, per event class: the skip
                                  ** plan of its contexts and payload */
  TlCtfHdrPlan *aHdr;             /* per stream class: its event header's plan */
};

typedef struct CtfStm CtfStm;
struct CtfStm {
  int iTr;                        /* its trace */
  char *zPath;                    /* the stream file */
  uint32_t iFile;                 /* its name in trace->index.azFile */
  TlSource *pSrc;
  const TlCtfStreamClass *pSC;    /* of its first packet; NULL for an empty file */
  int64_t iInstance;              /* stream_instance_id, or -1 */
  int64_t iCpu;                   /* cpu_id of all its packets, or -1 */
  size_t iPkt0, nPkt;             /* its packets in the index */
  uint64_t nDiscarded;            /* events the tracer discarded */
  uint64_t nLostPkt;              /* packets missing by packet_seq_num */
};

typedef struct CtfData CtfData;
struct CtfData {
  int bExact;                     /* ctf_clock=exact: integer conversion */
  uint32_t nMaxVals;              /* max_fields=: decoded fields per event */
  int bWarnedClock;               /* a clock value did not fit int64 ns */
  CtfTr *aTr;
  int nTr;
  CtfStm *aStm;
  int nStm;
  struct CtfDbg *pDbg;            /* LTTng-UST debug info (ctf_debuginfo.c),
                                  ** built on first use under tl_trace_lock */
};

/* What a packet's header and context say. */
typedef struct CtfPkt CtfPkt;
struct CtfPkt {
  const TlCtfStreamClass *pSC;    /* NULL in a trace without stream classes */
  int iSC;                        /* its index in the model, or -1 */
  uint64_t nBits;                 /* packet_size (whole rest when absent) */
  uint64_t nContent;              /* content_size */
  int bTsBegin, bTsEnd, bDisc, bSeq, bCpu, bInst;
  uint64_t tsBegin, tsEnd;        /* cycles */
  uint64_t nDisc, iSeq, iCpu, iInst;
  int iClock;                     /* clock of tsBegin/tsEnd, or -1 */
};

/* Cycles of clock iClock to ns; 0 on success. */
static inline int ctf_ns(const TlCtfModel *m, int bExact, int iClock, uint64_t cycles,
                         int64_t *pNs){
  const TlCtfClock *c;
  if( iClock<0 || iClock>=m->nClock ) return -1;
  c = &m->aClock[iClock];
  if( bExact || c->bRaw ){
    return tl_ctf_clock_ns(c->freq, c->bRaw ? 0 : c->offsetS, c->bRaw ? 0 : c->offset, cycles, pNs);
  }
  return tl_ctf_clock_ns_bt(c->freq, c->offsetS, c->offset, cycles, pNs);
}

/* ----------------------------------------------------------------- scans */

/* One stream being read by an events scan. */
typedef struct CtfCur CtfCur;
struct CtfCur {
  const CtfTr *pTr;
  const CtfStm *pStm;
  int64_t iTrack;
  TlWin win;
  TlCtfDec dec;
  size_t iPkt, iPktEnd;           /* next packet to open (global index), end */
  size_t iCurPkt;                 /* the open packet */
  int bOpen;                      /* a packet is open */
  int bCut;                       /* it is cut short by the end of the file */
  uint32_t nPktVals;              /* nodes of its header and context */
  uint64_t clock;                 /* clock value in cycles */
  int bClock;
  int64_t iEv;                    /* events read in the packet */
  int64_t iCpu;                   /* the packet's cpu_id or -1 */
  const TlCtfStreamClass *pSC;    /* the packet's stream class, or NULL */
  const TlCtfSkip *aSkip;         /* its event classes' skip plans, or NULL */
  const TlCtfHdrPlan *pHdr;       /* its event header's plan, or NULL */
  int iClock;                     /* its clock, or -1 */
  int bByEvent;                   /* counting: this stream is read event by
                                  ** event (a packet its plans could not count) */
  int bPktByEvent;                /* counting: the open packet is read event
                                  ** by event (it crosses a time bound); at its
                                  ** end ctf_cur_next stops */
  int bPart;                      /* counting: dec.bits holds a part of the
                                  ** open packet (tl_ctf_cur_open_part()) */
  uint64_t iPartOff;              /* bytes of the packet before that part */
  uint64_t nPktContent;           /* the packet's content_size in bits */
  const TlCtfStreamClass *pPartSC;  /* the stream class nPartAlign is of */
  uint64_t nPartAlign;            /* its plans' largest alignment in bytes */
  /* the current event */
  const TlCtfEventClass *pEC;
  int64_t ts;
  int bTs;
  int64_t iRowid;
};

/*
** A walk of the events in a plain scan's order, beside a scan: the streams
** one after the other, each read through with the scan's filter (ctf_walk.c).
*/
typedef struct CtfWalk CtfWalk;
struct CtfWalk {
  CtfCur cur;                     /* on stream iStm when bCur */
  int iStm;                       /* the stream being read (CtfData.aStm) */
  int bCur;                       /* cur is set up */
};

typedef struct CtfScan CtfScan;

struct CtfScan {
  TlTrace *pTrace;
  CtfData *p;
  int iTable;
  TlFilter f;
  int64_t *aCpu;                  /* copy of the filter's CPUs */
  TlErr err;
  TlVal aCol[TL_MAX_NCOL];
  TlStr sText, sArgs;
  int iNext;                      /* tracks, event_types: next item */
  int iNext2;
  CtfCur *aCur;
  int nCur;
  TlHeap heap;                    /* cursors with an event, by (ts, index):
                                  ** the merge of the events for the derived
                                  ** tables and the CPUs' threads (an events
                                  ** scan by streams is the engine's merge) */
  int64_t *aKey;                  /* each cursor's ts (none: INT64_MIN) */
  int bStarted;
  int iLast;                      /* cursor whose event was returned last, or -1 */
  int iSeqCur;                    /* f.bPlain, not f.bOrdered: the cursor being
                                  ** read, the streams one after the other */
  int bSkip;                      /* no field value is wanted: skip plans may run */
  uint64_t nDecBytes;             /* bytes of the cursors' field buffers */
  /* a counted scan's state (the counting hooks, ctf_count.c): each
  ** packet's events counted by the plans alone where they can be */
  int iCountCur;                  /* the stream being counted */
  size_t iCountPkt;               /* the packet counted last */
  int64_t iCountFirst;            /* its first counted event's index in it */
  int bCountArith;                /* its counted events are consecutive from
                                  ** there: rowids are packet << bits | index */
  /* ts, ts_raw and rowids of a counted packet's events, when SQLite asks:
  ** the packet read again event by event, onward from the last one asked */
  CtfCur replay;
  int bReplay;                    /* replay's window and decoder are set up */
  int64_t nReplayed;              /* events of iCountPkt replay has passed */
  /* a tally (the tally hooks, ctf_count.c): the events counted go to
  ** pTally by class, with aTallyRow's cpu, track and type */
  TlTally *pTally;                /* during tl_ctf_tally_packet() */
  int bTallyNow;                  /* the packet being counted is tallied */
  TlVal aTallyRow[TL_MAX_NCOL];
  int64_t *aTally;                /* a packet's events by class index (two
                                  ** packets' side by side: ctf_tally_pair()) */
  int nTally;                     /* entries allocated in aTally */
  CtfCur pair;                    /* the second packet of a pair, when bPair */
  int bPair;
  size_t iStashPkt;               /* the packet whose counts by class are kept
                                  ** in aStash (of class pStashSC, cpu iStashCpu),
                                  ** or SIZE_MAX */
  const TlCtfStreamClass *pStashSC;
  int64_t iStashCpu;
  int64_t *aStash;
  int nStash;                     /* entries allocated in aStash */
  struct CtfSched *pSched;        /* sched_slices, thread_states (ctf_sched.c) */
  struct CtfSched *pThreads;      /* events of a kernel trace: the CPUs' threads */
  struct CtfCalls *pCalls;        /* calls (ctf_calls.c) */
  struct CtfDbg *pDbg;            /* symbol, dso, srcline: the trace's maps, or NULL */
  struct TlSrclines *pSrc;        /* srcline: this scan's DWARF lines, or NULL */
};

/* Where a cursor's decoder is, to go back to it (the bit, the last byte order). */
typedef struct CtfMark CtfMark;
struct CtfMark { uint64_t iBit; int bo, bBo; };

static inline CtfMark ctf_mark(const TlCtfDec *d){
  CtfMark m;
  m.iBit = d->bits.iBit;
  m.bo = d->boLast;
  m.bBo = d->bBoLast;
  return m;
}

static inline void ctf_rewind(TlCtfDec *d, const CtfMark *m){
  d->bits.iBit = m->iBit;
  d->boLast = m->bo;
  d->bBoLast = m->bBo;
}

/**************** Interface to code in ctf_index.c ****************/

/*
** Decode the packet header and context at the start of d's cursor (which
** covers nAvail bytes at file offset iOff of a file of nFile bytes) into
** *pk. On return the cursor is past the context.
*/
int tl_ctf_pkt_read(const CtfTr *pTr, TlCtfDec *d, uint64_t nFile, CtfPkt *pk, TlErr *pErr);
/* Walk the packets of one stream file into the index. */
int tl_ctf_index_stream(TlTrace *t, CtfData *p, CtfStm *s, TlErr *pErr);
/* Mark packets that copy an earlier file's CTF_PF_DUP; 0 or TL_ENOMEM. */
int tl_ctf_mark_duplicates(TlTrace *t, CtfData *p);

/**************** Interface to code in ctf_open.c ****************/

/* strcmp() of two char* elements, for qsort() and bsearch(). */
int tl_ctf_cmp_str(const void *a, const void *b);

/**************** Interface to code in ctf_scan.c ****************/

/* Open packet iPkt on cursor c. */
int tl_ctf_cur_open_pkt(const CtfScan *pScan, CtfCur *c, TlErr *pErr);
/*
** Open packet iPkt on cursor c reading only its first bytes when its
** events can be counted by the plans a part at a time (c->bPart), else
** whole. A cursor with a part open is read on only by the plans, through
** tl_ctf_cur_next_part(); anything else opens the packet whole again.
*/
int tl_ctf_cur_open_part(const CtfScan *pScan, CtfCur *c, TlErr *pErr);
/*
** Cursor c's next part of its open packet, from bit iBit of the part held
** now (the start of the event the plans stopped at) on: 1 when it is read,
** 0 when the part held reaches the packet's content end already, or an
** error.
*/
int tl_ctf_cur_next_part(const CtfScan *pScan, CtfCur *c, uint64_t iBit, TlErr *pErr);
/* Bytes of a part, CTF_PART (tests make it small to put the parts' bounds
** everywhere; set it only while no scan runs). */
extern size_t tl_ctf_part_size;
/* Set up cursor c (zeroed) on stream s (track iTrack) of the scan's trace. */
void tl_ctf_cur_init(CtfScan *pScan, CtfCur *c, const CtfStm *s, int64_t iTrack);
/* Set up cursor c (zeroed) on stream iStm as a plain scan reads it. */
void tl_ctf_cur_start(CtfScan *pScan, CtfCur *c, int iStm);
void tl_ctf_cur_free(CtfCur *c);
/* ctf_scan.c: the next event of the time-order merge (pScan->iLast) */
int tl_ctf_merge_next(CtfScan *pScan);
/* The streams of an ordered scan the engine merges (TlReaderDef.xStreams). */
int tl_ctf_streams(const TlTrace *t, int iTable, const TlFilter *f);
/* ctf_sched.c: sched_slices and thread_states */
typedef struct CtfSched CtfSched;
int tl_ctf_sched_open(CtfScan *pScan, const TlFilter *pFilter);
int tl_ctf_sched_next(CtfScan *pScan, TlRow *pRow);
void tl_ctf_sched_close(CtfScan *pScan);
/* events of a trace with sched_switch: tid, pid and comm of the CPU's
** current thread when no context field gives them (from the first event) */
int tl_ctf_thread_open(CtfScan *pScan);
/* Does an events scan of columns f->mCols take the CPUs' threads? */
int tl_ctf_thread_wanted(const CtfData *p, const TlFilter *f);
int tl_ctf_thread_cols(CtfScan *pScan, const CtfCur *c, TlVal *a);
void tl_ctf_thread_close(CtfScan *pScan);
/* ctf_calls.c: calls from entry and exit events */
typedef struct CtfCalls CtfCalls;
int tl_ctf_calls_open(CtfScan *pScan);
int tl_ctf_calls_next(CtfScan *pScan, TlRow *pRow);
void tl_ctf_calls_close(CtfScan *pScan);
int tl_ctf_scan_open(TlTrace *t, int iTable, const TlFilter *pFilter,
                     TlScan **ppScan, TlErr *pErr);
int tl_ctf_scan_next(TlScan *pScan, TlRow *pRow);
void tl_ctf_scan_close(TlScan *pScan);
const TlErr *tl_ctf_scan_err(TlScan *pScan);

/**************** Interface to code in ctf_count.c ****************/

/* The counting hooks (reader.h). */
uint64_t tl_ctf_count_cols(const TlTrace*, int iTable, const TlFilter*);
int tl_ctf_count_open(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
void tl_ctf_count_close(void *pState);
int tl_ctf_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr);
int tl_ctf_packet_value(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                        TlErr *pErr);
/* The tally hooks (reader.h; the state is the counting hooks'). */
uint64_t tl_ctf_tally_cols(const TlTrace*, int iTable, const TlFilter*);
int tl_ctf_tally_packet(void *pState, size_t iPacket, TlTally*, TlErr*);
int tl_ctf_tally_values(TlTrace*, int iTable, int iCol, int (*xValue)(void*, const TlVal*),
                        void *pArg);

/**************** Interface to code in ctf_walk.c ****************/

/*
** The error a plain scan with the scan's filter meets first, found by
** decoding every event in its order (an accelerated path that failed
** reports it, so that its error does not hang on its own order): it
** becomes the scan's error and is returned; TL_OK when there is none.
*/
int tl_ctf_plain_error(CtfScan *pScan);
void tl_ctf_walk_free(CtfWalk *w);

/**************** Interface to code in ctf_rows.c ****************/

/* event_types: one row per event class of each stream class of each trace. */
int tl_ctf_event_types_next(CtfScan *pScan, TlRow *pRow);
/* tracks: one row per stream file. */
int tl_ctf_tracks_next(CtfScan *pScan, TlRow *pRow);
/* Has any trace an event class whose name xTest(name, pCtx) accepts? */
int tl_ctf_has_class(const CtfData *p, int (*xTest)(const char*, void*), void *pCtx);

/**************** Interface to code in ctf_info.c ****************/

/* trace_info: the env entries and clock classes of every trace (xInfo). */
int tl_ctf_info(TlTrace *pTrace, TlInfoFn xRow, void *pCtx, TlErr *pErr);
/*
** clock=, before the index is built: monotonic takes the offset out of
** the clock classes named "monotonic" (LTTng's: their value is
** CLOCK_MONOTONIC, the offset maps it to the epoch); realtime keeps it.
** A clock class of another name gets a warning and keeps its ts.
*/
void tl_ctf_clock_apply(TlTrace *pTrace, CtfData *p);

/**************** Interface to code in ctf_debuginfo.c ****************/
/*
** symbol, dso, symoff, dso_offset, srcline of LTTng-UST events with an ip
** context: tl_ctf_dbg_open builds the trace's maps on first use (every
** event read once) and sets up the scan; tl_ctf_dbg_cols sets the columns
** of cursor c's event; tl_ctf_dbg_free frees the trace's maps.
*/
int tl_ctf_dbg_has_events(const CtfData *p);  /* the events it reads, in a class */
int tl_ctf_dbg_open(CtfScan *pScan);
void tl_ctf_dbg_cols(CtfScan *pScan, const CtfCur *c, TlVal *a);
void tl_ctf_dbg_close(CtfScan *pScan);
void tl_ctf_dbg_free(struct CtfDbg*);
/* The function starting at addr of process pid at ts (the DWARF
** subprogram, else the ELF symbol), as debug info names it; NULL if none. */
const char *tl_ctf_dbg_func_at(CtfScan *pScan, int64_t pid, int64_t ts, uint64_t addr);
#endif /* TL_CTF_INT_H */
