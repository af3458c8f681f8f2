/*
** ctf_stream.h: decoding CTF field classes from packet bytes into value
** nodes (ctf_value.h).
**
** A TlCtfDec holds the nodes of one packet's header and context followed
** by the current event's scopes: after each event the caller truncates
** back to the packet's nodes, so field references from an event into the
** packet context keep working and memory does not grow with the packet.
*/
#ifndef TL_CTF_STREAM_H
#define TL_CTF_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf_decode.h"
#include "ctf/ctf_model.h"
#include "ctf/ctf_value.h"
#include "err.h"

/* Most value nodes one packet context plus one event may produce. */
#define TL_CTF_MAX_VALS (1u<<20)
/*
** Work bounded by input: past its first TL_CTF_FREE_VALS fields, an event
** may decode at most TL_CTF_VALS_PER_BIT fields per bit it has read (fields
** that take no bits, like empty structs, repeated by a sequence length
** would otherwise cost any time at all for a few bytes).
*/
#define TL_CTF_FREE_VALS 4096u
#define TL_CTF_VALS_PER_BIT 8u

typedef struct TlCtfDec TlCtfDec;
struct TlCtfDec {
  TlCtfBits bits;                 /* the packet being read */
  uint64_t iFileOff;              /* file offset of bits.a, for messages */
  TlCtfVal *aVal;                 /* decoded nodes */
  uint32_t nVal, nAlloc;
  int aRoot[TL_CTF_NSCOPE];       /* root node of each scope, or -1 */
  int bPastEnd;                   /* the last error was a read past the end */
  int boLast, bBoLast;            /* byte order of the last integer read */
  uint64_t *pnShared;             /* bytes of node arrays of all the decoders
                                  ** of one scan, or NULL for no budget */
  uint64_t nSharedMax;            /* ceiling for *pnShared */
  uint32_t nMaxVals;              /* max_fields=: nodes at most, 0: TL_CTF_MAX_VALS */
  uint32_t nValMark;              /* nVal when the event began (the last truncate) */
  uint64_t iBitMark;              /* bits.iBit then */
};

void tl_ctf_dec_init(TlCtfDec*);
void tl_ctf_dec_free(TlCtfDec*);   /* gives its bytes back to *pnShared */

/* Drop every node from n on, and the scopes rooted there. */
void tl_ctf_dec_truncate(TlCtfDec*, uint32_t n);

/*
** Decode one scope of class f (NULL: the scope is absent) at the cursor,
** appending its nodes and setting aRoot[iScope]. Errors name the file
** offset; bPastEnd tells a read past the content end from other damage.
*/
int tl_ctf_dec_scope(TlCtfDec*, int iScope, const TlCtfField *f, TlErr*);

/*
** The node of member zName of the struct rooted at node iNode (only its
** direct members), or -1.
*/
int tl_ctf_dec_member(const TlCtfDec*, int iNode, const char *zName);

/* Integer value of an INT or ENUM node as unsigned (two's complement). */
static inline uint64_t tl_ctf_dec_u(const TlCtfDec *d, int i){
  return d->aVal[i].v.u;
}

/* Is node i an INT or ENUM? */
int tl_ctf_dec_is_int(const TlCtfDec*, int i);

/*
** A skip plan: the scopes of one event class compiled into a flat list of
** cursor moves, for scans that need no field values (count(*), name, ts).
** Only classes of fixed shape compile: integers and enums aligned to whole
** bytes, floats, plain NUL-terminated strings, structs, fixed arrays,
** fixed-size BLOBs, at most TL_CTF_SKIP_MAX_NODES nodes. Running a plan
** moves the cursor as tl_ctf_dec_scope() on each scope would, without
** nodes; when it fails (a read past the end) the cursor is left where it
** was, so the caller decodes again with tl_ctf_dec_scope() for the exact
** error.
*/
#define TL_CTF_SKIP_MAX_NODES 256

typedef struct TlCtfSkipOp TlCtfSkipOp;
struct TlCtfSkipOp {
  uint8_t eOp;                    /* TL_CTF_SKIP_... (ctf_stream.c) */
  uint32_t nAlign;                /* align to this many bits first (1: none) */
  uint64_t n;                     /* bits (fixed) or bytes (bytes) */
};

typedef struct TlCtfSkip TlCtfSkip;
struct TlCtfSkip {
  int bOk;                        /* the classes compiled */
  int nOp;
  TlCtfSkipOp *aOp;
  int bo, bBo;                    /* byte order of the last integer, if any */
};

/*
** Compile scopes a[0..n) (NULL entries are absent scopes) into p. TL_OK
** with p->bOk 0 when a class has a shape plans do not cover.
*/
int tl_ctf_skip_compile(TlCtfSkip *p, const TlCtfField *const *a, int n);
void tl_ctf_skip_free(TlCtfSkip*);

/* Run plan p at d's cursor: 0, or -1 with the cursor unchanged. */
int tl_ctf_skip_run(const TlCtfSkip *p, TlCtfDec *d);


/*
** A header plan: an event header class compiled into reads of its
** integers, the id and clock roles applied as the scan applies them, and
** variant choices (by an integer read earlier in the header) as jumps.
** Covers structs, integers (any alignment, no reversed bits) and variants
** whose selector is such an integer outside any variant; anything else
** leaves bOk 0. A run that meets anything unusual (a read past the end,
** a selector choosing no option, a byte order change inside a byte) fails
** and the caller decodes the header with tl_ctf_dec_scope().
*/
typedef struct TlCtfHdrOp TlCtfHdrOp;
typedef struct TlCtfHdrSel TlCtfHdrSel;
struct TlCtfHdrSel {              /* selector values [lo, hi] jump to iOp */
  uint64_t lo, hi;
  int iOp;
};
struct TlCtfHdrOp {
  uint8_t eOp;                    /* TL_CTF_HDR_... (ctf_stream.c) */
  uint8_t bSigned;
  uint8_t bo;
  uint8_t eRole;                  /* TL_CTF_ROLE_ID, _CLOCK or 0 */
  uint32_t nAlign;
  uint32_t nBits;
  int iArg;                       /* variant: selector's op; jump: target */
  int nSel;                       /* variant: entries in aSel */
  TlCtfHdrSel *aSel;
};

/*
** The usual header shape (LTTng's compact and large headers): an id, then
** a variant on it of { clock } or { id, clock }, unsigned integers of one
** byte order. Recognized in a compiled plan and run as straight code.
*/
typedef struct TlCtfHdrFastInt TlCtfHdrFastInt;
struct TlCtfHdrFastInt {
  uint32_t nAlign, nBits;         /* alignment folded from the ALIGN ops before it */
  uint8_t eRole;                  /* TL_CTF_ROLE_ID or _CLOCK */
};
typedef struct TlCtfHdrFast TlCtfHdrFast;
struct TlCtfHdrFast {
  int bOk;
  int bo;
  TlCtfHdrFastInt id;             /* the selector */
  struct {
    uint64_t lo, hi;              /* selector values of this option */
    int nInt;
    TlCtfHdrFastInt aInt[2];
  } aOpt[2];
};

typedef struct TlCtfHdrPlan TlCtfHdrPlan;
struct TlCtfHdrPlan {
  int bOk;
  int nOp;
  TlCtfHdrOp *aOp;
  TlCtfHdrFast fast;
};

int tl_ctf_hdr_compile(TlCtfHdrPlan *p, const TlCtfField *f);
void tl_ctf_hdr_free(TlCtfHdrPlan*);

/*
** Run header plan p at d's cursor. On success (0) *pId, *pbId are set when
** the header has an id, and *pClock and *pbClock updated by its clock fields.
** -1 leaves the cursor and d unchanged.
*/
int tl_ctf_hdr_run(const TlCtfHdrPlan *p, TlCtfDec *d, uint64_t *pId, int *pbId,
                   uint64_t *pClock, int *pbClock);

/*
** One event at d's cursor by header plan pHdr and the skip plans aSkip of
** stream class sc's event classes: the index of its class in sc->aEvent,
** the clock in *pClock, *pbClock updated; or -1 when the plans cannot read
** it (no plan for its class, damage, the end of the data), the cursor then
** anywhere in the event (the caller goes back).
*/
int tl_ctf_plan_event(const TlCtfHdrPlan *pHdr, const TlCtfSkip *aSkip, const TlCtfStreamClass *sc,
                      TlCtfDec *d, uint64_t *pClock, int *pbClock);

/*
** A count of one packet's events with header plan pHdr and sc's event
** classes' skip plans aSkip alone (no field is decoded): d at the packet's
** first event, read to its content's end; the clock kept in clock, bClock;
** the events counted in n, and by class index in aTally when not NULL. rc
** 0 at the end; -1 at an event the plans do not read (no plan, damage, the
** end of the data), the cursor and clock then at that event's start and
** the counts those of the events before it.
*/
typedef struct TlCtfCount TlCtfCount;
struct TlCtfCount {
  const TlCtfHdrPlan *pHdr;
  const TlCtfSkip *aSkip;
  const TlCtfStreamClass *sc;
  TlCtfDec *d;
  uint64_t clock; int bClock;     /* in and out */
  int64_t *aTally;                /* or NULL */
  uint64_t n;                     /* out */
  int rc;                         /* out */
};
void tl_ctf_count_plans(TlCtfCount*);

/* Two counts at once (two packets, of one stream or two): faster than one
** after the other. a and b share nothing but their plans. */
void tl_ctf_count_plans_pair(TlCtfCount *a, TlCtfCount *b);

/*
** A count of the events of one packet in a window of clock values: those
** below cLo in *piFirst, those from cLo to cHi in j->n; the first above cHi
** is read and ends the count with *pbPast set (rc 0). An event with no
** clock value ends it with rc -2. aTally is not used.
*/
void tl_ctf_count_plans_window(TlCtfCount *j, uint64_t cLo, uint64_t cHi,
                               uint64_t *piFirst, int *pbPast);

#endif
