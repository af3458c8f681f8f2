/*
** perf_sym.c: perf's records as inputs of the symbols model.
**
** While the file is first walked (perf.c), MMAP and MMAP2 records give the
** maps of each process (address range, file offset, file name, time),
** FORK records each process's parent, and BUILD_ID (the feature, or the
** HEADER_BUILD_ID records of a pipe) and MMAP2 the build ids of the
** files ("[kernel.kallsyms]": the kernel's). The kernel's MMAP record,
** named "[kernel.kallsyms]_text", carries in pgoff where _text was when
** recorded, which relocates kallsyms of another boot. A process's
** anonymous executable memory (JIT code) is named, as perf names it, by
** the process's JIT map, /tmp/perf-PID.map, which the model reads. This file takes them out of perf's records and hands them to the
** model (readers/model_symbols.h), which answers what an address is.
*/
#include <stdio.h>
#include <string.h>

#include "perf_scan.h"

#define PERF_KERNEL_MAP "[kernel.kallsyms]"   /* the kernel's map is this name and its reference symbol */

/* The trace's symbols model, from its options; TL_OK or TL_ENOMEM. */
int perf_sym_init(TlTrace *pTrace, PerfData *p){
  p->pSyms = tl_symbols_new(tl_opts_get(&pTrace->opts, "symfs"), tl_opts_get(&pTrace->opts, "buildid_dir"),
                            tl_opts_get(&pTrace->opts, "kallsyms"));
  return p->pSyms ? TL_OK : TL_ENOMEM;
}

/* Free the model (NULL-safe, twice too). */
void perf_sym_free(PerfData *p){
  tl_symbols_free(p->pSyms);
  p->pSyms = 0;
}

/*
** The query that opens the trace names kernel addresses (the symbols of
** callchain frames or of samples, the symbols table) and some event may
** have them (not every attr excludes the kernel): the model reads kallsyms
** meanwhile, on a thread of its own, while the walk builds the index.
*/
void perf_sym_prefetch(const TlTrace *pTrace, PerfData *p){
  uint64_t m = pTrace->mOpenCols;
  int i;
  switch( pTrace->iOpenTable ){
    case TL_TAB_CALLCHAINS:
      if( !(m & (((uint64_t)1<<TL_CC_SYMBOL) | ((uint64_t)1<<TL_CC_DSO))) ) return;
      break;
    case TL_TAB_EVENTS:
      if( !(m & (PERF_COLS_IP | ((uint64_t)1<<TL_EV_STACK))) ) return;
      break;
    case TL_TAB_SYMBOLS:
      break;
    default:
      return;
  }
  for(i=0; i<p->nAttr && (p->aAttr[i].flags & PA_EXCLUDE_KERNEL); i++){}
  if( i<p->nAttr ) tl_symbols_kernel_prefetch(p->pSyms);
}

/* The walk has ended: no more inputs. */
void perf_maps_finish(PerfData *p){
  tl_symbols_finish(p->pSyms);
}

/* The next row of the symbols table (the model's); TL_ROW or TL_DONE. */
int perf_symbols_next(TlTrace *pTrace, const PerfData *p, size_t *piFile, size_t *piSym, TlRow *pRow){
  return tl_symbols_next_row(p->pSyms, pTrace, piFile, piSym, pRow);
}

/*
** Build ids the trace records for its files: one build_id_event's body
** (pid, build_id[20] with its size in byte 20 when misc has 0x8000, 3
** reserved, the file name), as HEADER_BUILD_ID records carry them; 0, or
** TL_ENOMEM.
*/
int perf_buildid_entry(PerfData *p, uint16_t misc, TlBytes e){
  PerfBuildId id;
  if( perf_buildid_parse(misc, e, &id) ) return TL_OK;   /* cut short: skipped */
  return tl_symbols_add_build_id(p->pSyms, id.zName, id.nName, id.aId, (size_t)id.nId);
}

/*
** Is z[0..n), mapped with these prot and flags, memory perf names by the
** process's JIT map (map__new)? Anonymous memory ("//anon", "/dev/zero",
** "/anon_hugepage", MAP_HUGETLB) or memory without a file ("[stack...",
** "/SYSV...", "[heap]"), executable.
*/
static int perf_jit_memory(const char *z, size_t n, int bExec, uint32_t flags){
  static const char *const azPrefix[] = { "/dev/zero", "/anon_hugepage", "[stack", "/SYSV" };
  size_t i;
  if( !bExec ) return 0;
  if( (flags & 0x40000) || (n==6 && memcmp(z, "//anon", 6)==0) || (n==6 && memcmp(z, "[heap]", 6)==0) ) return 1;
  for(i=0; i<sizeof(azPrefix)/sizeof(azPrefix[0]); i++){
    size_t k = strlen(azPrefix[i]);
    if( n>=k && memcmp(z, azPrefix[i], k)==0 ) return 1;
  }
  return 0;
}

/* A FORK, MMAP or MMAP2 record (others are ignored); 0, or TL_ENOMEM. */
int perf_maps_note(TlTrace *pTrace, PerfData *p, const PerfRec *r, int bTs, int64_t ts){
  TlBytes b = r->body;
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  const char *z;
  size_t n, nId;
  const uint8_t *aId;
  char zJit[40];
  uint32_t prot = 0, flags = 0;
  int rc, bExec;
  if( r->type==PERF_FORK ){
    uint32_t ppid;
    if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid) ) return TL_OK;
    return tl_symbols_add_parent(p->pSyms, (int32_t)pid, (int32_t)ppid);
  }
  if( r->type!=PERF_MMAP && r->type!=PERF_MMAP2 ) return TL_OK;
  if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &tid) || tl_bytes_u64e(&b, &addr)
   || tl_bytes_u64e(&b, &len) || tl_bytes_u64e(&b, &pgoff) ) return TL_OK;
  aId = 0;
  nId = 0;
  if( r->type==PERF_MMAP2 ){
    /* dev/ino, or (misc 0x4000) the build id: size, 3 reserved, 20 bytes; prot, flags */
    const uint8_t *a24;
    if( tl_bytes_ptr(&b, 24, &a24) || tl_bytes_u32e(&b, &prot) || tl_bytes_u32e(&b, &flags) ) return TL_OK;
    if( (r->misc & 0x4000) && a24[0]>0 && a24[0]<=20 ){ aId = a24 + 4; nId = a24[0]; }
  }
  if( tl_bytes_cstr(&b, &z, &n) ) return TL_OK;
  /* MMAP: executable unless PERF_RECORD_MISC_MMAP_DATA; MMAP2: PROT_EXEC */
  bExec = r->type==PERF_MMAP ? !(r->misc & 0x2000) : (prot & 4)!=0;
  if( (r->misc & 7)!=1 && perf_jit_memory(z, n, bExec, flags) ){
    snprintf(zJit, sizeof(zJit), "/tmp/perf-%d.map", (int32_t)pid);
    z = zJit;
    n = strlen(zJit);
  }
  if( (r->misc & 7)==1 && n>sizeof(PERF_KERNEL_MAP)-1 && memcmp(z, PERF_KERNEL_MAP, sizeof(PERF_KERNEL_MAP)-1)==0 ){
    /* "[kernel.kallsyms]_text": where _text was (pgoff) when recorded */
    tl_symbols_set_kernel_ref(p->pSyms, z + sizeof(PERF_KERNEL_MAP)-1, n - (sizeof(PERF_KERNEL_MAP)-1), pgoff);
  }
  /* cpumode kernel: a map of every process */
  rc = tl_symbols_add_map(p->pSyms, (r->misc & 7)==1 ? TL_SYMBOLS_EVERY_PID : (int64_t)(int32_t)pid,
                          bTs ? ts : TL_SYMBOLS_NO_TS, addr, len, pgoff, z, n);
  if( rc==TL_DONE ){
    perf_warn_at(pTrace, p, r->iOff, "more than %u mmap records: later ones are not used for symbols",
                  TL_SYMBOLS_MAX_MAPS);
    return TL_OK;
  }
  if( rc==TL_OK && aId ) rc = tl_symbols_add_build_id(p->pSyms, z, n, aId, nId);
  return rc;
}
