/*
** ctf_open.c: the CTF 1.8 and CTF 2 reader (LTTng, barectf, babeltrace2
** traces): finding traces, loading their metadata, opening their streams.
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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctf/ctf_int.h"
#include "ctf/tsdl.h"
#include "ctf/tsdl_parse.h"
#include "ctf/ctf2_meta.h"

/* ---------------------------------------------------------------- model */

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

/*
** CTF 1.8 gives fields their roles by name, at any depth: in the packet
** header and context (bPkt) those of the packet's size, time, stream and
** so on; in an event header the id and the clock (a field mapped to a
** clock, or named timestamp).
*/
static void ctf_mark_roles(TlCtfField *f, int bPkt, int nDepth){
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
    if( (m->eKind==TL_CTF_INT || m->eKind==TL_CTF_ENUM) && bPkt ){
      for(k=0; k<sizeof(aName)/sizeof(aName[0]); k++){
        if( strcmp(z, aName[k].z)==0 ) m->eRole = aName[k].eRole;
      }
    }else if( m->eKind==TL_CTF_INT || m->eKind==TL_CTF_ENUM ){
      if( strcmp(z, "id")==0 ) m->eRole = TL_CTF_ROLE_ID;
      else if( m->iClock>=0 || strcmp(z, "timestamp")==0 ) m->eRole = TL_CTF_ROLE_CLOCK;
    }
    ctf_mark_roles(m, bPkt, nDepth+1);
  }
  ctf_mark_roles(f->pElem, bPkt, nDepth+1);
}

/* Put the parsed model in the order and form the decoder expects. */
static void ctf_model_prepare(TlCtfModel *m){
  int i, j;
  if( m->nStream>1 ) qsort(m->aStream, (size_t)m->nStream, sizeof(*m->aStream), ctf_cmp_sc);
  ctf_fix_align(m->pPktHeader, 0);
  if( m->major==1 ) ctf_mark_roles(m->pPktHeader, 1, 0);
  for(i=0; i<m->nStream; i++){
    TlCtfStreamClass *sc = &m->aStream[i];
    if( sc->nEvent>1 ) qsort(sc->aEvent, (size_t)sc->nEvent, sizeof(*sc->aEvent), ctf_cmp_ec);
    ctf_fix_align(sc->pPktContext, 0);
    ctf_fix_align(sc->pEvHeader, 0);
    if( m->major==1 ){               /* CTF 2 states its roles */
      ctf_mark_roles(sc->pPktContext, 1, 0);
      ctf_mark_roles(sc->pEvHeader, 0, 0);
    }
    ctf_fix_align(sc->pEvContext, 0);
    for(j=0; j<sc->nEvent; j++){
      ctf_fix_align(sc->aEvent[j].pContext, 0);
      ctf_fix_align(sc->aEvent[j].pPayload, 0);
    }
  }
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

int tl_ctf_cmp_str(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

static void ctf_list_free(char **az, int n){
  while( n>0 ) free(az[--n]);
  free(az);
}

/*
** Discovery bounds, besides CTF_MAX_DEPTH and CTF_MAX_TRACES: directories
** listed, and entries looked at in them, below one path. Symbolic links
** are followed, so each directory is listed once, by (device, inode): a
** link loop, or /proc/<pid>/cwd leading back up, costs one visit each.
*/
#define CTF_MAX_DIRS     8192
#define CTF_MAX_FIELDS_OPT (1u<<24)  /* the most max_fields= allows */
#define CTF_MAX_ENTRIES  (1<<17)

typedef struct CtfDirKey CtfDirKey;
struct CtfDirKey { uint64_t dev, ino; int bUsed; };

/* The state of one search for traces. */
typedef struct CtfFind CtfFind;
struct CtfFind {
  CtfData *p;                     /* traces found go here */
  CtfDirKey *aSeen;               /* directories listed: open addressing */
  size_t nSeen, nSlot;            /* used, allocated (a power of two) */
  long nEntry;                    /* directory entries looked at */
};

static size_t ctf_dir_hash(uint64_t dev, uint64_t ino, size_t nSlot){
  uint64_t h = (ino * 0x9E3779B97F4A7C15ull) ^ (dev * 0xC2B2AE3D27D4EB4Full);
  return (size_t)(h >> 17) & (nSlot - 1);
}

/*
** Note directory (dev, ino) as listed. 1 if it was new, 0 if it was seen
** before, or TL_ENOMEM / TL_ELIMIT (more than CTF_MAX_DIRS).
*/
static int ctf_dir_new(CtfFind *f, uint64_t dev, uint64_t ino){
  size_t h;
  if( f->nSeen*2 >= f->nSlot ){
    size_t nNew = f->nSlot ? f->nSlot*2 : 256, k;
    CtfDirKey *aNew;
    if( f->nSeen >= CTF_MAX_DIRS ) return TL_ELIMIT;
    aNew = calloc(nNew, sizeof(*aNew));
    if( aNew==0 ) return TL_ENOMEM;
    for(k=0; k<f->nSlot; k++){
      if( !f->aSeen[k].bUsed ) continue;
      h = ctf_dir_hash(f->aSeen[k].dev, f->aSeen[k].ino, nNew);
      while( aNew[h].bUsed ) h = (h+1) & (nNew-1);
      aNew[h] = f->aSeen[k];
    }
    free(f->aSeen);
    f->aSeen = aNew;
    f->nSlot = nNew;
  }
  h = ctf_dir_hash(dev, ino, f->nSlot);
  while( f->aSeen[h].bUsed ){
    if( f->aSeen[h].dev==dev && f->aSeen[h].ino==ino ) return 0;
    h = (h+1) & (f->nSlot-1);
  }
  f->aSeen[h].dev = dev;
  f->aSeen[h].ino = ino;
  f->aSeen[h].bUsed = 1;
  f->nSeen++;
  return 1;
}

/*
** The names in directory zDir (not starting with '.'), sorted; bDirs picks
** subdirectories (symbolic links to directories too), else regular files.
** *pnEntry counts the entries looked at; past CTF_MAX_ENTRIES the listing
** stops with TL_ELIMIT.
*/
static int ctf_list(const char *zDir, int bDirs, char ***pazName, int *pn,
                    long *pnEntry){
  DIR *dir = opendir(zDir);
  struct dirent *e;
  char **az = 0;
  int n = 0, nAlloc = 0;
  TlErr err;
  tl_err_clear(&err);
  *pazName = 0;
  *pn = 0;
  if( dir==0 ) return TL_EIO;
  while( (e = readdir(dir))!=0 ){
    struct stat st;
    char *zPath;
    int bOk;
    if( e->d_name[0]=='.' ) continue;
    if( pnEntry && ++*pnEntry > CTF_MAX_ENTRIES ){
      closedir(dir);
      ctf_list_free(az, n);
      return TL_ELIMIT;
    }
    if( tl_poll(&err) ){          /* sqlite3_interrupt() */
      closedir(dir);
      ctf_list_free(az, n);
      return TL_EINTR;
    }
    if( e->d_type==DT_DIR || e->d_type==DT_REG ){
      bOk = bDirs ? e->d_type==DT_DIR : e->d_type==DT_REG;   /* no stat needed */
    }else if( e->d_type!=DT_LNK && e->d_type!=DT_UNKNOWN ){
      bOk = 0;                                   /* a FIFO, socket, device */
    }else{
      zPath = ctf_join(zDir, e->d_name);
      if( zPath==0 ) goto oom;
      bOk = bDirs ? (stat(zPath, &st)==0 && S_ISDIR(st.st_mode))
                  : (stat(zPath, &st)==0 && S_ISREG(st.st_mode));
      free(zPath);
    }
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
  if( n ) qsort(az, (size_t)n, sizeof(char*), tl_ctf_cmp_str);
  *pazName = az;
  *pn = n;
  return TL_OK;
oom:
  closedir(dir);
  ctf_list_free(az, n);
  return TL_ENOMEM;
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

/*
** Find the traces at or below zDir. A trace directory is not searched
** further; any other directory is listed once. Returns TL_OK, TL_ENOMEM,
** TL_EUNSUPPORTED (more than CTF_MAX_TRACES) or TL_ELIMIT (more than
** CTF_MAX_DIRS directories or CTF_MAX_ENTRIES entries).
*/
static int ctf_find(CtfFind *f, const char *zDir, const char *zRel, int nDepth){
  struct stat st;
  char **az;
  int n, i, rc;
  if( ctf_has_metadata(zDir) ) return ctf_add_trace(f->p, zDir, zRel);
  if( nDepth >= CTF_MAX_DEPTH || stat(zDir, &st) ) return TL_OK;
  rc = ctf_dir_new(f, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
  if( rc<=0 ) return rc;                           /* seen: TL_OK */
  rc = ctf_list(zDir, 1, &az, &n, &f->nEntry);
  if( rc ) return rc==TL_EIO ? TL_OK : rc;         /* unreadable: skipped */
  for(i=0; i<n && rc==TL_OK; i++){
    char *zSub = ctf_join(zDir, az[i]);
    char *zSubRel = zRel[0] ? ctf_join(zRel, az[i]) : strdup(az[i]);
    rc = zSub && zSubRel ? ctf_find(f, zSub, zSubRel, nDepth+1) : TL_ENOMEM;
    free(zSub);
    free(zSubRel);
  }
  ctf_list_free(az, n);
  return rc;
}

/* ctf_find() from zDir, the path opened, into p. */
static int ctf_find_all(CtfData *p, const char *zDir){
  CtfFind f;
  int rc;
  memset(&f, 0, sizeof(f));
  f.p = p;
  rc = ctf_find(&f, zDir, "", 0);
  free(f.aSeen);
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
  tl_ctf_dbg_free(p->pDbg);
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
  if( ctf_list(pTr->zDir, 0, &az, &n, 0) ){
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
    if( tl_trace_mmap(t) ) (void)tl_source_map(s->pSrc);
    rc = tl_ctf_index_stream(t, p, s, pErr);
    /* scans open it again under the descriptor budget (TL_WIN_FDS): a
    ** trace may have more stream files than the process may open */
    tl_source_drop_fd(s->pSrc);
  }
  ctf_list_free(az, n);
  return rc;
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
  {
    uint64_t n;
    if( tl_opts_uint(&t->opts, "max_fields", 1, CTF_MAX_FIELDS_OPT, TL_CTF_MAX_VALS, &n) ){
      free(p);
      return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
          "max_fields=%s: expected a whole number from 1 to %u",
          tl_opts_get(&t->opts, "max_fields"), CTF_MAX_FIELDS_OPT);
    }
    p->nMaxVals = (uint32_t)n;
  }
  if( t->bDir ){
    rc = ctf_find_all(p, t->zPath);
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
  if( rc==TL_EINTR ) rc = tl_err_set(pErr, TL_EINTR, TL_NO_OFFSET, "interrupted");
  if( rc==TL_EUNSUPPORTED ){
    rc = tl_err_set(pErr, rc, TL_NO_OFFSET, "more than %d traces below this directory", CTF_MAX_TRACES);
  }
  if( rc==TL_ELIMIT ){
    rc = tl_err_set(pErr, rc, TL_NO_OFFSET,
        "the search for CTF traces below this directory passed %d directories or %d entries:"
        " name a directory nearer the traces", CTF_MAX_DIRS, CTF_MAX_ENTRIES);
  }
  for(i=0; i<p->nTr && rc==TL_OK; i++) rc = ctf_load_metadata(&p->aTr[i], 0, pErr);
  if( rc==TL_OK ) tl_ctf_clock_apply(t, p);
  for(i=0; i<p->nTr && rc==TL_OK; i++) rc = ctf_open_streams(t, p, i, pErr);
  if( rc==TL_OK && tl_ctf_mark_duplicates(t, p) ){
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
    (void)ctf_find_all(&d, zPath);          /* capped: whatever was found */
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

/* Has a stream file changed since the trace was opened? */
static int ctfCheck(TlTrace *t, TlErr *pErr){
  const CtfData *p = t->pData;
  int i, rc;
  for(i=0; p && i<p->nStm; i++){
    rc = tl_source_check(p->aStm[i].pSrc, pErr);
    if( rc ){
      tl_err_file(pErr, t->index.azFile[p->aStm[i].iFile]);
      return rc;
    }
  }
  return TL_OK;
}

static const char *const ctfOptions[] = { "ctf_clock", "max_fields", "symfs", "buildid_dir", 0 };

const TlReaderDef tl_ctf_reader = {
  .zName      = "ctf",
  .azOptions  = ctfOptions,
  .mOrdered   = 1u<<TL_TAB_EVENTS,
  .xProbe     = ctfProbe,
  .xOpen      = ctfOpen,
  .xClose     = ctfClose,
  .xScanOpen  = tl_ctf_scan_open,
  .xScanNext  = tl_ctf_scan_next,
  .xScanClose = tl_ctf_scan_close,
  .xScanErr   = tl_ctf_scan_err,
  .mCount     = 1u<<TL_TAB_EVENTS,
  .xCountCols = tl_ctf_count_cols,
  .xCountOpen = tl_ctf_count_open,
  .xCountClose = tl_ctf_count_close,
  .xPacketCount = tl_ctf_packet_count,
  .xInfo      = tl_ctf_info,
  .xPacketValue = tl_ctf_packet_value,
  .xCheck     = ctfCheck,
  .mTally     = 1u<<TL_TAB_EVENTS,
  .xTallyCols = tl_ctf_tally_cols,
  .xTallyOpen = tl_ctf_count_open,
  .xTallyPacket = tl_ctf_tally_packet,
  .xTallyValues = tl_ctf_tally_values,
  .xTallyClose = tl_ctf_count_close,
  .xStreams   = tl_ctf_streams,
};
