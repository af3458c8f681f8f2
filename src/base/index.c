/*
** index.c: the packet index (see index.h).
*/
#include "index.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "progress.h"

void tl_index_init(TlIndex *p){
  memset(p, 0, sizeof(*p));
}

void tl_index_free(TlIndex *p){
  size_t i;
  for(i=0; i<p->nFile; i++) free(p->azFile[i]);
  free(p->azFile);
  free(p->a);
  tl_index_init(p);
}

int tl_index_add(TlIndex *p, const TlPacket *pPkt){
  if( p->n==p->nAlloc ){
    size_t nNew = p->nAlloc ? p->nAlloc*2 : 64;
    TlPacket *aNew;
    if( nNew > SIZE_MAX/sizeof(TlPacket) ) return TL_ENOMEM;
    aNew = realloc(p->a, nNew*sizeof(TlPacket));
    if( aNew==0 ) return TL_ENOMEM;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  p->a[p->n++] = *pPkt;
  tl_progress_reach(pPkt->iFile, pPkt->iOff + pPkt->nSize);
  return TL_OK;
}

int tl_index_add_file(TlIndex *p, const char *zName, uint32_t *piFile){
  char **azNew;
  char *z;
  if( p->nFile >= UINT32_MAX ) return TL_ENOMEM;
  azNew = realloc(p->azFile, (p->nFile+1)*sizeof(char*));
  if( azNew==0 ) return TL_ENOMEM;
  p->azFile = azNew;
  z = strdup(zName);
  if( z==0 ) return TL_ENOMEM;
  p->azFile[p->nFile] = z;
  *piFile = (uint32_t)p->nFile;
  p->nFile++;
  return TL_OK;
}

uint64_t tl_index_events(const TlIndex *p){
  uint64_t n = 0;
  size_t i;
  for(i=0; i<p->n; i++){
    if( p->a[i].nEvents==TL_UNKNOWN ) return TL_UNKNOWN;
    n += p->a[i].nEvents;
  }
  return n;
}

int tl_packet_may_match(const TlPacket *p, int64_t tsLo, int64_t tsHi,
                        const int64_t *aCpu, int nCpu){
  int i;
  if( p->tsEnd < tsLo || p->tsBegin > tsHi ) return 0;
  if( nCpu<0 ) return 1;
  if( p->mCpu ){
    if( p->mCpu & ((uint64_t)1<<63) ) return 1;
    for(i=0; i<nCpu; i++){
      if( aCpu[i]>=0 && aCpu[i]<63 && (p->mCpu & ((uint64_t)1<<aCpu[i])) ) return 1;
    }
    return 0;
  }
  if( p->iCpu<0 ) return 1;
  for(i=0; i<nCpu; i++){
    if( aCpu[i]==p->iCpu ) return 1;
  }
  return 0;
}

size_t tl_packets_first_end_ge(const TlPacket *a, size_t n, int64_t ts){
  size_t lo = 0, hi = n;
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( a[mid].tsEnd < ts ) lo = mid+1; else hi = mid;
  }
  return lo;
}

void tl_packet_note_read(const TlPacket *p){
  /* The index is read-only for scans except this counter: an atomic add. */
  TlPacket *pMut = (TlPacket*)(uintptr_t)p;
  __atomic_add_fetch(&pMut->nReads, 1, __ATOMIC_RELAXED);
  tl_progress_add(p->nSize);
}

uint64_t tl_packet_reads(const TlPacket *p){
  return __atomic_load_n(&p->nReads, __ATOMIC_RELAXED);
}
