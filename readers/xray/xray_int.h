/*
** xray_int.h: private interface of the XRay reader (readers/xray/).
**
**   xray_open.c    probe, open: the walk that builds the packet index and
**                  the thread list
**   xray_rec.h     the record cursor (inline: it runs per record)
**   xray_scan.c    scans: events, xray_calls
**                  (entries and exits matched into calls by the model,
**                  model_calls.h), tracks, xray_functions, rowids; the
**                  reader's definition
**   xray_tally.c   the tally hooks of xray_calls: the calls of the
**                  packets given, each a row with its rowid, for the
**                  engine's grouped output (GROUP BY func_id with dur)
**   xray_map.c     the instrumentation map of the binary= ELF
**   xray_count.c   counted events (count(*), windows, CPUs, types): a
**                  packet's rows from the index or by reading its records
*/
#ifndef TL_XRAY_INT_H
#define TL_XRAY_INT_H

#include "xray.h"
#include "map.h"
#include "model_calls.h"

typedef struct XrFunc XrFunc;     /* a function of the instrumentation map */
struct XrFunc {
  int32_t id;                     /* function id, as llvm-xray gives it */
  uint64_t addr;                  /* function address */
  char *zName;                    /* demangled where possible, or NULL */
  uint32_t mKinds;                /* bit k: a sled of kind k */
  int bAlways;                    /* always-instrument */
  uint32_t nSleds;                /* sleds of the function */
};

typedef struct XrMap XrMap;
struct XrMap {
  XrFunc *aFunc;                  /* by id: aFunc[id-1] */
  int nFunc;
};

/* ---- Interface to code in xray_map.c ----------------------------------- */
/* Load binary= zPath (ELF, or an llvm-xray extract map in text of at most
** XR_MAP_TEXT_MAX bytes), mapped when bMap (mmap=on), else read whole. */
#define XR_MAP_TEXT_MAX ((uint64_t)64<<20)
int xray_map_load(const char *zPath, int bMap, XrMap*, TlErr*);
int xray_map_parse(const uint8_t *a, size_t n, const char *zName, XrMap*, TlErr*);
void xray_map_free(XrMap*);
const XrFunc *xray_map_func(const XrMap*, int32_t id);
const char *xray_sled_kind(unsigned k);

/* ---- the log, its records, the walk over them -------------------------- */

#define XR_HDR           32
#define XR_BASIC_REC     32
#define XR_META          16
#define XR_FUNC           8
#define XR_MAX_ARGS       8
#define XR_BASIC_RUN   4096        /* records per basic-mode packet at most */
#define XR_MAX_THREADS (1u<<20)
#define XR_PKT_CUT        1        /* TlPacket.flags: runs into damaged data, so its
                                   ** count is not the rows a scan gives */
#define XR_PKT_NOTS       2        /* TlPacket.flags: a record without a ts */
#define XR_PKT_MIXED      4        /* TlPacket.flags: records of another thread
                                   ** than its first's (damaged data) */

enum { XR_NEW_BUFFER = 0, XR_END_OF_BUFFER = 1, XR_NEW_CPU = 2, XR_TSC_WRAP = 3,
       XR_WALLCLOCK = 4, XR_CUSTOM = 5, XR_CALL_ARG = 6, XR_EXTENTS = 7,
       XR_TYPED = 8, XR_PID = 9 };

/* the function record kinds 0-3 as llvm-xray names them (xray_scan.c) */
extern const char *const xray_azKind[4];

typedef struct XrThread XrThread;
struct XrThread {
  uint32_t tid, pid;
  int64_t tsFirst, tsLast;
  int bTs;
  uint64_t nEvents;
  uint64_t tscFirst, tscLast;     /* while the log is first read */
};

typedef struct XrData XrData;
struct XrData {
  int bo;                         /* TL_LE, or TL_BE for a big-endian producer */
  int nVersion, nType;            /* header */
  uint64_t freq;                  /* cycle frequency */
  uint64_t freqInv;               /* floor(2^64 / freq) for freq >= 2, else 0 */
  int bConstTsc, bNonstopTsc;
  uint64_t nBufSize;              /* FDR v1: fixed buffer size */
  XrThread *aThread; size_t nThread, nAlloc;
  XrMap map;                      /* instrumentation map (binary=), or empty */
  int bMapOnly;                   /* the trace is the binary itself */
  int64_t monoOff;                /* FDR: CLOCK_MONOTONIC ns - ts, least over the
                                  ** buffers (WallTimeMarker, then NewCPUId) */
  int bMonoOff;                   /* monoOff was found */
};

/* One event, decoded. */
typedef struct XrEv XrEv;
struct XrEv {
  const char *zKind;              /* llvm-xray YAML kind */
  int bFunc; int32_t funcId;
  uint64_t tsc;
  uint32_t cpu, tid, pid;
  int bPid;
  uint64_t aArg[XR_MAX_ARGS]; int nArg;
  const uint8_t *aData; size_t nData; /* custom / typed event payload */
  int bTyped; uint16_t typedType;
  uint64_t iOff;                  /* file offset of its record */
};

/* The walk over one packet (or the whole file at open). */
typedef struct XrCur XrCur;
struct XrCur {
  TlTrace *pTrace;
  const XrData *p;
  TlBytes b;                      /* the packet (the whole file at open) */
  uint64_t iBase;                 /* file offset of b's first byte */
  size_t iEnd;                    /* end of the region in b */
  size_t iBufStart;               /* FDR: offset of the current buffer */
  size_t iBufEnd;                 /* FDR: end of the current buffer */
  int bInBuf;                     /* FDR: inside a buffer */
  uint32_t tid, pid, cpu;
  int bPid;
  uint64_t tsc;                   /* FDR: running TSC */
  int64_t wallNs;                 /* FDR: the buffer's WallTimeMarker in ns */
  int bWall;                      /* it is waiting for the buffer's first TSC */
  int64_t monoOff; int bMonoOff;  /* as XrData's (the open walk fills them) */
  TlErr *pErr;
};


/* ---- scans --------------------------------------------------------------- */

typedef struct XrStack XrStack;   /* the open calls of one thread */
struct XrStack {
  uint32_t tid, pid;
  int bPid;
  TlCallStack calls;              /* (their ids: rowids of their entry records;
                                  ** their times: TSCs) */
};

#define XR_DUR_NULL INT64_MIN     /* a call's dur: none */

typedef struct XrCall XrCall;     /* a finished (or, at the end, open) call */
struct XrCall {
  TlCall c;
  uint32_t tid, pid; int bPid;
};

struct TlScan {
  TlTrace *pTrace;
  const XrData *p;
  int iTable;
  TlFilter f;
  TlErr err;
  TlWin win;                      /* the packet c reads */
  TlWin winW;                     /* the packet cw reads */
  size_t iPacket;                 /* next packet */
  int bInPacket;
  XrCur c;
  size_t iRow;
  TlStr args, text;
  /* a counted scan (xray_count.c): the rows of a packet, one by one */
  XrCur cw;                       /* reads a packet for a counted row's values */
  XrEv ew;                        /* the row cw read last */
  size_t iWalkPacket;             /* the packet cw reads, or SIZE_MAX */
  uint64_t nWalked;               /* its rows cw has passed */
  /* xray_calls */
  TlMap stacks;                   /* tid -> index in aStack */
  XrStack *aStack; size_t nStack, nStackAlloc;
  size_t iStackLast;              /* the stack of the last record's thread */
  XrCall *aOut; size_t nOut, iOut, nOutAlloc;  /* calls ready to return */
  int bDrained;                   /* the events are all read */
  int bPaths;                     /* the stack column is used: calls' paths */
  TlCallPaths paths;
  size_t iDrainStack;             /* open calls returned at the end */
  /* a tally (xray_tally.c): finished calls go to it, not aOut, and the
  ** scan reads the packets before iPacketEnd only */
  TlTally *pTally;
  size_t iPacketEnd;
};


/* ---- Interface to code in xray_open.c ----------------------------------- */
int xrayProbe(const uint8_t *a, size_t n, const char *zPath, int bDir);
int xrayOpen(TlTrace*, TlErr*);
void xrayClose(void *pData);

/* ---- Interface to code in xray_scan.c ----------------------------------- */
void xray_scan_init(TlScan*, TlTrace*, int iTable, const TlFilter*);
int xray_call_next(TlScan*, const XrCall **pc);
void xray_scan_free(TlScan*);
/* The calls packet iPacket's records end (to s->pTally); the calls of
** thread tid still open (likewise). TL_OK or < 0. */
int xray_calls_packet(TlScan*, size_t iPacket);
int xray_calls_drain(TlScan*, uint32_t tid);

/* ---- Interface to code in xray_count.c: the counting hooks (reader.h) --- */
uint64_t xray_count_cols(const TlTrace*, int iTable, const TlFilter*);
int xray_count_open(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
void xray_count_close(void *pState);
int xray_packet_count(void *pState, size_t iPacket, uint64_t *pn, TlVal *aRow, TlErr *pErr);
uint64_t xray_packet_count_bytes(void *pState, size_t iPacket);
int xray_packet_value(void *pState, size_t iPacket, uint64_t k, int iCol, TlVal *pOut,
                      TlErr *pErr);


/* ---- Interface to code in xray_info.c: trace_info (reader.h xInfo) ------ */
int xray_info(TlTrace*, TlInfoFn xRow, void *pCtx, TlErr*);
/* clock=: pTrace->tsShift from the WallTimeMarker records, or a warning. */
void xray_clock_apply(TlTrace*, const XrData*);

/* ---- Interface to code in xray_tally.c: the tally hooks (reader.h) ----- */
uint64_t xray_tally_cols(const TlTrace*, int iTable, const TlFilter*);
int xray_tally_open(TlTrace*, int iTable, const TlFilter*, void **ppState, TlErr*);
int xray_tally_packet(void *pState, size_t iPacket, TlTally*, TlErr*);
void xray_tally_close(void *pState);
int xray_tally_call(TlScan*, const XrStack*, const TlCall*);

#endif /* TL_XRAY_INT_H */
