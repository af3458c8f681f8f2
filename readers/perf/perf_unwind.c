/*
** perf_unwind.c: the user frames of samples recorded with --call-graph
** dwarf: PERF_SAMPLE_REGS_USER (the registers of attr.sample_regs_user,
** one u64 each in the mask's bit order, after the ABI word) and
** PERF_SAMPLE_STACK_USER (a copy of the stack from the user sp, of which
** dyn_size bytes are valid), handed to the unwinder of the model
** (readers/model_unwind.h) in DWARF's register order.
**
** As perf shows such a sample: the kernel's callchain (kernel frames
** only: the user part is not recorded), then the unwound user frames.
** perf_regs x86 indices (arch/x86/include/uapi/asm/perf_regs.h):
**   AX 0, BX 1, CX 2, DX 3, SI 4, DI 5, BP 6, SP 7, IP 8, FLAGS 9,
**   CS..GS 10..15, R8..R15 16..23
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

#include "model_unwind.h"

#define PERF_REGS_ABI_32 1
#define PERF_REGS_ABI_64 2

/* The perf_regs index of each DWARF register, rax..r15, rip. */
static const uint8_t aPerfOfDwarf[TL_UNWIND_NREG] = {
  0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8
};

struct PerfUnwind {
  TlUnwind *pU;
  TlSrclines *pSrc;               /* source lines, made on first use */
  int eArch;                      /* 0 not known yet, 1 x86_64, 2 another */
  int64_t iRowid;                 /* the record aIp is of */
  int bValid;                     /* aIp holds its frames */
  int nIp;
  uint64_t aIp[TL_UNWIND_MAX_FRAMES];
};

void perf_unwind_free(PerfUnwind *w){
  if( w==0 ) return;
  tl_unwind_free(w->pU);
  tl_srclines_free(w->pSrc);
  free(w);
}

/* Was the trace recorded on x86_64 (the ARCH feature; none: taken as yes)? */
static int arch_is_x86_64(TlScan *s){
  int i, bYes = 1;
  for(i=0; i<s->p->nFeat; i++){
    const PerfFeat *f = &s->p->aFeat[i];
    TlStr z;
    TlErr err;
    if( f->id!=PF_ARCH ) continue;
    tl_str_init(&z);
    tl_err_clear(&err);
    if( perf_feature_value(s->pTrace, s->p, f, &z, &err)==0 && z.z ){
      bYes = strcmp(z.z, "x86_64")==0;
    }
    tl_str_free(&z);
  }
  return bYes;
}

/* The sample's user state as the model takes it; 0 if there is none. */
static int unwind_input(TlScan *s, TlUnwindIn *in){
  const PerfSample *x = &s->ri.s;
  const PerfAttr *a = &s->p->aAttr[s->ri.iAttr];
  uint8_t aSlot[64];
  uint64_t k, n = 0;
  int i;
  if( !(x->mHave & PS_REGS_USER) || !(x->mHave & PS_STACK_USER) ) return 0;
  if( x->regsUserAbi==0 ) return 0;               /* no user context: a kernel thread */
  if( x->regsUserAbi!=PERF_REGS_ABI_64 ){
    tl_trace_warn(s->pTrace, 0, TL_NO_OFFSET,
                  "samples with 32-bit user registers: their user stacks are not unwound");
    return 0;
  }
  if( s->pUnwind->eArch==0 ) s->pUnwind->eArch = arch_is_x86_64(s) ? 1 : 2;
  if( s->pUnwind->eArch!=1 ){
    tl_trace_warn(s->pTrace, 0, TL_NO_OFFSET,
                  "user stacks are unwound for x86_64 only: this trace's are not");
    return 0;
  }
  memset(in, 0, sizeof(*in));
  memset(aSlot, 0xff, sizeof(aSlot));
  for(k=0; k<64 && n<x->nRegsUser; k++){
    if( a->regs_user>>k & 1 ) aSlot[k] = (uint8_t)n++;
  }
  for(i=0; i<TL_UNWIND_NREG; i++){
    uint8_t j = aSlot[aPerfOfDwarf[i]];
    TlBytes b = tl_bytes(x->aRegsUser, (size_t)x->nRegsUser*8, s->p->bo);
    if( j==0xff || tl_bytes_skip(&b, (size_t)j*8) || tl_bytes_u64(&b, s->p->bo, &in->aReg[i]) ) continue;
    in->mReg |= 1u<<i;
  }
  if( x->stackDyn==0 || x->aStackUser==0 ){
    /* as perf: no stack copied (an exec, a fault on the stack), no user frame */
    tl_trace_warn(s->pTrace, 0, TL_NO_OFFSET,
                  "samples without a copy of the user stack: their user frames are not known");
    return 0;
  }
  in->aStack = x->aStackUser;
  in->nStack = (size_t)(x->stackDyn < x->stackSize ? x->stackDyn : x->stackSize);
  in->pid = s->ri.bTid ? s->ri.pid : -1;
  in->tid = s->ri.bTid ? s->ri.tid : -1;
  in->ts = s->ri.bTs ? s->ri.ts : TL_SYMBOLS_NO_TS;
  return 1;
}

/* The scan's unwinding state, made on first use; NULL when out of memory. */
static PerfUnwind *unwind_state(TlScan *s){
  PerfUnwind *w = s->pUnwind;
  if( w==0 ){
    w = s->pUnwind = calloc(1, sizeof(*w));
    if( w ) w->pU = tl_unwind_new(s->p->pSyms);
    if( w==0 || w->pU==0 ) return 0;
  }
  return w;
}

int perf_unwind_srclines(TlScan *s, uint64_t ip, const TlSrcFrame **paOut){
  PerfUnwind *w = unwind_state(s);
  *paOut = 0;
  if( w==0 ) return 0;
  if( w->pSrc==0 && (w->pSrc = tl_srclines_new(s->p->pSyms))==0 ) return 0;
  return tl_srclines_at(w->pSrc, s->pTrace, s->ri.bTid ? s->ri.pid : -1,
                        s->ri.bTs ? s->ri.ts : TL_SYMBOLS_NO_TS, ip, paOut);
}

const char *perf_src_func(const TlSrcFrame *a, int k){
  return a[k].zFunc;
}

int perf_unwind_frames(TlScan *s, const uint64_t **paIp){
  PerfUnwind *w;
  TlUnwindIn in;
  *paIp = 0;
  if( s->r.type!=PERF_SAMPLE || !s->ri.bSample
   || (s->ri.s.mHave & (PS_REGS_USER|PS_STACK_USER))!=(PS_REGS_USER|PS_STACK_USER) ) return 0;
  if( (w = unwind_state(s))==0 ) return 0;        /* (out of memory: the kernel frames alone) */
  if( !w->bValid || w->iRowid!=s->r.iRowid ){
    w->nIp = unwind_input(s, &in) ? tl_unwind_frames(w->pU, s->pTrace, &in, w->aIp, TL_UNWIND_MAX_FRAMES) : 0;
    w->iRowid = s->r.iRowid;
    w->bValid = 1;
  }
  *paIp = w->aIp;
  return w->nIp;
}
