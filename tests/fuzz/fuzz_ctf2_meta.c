/*
** fuzz_ctf2_meta.c: libFuzzer target for the CTF 2 metadata reader: the
** input is a metadata file (a JSON text sequence, plain or in metadata
** packets), parsed into the trace model and freed. Built by `make fuzz`
** (target ctf2-meta); `make check` replays the seeds in tests/fuzz/ctf2-meta/
** through it (tests/fuzz/replay.c).
*/
#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf2_meta.h"
#include "ctf/tsdl.h"
#include "ctf/tsdl_parse.h"
#include "str.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  TlCtfModel m;
  TlErr err;
  TlStr text;
  tl_err_clear(&err);
  tl_str_init(&text);
  if( tl_tsdl_text(a, n, &text, &err)==TL_OK && !text.bErr ){
    if( tl_ctf2_parse(text.z ? text.z : "", text.n, &m, &err)==TL_OK ) tl_ctf_model_free(&m);
  }
  tl_str_free(&text);
  return 0;
}
