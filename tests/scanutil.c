/*
** scanutil.c: a scan through the trace API as sorted text lines, for the
** tests that compare two scans of one trace (tltest.h).
*/
#include "tltest.h"

#include <stdio.h>
#include <string.h>

#include "group.h"
#include "trace.h"

/* "|value" of v appended at z[m..n): an integer, text, or NULL. */
static size_t val_append(char *z, size_t n, size_t m, const TlVal *v){
  if( m>=n ) return m;
  switch( v->t ){
    case TL_NULL: return m + (size_t)snprintf(z+m, n-m, "|NULL");
    case TL_INT:  return m + (size_t)snprintf(z+m, n-m, "|%lld", (long long)v->i);
    case TL_TEXT: return m + (size_t)snprintf(z+m, n-m, "|%.*s", (int)v->n, v->z);
    default:      return m + (size_t)snprintf(z+m, n-m, "|type %d", v->t);
  }
}

/* The rowid of repeat k of the current row of q or, when not NULL, of g. */
static int scan_rowid(TlQuery *q, TlGroup *g, const TlRow *r, int64_t k, int64_t *piRowid){
  return g ? tl_group_rowid(g, k, piRowid) : tl_query_rowid(q, r, k, piRowid);
}

void tl_test_scan_lines(TlTrace *p, int iTable, const TlFilter *f, uint64_t mCols,
                        int bRowid, int iGroupCol, TlScanLines *pOut){
  tl_test_scan_vary(p, iTable, f, mCols, bRowid, iGroupCol, 0, 0, pOut);
}

uint64_t tl_test_scan_vary(TlTrace *p, int iTable, const TlFilter *f, uint64_t mCols, int bRowid,
                           int iGroupCol, uint64_t mVary, uint64_t nVaryCap, TlScanLines *pOut){
  uint64_t nSpilled = 0;
  TlQuery *q = 0;
  TlGroup *g = 0;
  TlErr e;
  TlRow r;
  TlLines seen;                   /* values of iGroupCol met, the last one current */
  int rc, i;
  memset(pOut, 0, sizeof(*pOut));
  memset(&seen, 0, sizeof(seen));
  tl_err_clear(&e);
  if( iGroupCol>=0 && !f->bPlain ){
    /* GROUP BY iGroupCol: the engine's grouped output (no constraint to check) */
    TlFilterCols cols;
    memset(&cols, 0, sizeof(cols));
    cols.iTs = cols.iCpu = cols.iKey = -1;
    assert_int_equal(tl_group_open(p, iTable, TL_MAX_NCOL, f, &cols, (uint64_t)1<<iGroupCol,
                                   &g, &e), TL_OK);
    tl_group_set_vary(g, mVary);
    if( nVaryCap ) tl_group_set_vary_cap(g, nVaryCap);
  }else{
    assert_int_equal(tl_query_open(p, iTable, f, &q, &e), TL_OK);
  }
  memset(&r, 0, sizeof(r));
  while( (rc = g ? tl_group_next(g, &r) : tl_query_next(q, &r))==TL_ROW ){
    int64_t k, n = r.nRepeat>1 ? r.nRepeat : 1;
    if( r.nRepeat>1 ) pOut->nRepeated++;
    if( r.iRowid==TL_ROWID_LAZY ) pOut->nLazy++;
    for(i=0; i<TL_MAX_NCOL; i++){
      if( (mCols>>i & 1) && r.a[i].t==TL_LAZY ) pOut->nLazy++;
    }
    for(k=0; k<n; k++){
      char zRow[2048];
      size_t m = 0;
      int64_t iRowid = 0;
      assert_int_equal(scan_rowid(q, g, &r, k, &iRowid), TL_OK);
      zRow[0] = 0;
      if( bRowid ) m = (size_t)snprintf(zRow, sizeof(zRow), "%lld", (long long)iRowid);
      for(i=0; i<TL_MAX_NCOL; i++){
        TlVal v;
        size_t m0 = m;
        if( !(mCols>>i & 1) ) continue;
        v = r.a[i];
        if( v.t==TL_LAZY ){
          assert_int_equal(tl_query_value(q, k, i, &v), TL_OK);
        }else if( r.aVary && r.iVary==i ){
          tl_val_int(&v, r.aVary[k]);
        }
        m = val_append(zRow, sizeof(zRow), m, &v);
        if( i==iGroupCol && m>m0
         && (seen.n==0 || strcmp(seen.az[seen.n-1], zRow+m0)) ){
          size_t j;
          for(j=0; j<seen.n; j++) if( strcmp(seen.az[j], zRow+m0)==0 ) pOut->bScattered = 1;
          tl_lines_add(&seen, zRow+m0);
        }
      }
      tl_lines_add(&pOut->rows, zRow);
    }
    memset(&r, 0, sizeof(r));
  }
  if( rc<0 ) fail_msg("scan of table %d: %s", iTable, g ? tl_group_err(g)->zMsg : tl_query_err(q)->zMsg);
  assert_int_equal(rc, TL_DONE);
  if( g ) nSpilled = tl_group_spilled(g);
  tl_query_close(q);
  tl_group_close(g);
  tl_lines_free(&seen);
  tl_lines_sort(&pOut->rows);
  return nSpilled;
}

int64_t tl_test_count_rows(TlTrace *p, int iTable, const TlFilter *f){
  TlQuery *q = 0;
  TlErr err;
  TlRow r;
  int64_t n = 0;
  int rc;
  tl_err_clear(&err);
  assert_int_equal(tl_query_open(p, iTable, f, &q, &err), TL_OK);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_query_next(q, &r))==TL_ROW ){
    n += r.nRepeat>1 ? r.nRepeat : 1;
    memset(&r, 0, sizeof(r));
  }
  assert_int_equal(rc, TL_DONE);
  tl_query_close(q);
  return n;
}
