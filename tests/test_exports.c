/*
** test_exports.c: what a trace says about itself and how it leaves:
** - trace_info against the reference tools' views of the same traces:
**   `babeltrace2 -o ctf-metadata` (CTF env and clock blocks), `perf report
**   --header-only` (perf's header), `llvm-xray convert -output-format=yaml`
**   (the XRay file header), and for CPEL the file header's bytes as its
**   format defines them;
** - clock=: one program traced by perf and LTTng-UST at once
**   (testdata/clock/), against perf script's and babeltrace2's times;
** - the Chrome export's CTF spans, and the flamegraph() aggregate.
*/
#include "tltest.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"

#define TD TL_TESTDATA_DIR "/"

/* The value of key zKey (and trace zTrace, when not NULL) in trace_info(zPath), malloc'd, or NULL. */
static char *info(sqlite3 *db, const char *zPath, const char *zTrace, const char *zKey){
  if( zTrace ){
    return tl_test_sql_text(db, "SELECT group_concat(value, ',') FROM trace_info(%Q)"
                            " WHERE key = %Q AND trace = %Q", zPath, zKey, zTrace);
  }
  return tl_test_sql_text(db, "SELECT group_concat(value, ',') FROM trace_info(%Q) WHERE key = %Q",
                          zPath, zKey);
}

static void assert_info(sqlite3 *db, const char *zPath, const char *zTrace, const char *zKey,
                        const char *zWant){
  char *z = info(db, zPath, zTrace, zKey);
  if( z==0 || strcmp(z, zWant) ) fail_msg("%s %s: got %s, want %s", zPath, zKey, z ? z : "NULL", zWant);
  free(z);
}

/* ---- CTF: babeltrace2 -o ctf-metadata ------------------------------------ */

/*
** Every `key = value;` line of the env and clock blocks of the metadata
** text zMeta (one or more traces, in the order of zTraces, ';'-separated
** relative paths) is in trace_info: env entries under their source
** "env.<key>", the clock's name, freq, offset and offset_s.
*/
static void check_ctf_metadata(const char *zTrace, const char *zMeta, const char *const *azRel,
                               int nRel){
  sqlite3 *db = tl_test_db();
  char *z = tl_test_read_file(zMeta, 0);
  char *zLine, *zSave = 0;
  int iRel = -1, bEnv = 0, bClock = 0, nEnv = 0, nClock = 0;
  assert_non_null(z);
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    char zKey[128], zVal[512];
    size_t n;
    if( strncmp(zLine, "# babeltrace2 ", 14)==0 ){ iRel++; continue; }
    if( strcmp(zLine, "env {")==0 ){ bEnv = 1; continue; }
    if( strcmp(zLine, "clock {")==0 ){ bClock = 1; continue; }
    if( strcmp(zLine, "};")==0 ){ bEnv = bClock = 0; continue; }
    if( !(bEnv || bClock) || sscanf(zLine, " %127s = %511[^;];", zKey, zVal)!=2 ) continue;
    n = strlen(zVal);
    if( n>=2 && zVal[0]=='"' ){ memmove(zVal, zVal+1, n-2); zVal[n-2] = 0; }
    assert_true(iRel>=0 && iRel<nRel);
    if( bEnv ){
      char *zGot = tl_test_sql_text(db, "SELECT value FROM trace_info(%Q)"
                                    " WHERE source = 'env.' || %Q AND trace = %Q",
                                    zTrace, zKey, azRel[iRel]);
      if( zGot==0 || strcmp(zGot, zVal) ) fail_msg("env %s: got %s, want %s", zKey, zGot, zVal);
      free(zGot);
      nEnv++;
    }else{
      static const char *const aMap[][2] = {
        { "name", "clock" }, { "freq", "clock_freq" }, { "offset", "clock_offset" },
        { "offset_s", "clock_offset_s" },
      };
      size_t k;
      for(k=0; k<sizeof(aMap)/sizeof(aMap[0]); k++){
        if( strcmp(zKey, aMap[k][0])==0 ){ assert_info(db, zTrace, azRel[iRel], aMap[k][1], zVal); nClock++; }
      }
    }
  }
  assert_int_equal(iRel, nRel-1);
  assert_true(nEnv>=10*nRel);
  assert_true(nClock>=3*nRel);
  free(z);
  tl_test_db_close(db);
}

static void trace_info_ctf_equals_babeltrace2_metadata(void **state){
  static const char *const azTypes[] = { "ust/uid/0/64-bit" };
  static const char *const azPid[] = { "ust/pid/tl_app-12451-20261122-153818",
                                       "ust/pid/tl_app-12456-20261122-153818" };
  sqlite3 *db = tl_test_db();
  (void)state;
  check_ctf_metadata(TD "ctf/ust-types", TD "ctf/ust-types.metadata.txt", azTypes, 1);
  check_ctf_metadata(TD "ctf/ust-pid", TD "ctf/ust-pid.metadata.txt", azPid, 2);
  /* the shared keys: LTTng's names mapped */
  assert_info(db, TD "ctf/ust-types", 0, "hostname", "vm");
  assert_info(db, TD "ctf/ust-types", 0, "tracer", "lttng-ust");
  assert_info(db, TD "ctf/ust-types", 0, "clock", "monotonic");
  assert_info(db, TD "ctf/ust-pid", azPid[0], "tracer_version", "2.13.5");
  assert_info(db, TD "ctf/ust-pid", azPid[1], "pid", "12456");
  tl_test_db_close(db);
}

/* ---- perf: perf report --header-only ------------------------------------- */

/*
** The text after "# zLabel : " (or "# zLabel: ", as perf prints its clock
** lines) in a header file (malloc'd, trailing spaces cut).
*/
static char *header_value(const char *zPath, const char *zLabel){
  char *z = tl_test_read_file(zPath, 0);
  char *zLine, *zSave = 0, *zOut = 0;
  char zPre[128], zPre2[128];
  assert_non_null(z);
  snprintf(zPre, sizeof(zPre), "# %s : ", zLabel);
  snprintf(zPre2, sizeof(zPre2), "# %s: ", zLabel);
  for(zLine=strtok_r(z, "\n", &zSave); zLine && !zOut; zLine=strtok_r(0, "\n", &zSave)){
    size_t nPre = strncmp(zLine, zPre, strlen(zPre))==0 ? strlen(zPre)
                : strncmp(zLine, zPre2, strlen(zPre2))==0 ? strlen(zPre2) : 0;
    if( nPre ){
      size_t n;
      zOut = strdup(zLine + nPre);
      n = strlen(zOut);
      while( n>0 && zOut[n-1]==' ' ) zOut[--n] = 0;
    }
  }
  free(z);
  assert_non_null(zOut);
  return zOut;
}

static void trace_info_perf_equals_perf_header(void **state){
  static const char *const az[] = { "clock", "sched", "multi" };
  static const char *const aLabel[][2] = {
    { "hostname", "hostname" }, { "os release", "os_release" }, { "perf version", "tracer_version" },
    { "arch", "arch" }, { "cmdline", "cmdline" }, { "cpudesc", "cpu" },
  };
  sqlite3 *db = tl_test_db();
  size_t i, k;
  (void)state;
  for(i=0; i<sizeof(az)/sizeof(az[0]); i++){
    char zData[256], zHdr[256];
    snprintf(zData, sizeof(zData), TD "perf/%s.data", az[i]);
    snprintf(zHdr, sizeof(zHdr), TD "perf/%s.header.txt", az[i]);
    for(k=0; k<sizeof(aLabel)/sizeof(aLabel[0]); k++){
      char *zWant = header_value(zHdr, aLabel[k][0]);
      assert_info(db, zData, 0, aLabel[k][1], zWant);
      free(zWant);
    }
    assert_info(db, zData, 0, "tracer", "perf");
  }
  /* -k CLOCK_MONOTONIC: "# clockid: monotonic (1)", "# reference time: ...
  ** = 1795760417.348884 (TOD) = 8422.685534257 (monotonic)" */
  {
    char *zRef = header_value(TD "perf/clock.header.txt", "reference time");
    char *zWall = strstr(zRef, " = "), *zMono;
    char zWant[64];
    long long s, us, ns;
    assert_non_null(zWall);
    assert_int_equal(sscanf(zWall, " = %lld.%lld (TOD)", &s, &us), 2);
    snprintf(zWant, sizeof(zWant), "%lld", s*1000000000LL + us*1000);
    assert_info(db, TD "perf/clock.data", 0, "clock_wall_ns", zWant);
    zMono = strstr(zWall+3, " = ");
    assert_non_null(zMono);
    assert_int_equal(sscanf(zMono, " = %lld.%lld (monotonic)", &s, &ns), 2);
    snprintf(zWant, sizeof(zWant), "%lld", s*1000000000LL + ns);
    assert_info(db, TD "perf/clock.data", 0, "clock_ref_ns", zWant);
    free(zRef);
    zRef = header_value(TD "perf/clock.header.txt", "clockid");
    assert_string_equal(zRef, "monotonic (1)");
    free(zRef);
    assert_info(db, TD "perf/clock.data", 0, "clock", "monotonic");
    assert_info(db, TD "perf/sched.data", 0, "clock", "perf");
  }
  tl_test_db_close(db);
}

/* ---- XRay: llvm-xray convert -output-format=yaml's header ---------------- */

static void trace_info_xray_equals_llvm_xray_header(void **state){
  static const char *const az[] = { "fdr", "basic", "fdr-O2", "basic-default" };
  static const char *const aKey[][2] = {
    { "version", "format_version" }, { "cycle-frequency", "clock_freq" },
    { "constant-tsc", "constant_tsc" }, { "nonstop-tsc", "nonstop_tsc" }, { "type", "mode" },
  };
  sqlite3 *db = tl_test_db();
  size_t i, k;
  (void)state;
  for(i=0; i<sizeof(az)/sizeof(az[0]); i++){
    char zLog[256], zYaml[256];
    char *z, *zLine, *zSave = 0;
    int n = 0;
    snprintf(zLog, sizeof(zLog), TD "xray/%s.xray", az[i]);
    snprintf(zYaml, sizeof(zYaml), TD "xray/%s.yaml", az[i]);
    z = tl_test_read_file(zYaml, 0);
    assert_non_null(z);
    for(zLine=strtok_r(z, "\n", &zSave); zLine && strcmp(zLine, "records:"); zLine=strtok_r(0, "\n", &zSave)){
      char zKey[64], zVal[64];
      if( sscanf(zLine, " %63[^:]: %63s", zKey, zVal)!=2 ) continue;
      for(k=0; k<sizeof(aKey)/sizeof(aKey[0]); k++){
        if( strcmp(zKey, aKey[k][0]) ) continue;
        if( strcmp(zVal, "true")==0 ) strcpy(zVal, "1");
        if( strcmp(zVal, "false")==0 ) strcpy(zVal, "0");
        /* type: 0 basic (naive) logging, 1 flight data recorder */
        if( k==4 ) strcpy(zVal, strcmp(zVal, "0")==0 ? "basic" : "fdr");
        assert_info(db, zLog, 0, aKey[k][1], zVal);
        n++;
      }
    }
    assert_int_equal(n, 5);
    assert_info(db, zLog, 0, "tracer", "xray");
    free(z);
  }
  tl_test_db_close(db);
}

/* ---- CPEL: the file header as the format defines it ---------------------- */

/*
** CPEL file header (VPP's cpel.h): u8 endian_version (high bit set: little
** endian; low 7 bits the version), u8 pad, u16 nsections, u32 file_date
** (Unix time), in the file's byte order.
*/
static void trace_info_cpel_equals_file_header(void **state){
  static const char *const az[] = { "demo.cpel", "states.cpel" };
  sqlite3 *db = tl_test_db();
  size_t i;
  (void)state;
  for(i=0; i<sizeof(az)/sizeof(az[0]); i++){
    char zPath[256], zWant[32];
    size_t n;
    unsigned char *a;
    unsigned long date;
    snprintf(zPath, sizeof(zPath), TD "cpel/%s", az[i]);
    a = tl_test_read_file(zPath, &n);
    assert_non_null(a);
    assert_true(n>=8);
    if( a[0] & 0x80 ) date = a[4] | a[5]<<8 | a[6]<<16 | (unsigned long)a[7]<<24;
    else date = (unsigned long)a[4]<<24 | a[5]<<16 | a[6]<<8 | a[7];
    snprintf(zWant, sizeof(zWant), "%lu", date);
    assert_info(db, zPath, 0, "date_unix", zWant);
    snprintf(zWant, sizeof(zWant), "%d", a[0] & 0x7f);
    assert_info(db, zPath, 0, "format_version", zWant);
    assert_info(db, zPath, 0, "tracer", "cpel");
    free(a);
  }
  /* 1700000000 (make_demo.py) as UTC */
  assert_info(db, TD "cpel/demo.cpel", 0, "date", "2023-11-14T22:13:20Z");
  tl_test_db_close(db);
}

/* Every format gives the shared keys tracer and clock (CPEL: its ticks). */
static void trace_info_shared_keys_in_every_format(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  z = tl_test_sql_rows(db,
      "SELECT f.format, count(DISTINCT i.key) FROM trace_files(%Q) f, trace_info(f.path) i"
      " WHERE f.format IS NOT NULL AND i.key IN ('tracer', 'clock', 'hostname', 'date')"
      " GROUP BY 1 ORDER BY 1",
      TD "*/*");
  assert_string_equal(z, "cpel|2\nctf|4\nperf|3\nxray|2");
  free(z);
  tl_test_db_close(db);
}

/* ---- clock=: perf and LTTng on one time line ------------------------------ */

#define NMARK 20                  /* rounds of testdata/clock/marker.c */

/*
** The references of testdata/clock/: perf script's times (ns) of the
** marker's getppid calls and babeltrace2's raw clock values of its
** tl:tick events (LTTng's clock: CLOCK_MONOTONIC ns at 1 GHz), and the
** marker's pid.
*/
static void clock_refs(long long *aPerf, long long *aUst, long long *pPid){
  char *z = tl_test_read_file(TD "clock/ust.cycles.txt", 0);
  char *zLine, *zSave = 0;
  int n = 0;
  assert_non_null(z);
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    const char *zPid = strstr(zLine, "vtid = ");
    if( !strstr(zLine, " tl:tick: ") ) continue;
    assert_true(n<NMARK && zPid);
    aUst[n++] = atoll(zLine+1);
    *pPid = atoll(zPid+7);
  }
  assert_int_equal(n, NMARK);
  free(z);
  z = tl_test_read_file(TD "clock/perf.script.txt", 0);
  assert_non_null(z);
  n = 0;
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    long long tid, sec, ns;
    if( sscanf(zLine, " %lld %lld.%lld:", &tid, &sec, &ns)!=3 || tid!=*pPid ) continue;
    assert_true(n<NMARK);
    aPerf[n++] = sec*1000000000LL + ns;
  }
  assert_int_equal(n, NMARK);
  free(z);
}

/* The NMARK ts of the marker in zTrace with zOpts, in time order. */
static void marks(sqlite3 *db, const char *zTrace, const char *zOpts, const char *zWhere,
                  long long *a){
  char *z = tl_test_sql_rows(db, "SELECT ts FROM events(%Q, %Q) WHERE %s ORDER BY ts",
                             zTrace, zOpts, zWhere);
  char *zLine, *zSave = 0;
  int n = 0;
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    assert_true(n<NMARK);
    a[n++] = atoll(zLine);
  }
  assert_int_equal(n, NMARK);
  free(z);
}

/*
** One program traced at once by perf (-k CLOCK_MONOTONIC) and LTTng-UST:
** with clock=monotonic both give the references' monotonic ns exactly,
** and each round's two marks (back to back in the program) are within
** 10 us; with clock=realtime too (perf through CLOCK_DATA, LTTng through
** its clock offset), and no warning either way.
*/
static void clock_monotonic_aligns_perf_and_lttng(void **state){
  sqlite3 *db = tl_test_db();
  long long aPerf[NMARK], aUst[NMARK], aP[NMARK], aU[NMARK], pid = 0;
  char zWhere[128];
  int i, k;
  (void)state;
  clock_refs(aPerf, aUst, &pid);
  snprintf(zWhere, sizeof(zWhere), "name = 'syscalls:sys_enter_getppid' AND tid = %lld", pid);
  for(k=0; k<2; k++){
    const char *zOpt = k==0 ? "clock=monotonic" : "clock=realtime";
    marks(db, TD "clock/perf.data", zOpt, zWhere, aP);
    marks(db, TD "clock/ust", zOpt, "name = 'tl:tick'", aU);
    for(i=0; i<NMARK; i++){
      if( k==0 ){
        assert_true(aP[i]==aPerf[i]);
        assert_true(aU[i]==aUst[i]);
      }
      if( llabs(aP[i] - aU[i]) > 10000 ){
        fail_msg("%s: round %d: perf at %lld, LTTng at %lld", zOpt, i, aP[i], aU[i]);
      }
    }
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q, %Q)",
                                     TD "clock/perf.data", zOpt), 0);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q, %Q)",
                                     TD "clock/ust", zOpt), 0);
  }
  /* the default: each as its reference reader prints it */
  marks(db, TD "clock/perf.data", "", zWhere, aP);
  for(i=0; i<NMARK; i++) assert_true(aP[i]==aPerf[i]);
  tl_test_db_close(db);
}

/* clock=zClock on zPath: a warning holding zWant, and ts as without it. */
static void assert_clock_warns(sqlite3 *db, const char *zPath, const char *zClock, const char *zWant){
  char *z = tl_test_sql_text(db, "SELECT message FROM trace_warnings(%Q, 'clock=%s')", zPath, zClock);
  assert_non_null(z);
  assert_non_null(strstr(z, zWant));
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q, 'clock=%s')", zPath, zClock),
                   tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q)", zPath));
}

/* Where the trace lacks what is needed: a warning, ts as before. */
static void clock_without_reference_warns(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  assert_clock_warns(db, TD "perf/sched.data", "realtime", "no CLOCK_DATA");
  assert_clock_warns(db, TD "cpel/demo.cpel", "monotonic", "ts stays on the trace's clock");
  assert_clock_warns(db, TD "xray/basic.xray", "monotonic", "a basic-mode log has no WallTimeMarker");
  assert_clock_warns(db, TD "xray/fdr.xray", "realtime", "nothing relates it to CLOCK_REALTIME");
  z = tl_test_sql_error(db, "SELECT * FROM events(%Q, 'clock=boottime')", TD "perf/sched.data");
  assert_non_null(strstr(z, "clock=boottime: expected monotonic or realtime"));
  free(z);
  tl_test_db_close(db);
}

/*
** XRay FDR, clock=monotonic: testdata/xray/clock.xray was recorded between
** two CLOCK_MONOTONIC readings (clock.times.txt), and every shifted ts falls
** between them. The shift is the least WallTimeMarker minus the TSC of the
** NewCPUId after it, as llvm-xray fdr-dump prints them (the log's cycle
** frequency is 1 GHz: a TSC is ns); a time window is on the shifted clock.
*/
static void clock_monotonic_xray_from_wall_time_markers(void **state){
  sqlite3 *db = tl_test_db();
  const char *zLog = TD "xray/clock.xray";
  char *z = tl_test_read_file(TD "xray/clock.times.txt", 0), *q;
  long long m0 = -1, m1 = -1, lo, hi, shift = 0, wall = -1;
  int bShift = 0;
  (void)state;
  assert_non_null(z);
  assert_int_equal(sscanf(z, "monotonic_before %lld monotonic_after %lld", &m0, &m1), 2);
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT value FROM trace_info(%Q) WHERE key='clock_freq'", zLog),
                   1000000000);
  z = tl_test_read_file(TD "xray/clock.fdr-dump.txt", 0);
  assert_non_null(z);
  for(q=z; (q = strchr(q, '<'))!=0; q++){
    long long s, us, cpu, tsc;
    if( sscanf(q, "<Wall Time: seconds = %lld.%lld>", &s, &us)==2 ) wall = s*1000000000LL + us*1000;
    if( sscanf(q, "<CPU: id = %lld, tsc = %lld>", &cpu, &tsc)==2 && wall>=0 ){
      if( !bShift || wall - tsc < shift ) shift = wall - tsc;
      bShift = 1;
      wall = -1;
    }
  }
  free(z);
  assert_true(bShift);
  lo = tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q, 'clock=monotonic')", zLog);
  hi = tl_test_sql_int(db, "SELECT max(ts) FROM events(%Q, 'clock=monotonic')", zLog);
  assert_true(m0 <= lo && lo <= hi && hi <= m1);
  assert_int_equal(lo - tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q)", zLog), shift);
  assert_int_equal(tl_test_sql_int(db, "SELECT min(ts) FROM xray_calls(%Q, 'clock=monotonic')", zLog),
                   tl_test_sql_int(db, "SELECT min(ts) FROM xray_calls(%Q)", zLog) + shift);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, 'clock=monotonic') WHERE ts BETWEEN %lld AND %lld",
                                   zLog, lo + (hi-lo)/4, lo + (hi-lo)/2),
                   tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, 'clock=monotonic') WHERE +ts BETWEEN %lld AND %lld",
                                   zLog, lo + (hi-lo)/4, lo + (hi-lo)/2));
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q, 'clock=monotonic')", zLog), 0);
  tl_test_db_close(db);
}

/* ---- Chrome export: CTF begin/end pairs ----------------------------------- */

/*
** The cyg-profile func_entry/func_exit events of testdata/clock/ust become
** "B"/"E" events, as many as babeltrace2 prints, the output being one JSON
** document.
*/
static void chrome_events_ctf_entry_exit_are_spans(void **state){
  sqlite3 *db = tl_test_db();
  char *zSql, *zRef;
  const char *p;
  int nB = 0, nE = 0;
  (void)state;
  zSql = tl_test_read_file(TL_TESTDATA_DIR "/../sql/chrome-events.sql", 0);
  assert_non_null(zSql);
  {
    sqlite3_stmt *pStmt = 0;
    TlStr s;
    tl_str_init(&s);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    sqlite3_bind_text(pStmt, sqlite3_bind_parameter_index(pStmt, "@trace"), TD "clock/ust", -1, SQLITE_STATIC);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      tl_str_appendz(&s, (const char*)sqlite3_column_text(pStmt, 0));
      tl_str_appendc(&s, '\n');
    }
    sqlite3_finalize(pStmt);
    for(p=s.z; (p = strstr(p, "\"ph\":\"B\""))!=0; p++) nB++;
    for(p=s.z; (p = strstr(p, "\"ph\":\"E\""))!=0; p++) nE++;
    assert_true(s.n>2 && s.z[0]=='[' && strcmp(s.z+s.n-2, "]\n")==0);
    tl_str_free(&s);
  }
  zRef = tl_test_read_file(TD "clock/ust.bt2.txt", 0);
  assert_non_null(zRef);
  {
    int nEntry = 0, nExit = 0;
    for(p=zRef; (p = strstr(p, "lttng_ust_cyg_profile:func_entry:"))!=0; p++) nEntry++;
    for(p=zRef; (p = strstr(p, "lttng_ust_cyg_profile:func_exit:"))!=0; p++) nExit++;
    assert_true(nEntry>0);
    assert_int_equal(nB, nEntry);
    assert_int_equal(nE, nExit);
  }
  free(zRef);
  free(zSql);
  tl_test_db_close(db);
}

/* ---- flamegraph() ----------------------------------------------------------- */

/*
** The aggregate on made-up stacks: frames as wide as their totals
** (1180 px for the root), names escaped for XML, NULL and non-positive
** values and NULL stacks skipped, empty frames (a trailing ';') dropped.
*/
static void flamegraph_widths_are_totals(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  z = tl_test_sql_text(db, "SELECT flamegraph(column1, column2, 't<1>') FROM (VALUES ('a;b;', 3), ('a;c<x>', 1),"
                       " ('a', 4), (NULL, 5), ('d', NULL), ('e', 0), ('f', -1))");
  assert_non_null(z);
  assert_non_null(strstr(z, "<title>all (8, 100.00%)</title><rect x=\"10.00\" y=\"68\" width=\"1180.00\""));
  assert_non_null(strstr(z, "<title>a (8, 100.00%)</title><rect x=\"10.00\" y=\"52\" width=\"1180.00\""));
  assert_non_null(strstr(z, "<title>b (3, 37.50%)</title><rect x=\"10.00\" y=\"36\" width=\"442.50\""));
  assert_non_null(strstr(z, "<title>c&lt;x&gt; (1, 12.50%)</title><rect x=\"452.50\" y=\"36\" width=\"147.50\""));
  assert_non_null(strstr(z, ">t&lt;1&gt;</text>"));
  assert_null(strstr(z, "<title>d "));
  assert_null(strstr(z, "<title>e "));
  free(z);
  /* no stack: NULL; real values */
  assert_null(tl_test_sql_text(db, "SELECT flamegraph(NULL, 1)"));
  z = tl_test_sql_text(db, "SELECT flamegraph('x;y', 0.5)");
  assert_non_null(strstr(z, "<title>y (0.5, 100.00%)</title>"));
  free(z);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(exports,
  cmocka_unit_test(clock_monotonic_aligns_perf_and_lttng),
  cmocka_unit_test(clock_without_reference_warns),
  cmocka_unit_test(clock_monotonic_xray_from_wall_time_markers),
  cmocka_unit_test(chrome_events_ctf_entry_exit_are_spans),
  cmocka_unit_test(flamegraph_widths_are_totals),
  cmocka_unit_test(trace_info_ctf_equals_babeltrace2_metadata),
  cmocka_unit_test(trace_info_perf_equals_perf_header),
  cmocka_unit_test(trace_info_xray_equals_llvm_xray_header),
  cmocka_unit_test(trace_info_cpel_equals_file_header),
  cmocka_unit_test(trace_info_shared_keys_in_every_format),
);
