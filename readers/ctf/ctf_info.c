/*
** ctf_info.c: what a CTF trace says about itself (the trace_info table).
**
** CTF 1.8 (TSDL `env { ... };`, `clock { ... };`) and CTF 2 (the trace
** class's environment, clock classes): every env entry and every clock
** class of each trace below the path, as babeltrace2's
** `-o ctf-metadata` shows them. Entries with a meaning other formats
** share get the shared key (hostname, os_release, os, tracer, domain,
** date, ...), the rest "env.<name>"; each clock class gives clock,
** clock_freq, clock_offset_s, clock_offset (cycles), clock_offset_ns,
** clock_absolute and clock_uuid.
*/
#include "ctf/ctf_int.h"

#include <stdio.h>
#include <string.h>

/* LTTng's env names with a key shared across formats. */
static const char *const aShared[][2] = {
  { "hostname", "hostname" },
  { "kernel_release", "os_release" },
  { "sysname", "os" },
  { "kernel_version", "os_version" },
  { "tracer_name", "tracer" },
  { "domain", "domain" },
  { "trace_creation_datetime", "date" },
  { "procname", "comm" },
  { "vpid", "pid" },
};

/* a, 16 bytes, as the 36 characters of a UUID and a NUL into z. */
static void uuid_text(const uint8_t *a, char *z){
  int i;
  for(i=0; i<16; i++){
    z += sprintf(z, "%02x", a[i]);
    if( i==3 || i==5 || i==7 || i==9 ) *z++ = '-';
  }
  *z = 0;
}

/* The env entry named zKey of m, or NULL. */
static const char *env_value(const TlCtfModel *m, const char *zKey){
  int i;
  for(i=0; i<m->nEnv; i++) if( strcmp(m->azEnvKey[i], zKey)==0 ) return m->azEnvVal[i];
  return 0;
}

/* The env block of one trace. */
static int info_env(const CtfTr *t, TlInfoFn xRow, void *pCtx){
  const TlCtfModel *m = &t->m;
  const char *zMaj = env_value(m, "tracer_major");
  int i, rc = TL_OK;
  size_t k;
  for(i=0; i<m->nEnv && rc==TL_OK; i++){
    const char *zKey = 0;
    char zSrc[160];
    snprintf(zSrc, sizeof(zSrc), "env.%s", m->azEnvKey[i]);
    for(k=0; k<sizeof(aShared)/sizeof(aShared[0]); k++){
      if( strcmp(aShared[k][0], m->azEnvKey[i])==0 ) zKey = aShared[k][1];
    }
    rc = tl_info_text(xRow, pCtx, t->zRel, zKey ? zKey : zSrc, m->azEnvVal[i], zSrc);
  }
  if( rc==TL_OK && zMaj ){
    /* LTTng's version in three entries: one shared tracer_version */
    const char *zMin = env_value(m, "tracer_minor");
    const char *zPatch = env_value(m, "tracer_patchlevel");
    char zVer[128];
    snprintf(zVer, sizeof(zVer), "%s%s%s%s%s", zMaj, zMin ? "." : "", zMin ? zMin : "",
             zPatch ? "." : "", zPatch ? zPatch : "");
    rc = tl_info_text(xRow, pCtx, t->zRel, "tracer_version", zVer,
                      "env.tracer_major, tracer_minor, tracer_patchlevel");
  }
  return rc;
}

/* The clock classes of one trace. */
static int info_clocks(const CtfTr *t, TlInfoFn xRow, void *pCtx){
  const TlCtfModel *m = &t->m;
  int i, rc = TL_OK;
  for(i=0; i<m->nClock && rc==TL_OK; i++){
    const TlCtfClock *c = &m->aClock[i];
    int64_t ns;
    rc = tl_info_text(xRow, pCtx, t->zRel, "clock", c->zName, "clock.name");
    if( rc==TL_OK && c->freq<=INT64_MAX ){
      rc = tl_info_int(xRow, pCtx, t->zRel, "clock_freq", (int64_t)c->freq, "clock.freq");
    }
    if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, t->zRel, "clock_offset_s", c->offsetS, "clock.offset_s");
    if( rc==TL_OK && c->offset<=INT64_MAX ){
      rc = tl_info_int(xRow, pCtx, t->zRel, "clock_offset", (int64_t)c->offset, "clock.offset");
    }
    if( rc==TL_OK && tl_ctf_clock_ns(c->freq, c->offsetS, c->offset, 0, &ns)==0 ){
      rc = tl_info_int(xRow, pCtx, t->zRel, "clock_offset_ns", ns, "clock.offset_s, clock.offset");
    }
    if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, t->zRel, "clock_absolute", c->bAbsolute, "clock.absolute");
    if( rc==TL_OK && c->bUuid ){
      char z[40];
      uuid_text(c->aUuid, z);
      rc = tl_info_text(xRow, pCtx, t->zRel, "clock_uuid", z, "clock.uuid");
    }
  }
  return rc;
}

void tl_ctf_clock_apply(TlTrace *pTrace, CtfData *p){
  int eClock, i, k;
  if( tl_opts_clock(&pTrace->opts, &eClock) || eClock==TL_CLOCK_TRACE ) return;
  pTrace->bClockDone = 1;
  for(i=0; i<p->nTr; i++){
    TlCtfModel *m = &p->aTr[i].m;
    for(k=0; k<m->nClock; k++){
      TlCtfClock *c = &m->aClock[k];
      if( c->zName && strcmp(c->zName, "monotonic")==0 ){
        c->bRaw = eClock==TL_CLOCK_MONOTONIC;
      }else{
        tl_trace_warn(pTrace, p->aTr[i].zRel[0] ? p->aTr[i].zRel : 0, TL_NO_OFFSET,
                      "clock=%s: clock class \"%s\" is not LTTng's monotonic clock:"
                      " its ts stays as the trace gives it", tl_opts_get(&pTrace->opts, "clock"),
                      c->zName ? c->zName : "");
      }
    }
  }
}

int tl_ctf_info(TlTrace *pTrace, TlInfoFn xRow, void *pCtx, TlErr *pErr){
  const CtfData *p = pTrace->pData;
  int i, rc = TL_OK;
  (void)pErr;
  for(i=0; i<p->nTr && rc==TL_OK; i++){
    const CtfTr *t = &p->aTr[i];
    char zVer[32];
    if( !t->bModel ) continue;
    snprintf(zVer, sizeof(zVer), "%d.%d", t->m.major, t->m.minor);
    rc = tl_info_text(xRow, pCtx, t->zRel, "format_version", zVer, "trace.major, trace.minor");
    if( rc==TL_OK && t->m.bUuid ){
      char z[40];
      uuid_text(t->m.aUuid, z);
      rc = tl_info_text(xRow, pCtx, t->zRel, "uuid", z, "trace.uuid");
    }
    if( rc==TL_OK ) rc = info_env(t, xRow, pCtx);
    if( rc==TL_OK ) rc = info_clocks(t, xRow, pCtx);
  }
  return rc;
}
