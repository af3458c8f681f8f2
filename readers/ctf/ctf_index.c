/*
** ctf_index.c: the packet index of CTF stream files. Each packet's header
** and context are decoded (tl_ctf_pkt_read) and the walk jumps by
** packet_size; per packet the index keeps its offset, sizes, CPU,
** begin/end time, discarded events and sequence number. Packets that
** copy an earlier file's are marked so that scans skip them.
*/
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_int.h"

static const TlCtfStreamClass *ctf_stream_class(const TlCtfModel *m, uint64_t id){
  int lo = 0, hi = m->nStream - 1;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    if( m->aStream[mid].id==id ) return &m->aStream[mid];
    if( m->aStream[mid].id<id ) lo = mid+1; else hi = mid-1;
  }
  return 0;
}
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
int tl_ctf_pkt_read(const CtfTr *pTr, TlCtfDec *d, uint64_t nFile, CtfPkt *pk,
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
int tl_ctf_index_stream(TlTrace *t, CtfData *p, CtfStm *s, TlErr *pErr){
  CtfTr *pTr = &p->aTr[s->iTr];
  uint64_t nFile = s->pSrc->nSize, iOff = 0, prevDisc = 0, clockEnd = 0;
  int64_t prevSeq = -1;
  TlWin w;
  TlCtfDec d;
  int rc = TL_OK, bCpuSame = 1;
  tl_win_init(&w, s->pSrc);
  tl_ctf_dec_init(&d);
  d.nMaxVals = p->nMaxVals;
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
    rc = tl_ctf_pkt_read(pTr, &d, nFile, &pk, pErr);
    if( rc && d.bPastEnd && b.n<nWin ){
      tl_err_clear(pErr);
      rc = tl_win_get(&w, iOff, nWin, TL_LE, &b, pErr);
      if( rc ) break;
      tl_ctf_bits_init(&d.bits, b.a, b.n, (uint64_t)b.n*8);
      rc = tl_ctf_pkt_read(pTr, &d, nFile, &pk, pErr);
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

/* One packet's identity for finding copies (tl_ctf_mark_duplicates). */
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
int tl_ctf_mark_duplicates(TlTrace *t, CtfData *p){
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
