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

#include "fuzz_drain.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

static const char zMeta[] =
  "/* CTF 1.8 */\n"
  "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
  "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
  "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
  "trace { major = 1; minor = 8; byte_order = le;\n"
  "  packet.header := struct { uint32_t magic; uint32_t stream_id; };\n"
  "};\n"
  "clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1000; offset = 0; };\n"
  "typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_t;\n"
  "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n"
  "stream { id = 0;\n"
  "  packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;\n"
  "    uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"
  "    uint64_t events_discarded; uint32_t cpu_id; };\n"
  "  event.header := struct {\n"
  "    enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
  "    variant <id> {\n"
  "      struct { uint27_clock_t timestamp; } compact;\n"
  "      struct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
  "    } v;\n"
  "  } align(8);\n"
  "  event.context := struct { integer { size = 32; signed = true; align = 8; } _vtid;\n"
  "    integer { size = 32; signed = true; align = 8; } _vpid; };\n"
  "};\n"
  "event { name = \"tick\"; id = 0; stream_id = 0; fields := struct { uint32_t seq; string msg; }; };\n"
  "event { name = \"big\"; id = 40; stream_id = 0; fields := struct { uint64_t value; }; };\n"
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
