/*
** ctf_debuginfo.c: symbol, dso, symoff, dso_offset and srcline of the
** events of LTTng-UST traces with an ip context, as babeltrace2's
** debug-info filter (flt.lttng-utils.debug-info, babeltrace2 2.0) gives
** them (docs/tables.md).
**
** The first scan that asks for one of those columns reads every event of
** the trace once, in time order, and hands the files the processes
** loaded to the symbols model (readers/model_symbols.h), per vpid and
** from the event's time on, following the events babeltrace2 follows:
**
**   lttng_ust_statedump:bin_info   baddr, memsz, path, is_pic: the file is
**   lttng_ust_dl:dlopen            at [baddr, baddr+memsz) (dlopen and
**   lttng_ust_lib:load             load: position-independent); the first
**                                  load at a base address stays
**   lttng_ust_statedump:build_id   its build id (a file whose own differs,
**                                  or that is missing, then gives nothing)
**   lttng_ust_statedump:debug_link filename, crc: its separate debug file
**   lttng_ust_dl:debug_link        (looked for as the model looks for one)
**   lttng_ust_lib:unload           the file at baddr is gone
**   lttng_ust_statedump:start      every file of the process is forgotten
**
** and notes, per process and ip, the first event since the process's last
** statedump:start whose ip a loaded file held: babeltrace2 keeps the
** answer it gave then for every later event with that ip.
**
** Files are found as the model finds them: under symfs=, in the build-id
** cache (buildid_dir=). An event's ip (context field "ip") of process vpid
** (else pid) is then, as at that first event:
**
**   dso         the path of the file holding it (babeltrace2's bin is its
**               base name, then "+0x" and dso_offset in hex; "@0x" for a
**               file that is not position-independent)
**   dso_offset  ip - baddr (ip itself when not position-independent)
**   symbol,     the DWARF subprogram holding it and the offset into it
**   symoff      (the ELF symbol for a file without DWARF; babeltrace2's
**               func is "symbol+0xsymoff")
**   srcline     babeltrace2's src: an inline's call site, or the DWARF
**               line row starting exactly at ip (tl_srclines_bt2_at)
**
** each NULL where babeltrace2 prints "".
*/
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_int.h"
#include "map.h"
#include "model_symbols.h"
#include "model_unwind.h"

#define DBG_MAX_LOADS (1u<<16)        /* files loaded whose base address is kept */
#define DBG_MAX_IPS   (1u<<20)        /* (process, ip) answers kept */

/* A file a process loaded: its base address, size and path. */
typedef struct DbgLoad DbgLoad;
struct DbgLoad {
  int64_t pid;
  uint64_t baddr, memsz;
  char *zPath;
  int bLoaded;                    /* not unloaded since */
  int bBuildId;                   /* the statedump gave its build id since */
};

/*
** babeltrace2 keeps its answer for an ip of a process from the first event
** with that ip that a loaded file holds until the process's next
** statedump:start: an address is answered as it was then (DbgIp.ts).
*/
typedef struct DbgIp DbgIp;
struct DbgIp {
  int64_t pid;
  uint64_t ip;
  int64_t ts;                     /* the first event's time */
  uint32_t iPrev;                 /* the same (pid, ip)'s earlier answer + 1, or 0 */
  uint8_t bBuildId;               /* its file's build id was known then */
};

/* A statedump:start: the process's answers forgotten from ts on. */
typedef struct DbgStart DbgStart;
struct DbgStart { int64_t pid, ts; };

struct CtfDbg {
  TlSymbols *pSyms;
  DbgLoad *aLoad; size_t nLoad, nLoadAlloc;
  DbgIp *aIp; size_t nIp, nIpAlloc;
  TlMap ipByKey;                  /* hash of (pid, ip), probed onward -> aIp index of the latest */
  int bIpCap;                     /* DBG_MAX_IPS reached: later ones answered at their time */
  DbgStart *aStart; size_t nStart, nStartAlloc;
};

/* The kinds of events the model takes (babeltrace2's). */
#define DBG_NONE    0
#define DBG_LOAD    1                 /* bin_info, dlopen, lib:load */
#define DBG_BUILDID 2
#define DBG_UNLOAD  3                 /* lib:unload */
#define DBG_START   4                 /* statedump:start: every file forgotten */
#define DBG_LINK    5                 /* debug_link: the debug file's name and CRC */

static int dbg_kind(const char *z){
  static const struct { const char *zName; int eKind; } aKind[] = {
    { "lttng_ust_statedump:bin_info", DBG_LOAD },
    { "lttng_ust_dl:dlopen", DBG_LOAD },
    { "lttng_ust_lib:load", DBG_LOAD },
    { "lttng_ust_statedump:build_id", DBG_BUILDID },
    { "lttng_ust_lib:unload", DBG_UNLOAD },
    { "lttng_ust_statedump:start", DBG_START },
    { "lttng_ust_statedump:debug_link", DBG_LINK },
    { "lttng_ust_dl:debug_link", DBG_LINK },
  };
  size_t i;
  if( z==0 ) return DBG_NONE;                     /* a class the metadata did not name */
  for(i=0; i<sizeof(aKind)/sizeof(aKind[0]); i++){
    if( strcmp(z, aKind[i].zName)==0 ) return aKind[i].eKind;
  }
  return DBG_NONE;
}

/* An event class the model takes (tl_ctf_has_class's test). */
static int dbg_class(const char *zName, void *pCtx){
  (void)pCtx;
  return dbg_kind(zName)!=DBG_NONE;
}

int tl_ctf_dbg_has_events(const CtfData *p){
  return tl_ctf_has_class(p, dbg_class, 0);
}

void tl_ctf_dbg_free(struct CtfDbg *pDbg){
  size_t i;
  if( pDbg==0 ) return;
  tl_symbols_free(pDbg->pSyms);
  for(i=0; i<pDbg->nLoad; i++) free(pDbg->aLoad[i].zPath);
  free(pDbg->aLoad);
  free(pDbg->aIp);
  tl_map_free(&pDbg->ipByKey);
  free(pDbg->aStart);
  free(pDbg);
}

/* Integer context field zName (stream event context, then event context). */
static int dbg_ctx_int(const TlCtfDec *d, const char *zName, uint64_t *pv){
  static const int aiScope[2] = { TL_CTF_SCOPE_EV_SCONTEXT, TL_CTF_SCOPE_EV_CONTEXT };
  int s;
  for(s=0; s<2; s++){
    int i;
    if( d->aRoot[aiScope[s]]<0 ) continue;
    i = tl_ctf_dec_member(d, d->aRoot[aiScope[s]], zName);
    if( tl_ctf_dec_is_int(d, i) ){ *pv = tl_ctf_dec_u(d, i); return 1; }
  }
  return 0;
}

/* The event's process: the vpid (else pid) context field. */
static int dbg_pid(const TlCtfDec *d, uint64_t *pv){
  return dbg_ctx_int(d, "vpid", pv) || dbg_ctx_int(d, "pid", pv);
}

/* The payload's member zName: its node, or -1. */
static int dbg_field(const TlCtfDec *d, const char *zName){
  int r = d->aRoot[TL_CTF_SCOPE_EV_PAYLOAD];
  return r<0 ? -1 : tl_ctf_dec_member(d, r, zName);
}

static int dbg_field_int(const TlCtfDec *d, const char *zName, uint64_t *pv){
  int i = dbg_field(d, zName);
  if( !tl_ctf_dec_is_int(d, i) ) return 0;
  *pv = tl_ctf_dec_u(d, i);
  return 1;
}

/* The load of pid at baddr, the latest; NULL if none. */
static DbgLoad *dbg_load_find(struct CtfDbg *pDbg, int64_t pid, uint64_t baddr){
  size_t i;
  for(i=pDbg->nLoad; i>0; i--){
    DbgLoad *l = &pDbg->aLoad[i-1];
    if( l->pid==pid && l->baddr==baddr ) return l;
  }
  return 0;
}

/* Room for one more of the *pn elements of size sz at *pa; 0 or TL_ENOMEM. */
static int dbg_grow(void *pa, size_t n, size_t *pnAlloc, size_t sz){
  void **pp = (void**)pa, *aNew;
  size_t nNew;
  if( n<*pnAlloc ) return 0;
  nNew = *pnAlloc*2 + 16;
  aNew = realloc(*pp, nNew*sz);
  if( aNew==0 ) return TL_ENOMEM;
  *pp = aNew;
  *pnAlloc = nNew;
  return 0;
}

static uint64_t dbg_ip_hash(int64_t pid, uint64_t ip){
  uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull ^ ip;
  h ^= h >> 29;
  return h * 0xBF58476D1CE4E5B9ull;
}

/* The latest answer kept for (pid, ip), or NULL; *pKey: its map key (or a free one). */
static DbgIp *dbg_ip_latest(const struct CtfDbg *pDbg, int64_t pid, uint64_t ip, uint64_t *pKey){
  uint64_t h = dbg_ip_hash(pid, ip);
  uint32_t i;
  for(;; h++){
    if( !tl_map_get(&pDbg->ipByKey, h, &i) ){ *pKey = h; return 0; }
    if( pDbg->aIp[i].pid==pid && pDbg->aIp[i].ip==ip ){ *pKey = h; return &pDbg->aIp[i]; }
  }
}

/* The time of pid's last statedump:start at or before ts (INT64_MIN: none). */
static int64_t dbg_start_before(const struct CtfDbg *pDbg, int64_t pid, int64_t ts){
  int64_t t = INT64_MIN;
  size_t i;
  for(i=0; i<pDbg->nStart; i++){
    const DbgStart *s = &pDbg->aStart[i];
    if( s->pid==pid && s->ts<=ts && s->ts>t ) t = s->ts;
  }
  return t;
}

/* Keep the answer time of the event's ip if no answer of this statedump holds; TL_OK or TL_ENOMEM. */
static int dbg_ip_note(struct CtfDbg *pDbg, int64_t pid, uint64_t ip, int64_t ts){
  uint64_t key;
  DbgIp *pLast = dbg_ip_latest(pDbg, pid, ip, &key);
  size_t i;
  const DbgLoad *pHeld = 0;
  if( pLast && pLast->ts>=dbg_start_before(pDbg, pid, ts) ) return TL_OK;
  for(i=0; i<pDbg->nLoad && pHeld==0; i++){
    const DbgLoad *l = &pDbg->aLoad[i];
    if( l->pid==pid && l->bLoaded && ip>=l->baddr && ip - l->baddr < l->memsz ) pHeld = l;
  }
  if( pHeld==0 ) return TL_OK;
  if( pDbg->nIp>=DBG_MAX_IPS ){ pDbg->bIpCap = 1; return TL_OK; }
  if( dbg_grow(&pDbg->aIp, pDbg->nIp, &pDbg->nIpAlloc, sizeof(DbgIp)) ) return TL_ENOMEM;
  pDbg->aIp[pDbg->nIp].pid = pid;
  pDbg->aIp[pDbg->nIp].ip = ip;
  pDbg->aIp[pDbg->nIp].ts = ts;
  pDbg->aIp[pDbg->nIp].iPrev = pLast ? (uint32_t)(pLast - pDbg->aIp) + 1 : 0;
  pDbg->aIp[pDbg->nIp].bBuildId = (uint8_t)pHeld->bBuildId;
  if( tl_map_put(&pDbg->ipByKey, key, (uint32_t)pDbg->nIp) ) return TL_ENOMEM;
  pDbg->nIp++;
  return TL_OK;
}

/*
** The answer kept for (pid, ip) that holds at ts: its time into *pTs and 1
** (*pbBuildId: the file's build id was known then), or 0 when babeltrace2
** has none.
*/
static int dbg_ip_at(const struct CtfDbg *pDbg, int64_t pid, uint64_t ip, int64_t ts,
                     int64_t *pTs, int *pbBuildId){
  uint64_t key;
  const DbgIp *e = dbg_ip_latest(pDbg, pid, ip, &key);
  while( e && e->ts>ts ) e = e->iPrev ? &pDbg->aIp[e->iPrev-1] : 0;
  if( e==0 || e->ts<dbg_start_before(pDbg, pid, ts) ){
    if( !pDbg->bIpCap ) return 0;
    *pTs = ts;                                     /* (past the cap: at its own time) */
    *pbBuildId = 0;
    return 1;
  }
  *pTs = e->ts;
  *pbBuildId = e->bBuildId;
  return 1;
}

/* One event of the trace as the model's input; TL_OK or TL_ENOMEM. */
static int dbg_event(struct CtfDbg *pDbg, const CtfCur *c, int eKind){
  const TlCtfDec *d = &c->dec;
  uint64_t pid, baddr, memsz, pic = 1;
  int64_t ts = c->bTs ? c->ts : TL_SYMBOLS_NO_TS;
  DbgLoad *l;
  if( !dbg_pid(d, &pid) ) return TL_OK;
  if( eKind==DBG_START ){
    size_t i;
    if( dbg_grow(&pDbg->aStart, pDbg->nStart, &pDbg->nStartAlloc, sizeof(DbgStart)) ) return TL_ENOMEM;
    pDbg->aStart[pDbg->nStart].pid = (int64_t)pid;
    pDbg->aStart[pDbg->nStart++].ts = ts;
    for(i=0; i<pDbg->nLoad; i++){
      if( pDbg->aLoad[i].pid==(int64_t)pid ) pDbg->aLoad[i].bLoaded = 0;
    }
    return tl_symbols_add_map_vaddr(pDbg->pSyms, (int64_t)pid, ts, 0, UINT64_MAX, 0, "", 0)
           ==TL_ENOMEM ? TL_ENOMEM : TL_OK;
  }
  if( !dbg_field_int(d, "baddr", &baddr) ) return TL_OK;
  l = dbg_load_find(pDbg, (int64_t)pid, baddr);
  if( eKind==DBG_LOAD ){
    int iPath = dbg_field(d, "path");
    const char *zPath;
    size_t nPath;
    if( !dbg_field_int(d, "memsz", &memsz) || iPath<0 || d->aVal[iPath].z==0 ) return TL_OK;
    if( memsz==0 ) return TL_OK;                   /* [linux-vdso.so.1] */
    if( l && l->bLoaded ) return TL_OK;            /* the first load stays */
    (void)dbg_field_int(d, "is_pic", &pic);
    zPath = d->aVal[iPath].z;
    nPath = d->aVal[iPath].n;
    if( tl_symbols_add_map_vaddr(pDbg->pSyms, (int64_t)pid, ts, baddr, memsz, pic ? 0 : baddr,
                                 zPath, nPath)==TL_ENOMEM ) return TL_ENOMEM;
    if( l==0 ){
      if( pDbg->nLoad>=DBG_MAX_LOADS ) return TL_OK;
      if( dbg_grow(&pDbg->aLoad, pDbg->nLoad, &pDbg->nLoadAlloc, sizeof(DbgLoad)) ) return TL_ENOMEM;
      l = &pDbg->aLoad[pDbg->nLoad++];
      l->pid = (int64_t)pid;
      l->baddr = baddr;
      l->zPath = 0;
    }
    free(l->zPath);
    l->bLoaded = 1;
    l->bBuildId = 0;
    l->memsz = memsz;
    l->zPath = tl_strndup(zPath, nPath);
    return l->zPath ? TL_OK : TL_ENOMEM;
  }
  if( l==0 || l->zPath==0 || !l->bLoaded ) return TL_OK;
  if( eKind==DBG_UNLOAD ){
    l->bLoaded = 0;
    return tl_symbols_add_map_vaddr(pDbg->pSyms, (int64_t)pid, ts, baddr, l->memsz, 0, "", 0)
           ==TL_ENOMEM ? TL_ENOMEM : TL_OK;
  }else if( eKind==DBG_LINK ){
    int iName = dbg_field(d, "filename");
    uint64_t crc;
    if( iName<0 || d->aVal[iName].z==0 || !dbg_field_int(d, "crc", &crc) ) return TL_OK;
    return tl_symbols_add_debug_link(pDbg->pSyms, l->zPath, strlen(l->zPath), d->aVal[iName].z,
                                     d->aVal[iName].n, (uint32_t)crc);
  }else{
    int iId = dbg_field(d, "build_id");
    uint8_t aId[20];
    uint32_t k, n;
    if( iId<0 ) return TL_OK;
    n = d->aVal[iId].nSub - 1;                     /* its elements follow it */
    if( n==0 || n>sizeof(aId) ) return TL_OK;
    for(k=0; k<n; k++){
      if( !tl_ctf_dec_is_int(d, iId+1+(int)k) ) return TL_OK;
      aId[k] = (uint8_t)tl_ctf_dec_u(d, iId+1+(int)k);
    }
    l->bBuildId = 1;
    return tl_symbols_add_build_id(pDbg->pSyms, l->zPath, strlen(l->zPath), aId, n);
  }
}

/* Read the trace's load events into a new model; TL_OK or an error. */
static int dbg_build(CtfScan *pScan, struct CtfDbg **ppDbg){
  TlTrace *t = pScan->pTrace;
  struct CtfDbg *pDbg;
  CtfScan *pSub = 0;
  TlFilter f;
  int rc;
  *ppDbg = 0;
  pDbg = calloc(1, sizeof(*pDbg));
  if( pDbg==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  pDbg->pSyms = tl_symbols_new(tl_opts_get(&t->opts, "symfs"), tl_opts_get(&t->opts, "buildid_dir"), 0);
  if( pDbg->pSyms==0 ){
    tl_ctf_dbg_free(pDbg);
    return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  if( tl_ctf_dbg_has_events(pScan->p) ){
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN;
    f.tsHi = TL_TS_MAX;
    f.nCpu = -1;
    f.bOrdered = 1;
    f.mCols = (uint64_t)1<<TL_EV_PID;               /* the fields decoded */
    rc = tl_ctf_scan_open(t, TL_TAB_EVENTS, &f, (TlScan**)&pSub, &pScan->err);
    if( rc ){ tl_ctf_dbg_free(pDbg); return rc; }
    while( (rc = tl_ctf_merge_next(pSub))==TL_ROW ){
      const CtfCur *c = &pSub->aCur[pSub->iLast];
      int eKind = dbg_kind(c->pEC->zName);
      uint64_t ip, pid;
      if( (eKind!=DBG_NONE && dbg_event(pDbg, c, eKind))
       || (dbg_ctx_int(&c->dec, "ip", &ip) && dbg_pid(&c->dec, &pid)
           && dbg_ip_note(pDbg, (int64_t)pid, ip, c->bTs ? c->ts : TL_SYMBOLS_NO_TS)) ){
        rc = tl_err_set(&pSub->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
        break;
      }
    }
    if( rc<0 ){
      pScan->err = pSub->err;
      tl_ctf_scan_close((TlScan*)pSub);
      tl_ctf_dbg_free(pDbg);
      return pScan->err.rc;
    }
    tl_ctf_scan_close((TlScan*)pSub);
  }
  tl_symbols_finish(pDbg->pSyms);
  *ppDbg = pDbg;
  return TL_OK;
}

int tl_ctf_dbg_open(CtfScan *pScan){
  CtfData *p = pScan->p;
  struct CtfDbg *pDbg = 0;
  int rc;
  tl_trace_lock(pScan->pTrace);
  pDbg = p->pDbg;
  tl_trace_unlock(pScan->pTrace);
  if( pDbg==0 ){
    /* built outside the lock (its scan may take it); the first one kept */
    if( (rc = dbg_build(pScan, &pDbg))!=TL_OK ) return rc;
    tl_trace_lock(pScan->pTrace);
    if( p->pDbg==0 ){
      p->pDbg = pDbg;
    }else{
      tl_ctf_dbg_free(pDbg);
      pDbg = p->pDbg;
    }
    tl_trace_unlock(pScan->pTrace);
  }
  pScan->pDbg = pDbg;
  pScan->pSrc = tl_srclines_new(pDbg->pSyms);
  if( pScan->pSrc==0 ) return tl_err_set(&pScan->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  return TL_OK;
}

void tl_ctf_dbg_close(CtfScan *pScan){
  tl_srclines_free(pScan->pSrc);
  pScan->pSrc = 0;
}

void tl_ctf_dbg_cols(CtfScan *pScan, const CtfCur *c, TlVal *a){
  struct CtfDbg *pDbg = pScan->pDbg;
  uint64_t ip, pid;
  int64_t ts = c->bTs ? c->ts : TL_SYMBOLS_NO_TS;
  TlMapAt m;
  TlBt2Info bt;
  int bBuildId;
  if( !dbg_ctx_int(&c->dec, "ip", &ip) ) return;
  if( !dbg_pid(&c->dec, &pid) ) return;
  if( !dbg_ip_at(pDbg, (int64_t)pid, ip, ts, &ts, &bBuildId) ) return;
  if( !tl_symbols_map_at(pDbg->pSyms, pScan->pTrace, (int64_t)pid, ts, ip, &m) ) return;
  /* none (unloaded), or a file whose build id, known then, is not the
  ** trace's or cannot be checked: nothing */
  if( m.zName[0]==0 || m.eWhy==TL_SYMFILE_BUILD_ID || (bBuildId && m.eWhy!=TL_SYMFILE_OPEN) ) return;
  tl_val_textz(&a[TL_EV_DSO], m.zName);
  tl_val_int(&a[TL_EV_DSO_OFFSET], (int64_t)(ip - m.start + m.pgoff));
  if( tl_srclines_bt2_at(pScan->pSrc, pScan->pTrace, (int64_t)pid, ts, ip, &bt) ){
    if( bt.zFunc ){
      tl_val_textz(&a[TL_EV_SYMBOL], bt.zFunc);
      tl_val_int(&a[TL_EV_SYMOFF], (int64_t)bt.funcOff);
    }
    if( bt.zSrc ) tl_val_textz(&a[TL_EV_SRCLINE], bt.zSrc);
  }else{
    TlSymbolAt at;
    tl_symbols_at(pDbg->pSyms, pScan->pTrace, (int64_t)pid, ts, ip, 0, &at);
    if( strcmp(at.zSym, "[unknown]") ){
      tl_val_textz(&a[TL_EV_SYMBOL], at.zSym);
      tl_val_int(&a[TL_EV_SYMOFF], (int64_t)at.symoff);
    }
  }
}

const char *tl_ctf_dbg_func_at(CtfScan *pScan, int64_t pid, int64_t ts, uint64_t addr){
  struct CtfDbg *pDbg = pScan->pDbg;
  TlMapAt m;
  TlBt2Info bt;
  TlSymbolAt at;
  if( pDbg==0 || pScan->pSrc==0 ) return 0;
  if( !tl_symbols_map_at(pDbg->pSyms, pScan->pTrace, pid, ts, addr, &m) || m.eWhy!=TL_SYMFILE_OPEN ) return 0;
  if( tl_srclines_bt2_at(pScan->pSrc, pScan->pTrace, pid, ts, addr, &bt) && bt.zFunc ){
    return bt.funcOff==0 ? bt.zFunc : 0;
  }
  tl_symbols_at(pDbg->pSyms, pScan->pTrace, pid, ts, addr, 0, &at);
  return strcmp(at.zSym, "[unknown]") && at.symoff==0 ? at.zSym : 0;
}
