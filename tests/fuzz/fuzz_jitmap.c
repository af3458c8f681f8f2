/*
** fuzz_jitmap.c: libFuzzer target for the JIT map parser (src/model/
** symbols.c): the input is a /tmp/perf-PID.map file as node
** --perf-basic-prof, the JVM's agents or Python's perf trampoline write
** it. Every line is parsed on its own, then the whole map as the model
** keeps it, whose every symbol must be found at its own start. Built by
** `make fuzz` (target jitmap); `make check` replays the seeds in
** tests/fuzz/jitmap/ through it.
*/
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  const char *z = (const char*)a, *zEnd = z + n;
  size_t nSym = 0, nBad = 0, nLines = 0, nGood = 0;
  while( z<zEnd ){
    const char *zNl = memchr(z, '\n', (size_t)(zEnd - z));
    size_t nLine = (size_t)((zNl ? zNl : zEnd) - z), iName;
    uint64_t start, size;
    if( nLine ) nLines++;
    if( tl_symbols_jit_line(z, nLine, &start, &size, &iName)==0 ){
      if( iName+3>nLine ) abort();              /* a name of 3 bytes or more, inside the line */
      nGood++;
    }
    z += nLine + 1;
  }
  if( tl_symbols_jit_check((const char*)a, n, &nSym, &nBad)==TL_ECORRUPT ) abort();
  if( nSym+nBad>nLines || nSym>nGood ) abort();
  return 0;
}
