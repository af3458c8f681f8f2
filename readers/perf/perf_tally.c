/*
** perf_group.c: grouped output of the perf.data scans: callchain frames
** grouped by symbol (counted first, then one row per symbol repeated).
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#include "map.h"

static int cmp_sym_count(const void *a, const void *b){
  const char *x = ((const struct PerfSymCount*)a)->zSym, *y = ((const struct PerfSymCount*)b)->zSym;
  if( x==0 || y==0 ) return (x!=0) - (y!=0);
  return strcmp(x, y);
}

/*
** callchains grouped by symbol (f.bGroupName): every frame the filter keeps
** is symbolized and counted by its symbol's text (NULL apart); then one row
** per symbol stands for its frames (TlRow.nRepeat).
*/
int perf_next_frame_grouped(TlScan *s, TlRow *pRow){
  TlVal *v = pRow->a;
  if( !s->bSymCounted ){
    TlMap bySym;                  /* symbol text pointer -> index in aSymCount */
    TlVal aTmp[TL_MAX_NCOL];
    TlRow tmp;
    size_t nAlloc = 0, i, j;
    int rc;
    tl_map_init(&bySym);
    tmp.a = aTmp;
    for(;;){
      const char *z;
      uint32_t iSlot;
      int k;
      for(k=0; k<TL_MAX_NCOL; k++) aTmp[k].t = TL_NULL;
      rc = perf_next_frame(s, &tmp);
      if( rc!=TL_ROW ) break;
      z = aTmp[TL_CC_SYMBOL].t==TL_TEXT ? aTmp[TL_CC_SYMBOL].z : 0;
      if( !tl_map_get(&bySym, (uint64_t)(uintptr_t)z, &iSlot) ){
        if( s->nSymCount==nAlloc ){
          size_t nNew = nAlloc ? nAlloc*2 : 256;
          struct PerfSymCount *aNew = realloc(s->aSymCount, nNew*sizeof(*aNew));
          if( aNew==0 ){ rc = TL_ENOMEM; break; }
          s->aSymCount = aNew;
          nAlloc = nNew;
        }
        iSlot = (uint32_t)s->nSymCount++;
        s->aSymCount[iSlot].zSym = z;
        s->aSymCount[iSlot].n = 0;
        if( tl_map_put(&bySym, (uint64_t)(uintptr_t)z, iSlot) ){ rc = TL_ENOMEM; break; }
      }
      s->aSymCount[iSlot].n++;
    }
    tl_map_free(&bySym);
    if( rc==TL_ENOMEM ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    if( rc<0 ) return rc;
    /* symbols of different files may share a name */
    if( s->nSymCount>1 ) qsort(s->aSymCount, s->nSymCount, sizeof(*s->aSymCount), cmp_sym_count);
    for(i=0, j=0; i<s->nSymCount; i++){
      if( j>0 && cmp_sym_count(&s->aSymCount[j-1], &s->aSymCount[i])==0 ){
        s->aSymCount[j-1].n += s->aSymCount[i].n;
      }else{
        s->aSymCount[j++] = s->aSymCount[i];
      }
    }
    s->nSymCount = j;
    s->bSymCounted = 1;
  }
  if( s->iSymCount >= s->nSymCount ) return TL_DONE;
  tl_val_textz(&v[TL_CC_SYMBOL], s->aSymCount[s->iSymCount].zSym);
  if( s->f.bDepth && s->f.depthLo==s->f.depthHi ) tl_val_int(&v[TL_CC_DEPTH], s->f.depthLo);
  pRow->iRowid = TL_ROWID_LAZY;
  pRow->nRepeat = s->aSymCount[s->iSymCount].n;
  s->iSymBase = s->iSymRow;
  s->iSymRow += s->aSymCount[s->iSymCount].n;
  s->iSymCount++;
  return TL_ROW;
}
