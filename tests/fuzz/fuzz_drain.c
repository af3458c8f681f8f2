/*
** fuzz_drain.c: what every fuzz target does with an opened trace: scan
** every table fully, in file order, in ts order, through a ts window with
** a CPU filter, and by rowid.
*/
#include "fuzz_drain.h"

#define FUZZ_MAX_ROWS 200000      /* per scan: a bound, not an expectation */

static void drain(TlTrace *pTrace, int iTable, const TlFilter *f){
  TlQuery *q = 0;
  TlErr err;
  TlRow row;
  int i;
  tl_err_clear(&err);
  if( tl_query_open(pTrace, iTable, f, &q, &err) ) return;
  for(i=0; i<FUZZ_MAX_ROWS; i++){
    if( tl_query_next(q, &row)!=TL_ROW ) break;
  }
  tl_query_close(q);
}

void tl_fuzz_drain(TlTrace *pTrace, int64_t iRowid){
  TlFilter f;
  int iTable;
  for(iTable=0; iTable<TL_TAB_COUNT; iTable++){
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX;
    f.aCpu = 0; f.nCpu = -1;
    f.bRowid = 0; f.iRowid = 0; f.bKey = 0; f.iKey = 0;
    f.bOrdered = 0;
    f.mCols = ~(uint64_t)0;
    drain(pTrace, iTable, &f);
    if( iTable==TL_TAB_EVENTS ){
      int64_t aCpu[2] = { 0, 1 };
      f.bOrdered = (pTrace->mOrdered >> iTable) & 1;
      drain(pTrace, iTable, &f);
      f.tsLo = 1000; f.tsHi = 2000000000;
      f.aCpu = aCpu; f.nCpu = 2;
      drain(pTrace, iTable, &f);
      f.nCpu = -1; f.aCpu = 0; f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX;
      f.bRowid = 1; f.iRowid = iRowid;
      drain(pTrace, iTable, &f);
    }
  }
}
