/*
** fuzz_ctf_stream.c: libFuzzer target for the CTF stream decoder. The
** metadata is fixed (LTTng-style headers and contexts, and a payload of
** every field class); the input is the stream file. Each input is written
** to a private directory and opened as a trace from there, the path users
** take. Built by `make fuzz` (target ctf-stream); `make check` replays
** the seeds through it (tests/fuzz/replay.c).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ctf_writer.h"
#include "fuzz_drain.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

static const char zMeta[] =
  CTF_META_A_STREAM CTF_META_A_EVENTS
  "event { name = \"all\"; id = 1; stream_id = 0; fields := struct {\n"
  "  integer { size = 3; align = 1; } a;\n"
  "  integer { size = 13; align = 1; signed = true; byte_order = be; } b;\n"
  "  enum : uint8_t { ZERO = 0, ONE = 1, MANY = 2 ... 10 } tag;\n"
  "  variant <tag> { uint32_t ZERO; string ONE; struct { uint8_t n; uint8_t v[n]; } MANY; } var;\n"
  "  floating_point { exp_dig = 11; mant_dig = 53; align = 64; } d;\n"
  "  integer { size = 8; align = 8; encoding = UTF8; } txt[4];\n"
  "  uint8_t len;\n"
  "  struct { uint32_t x; string s; } items[len];\n"
  "}; };\n";

static char zDir[256];

static void remove_dir(void){
  char zPath[512];
  snprintf(zPath, sizeof(zPath), "%s/metadata", zDir);
  unlink(zPath);
  snprintf(zPath, sizeof(zPath), "%s/stream_0", zDir);
  unlink(zPath);
  rmdir(zDir);
}

static int write_file(const char *zName, const void *a, size_t n){
  char zPath[512];
  FILE *f;
  size_t nOut;
  snprintf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
  f = fopen(zPath, "wb");
  if( f==0 ) return 1;
  nOut = n ? fwrite(a, 1, n, f) : 0;
  return fclose(f)!=0 || nOut!=n;
}

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  TlTrace *pTrace = 0;
  TlErr err;
  if( zDir[0]==0 ){
    const char *zBase = getenv("TMPDIR");
    snprintf(zDir, sizeof(zDir), "%s/tlfuzz-ctf.XXXXXX", zBase ? zBase : "/tmp");
    if( mkdtemp(zDir)==0 || write_file("metadata", zMeta, strlen(zMeta)) ){
      zDir[0] = 0;
      return 0;
    }
    atexit(remove_dir);
  }
  if( write_file("stream_0", a, n) ) return 0;
  tl_err_clear(&err);
  if( tl_trace_open(zDir, "format=ctf", &pTrace, &err)==TL_OK ){
    tl_fuzz_drain(pTrace, (int64_t)(n % 64));
    tl_trace_release(pTrace);
  }
  tl_trace_cache_clear();   /* the next input rewrites the same file */
  return 0;
}
