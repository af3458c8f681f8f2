/*
** reader.h: the interface every trace format implements.
**
** A reader turns bytes into format-neutral rows; the vtab layer turns rows
** into SQL values. Readers never include sqlite3 headers and never know
** which query asked: they see a TlFilter (a hint of what can be skipped)
** and fill TlVal arrays laid out by tables.h.
**
** Lifecycle:
**   xProbe(head, path)       how sure the reader is that the file is its own
**   xOpen(trace, err)        parse headers/metadata, build the packet index
**                            into trace->index; store private state in
**                            trace->pData. After xOpen the trace is shared,
**                            read-only, by every scan in every thread.
**   xScanOpen(trace, table, filter, &scan, err)
**                            start a scan of one table. Return TL_DONE with
**                            *ppScan=NULL when the format has no rows for it.
**   xScanNext(scan, row)     TL_ROW (row filled, borrowed until the next
**                            call), TL_DONE, or a negative code with the
**                            error in the scan's TlErr. Errors are sticky.
**   xScanClose(scan)         NULL-safe
**                            (tl_query_open checks trace->pSrc for changes
**                            before each scan; readers that open their own
**                            files call tl_source_check() on them)
**   xClose(pData)            free what xOpen made
**
** Counted scans (optional: a reader offers all of xCountCols, xCountOpen,
** xPacketCount, xPacketValue and xCountClose, or none). When a scan uses
** no column beyond the ones xCountCols says counted rows can give, and the
** filter is not bPlain, bOrdered, grouped, or a rowid, key or depth seek,
** the engine (src/count.c) scans instead of xScanOpen:
**   xCountOpen(trace, table, filter, &state, err)
**                            per-scan state (cursors); TL_DONE: not counted
**   xPacketCount(state, iPacket, &n, aRow, err)
**                            for each packet of trace->index that
**                            tl_packet_may_match the filter: the rows of it
**                            that pass the ts window, CPU set and type
**                            exactly; the engine gives them as one row
**                            (nRepeat n, TL_ROWID_LAZY, xCountCols' columns
**                            TL_LAZY unless xPacketCount set them in aRow)
**   xPacketValue(state, iPacket, k, iCol, &val, err)
**                            column iCol (-1: the rowid, in val.i) of the
**                            k-th of those rows, in the packet's order
**   xCountClose(state)       NULL-safe
** A scan may open several states, used on different threads at once
** (src/count.c counts ahead on a helper when every packet's tsBegin is
** known): each is given packets in ascending index order, not every one
** that may match, and is asked values only of the packet it counted last.
**
** Tallies (optional: xTallyCols, xTallyOpen, xTallyPacket and xTallyClose,
** or none). For GROUP BY or DISTINCT (the engine's grouped output,
** src/group.c) on columns xTallyCols can give, the engine asks for the
** rows of each packet only as how many rows have each value of those
** columns, instead of a scan's rows:
**   xTallyOpen(trace, table, filter, &state, err)
**                            per-thread state; TL_DONE: not tallied
**   xTallyPacket(state, iPacket, tally, err)
**                            the rows of packet iPacket of trace->index
**                            (one that tl_packet_may_match the filter) that
**                            pass the filter's ts window, CPU set, type and
**                            depth range exactly, given by
**                            tl_tally_add(tally, row, n): n rows whose
**                            columns are row's (only those xTallyCols gave
**                            are read; text must stay unchanged at its
**                            address until xTallyClose: the engine may
**                            know a value again by its address); rows
**                            whose values vary per row (a call's dur) one
**                            by one with their rowid, tl_tally_row(), in
**                            the same order each time
**   xTallyEnd(state, tally, err)
**                            optional: after the state's last packet (not
**                            called when the run stops early), the rows it
**                            held back, as xTallyPacket gives them (rows
**                            waiting for a model another thread builds)
**   xTallyClose(state)       NULL-safe
** The engine may run several states at once on helper threads (the trace
** is shared read-only); the packets of one stream (TlPacket.iStream >= 0)
** go to one state, and every state gets its packets in ascending order.
**
** Streams (optional: xStreams). A scan that must come in ascending ts
** (bOrdered, its table's bit in mOrdered) is the engine's merge (src/merge.c)
** when xStreams(trace, table, filter) gives n > 0 streams: the engine opens
** one scan per stream s that may match (xScanOpen with bStream set, iStream
** s), each giving only the rows of stream s in ascending ts, and merges
** them by ts (NULL ts first), a tie going to the lower stream. Stream s is
** the packets of trace->index whose iStream is s, when there are any: the
** engine opens no scan for a stream none of whose packets
** tl_packet_may_match the filter. A stream that goes back in time is
** merged as it comes: each time the row with the least ts of the streams'
** current rows. xStreams gives 0 when the reader orders the scan itself
** (a table or filter whose rows need every stream at once).
**
** Filtering contract: the filter is a hint. A scan may return rows that do
** not match it (the vtab layer checks ts, cpu and rowid exactly), but must
** never drop a row that matches. When filter->bOrdered, rows of tables whose
** bit is set in mOrdered must come in ascending ts (NULL ts first).
*/
#ifndef TL_READER_H
#define TL_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "index.h"
#include "opts.h"
#include "source.h"
#include "str.h"
#include "tables.h"

/* TlVal.t */
#define TL_NULL 0
#define TL_INT  1
#define TL_REAL 2
#define TL_TEXT 3
#define TL_BLOB 4
/* A value that differs between the repeats of a repeated row (TlRow.nRepeat)
** and that the reader works out only when SQLite asks for it (xScanValue).
** The reader vouches that every repeat passes the pushed constraints on it. */
#define TL_LAZY 5

typedef struct TlVal TlVal;
struct TlVal {
  uint8_t t;                      /* TL_NULL, TL_INT, ... */
  uint8_t bKept;                  /* TL_TEXT: z is tl_intern()'s (outlives the
                                  ** trace: SQLite may keep it without a copy) */
  int64_t i;                      /* TL_INT */
  double r;                       /* TL_REAL */
  const char *z;                  /* TL_TEXT/TL_BLOB bytes, borrowed */
  size_t n;                       /* bytes at z (TL_TEXT: without any NUL) */
};

static inline void tl_val_null(TlVal *p){ p->t = TL_NULL; }
static inline void tl_val_int(TlVal *p, int64_t i){ p->t = TL_INT; p->i = i; }
static inline void tl_val_real(TlVal *p, double r){ p->t = TL_REAL; p->r = r; }
static inline void tl_val_text(TlVal *p, const char *z, size_t n){
  p->t = TL_TEXT; p->bKept = 0; p->z = z; p->n = n;
}
/* Text of tl_intern() (src/base/intern.h) when it has room, else a borrowed z. */
void tl_val_text_kept(TlVal *p, const char *z, size_t n);
void tl_val_textz(TlVal *p, const char *z);       /* NULL z gives SQL NULL */
void tl_val_str(TlVal *p, const TlStr *pStr);     /* TlStr text (NULL if bErr) */

/*
** TlRow.iRowid of a row whose rowid the reader has not worked out yet (rows
** that stand for an index's counted records): xScanRowid finds it if SQLite
** asks.
*/
#define TL_ROWID_LAZY INT64_MIN

typedef struct TlRow TlRow;
struct TlRow {
  int64_t iRowid;                 /* stable: the same row gets the same rowid,
                                  ** or TL_ROWID_LAZY */
  TlVal *a;                       /* the table's columns; set to NULL by the caller */
  int64_t nRepeat;                /* > 1: the row stands for this many rows with
                                  ** the same values (iRowid TL_ROWID_LAZY); set
                                  ** to 0 by the caller */
  const int64_t *aVary;           /* NULL (set by the caller), or with nRepeat:
                                  ** column iVary (an integer) of repeat k is
                                  ** aVary[k], aVary[0] being a[iVary]'s; valid
                                  ** until the next row. Only for a column no
                                  ** pushed constraint is about */
  int iVary;
};

typedef struct TlFilter TlFilter;
struct TlFilter {
  int64_t tsLo;                   /* rows with ts >= tsLo (TL_TS_MIN: open) */
  int64_t tsHi;                   /* rows with ts <= tsHi (TL_TS_MAX: open) */
  const int64_t *aCpu;            /* CPUs wanted, ascending, distinct */
  int nCpu;                       /* entries in aCpu; -1 = any CPU */
  int bRowid;                     /* only the row whose rowid is iRowid */
  int64_t iRowid;
  int bKey;                       /* the table's key column equals iKey */
  int64_t iKey;                   /* (callchains.event: the sample's rowid) */
  const char *zType;              /* events: only rows whose type is this, or NULL */
  int bDepth;                     /* callchains: only depths in [depthLo, depthHi] */
  int64_t depthLo, depthHi;
  int bOrdered;                   /* ascending ts wanted */
  uint64_t mCols;                 /* columns used: bit i for column i */
  int eProgress;                  /* the query's progress= (TL_PROGRESS_*, 0 auto);
                                  ** for the shared layer, readers ignore it */
  int bPlain;                     /* accel=off: a plain per-record scan. One
                                  ** row per record (nRepeat 0, no TL_LAZY, no
                                  ** TL_ROWID_LAZY), no count from the index, no
                                  ** helper thread. bOrdered is then 0.
                                  ** The rows are the same
                                  ** as without it. */
  int bStream;                    /* only the rows of stream iStream
                                  ** (TlReaderDef.xStreams), in ascending ts */
  int iStream;
  uint64_t *pnHeld;               /* NULL, or (bStream) the bytes the scans of
                                  ** one query hold decoded, which the stream
                                  ** scans of a merge count together against
                                  ** max_memory= (one thread) */
};

/*
** The events columns (tables.h) that counted rows (xCountCols) give by
** what the filter fixes: type (zType), cpu (a CPU set), ts and ts_raw (a
** ts window), for readers whose xPacketValue answers those.
*/
static inline uint64_t tl_count_events_cols(const TlFilter *f){
  uint64_t m = 0;
  if( f->zType ) m |= (uint64_t)1<<TL_EV_TYPE;
  if( f->nCpu>=0 ) m |= (uint64_t)1<<TL_EV_CPU;
  if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
    m |= ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_TS_RAW);
  }
  return m;
}

/*
** The engine's side of a tally (xTallyPacket): n more rows with the
** values of aRow (a row of the table's columns; only those xTallyCols gave
** are read). TL_OK, or a negative code the reader returns at once.
*/
typedef struct TlTally TlTally;
int tl_tally_add(TlTally*, const TlVal *aRow, uint64_t n);
/*
** One row and its rowid, for tallies whose columns vary per row (a call's
** dur, ts): the engine keeps such values per group, and asks the same
** tally again, in the same order, when SQLite wants the rows' rowids; a
** reader whose xTallyCols gives such a column gives its rows this way.
*/
int tl_tally_row(TlTally*, const TlVal *aRow, int64_t iRowid);

/* Is column i wanted? Readers skip building text/JSON that is not. */
static inline int tl_col_used(const TlFilter *f, int i){
  return (f->mCols >> i) & 1;
}

typedef struct TlTrace TlTrace;
typedef struct TlScan TlScan;     /* each reader defines its own struct */
typedef struct TlReaderDef TlReaderDef;

/*
** One thing a trace says about itself: a row of the trace_info table
** (TlReaderDef.xInfo). Keys shared by formats where the meaning is the
** same (hostname, os_release, arch, tracer, tracer_version, cmdline, clock,
** clock_freq, clock_offset_ns, date, ...; docs/tables.md); the rest are
** the format's own names. Everything is borrowed for the call.
*/
typedef struct TlInfo TlInfo;
struct TlInfo {
  const char *zTrace;             /* the trace within the path (CTF: its
                                  ** directory relative to it, "" itself), or NULL */
  const char *zKey;               /* the key */
  TlVal val;                      /* its value: integer or text */
  const char *zSource;            /* where the format keeps it, as the
                                  ** format's tools name it */
};
/* Takes one TlInfo; returns TL_OK or a negative code (stops the walk). */
typedef int (*TlInfoFn)(void *pCtx, const TlInfo*);

/* xRow with a text value (NULL z: no row) or an integer value. */
static inline int tl_info_text(TlInfoFn xRow, void *pCtx, const char *zTrace,
                               const char *zKey, const char *z, const char *zSource){
  TlInfo r;
  if( z==0 ) return 0;
  r.zTrace = zTrace; r.zKey = zKey; r.zSource = zSource;
  r.val.t = TL_TEXT; r.val.z = z; r.val.n = strlen(z);
  return xRow(pCtx, &r);
}
static inline int tl_info_int(TlInfoFn xRow, void *pCtx, const char *zTrace,
                              const char *zKey, int64_t v, const char *zSource){
  TlInfo r;
  r.zTrace = zTrace; r.zKey = zKey; r.zSource = zSource;
  r.val.t = TL_INT; r.val.i = v;
  return xRow(pCtx, &r);
}

struct TlReaderDef {
  const char *zName;              /* "cpel", "perf", "ctf", "xray": format= */
  const char *const *azOptions;   /* option keys it reads, NULL-terminated */
  uint32_t mOrdered;              /* bit t: table t can scan in ts order */
  uint32_t mCount;                /* bit t: table t can be counted (xCountOpen) */

  /*
  ** Confidence 0..100 that the file is in this format. a[0..n) are the first
  ** bytes (n may be small); bDir when zPath is a directory (then n==0).
  */
  int (*xProbe)(const uint8_t *a, size_t n, const char *zPath, int bDir);
  int (*xOpen)(TlTrace*, TlErr*);
  void (*xClose)(void *pData);
  int (*xScanOpen)(TlTrace*, int iTable, const TlFilter*, TlScan**, TlErr*);
  int (*xScanNext)(TlScan*, TlRow*);
  void (*xScanClose)(TlScan*);
  /* The scan's error after xScanNext returned < 0. */
  const TlErr *(*xScanErr)(TlScan*);
  /*
  ** The rowid of the current row when xScanNext gave TL_ROWID_LAZY (of its
  ** iRepeat-th repeat, from 0, when it gave nRepeat): TL_OK with *piRowid,
  ** or a negative code with the error in the scan's TlErr. NULL for readers
  ** that always give rowids.
  */
  int (*xScanRowid)(TlScan*, int64_t iRepeat, int64_t *piRowid);
  /*
  ** Column iCol of the current row's iRepeat-th repeat, when xScanNext gave
  ** it as TL_LAZY: TL_OK with *pOut (not TL_LAZY; text it points to lasts
  ** until the next call), or a negative code with the error in the scan's
  ** TlErr. NULL for readers that give no TL_LAZY value.
  */
  int (*xScanValue)(TlScan*, int64_t iRepeat, int iCol, TlVal *pOut);

  /*
  ** Counted scans (see the lifecycle above; NULL when not offered).
  ** xCountCols: the columns of table iTable (a bit of mCount) that counted
  ** rows can give for this filter (bit c for column c). A column counts as
  ** given when xPacketCount sets it or xPacketValue answers it.
  */
  uint64_t (*xCountCols)(const TlTrace*, int iTable, const TlFilter*);
  int (*xCountOpen)(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
  void (*xCountClose)(void *pState);
  /*
  ** The rows of packet iPacket that pass the filter given to xCountOpen
  ** (ts window, CPU set, type; all exactly: the engine checks no lazy
  ** value), by whatever is cheapest (the index's counts, event headers,
  ** clock values at window edges, decoding the packet): TL_OK with *pn (0
  ** allowed), or a negative code with the error in *pErr. aRow holds the
  ** table's columns, the used ones TL_LAZY: it may set those that are the
  ** same in all *pn rows (cpu, type, track) to their value. (The columns
  ** TL_LAZY are all the ones xCountCols gave, used or not.)
  */
  int (*xPacketCount)(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr);
  /*
  ** Optional: the bytes of the file xPacketCount reads to count packet
  ** iPacket, 0 when the index's counts answer it. The engine starts a
  ** helper thread with a counted scan only when the packets that may
  ** match need tl_count_ahead_bytes read (count.h). NULL: each packet's
  ** content.
  */
  uint64_t (*xPacketCountBytes)(void *pState, size_t iPacket);
  /*
  ** Column iCol (-1: the rowid, in pOut->i as TL_INT) of the k-th (from 0)
  ** row xPacketCount counted in packet iPacket, in the order a scan gives
  ** them: TL_OK with *pOut (not TL_LAZY; text lasts until the next call),
  ** or a negative code with the error in *pErr. The state keeps its cursor,
  ** so that k, k+1, ... of one packet is a walk, not a walk each.
  */
  int (*xPacketValue)(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                      TlErr *pErr);

  /*
  ** Tallies (see the lifecycle above; NULL when not offered). xTallyCols:
  ** the columns of table iTable (a bit of mTally) a tally can give for
  ** this filter, 0 when it cannot tally it.
  */
  uint32_t mTally;                /* bit t: table t can be tallied */
  uint64_t (*xTallyCols)(const TlTrace*, int iTable, const TlFilter*);
  int (*xTallyOpen)(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
  int (*xTallyPacket)(void *pState, size_t iPacket, TlTally*, TlErr*);
  void (*xTallyClose)(void *pState);
  /* optional: the rows the state held back, after its last packet */
  int (*xTallyEnd)(void *pState, TlTally*, TlErr*);
  /* optional: every value column iCol of table iTable can have in a
  ** tallied row, each given to xValue (which may return an error code to
  ** stop); TL_OK, or TL_DONE when the reader cannot say */
  int (*xTallyValues)(TlTrace*, int iTable, int iCol,
                      int (*xValue)(void*, const TlVal*), void *pArg);

  /*
  ** What the trace says about itself (trace_info): xRow once per (key,
  ** value), in the same order each time. Returns TL_OK, xRow's code, or a
  ** negative code with *pErr. NULL: the format says nothing.
  */
  int (*xInfo)(TlTrace*, TlInfoFn xRow, void *pCtx, TlErr*);
  /*
  ** Has a file of the trace changed since xOpen (tl_source_check() on
  ** each)? TL_OK, or the error in *pErr. The engine asks when a scan ends.
  ** NULL: it checks TlTrace.pSrc (enough for one-file traces).
  */
  int (*xCheck)(TlTrace*, TlErr*);

  /*
  ** The streams an ordered scan of table iTable with this filter is merged
  ** from by the engine (see Streams above), or 0: the reader orders it.
  ** NULL: the reader orders every scan itself.
  */
  int (*xStreams)(const TlTrace*, int iTable, const TlFilter*);
};

/*
** The opened trace (see src/trace.h for the functions around it). Readers
** use these fields; everything is read-only after xOpen except through the
** functions that take the trace's mutex.
*/
struct TlTrace {
  char *zPath;                    /* path as given */
  const TlReaderDef *pReader;     /* its format */
  TlSource *pSrc;                 /* the file (NULL for a directory) */
  int bDir;                       /* zPath is a directory */
  TlOpts opts;                    /* options (binary=, symfs=, ...) */
  TlIndex index;                  /* the packet index (filled by xOpen) */
  void *pData;                    /* reader's private state */
  uint64_t nEventsHint;           /* estimated events, 0 if unknown */
  uint32_t mOrdered;              /* tables this trace scans in ts order: starts
                                  ** as pReader->mOrdered; xOpen may clear bits */
  void *pInternal;                /* trace.c's bookkeeping (cache, warnings) */
  int64_t tsShift;                /* clock=: ns the engine adds to every ts (xOpen sets it) */
  int bClockDone;                 /* clock=: xOpen applied it, or warned why not;
                                  ** else the engine warns that it cannot */
  int iOpenTable;                 /* while xOpen runs: the table of the query that
                                  ** opens the trace (-1: not known), and */
  uint64_t mOpenCols;             /* the columns it uses (TlFilter.mCols): a hint
                                  ** to start early what that query will need */
};

/*
** The max_memory= option (MiB, every format; default
** TL_DEFAULT_MAX_MEMORY_MB) in bytes: the ceiling for what one query holds
** decoded at once (CTF field buffers, a perf compressed record's output).
*/
#define TL_DEFAULT_MAX_MEMORY_MB 256
uint64_t tl_trace_max_memory(const TlTrace*);
/* Whether the user opted in to mapping files (mmap=on; off by default). */
int tl_trace_mmap(const TlTrace*);

/*
** Record a warning about the trace (a cut-short file, skipped records).
** Thread-safe; identical warnings are kept once; at most 1000 are kept.
** zFile names the file within a multi-file trace, or NULL.
*/
void tl_trace_warn(TlTrace*, const char *zFile, uint64_t iOff,
                   const char *zFmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;

/*
** Lock and unlock the trace's own mutex, for readers that build shared
** state lazily (symbol tables on first use).
*/
void tl_trace_lock(TlTrace*);
void tl_trace_unlock(TlTrace*);

/* The registry of formats (src/formats.c), NULL-terminated. */
extern const TlReaderDef *const tl_readers[];

#endif /* TL_READER_H */
