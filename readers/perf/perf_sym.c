/*
** perf_sym.c: perf's records as inputs of the symbols model.
**
** While the file is first walked (perf.c), MMAP and MMAP2 records give the
** maps of each process (address range, file offset, file name, time),
** FORK records each process's parent, and BUILD_ID (the feature, or the
** HEADER_BUILD_ID records of a pipe) and MMAP2 the build ids of the
** files ("[kernel.kallsyms]": the kernel's). The kernel's MMAP record,
** named "[kernel.kallsyms]_text", carries in pgoff where _text was when
** recorded, which relocates kallsyms of another boot. This file takes them out of perf's records and hands them to the
** model (readers/model_symbols.h), which answers what an address is.
*/
#include <string.h>

#include "perf_int.h"

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

/* A FORK, MMAP or MMAP2 record (others are ignored); 0, or TL_ENOMEM. */
int perf_maps_note(TlTrace *pTrace, PerfData *p, const PerfRec *r, int bTs, int64_t ts){
  TlBytes b = r->body;
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  const char *z;
  size_t n, nId;
  const uint8_t *aId;
  int rc;
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
    if( tl_bytes_ptr(&b, 24, &a24) || tl_bytes_skip(&b, 8) ) return TL_OK;
    if( (r->misc & 0x4000) && a24[0]>0 && a24[0]<=20 ){ aId = a24 + 4; nId = a24[0]; }
  }
  if( tl_bytes_cstr(&b, &z, &n) ) return TL_OK;
  if( (r->misc & 7)==1 && n>sizeof(PERF_KERNEL_MAP)-1 && memcmp(z, PERF_KERNEL_MAP, sizeof(PERF_KERNEL_MAP)-1)==0 ){
    /* "[kernel.kallsyms]_text": where _text was (pgoff) when recorded */
    tl_symbols_set_kernel_ref(p->pSyms, z + sizeof(PERF_KERNEL_MAP)-1, n - (sizeof(PERF_KERNEL_MAP)-1), pgoff);
  }
  /* cpumode kernel: a map of every process */
  rc = tl_symbols_add_map(p->pSyms, (r->misc & 7)==1 ? TL_SYMBOLS_EVERY_PID : (int64_t)(int32_t)pid,
                          bTs ? ts : TL_SYMBOLS_NO_TS, addr, len, pgoff, z, n);
  if( rc==TL_DONE ){
    tl_trace_warn(pTrace, 0, r->iOff, "more than %u mmap records: later ones are not used for symbols",
                  TL_SYMBOLS_MAX_MAPS);
    return TL_OK;
  }
  if( rc==TL_OK && aId ) rc = tl_symbols_add_build_id(p->pSyms, z, n, aId, nId);
  return rc;
}
