/*
** perf_info.c: what a perf.data file says about itself (the trace_info
** table), from its header features as `perf report --header-only` prints
** them: HOSTNAME, OSRELEASE, ARCH, VERSION, CMDLINE, CPUDESC, CPUID,
** NRCPUS, TOTAL_MEM under the keys other formats share (hostname,
** os_release, arch, tracer_version, cmdline, ...); the clock from
** CLOCK_DATA (written with `perf record -k`): clock (perf's clockid name),
** clock_wall_ns and clock_ref_ns, the same instant on the wall clock and
** on the recording clock; clock_res_ns from CLOCKID. Without CLOCK_DATA
** the clock is "perf", perf's own (local_clock).
*/
#include "perf_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Features with a shared key, their value as rendered by perf_feat.c. */
static const struct { int id; const char *zKey; } aKey[] = {
  { PF_HOSTNAME, "hostname" }, { PF_OSRELEASE, "os_release" }, { PF_ARCH, "arch" },
  { PF_VERSION, "tracer_version" }, { PF_CMDLINE, "cmdline" }, { PF_CPUDESC, "cpu" },
  { PF_CPUID, "cpuid" }, { PF_NRCPUS, "nr_cpus" }, { PF_TOTAL_MEM, "total_mem" },
  { PF_CLOCKID, "clock_res_ns" },
};

/* perf's names of the clock ids (tools/perf/builtin-record.c clockids[]). */
static const char *clockid_name(uint64_t id){
  switch( id ){
    case 0: return "realtime";
    case 1: return "monotonic";
    case 4: return "monotonic_raw";
    case 7: return "boottime";
    case 11: return "tai";
    default: return 0;
  }
}

/* The unsigned number after "zKey": in the JSON object z, or -1. */
static int64_t json_uint(const char *z, const char *zKey){
  char zPat[40];
  const char *p;
  snprintf(zPat, sizeof(zPat), "\"%s\":", zKey);
  p = strstr(z, zPat);
  if( p==0 ) return -1;
  p += strlen(zPat);
  if( *p<'0' || *p>'9' ) return -1;
  return (int64_t)strtoll(p, 0, 10);
}

/* CLOCK_DATA's object as clock, clock_wall_ns and clock_ref_ns rows. */
static int info_clock_data(const char *z, TlInfoFn xRow, void *pCtx){
  int64_t id = json_uint(z, "clockid");
  int64_t wall = json_uint(z, "wall_clock_ns"), ref = json_uint(z, "clockid_ns");
  const char *zName = id>=0 ? clockid_name((uint64_t)id) : 0;
  char zId[32];
  int rc;
  snprintf(zId, sizeof(zId), "clockid %lld", (long long)id);
  rc = tl_info_text(xRow, pCtx, 0, "clock", zName ? zName : zId, "HEADER_CLOCK_DATA.clockid");
  if( rc==TL_OK && wall>=0 ) rc = tl_info_int(xRow, pCtx, 0, "clock_wall_ns", wall, "HEADER_CLOCK_DATA.wall_clock_ns");
  if( rc==TL_OK && ref>=0 ) rc = tl_info_int(xRow, pCtx, 0, "clock_ref_ns", ref, "HEADER_CLOCK_DATA.clockid_ns");
  return rc;
}

int perf_info(TlTrace *pTrace, TlInfoFn xRow, void *pCtx, TlErr *pErr){
  const PerfData *p = pTrace->pData;
  TlStr s;
  int i, rc, bClock = 0;
  size_t k;
  tl_str_init(&s);
  rc = tl_info_text(xRow, pCtx, 0, "tracer", "perf", "PERFILE2");
  for(i=0; i<p->nFeat && rc==TL_OK; i++){
    const PerfFeat *f = &p->aFeat[i];
    char zSrc[48];
    const char *zKey = 0;
    for(k=0; k<sizeof(aKey)/sizeof(aKey[0]); k++) if( aKey[k].id==f->id ) zKey = aKey[k].zKey;
    if( zKey==0 && f->id!=PF_CLOCK_DATA ) continue;
    tl_str_reset(&s);
    rc = perf_feature_value(pTrace, p, f, &s, pErr);
    if( rc ) break;
    if( s.bErr ){ rc = TL_ENOMEM; break; }
    if( s.n==0 ) continue;
    snprintf(zSrc, sizeof(zSrc), "HEADER_%s", perf_feature_name(f->id));
    if( f->id==PF_CLOCK_DATA ){
      rc = info_clock_data(s.z, xRow, pCtx);
      bClock = 1;
    }else if( f->id==PF_CLOCKID ){
      rc = tl_info_int(xRow, pCtx, 0, zKey, (int64_t)strtoll(s.z, 0, 10), zSrc);
    }else{
      rc = tl_info_text(xRow, pCtx, 0, zKey, s.z, zSrc);
    }
  }
  if( rc==TL_OK && !bClock ) rc = tl_info_text(xRow, pCtx, 0, "clock", "perf", "no HEADER_CLOCK_DATA");
  tl_str_free(&s);
  return rc;
}
