/*
** fuzz_elf.c: libFuzzer target for the ELF readers: the input is an
** instrumented binary or map file as the XRay reader's binary= option
** takes it (xray_instr_map, symbols, demangling), and the same bytes as a
** mapped file whose symbols perf frames are named by (src/elf.c). Built by
** `make fuzz` (target elf); `make check` replays the seeds in
** tests/fuzz/elf/ through it.
*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "elf.h"
#include "xray/xray_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  XrMap m;
  TlElf e;
  TlErr err;
  memset(&m, 0, sizeof(m));
  tl_err_clear(&err);
  if( xray_map_parse(a, n, "fuzz", &m, &err)==TL_OK ){
    int32_t k;
    for(k=0; k<64; k++) (void)xray_map_func(&m, k);
    xray_map_free(&m);
  }
  tl_err_clear(&err);
  memset(&e, 0, sizeof(e));
  if( tl_elf_parse(&e, a, n, "fuzz", &err)==TL_OK ){
    uint32_t k;
    for(k=0; k<e.nSec; k++){
      TlBytes b = tl_elf_sec(&e, k);
      TlElfSym s;
      if( e.aSec[k].type!=TL_ELF_SHT_SYMTAB && e.aSec[k].type!=TL_ELF_SHT_DYNSYM ) continue;
      while( tl_elf_sym_next(&e, &b, &s)==0 ){
        uint64_t va;
        (void)tl_elf_str(&e, e.aSec[k].link, s.nameOff);
        (void)tl_elf_off_to_vaddr(&e, s.value, &va);
      }
    }
    tl_elf_free(&e);
  }
  return 0;
}
