/*
** xray_group.c: xray_calls GROUP BY func_id (TlFilter.bGroupName, no
** column but func_id, name and dur). Every call's dur is kept by function
** first (a sixteenth of max_memory= in memory, the rest in a temporary
** file), on two threads when the log's threads can be shared between them;
** then the rows come function by function, each run of durs one row
** repeated (TlRow.aVary). Their rowids are the calls' own: only when SQLite
** asks for one, a second pass keeps the calls' ids the same way.
*/
#include "xray_rec.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"

/* Write every group's durs in memory to the temporary file, as a block each. */
static int group_spill(TlScan *s){
  size_t k;
  if( s->fdTmp<0 ){
    const char *zDir = getenv("TMPDIR");
    char zPath[4096];
    if( zDir==0 || zDir[0]==0 ) zDir = "/tmp";
    if( snprintf(zPath, sizeof(zPath), "%s/tracelite-XXXXXX", zDir) >= (int)sizeof(zPath) ){
      return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET, "TMPDIR is too long a path");
    }
    s->fdTmp = mkstemp(zPath);
    if( s->fdTmp<0 ){
      return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET,
          "GROUP BY func_id: cannot create a temporary file in %s: %s", zDir, strerror(errno));
    }
    unlink(zPath);
  }
  for(k=0; k<s->nGroup; k++){
    XrGroup *g = &s->aGroup[k];
    size_t nByte = g->n*sizeof(int64_t), nDone = 0;
    if( g->n==0 ) continue;
    if( g->nBlock==g->nBlockAlloc ){
      size_t nNew = g->nBlockAlloc ? g->nBlockAlloc*2 : 8;
      XrBlock *aNew = realloc(g->aBlock, nNew*sizeof(XrBlock));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      g->aBlock = aNew;
      g->nBlockAlloc = nNew;
    }
    while( nDone<nByte ){
      ssize_t w = pwrite(s->fdTmp, (const char*)g->a + nDone, nByte - nDone, (off_t)(s->nTmp + nDone));
      if( w<=0 ){
        return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET,
            "GROUP BY func_id: cannot write the temporary file: %s", w<0 ? strerror(errno) : "no space");
      }
      nDone += (size_t)w;
    }
    g->aBlock[g->nBlock].iOff = s->nTmp;
    g->aBlock[g->nBlock].n = g->n;
    g->nBlock++;
    s->nTmp += nByte;
    /* (freed: the next round's functions may be others) */
    free(g->a);
    g->a = 0;
    g->n = g->nAlloc = 0;
  }
  s->nBuffered = 0;
  return TL_OK;
}

static int group_cmp_func(const void *a, const void *b){
  int32_t x = ((const XrGroup*)a)->funcId, y = ((const XrGroup*)b)->funcId;
  return x<y ? -1 : x>y;
}

/* The index in aGroup of function funcId's group, which is made if new. */
static int group_of(TlScan *s, int32_t funcId, uint32_t *piG){
  uint32_t iG, h = (uint32_t)funcId & (XR_GROUP_HOT-1);
  if( s->aGroupHot[h].iG!=UINT32_MAX && s->aGroupHot[h].funcId==funcId ){
    *piG = s->aGroupHot[h].iG;
    return TL_OK;
  }
  if( !tl_map_get(&s->groups, (uint64_t)(uint32_t)funcId, &iG) ){
    if( s->nGroup==s->nGroupAlloc ){
      size_t nNew = s->nGroupAlloc ? s->nGroupAlloc*2 : 16;
      XrGroup *aNew = realloc(s->aGroup, nNew*sizeof(XrGroup));
      if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      s->aGroup = aNew;
      s->nGroupAlloc = nNew;
    }
    iG = (uint32_t)s->nGroup++;
    memset(&s->aGroup[iG], 0, sizeof(XrGroup));
    s->aGroup[iG].funcId = funcId;
    if( tl_map_put(&s->groups, (uint64_t)(uint32_t)funcId, iG) ){
      return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
  }
  s->aGroupHot[h].funcId = funcId;
  s->aGroupHot[h].iG = iG;
  *piG = iG;
  return TL_OK;
}

/* Add a call's dur to function funcId's group (xray_group_add()'s long way). */
int xray_group_add_slow(TlScan *s, int32_t funcId, int64_t dur){
  uint32_t iG = 0;
  XrGroup *g;
  int rc = group_of(s, funcId, &iG);
  if( rc ) return rc;
  g = &s->aGroup[iG];
  if( g->n==g->nAlloc ){
    size_t nNew = g->nAlloc ? g->nAlloc*2 : 64;
    int64_t *aNew;
    if( (s->nBuffered + nNew - g->nAlloc)*sizeof(int64_t) > s->nGroupMem ){
      /* memory is full: out to the file with all of it */
      rc = group_spill(s);
      if( rc ) return rc;
      nNew = 64;
    }
    aNew = realloc(g->a, nNew*sizeof(int64_t));
    if( aNew==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    s->nBuffered += nNew - g->nAlloc;
    g->a = aNew;
    g->nAlloc = nNew;
  }
  g->a[g->n++] = dur;
  return TL_OK;
}

/*
** Read every call of the scan's buffers into its function's group: its dur,
** or its id under bGroupIds (finished calls straight from the stacks, the
** ones still open at the end through xray_call_next(); ids all through
** xray_call_next(), in the same order).
*/
static int group_collect(TlScan *s){
  const XrCall *c = 0;
  size_t k;
  int rc;
  for(k=0; k<XR_GROUP_HOT; k++) s->aGroupHot[k].iG = UINT32_MAX;
  s->bGroupDirect = !s->bGroupIds;
  while( (rc = xray_call_next(s, &c))==TL_ROW ){
    rc = xray_group_add(s, c->c.fr.funcId, s->bGroupIds ? c->c.fr.id : call_dur(s, c));
    if( rc ) break;
  }
  s->bGroupDirect = 0;
  return rc==TL_DONE ? TL_OK : rc;
}

static void *group_helper_main(void *pArg){
  TlScan *h = pArg;
  h->rcHelper = group_collect(h);
  return 0;
}

/*
** A second scan, h, for half of the log's threads: each thread's buffers go
** to the side with fewer events so far, most events first. The calls of a
** thread depend on its own records only, so each side matches its threads
** as one scan would. TL_OK, or TL_DONE when there is nothing to share (one
** thread) or no memory for it (one scan reads all, as before).
*/
typedef struct XrLoad XrLoad;
struct XrLoad { uint64_t nEvents; uint32_t iThread; };

static int load_cmp_desc(const void *a, const void *b){
  const XrLoad *x = a, *y = b;
  if( x->nEvents!=y->nEvents ) return x->nEvents > y->nEvents ? -1 : 1;
  return x->iThread < y->iThread ? -1 : x->iThread > y->iThread;
}

static int group_split(TlScan *s){
  const XrData *p = s->p;
  const TlIndex *x = &s->pTrace->index;
  uint64_t aLoad[2] = {0, 0};
  XrLoad *aOrder;
  TlMap side;
  TlScan *h;
  size_t k;
  if( p->nThread<2 || x->n<2 ) return TL_DONE;
  aOrder = malloc(p->nThread*sizeof(XrLoad));
  s->aSideOwn = malloc(x->n);
  h = calloc(1, sizeof(*h));
  tl_map_init(&side);
  if( aOrder==0 || s->aSideOwn==0 || h==0 ) goto no_split;
  /* threads by events, most first */
  for(k=0; k<p->nThread; k++){
    aOrder[k].nEvents = p->aThread[k].nEvents;
    aOrder[k].iThread = (uint32_t)k;
  }
  qsort(aOrder, p->nThread, sizeof(XrLoad), load_cmp_desc);
  for(k=0; k<p->nThread; k++){
    const XrThread *t = &p->aThread[aOrder[k].iThread];
    int iSide = aLoad[1] < aLoad[0];
    aLoad[iSide] += t->nEvents;
    if( tl_map_put(&side, t->tid, (uint32_t)iSide) ) goto no_split;
  }
  for(k=0; k<x->n; k++){
    uint32_t v = 0;
    /* (a packet of a thread the log has too many of to list: this side) */
    if( x->a[k].iStream>=0 && !tl_map_get(&side, (uint64_t)x->a[k].iStream, &v) ) v = 0;
    s->aSideOwn[k] = (uint8_t)v;
  }
  tl_map_free(&side);
  free(aOrder);
  xray_scan_init(h, s->pTrace, s->iTable, &s->f);
  s->nGroupMem /= 2;
  h->nGroupMem = s->nGroupMem;
  s->aSide = h->aSide = s->aSideOwn;
  s->iSide = 0;
  h->iSide = 1;
  s->pHelper = h;
  return TL_OK;

 no_split:
  tl_map_free(&side);
  free(aOrder);
  free(h);
  free(s->aSideOwn);
  s->aSideOwn = 0;
  return TL_DONE;
}

/* aOrd: the groups of s and of its helper by func_id, s's first of a pair. */
static int group_order(TlScan *s){
  const TlScan *h = s->pHelper;
  size_t i = 0, j = 0, nH = h ? h->nGroup : 0;
  s->aOrd = malloc((s->nGroup + nH + 1)*sizeof(*s->aOrd));
  if( s->aOrd==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  while( i<s->nGroup || j<nH ){
    if( j>=nH || (i<s->nGroup && s->aGroup[i].funcId<=h->aGroup[j].funcId) ){
      s->aOrd[s->nOrd].pOwner = s;
      s->aOrd[s->nOrd++].iG = i++;
    }else{
      s->aOrd[s->nOrd].pOwner = s->pHelper;
      s->aOrd[s->nOrd++].iG = j++;
    }
  }
  return TL_OK;
}

/*
** Read every call into its function's group, on two threads when the log's
** threads can be shared (group_split()); then the groups by func_id.
*/
static int group_build(TlScan *s){
  pthread_t th;
  int rc, bThread = 0;
  /* a sixteenth of max_memory= (16 MiB by default) in memory */
  s->nGroupMem = (size_t)(tl_trace_max_memory(s->pTrace)/16);
  if( s->nGroupMem > XR_GROUP_MEM ) s->nGroupMem = XR_GROUP_MEM;
  if( group_split(s)==TL_OK ){
    bThread = pthread_create(&th, 0, group_helper_main, s->pHelper)==0;
  }
  rc = group_collect(s);
  if( s->pHelper ){
    TlScan *h = s->pHelper;
    if( bThread ){
      pthread_join(th, 0);
      tl_progress_add(h->nNoted);
    }else{
      h->rcHelper = group_collect(h);       /* (no thread: here, after) */
    }
    if( rc>=0 && h->rcHelper<0 ){
      s->err = h->err;
      rc = h->rcHelper;
    }
    if( rc>=0 && h->nGroup>1 ) qsort(h->aGroup, h->nGroup, sizeof(XrGroup), group_cmp_func);
  }
  if( rc<0 ) return rc;
  s->aRead = malloc(XR_READ_DURS*sizeof(int64_t));
  if( s->aRead==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( s->nGroup>1 ) qsort(s->aGroup, s->nGroup, sizeof(XrGroup), group_cmp_func);
  return group_order(s);
}

/* Read n values at offset iOff of temporary file fd into a. */
static int tmp_read(TlScan *s, int fd, int64_t *a, size_t n, uint64_t iOff){
  size_t nDone = 0;
  while( nDone < n*sizeof(int64_t) ){
    ssize_t r = pread(fd, (char*)a + nDone, n*sizeof(int64_t) - nDone, (off_t)(iOff + nDone));
    if( r<=0 ){
      return tl_err_set(&s->err, TL_EIO, TL_NO_OFFSET, "GROUP BY func_id: cannot read the temporary "
                        "file back: %s", r<0 ? strerror(errno) : "it is shorter than written");
    }
    nDone += (size_t)r;
  }
  return TL_OK;
}

/* The next dur of group g, whose spilled blocks are in file fd (its blocks,
** then its memory): TL_ROW, TL_DONE. */
static int group_next_dur(TlScan *s, const XrGroup *g, int fd, int64_t *pDur){
  for(;;){
    size_t n;
    int rc;
    if( s->bMem ){
      if( s->iRead>=g->n ) return TL_DONE;
      *pDur = g->a[s->iRead++];
      return TL_ROW;
    }
    if( s->iRead<s->nRead ){
      *pDur = s->aRead[s->iRead++];
      return TL_ROW;
    }
    if( s->nReadLeft==0 ){
      if( s->iBlock>=g->nBlock ){
        s->bMem = 1;
        s->iRead = 0;
        continue;
      }
      s->iReadOff = g->aBlock[s->iBlock].iOff;
      s->nReadLeft = g->aBlock[s->iBlock].n;
      s->iBlock++;
    }
    n = s->nReadLeft > XR_READ_DURS ? XR_READ_DURS : (size_t)s->nReadLeft;
    rc = tmp_read(s, fd, s->aRead, n, s->iReadOff);
    if( rc ) return rc;
    s->iReadOff += n*sizeof(int64_t);
    s->nReadLeft -= n;
    s->nRead = n;
    s->iRead = 0;
  }
}

/* xray_calls GROUP BY func_id: the calls function by function. */
int xray_next_call_grouped(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  if( !s->bGroupStarted ){
    int rc;
    s->bGroupStarted = 1;
    rc = group_build(s);
    if( rc ) return rc;
    s->iGroupNamed = SIZE_MAX;
  }
  for(;;){
    const XrGroup *g;
    int64_t d = 0;
    int rc;
    if( s->iGroupOrd>=s->nOrd ) return TL_DONE;
    g = &s->aOrd[s->iGroupOrd].pOwner->aGroup[s->aOrd[s->iGroupOrd].iG];
    rc = group_next_dur(s, g, s->aOrd[s->iGroupOrd].pOwner->fdTmp, &d);
    if( rc<0 ) return rc;
    if( rc==TL_DONE ){
      s->iGroupOrd++;
      s->iGroupDur = 0;
      s->iBlock = 0;
      s->bMem = 0;
      s->nRead = s->iRead = 0;
      s->nReadLeft = 0;
      continue;
    }
    if( d!=XR_DUR_NULL ){
      /* the durs after it up to the next NULL, in the buffer it came from:
      ** one row repeated, dur varying (TlRow.aVary) */
      const int64_t *aBuf = s->bMem ? g->a : s->aRead;
      size_t nBuf = s->bMem ? g->n : s->nRead, i0 = s->iRead - 1;
      while( s->iRead<nBuf && aBuf[s->iRead]!=XR_DUR_NULL ) s->iRead++;
      s->nGroupBatch = (int64_t)(s->iRead - i0);
      if( s->nGroupBatch>1 ){
        pRow->nRepeat = s->nGroupBatch;
        pRow->aVary = aBuf + i0;
        pRow->iVary = TL_XC_DUR;
      }
    }else{
      s->nGroupBatch = 1;
    }
    /* (the rowids: the calls', found only if asked: xray_group_rowid()) */
    s->iGroupPos = s->iGroupDur;
    s->iGroupDur += s->nGroupBatch;
    pRow->iRowid = TL_ROWID_LAZY;
    tl_val_int(&v[TL_XC_FUNC_ID], g->funcId);
    if( tl_col_used(&s->f, TL_XC_NAME) ){
      if( s->iGroupNamed!=s->iGroupOrd ){
        /* (the name of many rows: given to SQLite without a copy each) */
        const XrFunc *fn = xray_map_func(&s->p->map, g->funcId);
        s->iGroupNamed = s->iGroupOrd;
        s->groupName.t = TL_NULL;
        if( fn && fn->zName ) tl_val_text_kept(&s->groupName, fn->zName, strlen(fn->zName));
      }
      v[TL_XC_NAME] = s->groupName;
    }
    if( d!=XR_DUR_NULL ) tl_val_int(&v[TL_XC_DUR], d);
    return TL_ROW;
  }
}


/* ---- rowids of the grouped rows ------------------------------------------ */

/* A scan that keeps ids by function for the buffers scan pLike reads. */
static int ids_scan_new(TlScan *s, const TlScan *pLike, TlScan **ppIds){
  TlScan *t = calloc(1, sizeof(*t));
  *ppIds = t;
  if( t==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  xray_scan_init(t, s->pTrace, s->iTable, &s->f);
  t->nGroupMem = pLike->nGroupMem;
  t->aSide = pLike->aSide;
  t->iSide = pLike->iSide;
  t->bGroupIds = 1;
  return TL_OK;
}

/*
** The second pass: every call's id kept by function, side by side as the
** durs were (s, then its helper's side), so that each group's ids are in
** the order of its durs. Here, on this thread: only rowids wait for it.
*/
static int ids_build(TlScan *s){
  TlScan *t;
  int rc = ids_scan_new(s, s, &s->pIds);
  if( rc==TL_OK && s->pHelper ) rc = ids_scan_new(s, s->pHelper, &s->pIds->pHelper);
  if( rc==TL_OK ){
    s->aIdRead = malloc(XR_READ_DURS*sizeof(int64_t));
    if( s->aIdRead==0 ) rc = tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  for(t=s->pIds; rc==TL_OK && t; t=t->pHelper){
    rc = group_collect(t);
    if( rc<0 ) s->err = t->err;
    else if( t->nGroup>1 ) qsort(t->aGroup, t->nGroup, sizeof(XrGroup), group_cmp_func);
  }
  return rc;
}

/*
** Id iPos of group g of id scan t (its blocks, then its memory): its block
** found onward from the one found last, the ids read a run at a time (the
** rowids are mostly asked in order).
*/
static int ids_get(TlScan *s, const TlScan *t, const XrGroup *g, uint64_t iPos, int64_t *pId){
  uint64_t i;
  if( s->pIdGroup!=g || iPos<s->iIdBase ){
    s->pIdGroup = g;
    s->iIdBlock = 0;
    s->iIdBase = 0;
    s->nIdRead = 0;
  }
  while( s->iIdBlock<g->nBlock && iPos - s->iIdBase >= g->aBlock[s->iIdBlock].n ){
    s->iIdBase += g->aBlock[s->iIdBlock++].n;
    s->nIdRead = 0;
  }
  i = iPos - s->iIdBase;
  if( s->iIdBlock<g->nBlock ){
    const XrBlock *b = &g->aBlock[s->iIdBlock];
    if( i<s->iIdLo || i>=s->iIdLo + s->nIdRead ){
      uint64_t n = b->n - i;
      int rc;
      if( n>XR_READ_DURS ) n = XR_READ_DURS;
      s->nIdRead = 0;
      rc = tmp_read(s, t->fdTmp, s->aIdRead, (size_t)n, b->iOff + i*sizeof(int64_t));
      if( rc ) return rc;
      s->iIdLo = i;
      s->nIdRead = (size_t)n;
    }
    *pId = s->aIdRead[i - s->iIdLo];
    return TL_OK;
  }
  if( i>=g->n ){
    return tl_err_set(&s->err, TL_ECORRUPT, TL_NO_OFFSET,
                      "GROUP BY func_id: the second pass over the log found fewer calls of function %d",
                      (int)g->funcId);
  }
  *pId = g->a[i];
  return TL_OK;
}

/*
** The rowid of repeat iRepeat of the current grouped row: the id of the
** call whose dur it gives (the same position in the same group of the ids
** pass, which is made the first time).
*/
int xray_group_rowid(TlScan *s, int64_t iRepeat, int64_t *piRowid){
  const TlScan *pOwner, *t;
  int32_t funcId;
  size_t lo = 0, hi;
  if( s->err.rc ) return s->err.rc;
  if( iRepeat<0 || iRepeat>=s->nGroupBatch || s->iGroupOrd>=s->nOrd ){
    return tl_err_set(&s->err, TL_EMISUSE, TL_NO_OFFSET, "no grouped row %lld", (long long)iRepeat);
  }
  if( s->pIds==0 ){
    int rc = ids_build(s);
    if( rc ) return rc;
  }
  pOwner = s->aOrd[s->iGroupOrd].pOwner;
  funcId = pOwner->aGroup[s->aOrd[s->iGroupOrd].iG].funcId;
  t = pOwner==s ? s->pIds : s->pIds->pHelper;
  hi = t->nGroup;
  while( lo<hi ){                 /* (t's groups are by func_id) */
    size_t mid = lo + (hi - lo)/2;
    if( t->aGroup[mid].funcId<funcId ) lo = mid + 1;
    else hi = mid;
  }
  if( lo>=t->nGroup || t->aGroup[lo].funcId!=funcId ){
    return tl_err_set(&s->err, TL_ECORRUPT, TL_NO_OFFSET,
                      "GROUP BY func_id: the second pass over the log found no call of function %d",
                      (int)funcId);
  }
  return ids_get(s, t, &t->aGroup[lo], (uint64_t)(s->iGroupPos + iRepeat), piRowid);
}
