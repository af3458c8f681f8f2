/*
** perf_int.h: private interface of the perf.data reader (readers/perf/).
*/
#ifndef TL_PERF_INT_H
#define TL_PERF_INT_H

#include <zstd.h>

#include "perf.h"
#include "map.h"
#include "model_symbols.h"
#include "model_threads.h"
#include "source.h"

/* sample_type bits (include/uapi/linux/perf_event.h) */
#define PS_IP             (1u<<0)
#define PS_TID            (1u<<1)
#define PS_TIME           (1u<<2)
#define PS_ADDR           (1u<<3)
#define PS_READ           (1u<<4)
#define PS_CALLCHAIN      (1u<<5)
#define PS_ID             (1u<<6)
#define PS_CPU            (1u<<7)
#define PS_PERIOD         (1u<<8)
#define PS_STREAM_ID      (1u<<9)
#define PS_RAW            (1u<<10)
#define PS_BRANCH_STACK   (1u<<11)
#define PS_REGS_USER      (1u<<12)
#define PS_STACK_USER     (1u<<13)
#define PS_WEIGHT         (1u<<14)
#define PS_DATA_SRC       (1u<<15)
#define PS_IDENTIFIER     (1u<<16)
#define PS_TRANSACTION    (1u<<17)
#define PS_REGS_INTR      (1u<<18)
#define PS_PHYS_ADDR      (1u<<19)
#define PS_AUX            (1u<<20)
#define PS_CGROUP         (1u<<21)
#define PS_DATA_PAGE_SIZE (1u<<22)
#define PS_CODE_PAGE_SIZE (1u<<23)
#define PS_WEIGHT_STRUCT  (1u<<24)
#define PS_NBITS 25

/* read_format bits */
#define PR_TOTAL_TIME_ENABLED (1u<<0)
#define PR_TOTAL_TIME_RUNNING (1u<<1)
#define PR_ID                 (1u<<2)
#define PR_GROUP              (1u<<3)
#define PR_LOST               (1u<<4)

/* attr flag bits */
#define PA_EXCLUDE_KERNEL (1ull<<5)
#define PA_FREQ           (1ull<<10)
#define PA_SAMPLE_ID_ALL  (1ull<<18)

#define PERF_BRANCH_HW_INDEX (1ull<<17)   /* branch_sample_type */

/* record types */
enum {
  PERF_MMAP = 1, PERF_LOST = 2, PERF_COMM = 3, PERF_EXIT = 4, PERF_THROTTLE = 5,
  PERF_UNTHROTTLE = 6, PERF_FORK = 7, PERF_READ = 8, PERF_SAMPLE = 9,
  PERF_MMAP2 = 10, PERF_AUX = 11, PERF_ITRACE_START = 12, PERF_LOST_SAMPLES = 13,
  PERF_SWITCH = 14, PERF_SWITCH_CPU_WIDE = 15, PERF_NAMESPACES = 16,
  PERF_KSYMBOL = 17, PERF_BPF_EVENT = 18, PERF_CGROUP = 19, PERF_TEXT_POKE = 20,
  PERF_AUX_OUTPUT_HW_ID = 21,
  PERF_KERNEL_MAX = 22,
  PERF_HEADER_ATTR = 64, PERF_HEADER_EVENT_TYPE = 65, PERF_HEADER_TRACING_DATA = 66,
  PERF_HEADER_BUILD_ID = 67, PERF_FINISHED_ROUND = 68, PERF_ID_INDEX = 69,
  PERF_AUXTRACE_INFO = 70, PERF_AUXTRACE = 71, PERF_AUXTRACE_ERROR = 72,
  PERF_THREAD_MAP = 73, PERF_CPU_MAP = 74, PERF_STAT_CONFIG = 75, PERF_STAT = 76,
  PERF_STAT_ROUND = 77, PERF_EVENT_UPDATE = 78, PERF_TIME_CONV = 79,
  PERF_HEADER_FEATURE = 80, PERF_COMPRESSED = 81, PERF_FINISHED_INIT = 82,
  PERF_COMPRESSED2 = 83,
  PERF_USER_MAX = 84
};

/* feature ids */
enum {
  PF_TRACING_DATA = 1, PF_BUILD_ID = 2, PF_HOSTNAME = 3, PF_OSRELEASE = 4,
  PF_VERSION = 5, PF_ARCH = 6, PF_NRCPUS = 7, PF_CPUDESC = 8, PF_CPUID = 9,
  PF_TOTAL_MEM = 10, PF_CMDLINE = 11, PF_EVENT_DESC = 12, PF_CPU_TOPOLOGY = 13,
  PF_NUMA_TOPOLOGY = 14, PF_BRANCH_STACK = 15, PF_PMU_MAPPINGS = 16,
  PF_GROUP_DESC = 17, PF_AUXTRACE = 18, PF_STAT = 19, PF_CACHE = 20,
  PF_SAMPLE_TIME = 21, PF_MEM_TOPOLOGY = 22, PF_CLOCKID = 23,
  PF_DIR_FORMAT = 24, PF_BPF_PROG_INFO = 25, PF_BPF_BTF = 26,
  PF_COMPRESSED = 27, PF_CPU_PMU_CAPS = 28, PF_CLOCK_DATA = 29,
  PF_HYBRID_TOPOLOGY = 30, PF_PMU_CAPS = 31, PF_MAX = 256
};

typedef struct PerfAttr PerfAttr;
struct PerfAttr {
  uint32_t type;                  /* PERF_TYPE_* */
  uint32_t size;                  /* the attr's own size field */
  uint64_t config;
  uint64_t period;                /* sample_period or sample_freq */
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t flags;                 /* the bitfield word, in host bit order */
  uint64_t branch_sample_type;
  uint64_t regs_user;             /* sample_regs_user mask */
  uint64_t regs_intr;             /* sample_regs_intr mask */
  char *zName;                    /* event name as perf script prints it */
  int bNameFromDesc;              /* zName came from EVENT_DESC */
  uint64_t nSamples;              /* SAMPLE records of this attr */
  int bTs;                        /* some of them have a time: */
  int64_t tsFirst, tsLast;        /* the earliest and the latest */
};

typedef struct PerfId PerfId;
struct PerfId {
  uint64_t id;                    /* sample id */
  int iAttr;                      /* index into aAttr */
};

typedef struct PerfFeat PerfFeat;
struct PerfFeat {
  int id;                         /* feature bit */
  uint64_t iOff;                  /* file offset of its payload, or UINT64_MAX */
  uint64_t n;                     /* payload bytes */
  uint8_t *aCopy;                 /* copy of the payload (small features), or NULL */
};

typedef struct PerfTpField PerfTpField;
struct PerfTpField {
  char *zName;                    /* field name */
  uint32_t off, size;             /* in the raw data */
  int nElem;                      /* array length, 0 if not an array */
  int bArray, bChar, bSigned, bDataLoc, bCommon;
};

typedef struct PerfPrintFmt PerfPrintFmt;   /* a compiled "print fmt" */

typedef struct PerfTp PerfTp;     /* a tracepoint format */
struct PerfTp {
  uint64_t id;                    /* attr.config of its events */
  char *zName;                    /* "system:name" */
  PerfTpField *aField; int nField;
  PerfPrintFmt *pFmt;             /* its print fmt, or NULL if not evaluable */
};

/*
** What every SAMPLE row of a chunk shows in the columns a run compares
** (cpu, value, name), when the rows of the chunk all show the same: then
** those rows are one row repeated, and a scan that wants nothing else need
** not read the chunk (PerfData.aKey, one per chunk of the index).
*/
typedef struct PerfChunkKey PerfChunkKey;
struct PerfChunkKey {
  uint8_t eState;                 /* PERF_KEY_NONE, _SAME or _MIXED */
  uint8_t bCpu, bValue;
  uint32_t cpu;
  int iAttr;                      /* the event (its name) */
  int64_t value;
};
#define PERF_KEY_NONE  0          /* no SAMPLE row yet */
#define PERF_KEY_SAME  1          /* every SAMPLE row shows the key */
#define PERF_KEY_MIXED 2          /* they differ, or one did not decode */

/*
** One file of a perf data directory (perf_dir.c): DIR/data (part 0), then
** its data.N files in the order of N. A directory's files are laid end to
** end in one space of offsets: the records of part k are at [iStart, iEnd),
** iBase plus their offset in the file. Rowids and the index's chunk
** offsets are in that space, so a rowid names its file (perf_part_of).
*/
typedef struct PerfPart PerfPart;
struct PerfPart {
  TlSource *pSrc;                 /* the file (part 0: the trace's own source) */
  uint64_t iBase;                 /* where its offset 0 is in the directory's space */
  uint64_t iStart, iEnd;          /* its records */
};

#define PERF_ROUND_LAG_MAX 8        /* the most rounds a record may come late */
#define PERF_ROUND_RING 16          /* rounds' latest times kept (> PERF_ROUND_LAG_MAX) */

/*
** The time-order merge's rounds (perf_scan.c) and the index walk's check
** of them (perf_index.c): the latest time so far after each of the last
** rounds ended.
*/
typedef struct PerfRounds PerfRounds;
struct PerfRounds {
  int64_t aMax[PERF_ROUND_RING];
  uint64_t n;                     /* rounds ended */
};

/* A round ends, the latest time so far tsMax. */
static inline void perf_rounds_end(PerfRounds *r, int64_t tsMax){
  r->aMax[r->n++ % PERF_ROUND_RING] = tsMax;
}

/* With a lag of nLag rounds (1..PERF_ROUND_LAG_MAX), the time up to which
** records may go out: the latest after round n-nLag, or TL_TS_MIN. */
static inline int64_t perf_rounds_flush(const PerfRounds *r, int nLag){
  return r->n>(uint64_t)nLag ? r->aMax[(r->n - 1 - (uint64_t)nLag) % PERF_ROUND_RING] : TL_TS_MIN;
}

typedef struct PerfData PerfData;
struct PerfData {
  int bo;                         /* TL_LE or TL_BE */
  int bPipe;                      /* pipe mode */
  uint64_t iData, nData;          /* data section (pipe: after the 16-byte header) */
  PerfAttr *aAttr; int nAttr, nAttrAlloc;
  PerfId *aId; size_t nId, nIdAlloc;   /* the attrs' ids, in the file's order */
  TlMap idMap;                    /* id -> its (first) attr's index */
  PerfFeat *aFeat; int nFeat, nFeatAlloc;
  TlThreads *pThreads;            /* the threads (perf_threads.c), or NULL */
  int bTidReused;                 /* some tid names more than one thread */
  int bThreads;                   /* pThreads is built (on first use, under the
                                  ** trace's lock; read with acquire) */
  uint64_t aTypeCount[PERF_USER_MAX]; /* records per type */
  uint64_t nUnknown;              /* records of unknown type, skipped */
  uint64_t nLate;                 /* records the time-order merge would give late */
  int iRoundLag;                  /* the merge's lag in rounds (perf_scan.c), 0: by chunks */
  PerfTp *aTp; int nTp;           /* tracepoint formats */
  TlSymbols *pSyms;               /* maps, files and their symbols (perf_sym.c) */
  PerfChunkKey *aKey;             /* per chunk, or NULL: attrs came after samples */
  size_t nKey, nKeyAlloc;
  PerfPart *aPart; int nPart;     /* a data directory's files (perf_dir.c), or none */
};

/* The merge's lag in rounds: 1 (perf's rule) when it goes by chunks. */
static inline int perf_round_lag(const PerfData *p){
  return p->iRoundLag ? p->iRoundLag : 1;
}

/* A decoded sample (or the sample_id trailer of another record). */
typedef struct PerfSample PerfSample;
struct PerfSample {
  uint64_t mHave;                 /* PS_* bits present */
  uint64_t id, ip, time, addr, stream_id, period, weight, data_src;
  uint64_t transaction, phys_addr, cgroup, data_page_size, code_page_size;
  uint32_t pid, tid, cpu;
  TlBytes read;                   /* the READ values, as stored */
  const uint8_t *aCallchain; uint64_t nCallchain;
  const uint8_t *aRaw; uint32_t nRaw;
  const uint8_t *aBranch; uint64_t nBranch; uint64_t hwIdx; int bHwIdx;
  uint64_t regsUserAbi; const uint8_t *aRegsUser; uint64_t nRegsUser;
  uint64_t stackSize, stackDyn;
  const uint8_t *aStackUser;      /* the stack copy (stackSize bytes), or NULL */
  uint64_t regsIntrAbi; const uint8_t *aRegsIntr; uint64_t nRegsIntr;
  uint64_t auxSize;
};

/* One record from the walker. */
typedef struct PerfRec PerfRec;
struct PerfRec {
  uint32_t type;
  uint16_t misc;
  uint16_t size;                  /* header.size */
  TlBytes body;                   /* bytes after the 8-byte header */
  int64_t iRowid;                 /* stable: file offset, or container + index */
  uint64_t iOff;                  /* file offset of the record or its container */
};

/*
** The record walker: the records of a region of the file, with the
** contents of COMPRESSED containers in place of the containers.
*/
typedef struct PerfWalk PerfWalk;
struct PerfWalk {
  TlTrace *pTrace;
  const PerfData *p;
  int bo;
  TlWin win;
  int iPart;                      /* the directory's file it reads, or -1 */
  uint64_t iBase;                 /* that file's offset 0 in the walk's offsets */
  const uint8_t *aWin;            /* bytes held from win: file offsets [iWin, iWin+nWin) */
  uint64_t iWin, nWin;
  uint64_t iOff, iEnd;            /* next outer record; end of the region */
  ZSTD_DStream *pZ;               /* created on the first container */
  uint8_t *aOut; size_t nOut, iOut, nAlloc; /* decompressed bytes; [iOut,nOut) unread */
  uint64_t iCont;                 /* offset of the container being read */
  uint32_t iInner;                /* records taken from it so far */
  int bMidFrame;                  /* the zstd stream stopped inside a frame */
  uint64_t nMaxOut;               /* max_memory=: decompressed bytes held at once */
  TlErr *pErr;
};

#define PERF_WALK_WIN ((uint64_t)256<<10)  /* bytes read at once from an unmapped file */

/* Inner rowids: bit 62 set, container offset above bit 20, index below. */
#define PERF_INNER_ROWID(off, idx) ((int64_t)(((uint64_t)1<<62) | ((uint64_t)(off)<<20) | (idx)))
#define PERF_ROWID_IS_INNER(r)     (((uint64_t)(r)>>62)==1)
#define PERF_ROWID_OFFSET(r)       (PERF_ROWID_IS_INNER(r) ? (((uint64_t)(r)>>20) & (((uint64_t)1<<42)-1)) : (uint64_t)(r))

/* ---- Interface to code in perf_walk.c --------------------------------- */
/* (a walk's region lies in one file of a directory: the one of iStart) */
void perf_walk_init(PerfWalk*, TlTrace*, const PerfData*, uint64_t iStart, uint64_t iEnd, TlErr*);
void perf_walk_free(PerfWalk*);
/* The same walk (its window, buffers and zstd stream kept) over [iStart, iEnd)
** instead, nothing pending carried over; once initialized. */
void perf_walk_seek(PerfWalk*, uint64_t iStart, uint64_t iEnd);
/* A walk onward through all of its region: read ahead on a helper (tl_win_walk()). */
void perf_walk_ahead(PerfWalk*);
/* bStop: read ahead no further than the region's end (its next region is
** not this walk's to read: a chunk of a tally or a count), else as far as
** reads ahead go (tl_win_stop()). After perf_walk_init or _seek. */
void perf_walk_stop(PerfWalk*, int bStop);
int perf_walk_next(PerfWalk*, PerfRec*);        /* TL_ROW, TL_DONE, < 0 */
/* Between outer records, nothing pending? */
static inline int perf_walk_clean(const PerfWalk *w){
  return w->iOut==w->nOut && !w->bMidFrame;
}

/* ---- Interface to code in perf_decode.c ------------------------------- */
int perf_attr_parse(TlBytes *b, int bo, PerfAttr *pAttr);
int perf_sample_decode(const PerfAttr*, const PerfRec*, PerfSample*);
int perf_trailer_decode(const PerfAttr*, const PerfRec*, PerfSample*);
void perf_sample_peek(const PerfAttr*, const PerfRec*, int *pbTs, int64_t *pTs,
                      int *pbCpu, uint32_t *pCpu);
int perf_attr_of(const PerfData*, const PerfRec*);
const PerfAttr *perf_attr_for_id(const PerfData*, uint64_t id);
void perf_attr_default_name(const PerfAttr*, char *z, size_t n);
void perf_sample_type_text(uint64_t sample_type, TlStr *pOut);
void perf_read_format_text(uint64_t read_format, TlStr *pOut);

/* ---- Interface to code in perf_feat.c --------------------------------- */
const char *perf_feature_name(int id);
int perf_feature_value(TlTrace*, const PerfData*, const PerfFeat*, TlStr *pOut, TlErr*);
int perf_event_desc_apply(TlTrace*, PerfData*, const PerfFeat*, TlErr*);
/* A build_id_event (BUILD_ID feature entries, HEADER_BUILD_ID records). */
typedef struct PerfBuildId PerfBuildId;
struct PerfBuildId {
  int32_t pid;
  const uint8_t *aId; size_t nId; /* the build id */
  const char *zName; size_t nName;/* the file, without its NUL */
};
int perf_buildid_list_next(TlBytes *pList, uint16_t *pMisc, TlBytes *pBody);
int perf_buildid_parse(uint16_t misc, TlBytes body, PerfBuildId*);

/* ---- Interface to code in perf_info.c --------------------------------- */
int perf_info(TlTrace*, TlInfoFn xRow, void *pCtx, TlErr*);
/* clock=: pTrace->tsShift from CLOCK_DATA, or a warning (at the end of xOpen). */
int perf_clock_apply(TlTrace*, const PerfData*, TlErr*);

/* ---- Interface to code in perf_trace.c -------------------------------- */
int perf_tracing_parse(TlTrace*, PerfData*, TlBytes b, uint64_t iOff, TlErr*);
const PerfTp *perf_tp_find(const PerfData*, uint64_t id);
void perf_tp_decode(const PerfTp*, const uint8_t *a, size_t n, int bo,
                    TlStr *pArgs, TlStr *pText);
void perf_tp_free(PerfData*);

/* ---- Interface to code in perf_printfmt.c ------------------------------ */
PerfPrintFmt *perf_printfmt_parse(const PerfTp*, const char *z, size_t n);
int perf_printfmt_render(const PerfPrintFmt*, const PerfTp*, const uint8_t *a,
                         size_t n, int bo, TlStr *pOut);
void perf_printfmt_free(PerfPrintFmt*);
/* Name %pS, %ps (%pF, %pf) addresses with the kernel's symbols of pSyms. */
void perf_printfmt_symbols(PerfPrintFmt*, TlTrace*, TlSymbols*);

/* tracks.id of a record of tid at ts (once the threads are built): a
** direct call per row, and none while no tid was reused */
static inline int64_t perf_track_id(const PerfData *p, int64_t tid, int bTs, int64_t ts){
  if( !p->bTidReused ) return tid;
  return tl_threads_id(p->pThreads, tid, bTs ? ts : TL_THREADS_NO_TS);
}

/* perf_open.c: the header (pipe mode: none) and the features the records need */
int perf_open_header(TlTrace*, PerfData*, TlErr*);

/* perf_args.c: args of STAT, STAT_ROUND, STAT_CONFIG, THREAD_MAP, CPU_MAP,
** NAMESPACES, BPF_EVENT, TEXT_POKE; 1 if r is one of them */
int perf_more_args(const PerfData*, const PerfRec*, TlStr*);

/* perf_dir.c: perf data directories (perf record --threads) */
/* The part whose records hold offset iOff (of the directory's space), or -1
** (none: not a directory, or no part's). */
int perf_part_of(const PerfData*, uint64_t iOff);
/* Part k's file name, for messages (NULL: k<0, the trace's one file). */
const char *perf_part_name(const TlTrace*, int k);
/* A warning about offset iOff (of the directory's space): in its file. */
void perf_warn_at(TlTrace*, const PerfData*, uint64_t iOff, const char *zFmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The regions of records, each walked on its own: the data section, or a
** directory's parts; how many, and region k's [*piStart, *piEnd). */
int perf_ranges(const PerfData*);
void perf_range(const PerfData*, int k, uint64_t *piStart, uint64_t *piEnd);
int perf_dir_probe(const char *zPath, int bDir);
int perf_dir_part_error(TlTrace*, TlErr*);    /* DIR/data.N given alone: an error */
int perf_dir_open(TlTrace*, PerfData*, TlErr*); /* a directory (or DIR/data): pTrace->pSrc
                                                ** DIR/data, p->aPart its files */
void perf_dir_free(PerfData*);
void perf_dir_data_section(PerfData*);          /* after the header: part 0's records */

/* perf_sym.c: perf's records as inputs of the symbols model */
int perf_sym_init(TlTrace*, PerfData*);
int perf_maps_note(TlTrace*, PerfData*, const PerfRec*, int bTs, int64_t ts);
int perf_buildid_entry(PerfData*, uint16_t misc, TlBytes body);
void perf_maps_finish(PerfData*);
void perf_sym_prefetch(const TlTrace*, PerfData*);
void perf_sym_free(PerfData*);
int perf_symbols_next(TlTrace*, const PerfData*, size_t *piFile, size_t *piSym, TlRow*);
/* The symbol and file of ip of process pid at ts (a direct call per frame). */
static inline void perf_symbolize(TlTrace *pTrace, const PerfData *p, int64_t pid, uint64_t ip,
                                  int64_t ts, int bKernel, const char **pzSym, const char **pzDso){
  TlSymbolAt at;
  tl_symbols_at(p->pSyms, pTrace, pid, ts, ip, bKernel, &at);
  *pzSym = at.zSym;
  *pzDso = at.zDso;
}

#endif /* TL_PERF_INT_H */
