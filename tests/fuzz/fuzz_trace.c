/*
** fuzz_trace.c: libFuzzer target for a reader's whole path: open the input
** as a trace (format TL_FUZZ_FORMAT when defined, else detected), then scan
** every table fully, in file order, in ts order and through a ts window.
** Built by `make fuzz` with clang; tests/fuzz/replay.c drives the same
** function over files without libFuzzer (`make check`).
*/
#include <stddef.h>
#include <stdint.h>

#include "fuzz_drain.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

#ifdef TL_FUZZ_FORMAT
# define FUZZ_OPTIONS "format=" TL_FUZZ_FORMAT
#else
# define FUZZ_OPTIONS 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  TlTrace *pTrace = 0;
  TlErr err;
  tl_err_clear(&err);
  if( tl_trace_open_mem(a, n, FUZZ_OPTIONS, &pTrace, &err) ) return 0;
  tl_fuzz_drain(pTrace, (int64_t)(n/2));
  tl_trace_release(pTrace);
  return 0;
}
