/*
** unwind.c: user stacks unwound with libdw (readers/model_unwind.h).
**
** One Dwfl per process (the files it maps, each reported to libdw as an
** ELF module at the address it is loaded at: map start - file offset, as
** perf reports it), kept for the next samples of that process; at most
** TL_UNWIND_MAX_PROCS, the one used least recently dropped first. The
** Dwfl is attached once to a thread state whose callbacks read the sample
** being unwound (TlUnwind.pIn): its registers, its stack copy, else the
** bytes of the file mapped at an address. A module whose place or file
** differs from the map a sample finds (a file mapped again elsewhere, an
** exec) drops the process's Dwfl, and the sample starts again on a new one.
**
** libdwfl maps the files it is given. It is never given the file itself
** (cut short under a query, a mapped file raises SIGBUS): it gets a memory
** file holding the bytes the symbols model read of it (by pread, checked
** for changes), with holes where the model read nothing (DWARF but
** .debug_frame), one per file, shared by the processes' Dwfls.
*/
#define _GNU_SOURCE 1
#include "model_unwind.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bytes.h"
#include "dwlib.h"

typedef struct UwProc UwProc;
struct UwProc {
  int64_t pid;
  Dwfl *pDwfl;                    /* NULL: a free slot */
  int bAttached;                  /* dwfl_attach_state done */
  uint64_t iUsed;                 /* clock of the last use */
};

struct TlUnwind {
  TlSymbols *pSyms;
  UwProc aProc[TL_UNWIND_MAX_PROCS];
  uint64_t iClock;
  /* the sample being unwound (what the callbacks read) */
  TlTrace *pTrace;
  const TlUnwindIn *pIn;
  Dwfl *pDwfl;
  uint64_t *aIp; int nIp, nMax;
  int nRead;                      /* memory words read */
  int bRestart;                   /* a module conflicts with the maps */
  uint64_t aLast[TL_UNWIND_NREG]; /* the registers of the last frame */
  uint32_t mLast;                 /* which of them are known */
  int *aMemFd; uint32_t nMemFd;   /* by file number: 1 + its memory file,
                                  ** 0 not made yet, -1 cannot be */
};

/* No separate debug files: only the files the symbols model finds. */
static int uw_find_debuginfo(Dwfl_Module *mod, void **ppUser, const char *zMod, Dwarf_Addr base,
                             const char *zFile, const char *zLink, GElf_Word crc, char **pzOut){
  (void)mod; (void)ppUser; (void)zMod; (void)base; (void)zFile; (void)zLink; (void)crc;
  *pzOut = 0;
  return -1;
}

/* Sections at the addresses their ELF file gives (libdwfl's own rule). */
static int uw_section_address(Dwfl_Module *mod, void **ppUser, const char *zMod, Dwarf_Addr base,
                              const char *zSec, GElf_Word shndx, const GElf_Shdr *pShdr,
                              Dwarf_Addr *pAddr){
  return tl_dw.dwfl_offline_section_address(mod, ppUser, zMod, base, zSec, shndx, pShdr, pAddr);
}

static char *gzDebugPath = 0;

static const Dwfl_Callbacks uwOffline = {
  .find_debuginfo = uw_find_debuginfo,
  .debuginfo_path = &gzDebugPath,
  .section_address = uw_section_address,
};

TlUnwind *tl_unwind_new(TlSymbols *pSyms){
  TlUnwind *u = calloc(1, sizeof(*u));
  if( u ) u->pSyms = pSyms;
  return u;
}

static void proc_drop(UwProc *q){
  if( q->pDwfl ) tl_dw.dwfl_end(q->pDwfl);
  memset(q, 0, sizeof(*q));
}

void tl_unwind_free(TlUnwind *u){
  uint32_t k;
  int i;
  if( u==0 ) return;
  for(i=0; i<TL_UNWIND_MAX_PROCS; i++) proc_drop(&u->aProc[i]);
  for(k=0; k<u->nMemFd; k++) if( u->aMemFd[k]>0 ) close(u->aMemFd[k] - 1);
  free(u->aMemFd);
  free(u);
}

/* The process's slot, its Dwfl begun on first use; NULL when out of memory. */
static UwProc *proc_get(TlUnwind *u, int64_t pid){
  UwProc *q = 0;
  int i;
  for(i=0; i<TL_UNWIND_MAX_PROCS; i++){
    UwProc *x = &u->aProc[i];
    if( x->pDwfl && x->pid==pid ){ q = x; break; }
    if( q==0 || (q->pDwfl && (x->pDwfl==0 || x->iUsed < q->iUsed)) ) q = x;
  }
  if( q->pDwfl==0 || q->pid!=pid ){
    proc_drop(q);
    q->pDwfl = tl_dw.dwfl_begin(&uwOffline);
    if( q->pDwfl==0 ) return 0;
    q->pid = pid;
  }
  q->iUsed = ++u->iClock;
  return q;
}

/* Why a file cannot serve, said once per file and cause. */
static void uw_warn(TlUnwind *u, const TlMapAt *m, const char *zWhy){
  tl_trace_warn(u->pTrace, m->zName, TL_NO_OFFSET, "user stacks stop at its frames: %s", zWhy);
}

/*
** A new descriptor of the memory file of m's file (its bytes as read,
** pages of zeros left as holes), for libdwfl to own; -1 with *pzWhy set
** when it cannot be made.
*/
static int uw_memfd(TlUnwind *u, const TlMapAt *m, const char **pzWhy){
  static const uint8_t aZero[4096];
  size_t i;
  int fd;
  *pzWhy = "out of memory";
  if( m->iFile>=u->nMemFd ){
    uint32_t n = m->iFile + 16, k;
    int *aNew = realloc(u->aMemFd, (size_t)n*sizeof(int));
    if( aNew==0 ) return -1;
    for(k=u->nMemFd; k<n; k++) aNew[k] = 0;
    u->aMemFd = aNew;
    u->nMemFd = n;
  }
  if( u->aMemFd[m->iFile]==0 ){
    fd = m->aFile ? memfd_create("tracelite-unwind", MFD_CLOEXEC) : -1;
    if( fd>=0 && ftruncate(fd, (off_t)m->nFile) ){ close(fd); fd = -1; }
    for(i=0; fd>=0 && i<m->nFile; i+=sizeof(aZero)){
      size_t n = m->nFile - i < sizeof(aZero) ? m->nFile - i : sizeof(aZero);
      if( memcmp(m->aFile + i, aZero, n)==0 ) continue;      /* a hole */
      if( pwrite(fd, m->aFile + i, n, (off_t)i)!=(ssize_t)n ){ close(fd); fd = -1; }
    }
    u->aMemFd[m->iFile] = fd>=0 ? fd + 1 : -1;
  }
  if( u->aMemFd[m->iFile]<0 ){
    *pzWhy = m->aFile ? "cannot make a memory file" : "its bytes are not read";
    return -1;
  }
  fd = dup(u->aMemFd[m->iFile] - 1);
  if( fd<0 ) *pzWhy = "no descriptor";
  return fd;
}

/*
** Make sure a module of the Dwfl holds ip, as the maps say: 1 it does, 0
** no map holds ip, -1 the file mapped there cannot be used (warned), -2
** a module there is another file or at another place (u->bRestart).
*/
static int uw_report(TlUnwind *u, uint64_t ip){
  TlMapAt m;
  Dwfl_Module *mod;
  Dwarf_Addr base, lo;
  char zName[24];
  const char *zHave, *zErr;
  int fd;
  if( !tl_symbols_map_at(u->pSyms, u->pTrace, u->pIn->pid, u->pIn->ts, ip, &m) ) return 0;
  switch( m.eWhy ){
    case TL_SYMFILE_OPEN: break;
    case TL_SYMFILE_MISSING:  uw_warn(u, &m, "the file is not found"); return -1;
    case TL_SYMFILE_BUILD_ID: uw_warn(u, &m, "no file with the trace's build id"); return -1;
    default:                  return -1;      /* [vdso], [heap], //anon: nothing to read */
  }
  base = m.start - m.pgoff;
  snprintf(zName, sizeof(zName), "%u", m.iFile);
  mod = tl_dw.dwfl_addrmodule(u->pDwfl, ip);
  if( mod ){
    zHave = tl_dw.dwfl_module_info(mod, 0, &lo, 0, 0, 0, 0, 0);
    if( zHave && strcmp(zHave, zName)==0 ) return 1;
    u->bRestart = 1;
    return -2;
  }
  fd = uw_memfd(u, &m, &zErr);
  mod = fd<0 ? 0 : tl_dw.dwfl_report_elf(u->pDwfl, zName, m.zPath, fd, base, false);
  if( mod==0 ){
    char zWhy[160];
    snprintf(zWhy, sizeof(zWhy), "libdw cannot read %s: %s", m.zPath, fd<0 ? zErr : tl_dw.dwfl_errmsg(-1));
    uw_warn(u, &m, zWhy);
    return -1;
  }
  if( tl_dw.dwfl_report_end(u->pDwfl, 0, 0) ) return -1;
  if( tl_dw.dwfl_addrmodule(u->pDwfl, ip)!=mod ){
    u->bRestart = 1;                              /* it overlaps another module */
    return -2;
  }
  return 1;
}

/* ---- the thread state's callbacks ------------------------------------ */

static pid_t uw_next_thread(Dwfl *d, void *arg, void **ppThread){
  TlUnwind *u = arg;
  (void)d;
  if( *ppThread ) return 0;
  *ppThread = arg;
  return (pid_t)u->pIn->tid;
}

static bool uw_get_thread(Dwfl *d, pid_t tid, void *arg, void **ppThread){
  (void)d; (void)tid;
  *ppThread = arg;
  return true;
}

/* A word of the sample's stack copy, else of the file mapped at addr. */
static bool uw_memory_read(Dwfl *d, Dwarf_Addr addr, Dwarf_Word *pOut, void *arg){
  TlUnwind *u = arg;
  const TlUnwindIn *in = u->pIn;
  uint64_t sp = in->aReg[TL_UNWIND_REG_SP], v;
  TlBytes b;
  TlMapAt m;
  (void)d;
  if( ++u->nRead > TL_UNWIND_MAX_READS ) return false;
  if( addr>=sp && addr - sp < in->nStack ){
    b = tl_bytes(in->aStack, in->nStack, TL_LE);
    if( tl_bytes_skip(&b, (size_t)(addr - sp)) || tl_bytes_u64(&b, TL_LE, &v) ) return false;
    *pOut = v;
    return true;
  }
  if( !tl_symbols_map_at(u->pSyms, u->pTrace, in->pid, in->ts, addr, &m)
   || m.eWhy!=TL_SYMFILE_OPEN || m.aFile==0 || m.len - (addr - m.start) < 8 ) return false;
  b = tl_bytes(m.aFile, m.nFile, TL_LE);
  if( addr - m.start > UINT64_MAX - m.pgoff ) return false;
  if( addr - m.start + m.pgoff > SIZE_MAX
   || tl_bytes_skip(&b, (size_t)(addr - m.start + m.pgoff)) || tl_bytes_u64(&b, TL_LE, &v) ) return false;
  *pOut = v;
  return true;
}

static bool uw_set_registers(Dwfl_Thread *t, void *arg){
  TlUnwind *u = arg;
  const TlUnwindIn *in = u->pIn;
  int i;
  for(i=0; i<TL_UNWIND_NREG; i++){
    Dwarf_Word w = in->aReg[i];
    if( (in->mReg>>i & 1) && !tl_dw.dwfl_thread_state_registers(t, i, 1, &w) ) return false;
  }
  return true;
}

static const Dwfl_Thread_Callbacks uwThread = {
  .next_thread = uw_next_thread,
  .get_thread = uw_get_thread,
  .memory_read = uw_memory_read,
  .set_initial_registers = uw_set_registers,
};

/*
** One frame: its pc (a caller's: the return address - 1), its module
** reported first. A frame no usable file holds is the last.
*/
static int uw_frame(Dwfl_Frame *st, void *arg){
  TlUnwind *u = arg;
  Dwarf_Addr pc;
  bool bActivation;
  int rc, k;
  if( !tl_dw.dwfl_frame_pc(st, &pc, 0) ) return DWARF_CB_ABORT;
  rc = uw_report(u, pc);
  if( rc==-2 ) return DWARF_CB_ABORT;
  if( !tl_dw.dwfl_frame_pc(st, &pc, &bActivation) ) return DWARF_CB_ABORT;
  if( !bActivation ) pc--;
  u->aIp[u->nIp++] = pc;
  u->mLast = 0;
  for(k=0; k<TL_UNWIND_NREG; k++){
    Dwarf_Word w;
    if( tl_dw.dwfl_frame_reg(st, (unsigned)k, &w)==0 ){ u->aLast[k] = w; u->mLast |= 1u<<k; }
  }
  if( rc!=1 || u->nIp>=u->nMax ) return DWARF_CB_ABORT;
  return DWARF_CB_OK;
}

/*
** Was the return address of the last frame (pc) 0, or a word that cannot
** be read (past the stack copy, which perf reads as 0), though its CFI
** defines it? libdw ends the stack there as it ends it at an undefined
** return address (_start, a thread's start); perf shows the first as one
** more frame at 0 - 1. The CFA is a register plus an offset, the return
** address the word below it (x86_64); anything else: no.
*/
static int uw_ra_is_zero(TlUnwind *u, uint64_t pc){
  Dwfl_Module *mod = tl_dw.dwfl_addrmodule(u->pDwfl, pc);
  Dwarf_Addr bias;
  Dwarf_Op aMem[3], *pOps;
  size_t nOps;
  int k, bZero = 0;
  if( mod==0 ) return 0;
  for(k=0; k<2; k++){
    Dwarf_CFI *pCfi = k==0 ? tl_dw.dwfl_module_dwarf_cfi(mod, &bias) : tl_dw.dwfl_module_eh_cfi(mod, &bias);
    Dwarf_Frame *pFrame = 0;
    Dwarf_Word w;
    if( pCfi==0 || tl_dw.dwarf_cfi_addrframe(pCfi, pc - bias, &pFrame) || pFrame==0 ) continue;
    if( tl_dw.dwarf_frame_register(pFrame, TL_UNWIND_REG_IP, aMem, &pOps, &nOps)==0
     && !(nOps==0 && pOps==aMem)                       /* not undefined */
     && tl_dw.dwarf_frame_cfa(pFrame, &pOps, &nOps)==0 && nOps==1 && pOps[0].atom==DW_OP_bregx
     && pOps[0].number<TL_UNWIND_NREG && (u->mLast>>pOps[0].number & 1) ){
      uint64_t cfa = u->aLast[pOps[0].number] + (uint64_t)(int64_t)pOps[0].number2;
      /* (perf reads a word it cannot find as 0) */
      bZero = !uw_memory_read(u->pDwfl, cfa - 8, &w, u) || w==0;
    }
    free(pFrame);
    return bZero;
  }
  return 0;
}

/* Unwind u->pIn with process q's Dwfl: 0, or -2 to start again. */
static int uw_run(TlUnwind *u, UwProc *q){
  int rc;
  u->pDwfl = q->pDwfl;
  u->nIp = 0;
  u->nRead = 0;
  u->bRestart = 0;
  rc = uw_report(u, u->pIn->aReg[TL_UNWIND_REG_IP]);
  if( rc==-2 ) return -2;
  if( rc!=1 ){
    /* the pc is in no file to unwind from: it is the only frame */
    u->aIp[u->nIp++] = u->pIn->aReg[TL_UNWIND_REG_IP];
    return 0;
  }
  if( !q->bAttached ){
    if( !tl_dw.dwfl_attach_state(q->pDwfl, 0, (pid_t)q->pid, &uwThread, u) ) return 0;
    q->bAttached = 1;
  }
  if( tl_dw.dwfl_getthread_frames(q->pDwfl, (pid_t)u->pIn->tid, uw_frame, u)==0
   && u->nIp>0 && u->nIp<u->nMax && uw_ra_is_zero(u, u->aIp[u->nIp-1]) ){
    u->aIp[u->nIp++] = (uint64_t)0 - 1;          /* the return address was 0 */
  }
  return u->bRestart ? -2 : 0;
}

int tl_unwind_frames(TlUnwind *u, TlTrace *pTrace, const TlUnwindIn *in, uint64_t *aIp, int nMax){
  const uint32_t mNeed = (1u<<TL_UNWIND_REG_SP) | (1u<<TL_UNWIND_REG_IP);
  UwProc *q;
  int k;
  const char *zNoLib;
  if( (in->mReg & mNeed)!=mNeed || nMax<=0 ) return 0;
  if( (zNoLib = tl_dw_load())!=0 ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "user stacks are not unwound: %s", zNoLib);
    return 0;
  }
  if( nMax>TL_UNWIND_MAX_FRAMES ) nMax = TL_UNWIND_MAX_FRAMES;
  u->pTrace = pTrace;
  u->pIn = in;
  u->aIp = aIp;
  u->nMax = nMax;
  for(k=0; k<2; k++){
    q = proc_get(u, in->pid);
    if( q==0 ) return 0;
    if( uw_run(u, q)==0 ) break;
    proc_drop(q);                                 /* its modules are not the maps now */
    u->nIp = 0;
  }
  u->pIn = 0;
  return u->nIp;
}
