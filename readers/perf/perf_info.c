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

/*
** clock=: the shift from the recording clock to the one asked for, from
** CLOCK_DATA (one instant read on both the wall clock and the recording
** clock): to realtime, wall_clock_ns - clockid_ns whatever the recording
** clock; to monotonic, none when it is CLOCK_MONOTONIC (-k
** CLOCK_MONOTONIC). Otherwise a warning and ts as recorded.
*/
int perf_clock_apply(TlTrace *pTrace, const PerfData *p, TlErr *pErr){
  int eClock, i, rc = TL_OK;
  const PerfFeat *f = 0;
  if( tl_opts_clock(&pTrace->opts, &eClock) || eClock==TL_CLOCK_TRACE ) return TL_OK;
  pTrace->bClockDone = 1;
  for(i=0; i<p->nFeat; i++) if( p->aFeat[i].id==PF_CLOCK_DATA ) f = &p->aFeat[i];
  if( f==0 ){
    tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "clock=%s: the perf.data file has no CLOCK_DATA"
                  " (perf record -k CLOCK_MONOTONIC writes it): ts stays on perf's clock",
                  tl_opts_get(&pTrace->opts, "clock"));
    return TL_OK;
  }else{
    TlStr s;
    int64_t id, wall, ref;
    tl_str_init(&s);
    rc = perf_feature_value(pTrace, p, f, &s, pErr);
    if( rc==TL_OK && s.bErr ) rc = TL_ENOMEM;
    id = s.z ? json_uint(s.z, "clockid") : -1;
    wall = s.z ? json_uint(s.z, "wall_clock_ns") : -1;
    ref = s.z ? json_uint(s.z, "clockid_ns") : -1;
    tl_str_free(&s);
    if( rc ) return rc;
    if( eClock==TL_CLOCK_REALTIME && wall>=0 && ref>=0 ){
      pTrace->tsShift = wall - ref;
    }else if( eClock!=TL_CLOCK_MONOTONIC || id!=1 ){
      tl_trace_warn(pTrace, 0, TL_NO_OFFSET, "clock=%s: the perf.data file was recorded on clockid"
                    " %lld and its CLOCK_DATA relates that to the wall clock only: ts stays as recorded",
                    tl_opts_get(&pTrace->opts, "clock"), (long long)id);
    }
  }
  return TL_OK;
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
