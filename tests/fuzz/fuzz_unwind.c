/*
** fuzz_unwind.c: libFuzzer target for the unwinder of --call-graph dwarf
** stacks (src/model/unwind.c): hostile registers, stack copies and CFI.
** Input layout:
**
**   17 x u64le   registers, DWARF order (rip taken as an offset into the
**                file's map, rsp as an offset into a stack area)
**   u16le        n, the bytes of the stack copy (at most what is left)
**   n bytes      the stack copy
**   the rest     an ELF file (its .eh_frame / .debug_frame are the CFI),
**                mapped whole by process 1 at 0x400000
**
** The frames' source lines and inlined functions are then looked up in
** the same file's DWARF. What must hold: no crash, no hang, at most
** TL_UNWIND_MAX_FRAMES frames.
** Built by `make fuzz` (target unwind); `make check` replays the seeds in
** tests/fuzz/unwind/ through it.
*/
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "model_unwind.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

#define FUZZ_BASE  0x400000ull
#define FUZZ_STACK 0x7ff000000000ull

static uint64_t load_le(const uint8_t *a, size_t n){
  uint64_t v = 0;
  size_t i;
  for(i=n; i>0; i--) v = (v<<8) | a[i-1];
  return v;
}

/* The ELF file each input writes, removed at exit. */
static const char *gzFile, *gzDir;
static void remove_files(void){
  if( gzFile ) unlink(gzFile);
  if( gzDir ) rmdir(gzDir);
}

/* An empty pipe-mode perf.data: a trace to hold the lock and the warnings. */
static const uint8_t aEmptyPerf[16] = { 'P','E','R','F','I','L','E','2', 16,0,0,0,0,0,0,0 };

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  static char zDir[256], zFile[300];
  const size_t nHead = TL_UNWIND_NREG*8 + 2;
  TlTrace *pTrace = 0;
  TlErr err;
  TlSymbols *pSyms;
  TlUnwind *u;
  TlUnwindIn in;
  uint64_t aIp[TL_UNWIND_MAX_FRAMES + 1];
  size_t nStack, i;
  FILE *f;
  int nIp;
  if( n<nHead ) return 0;
  if( zDir[0]==0 ){
    const char *zBase = getenv("TMPDIR");
    snprintf(zDir, sizeof(zDir), "%s/tl-fuzz-unwind-%ld", zBase ? zBase : "/tmp", (long)getpid());
    mkdir(zDir, 0700);
    snprintf(zFile, sizeof(zFile), "%s/prog", zDir);
    gzFile = zFile;
    gzDir = zDir;
    atexit(remove_files);
  }
  memset(&in, 0, sizeof(in));
  for(i=0; i<TL_UNWIND_NREG; i++) in.aReg[i] = load_le(a + 8*i, 8);
  in.aReg[TL_UNWIND_REG_IP] = FUZZ_BASE + (in.aReg[TL_UNWIND_REG_IP] & 0xfffff);
  in.aReg[TL_UNWIND_REG_SP] = FUZZ_STACK + (in.aReg[TL_UNWIND_REG_SP] & 0xffff);
  in.mReg = (1u<<TL_UNWIND_NREG) - 1;
  nStack = (size_t)load_le(a + TL_UNWIND_NREG*8, 2);
  if( nStack > n - nHead ) nStack = n - nHead;
  in.aStack = a + nHead;
  in.nStack = nStack;
  in.pid = in.tid = 1;
  in.ts = TL_SYMBOLS_NO_TS;
  f = fopen(zFile, "wb");
  if( f==0 ) return 0;
  fwrite(a + nHead + nStack, 1, n - nHead - nStack, f);
  fclose(f);
  tl_err_clear(&err);
  if( tl_trace_open_mem(aEmptyPerf, sizeof(aEmptyPerf), 0, &pTrace, &err) ) return 0;
  pSyms = tl_symbols_new(zDir, zDir, 0);
  if( pSyms ){
    (void)tl_symbols_add_map(pSyms, 1, TL_SYMBOLS_NO_TS, FUZZ_BASE, 0x100000, 0, "/prog", 5);
    tl_symbols_finish(pSyms);
    u = tl_unwind_new(pSyms);
    if( u ){
      nIp = tl_unwind_frames(u, pTrace, &in, aIp, TL_UNWIND_MAX_FRAMES);
      if( nIp<0 || nIp>TL_UNWIND_MAX_FRAMES ) abort();
      {
        /* the source lines and inlined functions of those frames (DWARF) */
        TlSrclines *pSrc = tl_srclines_new(pSyms);
        const TlSrcFrame *aSrc;
        int k;
        for(k=0; pSrc && k<nIp; k++) (void)tl_srclines_at(pSrc, pTrace, 1, TL_SYMBOLS_NO_TS, aIp[k], &aSrc);
        tl_srclines_free(pSrc);
      }
      /* a second sample over the same Dwfl (the cached modules) */
      in.aReg[TL_UNWIND_REG_IP] ^= 1;
      nIp = tl_unwind_frames(u, pTrace, &in, aIp, TL_UNWIND_MAX_FRAMES);
      if( nIp<0 || nIp>TL_UNWIND_MAX_FRAMES ) abort();
      tl_unwind_free(u);
    }
    tl_symbols_free(pSyms);
  }
  tl_trace_release(pTrace);
  return 0;
}
