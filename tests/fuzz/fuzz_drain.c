/*
** fuzz_drain.c: what every fuzz target does with an opened trace: scan
** every table fully, in file order, in ts order, through a ts window with
** a CPU filter, and by rowid; then the shapes the readers answer from
** their index or grouped (no column, a ts window over ts alone, grouping
** by name, func_id or cpu), asking for the rowids and per-repeat values
** of repeated rows.
*/
#include "fuzz_drain.h"

#include <string.h>

#define FUZZ_MAX_ROWS 200000      /* per scan: a bound, not an expectation */

static void drain(TlTrace *pTrace, int iTable, const TlFilter *f){
  TlQuery *q = 0;
  TlErr err;
  TlRow row;
  int i;
  tl_err_clear(&err);
  if( tl_query_open(pTrace, iTable, f, &q, &err) ) return;
  for(i=0; i<FUZZ_MAX_ROWS; i++){
    int64_t iRowid;
    int k;
    if( tl_query_next(q, &row)!=TL_ROW ) break;
    /* a repeated row's first and last repeats, as SQLite may ask for them */
    for(k=0; k<2; k++){
      int64_t iRepeat = k==0 ? 0 : (row.nRepeat>1 ? row.nRepeat-1 : 0);
      int j;
      if( tl_query_rowid(q, &row, iRepeat, &iRowid)<0 ) break;
      for(j=0; j<TL_MAX_NCOL; j++){
        TlVal v;
        if( row.a[j].t==TL_LAZY && tl_query_value(q, iRepeat, j, &v)<0 ) break;
      }
    }
  }
  tl_query_close(q);
}

static void filter_init(TlFilter *f){
  memset(f, 0, sizeof(*f));
  f->tsLo = TL_TS_MIN; f->tsHi = TL_TS_MAX;
  f->nCpu = -1;
  f->mCols = ~(uint64_t)0;
}

void tl_fuzz_drain(TlTrace *pTrace, int64_t iRowid){
  TlFilter f;
  int iTable;
  for(iTable=0; iTable<TL_TAB_COUNT; iTable++){
    filter_init(&f);
    drain(pTrace, iTable, &f);
    if( iTable==TL_TAB_EVENTS ){
      int64_t aCpu[2] = { 0, 1 };
      f.bOrdered = (pTrace->mOrdered >> iTable) & 1;
      drain(pTrace, iTable, &f);
      f.tsLo = 1000; f.tsHi = 2000000000;
      f.aCpu = aCpu; f.nCpu = 2;
      drain(pTrace, iTable, &f);
      filter_init(&f);
      f.bRowid = 1; f.iRowid = iRowid;
      drain(pTrace, iTable, &f);
      /* count(*), also SAMPLE rows only; a window over ts alone */
      filter_init(&f);
      f.mCols = 0;
      drain(pTrace, iTable, &f);
      f.zType = "SAMPLE";
      f.mCols = (uint64_t)1<<TL_EV_TYPE;
      drain(pTrace, iTable, &f);
      filter_init(&f);
      f.tsLo = 1000; f.tsHi = 2000000000;
      f.mCols = ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_TS_RAW);
      drain(pTrace, iTable, &f);
      /* grouped by name, by cpu (with the columns a run compares) */
      filter_init(&f);
      f.mCols = (uint64_t)1<<TL_EV_NAME;
      f.bGroupName = (pTrace->pReader->mGroupName >> iTable) & 1;
      drain(pTrace, iTable, &f);
      filter_init(&f);
      f.mCols = ((uint64_t)1<<TL_EV_CPU) | ((uint64_t)1<<TL_EV_VALUE);
      f.bGroupCpu = (pTrace->mGroupCpu >> iTable) & 1;
      drain(pTrace, iTable, &f);
    }
    if( iTable==TL_TAB_XRAY_CALLS && ((pTrace->pReader->mGroupName >> iTable) & 1) ){
      /* GROUP BY func_id (a small max_memory= spills to the file) */
      filter_init(&f);
      f.mCols = ((uint64_t)1<<TL_XC_FUNC_ID) | ((uint64_t)1<<TL_XC_DUR);
      f.bGroupName = 1;
      drain(pTrace, iTable, &f);
    }
  }
}
