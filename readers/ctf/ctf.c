/*
** ctf.c: the CTF 1.8 reader (LTTng, barectf, babeltrace2 traces).
**
** A path names a trace directory, its metadata file, or any directory
** above traces: every directory holding a file named "metadata" below it
** is a trace (as babeltrace2 finds them), and all their streams read as one
** time-ordered event stream.
**
** xOpen parses each trace's metadata into the model (tsdl_parse.c) and
** walks the packet headers and contexts of every stream file (jumping by
** packet_size), which gives the packet index: per packet its offset,
** sizes, CPU, begin/end time and discarded events. Event scans then open
** one cursor per stream that can match the filter, start each at the
** first packet whose end is not before the window, and merge the cursors
** by timestamp with a binary heap.
*/
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "progress.h"
#include "reader.h"
#include "ctf/ctf_decode.h"
#include "ctf/ctf_stream.h"
#include "ctf/ctf_value.h"
#include "ctf/tsdl.h"
#include "ctf/tsdl_parse.h"
#include "ctf/ctf2_meta.h"

#define CTF_MAX_DEPTH    16           /* directory levels searched for traces */
#define CTF_MAX_TRACES   4096         /* traces below one path */
#define CTF_MAX_FILES    65536        /* stream files in all */
#define CTF_MAX_METADATA (64u<<20)    /* bytes of one metadata file */
#define CTF_HDR_WINDOW   ((size_t)1<<20) /* bytes read to index a packet header */
#define CTF_HDR_PEEK     ((size_t)4096)  /* bytes of it tried first */
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
  int bWarnedClock;               /* a clock value did not fit int64 ns */
  CtfTr *aTr;
  int nTr;
  CtfStm *aStm;
  int nStm;
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

/* ---------------------------------------------------------------- model */

static const TlCtfStreamClass *ctf_stream_class(const TlCtfModel *m, uint64_t id){
  int lo = 0, hi = m->nStream - 1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    if( m->aStream[mid].id==id ) return &m->aStream[mid];
    if( m->aStream[mid].id<id ) lo = mid+1; else hi = mid-1;
  }
  return 0;
}

/* The first clock an integer in f maps to, or -1. */
static int ctf_field_clock(const TlCtfField *f, int nDepth){
  int i, c;
  if( f==0 || nDepth>80 ) return -1;
  if( (f->eKind==TL_CTF_INT || f->eKind==TL_CTF_ENUM) && f->iClock>=0 ) return f->iClock;
  for(i=0; i<f->nMember; i++){
    if( (c = ctf_field_clock(f->aMember[i].pType, nDepth+1))>=0 ) return c;
  }
  return ctf_field_clock(f->pElem, nDepth+1);
}

/* Does an integer member named zName appear anywhere in f? */
static int ctf_field_has(const TlCtfField *f, const char *zName, int nDepth){
  int i;
  if( f==0 || nDepth>80 ) return 0;
  for(i=0; i<f->nMember; i++){
    const TlCtfField *m = f->aMember[i].pType;
    const char *z = f->aMember[i].zName;
    if( z[0]=='_' ) z++;
    if( (m->eKind==TL_CTF_INT || m->eKind==TL_CTF_ENUM) && strcmp(z, zName)==0 ) return 1;
    if( ctf_field_has(m, zName, nDepth+1) ) return 1;
  }
  return ctf_field_has(f->pElem, zName, nDepth+1);
}

/*
** The clock of a stream class, as babeltrace2 picks its default clock: the
** clock its fields map to; else, when it has unmapped timestamp fields,
** the trace's only clock, or a 1 GHz clock when the trace defines none.
** -1 when its events have no time.
*/
static int ctf_sc_clock(TlCtfModel *m, const TlCtfStreamClass *s){
  int c = ctf_field_clock(s->pEvHeader, 0);
  if( c<0 ) c = ctf_field_clock(s->pPktContext, 0);
  if( c>=m->nClock ) c = -1;
  if( c<0 && (ctf_field_has(s->pEvHeader, "timestamp", 0)
              || ctf_field_has(s->pPktContext, "timestamp_begin", 0)
              || ctf_field_has(s->pPktContext, "timestamp_end", 0)) ){
    if( m->nClock==1 ){
      c = 0;
    }else if( m->nClock==0 ){
      TlCtfClock *a = calloc(1, sizeof(*a));
      char *z = strdup("default");
      if( a && z ){
        a->zName = z;
        a->freq = 1000000000u;
        m->aClock = a;
        m->nClock = 1;
        c = 0;
      }else{
        free(a);
        free(z);
      }
    }
  }
  return c;
}

/* Cycles of clock iClock to ns; 0 on success. */
static int ctf_ns(const TlCtfModel *m, int bExact, int iClock, uint64_t cycles, int64_t *pNs){
  const TlCtfClock *c;
  if( iClock<0 || iClock>=m->nClock ) return -1;
  c = &m->aClock[iClock];
  if( bExact ) return tl_ctf_clock_ns(c->freq, c->offsetS, c->offset, cycles, pNs);
  return tl_ctf_clock_ns_bt(c->freq, c->offsetS, c->offset, cycles, pNs);
}

static int ctf_cmp_sc(const void *a, const void *b){
  uint64_t x = ((const TlCtfStreamClass*)a)->id, y = ((const TlCtfStreamClass*)b)->id;
  return x<y ? -1 : x>y;
}

static int ctf_cmp_ec(const void *a, const void *b){
  uint64_t x = ((const TlCtfEventClass*)a)->id, y = ((const TlCtfEventClass*)b)->id;
  return x<y ? -1 : x>y;
}

/*
** Effective alignments: a struct is aligned as its most aligned member, an
** array as its element (CTF 1.8, and what babeltrace2 does even when the
** member is an empty array).
*/
static int ctf_fix_align(TlCtfField *f, int nDepth){
  int i, a;
  if( f==0 || nDepth>80 ) return 1;
  for(i=0; i<f->nMember; i++){
    a = ctf_fix_align(f->aMember[i].pType, nDepth+1);
    if( f->eKind==TL_CTF_STRUCT && a > f->nAlign ) f->nAlign = a;
  }
  if( f->pElem ){
    a = ctf_fix_align(f->pElem, nDepth+1);
    if( a > f->nAlign ) f->nAlign = a;
  }
  if( f->nAlign < 1 ) f->nAlign = 1;
  return f->eKind==TL_CTF_VARIANT ? 1 : f->nAlign;
}

/* CTF 1.8: the packet header and context fields' roles, by name (at any depth). */
static void ctf_mark_pkt_roles(TlCtfField *f, int nDepth){
  static const struct { const char *z; int eRole; } aName[] = {
    { "magic", TL_CTF_ROLE_MAGIC }, { "stream_id", TL_CTF_ROLE_SC_ID },
    { "stream_instance_id", TL_CTF_ROLE_STREAM_ID }, { "packet_size", TL_CTF_ROLE_PKT_SIZE },
    { "content_size", TL_CTF_ROLE_CONTENT }, { "timestamp_begin", TL_CTF_ROLE_TS_BEGIN },
    { "timestamp_end", TL_CTF_ROLE_TS_END }, { "events_discarded", TL_CTF_ROLE_DISCARDED },
    { "packet_seq_num", TL_CTF_ROLE_SEQ },
  };
  int i;
  size_t k;
  if( f==0 || nDepth>80 ) return;
  for(i=0; i<f->nMember; i++){
    TlCtfField *m = f->aMember[i].pType;
    const char *z = f->aMember[i].zName;
    if( z[0]=='_' ) z++;
    if( m->eKind==TL_CTF_INT || m->eKind==TL_CTF_ENUM ){
      for(k=0; k<sizeof(aName)/sizeof(aName[0]); k++){
        if( strcmp(z, aName[k].z)==0 ) m->eRole = aName[k].eRole;
      }
    }
    ctf_mark_pkt_roles(m, nDepth+1);
  }
  ctf_mark_pkt_roles(f->pElem, nDepth+1);
}

/* Mark the id and clock fields of an event header (at any depth). */
static void ctf_mark_roles(TlCtfField *f, int nDepth){
  int i;
  if( f==0 || nDepth>80 ) return;
  for(i=0; i<f->nMember; i++){
    TlCtfField *m = f->aMember[i].pType;
    const char *z = f->aMember[i].zName;
    if( z[0]=='_' ) z++;
    if( m->eKind==TL_CTF_INT || m->eKind==TL_CTF_ENUM ){
      if( strcmp(z, "id")==0 ) m->eRole = TL_CTF_ROLE_ID;
      else if( m->iClock>=0 || strcmp(z, "timestamp")==0 ) m->eRole = TL_CTF_ROLE_CLOCK;
    }
    ctf_mark_roles(m, nDepth+1);
  }
  ctf_mark_roles(f->pElem, nDepth+1);
}

/* Put the parsed model in the order and form the decoder expects. */
static void ctf_model_prepare(TlCtfModel *m){
  int i, j;
  if( m->nStream>1 ) qsort(m->aStream, (size_t)m->nStream, sizeof(*m->aStream), ctf_cmp_sc);
  ctf_fix_align(m->pPktHeader, 0);
  if( m->major==1 ) ctf_mark_pkt_roles(m->pPktHeader, 0);
  for(i=0; i<m->nStream; i++){
    TlCtfStreamClass *sc = &m->aStream[i];
    if( sc->nEvent>1 ) qsort(sc->aEvent, (size_t)sc->nEvent, sizeof(*sc->aEvent), ctf_cmp_ec);
    ctf_fix_align(sc->pPktContext, 0);
    ctf_fix_align(sc->pEvHeader, 0);
    if( m->major==1 ){               /* CTF 2 states its roles */
      ctf_mark_pkt_roles(sc->pPktContext, 0);
      ctf_mark_roles(sc->pEvHeader, 0);
    }
    ctf_fix_align(sc->pEvContext, 0);
    for(j=0; j<sc->nEvent; j++){
      ctf_fix_align(sc->aEvent[j].pContext, 0);
      ctf_fix_align(sc->aEvent[j].pPayload, 0);
    }
  }
}

/* --------------------------------------------------------------- packets */

/*
** The integer field of role eRole (or, eRole 0, named zName) in the scope
** rooted at node iRoot, at any depth, the last decoded one winning (as for
** the event header's id); 1 if there is one.
*/
static int ctf_member_u(const TlCtfDec *d, int iRoot, int eRole, const char *zName, uint64_t *pV){
  uint32_t i, end;
  int bFound = 0;
  if( iRoot<0 ) return 0;
  end = (uint32_t)iRoot + d->aVal[iRoot].nSub;
  for(i=(uint32_t)iRoot+1; i<end && i<d->nVal; i++){
    const TlCtfVal *v = &d->aVal[i];
    int k = v->pField->eKind;
    if( (k==TL_CTF_INT || k==TL_CTF_ENUM || k==TL_CTF_VARINT)
     && (eRole ? v->pField->eRole==eRole : (v->zName && strcmp(v->zName, zName)==0)) ){
      *pV = v->v.u;
      bFound = 1;
    }
  }
  return bFound;
}

/*
** Decode the packet header and context at the start of d's cursor (which
** covers nAvail bytes at file offset iOff of a file of nFile bytes) into
** *pk. On return the cursor is past the context.
*/
static int ctf_pkt_read(const CtfTr *pTr, TlCtfDec *d, uint64_t nFile, CtfPkt *pk,
                        TlErr *pErr){
  const TlCtfModel *m = &pTr->m;
  uint64_t v, iOff = d->iFileOff;
  int r, rc;
  memset(pk, 0, sizeof(*pk));
  pk->iClock = -1;
  pk->iSC = -1;
  tl_ctf_dec_truncate(d, 0);
  rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_PKT_HEADER, m->pPktHeader, pErr);
  if( rc ) return rc;
  r = d->aRoot[TL_CTF_SCOPE_PKT_HEADER];
  /* CTF 2: yactfr reads packets whose magic number differs (pass-dt-aliases) */
  if( m->major==1 && ctf_member_u(d, r, TL_CTF_ROLE_MAGIC, 0, &v) && v!=CTF_PKT_MAGIC ){
    return tl_err_set(pErr, TL_ECORRUPT, iOff,
                      "packet magic 0x%llx, expected 0xc1fc1fc1", (unsigned long long)v);
  }
  /* The packet's uuid is not checked against the trace's: babeltrace2 and
  ** yactfr read packets whose uuid differs (babeltrace's intersection
  ** traces, yactfr's pass-diff-uuid). */
  if( ctf_member_u(d, r, TL_CTF_ROLE_SC_ID, 0, &v) ){
    pk->pSC = ctf_stream_class(m, v);
    if( pk->pSC==0 ){
      return tl_err_set(pErr, TL_ECORRUPT, iOff,
                        "packet of stream class %llu, which the metadata does not define",
                        (unsigned long long)v);
    }
  }else if( m->nStream==1 ){
    pk->pSC = &m->aStream[0];
  }else if( m->nStream>1 ){
    return tl_err_set(pErr, TL_ECORRUPT, iOff,
                      "packet header without stream_id in a trace of %d stream classes",
                      m->nStream);
  }
  pk->bInst = ctf_member_u(d, r, TL_CTF_ROLE_STREAM_ID, 0, &pk->iInst);
  if( pk->pSC ){
    pk->iSC = (int)(pk->pSC - m->aStream);
    pk->iClock = pTr->aScClock ? pTr->aScClock[pk->iSC] : -1;
  }
  rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_PKT_CONTEXT, pk->pSC ? pk->pSC->pPktContext : 0, pErr);
  if( rc ) return rc;
  r = d->aRoot[TL_CTF_SCOPE_PKT_CONTEXT];
  pk->nBits = (nFile - iOff)*8;
  if( ctf_member_u(d, r, TL_CTF_ROLE_PKT_SIZE, 0, &v) ) pk->nBits = v;
  pk->nContent = pk->nBits;
  if( ctf_member_u(d, r, TL_CTF_ROLE_CONTENT, 0, &v) ) pk->nContent = v;
  if( pk->nBits%8 || pk->nContent > pk->nBits || pk->nBits==0 ){
    return tl_err_set(pErr, TL_ECORRUPT, iOff,
                      "packet_size %llu bits, content_size %llu bits: expected a whole"
                      " number of bytes, content within the packet",
                      (unsigned long long)pk->nBits, (unsigned long long)pk->nContent);
  }
  if( d->bits.iBit > pk->nContent ){
    return tl_err_set(pErr, TL_ECORRUPT, iOff,
                      "packet header and context (%llu bits) are larger than content_size %llu",
                      (unsigned long long)d->bits.iBit, (unsigned long long)pk->nContent);
  }
  pk->bTsBegin = ctf_member_u(d, r, TL_CTF_ROLE_TS_BEGIN, 0, &pk->tsBegin);
  pk->bTsEnd = ctf_member_u(d, r, TL_CTF_ROLE_TS_END, 0, &pk->tsEnd);
  pk->bDisc = ctf_member_u(d, r, TL_CTF_ROLE_DISCARDED, 0, &pk->nDisc);
  pk->bSeq = ctf_member_u(d, r, TL_CTF_ROLE_SEQ, 0, &pk->iSeq);
  pk->bCpu = ctf_member_u(d, r, 0, "cpu_id", &pk->iCpu);
  return TL_OK;
}

/* Walk the packets of one stream file into the index. */
static int ctf_index_stream(TlTrace *t, CtfData *p, CtfStm *s, TlErr *pErr){
  CtfTr *pTr = &p->aTr[s->iTr];
  uint64_t nFile = s->pSrc->nSize, iOff = 0, prevDisc = 0, clockEnd = 0;
  int64_t prevSeq = -1;
  TlWin w;
  TlCtfDec d;
  int rc = TL_OK, bCpuSame = 1;
  tl_win_init(&w, s->pSrc);
  tl_ctf_dec_init(&d);
  s->iPkt0 = t->index.n;
  s->iCpu = -1;
  s->iInstance = -1;
  while( iOff < nFile ){
    TlBytes b;
    CtfPkt pk;
    TlPacket tp;
    uint64_t nAvail = nFile - iOff;
    size_t nWin = nAvail < CTF_HDR_WINDOW ? (size_t)nAvail : CTF_HDR_WINDOW;
    /* the first bytes copied (most headers fit), else the whole window */
    rc = tl_win_read(&w, iOff, nWin < CTF_HDR_PEEK ? nWin : CTF_HDR_PEEK, TL_LE, &b, pErr);
    if( rc ) break;
    tl_ctf_bits_init(&d.bits, b.a, b.n, (uint64_t)b.n*8);
    d.iFileOff = iOff;
    rc = ctf_pkt_read(pTr, &d, nFile, &pk, pErr);
    if( rc && d.bPastEnd && b.n<nWin ){
      tl_err_clear(pErr);
      rc = tl_win_get(&w, iOff, nWin, TL_LE, &b, pErr);
      if( rc ) break;
      tl_ctf_bits_init(&d.bits, b.a, b.n, (uint64_t)b.n*8);
      rc = ctf_pkt_read(pTr, &d, nFile, &pk, pErr);
    }
    if( rc ){
      if( d.bPastEnd && b.n==nAvail ){
        /* A header cut short at the end of the file: keep what came before. */
        tl_err_clear(pErr);
        tl_trace_warn(t, t->index.azFile[s->iFile], iOff,
                      "the file ends inside a packet header; the rest is ignored");
        rc = TL_OK;
      }
      break;
    }
    if( s->pSC==0 ) s->pSC = pk.pSC;
    memset(&tp, 0, sizeof(tp));
    tp.flags = (uint32_t)(pk.iSC+1) << 8;   /* its stream class, for scans */
    tp.iOff = iOff;
    tp.nSize = pk.nBits/8;
    tp.nContent = (pk.nContent+7)/8;
    if( tp.nSize > nAvail ){
      /* The file ends inside this packet: read what is there. */
      tl_trace_warn(t, t->index.azFile[s->iFile], iOff,
                    "packet of %llu bytes, but the file ends %llu bytes after its start;"
                    " events past the end are missing",
                    (unsigned long long)tp.nSize, (unsigned long long)nAvail);
      tp.nSize = nAvail;
      if( tp.nContent > nAvail ) tp.nContent = nAvail;
      tp.flags |= CTF_PF_CUT;
    }
    tp.tsBegin = TL_TS_MIN;
    tp.tsEnd = TL_TS_MAX;
    if( pk.bTsBegin || pk.iClock>=0 ){
      /*
      ** The clock value at the packet's start: timestamp_begin, else (as
      ** babeltrace2 does) the previous packet's timestamp_end, else 0.
      */
      int64_t ns;
      tp.flags |= CTF_PF_TSBEGIN;
      tp.iAux = pk.bTsBegin ? pk.tsBegin : clockEnd;
      if( ctf_ns(&pTr->m, p->bExact, pk.iClock, tp.iAux, &ns)==0 ) tp.tsBegin = ns;
    }
    if( pk.bTsEnd ) clockEnd = pk.tsEnd;
    if( pk.bTsEnd && pk.tsEnd!=0 && (!pk.bTsBegin || pk.tsEnd>=pk.tsBegin) ){
      int64_t ns;
      if( ctf_ns(&pTr->m, p->bExact, pk.iClock, pk.tsEnd, &ns)==0 ) tp.tsEnd = ns;
    }
    tp.iStream = s - p->aStm;
    tp.iCpu = pk.bCpu && pk.iCpu < INT64_MAX ? (int64_t)pk.iCpu : -1;
    tp.nEvents = TL_UNKNOWN;
    tp.nDiscarded = TL_UNKNOWN;
    if( pk.bDisc ){
      /* LTTng's events_discarded counts since the stream began. */
      tp.nDiscarded = pk.nDisc >= prevDisc ? pk.nDisc - prevDisc : pk.nDisc;
      s->nDiscarded += tp.nDiscarded;
      prevDisc = pk.nDisc;
    }
    tp.iSeq = pk.bSeq && pk.iSeq < INT64_MAX ? (int64_t)pk.iSeq : -1;
    if( tp.iSeq>=0 && prevSeq>=0 && tp.iSeq > prevSeq+1 ){
      s->nLostPkt += (uint64_t)(tp.iSeq - prevSeq - 1);
    }
    if( tp.iSeq>=0 ) prevSeq = tp.iSeq;
    tp.iFile = s->iFile;
    if( s->nPkt==0 ){
      s->iCpu = tp.iCpu;
      if( pk.bInst && pk.iInst < INT64_MAX ) s->iInstance = (int64_t)pk.iInst;
    }else if( s->iCpu!=tp.iCpu ){
      bCpuSame = 0;
    }
    if( tl_index_add(&t->index, &tp) ){
      rc = tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
      break;
    }
    s->nPkt++;
    iOff += tp.nSize;
  }
  if( !bCpuSame ) s->iCpu = -1;
  tl_ctf_dec_free(&d);
  tl_win_free(&w);
  if( rc==TL_OK && s->nDiscarded ){
    tl_trace_warn(t, t->index.azFile[s->iFile], TL_NO_OFFSET,
                  "the tracer discarded %llu events in this stream",
                  (unsigned long long)s->nDiscarded);
  }
  if( rc==TL_OK && s->nLostPkt ){
    tl_trace_warn(t, t->index.azFile[s->iFile], TL_NO_OFFSET,
                  "%llu packets are missing (gaps in packet_seq_num)",
                  (unsigned long long)s->nLostPkt);
  }
  if( rc ) tl_err_file(pErr, t->index.azFile[s->iFile]);
  return rc;
}

/* ------------------------------------------------------------- discovery */

static char *ctf_join(const char *zA, const char *zB){
  size_t na = strlen(zA), nb = strlen(zB);
  char *z = malloc(na + nb + 2);
  if( z==0 ) return 0;
  memcpy(z, zA, na);
  if( na && zA[na-1]!='/' ) z[na++] = '/';
  memcpy(z+na, zB, nb+1);
  return z;
}

static int ctf_cmp_str(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

/*
** The names in directory zDir (not starting with '.'), sorted; bDirs picks
** subdirectories (symbolic links to directories too: the search depth is
** bounded, so a link loop ends), else regular files.
*/
static int ctf_list(const char *zDir, int bDirs, char ***pazName, int *pn){
  DIR *dir = opendir(zDir);
  struct dirent *e;
  char **az = 0;
  int n = 0, nAlloc = 0;
  *pazName = 0;
  *pn = 0;
  if( dir==0 ) return TL_EIO;
  while( (e = readdir(dir))!=0 ){
    struct stat st;
    char *zPath;
    int bOk;
    if( e->d_name[0]=='.' ) continue;
    zPath = ctf_join(zDir, e->d_name);
    if( zPath==0 ) goto oom;
    bOk = bDirs ? (stat(zPath, &st)==0 && S_ISDIR(st.st_mode))
                : (stat(zPath, &st)==0 && S_ISREG(st.st_mode));
    free(zPath);
    if( !bOk ) continue;
    if( n>=nAlloc ){
      char **azNew;
      nAlloc = nAlloc ? nAlloc*2 : 16;
      azNew = realloc(az, sizeof(char*)*(size_t)nAlloc);
      if( azNew==0 ) goto oom;
      az = azNew;
    }
    if( (az[n] = strdup(e->d_name))==0 ) goto oom;
    n++;
    if( n > CTF_MAX_FILES ) break;
  }
  closedir(dir);
  if( n ) qsort(az, (size_t)n, sizeof(char*), ctf_cmp_str);
  *pazName = az;
  *pn = n;
  return TL_OK;
oom:
  closedir(dir);
  while( n>0 ) free(az[--n]);
  free(az);
  return TL_ENOMEM;
}

static void ctf_list_free(char **az, int n){
  while( n>0 ) free(az[--n]);
  free(az);
}

static int ctf_has_metadata(const char *zDir){
  struct stat st;
  char *z = ctf_join(zDir, "metadata");
  int b = z && stat(z, &st)==0 && S_ISREG(st.st_mode);
  free(z);
  return b;
}

/* Add zDir as a trace; zRel its name relative to the opened path. */
static int ctf_add_trace(CtfData *p, const char *zDir, const char *zRel){
  CtfTr *a;
  if( p->nTr >= CTF_MAX_TRACES ) return TL_EUNSUPPORTED;
  a = realloc(p->aTr, sizeof(*a)*(size_t)(p->nTr+1));
  if( a==0 ) return TL_ENOMEM;
  p->aTr = a;
  a = &p->aTr[p->nTr];
  memset(a, 0, sizeof(*a));
  a->zDir = strdup(zDir);
  a->zRel = strdup(zRel);
  p->nTr++;
  return a->zDir && a->zRel ? TL_OK : TL_ENOMEM;
}

/* Find the traces at or below zDir. A trace directory is not searched further. */
static int ctf_find(CtfData *p, const char *zDir, const char *zRel, int nDepth){
  char **az;
  int n, i, rc;
  if( ctf_has_metadata(zDir) ) return ctf_add_trace(p, zDir, zRel);
  if( nDepth >= CTF_MAX_DEPTH ) return TL_OK;
  if( ctf_list(zDir, 1, &az, &n) ) return TL_OK;   /* unreadable: skipped */
  for(i=0, rc=TL_OK; i<n && rc==TL_OK; i++){
    char *zSub = ctf_join(zDir, az[i]);
    char *zSubRel = zRel[0] ? ctf_join(zRel, az[i]) : strdup(az[i]);
    rc = zSub && zSubRel ? ctf_find(p, zSub, zSubRel, nDepth+1) : TL_ENOMEM;
    free(zSub);
    free(zSubRel);
  }
  ctf_list_free(az, n);
  return rc;
}

/* ---------------------------------------------------------- open, close */

static void ctf_data_free(CtfData *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<p->nTr; i++){
    free(p->aTr[i].zDir);
    free(p->aTr[i].zRel);
    if( p->aTr[i].aaSkip ){
      int j, k;
      for(j=0; j<p->aTr[i].m.nStream; j++){
        if( p->aTr[i].aaSkip[j]==0 ) continue;
        for(k=0; k<p->aTr[i].m.aStream[j].nEvent; k++) tl_ctf_skip_free(&p->aTr[i].aaSkip[j][k]);
        free(p->aTr[i].aaSkip[j]);
      }
      free(p->aTr[i].aaSkip);
    }
    if( p->aTr[i].aHdr ){
      int j;
      for(j=0; j<p->aTr[i].m.nStream; j++) tl_ctf_hdr_free(&p->aTr[i].aHdr[j]);
      free(p->aTr[i].aHdr);
    }
    /* the plans above are counted by the model's classes */
    if( p->aTr[i].bModel ) tl_ctf_model_free(&p->aTr[i].m);
    free(p->aTr[i].aScClock);
  }
  for(i=0; i<p->nStm; i++){
    free(p->aStm[i].zPath);
    tl_source_close(p->aStm[i].pSrc);
  }
  free(p->aTr);
  free(p->aStm);
  free(p);
}

static void ctfClose(void *pData){
  ctf_data_free((CtfData*)pData);
}

/*
** The skip plan of each event class (its stream's event context, its
** context and payload), used by scans that need no field values.
*/
static int ctf_compile_skips(CtfTr *pTr, TlErr *pErr){
  TlCtfModel *m = &pTr->m;
  int i, j;
  pTr->aaSkip = calloc((size_t)(m->nStream ? m->nStream : 1), sizeof(TlCtfSkip*));
  pTr->aHdr = calloc((size_t)(m->nStream ? m->nStream : 1), sizeof(TlCtfHdrPlan));
  if( pTr->aaSkip==0 || pTr->aHdr==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  for(i=0; i<m->nStream; i++){
    const TlCtfStreamClass *sc = &m->aStream[i];
    if( tl_ctf_hdr_compile(&pTr->aHdr[i], sc->pEvHeader) ){
      return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
    pTr->aaSkip[i] = calloc((size_t)(sc->nEvent ? sc->nEvent : 1), sizeof(TlCtfSkip));
    if( pTr->aaSkip[i]==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    for(j=0; j<sc->nEvent; j++){
      const TlCtfField *a[3];
      a[0] = sc->pEvContext;
      a[1] = sc->aEvent[j].pContext;
      a[2] = sc->aEvent[j].pPayload;
      tl_ctf_skip_compile(&pTr->aaSkip[i][j], a, 3);
    }
  }
  return TL_OK;
}

/* Read and parse the metadata of trace pTr. */
static int ctf_load_metadata(CtfTr *pTr, const TlSource *pMem, TlErr *pErr){
  char *zPath = ctf_join(pTr->zDir, "metadata");
  TlSource *pSrc = 0;
  TlWin w;
  TlBytes b;
  TlStr text;
  int rc = TL_OK;
  if( zPath==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  tl_str_init(&text);
  tl_win_init(&w, 0);
  if( pMem==0 ) rc = tl_source_open(zPath, &pSrc, pErr);
  if( rc==TL_OK && (pMem ? pMem : pSrc)->nSize > CTF_MAX_METADATA ){
    rc = tl_err_set(pErr, TL_EUNSUPPORTED, TL_NO_OFFSET,
                    "metadata of %llu bytes, over the %u MiB this reader accepts",
                    (unsigned long long)(pMem ? pMem : pSrc)->nSize, CTF_MAX_METADATA>>20);
  }
  if( rc==TL_OK ){
    tl_win_init(&w, pMem ? pMem : pSrc);
    rc = tl_win_get(&w, 0, (size_t)(pMem ? pMem : pSrc)->nSize, TL_LE, &b, pErr);
  }
  if( rc==TL_OK && tl_tsdl_sniff(b.a, b.n)==0 && !(b.n>0 && b.a[0]==0x1e) ){
    rc = tl_err_set(pErr, TL_ECORRUPT, 0,
                    "expected CTF metadata (\"/* CTF 1.8\" text, a JSON text sequence or a metadata packet)");
  }
  if( rc==TL_OK ) rc = tl_tsdl_text(b.a, b.n, &text, pErr);
  if( rc==TL_OK && text.bErr ) rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( rc==TL_OK ){
    /* CTF 2: a JSON text sequence (plain, or the content of metadata packets) */
    if( text.n>0 && text.z[0]==0x1e ){
      rc = tl_ctf2_parse(text.z, text.n, &pTr->m, pErr);
    }else{
      rc = tl_tsdl_parse(text.z ? text.z : "", text.n, &pTr->m, pErr);
      if( rc==TL_OK && pTr->m.major!=1 ){
        tl_ctf_model_free(&pTr->m);
        rc = tl_err_set(pErr, TL_EUNSUPPORTED, TL_NO_OFFSET,
                        "the metadata says CTF %d.%d; this reader reads CTF 1.8 and CTF 2",
                        pTr->m.major, pTr->m.minor);
      }
    }
    if( rc==TL_OK ){
      int i;
      pTr->bModel = 1;
      ctf_model_prepare(&pTr->m);
      pTr->aScClock = calloc((size_t)(pTr->m.nStream ? pTr->m.nStream : 1), sizeof(int));
      if( pTr->aScClock==0 ) rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      for(i=0; rc==TL_OK && i<pTr->m.nStream; i++){
        pTr->aScClock[i] = ctf_sc_clock(&pTr->m, &pTr->m.aStream[i]);
      }
      if( rc==TL_OK ) rc = ctf_compile_skips(pTr, pErr);
    }
  }
  if( rc ){
    char *zName = pTr->zRel[0] ? ctf_join(pTr->zRel, "metadata") : strdup("metadata");
    tl_err_file(pErr, zName ? zName : "metadata");
    free(zName);
  }
  tl_win_free(&w);
  tl_source_close(pSrc);
  tl_str_free(&text);
  free(zPath);
  return rc;
}

/* Open the stream files of trace iTr and index them. */
static int ctf_open_streams(TlTrace *t, CtfData *p, int iTr, TlErr *pErr){
  CtfTr *pTr = &p->aTr[iTr];
  char **az;
  int n, i, rc = TL_OK;
  if( ctf_list(pTr->zDir, 0, &az, &n) ){
    return tl_err_set(pErr, TL_EIO, TL_NO_OFFSET, "cannot list trace directory %s", pTr->zDir);
  }
  for(i=0; i<n && rc==TL_OK; i++){
    CtfStm *s;
    char *zName;
    if( strcmp(az[i], "metadata")==0 ) continue;
    if( p->nStm >= CTF_MAX_FILES ){
      rc = tl_err_set(pErr, TL_EUNSUPPORTED, TL_NO_OFFSET,
                      "more than %d stream files", CTF_MAX_FILES);
      break;
    }
    s = realloc(p->aStm, sizeof(*s)*(size_t)(p->nStm+1));
    if( s==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); break; }
    p->aStm = s;
    s = &p->aStm[p->nStm];
    memset(s, 0, sizeof(*s));
    s->iTr = iTr;
    s->zPath = ctf_join(pTr->zDir, az[i]);
    zName = pTr->zRel[0] ? ctf_join(pTr->zRel, az[i]) : strdup(az[i]);
    if( s->zPath==0 || zName==0 || tl_index_add_file(&t->index, zName, &s->iFile) ){
      free(zName);
      free(s->zPath);
      rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      break;
    }
    free(zName);
    p->nStm++;
    rc = tl_source_open(s->zPath, &s->pSrc, pErr);
    if( rc ){ tl_err_file(pErr, t->index.azFile[s->iFile]); break; }
    rc = ctf_index_stream(t, p, s, pErr);
  }
  ctf_list_free(az, n);
  return rc;
}

/* One packet's identity for finding copies (ctf_mark_duplicates). */
typedef struct CtfPktKey CtfPktKey;
struct CtfPktKey {
  uint8_t aGroup[16];             /* the trace's UUID, or its index */
  uint64_t sc, inst;              /* stream class id, stream_instance_id */
  int64_t tsBegin, tsEnd, iSeq;
  uint64_t nSize;
  size_t iPkt;                    /* in the index */
  int iStm;
};

static int ctf_cmp_key(const void *a, const void *b){
  const CtfPktKey *x = a, *y = b;
  int c = memcmp(x->aGroup, y->aGroup, 16);
  if( c ) return c;
#define CTF_CMP(f) if( x->f!=y->f ) return x->f < y->f ? -1 : 1
  CTF_CMP(sc); CTF_CMP(inst); CTF_CMP(tsBegin); CTF_CMP(tsEnd); CTF_CMP(iSeq);
  CTF_CMP(nSize); CTF_CMP(iStm); CTF_CMP(iPkt);
#undef CTF_CMP
  return 0;
}

/*
** Traces with the same UUID are chunks of one trace (LTTng session
** rotation, or the same trace found twice), and babeltrace2 reads a
** packet that appears in two stream files of the same stream (same stream
** class and stream_instance_id) once: from the file that sorts first.
** Such copies are marked CTF_PF_DUP and scans skip them. Returns 0 or
** TL_ENOMEM.
*/
static int ctf_mark_duplicates(TlTrace *t, CtfData *p){
  CtfPktKey *a;
  size_t n = 0, i;
  int k;
  if( t->index.n<2 ) return TL_OK;
  a = malloc(sizeof(*a)*t->index.n);
  if( a==0 ) return TL_ENOMEM;
  for(k=0; k<p->nStm; k++){
    const CtfStm *s = &p->aStm[k];
    const CtfTr *pTr = &p->aTr[s->iTr];
    size_t j;
    if( s->pSC==0 || s->iInstance<0 ) continue;
    for(j=s->iPkt0; j<s->iPkt0+s->nPkt; j++){
      const TlPacket *tp = &t->index.a[j];
      CtfPktKey *q = &a[n++];
      memset(q, 0, sizeof(*q));
      if( pTr->m.bUuid ) memcpy(q->aGroup, pTr->m.aUuid, 16);
      else memcpy(q->aGroup, &s->iTr, sizeof(s->iTr));
      q->sc = s->pSC->id;
      q->inst = (uint64_t)s->iInstance;
      q->tsBegin = tp->tsBegin;
      q->tsEnd = tp->tsEnd;
      q->iSeq = tp->iSeq;
      q->nSize = tp->nSize;
      q->iPkt = j;
      q->iStm = k;
    }
  }
  qsort(a, n, sizeof(*a), ctf_cmp_key);
  for(i=1; i<n; i++){
    CtfPktKey *x = &a[i-1], *y = &a[i];
    if( memcmp(x->aGroup, y->aGroup, 16)==0 && x->sc==y->sc && x->inst==y->inst
     && x->tsBegin==y->tsBegin && x->tsEnd==y->tsEnd && x->iSeq==y->iSeq
     && x->nSize==y->nSize && x->iStm!=y->iStm ){
      t->index.a[y->iPkt].flags |= CTF_PF_DUP;
      y->iStm = x->iStm;              /* a third copy compares with the first */
    }
  }
  free(a);
  return TL_OK;
}

static int ctfOpen(TlTrace *t, TlErr *pErr){
  CtfData *p = calloc(1, sizeof(*p));
  int rc = TL_OK, i;
  const char *zClock = tl_opts_get(&t->opts, "ctf_clock");
  if( p==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( zClock && strcmp(zClock, "exact")!=0 && strcmp(zClock, "babeltrace2")!=0 ){
    free(p);
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
                      "option ctf_clock must be babeltrace2 or exact, not \"%s\"", zClock);
  }
  p->bExact = zClock && strcmp(zClock, "exact")==0;
  if( t->bDir ){
    rc = ctf_find(p, t->zPath, "", 0);
    if( rc==TL_OK && p->nTr==0 ){
      rc = tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "no CTF trace (no metadata file) below this directory");
    }
  }else if( t->pSrc && t->pSrc->fd<0 ){
    /* Metadata in memory (fuzzing, tests): a trace without stream files. */
    rc = ctf_add_trace(p, "", "");
    if( rc==TL_OK ) rc = ctf_load_metadata(&p->aTr[0], t->pSrc, pErr);
    if( rc ){
      ctf_data_free(p);
      return rc==TL_ENOMEM ? tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory") : rc;
    }
    t->pData = p;
    return TL_OK;
  }else{
    /* The metadata file: its directory is the trace. */
    char *zDir = strdup(t->zPath), *zSlash;
    if( zDir==0 ){ ctf_data_free(p); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
    zSlash = strrchr(zDir, '/');
    if( zSlash==0 ){ zDir[0] = '.'; zDir[1] = 0; }
    else if( zSlash==zDir ) zSlash[1] = 0;
    else *zSlash = 0;
    rc = ctf_add_trace(p, zDir, "");
    free(zDir);
  }
  if( rc==TL_ENOMEM ) rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( rc==TL_EUNSUPPORTED ){
    rc = tl_err_set(pErr, rc, TL_NO_OFFSET, "more than %d traces below this directory", CTF_MAX_TRACES);
  }
  for(i=0; i<p->nTr && rc==TL_OK; i++) rc = ctf_load_metadata(&p->aTr[i], 0, pErr);
  for(i=0; i<p->nTr && rc==TL_OK; i++) rc = ctf_open_streams(t, p, i, pErr);
  if( rc==TL_OK && ctf_mark_duplicates(t, p) ){
    rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( rc ){
    ctf_data_free(p);
    return rc;
  }
  t->pData = p;
  return TL_OK;
}

static int ctfProbe(const uint8_t *a, size_t n, const char *zPath, int bDir){
  if( bDir ){
    CtfData d;
    int nTr;
    memset(&d, 0, sizeof(d));
    ctf_find(&d, zPath, "", 0);
    nTr = d.nTr;
    while( d.nTr>0 ){ d.nTr--; free(d.aTr[d.nTr].zDir); free(d.aTr[d.nTr].zRel); }
    free(d.aTr);
    return nTr>0 ? 80 : 0;
  }
  if( n>0 && a[0]==0x1e ){
    const char *zBase = strrchr(zPath, '/');
    zBase = zBase ? zBase+1 : zPath;
    return strcmp(zBase, "metadata")==0 ? 95 : 0;   /* CTF 2 */
  }
  switch( tl_tsdl_sniff(a, n) ){
    case 2: return 95;
    case 1: return 90;
    default: return 0;
  }
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
  int bByEvent;                   /* count mode: this stream is read event by
                                  ** event (a packet its plans could not count) */
  int bPktByEvent;                /* count mode: the open packet is read event
                                  ** by event (it crosses a time bound); at its
                                  ** end ctf_cur_next stops */
  /* the current event */
  const TlCtfEventClass *pEC;
  int64_t ts;
  int bTs;
  int64_t iRowid;
};

typedef struct CtfScan CtfScan;

/*
** Events counted by name (f.bGroupName) by one thread: the cursors it
** counts are its own, the scan is only read. What it has counted goes to
** the pipe's shared counts after each packet (ctf_tally_publish()).
*/
typedef struct CtfPipe CtfPipe;
typedef struct CtfTally CtfTally;
struct CtfTally {
  const CtfScan *pScan;
  CtfPipe *pPipe;
  TlErr *pErr;                    /* where its errors go */
  struct CtfNameCount {
    const char *zName;
    int iSorted;                  /* its index in pPipe->azName */
    int64_t n;                    /* events counted */
    int64_t nPub;                 /* of them, added to the pipe's counts */
  } *aName;
  int nName, nNameAlloc;          /* entries used, allocated in aName */
  int64_t *aTally;                /* a packet's events by class index */
  int nTally;                     /* entries allocated in aTally */
  uint64_t nPktBytes;             /* bytes of the packets it opened */
  uint64_t nPubBytes;             /* of them, added to the pipe's */
  int bOwnThread;                 /* on a thread of its own: the packets it
                                  ** opens are not on this one's progress line */
  int bStop;                      /* the pipe asked it to stop */
};

/* One thread's share of a count by name: its cursors and its counts. */
typedef struct CtfHelper CtfHelper;
struct CtfHelper {
  CtfTally t;
  TlErr err;
  CtfCur *aCur;
  int nCur;
  int rc;
  int bThread;                    /* runs on thread th */
  pthread_t th;
};

/*
** A count by name on helper threads while this one gives rows: the names of
** all event classes, sorted once; each helper adds its counts after each
** packet; the rows of a name come as its count grows, and the next name's
** only once every helper is done (then every count is whole).
*/
struct CtfPipe {
  pthread_mutex_t mu;             /* guards aCounted, nBytes, nRunning, bStop */
  pthread_cond_t cv;              /* a helper added counts or finished */
  const char **azName;            /* distinct event class names, strcmp order */
  int nName;
  int64_t *aCounted;              /* events counted so far, by azName index */
  uint64_t nBytes;                /* packet bytes counted so far */
  int nRunning;                   /* helpers not finished */
  int bStop;                      /* helpers stop at their next packet */
  CtfHelper aHelper[2];
  int nHelper;
  int bJoined;                    /* every helper's thread was joined */
};

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
  int *aHeap;                     /* cursors with an event, by (ts, index) */
  int nHeap;
  int bStarted;
  int iLast;                      /* cursor whose event was returned last, or -1 */
  int bSkip;                      /* no field value is wanted: skip plans may run */
  /* f.bGroupName: the events counted by name on helper threads, given name
  ** by name as they are counted */
  CtfPipe *pPipe;
  int iName;                      /* the name being given (pPipe->azName) */
  int64_t nNameGiven;             /* its rows given so far */
  uint64_t nBytesNoted;           /* pPipe->nBytes given to the progress line */
  int64_t iGroupRow;              /* rows given so far */
  int64_t iGroupBase;             /* rowid of the current name's first row */
  uint64_t nDecBytes;             /* bytes of the cursors' field buffers */
  /* count(*): each packet's events are counted by the plans alone and one
  ** row stands for them (TlRow.nRepeat); rowids are packet << bits | index */
  int bCount;
  int iCountCur;                  /* the stream being counted */
  size_t iCountPkt;               /* the packet of the current row */
  int64_t iCountFirst;            /* its first event's index in the packet */
  /* ts and ts_raw of a counted packet's events (TL_LAZY), when SQLite asks:
  ** the packet read again event by event, onward from the last one asked */
  CtfCur replay;
  int bReplay;                    /* replay's window and decoder are set up */
  int64_t nReplayed;              /* events of iCountPkt replay has passed */
};

/* Open packet iPkt on cursor c. */
static int ctf_cur_open_pkt(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  TlTrace *t = pScan->pTrace;
  const TlPacket *tp = &t->index.a[c->iPkt];
  TlBytes b;
  CtfPkt pk;
  int rc = tl_win_get(&c->win, tp->iOff, (size_t)tp->nSize, TL_LE, &b, pErr);
  if( rc ) return rc;
  tl_packet_note_read(tp);
  if( b.n < tp->nSize ){
    return tl_err_set(pErr, TL_EIO, tp->iOff, "packet of %llu bytes not readable",
                      (unsigned long long)tp->nSize);
  }
  tl_ctf_bits_init(&c->dec.bits, b.a, b.n, (uint64_t)b.n*8);
  c->dec.iFileOff = tp->iOff;
  rc = ctf_pkt_read(c->pTr, &c->dec, c->pStm->pSrc->nSize, &pk, pErr);
  if( rc ) return rc;
  c->dec.bits.nBitEnd = pk.nContent < (uint64_t)b.n*8 ? pk.nContent : (uint64_t)b.n*8;
  c->nPktVals = c->dec.nVal;
  c->bClock = (tp->flags & CTF_PF_TSBEGIN)!=0;
  c->clock = tp->iAux;
  c->iEv = 0;
  c->iCpu = pk.bCpu && pk.iCpu < INT64_MAX ? (int64_t)pk.iCpu : -1;
  c->iCurPkt = c->iPkt;
  c->pSC = pk.pSC;
  c->aSkip = pScan->bSkip && pk.iSC>=0 && c->pTr->aaSkip ? c->pTr->aaSkip[pk.iSC] : 0;
  c->pHdr = c->aSkip && c->pTr->aHdr[pk.iSC].bOk ? &c->pTr->aHdr[pk.iSC] : 0;
  c->iClock = pk.iClock;
  c->bCut = (tp->flags & CTF_PF_CUT)!=0;
  c->bOpen = 1;
  c->iPkt++;
  return TL_OK;
}

/* Apply the event header's id and timestamp fields. */
static void ctf_cur_header(CtfCur *c, uint64_t *pId, int *pbId){
  const TlCtfDec *d = &c->dec;
  int r = d->aRoot[TL_CTF_SCOPE_EV_HEADER];
  uint32_t i, end;
  if( r<0 ) return;
  end = (uint32_t)r + d->aVal[r].nSub;
  for(i=(uint32_t)r; i<end; i++){
    const TlCtfVal *v = &d->aVal[i];
    const TlCtfField *f = v->pField;
    if( f->eRole==TL_CTF_ROLE_ID ){
      *pId = v->v.u;
      *pbId = 1;
    }else if( f->eRole==TL_CTF_ROLE_CLOCK ){
      c->clock = c->bClock ? tl_ctf_clock_update(c->clock, v->v.u, (unsigned)f->nBits) : v->v.u;
      c->bClock = 1;
    }
  }
}

/* Where a cursor's decoder is, to go back to it (the bit, the last byte order). */
typedef struct CtfMark CtfMark;
struct CtfMark { uint64_t iBit; int bo, bBo; };

static CtfMark ctf_mark(const TlCtfDec *d){
  CtfMark m;
  m.iBit = d->bits.iBit;
  m.bo = d->boLast;
  m.bBo = d->bBoLast;
  return m;
}

static void ctf_rewind(TlCtfDec *d, const CtfMark *m){
  d->bits.iBit = m->iBit;
  d->boLast = m->bo;
  d->bBoLast = m->bBo;
}

/*
** One event of cursor c's open packet by the header and skip plans alone
** (c->pHdr set): its class, with the clock after it in *pClock, *pbClock;
** or NULL with the decoder back at the event when it needs the general
** decoder (no plan for its class, damage, the packet's end).
*/
static const TlCtfEventClass *ctf_plan_event(CtfCur *c, uint64_t *pClock, int *pbClock){
  CtfMark m = ctf_mark(&c->dec);
  int iEC = tl_ctf_plan_event(c->pHdr, c->aSkip, c->pSC, &c->dec, pClock, pbClock);
  if( iEC>=0 ) return &c->pSC->aEvent[iEC];
  ctf_rewind(&c->dec, &m);
  return 0;
}

/*
** Read the next event of cursor c into its current event. TL_ROW, TL_DONE
** (the stream has nothing more in the window), or an error in *pErr.
*/
static int ctf_cur_read(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  TlTrace *t = pScan->pTrace;
  TlCtfDec *d = &c->dec;
  for(;;){
    const TlCtfStreamClass *sc;
    uint64_t id = 0, iStart;
    int bId = 0, rc;
    if( !c->bOpen ){
      const TlPacket *tp;
      if( c->iPkt >= c->iPktEnd ) return TL_DONE;
      tp = &t->index.a[c->iPkt];
      if( tp->tsBegin!=TL_TS_MIN && tp->tsBegin > pScan->f.tsHi ) return TL_DONE;
      if( (tp->flags & CTF_PF_DUP)
       || !tl_packet_may_match(tp, pScan->f.tsLo, pScan->f.tsHi, pScan->f.aCpu, pScan->f.nCpu) ){
        c->iPkt++;
        continue;
      }
      rc = ctf_cur_open_pkt(pScan, c, pErr);
      if( rc ) goto stream_error;
    }
    if( d->bits.iBit >= d->bits.nBitEnd ){
      c->bOpen = 0;
      if( pScan->f.bRowid || c->bPktByEvent ) return TL_DONE;
      continue;
    }
    iStart = d->bits.iBit;
    sc = c->pSC;
    if( sc==0 ){
      rc = tl_err_set(pErr, TL_ECORRUPT, d->iFileOff + iStart/8,
                      "event data in a trace whose metadata defines no stream class");
      goto stream_error;
    }
    tl_ctf_dec_truncate(d, c->nPktVals);
    if( c->pHdr ){
      /* no values wanted: the header's and the event's plans, when both run */
      int bClock = c->bClock;
      uint64_t clock = c->clock;
      c->pEC = ctf_plan_event(c, &clock, &bClock);
      if( c->pEC ){
        c->clock = clock;
        c->bClock = bClock;
        goto decoded;
      }
    }
    rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_HEADER, sc->pEvHeader, pErr);
    if( rc ) goto event_error;
    ctf_cur_header(c, &id, &bId);
    if( !bId ){
      if( sc->nEvent==1 ) id = sc->aEvent[0].id;
    }
    c->pEC = tl_ctf_event_class(sc, id);
    if( c->pEC==0 ){
      rc = tl_err_set(pErr, TL_ECORRUPT, d->iFileOff + iStart/8,
                      "event of class id %llu, which stream class %llu does not define",
                      (unsigned long long)id, (unsigned long long)sc->id);
      goto stream_error;
    }
    if( c->aSkip==0 || !c->aSkip[c->pEC - sc->aEvent].bOk
     || tl_ctf_skip_run(&c->aSkip[c->pEC - sc->aEvent], d) ){
      /* the general decoder: values wanted, no plan, or an error to report */
      rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_SCONTEXT, sc->pEvContext, pErr);
      if( rc==TL_OK ) rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_CONTEXT, c->pEC->pContext, pErr);
      if( rc==TL_OK ) rc = tl_ctf_dec_scope(d, TL_CTF_SCOPE_EV_PAYLOAD, c->pEC->pPayload, pErr);
      if( rc ) goto event_error;
    }
  decoded:
    if( d->bits.iBit==iStart ){
      rc = tl_err_set(pErr, TL_ECORRUPT, d->iFileOff + iStart/8,
                      "event of class %llu takes no bits: the stream cannot advance",
                      (unsigned long long)c->pEC->id);
      goto stream_error;
    }
    c->iRowid = ((int64_t)c->iCurPkt << CTF_EV_BITS) + c->iEv;
    c->iEv++;
    c->bTs = 0;
    if( c->bClock ){
      int64_t ns;
      if( ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, c->clock, &ns)==0 ){
        c->ts = ns;
        c->bTs = 1;
      }else if( c->iClock>=0 && !__atomic_exchange_n(&pScan->p->bWarnedClock, 1, __ATOMIC_RELAXED) ){
        /* (once a trace: helpers of a count by name may meet it at once) */
        tl_trace_warn(t, t->index.azFile[c->pStm->iFile], d->iFileOff + iStart/8,
                      "clock value %llu cycles is outside the ns range from the clock's"
                      " origin; such events have ts NULL and their cycles in ts_raw",
                      (unsigned long long)c->clock);
      }
    }
    if( pScan->f.bRowid && c->iRowid!=pScan->f.iRowid ) continue;
    if( c->bTs && c->ts < pScan->f.tsLo ) continue;
    if( c->bTs && c->ts > pScan->f.tsHi ) return TL_DONE;
    return TL_ROW;
  event_error:
    if( d->bPastEnd && c->bCut ){
      /* The file was cut inside this packet: what came before stands. */
      tl_err_clear(pErr);
      tl_trace_warn(t, t->index.azFile[c->pStm->iFile], d->iFileOff + iStart/8,
                    "the file ends inside an event; the rest of the stream is missing");
      c->bOpen = 0;
      c->iPkt = c->iPktEnd;
      return TL_DONE;
    }
  stream_error:
    tl_err_file(pErr, t->index.azFile[c->pStm->iFile]);
    return rc ? rc : TL_ECORRUPT;
  }
}

/* ctf_cur_read() with its errors in the scan's. */
static int ctf_cur_next(CtfScan *pScan, CtfCur *c){
  return ctf_cur_read(pScan, c, &pScan->err);
}

/* The count job of cursor c's open packet (see tl_ctf_count_plans()). */
static void ctf_count_job(CtfCur *c, int64_t *aTally, TlCtfCount *j){
  j->pHdr = c->pHdr;
  j->aSkip = c->aSkip;
  j->sc = c->pSC;
  j->d = &c->dec;
  j->clock = c->clock;
  j->bClock = c->bClock;
  j->aTally = aTally;
  j->n = 0;
  j->rc = 0;
}

/* After job j of cursor c: as ctf_count_packet() returns. */
static int ctf_count_end(CtfCur *c, const TlCtfCount *j, const CtfMark *m, uint64_t *pn){
  if( j->rc ){
    ctf_rewind(&c->dec, m);
    return -1;
  }
  c->clock = j->clock;
  c->bClock = j->bClock;
  c->bOpen = 0;
  *pn = j->n;
  return 0;
}

/*
** ctf_count_packet() of cursor a and, when b is not NULL, of cursor b at
** once (their packets are independent: tl_ctf_count_plans_pair() reads
** them side by side). Returns a's result; *prB is b's.
*/
static int ctf_count_packets(CtfCur *a, CtfCur *b, uint64_t *pnA, uint64_t *pnB,
                             int64_t *aTallyA, int64_t *aTallyB, int *prB){
  TlCtfCount ja, jb;
  CtfMark ma, mb;
  int bA = a->pHdr!=0 && a->pSC!=0, bB = b!=0 && b->pHdr!=0 && b->pSC!=0;
  if( b && !bB ) *prB = -1;
  if( !bA ){
    if( bB ) *prB = ctf_count_packets(b, 0, pnB, 0, aTallyB, 0, 0);
    return -1;
  }
  ma = ctf_mark(&a->dec);
  ctf_count_job(a, aTallyA, &ja);
  if( bB ){
    mb = ctf_mark(&b->dec);
    ctf_count_job(b, aTallyB, &jb);
    tl_ctf_count_plans_pair(&ja, &jb);
    *prB = ctf_count_end(b, &jb, &mb, pnB);
  }else{
    tl_ctf_count_plans(&ja);
  }
  return ctf_count_end(a, &ja, &ma, pnA);
}

/*
** Count the events of cursor c's open packet with the header and skip plans
** alone, leaving the packet done: 0 with *pn, or -1 with the cursor back at
** the packet's first event when an event needs the general decoder (no
** plan, damage, the file's end): then it is read event by event. aTally,
** when not NULL, counts the events of each class of the packet's stream
** class (by index; zeroed by the caller; partial after -1).
*/
static int ctf_count_packet(CtfCur *c, uint64_t *pn, int64_t *aTally){
  return ctf_count_packets(c, 0, pn, 0, aTally, 0, 0);
}

/*
** Open cursor c's next packet a count reads (its cpu_id may still fail a
** cpu filter): TL_ROW, TL_DONE after the stream's last, or an error.
*/
static int ctf_cur_open_next(const CtfScan *pScan, CtfCur *c, TlErr *pErr){
  TlTrace *t = pScan->pTrace;
  for(;;){
    const TlPacket *tp;
    int rc;
    if( c->iPkt >= c->iPktEnd ) return TL_DONE;
    tp = &t->index.a[c->iPkt];
    if( tp->tsBegin!=TL_TS_MIN && tp->tsBegin > pScan->f.tsHi ) return TL_DONE;
    if( (tp->flags & CTF_PF_DUP)
     || !tl_packet_may_match(tp, pScan->f.tsLo, pScan->f.tsHi, pScan->f.aCpu, pScan->f.nCpu) ){
      c->iPkt++;
      continue;
    }
    rc = ctf_cur_open_pkt(pScan, c, pErr);
    if( rc ){
      tl_err_file(pErr, t->index.azFile[c->pStm->iFile]);
      return rc;
    }
    return TL_ROW;
  }
}

/*
** May the open packet of cursor c be counted whole for a time window? Its
** clock starts at the packet's timestamp_begin and only grows, so every
** event is at or after it: that must be in the window, and the header's
** timestamp_end too (else the packet likely crosses the end; the last
** event's time, checked after the count, is what decides).
*/
static int ctf_pkt_in_window(const CtfScan *pScan, const CtfCur *c){
  const TlPacket *tp = &pScan->pTrace->index.a[c->iCurPkt];
  int64_t ns;
  if( pScan->f.tsLo==TL_TS_MIN && pScan->f.tsHi==TL_TS_MAX ) return 1;
  if( !(tp->flags & CTF_PF_TSBEGIN) || !c->bClock || tp->tsEnd > pScan->f.tsHi ) return 0;
  return ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, c->clock, &ns)==0 && ns>=pScan->f.tsLo;
}

/* After a count: is the packet's last event (its clock now) in the window? */
static int ctf_pkt_end_in_window(const CtfScan *pScan, const CtfCur *c){
  int64_t ns;
  if( pScan->f.tsHi==TL_TS_MAX ) return 1;
  return c->bClock && ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, c->clock, &ns)==0
      && ns<=pScan->f.tsHi;
}

/*
** The window's bounds as values of cursor c's clock, whose times only grow
** with the value: *pcLo the least value whose time is at or after tsLo,
** *pcHi the greatest whose time is at or before tsHi, found by bisection
** (64 conversions each) and checked at their edges. -1 when the clock
** cannot say (out of range at a bound, an empty range): then each event's
** time is worked out.
*/
static int ctf_window_clocks(const CtfScan *pScan, const CtfCur *c, uint64_t *pcLo, uint64_t *pcHi){
  const TlCtfModel *m = &c->pTr->m;
  int bExact = pScan->p->bExact, iClock = c->iClock;
  int64_t ns;
  uint64_t lo = 0, hi = UINT64_MAX;
  /* the least value whose time is >= tsLo (a time out of range counts as above) */
  while( lo<hi ){
    uint64_t mid = lo + (hi - lo)/2;
    if( ctf_ns(m, bExact, iClock, mid, &ns) || ns>=pScan->f.tsLo ) hi = mid; else lo = mid + 1;
  }
  if( ctf_ns(m, bExact, iClock, lo, &ns) || ns<pScan->f.tsLo ) return -1;
  if( lo>0 && (ctf_ns(m, bExact, iClock, lo - 1, &ns) || ns>=pScan->f.tsLo) ) return -1;
  *pcLo = lo;
  /* the least value whose time is > tsHi (or out of range): *pcHi is the one before */
  lo = 0;
  hi = UINT64_MAX;
  while( lo<hi ){
    uint64_t mid = lo + (hi - lo)/2;
    if( ctf_ns(m, bExact, iClock, mid, &ns) || ns>pScan->f.tsHi ) hi = mid; else lo = mid + 1;
  }
  if( ctf_ns(m, bExact, iClock, lo, &ns) || ns>pScan->f.tsHi ){
    if( lo==0 ) return -1;
    lo--;
  }
  if( ctf_ns(m, bExact, iClock, lo, &ns) || ns>pScan->f.tsHi || lo<*pcLo ) return -1;
  *pcHi = lo;
  return 0;
}

/*
** The events of cursor c's open packet in the time window, by the plans and
** each event's time: they are consecutive (times only grow in a stream), so
** *piFirst events come before them and *pn are in it; *pbPast when an event
** after them is past the window (so is the rest of the stream). 0 with the
** packet done, or -1 with the cursor back at its first event when an event
** needs the general decoder. Events with no time in ns are in no window.
*/
static int ctf_count_window(const CtfScan *pScan, CtfCur *c, int64_t *piFirst, uint64_t *pn,
                            int *pbPast){
  TlCtfDec *d = &c->dec;
  CtfMark m = ctf_mark(d);
  uint64_t clock = c->clock, n = 0;
  int64_t iFirst = 0;
  int bClock = c->bClock;
  uint64_t cLo, cHi;
  *pbPast = 0;
  if( c->pHdr==0 || c->pSC==0 ) return -1;
  if( c->iClock>=0 && ctf_window_clocks(pScan, c, &cLo, &cHi)==0 ){
    /* compare the events' clock values with the bounds' */
    TlCtfCount j;
    uint64_t nFirst = 0;
    ctf_count_job(c, 0, &j);
    tl_ctf_count_plans_window(&j, cLo, cHi, &nFirst, pbPast);
    if( j.rc==0 ){
      c->clock = j.clock;
      c->bClock = j.bClock;
      c->bOpen = 0;
      *piFirst = (int64_t)nFirst;
      *pn = j.n;
      return 0;
    }
    ctf_rewind(d, &m);             /* (an event with no clock, or no plan) */
    *pbPast = 0;
  }
  while( d->bits.iBit < d->bits.nBitEnd ){
    uint64_t iStart = d->bits.iBit;
    int64_t ns;
    if( ctf_plan_event(c, &clock, &bClock)==0 || d->bits.iBit==iStart ){
      ctf_rewind(d, &m);
      return -1;
    }
    if( !bClock || ctf_ns(&c->pTr->m, pScan->p->bExact, c->iClock, clock, &ns) ){
      if( n>0 ){ *pbPast = 1; break; }     /* past the ns range: so is the rest */
      iFirst++;
    }else if( ns < pScan->f.tsLo ){
      iFirst++;
    }else if( ns > pScan->f.tsHi ){
      *pbPast = 1;
      break;
    }else{
      n++;
    }
  }
  c->clock = clock;
  c->bClock = bClock;
  c->bOpen = 0;
  *piFirst = iFirst;
  *pn = n;
  return 0;
}

/*
** count(*) (no value wanted but cpu, track, type, and ts or ts_raw only to
** be checked against a time window): one row per packet standing for its
** events, stream after stream; ts and ts_raw of its repeats are TL_LAZY.
** A packet that crosses a bound of the window is read event by event, and
** a stream with a packet the plans cannot count is, from there on.
*/
static int ctf_events_counted(CtfScan *pScan, TlRow *pRow){
  TlVal *a = pScan->aCol;
  int k;
  for(;;){
    CtfCur *c;
    uint64_t n;
    int64_t iFirst;
    int rc, bPast;
    if( pScan->iCountCur >= pScan->nCur ) return TL_DONE;
    c = &pScan->aCur[pScan->iCountCur];
    if( c->bByEvent || c->bPktByEvent ){
      rc = ctf_cur_next(pScan, c);
      if( rc<0 ) return rc;
      if( rc==TL_DONE ){
        /* the end of a packet read event by event: count from the next;
        ** else the stream is past the window or done */
        if( c->bPktByEvent && !c->bOpen ){ c->bPktByEvent = 0; continue; }
        pScan->iCountCur++;
        continue;
      }
      n = 0;
    }else{
      if( !c->bOpen ){
        rc = ctf_cur_open_next(pScan, c, &pScan->err);
        if( rc<0 ) return rc;
        if( rc==TL_DONE ){ pScan->iCountCur++; continue; }
      }
      if( pScan->f.nCpu>=0 ){
        /* every event of the packet has its cpu_id: all match or none */
        for(k=0; k<pScan->f.nCpu && pScan->f.aCpu[k]!=c->iCpu; k++){}
        if( c->iCpu<0 || k>=pScan->f.nCpu ){ c->bOpen = 0; continue; }
      }
      iFirst = 0;
      bPast = 0;
      if( ctf_pkt_in_window(pScan, c) ){
        if( ctf_count_packet(c, &n, 0) ){
          c->bByEvent = 1;
          continue;
        }
        if( n>0 && !ctf_pkt_end_in_window(pScan, c) ){
          /* it runs past the window after all: count it again, event by event */
          c->iPkt = c->iCurPkt;
          rc = ctf_cur_open_next(pScan, c, &pScan->err);
          if( rc<0 ) return rc;
          if( ctf_count_window(pScan, c, &iFirst, &n, &bPast) ){ c->bPktByEvent = 1; continue; }
        }
      }else if( ctf_count_window(pScan, c, &iFirst, &n, &bPast) ){
        c->bPktByEvent = 1;
        continue;
      }
      if( bPast ){
        /* the rest of the stream is past the window */
        c->bOpen = 0;
        c->iPkt = c->iPktEnd;
      }
      if( n==0 ) continue;
    }
    for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
    if( c->iCpu>=0 ) tl_val_int(&a[TL_EV_CPU], c->iCpu);
    tl_val_int(&a[TL_EV_TRACK], c->iTrack);
    tl_val_text(&a[TL_EV_TYPE], "event", 5);
    pRow->a = a;
    if( n ){
      pScan->iCountPkt = c->iCurPkt;
      pScan->iCountFirst = iFirst;
      pScan->nReplayed = -1;
      pRow->iRowid = TL_ROWID_LAZY;
      pRow->nRepeat = (int64_t)n;
      if( tl_col_used(&pScan->f, TL_EV_TS) || pScan->f.tsLo!=TL_TS_MIN || pScan->f.tsHi!=TL_TS_MAX ){
        a[TL_EV_TS].t = TL_LAZY;
      }
      if( tl_col_used(&pScan->f, TL_EV_TS_RAW) ) a[TL_EV_TS_RAW].t = TL_LAZY;
    }else{
      if( c->bTs ) tl_val_int(&a[TL_EV_TS], c->ts);
      if( c->bClock ) tl_val_int(&a[TL_EV_TS_RAW], (int64_t)c->clock);
      pRow->iRowid = c->iRowid;
    }
    return TL_ROW;
  }
}

/* Heap order: ts (events without one first), then cursor index. */
static int ctf_heap_less(const CtfScan *s, int a, int b){
  const CtfCur *x = &s->aCur[a], *y = &s->aCur[b];
  int64_t tx = x->bTs ? x->ts : INT64_MIN, ty = y->bTs ? y->ts : INT64_MIN;
  if( tx!=ty ) return tx < ty;
  return a < b;
}

static void ctf_heap_down(CtfScan *s, int i){
  for(;;){
    int l = 2*i+1, r = l+1, m = i, tmp;
    if( l<s->nHeap && ctf_heap_less(s, s->aHeap[l], s->aHeap[m]) ) m = l;
    if( r<s->nHeap && ctf_heap_less(s, s->aHeap[r], s->aHeap[m]) ) m = r;
    if( m==i ) return;
    tmp = s->aHeap[i]; s->aHeap[i] = s->aHeap[m]; s->aHeap[m] = tmp;
    i = m;
  }
}

static void ctf_heap_up(CtfScan *s, int i){
  while( i>0 ){
    int up = (i-1)/2, tmp;
    if( !ctf_heap_less(s, s->aHeap[i], s->aHeap[up]) ) return;
    tmp = s->aHeap[i]; s->aHeap[i] = s->aHeap[up]; s->aHeap[up] = tmp;
    i = up;
  }
}

/* First packet of stream s to read for the filter. */
static size_t ctf_first_pkt(const TlTrace *t, const CtfStm *s, const TlFilter *f){
  if( f->tsLo==TL_TS_MIN ) return s->iPkt0;
  return s->iPkt0 + tl_packets_first_end_ge(&t->index.a[s->iPkt0], s->nPkt, f->tsLo);
}

/* Set up cursor c (zeroed) on stream s (track iTrack) of the scan's trace. */
static void ctf_cur_init(CtfScan *pScan, CtfCur *c, const CtfStm *s, int64_t iTrack){
  c->pTr = &pScan->p->aTr[s->iTr];
  c->pStm = s;
  c->iTrack = iTrack;
  tl_win_init(&c->win, s->pSrc);
  tl_ctf_dec_init(&c->dec);
  c->dec.pnShared = &pScan->nDecBytes;
  c->dec.nSharedMax = tl_trace_max_memory(pScan->pTrace);
}

static void ctf_cur_free(CtfCur *c){
  tl_win_free(&c->win);
  tl_ctf_dec_free(&c->dec);
}

static int ctf_events_open(CtfScan *pScan){
  TlTrace *t = pScan->pTrace;
  CtfData *p = pScan->p;
  /* a count by name reads each stream as two halves of its packets: two
  ** chains of dependent reads that ctf_count_streams_by_name() takes side
  ** by side, on whichever thread */
  int bHalves = pScan->f.bGroupName && !pScan->f.bRowid, i;
  size_t nCurMax = (size_t)(p->nStm ? p->nStm : 1) * (bHalves ? 2 : 1);
  pScan->aCur = calloc(nCurMax, sizeof(CtfCur));
  pScan->aHeap = calloc(nCurMax, sizeof(int));
  if( pScan->aCur==0 || pScan->aHeap==0 ){
    return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  for(i=0; i<p->nStm; i++){
    const CtfStm *s = &p->aStm[i];
    CtfCur *c;
    if( s->nPkt==0 ) continue;
    if( tl_source_check(s->pSrc, &pScan->err) ){
      tl_err_file(&pScan->err, t->index.azFile[s->iFile]);
      return pScan->err.rc;
    }
    c = &pScan->aCur[pScan->nCur++];
    ctf_cur_init(pScan, c, s, i);
    c->iPkt = ctf_first_pkt(t, s, &pScan->f);
    c->iPktEnd = s->iPkt0 + s->nPkt;
    if( pScan->f.bRowid ){
      uint64_t iPkt = (uint64_t)pScan->f.iRowid >> CTF_EV_BITS;
      if( pScan->f.iRowid < 0 || iPkt < s->iPkt0 || iPkt >= s->iPkt0 + s->nPkt ){
        c->iPkt = c->iPktEnd;
      }else{
        c->iPkt = (size_t)iPkt;
      }
    }
    if( bHalves && c->iPktEnd - c->iPkt >= 2 ){
      CtfCur *c2 = &pScan->aCur[pScan->nCur++];
      ctf_cur_init(pScan, c2, s, i);
      c2->iPktEnd = c->iPktEnd;
      c2->iPkt = c->iPkt + (c->iPktEnd - c->iPkt)/2;
      c->iPktEnd = c2->iPkt;
    }
  }
  return TL_OK;
}

/* The index of zName in the pipe's sorted names, or -1. */
static int ctf_pipe_find(const CtfPipe *pp, const char *zName){
  const char **pz = pp->nName==0 ? 0
                  : bsearch(&zName, pp->azName, (size_t)pp->nName, sizeof(char*), ctf_cmp_str);
  return pz ? (int)(pz - pp->azName) : -1;
}

/* Ask the pipe's helpers to stop at their next packet. */
static void ctf_pipe_stop(CtfPipe *pp){
  pthread_mutex_lock(&pp->mu);
  pp->bStop = 1;
  pthread_mutex_unlock(&pp->mu);
}

/*
** The entry of t counting events named zName, added if new: its index, or
** -1 with an error in *t->pErr.
*/
static int ctf_name_slot(CtfTally *t, const char *zName){
  int j;
  for(j=0; j<t->nName && t->aName[j].zName!=zName; j++){}
  if( j==t->nName ){
    int iSorted = ctf_pipe_find(t->pPipe, zName);
    if( iSorted<0 ){
      /* every class is one of the models' (ctf_pipe_start()) */
      tl_err_set(t->pErr, TL_ECORRUPT, TL_NO_OFFSET, "event class \"%s\" is in no metadata", zName);
      return -1;
    }
    if( t->nName >= t->nNameAlloc ){
      int n = t->nNameAlloc ? t->nNameAlloc*2 : 16;
      struct CtfNameCount *aNew = realloc(t->aName, sizeof(*aNew)*(size_t)n);
      if( aNew==0 ){
        tl_err_set(t->pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
        return -1;
      }
      t->aName = aNew;
      t->nNameAlloc = n;
    }
    t->aName[j].zName = zName;
    t->aName[j].iSorted = iSorted;
    t->aName[j].n = 0;
    t->aName[j].nPub = 0;
    t->nName++;
  }
  return j;
}

/* Add n events named zName to t's counts. */
static int ctf_name_add(CtfTally *t, const char *zName, int64_t n){
  int iSlot = ctf_name_slot(t, zName);
  if( iSlot<0 ) return t->pErr->rc;
  t->aName[iSlot].n += n;
  return TL_OK;
}

/* A zeroed tally for n classes, from offset i of t->aTally. */
static int64_t *ctf_tally_buf(CtfTally *t, int i, int n){
  if( i + n > t->nTally ){
    int64_t *aNew = realloc(t->aTally, sizeof(int64_t)*(size_t)(i + n));
    if( aNew==0 ) return 0;
    t->aTally = aNew;
    t->nTally = i + n;
  }
  memset(t->aTally + i, 0, sizeof(int64_t)*(size_t)n);
  return t->aTally + i;
}

/* Add a packet's tally of stream class sc's events to the names' counts. */
static int ctf_tally_names(CtfTally *t, const TlCtfStreamClass *sc, const int64_t *aTally){
  int j;
  for(j=0; j<sc->nEvent; j++){
    int rc;
    if( aTally[j]==0 ) continue;
    rc = ctf_name_add(t, sc->aEvent[j].zName, aTally[j]);
    if( rc ) return rc;
  }
  return TL_OK;
}

/*
** Count the open packets of cursors a and, when not NULL, b by class into
** t's names (at once when both can be). A cursor whose packet the plans
** cannot count gets bByEvent, its packet back at its first event.
*/
static int ctf_count_open_by_name(CtfTally *t, CtfCur *a, CtfCur *b){
  const TlCtfStreamClass *sa = a->pSC, *sb = b ? b->pSC : 0;
  int64_t *tA = 0, *tB = 0;
  uint64_t nA, nB;
  int rB = -1, rc;
  if( sa==0 || sa->nEvent<=0 ){
    a->bByEvent = 1;
    return b ? ctf_count_open_by_name(t, b, 0) : TL_OK;
  }
  if( b && (sb==0 || sb->nEvent<=0) ){
    b->bByEvent = 1;
    b = 0;
  }
  tA = ctf_tally_buf(t, 0, sa->nEvent + (b ? sb->nEvent : 0));
  if( tA==0 ) return tl_err_set(t->pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( b ) tB = tA + sa->nEvent;
  if( ctf_count_packets(a, b, &nA, &nB, tA, tB, &rB) ){
    a->bByEvent = 1;
  }else{
    rc = ctf_tally_names(t, sa, tA);
    if( rc ) return rc;
  }
  if( b ){
    if( rB ){
      b->bByEvent = 1;
    }else{
      rc = ctf_tally_names(t, sb, tB);
      if( rc ) return rc;
    }
  }
  return TL_OK;
}

/* Open cursor c's next packet for t: ctf_cur_open_next(), noting its bytes. */
static int ctf_tally_open(CtfTally *t, CtfCur *c){
  int rc = ctf_cur_open_next(t->pScan, c, t->pErr);
  if( rc==TL_ROW ) t->nPktBytes += t->pScan->pTrace->index.a[c->iCurPkt].nSize;
  return rc;
}

/*
** Add what t counted since its last call to the pipe's counts and wake the
** thread giving rows; bLast: t's helper is done. Sets t->bStop when the
** pipe asks the helpers to stop.
*/
static void ctf_tally_publish(CtfTally *t, int bLast){
  CtfPipe *pp = t->pPipe;
  int k;
  pthread_mutex_lock(&pp->mu);
  for(k=0; k<t->nName; k++){
    pp->aCounted[t->aName[k].iSorted] += t->aName[k].n - t->aName[k].nPub;
    t->aName[k].nPub = t->aName[k].n;
  }
  if( t->bOwnThread ) pp->nBytes += t->nPktBytes - t->nPubBytes;
  t->nPubBytes = t->nPktBytes;
  if( bLast ) pp->nRunning--;
  t->bStop = pp->bStop;
  pthread_mutex_unlock(&pp->mu);
  pthread_cond_broadcast(&pp->cv);
}

/*
** Count the packets of cursors a and, when not NULL, b (each a stream's
** packets or half of them) by event class into t's names with the plans, a
** packet of each at once while both have packets, publishing after each.
** A cursor stops at its last packet or at a packet the plans cannot count
** (bByEvent: ctf_count_by_event() reads the rest). TL_OK or an error.
*/
static int ctf_count_streams_by_name(CtfTally *t, CtfCur *a, CtfCur *b){
  int rc;
  while( b && !a->bByEvent && !b->bByEvent && !t->bStop ){
    int rcB;
    rc = ctf_tally_open(t, a);
    if( rc<0 ) return rc;
    if( rc!=TL_ROW ) break;                       /* a is done: b alone */
    rcB = ctf_tally_open(t, b);
    if( rcB<0 ) return rcB;
    rc = ctf_count_open_by_name(t, a, rcB==TL_ROW ? b : 0);
    if( rc ) return rc;
    ctf_tally_publish(t, 0);
    if( rcB!=TL_ROW ) break;                      /* b is done: a alone */
  }
  if( b ){
    rc = ctf_count_streams_by_name(t, b, 0);
    if( rc<0 ) return rc;
  }
  while( !a->bByEvent && !t->bStop ){
    rc = ctf_tally_open(t, a);
    if( rc<0 ) return rc;
    if( rc!=TL_ROW ) return TL_OK;
    rc = ctf_count_open_by_name(t, a, 0);
    if( rc ) return rc;
    ctf_tally_publish(t, 0);
  }
  return TL_OK;
}

/*
** The rest of cursor c's packets, from its open packet, event by event,
** into t's names (published every so many events).
*/
static int ctf_count_by_event(CtfTally *t, CtfCur *c){
  const TlTrace *tr = t->pScan->pTrace;
  const TlCtfEventClass *pLast = 0;
  size_t iPkt = c->iCurPkt;       /* its bytes are counted (ctf_tally_open) */
  int iLast = -1, nSince = 0, rc = TL_DONE;
  while( !t->bStop && (rc = ctf_cur_read(t->pScan, c, t->pErr))==TL_ROW ){
    if( c->iCurPkt!=iPkt ){
      iPkt = c->iCurPkt;
      t->nPktBytes += tr->index.a[iPkt].nSize;
    }
    if( c->pEC!=pLast ){
      iLast = ctf_name_slot(t, c->pEC->zName);
      if( iLast<0 ) return t->pErr->rc;
      pLast = c->pEC;
    }
    t->aName[iLast].n++;
    if( ++nSince==4096 ){
      nSince = 0;
      ctf_tally_publish(t, 0);
    }
  }
  return rc==TL_DONE || rc==TL_ROW ? TL_OK : rc;
}

/* A helper's count: its cursors with the plans, then their rests by event. */
static void *ctf_helper_main(void *pArg){
  CtfHelper *h = pArg;
  int i, rc = TL_OK;
  for(i=0; rc>=0 && i<h->nCur; i+=2){
    rc = ctf_count_streams_by_name(&h->t, &h->aCur[i], i+1<h->nCur ? &h->aCur[i+1] : 0);
  }
  for(i=0; rc>=0 && i<h->nCur; i++){
    if( h->aCur[i].bByEvent ) rc = ctf_count_by_event(&h->t, &h->aCur[i]);
  }
  h->rc = rc<0 ? rc : TL_OK;
  if( rc<0 ){
    ctf_pipe_stop(h->t.pPipe);      /* the others' counts are of no use now */
  }
  ctf_tally_publish(&h->t, 1);
  return 0;
}

/*
** Start the count by name: the sorted names of every event class of the
** trace's models, then the cursors split by packets between two helpers
** (two cursors a stream, see ctf_events_open(); each helper with its own
** cursors, counts and errors; the trace and the scan are only read), each on
** its own thread, or on this one when there is one cursor or no thread.
*/
static int ctf_pipe_start(CtfScan *pScan){
  CtfData *p = pScan->p;
  CtfPipe *pp;
  size_t nAll = 0, nFirst = 0;
  int i, j, k, nFirstCur = 0, nNameMax = 0;
  pp = pScan->pPipe = calloc(1, sizeof(CtfPipe));
  if( pp==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pthread_mutex_init(&pp->mu, 0);
  pthread_cond_init(&pp->cv, 0);
  pp->bJoined = 1;
  for(i=0; i<p->nTr; i++){
    if( !p->aTr[i].bModel ) continue;
    for(j=0; j<p->aTr[i].m.nStream; j++) nNameMax += p->aTr[i].m.aStream[j].nEvent;
  }
  pp->azName = malloc(sizeof(char*)*(size_t)(nNameMax ? nNameMax : 1));
  if( pp->azName==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  for(i=0; i<p->nTr; i++){
    if( !p->aTr[i].bModel ) continue;
    for(j=0; j<p->aTr[i].m.nStream; j++){
      const TlCtfStreamClass *sc = &p->aTr[i].m.aStream[j];
      for(k=0; k<sc->nEvent; k++){
        if( sc->aEvent[k].zName ) pp->azName[pp->nName++] = sc->aEvent[k].zName;
      }
    }
  }
  /* classes of different streams or traces may share a name */
  if( pp->nName>1 ) qsort(pp->azName, (size_t)pp->nName, sizeof(char*), ctf_cmp_str);
  for(i=0, j=0; i<pp->nName; i++){
    if( j==0 || strcmp(pp->azName[j-1], pp->azName[i])!=0 ) pp->azName[j++] = pp->azName[i];
  }
  pp->nName = j;
  pp->aCounted = calloc((size_t)(pp->nName ? pp->nName : 1), sizeof(int64_t));
  if( pp->aCounted==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");

  /* the first helper takes cursors up to half the packets, the second the rest */
  for(i=0; i<pScan->nCur; i++) nAll += pScan->aCur[i].iPktEnd - pScan->aCur[i].iPkt;
  while( nFirstCur<pScan->nCur && nFirst*2<nAll ){
    nFirst += pScan->aCur[nFirstCur].iPktEnd - pScan->aCur[nFirstCur].iPkt;
    nFirstCur++;
  }
  if( nFirstCur==0 ) nFirstCur = pScan->nCur;
  for(i=0; i<2; i++){
    CtfHelper *h = &pp->aHelper[pp->nHelper];
    h->aCur = pScan->aCur + (i ? nFirstCur : 0);
    h->nCur = i ? pScan->nCur - nFirstCur : nFirstCur;
    if( h->nCur==0 ) continue;
    tl_err_clear(&h->err);
    h->t.pScan = pScan;
    h->t.pPipe = pp;
    h->t.pErr = &h->err;
    pp->nHelper++;
  }
  pp->nRunning = pp->nHelper;
  pp->bJoined = 0;
  if( pp->nHelper>1 ){
    for(i=0; i<pp->nHelper; i++){
      CtfHelper *h = &pp->aHelper[i];
      h->t.bOwnThread = 1;
      h->bThread = pthread_create(&h->th, 0, ctf_helper_main, h)==0;
      if( !h->bThread ) h->t.bOwnThread = 0;
    }
  }
  for(i=0; i<pp->nHelper; i++){
    if( !pp->aHelper[i].bThread ) ctf_helper_main(&pp->aHelper[i]);
  }
  return TL_OK;
}

/*
** Wait for every helper of the pipe (asking them to stop first when bStop)
** and take the first one's error, if any, into the scan's.
*/
static int ctf_pipe_join(CtfScan *pScan, int bStop){
  CtfPipe *pp = pScan->pPipe;
  int i;
  if( pp->bJoined ) return TL_OK;
  if( bStop ) ctf_pipe_stop(pp);
  for(i=0; i<pp->nHelper; i++){
    if( pp->aHelper[i].bThread ) pthread_join(pp->aHelper[i].th, 0);
  }
  pp->bJoined = 1;
  for(i=0; i<pp->nHelper; i++){
    if( pp->aHelper[i].rc<0 ){
      pScan->err = pp->aHelper[i].err;
      return pScan->err.rc;
    }
  }
  return TL_OK;
}

static void ctf_pipe_free(CtfScan *pScan){
  CtfPipe *pp = pScan->pPipe;
  int i;
  if( pp==0 ) return;
  ctf_pipe_join(pScan, 1);
  for(i=0; i<pp->nHelper; i++){
    free(pp->aHelper[i].t.aName);
    free(pp->aHelper[i].t.aTally);
  }
  free(pp->azName);
  free(pp->aCounted);
  pthread_mutex_destroy(&pp->mu);
  pthread_cond_destroy(&pp->cv);
  free(pp);
  pScan->pPipe = 0;
}

/*
** Events grouped by name (f.bGroupName, only name used): every stream is
** read once, in any order, counting events by class on the helpers; the
** rows come name by name in strcmp order, a name's as its count grows (one
** row repeated for the events counted since the last), the next name's once
** the count is whole. The same rows as a scan in time order, grouped. A
** helper's error comes when its count is needed: before the first name ends.
*/
static int ctf_events_grouped(CtfScan *pScan, TlRow *pRow){
  CtfPipe *pp;
  TlVal *a = pScan->aCol;
  const char *zName;
  int64_t nNew;
  int k, rc;
  if( !pScan->bStarted ){
    pScan->bStarted = 1;
    rc = ctf_pipe_start(pScan);
    if( rc<0 ) return rc;
    pScan->iName = 0;
    pScan->nNameGiven = 0;
  }
  pp = pScan->pPipe;
  for(;;){
    int nRunning;
    uint64_t nBytes;
    if( pScan->iName >= pp->nName ){
      /* (with no names at all, the helpers may still find an error) */
      rc = ctf_pipe_join(pScan, 0);
      return rc<0 ? rc : TL_DONE;
    }
    pthread_mutex_lock(&pp->mu);
    while( pp->aCounted[pScan->iName]==pScan->nNameGiven && pp->nRunning>0 ){
      pthread_cond_wait(&pp->cv, &pp->mu);
    }
    nNew = pp->aCounted[pScan->iName] - pScan->nNameGiven;
    nRunning = pp->nRunning;
    nBytes = pp->nBytes;
    pthread_mutex_unlock(&pp->mu);
    tl_progress_add(nBytes - pScan->nBytesNoted);
    pScan->nBytesNoted = nBytes;
    if( nRunning==0 ){
      rc = ctf_pipe_join(pScan, 0);
      if( rc<0 ) return rc;
    }
    if( nNew>0 ) break;
    pScan->iName++;                 /* (every count is whole) */
    pScan->nNameGiven = 0;
  }
  for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
  /* (the name of many repeats: given to SQLite without a copy each) */
  zName = pp->azName[pScan->iName];
  tl_val_text_kept(&a[TL_EV_NAME], zName, strlen(zName));
  pScan->nNameGiven += nNew;
  pScan->iGroupBase = pScan->iGroupRow;
  pScan->iGroupRow += nNew;
  pRow->iRowid = TL_ROWID_LAZY;
  pRow->nRepeat = nNew;
  pRow->a = a;
  return TL_ROW;
}

static int ctf_events_next(CtfScan *pScan, TlRow *pRow){
  CtfCur *c;
  TlVal *a = pScan->aCol;
  int rc, k;
  if( !pScan->bStarted ){
    int i;
    pScan->bStarted = 1;
    for(i=0; i<pScan->nCur; i++){
      rc = ctf_cur_next(pScan, &pScan->aCur[i]);
      if( rc<0 ) return rc;
      if( rc==TL_ROW ){
        pScan->aHeap[pScan->nHeap++] = i;
        ctf_heap_up(pScan, pScan->nHeap-1);
      }
    }
  }else if( pScan->iLast>=0 ){
    rc = ctf_cur_next(pScan, &pScan->aCur[pScan->iLast]);
    if( rc<0 ) return rc;
    if( rc==TL_ROW ){
      ctf_heap_down(pScan, 0);
    }else{
      pScan->aHeap[0] = pScan->aHeap[--pScan->nHeap];
      if( pScan->nHeap ) ctf_heap_down(pScan, 0);
    }
  }
  pScan->iLast = -1;
  if( pScan->nHeap==0 ) return TL_DONE;
  pScan->iLast = pScan->aHeap[0];
  c = &pScan->aCur[pScan->iLast];
  for(k=0; k<TL_EV_NCOL; k++) tl_val_null(&a[k]);
  if( c->bTs ) tl_val_int(&a[TL_EV_TS], c->ts);
  if( c->bClock ) tl_val_int(&a[TL_EV_TS_RAW], (int64_t)c->clock);
  if( c->iCpu>=0 ) tl_val_int(&a[TL_EV_CPU], c->iCpu);
  tl_val_int(&a[TL_EV_TRACK], c->iTrack);
  if( tl_col_used(&pScan->f, TL_EV_TYPE) ) tl_val_text(&a[TL_EV_TYPE], "event", 5);
  if( tl_col_used(&pScan->f, TL_EV_NAME) ) tl_val_textz(&a[TL_EV_NAME], c->pEC->zName);
  if( tl_col_used(&pScan->f, TL_EV_PID) || tl_col_used(&pScan->f, TL_EV_TID) ){
    static const char *const azPid[2][2] = { {"vpid", "pid"}, {"vtid", "tid"} };
    static const int aiScope[2] = { TL_CTF_SCOPE_EV_SCONTEXT, TL_CTF_SCOPE_EV_CONTEXT };
    int w, s, k2;
    for(w=0; w<2; w++){
      for(s=0; s<2 && a[TL_EV_PID+w].t==TL_NULL; s++){
        for(k2=0; k2<2; k2++){
          int i = tl_ctf_dec_member(&c->dec, c->dec.aRoot[aiScope[s]], azPid[w][k2]);
          if( tl_ctf_dec_is_int(&c->dec, i) ){
            tl_val_int(&a[TL_EV_PID+w], c->dec.aVal[i].v.i);
            break;
          }
        }
      }
    }
  }
  if( tl_col_used(&pScan->f, TL_EV_TEXT) || tl_col_used(&pScan->f, TL_EV_ARGS) ){
    TlCtfScopes sc;
    sc.aVal = c->dec.aVal;
    memcpy(sc.aRoot, c->dec.aRoot, sizeof(sc.aRoot));
    if( tl_col_used(&pScan->f, TL_EV_TEXT) ){
      tl_str_reset(&pScan->sText);
      tl_ctf_render_text(&sc, &pScan->sText);
      if( pScan->sText.n==0 && !pScan->sText.bErr ) tl_val_text(&a[TL_EV_TEXT], "", 0);
      else tl_val_str(&a[TL_EV_TEXT], &pScan->sText);
    }
    if( tl_col_used(&pScan->f, TL_EV_ARGS) ){
      tl_str_reset(&pScan->sArgs);
      tl_ctf_render_args(&sc, &pScan->sArgs);
      tl_val_str(&a[TL_EV_ARGS], &pScan->sArgs);
    }
  }
  pRow->iRowid = c->iRowid;
  pRow->a = a;
  return TL_ROW;
}

/* JSON of a field class (event_types.args "fields"), depth-bounded. */
static void ctf_schema_json(TlStr *s, const TlCtfField *f, int nDepth){
  static const char *const azKind[] = {
    0, "integer", "enum", "float", "string", "struct", "variant", "array", "sequence"
  };
  int i;
  if( f==0 ){ tl_json_null(s); return; }
  if( nDepth > 80 ){ tl_json_strz(s, "..."); return; }
  tl_json_obj_begin(s);
  tl_json_key(s, "type");
  tl_json_strz(s, f->eKind>=1 && f->eKind<=8 ? azKind[f->eKind] : "?");
  switch( f->eKind ){
    case TL_CTF_INT: case TL_CTF_ENUM: case TL_CTF_FLOAT:
      tl_json_key(s, "size"); tl_json_int(s, f->nBits);
      tl_json_key(s, "align"); tl_json_int(s, f->nAlign);
      if( f->eKind!=TL_CTF_FLOAT ){
        tl_json_key(s, "signed"); tl_json_bool(s, f->bSigned);
        tl_json_key(s, "base"); tl_json_int(s, f->nBase);
      }
      tl_json_key(s, "byte_order"); tl_json_strz(s, f->bo==TL_BE ? "be" : "le");
      if( f->eKind==TL_CTF_ENUM ){
        tl_json_key(s, "mappings");
        tl_json_arr_begin(s);
        for(i=0; i<f->nRange; i++){
          tl_json_arr_begin(s);
          tl_json_strz(s, f->aRange[i].zLabel);
          if( f->bSigned ){
            tl_json_int(s, (int64_t)f->aRange[i].lo); tl_json_int(s, (int64_t)f->aRange[i].hi);
          }else{
            tl_json_uint(s, f->aRange[i].lo); tl_json_uint(s, f->aRange[i].hi);
          }
          tl_json_arr_end(s);
        }
        tl_json_arr_end(s);
      }
      break;
    case TL_CTF_STRUCT: case TL_CTF_VARIANT:
      tl_json_key(s, f->eKind==TL_CTF_STRUCT ? "members" : "options");
      tl_json_arr_begin(s);
      for(i=0; i<f->nMember; i++){
        tl_json_arr_begin(s);
        tl_json_strz(s, f->aMember[i].zName);
        ctf_schema_json(s, f->aMember[i].pType, nDepth+1);
        tl_json_arr_end(s);
      }
      tl_json_arr_end(s);
      break;
    case TL_CTF_ARRAY: case TL_CTF_SEQUENCE:
      if( f->eKind==TL_CTF_ARRAY ){ tl_json_key(s, "length"); tl_json_uint(s, f->nLen); }
      if( f->bText ){ tl_json_key(s, "text"); tl_json_bool(s, 1); }
      tl_json_key(s, "element");
      ctf_schema_json(s, f->pElem, nDepth+1);
      break;
    default:
      break;
  }
  tl_json_obj_end(s);
}

/* event_types: one row per event class of each stream class of each trace. */
static int ctf_event_types_next(CtfScan *pScan, TlRow *pRow){
  CtfData *p = pScan->p;
  TlVal *a = pScan->aCol;
  /* iNext: trace; iNext2: running index over (stream class, event class). */
  while( pScan->iNext < p->nTr ){
    const CtfTr *pTr = &p->aTr[pScan->iNext];
    int i, k = pScan->iNext2;
    for(i=0; i<pTr->m.nStream; i++){
      const TlCtfStreamClass *sc = &pTr->m.aStream[i];
      if( k < sc->nEvent ){
        const TlCtfEventClass *ec = &sc->aEvent[k];
        int j;
        for(j=0; j<TL_ET_NCOL; j++) tl_val_null(&a[j]);
        tl_val_int(&a[TL_ET_ID], (int64_t)ec->id);
        tl_val_textz(&a[TL_ET_NAME], ec->zName);
        tl_val_int(&a[TL_ET_STREAM], (int64_t)sc->id);
        tl_val_textz(&a[TL_ET_KIND], "event");
        if( tl_col_used(&pScan->f, TL_ET_ARGS) ){
          TlStr *s = &pScan->sArgs;
          tl_str_reset(s);
          tl_json_obj_begin(s);
          tl_json_key(s, "trace"); tl_json_strz(s, pTr->zRel);
          if( ec->logLevel!=INT64_MIN ){ tl_json_key(s, "loglevel"); tl_json_int(s, ec->logLevel); }
          if( ec->zEmfUri ){ tl_json_key(s, "emf_uri"); tl_json_strz(s, ec->zEmfUri); }
          if( ec->zUserAttrs ){ tl_json_key(s, "user_attributes"); tl_str_appendz(s, ec->zUserAttrs); }
          tl_json_key(s, "context"); ctf_schema_json(s, ec->pContext, 0);
          tl_json_key(s, "fields"); ctf_schema_json(s, ec->pPayload, 0);
          tl_json_obj_end(s);
          tl_val_str(&a[TL_ET_ARGS], s);
        }
        pRow->iRowid = ((int64_t)pScan->iNext << 32) + pScan->iNext2;
        pRow->a = a;
        pScan->iNext2++;
        return TL_ROW;
      }
      k -= sc->nEvent;
    }
    pScan->iNext++;
    pScan->iNext2 = 0;
  }
  return TL_DONE;
}

/* tracks: one row per stream file. */
static int ctf_tracks_next(CtfScan *pScan, TlRow *pRow){
  CtfData *p = pScan->p;
  TlTrace *t = pScan->pTrace;
  TlVal *a = pScan->aCol;
  const CtfStm *s;
  int j;
  size_t k;
  int64_t tsFirst = TL_TS_MAX, tsLast = TL_TS_MIN;
  if( pScan->iNext >= p->nStm ) return TL_DONE;
  s = &p->aStm[pScan->iNext];
  for(j=0; j<TL_TR_NCOL; j++) tl_val_null(&a[j]);
  tl_val_int(&a[TL_TR_ID], pScan->iNext);
  tl_val_textz(&a[TL_TR_KIND], "stream");
  tl_val_textz(&a[TL_TR_NAME], t->index.azFile[s->iFile]);
  if( s->iCpu>=0 ) tl_val_int(&a[TL_TR_CPU], s->iCpu);
  for(k=s->iPkt0; k<s->iPkt0+s->nPkt; k++){
    const TlPacket *tp = &t->index.a[k];
    if( tp->tsBegin!=TL_TS_MIN && tp->tsBegin < tsFirst ) tsFirst = tp->tsBegin;
    if( tp->tsEnd!=TL_TS_MAX && tp->tsEnd > tsLast ) tsLast = tp->tsEnd;
  }
  if( tsFirst!=TL_TS_MAX ) tl_val_int(&a[TL_TR_FIRST_TS], tsFirst);
  if( tsLast!=TL_TS_MIN ) tl_val_int(&a[TL_TR_LAST_TS], tsLast);
  if( tl_col_used(&pScan->f, TL_TR_ARGS) ){
    TlStr *js = &pScan->sArgs;
    tl_str_reset(js);
    tl_json_obj_begin(js);
    tl_json_key(js, "trace"); tl_json_strz(js, p->aTr[s->iTr].zRel);
    if( s->pSC ){ tl_json_key(js, "stream_class_id"); tl_json_uint(js, s->pSC->id); }
    if( s->iInstance>=0 ){ tl_json_key(js, "stream_instance_id"); tl_json_int(js, s->iInstance); }
    tl_json_key(js, "packets"); tl_json_uint(js, s->nPkt);
    tl_json_key(js, "discarded_events"); tl_json_uint(js, s->nDiscarded);
    tl_json_key(js, "lost_packets"); tl_json_uint(js, s->nLostPkt);
    tl_json_obj_end(js);
    tl_val_str(&a[TL_TR_ARGS], js);
  }
  pRow->iRowid = pScan->iNext;
  pRow->a = a;
  pScan->iNext++;
  return TL_ROW;
}

static void ctfScanClose(TlScan *pScan0){
  CtfScan *pScan = (CtfScan*)pScan0;
  int i;
  if( pScan==0 ) return;
  ctf_pipe_free(pScan);           /* (its helpers read the cursors) */
  for(i=0; i<pScan->nCur; i++) ctf_cur_free(&pScan->aCur[i]);
  if( pScan->bReplay ) ctf_cur_free(&pScan->replay);
  free(pScan->aCur);
  free(pScan->aHeap);
  free(pScan->aCpu);
  tl_str_free(&pScan->sText);
  tl_str_free(&pScan->sArgs);
  free(pScan);
}

static int ctfScanOpen(TlTrace *t, int iTable, const TlFilter *pFilter,
                       TlScan **ppScan, TlErr *pErr){
  CtfScan *pScan;
  int rc = TL_OK;
  *ppScan = 0;
  if( iTable!=TL_TAB_EVENTS && iTable!=TL_TAB_TRACKS && iTable!=TL_TAB_EVENT_TYPES ){
    return TL_DONE;
  }
  pScan = calloc(1, sizeof(*pScan));
  if( pScan==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pScan->pTrace = t;
  pScan->p = (CtfData*)t->pData;
  pScan->iTable = iTable;
  pScan->f = *pFilter;
  pScan->iLast = -1;
  tl_str_init(&pScan->sText);
  tl_str_init(&pScan->sArgs);
  if( pFilter->nCpu>0 ){
    pScan->aCpu = malloc(sizeof(int64_t)*(size_t)pFilter->nCpu);
    if( pScan->aCpu==0 ){ ctfScanClose((TlScan*)pScan); return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); }
    memcpy(pScan->aCpu, pFilter->aCpu, sizeof(int64_t)*(size_t)pFilter->nCpu);
    pScan->f.aCpu = pScan->aCpu;
  }
  pScan->bSkip = !tl_col_used(pFilter, TL_EV_PID) && !tl_col_used(pFilter, TL_EV_TID)
               && !tl_col_used(pFilter, TL_EV_TEXT) && !tl_col_used(pFilter, TL_EV_ARGS);
  /* no column but those a packet fixes (cpu, track, type), no time: counts */
  pScan->bCount = iTable==TL_TAB_EVENTS && !pFilter->bGroupName && !pFilter->bGroupCpu
               && !pFilter->bOrdered && !pFilter->bRowid
               && (pFilter->mCols & (((uint64_t)1<<TL_EV_NCOL)-1)
                   & ~(((uint64_t)1<<TL_EV_CPU) | ((uint64_t)1<<TL_EV_TRACK) | ((uint64_t)1<<TL_EV_TYPE)
                       | (pFilter->tsLo!=TL_TS_MIN || pFilter->tsHi!=TL_TS_MAX
                          ? ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_TS_RAW) : 0)))==0;
  if( iTable==TL_TAB_EVENTS ) rc = ctf_events_open(pScan);
  if( rc ){
    *pErr = pScan->err;
    ctfScanClose((TlScan*)pScan);
    return rc;
  }
  *ppScan = (TlScan*)pScan;
  return TL_OK;
}

static int ctfScanNext(TlScan *pScan0, TlRow *pRow){
  CtfScan *pScan = (CtfScan*)pScan0;
  int rc;
  if( pScan->err.rc ) return pScan->err.rc;
  switch( pScan->iTable ){
    case TL_TAB_EVENTS:
      rc = pScan->f.bGroupName ? ctf_events_grouped(pScan, pRow)
         : pScan->bCount ? ctf_events_counted(pScan, pRow) : ctf_events_next(pScan, pRow);
      break;
    case TL_TAB_TRACKS:      rc = ctf_tracks_next(pScan, pRow); break;
    case TL_TAB_EVENT_TYPES: rc = ctf_event_types_next(pScan, pRow); break;
    default:                 rc = TL_DONE; break;
  }
  return rc;
}

static const TlErr *ctfScanErr(TlScan *pScan){
  return &((CtfScan*)pScan)->err;
}

/*
** A repeated row's rowid: of a counted packet's iRepeat-th event, its index
** in the packet; of a name's rows (GROUP BY name), the row's number.
*/
static int ctfScanRowid(TlScan *pScan0, int64_t iRepeat, int64_t *piRowid){
  CtfScan *pScan = (CtfScan*)pScan0;
  if( pScan->f.bGroupName ) *piRowid = pScan->iGroupBase + iRepeat;
  else *piRowid = ((int64_t)pScan->iCountPkt << CTF_EV_BITS) + pScan->iCountFirst + iRepeat;
  return TL_OK;
}

/*
** ts or ts_raw of the iRepeat-th event a counted row stands for: its packet
** read again event by event (ctf_cur_next passes over the events before a
** time window, as the count did, and the count took no event without a
** time in one), onward from the event found last when it is not past this.
*/
static int ctfScanValue(TlScan *pScan0, int64_t iRepeat, int iCol, TlVal *pOut){
  CtfScan *pScan = (CtfScan*)pScan0;
  CtfCur *r = &pScan->replay;
  const CtfCur *c = &pScan->aCur[pScan->iCountCur < pScan->nCur ? pScan->iCountCur : 0];
  int rc;
  tl_val_null(pOut);
  if( !pScan->bCount || pScan->nCur==0 ) return TL_OK;
  if( !pScan->bReplay || r->pStm!=c->pStm ){
    if( pScan->bReplay ) ctf_cur_free(r);
    memset(r, 0, sizeof(*r));
    ctf_cur_init(pScan, r, c->pStm, c->iTrack);
    pScan->bReplay = 1;
    pScan->nReplayed = -1;
  }
  if( pScan->nReplayed<0 || pScan->nReplayed > iRepeat || r->iCurPkt!=pScan->iCountPkt ){
    r->iPkt = pScan->iCountPkt;
    r->iPktEnd = pScan->iCountPkt + 1;
    r->bOpen = 0;
    r->bPktByEvent = 1;
    rc = ctf_cur_open_pkt(pScan, r, &pScan->err);
    if( rc ){
      tl_err_file(&pScan->err, pScan->pTrace->index.azFile[r->pStm->iFile]);
      return rc;
    }
    pScan->nReplayed = 0;
  }
  while( pScan->nReplayed <= iRepeat ){
    rc = ctf_cur_next(pScan, r);
    if( rc<0 ) return rc;
    if( rc==TL_ROW && !r->bTs && (pScan->f.tsLo!=TL_TS_MIN || pScan->f.tsHi!=TL_TS_MAX) ){
      continue;                   /* in no window, so not counted */
    }
    if( rc==TL_DONE ){
      pScan->nReplayed = -1;
      return tl_err_set(&pScan->err, TL_ECORRUPT, pScan->pTrace->index.a[pScan->iCountPkt].iOff,
                        "a packet read again has fewer events than its count (%lld)",
                        (long long)iRepeat + 1);
    }
    pScan->nReplayed++;
  }
  if( iCol==TL_EV_TS && r->bTs ) tl_val_int(pOut, r->ts);
  if( iCol==TL_EV_TS_RAW && r->bClock ) tl_val_int(pOut, (int64_t)r->clock);
  return TL_OK;
}

static const char *const ctfOptions[] = { "ctf_clock", 0 };

const TlReaderDef tl_ctf_reader = {
  .zName      = "ctf",
  .azOptions  = ctfOptions,
  .mOrdered   = 1u<<TL_TAB_EVENTS,
  .mGroupName = 1u<<TL_TAB_EVENTS,
  .xProbe     = ctfProbe,
  .xOpen      = ctfOpen,
  .xClose     = ctfClose,
  .xScanOpen  = ctfScanOpen,
  .xScanNext  = ctfScanNext,
  .xScanClose = ctfScanClose,
  .xScanErr   = ctfScanErr,
  .xScanRowid = ctfScanRowid,
  .xScanValue = ctfScanValue,
};
