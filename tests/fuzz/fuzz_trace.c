/*
** fuzz_trace.c: libFuzzer target for a reader's whole path: open the input
** as a trace (format TL_FUZZ_FORMAT when defined, else detected), then scan
** every table fully, in file order, in ts order and through a ts window.
** Built by `make fuzz` with clang; tests/fuzz/replay.c drives the same
** function over files without libFuzzer (`make check`).
*/
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

#ifdef TL_FUZZ_FORMAT
# define FUZZ_OPTIONS "format=" TL_FUZZ_FORMAT
#else
# define FUZZ_OPTIONS 0
#endif

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

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  TlTrace *pTrace = 0;
  TlErr err;
  TlFilter f;
  int iTable;
  tl_err_clear(&err);
  if( tl_trace_open_mem(a, n, FUZZ_OPTIONS, &pTrace, &err) ) return 0;
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
      f.bRowid = 1; f.iRowid = (int64_t)(n/2);
      drain(pTrace, iTable, &f);
    }
  }
  tl_trace_release(pTrace);
  return 0;
}
