/*
** test_xray.c: the XRay log reader against llvm-xray's own output.
**
** testdata/xray/ holds an FDR (version 5) and a basic-mode (version 3) log
** written by compiler-rt's XRay runtime from app.cc (record.sh), and
** `llvm-xray convert -output-format=yaml` of each. Every record llvm-xray
** lists must be a row with the same kind, function id, CPU, thread,
** process, TSC and call arguments, and nothing more.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "group.h"
#include "model_calls.h"
#include "trace.h"
#include "xray/xray_int.h"

#define XRAY_DIR TL_TESTDATA_DIR "/xray/"


/* A "key: value" field of a YAML flow mapping line, into z (empty if absent). */
static void yaml_field(const char *zLine, const char *zKey, char *z, size_t n){
  char zPat[64];
  const char *p;
  size_t k = 0;
  snprintf(zPat, sizeof(zPat), " %s: ", zKey);
  z[0] = 0;
  p = strstr(zLine, zPat);
  if( p==0 ) return;
  p += strlen(zPat);
  if( *p=='[' ){                      /* args: [ 1, 2 ] */
    p++;
    while( *p && *p!=']' && k+1<n ){ if( *p!=' ' ) z[k++] = *p; p++; }
  }else{
    while( *p && *p!=',' && *p!=' ' && *p!='}' && k+1<n ) z[k++] = *p++;
  }
  z[k] = 0;
}

/* llvm-xray's records as "kind|func|cpu|thread|process|tsc|args", sorted. */
static void yaml_records(const char *zFile, TlLines *pOut){
  FILE *f = fopen(zFile, "r");
  char zLine[4096];
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zKind[64], zFunc[32], zCpu[32], zTid[32], zPid[32], zTsc[32], zArgs[256], zRow[512];
    if( strncmp(zLine, "  - {", 5) ) continue;
    yaml_field(zLine, "kind", zKind, sizeof(zKind));
    yaml_field(zLine, "func-id", zFunc, sizeof(zFunc));
    yaml_field(zLine, "cpu", zCpu, sizeof(zCpu));
    yaml_field(zLine, "thread", zTid, sizeof(zTid));
    yaml_field(zLine, "process", zPid, sizeof(zPid));
    yaml_field(zLine, "tsc", zTsc, sizeof(zTsc));
    yaml_field(zLine, "args", zArgs, sizeof(zArgs));
    if( strncmp(zKind, "function", 8) ) zFunc[0] = 0;   /* events carry no function */
    snprintf(zRow, sizeof(zRow), "%s|%s|%s|%s|%s|%s|%s", zKind, zFunc, zCpu, zTid, zPid, zTsc, zArgs);
    tl_lines_add(pOut, zRow);
  }
  fclose(f);
  tl_lines_sort(pOut);
}

static void sql_records(sqlite3 *db, const char *zLog, TlLines *pOut){
  sqlite3_stmt *pStmt;
  char *zSql = sqlite3_mprintf(
      "SELECT type, coalesce(value, ''), cpu, tid, coalesce(pid, ''), ts_raw, "
      "coalesce((SELECT group_concat(value, ',') FROM json_each(args, '$.args')), '') "
      "FROM events(%Q)", zLog);
  assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    char zRow[512];
    snprintf(zRow, sizeof(zRow), "%s|%s|%s|%s|%s|%s|%s",
             sqlite3_column_text(pStmt, 0), sqlite3_column_text(pStmt, 1),
             sqlite3_column_text(pStmt, 2), sqlite3_column_text(pStmt, 3),
             sqlite3_column_text(pStmt, 4), sqlite3_column_text(pStmt, 5),
             sqlite3_column_text(pStmt, 6));
    tl_lines_add(pOut, zRow);
  }
  assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
  sqlite3_free(zSql);
  tl_lines_sort(pOut);
}

static void compare_log(const char *zName){
  sqlite3 *db = tl_test_db();
  TlLines want, got;
  char zYaml[512], zLog[512];
  size_t i;
  memset(&want, 0, sizeof(want));
  memset(&got, 0, sizeof(got));
  snprintf(zYaml, sizeof(zYaml), XRAY_DIR "%s.yaml", zName);
  snprintf(zLog, sizeof(zLog), XRAY_DIR "%s.xray", zName);
  yaml_records(zYaml, &want);
  sql_records(db, zLog, &got);
  assert_true(want.n > 5);
  if( want.n!=got.n ) fail_msg("%s: %zu rows, llvm-xray lists %zu records", zName, got.n, want.n);
  for(i=0; i<want.n; i++){
    if( strcmp(want.az[i], got.az[i]) ) fail_msg("%s: ours %s, llvm-xray %s", zName, got.az[i], want.az[i]);
  }
  /* ts = tsc * 1e9 / cycle frequency (1e9 in these logs) */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts != ts_raw", zLog), 0);
  tl_lines_free(&want);
  tl_lines_free(&got);
  tl_test_db_close(db);
}

static void xray_fdr_records_equal_llvm_xray(void **state){
  (void)state;
  compare_log("fdr");
}

static void xray_basic_records_equal_llvm_xray(void **state){
  (void)state;
  compare_log("basic");
}

/* the default 5 us threshold: the runtime leaves short calls out */
static void xray_default_threshold_records_equal_llvm_xray(void **state){
  (void)state;
  compare_log("fdr-default");
  compare_log("basic-default");
}

/* -O2: tail calls, with function-tail-exit records */
static void xray_tail_exit_records_equal_llvm_xray(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  compare_log("fdr-O2");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr-O2.xray') WHERE type='function-tail-exit'"), 3);
  tl_test_db_close(db);
}

static void xray_custom_events_and_threads(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* app.cc: custom(id) emits "custom-event-<id>" on each of three threads */
  z = tl_test_sql_rows(db, "SELECT text FROM events('" XRAY_DIR "fdr.xray') WHERE type='custom-event' ORDER BY text");
  assert_string_equal(z, "custom-event-0\ncustom-event-1\ncustom-event-2");
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM tracks('" XRAY_DIR "fdr.xray')"), 3);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray') e JOIN tracks('" XRAY_DIR "fdr.xray') t ON e.track=t.id"),
      tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray')"));
  /* windows and rowids give the unfiltered answer */
  {
    int64_t lo = tl_test_sql_int(db, "SELECT min(ts) FROM events('" XRAY_DIR "fdr.xray')");
    int64_t hi = tl_test_sql_int(db, "SELECT max(ts) FROM events('" XRAY_DIR "fdr.xray')");
    int i;
    for(i=0; i<8; i++){
      int64_t a = lo + (hi-lo)*i/8, b = a + (hi-lo)/5;
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray') WHERE ts BETWEEN %lld AND %lld", a, b),
                       tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray') WHERE +ts BETWEEN %lld AND %lld", a, b));
    }
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events('" XRAY_DIR "basic.xray') a WHERE "
        "(SELECT count(*) FROM events('" XRAY_DIR "basic.xray') b WHERE b.rowid=a.rowid)=1"),
        tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "basic.xray')"));
  }
  tl_test_db_close(db);
}

/*
** count(*) with no column and no constraint is answered from the packet
** index's counts: no packet is read, and the count is llvm-xray's number of
** records. Rowids asked for are found by reading the packet: the same as a
** scan that decodes every record gives.
*/
static void xray_count_reads_no_packet(void **state){
  static const char *const azLog[] = { "fdr", "basic", "fdr-O2" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zLog[512], zYaml[512];
    TlLines want;
    int64_t nReads;
    char *zA, *zB;
    memset(&want, 0, sizeof(want));
    snprintf(zLog, sizeof(zLog), XRAY_DIR "%s.xray", azLog[k]);
    snprintf(zYaml, sizeof(zYaml), XRAY_DIR "%s.yaml", azLog[k]);
    yaml_records(zYaml, &want);
    assert_true(want.n > 5);
    nReads = tl_test_sql_int(db, "SELECT total(args->>'$.reads') FROM packets(%Q)", zLog);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zLog), (int64_t)want.n);
    assert_int_equal(tl_test_sql_int(db, "SELECT total(args->>'$.reads') FROM packets(%Q)", zLog), nReads);
    zA = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM events(%Q)", zLog);
    zB = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid, ts_raw FROM events(%Q))", zLog);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
    zA = tl_test_sql_text(db, "SELECT rowid FROM events(%Q) LIMIT 1 OFFSET %d", zLog, (int)want.n - 2);
    zB = tl_test_sql_text(db, "SELECT rowid FROM (SELECT rowid, ts_raw FROM events(%Q)) LIMIT 1 OFFSET %d", zLog, (int)want.n - 2);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
    tl_lines_free(&want);
  }
  tl_test_db_close(db);
}

/*
** ts is floor(tsc * 1e9 / frequency), the header's cycle frequency: exact
** for any frequency, small, odd or too large for 64-bit intermediates (the
** values here are computed in 128-bit arithmetic), NULL past INT64_MAX ns.
** Buffers' and threads' time ranges are their events' least and greatest ts.
** A call's dur is floor(cycles * 1e9 / frequency) of its length in cycles
** (its dur at 1 GHz), NULL past INT64_MAX ns.
*/
static void xray_cycles_to_ns_any_frequency(void **state){
  static const uint64_t aFreq[] = {
    2893421777ull, 3, 1, 1000000007ull, ((uint64_t)1<<62) + 1, 19000000000ull
  };
  sqlite3 *db = tl_test_db();
  char zLog[512];
  size_t n, k;
  uint8_t *a = tl_test_read_file(XRAY_DIR "fdr.xray", &n);
  char *zCycles;
  (void)state;
  assert_non_null(a);
  /* each call's length in cycles: its dur at 1 GHz */
  {
    int i;
    for(i=0; i<8; i++) a[8+i] = (uint8_t)((uint64_t)1000000000 >> (8*i));
    snprintf(zLog, sizeof(zLog), "%s/xray-1ghz.xray", tl_test_tmpdir());
    assert_int_equal(tl_test_write_file(zLog, a, n), 0);
    zCycles = tl_test_sql_rows(db, "SELECT id, dur FROM xray_calls(%Q) WHERE dur IS NOT NULL ORDER BY id", zLog);
  }
  for(k=0; k<sizeof(aFreq)/sizeof(aFreq[0]); k++){
    sqlite3_stmt *pStmt;
    char *zSql;
    int i, nRows = 0;
    for(i=0; i<8; i++) a[8+i] = (uint8_t)(aFreq[k] >> (8*i));
    snprintf(zLog, sizeof(zLog), "%s/xray-freq%zu.xray", tl_test_tmpdir(), k);
    assert_int_equal(tl_test_write_file(zLog, a, n), 0);
    zSql = sqlite3_mprintf("SELECT ts, ts_raw FROM events(%Q)", zLog);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    sqlite3_free(zSql);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      uint64_t tsc = (uint64_t)sqlite3_column_int64(pStmt, 1);
      unsigned __int128 want = (unsigned __int128)tsc * 1000000000u / aFreq[k];
      if( want > (unsigned __int128)INT64_MAX ){
        assert_int_equal(sqlite3_column_type(pStmt, 0), SQLITE_NULL);
      }else if( sqlite3_column_int64(pStmt, 0)!=(int64_t)want ){
        fail_msg("frequency %llu, tsc %llu: ts %lld, expected %lld", (unsigned long long)aFreq[k],
                 (unsigned long long)tsc, (long long)sqlite3_column_int64(pStmt, 0), (long long)want);
      }
      nRows++;
    }
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
    assert_true(nRows > 5);
    {
      /* the calls' durs from their lengths in cycles */
      const char *z = zCycles;
      int nCalls = 0;
      zSql = sqlite3_mprintf("SELECT id, dur FROM xray_calls(%Q) ORDER BY id", zLog);
      assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
      sqlite3_free(zSql);
      while( *z && sqlite3_step(pStmt)==SQLITE_ROW ){
        long long id, cycles;
        unsigned __int128 want;
        int nUsed = 0;
        assert_int_equal(sscanf(z, "%lld|%lld%n", &id, &cycles, &nUsed), 2);
        z += nUsed + (z[nUsed]=='\n');
        while( sqlite3_column_int64(pStmt, 0)<id && sqlite3_step(pStmt)==SQLITE_ROW ){}
        assert_int_equal(sqlite3_column_int64(pStmt, 0), id);
        want = (unsigned __int128)(uint64_t)cycles * 1000000000u / aFreq[k];
        if( want > (unsigned __int128)INT64_MAX ){
          assert_int_equal(sqlite3_column_type(pStmt, 1), SQLITE_NULL);
        }else if( sqlite3_column_int64(pStmt, 1)!=(int64_t)want ){
          fail_msg("frequency %llu, call %lld of %lld cycles: dur %lld, expected %lld",
                   (unsigned long long)aFreq[k], id, cycles, (long long)sqlite3_column_int64(pStmt, 1),
                   (long long)want);
        }
        nCalls++;
      }
      assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
      assert_true(nCalls > 5);
      assert_int_equal(*z, 0);
    }
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM packets(%Q) p WHERE p.ts_begin IS NOT (SELECT min(ts) FROM events(%Q) e "
        "WHERE e.rowid >= p.offset AND e.rowid < p.offset + p.size) OR p.ts_end IS NOT (SELECT max(ts) "
        "FROM events(%Q) e WHERE e.rowid >= p.offset AND e.rowid < p.offset + p.size)", zLog, zLog, zLog), 0);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM tracks(%Q) t WHERE t.first_ts IS NOT (SELECT min(ts) FROM events(%Q) e WHERE e.tid = t.tid) "
        "OR t.last_ts IS NOT (SELECT max(ts) FROM events(%Q) e WHERE e.tid = t.tid)", zLog, zLog, zLog), 0);
  }
  free(zCycles);
  free(a);
  tl_test_db_close(db);
}

static void xray_truncation_and_empty_logs(void **state){
  sqlite3 *db = tl_test_db();
  char zCut[512];
  size_t n, nCut;
  uint8_t *a = tl_test_read_file(XRAY_DIR "fdr.xray", &n);
  (void)state;
  assert_non_null(a);
  snprintf(zCut, sizeof(zCut), "%s/xray-cut.xray", tl_test_tmpdir());
  for(nCut=0; nCut<=n; nCut++){
    sqlite3_stmt *pStmt;
    char *zSql;
    int rc;
    int64_t nRows = 0;
    assert_int_equal(tl_test_write_file(zCut, a, nCut), 0);
    zSql = sqlite3_mprintf("SELECT type, args, text FROM events(%Q)", zCut);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    sqlite3_free(zSql);
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ) nRows++;
    rc = sqlite3_finalize(pStmt);
    if( nCut>=32 ){
      assert_int_equal(rc, SQLITE_OK);                  /* a cut log reads to the cut */
      /* count(*) from the packets' counts: the same rows */
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zCut), nRows);
    }else{
      assert_non_null(strstr(sqlite3_errmsg(db), "xray-cut.xray"));
    }
  }
  /* the header alone: no rows and a clear word */
  assert_int_equal(tl_test_write_file(zCut, a, 32), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zCut), 0);
  {
    char *z = tl_test_sql_text(db, "SELECT message FROM trace_warnings(%Q)", zCut);
    assert_string_equal(z, "the log has a header and no records");
    free(z);
  }
  /* a version llvm-xray does not know */
  a[0] = 9;
  assert_int_equal(tl_test_write_file(zCut, a, n), 0);
  {
    char *z = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q, 'format=xray')", zCut);
    assert_non_null(strstr(z, "offset 0: XRay FDR log version 9 is not supported (expected 1-5)"));
    free(z);
  }
  free(a);
  tl_test_db_close(db);
}

/*
** What open's walk put in the index of log zPath (it takes runs of plain
** function records at once) equals what a scan reads record by record: per
** packet the events, first and last ts; per thread the same. (count(e.type):
** a bare count(*) would come from the index itself.)
*/
static void assert_index_equals_scan(sqlite3 *db, const char *zPath){
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM packets(%Q) p WHERE p.events IS NOT (SELECT count(e.type) FROM events(%Q) e "
      "WHERE e.rowid >= p.offset AND e.rowid < p.offset + p.size) "
      "OR p.ts_begin IS NOT (SELECT min(ts) FROM events(%Q) e WHERE e.rowid >= p.offset AND e.rowid < p.offset + p.size) "
      "OR p.ts_end IS NOT (SELECT max(ts) FROM events(%Q) e WHERE e.rowid >= p.offset AND e.rowid < p.offset + p.size)",
      zPath, zPath, zPath, zPath), 0);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM tracks(%Q) t WHERE t.events IS NOT (SELECT count(e.type) FROM events(%Q) e WHERE e.tid = t.tid) "
      "OR t.first_ts IS NOT (SELECT min(ts) FROM events(%Q) e WHERE e.tid = t.tid) "
      "OR t.last_ts IS NOT (SELECT max(ts) FROM events(%Q) e WHERE e.tid = t.tid)",
      zPath, zPath, zPath, zPath), 0);
}

/* The index equals a scan for every log of testdata. */
static void xray_index_equals_a_scan(void **state){
  static const char *const azLog[] = { "fdr", "basic", "fdr-O2", "fdr-default", "basic-default" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zPath[512];
    snprintf(zPath, sizeof(zPath), XRAY_DIR "%s.xray", azLog[k]);
    assert_true(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q)", zPath) > 0);
    assert_index_equals_scan(db, zPath);
  }
  tl_test_db_close(db);
}

/* sql/xray_account.sql prints what llvm-xray account prints. */
static void account_sql_equals_llvm_xray_account(void **state){
  static const char *const azLog[] = { "fdr", "basic", "fdr-O2", "fdr-default", "basic-default" };
  sqlite3 *db = tl_test_db();
  size_t nSql, k;
  char *zSql = tl_test_read_file(TL_TESTDATA_DIR "/../sql/xray_account.sql", &nSql);
  (void)state;
  assert_non_null(zSql);
  zSql = realloc(zSql, nSql+1);
  zSql[nSql] = 0;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zPath[512], zLine[512];
    FILE *f;
    sqlite3_stmt *pStmt;
    int nLines = 0;
    snprintf(zPath, sizeof(zPath), XRAY_DIR "%s.account.txt", azLog[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    snprintf(zPath, sizeof(zPath), XRAY_DIR "%s.xray", azLog[k]);
    assert_int_equal(sqlite3_bind_text(pStmt, sqlite3_bind_parameter_index(pStmt, "@trace"), zPath, -1, SQLITE_TRANSIENT), SQLITE_OK);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zWant[256], zGot[256];
      int id;
      long long n;
      char a[6][32];
      if( sscanf(zLine, " %d %lld [ %31[^,], %31[^,], %31[^,], %31[^,], %31[^]]] %31s",
                 &id, &n, a[0], a[1], a[2], a[3], a[4], a[5])!=8 ) continue;
      snprintf(zWant, sizeof(zWant), "%d|%lld|%s|%s|%s|%s|%s|%s", id, n, a[0], a[1], a[2], a[3], a[4], a[5]);
      assert_int_equal(sqlite3_step(pStmt), SQLITE_ROW);
      snprintf(zGot, sizeof(zGot), "%s|%s|%s|%s|%s|%s|%s|%s",
               sqlite3_column_text(pStmt, 0), sqlite3_column_text(pStmt, 1), sqlite3_column_text(pStmt, 2),
               sqlite3_column_text(pStmt, 3), sqlite3_column_text(pStmt, 4), sqlite3_column_text(pStmt, 5),
               sqlite3_column_text(pStmt, 6), sqlite3_column_text(pStmt, 7));
      assert_string_equal(zGot, zWant);
      nLines++;
    }
    assert_int_equal(sqlite3_step(pStmt), SQLITE_DONE);
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
    fclose(f);
    assert_true(nLines >= 3);
  }
  free(zSql);
  tl_test_db_close(db);
}

static void xray_calls_nest_like_the_records(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  /* every entry is a call, every call finished (the log is complete) */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM xray_calls('" XRAY_DIR "fdr.xray')"),
                   tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray') WHERE type LIKE 'function-enter%%'"));
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM xray_calls('" XRAY_DIR "fdr.xray') WHERE dur IS NULL"), 0);
  /* a call's id is its entry record; its parent encloses it */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM xray_calls('" XRAY_DIR "fdr.xray') c JOIN events('" XRAY_DIR "fdr.xray') e ON e.rowid=c.id "
      "WHERE e.value=c.func_id AND e.ts=c.ts AND e.tid=c.tid"),
      tl_test_sql_int(db, "SELECT count(*) FROM xray_calls('" XRAY_DIR "fdr.xray')"));
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM xray_calls('" XRAY_DIR "fdr.xray') c JOIN xray_calls('" XRAY_DIR "fdr.xray') p ON p.id=c.parent "
      "WHERE p.depth+1 != c.depth OR c.ts < p.ts OR c.ts + c.dur > p.ts + p.dur OR p.tid != c.tid"), 0);
  /* app.cc: each of the three threads starts in worker (function id 6, see
  ** instr-map.yaml), so the outermost calls are worker's, one per thread */
  {
    char *z = tl_test_sql_rows(db, "SELECT func_id, count(*), count(DISTINCT tid) FROM xray_calls('" XRAY_DIR "fdr.xray') WHERE parent IS NULL GROUP BY 1");
    assert_string_equal(z, "6|3|3");
    free(z);
  }
  tl_test_db_close(db);
}

/* xray_functions equals llvm-xray extract --symbolize of the binary, sled
** kinds named as extract names them (tail-exit: the -O2 build), from the
** binary and from extract's map. */
static void xray_functions_equal_llvm_xray_extract(void **state){
  sqlite3 *db = tl_test_db();
  const char *azMap[] = { "app", "app-O2" };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azMap)/sizeof(azMap[0]); k++){
    char zPath[512], zLine[1024];
    int nSleds = 0;
    FILE *f;
    snprintf(zPath, sizeof(zPath), XRAY_DIR "%s.map.yaml", azMap[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zId[16], zFn[32], zKind[64], zAlways[16], zName[256];
      if( strncmp(zLine, "- {", 3) ) continue;
      yaml_field(zLine, "id", zId, sizeof(zId));
      yaml_field(zLine, "function", zFn, sizeof(zFn));
      yaml_field(zLine, "kind", zKind, sizeof(zKind));
      yaml_field(zLine, "always-instrument", zAlways, sizeof(zAlways));
      {
        const char *p = strstr(zLine, "function-name: '");
        const char *q;
        assert_non_null(p);
        p += 16;
        q = strchr(p, '\'');
        snprintf(zName, sizeof(zName), "%.*s", (int)(q - p), p);
      }
      assert_int_equal(tl_test_sql_int(db,
          "SELECT count(*) FROM xray_functions('" XRAY_DIR "%s.map.elf') WHERE func_id=%s "
          "AND printf('0x%%X', address)=%Q AND name=%Q AND ','||kinds||',' LIKE '%%,'||%Q||',%%' "
          "AND always_instrument=%d", azMap[k], zId, zFn, zName, zKind, strcmp(zAlways, "true")==0), 1);
      nSleds++;
    }
    fclose(f);
    assert_int_equal(nSleds, tl_test_sql_int(db, "SELECT sum(sleds) FROM xray_functions('" XRAY_DIR "%s.map.elf')", azMap[k]));
    /* extract's map gives the same rows */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM (SELECT func_id, name, kinds, always_instrument, sleds FROM xray_functions('" XRAY_DIR "%s.map.elf') "
        "EXCEPT SELECT func_id, name, kinds, always_instrument, sleds FROM xray_functions('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "%s.map.yaml'))",
        azMap[k], azMap[k]), 0);
  }
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM xray_functions('" XRAY_DIR "app-O2.map.elf') WHERE kinds LIKE '%%tail-exit%%'"), 1);
  /* the same map through binary= */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM xray_functions('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "app.map.elf')"), 6);
  tl_test_db_close(db);
}

/* With binary=, names equal llvm-xray convert -symbolize. */
static void xray_names_equal_llvm_xray_symbolize(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(XRAY_DIR "fdr.sym.yaml", "r");
  char zLine[1024];
  TlLines want, got;
  sqlite3_stmt *pStmt;
  size_t i;
  (void)state;
  memset(&want, 0, sizeof(want));
  memset(&got, 0, sizeof(got));
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zKind[64], zTsc[32], zRow[512];
    const char *p, *q;
    if( strncmp(zLine, "  - {", 5) ) continue;
    yaml_field(zLine, "kind", zKind, sizeof(zKind));
    yaml_field(zLine, "tsc", zTsc, sizeof(zTsc));
    if( strncmp(zKind, "function", 8) ) continue;
    p = strstr(zLine, "function: '");
    assert_non_null(p);
    p += 11;
    q = strchr(p, '\'');
    snprintf(zRow, sizeof(zRow), "%s|%s|%.*s", zTsc, zKind, (int)(q - p), p);
    tl_lines_add(&want, zRow);
  }
  fclose(f);
  assert_int_equal(sqlite3_prepare_v2(db,
      "SELECT ts_raw, type, name FROM events('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "app.map.elf') "
      "WHERE type LIKE 'function%'", -1, &pStmt, 0), SQLITE_OK);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    char zRow[512];
    snprintf(zRow, sizeof(zRow), "%s|%s|%s", sqlite3_column_text(pStmt, 0),
             sqlite3_column_text(pStmt, 1), sqlite3_column_text(pStmt, 2));
    tl_lines_add(&got, zRow);
  }
  sqlite3_finalize(pStmt);
  tl_lines_sort(&want);
  tl_lines_sort(&got);
  assert_int_equal(got.n, want.n);
  for(i=0; i<want.n; i++) assert_string_equal(got.az[i], want.az[i]);
  tl_lines_free(&want);
  tl_lines_free(&got);
  /* the names llvm-xray account prints, per function id */
  {
    FILE *fa = fopen(XRAY_DIR "fdr.account.txt", "r");
    int n = 0;
    assert_non_null(fa);
    while( fgets(zLine, sizeof(zLine), fa) ){
      int id;
      char *zName = strstr(zLine, ":0:0: ");
      size_t k;
      if( sscanf(zLine, " %d ", &id)!=1 || zName==0 ) continue;
      zName += 6;
      k = strlen(zName);
      while( k && (zName[k-1]=='\n' || zName[k-1]==' ') ) zName[--k] = 0;
      assert_int_equal(tl_test_sql_int(db,
          "SELECT count(*) FROM xray_calls('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "app.map.elf') "
          "WHERE func_id=%d AND name IS NOT %Q", id, zName), 0);
      n++;
    }
    fclose(fa);
    assert_int_equal(n, 5);
  }
  tl_test_db_close(db);
}

/* Files the fuzzer found (testdata/xray/bad/): read without a fault. */
static void xray_fuzz_finds_are_read_cleanly(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* a binary whose xray_instr_map section holds no sled (once a memcpy from NULL) */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM xray_functions('" XRAY_DIR "bad/empty-map.elf')"), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "bad/empty-map.elf')"), 0);
  /* a binary that is not one, nor an llvm-xray extract map */
  z = tl_test_sql_error(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "fdr.yaml')");
  assert_non_null(z);
  assert_non_null(strstr(z, "fdr.yaml: expected an ELF binary (binary=) or an llvm-xray extract map"));
  free(z);
  /* llvm-xray extract's map names the functions as the binary does */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "app.map.elf') a "
      "JOIN events('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "app.map.yaml') b ON a.rowid=b.rowid "
      "WHERE a.name IS b.name AND a.ip IS b.ip"),
      tl_test_sql_int(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray')"));
  z = tl_test_sql_error(db, "SELECT count(*) FROM events('" XRAY_DIR "fdr.xray', 'binary=" XRAY_DIR "missing.elf')");
  assert_non_null(z);
  assert_non_null(strstr(z, "missing.elf: cannot open: No such file or directory"));
  free(z);
  tl_test_db_close(db);
}

/* ---- synthetic FDR logs: versions 1-5, both byte orders, TSC wrap -------- */

typedef struct XW XW;
struct XW { uint8_t a[4096]; size_t n; int bBig; };

static void xw_put(XW *w, uint64_t v, int nByte){
  int i;
  for(i=0; i<nByte; i++){
    int sh = w->bBig ? 8*(nByte-1-i) : 8*i;
    w->a[w->n++] = (uint8_t)(v>>sh);
  }
}

/* A 16-byte metadata record: first byte, then up to 15 bytes of fields. */
static void xw_meta(XW *w, unsigned kind){
  size_t iStart = w->n;
  w->a[w->n++] = w->bBig ? (uint8_t)(0x80 | kind) : (uint8_t)((kind<<1) | 1);
  memset(w->a + w->n, 0, 15);
  (void)iStart;
}
static void xw_meta_end(XW *w, size_t iStart){ w->n = iStart + 16; }

static void xw_func(XW *w, unsigned type, uint32_t id, uint32_t delta){
  uint32_t word = w->bBig ? ((type & 7u)<<28) | (id & 0x0FFFFFFF) : ((type & 7u)<<1) | (id<<4);
  xw_put(w, word, 4);
  xw_put(w, delta, 4);
}

/*
** One thread (tid 77, pid 66 from version 3), cpu 3, base TSC 1000: enter
** f5 with argument 42 (+10), enter f6 (+20), custom event "hi" (+5), exit
** f6 (+7), TSC wrap to 5000000000, exit f5 (+3). Returns the log's size.
*/
static void xw_log(XW *w, int bBig, int nVersion){
  size_t i0, iExt = 0, iBuf;
  memset(w, 0, sizeof(*w));
  w->bBig = bBig;
  xw_put(w, (uint64_t)nVersion, 2);
  xw_put(w, 1, 2);
  xw_put(w, 3, 4);
  xw_put(w, 1000000000, 8);
  xw_put(w, nVersion==1 ? 512 : 0, 8);        /* v1: the buffer size */
  xw_put(w, 0, 8);
  iBuf = w->n;
  if( nVersion>=2 ){ iExt = w->n; xw_meta(w, 7); xw_meta_end(w, iExt); }
  i0 = w->n; xw_meta(w, 0); xw_put(w, 77, 4); xw_meta_end(w, i0);
  i0 = w->n; xw_meta(w, 4); xw_put(w, 1700000000, 8); xw_put(w, 5, 4); xw_meta_end(w, i0);
  if( nVersion>=3 ){ i0 = w->n; xw_meta(w, 9); xw_put(w, 66, 4); xw_meta_end(w, i0); }
  i0 = w->n; xw_meta(w, 2); xw_put(w, 3, 2); xw_put(w, 1000, 8); xw_meta_end(w, i0);
  xw_func(w, 3, 5, 10);
  i0 = w->n; xw_meta(w, 6); xw_put(w, 42, 8); xw_meta_end(w, i0);
  xw_func(w, 0, 6, 20);
  i0 = w->n; xw_meta(w, 5); xw_put(w, 2, 4);
  if( nVersion>=5 ) xw_put(w, 5, 4); else xw_put(w, 1035, 8);
  xw_meta_end(w, i0);
  memcpy(w->a + w->n, "hi", 2); w->n += 2;
  xw_func(w, 1, 6, 7);
  i0 = w->n; xw_meta(w, 3); xw_put(w, 5000000000ull, 8); xw_meta_end(w, i0);
  xw_func(w, 1, 5, 3);
  if( nVersion>=2 ){
    size_t nSave = w->n;
    w->n = iExt + 1;
    xw_put(w, nSave - (iExt + 16), 8);
    w->n = nSave;
  }else{
    i0 = w->n; xw_meta(w, 1); xw_meta_end(w, i0);
    w->n = iBuf + 512;                        /* the rest of the fixed-size buffer */
  }
}

static void xray_synthetic_versions_and_byte_orders(void **state){
  sqlite3 *db = tl_test_db();
  static const int aVer[] = { 1, 2, 3, 4, 5 };
  size_t k;
  int bBig;
  (void)state;
  for(bBig=0; bBig<2; bBig++){
    for(k=0; k<sizeof(aVer)/sizeof(aVer[0]); k++){
      XW w;
      char zPath[512], zWant[512], *z;
      const char *zPid = aVer[k]>=3 ? "66" : "";
      xw_log(&w, bBig, aVer[k]);
      snprintf(zPath, sizeof(zPath), "%s/synth-v%d-%s.xray", tl_test_tmpdir(), aVer[k], bBig ? "be" : "le");
      assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
      z = tl_test_sql_rows(db, "SELECT type, coalesce(value,''), cpu, tid, coalesce(pid,''), ts_raw, "
                               "coalesce(args->>'$.args[0]',''), coalesce(text,'') FROM events(%Q)", zPath);
      /* TSCs: 1000+10, +20, +5 (custom), +7, wrap to 5e9, +3 */
      snprintf(zWant, sizeof(zWant),
          "function-enter-arg|5|3|77|%s|1010|42|\n"
          "function-enter|6|3|77|%s|1030||\n"
          "custom-event||3|77|%s|1035||hi\n"
          "function-exit|6|3|77|%s|1042||\n"
          "function-exit|5|3|77|%s|5000000003||",
          zPid, zPid, zPid, zPid, zPid);
      if( strcmp(z, zWant) ) fail_msg("v%d %s: got\n%s\nwant\n%s", aVer[k], bBig ? "BE" : "LE", z, zWant);
      free(z);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zPath), 0);
      /* the calls: f5 encloses f6 */
      z = tl_test_sql_rows(db, "SELECT func_id, depth, dur FROM xray_calls(%Q) ORDER BY depth", zPath);
      assert_string_equal(z, "5|0|4999998993\n6|1|12");
      free(z);
    }
  }
  tl_test_db_close(db);
}

/*
** Calls matched from a run of plain function records (no metadata between,
** which the reader takes at once), both byte orders, a 1 GHz clock so that
** cycles are ns. From TSC 1000: enter f1 (+0), enter f2 (+10), enter f3
** (+10), exit f2 (+5: it also ends f3, whose exit is missing), exit f9 (+1:
** not on the stack, ignored), enter f4 (+4), tail exit f4 (+6), exit f1
** (+4), enter f5 (+10: still open at the end).
*/
static void xray_calls_matched_in_runs(void **state){
  sqlite3 *db = tl_test_db();
  int bBig;
  (void)state;
  for(bBig=0; bBig<2; bBig++){
    static const struct { unsigned type, id, delta; } aRec[] = {
      {0,1,0}, {0,2,10}, {0,3,10}, {1,2,5}, {1,9,1}, {0,4,4}, {2,4,6}, {1,1,4}, {0,5,10},
    };
    XW w;
    size_t i0, iExt, k;
    char zPath[512], *z;
    memset(&w, 0, sizeof(w));
    w.bBig = bBig;
    xw_put(&w, 5, 2); xw_put(&w, 1, 2); xw_put(&w, 3, 4);
    xw_put(&w, 1000000000, 8); xw_put(&w, 0, 8); xw_put(&w, 0, 8);
    iExt = w.n; xw_meta(&w, 7); xw_meta_end(&w, iExt);
    i0 = w.n; xw_meta(&w, 0); xw_put(&w, 77, 4); xw_meta_end(&w, i0);
    i0 = w.n; xw_meta(&w, 4); xw_meta_end(&w, i0);
    i0 = w.n; xw_meta(&w, 2); xw_put(&w, 3, 2); xw_put(&w, 1000, 8); xw_meta_end(&w, i0);
    for(k=0; k<sizeof(aRec)/sizeof(aRec[0]); k++) xw_func(&w, aRec[k].type, aRec[k].id, aRec[k].delta);
    {
      size_t nSave = w.n;
      w.n = iExt + 1;
      xw_put(&w, nSave - (iExt + 16), 8);
      w.n = nSave;
    }
    snprintf(zPath, sizeof(zPath), "%s/runs-%s.xray", tl_test_tmpdir(), bBig ? "be" : "le");
    assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
    z = tl_test_sql_rows(db, "SELECT c.func_id, c.depth, coalesce(c.dur, 'open'), coalesce(p.func_id, '-'), c.ts "
                             "FROM xray_calls(%Q) c LEFT JOIN xray_calls(%Q) p ON p.id = c.parent ORDER BY c.id",
                             zPath, zPath);
    assert_string_equal(z, "1|0|40|-|1000\n2|1|15|1|1010\n3|2|5|2|1020\n4|1|6|1|1030\n5|0|open|-|1050");
    free(z);
    z = tl_test_sql_rows(db, "SELECT func_id, count(*), sum(dur) FROM xray_calls(%Q) GROUP BY func_id", zPath);
    assert_string_equal(z, "1|1|40\n2|1|15\n3|1|5\n4|1|6\n5|1|");
    free(z);
  }
  tl_test_db_close(db);
}

/*
** Open's walk takes runs of function records at once; what it puts in the
** index must equal a scan's record-by-record reading. One buffer of 300
** function records (f1 entered and left in turn, +10 cycles each), record
** 100 an entry with a call argument after it, both byte orders, and three
** cases: a 1 GHz clock; a 1 Hz clock starting 1500 cycles before the last
** cycle count that has a ts (9223372036 at 1 Hz), so the run crosses it;
** and record 200 of type 5 (no such type), where the scan stops with an
** error and the index counts up to it.
*/
static void xray_open_runs_equal_a_scan(void **state){
  sqlite3 *db = tl_test_db();
  int bBig, iCase;
  (void)state;
  for(bBig=0; bBig<2; bBig++){
    for(iCase=0; iCase<3; iCase++){
      uint64_t tscOk = INT64_MAX / 1000000000u;   /* at 1 Hz */
      uint64_t tsc0 = iCase==1 ? tscOk - 1500 : 1000, nWithTs = 0;
      XW w;
      size_t i0, iExt, k;
      char zPath[512];
      memset(&w, 0, sizeof(w));
      w.bBig = bBig;
      xw_put(&w, 5, 2); xw_put(&w, 1, 2); xw_put(&w, 3, 4);
      xw_put(&w, iCase==1 ? 1 : 1000000000, 8); xw_put(&w, 0, 8); xw_put(&w, 0, 8);
      iExt = w.n; xw_meta(&w, 7); xw_meta_end(&w, iExt);
      i0 = w.n; xw_meta(&w, 0); xw_put(&w, 77, 4); xw_meta_end(&w, i0);
      i0 = w.n; xw_meta(&w, 4); xw_meta_end(&w, i0);
      i0 = w.n; xw_meta(&w, 2); xw_put(&w, 3, 2); xw_put(&w, tsc0, 8); xw_meta_end(&w, i0);
      for(k=0; k<300; k++){
        unsigned type = k%2 ? 1 : k==100 ? 3 : 0;
        if( iCase==2 && k==200 ) type = 5;
        xw_func(&w, type, 1, 10);
        if( k==100 ){ i0 = w.n; xw_meta(&w, 6); xw_put(&w, 42, 8); xw_meta_end(&w, i0); }
        if( tsc0 + 10*(k+1) <= tscOk ) nWithTs++;
      }
      {
        size_t nSave = w.n;
        w.n = iExt + 1;
        xw_put(&w, nSave - (iExt + 16), 8);
        w.n = nSave;
      }
      snprintf(zPath, sizeof(zPath), "%s/open-runs-%d-%s.xray", tl_test_tmpdir(), iCase, bBig ? "be" : "le");
      assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
      if( iCase==2 ){
        /* the 200 records before the bad one, then the error naming it */
        char *z = tl_test_sql_error(db, "SELECT count(type) FROM events(%Q)", zPath);
        char zWant[128];
        snprintf(zWant, sizeof(zWant), "offset %zu: expected a function record type 0-3, found 5",
                 (size_t)32 + 16*4 + 8*200 + 16);
        assert_non_null(z);
        assert_non_null(strstr(z, zWant));
        free(z);
        assert_int_equal(tl_test_sql_int(db,
            "SELECT count(*) FROM (SELECT type FROM events(%Q) LIMIT 200)", zPath), 200);
        assert_int_equal(tl_test_sql_int(db, "SELECT events FROM tracks(%Q)", zPath), 200);
        continue;
      }
      /* one row per function record, the argument with its record */
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), 300);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(type) FROM events(%Q)", zPath), 300);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(ts) FROM events(%Q)", zPath), (int64_t)nWithTs);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE args->>'$.args[0]' = 42",
                                       zPath), 1);
      assert_int_equal(tl_test_sql_int(db, "SELECT events FROM tracks(%Q)", zPath), 300);
      assert_index_equals_scan(db, zPath);
      /* the last ts from the definition: floor(tsc * 1e9 / frequency) */
      assert_int_equal(tl_test_sql_int(db, "SELECT ts_end FROM packets(%Q)", zPath),
                       iCase==1 ? (int64_t)(tsc0 + 10*nWithTs) * 1000000000 : (int64_t)(tsc0 + 3000));
    }
  }
  tl_test_db_close(db);
}

/*
** The synthetic log of calls 0..19999, version 5, little-endian: a buffer
** of calls 0..9999 on thread 9, one of 10000..19999 on thread 10 (the
** grouping reads them on two threads, one each). Call i is of function
** 1 + i%3 and lasts 1 + i%17 cycles (ns: 1 GHz); its entry record is at 96
** + 16*i in the first buffer, 160160 + 16*(i-10000) in the second. Written
** to zName in the test folder (its path into zPath) without its last nCut
** bytes.
*/
static void write_many_calls(char *zPath, size_t nPath, const char *zName, size_t nCut){
  size_t k, n = 0, nAlloc = 1<<20;
  uint8_t *a = malloc(nAlloc);
  int i;
  assert_non_null(a);
#define PUT(v, nb) do{ uint64_t v_ = (uint64_t)(v); int b_; \
    for(b_=0; b_<(nb); b_++) a[n++] = (uint8_t)(v_>>(8*b_)); }while(0)
#define META(kind) do{ a[n] = (uint8_t)(((kind)<<1) | 1); memset(a+n+1, 0, 15); }while(0)
  PUT(5, 2); PUT(1, 2); PUT(3, 4); PUT(1000000000, 8); PUT(0, 8); PUT(0, 8);
  for(k=0; k<2; k++){
    size_t iExt = n, iData;
    META(7); n += 16;
    iData = n;
    META(0); a[n+1] = (uint8_t)(9 + k); n += 16;            /* NewBuffer: tid 9, 10 */
    META(4); n += 16;                                       /* WallClock */
    META(2); a[n+1] = 1; n += 16;                           /* NewCPU 1 (TSC 0) */
    for(i=10000*(int)k; i<10000*(int)(k+1); i++){
      uint32_t id = (uint32_t)(1 + i%3);
      PUT((0u<<1) | (id<<4), 4); PUT(10, 4);                /* enter */
      PUT((1u<<1) | (id<<4), 4); PUT(1 + i%17, 4);          /* exit */
    }
    assert_true(n < nAlloc);
    for(i=0; i<8; i++) a[iExt+1+i] = (uint8_t)((uint64_t)(n - iData) >> (8*i));
  }
#undef PUT
#undef META
  assert_int_equal(n, 320160);
  snprintf(zPath, nPath, "%s/%s", tl_test_tmpdir(), zName);
  assert_int_equal(tl_test_write_file(zPath, a, n - nCut), 0);
  free(a);
}

/*
** xray_calls GROUP BY func_id comes grouped by the reader, with no sort:
** per function the counts equal llvm-xray account's, and every aggregate
** equals SQLite's own grouping. A synthetic FDR log of 20000 calls (f1, f2,
** f3 in turn; call i lasts 1 + i%17 cycles of a 1 GHz clock, so that many
** ns; half on each of two threads) gives the values its definition says,
** also when max_memory=1 puts most durations in the temporary files.
*/
static void xray_calls_grouped_by_function(void **state){
  static const char *const azLog[] = { "fdr", "basic", "fdr-O2" };
  sqlite3 *db = tl_test_db();
  size_t k;
  char zPath[512], zWant[1024], zRowids[256], *z;
  int i, f;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zLine[512], *zA, *zB;
    FILE *fa;
    TlLines want = {0}, got = {0};
    snprintf(zPath, sizeof(zPath), XRAY_DIR "%s.account.txt", azLog[k]);
    fa = fopen(zPath, "r");
    assert_non_null(fa);
    while( fgets(zLine, sizeof(zLine), fa) ){
      int id;
      long long nCalls;
      if( sscanf(zLine, " %d %lld [", &id, &nCalls)!=2 ) continue;
      snprintf(zWant, sizeof(zWant), "%d|%lld", id, nCalls);
      tl_lines_add(&want, zWant);
    }
    fclose(fa);
    snprintf(zPath, sizeof(zPath), XRAY_DIR "%s.xray", azLog[k]);
    zA = tl_test_sql_rows(db, "SELECT func_id, count(*) FROM xray_calls(%Q) WHERE dur IS NOT NULL "
                              "GROUP BY func_id", zPath);
    for(z=strtok(zA, "\n"); z; z=strtok(0, "\n")) tl_lines_add(&got, z);
    free(zA);
    assert_true(want.n>=3);
    assert_int_equal(got.n, want.n);
    for(i=0; i<(int)want.n; i++) assert_string_equal(got.az[i], want.az[i]);
    tl_lines_free(&want);
    tl_lines_free(&got);
    zA = tl_test_sql_rows(db, "SELECT func_id, name, count(*), count(dur), min(dur), max(dur), sum(dur) "
                              "FROM xray_calls(%Q, 'binary=" XRAY_DIR "app.map.elf') GROUP BY func_id", zPath);
    zB = tl_test_sql_rows(db, "SELECT func_id, name, count(*), count(dur), min(dur), max(dur), sum(dur) "
                              "FROM xray_calls(%Q, 'binary=" XRAY_DIR "app.map.elf') GROUP BY +func_id", zPath);
    assert_true(strlen(zA) > 20);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
    z = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT func_id, sum(dur) FROM xray_calls(%Q) GROUP BY func_id", zPath);
    if( strstr(z, "TEMP B-TREE") ) fail_msg("%s: GROUP BY func_id sorts: %s", azLog[k], z);
    free(z);
  }

  write_many_calls(zPath, sizeof(zPath), "many-calls.xray", 0);
  zWant[0] = 0;
  for(f=1; f<=3; f++){
    long long nCalls = 0, sum = 0, lo = -1, hi = -1;
    size_t m = strlen(zWant);
    for(i=f-1; i<20000; i+=3){
      long long d = 1 + i%17;
      nCalls++; sum += d;
      if( lo<0 || d<lo ) lo = d;
      if( d>hi ) hi = d;
    }
    snprintf(zWant + m, sizeof(zWant) - m, "%s%d|%lld|%lld|%lld|%lld", f>1 ? "\n" : "", f, nCalls, lo, hi, sum);
  }
  for(k=0; k<2; k++){
    const char *zOpt = k ? "max_memory=1" : "";
    z = tl_test_sql_rows(db, "SELECT func_id, count(*), min(dur), max(dur), sum(dur) FROM xray_calls(%Q, %Q) "
                             "GROUP BY func_id", zPath, zOpt);
    assert_string_equal(z, zWant);
    free(z);
    /* (rows of a function that were not together would be groups twice) */
    /* a call's rowid is its entry record's offset */
    zRowids[0] = 0;
    for(f=1; f<=3; f++){
      long long lo = -1, hi = -1, nCalls = 0;
      size_t m = strlen(zRowids);
      for(i=f-1; i<20000; i+=3){
        long long r = i<10000 ? 96 + 16*(long long)i : 160160 + 16*(long long)(i - 10000);
        if( lo<0 ) lo = r;
        hi = r;
        nCalls++;
      }
      snprintf(zRowids + m, sizeof(zRowids) - m, "%s%d|%lld|%lld|%lld", f>1 ? "\n" : "", f, lo, hi, nCalls);
    }
    z = tl_test_sql_rows(db, "SELECT func_id, min(rowid), max(rowid), count(DISTINCT rowid) FROM xray_calls(%Q, %Q) "
                             "GROUP BY func_id", zPath, zOpt);
    assert_string_equal(z, zRowids);
    free(z);
    /* max(dur)'s rowid is that of a call with that dur: 17 ns, i%17 == 16 */
    z = tl_test_sql_rows(db, "SELECT func_id, max(dur), rowid FROM xray_calls(%Q, %Q) GROUP BY func_id",
                         zPath, zOpt);
    {
      char *zLine = strtok(z, "\n");
      for(f=1; f<=3; f++, zLine=strtok(0, "\n")){
        long long id = -1, d = -1, r = -1, iCall;
        assert_non_null(zLine);
        assert_int_equal(sscanf(zLine, "%lld|%lld|%lld", &id, &d, &r), 3);
        assert_int_equal(id, f);
        assert_int_equal(d, 17);
        iCall = r<160160 ? (r - 96)/16 : 10000 + (r - 160160)/16;
        assert_int_equal(iCall%3, f-1);
        assert_int_equal(iCall%17, 16);
      }
      assert_null(zLine);
    }
    free(z);
  }
  {
    /* cut 997 bytes before the end, inside the second thread's buffer: of
    ** its 20000 8-byte records (from byte 160160 of the 320160) the first
    ** 19875 are whole, so calls 0..19936 end and call 19937 is open */
    char *zA, *zB;
    zWant[0] = 0;
    for(f=1; f<=3; f++){
      long long nCalls = 0, nDur = 0, sum = 0;
      size_t m = strlen(zWant);
      for(i=f-1; i<=19937; i+=3){
        nCalls++;
        if( i<=19936 ){ nDur++; sum += 1 + i%17; }
      }
      snprintf(zWant + m, sizeof(zWant) - m, "%s%d|%lld|%lld|%lld", f>1 ? "\n" : "", f, nCalls, nDur, sum);
    }
    write_many_calls(zPath, sizeof(zPath), "many-calls-cut.xray", 997);
    zA = tl_test_sql_rows(db, "SELECT func_id, count(*), count(dur), sum(dur) FROM xray_calls(%Q) GROUP BY func_id", zPath);
    zB = tl_test_sql_rows(db, "SELECT func_id, count(*), count(dur), sum(dur) FROM xray_calls(%Q) GROUP BY +func_id", zPath);
    assert_string_equal(zA, zWant);
    assert_string_equal(zB, zWant);
    free(zA);
    free(zB);
  }
  tl_test_db_close(db);
}

/*
** A position-independent ELF64 (x86-64) whose version-0 sleds hold zero
** addresses, filled in by R_X86_64_RELATIVE relocations, as older clang
** wrote them; built here to the ELF and XRay sled layouts.
*/
static void elf_put(uint8_t *a, size_t *pn, uint64_t v, int nByte){
  int i;
  for(i=0; i<nByte; i++) a[(*pn)++] = (uint8_t)(v >> (8*i));
}

static void xray_pie_map_with_relocations(void **state){
  static const char zShstr[] = "\0.shstrtab\0xray_instr_map\0.rela.dyn\0.symtab\0.strtab\0";
  static const char zStr[] = "\0_Z3fooi\0_ZN2ns3barEv\0";
  uint8_t a[2048];
  size_t n = 0, iShstr, iMap, iRela, iSym, iStr, iSh, k;
  sqlite3 *db;
  char zPath[512], *z;
  const uint64_t fnFoo = 0x1000, fnBar = 0x1080;
  /* sled fields to relocate: (address, function) per sled */
  const uint64_t aFix[4][2] = { {0x1004, fnFoo}, {0x1010, fnFoo}, {0x1084, fnBar}, {0x1090, fnBar} };
  (void)state;
  memset(a, 0, sizeof(a));
  n = 64;                                           /* the ELF header, written last */
  iShstr = n; memcpy(a+n, zShstr, sizeof(zShstr)); n += sizeof(zShstr);
  n = (n + 7) & ~(size_t)7;
  iMap = n;                                         /* 4 sleds, version 0, addresses 0 */
  for(k=0; k<4; k++){
    size_t j = n;
    elf_put(a, &n, 0, 8); elf_put(a, &n, 0, 8);
    a[n++] = (uint8_t)(k%2);                        /* kind: enter, exit */
    a[n++] = 1;                                     /* always instrument */
    a[n++] = 0;                                     /* version 0 */
    n = j + 32;
  }
  iRela = n;
  for(k=0; k<4; k++){
    elf_put(a, &n, 0x2000 + 32*k, 8);     elf_put(a, &n, 8, 8); elf_put(a, &n, aFix[k][0], 8);
    elf_put(a, &n, 0x2000 + 32*k + 8, 8); elf_put(a, &n, 8, 8); elf_put(a, &n, aFix[k][1], 8);
  }
  iSym = n;
  n = iSym + 24;                                    /* the null symbol: zeros */
  elf_put(a, &n, 1, 4); a[n++] = 0x12; a[n++] = 0; elf_put(a, &n, 1, 2); elf_put(a, &n, fnFoo, 8); elf_put(a, &n, 16, 8);
  elf_put(a, &n, 9, 4); a[n++] = 0x12; a[n++] = 0; elf_put(a, &n, 1, 2); elf_put(a, &n, fnBar, 8); elf_put(a, &n, 16, 8);
  iStr = n; memcpy(a+n, zStr, sizeof(zStr)); n += sizeof(zStr);
  n = (n + 7) & ~(size_t)7;
  iSh = n;
  {
    /* section headers: null, .shstrtab, xray_instr_map, .rela.dyn, .symtab, .strtab */
    struct { uint32_t name, type; uint64_t addr, off, size; uint32_t link; uint64_t entsize; } aS[6] = {
      { 0, 0, 0, 0, 0, 0, 0 },
      { 1, 3, 0, iShstr, sizeof(zShstr), 0, 0 },
      { 11, 1, 0x2000, iMap, 4*32, 0, 32 },
      { 26, 4, 0, iRela, 8*24, 4, 24 },
      { 36, 2, 0, iSym, 3*24, 5, 24 },
      { 44, 3, 0, iStr, sizeof(zStr), 0, 0 },
    };
    for(k=0; k<6; k++){
      elf_put(a, &n, aS[k].name, 4); elf_put(a, &n, aS[k].type, 4); elf_put(a, &n, 0, 8);
      elf_put(a, &n, aS[k].addr, 8); elf_put(a, &n, aS[k].off, 8); elf_put(a, &n, aS[k].size, 8);
      elf_put(a, &n, aS[k].link, 4); elf_put(a, &n, 0, 4); elf_put(a, &n, 8, 8); elf_put(a, &n, aS[k].entsize, 8);
    }
  }
  {
    size_t h = 0, nEnd = n;
    memcpy(a, "\177ELF\2\1\1", 7); h = 16;
    elf_put(a, &h, 3, 2);                           /* ET_DYN: position-independent */
    elf_put(a, &h, 62, 2);                          /* x86-64 */
    elf_put(a, &h, 1, 4);
    elf_put(a, &h, 0, 8); elf_put(a, &h, 0, 8); elf_put(a, &h, iSh, 8);
    elf_put(a, &h, 0, 4); elf_put(a, &h, 64, 2); elf_put(a, &h, 56, 2); elf_put(a, &h, 0, 2);
    elf_put(a, &h, 64, 2); elf_put(a, &h, 6, 2); elf_put(a, &h, 1, 2);
    n = nEnd;
  }
  snprintf(zPath, sizeof(zPath), "%s/pie.elf", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, a, n), 0);
  db = tl_test_db();
  z = tl_test_sql_rows(db, "SELECT func_id, printf('0x%%x', address), name, kinds, always_instrument, sleds FROM xray_functions(%Q)", zPath);
  assert_string_equal(z, "1|0x1000|foo(int)|function-enter,function-exit|1|2\n"
                         "2|0x1080|ns::bar()|function-enter,function-exit|1|2");
  free(z);
  tl_test_db_close(db);
}

/* Damaged FDR records: an error naming the offset, after the good records. */
static void xray_corrupt_records_are_named(void **state){
  sqlite3 *db = tl_test_db();
  XW w;
  char zPath[512];
  sqlite3_stmt *pStmt;
  char *zSql;
  int nRow = 0;
  (void)state;
  xw_log(&w, 0, 5);
  /* the exit of f6 (after the custom event) becomes metadata kind 120 */
  {
    size_t i = 32 + 16*5 + 8 + 16 + 8 + 16 + 2;       /* extents, 4 metadata, f5, arg, f6, custom + "hi" */
    w.a[i] = (uint8_t)((120<<1) | 1);
    snprintf(zPath, sizeof(zPath), "%s/bad-kind.xray", tl_test_tmpdir());
    assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
    zSql = sqlite3_mprintf("SELECT type FROM events(%Q)", zPath);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    while( sqlite3_step(pStmt)==SQLITE_ROW ) nRow++;
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_CORRUPT);
    assert_int_equal(nRow, 3);                        /* enter-arg, enter, custom event */
    {
      char zWant[128];
      snprintf(zWant, sizeof(zWant), "bad-kind.xray: offset %zu: unknown metadata record kind 120", i);
      assert_non_null(strstr(sqlite3_errmsg(db), zWant));
    }
    sqlite3_free(zSql);
  }
  tl_test_db_close(db);
}

/*
** compiler-rt 14 under-counts BufferExtents when a buffer holds typed
** events: the records past the count are not a new buffer. What the count
** covers is read, the rest is reported, nothing loops or fails.
*/
static void xray_undercounted_extents_read_what_they_cover(void **state){
  sqlite3 *db = tl_test_db();
  XW w;
  char zPath[512], *z;
  size_t iWrap = 32 + 16*5 + 8 + 16 + 8 + 16 + 2 + 8;   /* the TSCWrap record */
  (void)state;
  xw_log(&w, 0, 5);
  {
    size_t nSave = w.n;
    w.n = 32 + 1;                                       /* BufferExtents' count */
    xw_put(&w, (uint64_t)(iWrap - (32 + 16)), 8);       /* covers up to the wrap only */
    w.n = nSave;
  }
  snprintf(zPath, sizeof(zPath), "%s/undercount.xray", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
  z = tl_test_sql_rows(db, "SELECT type FROM events(%Q)", zPath);
  assert_string_equal(z, "function-enter-arg\nfunction-enter\ncustom-event\nfunction-exit");
  free(z);
  z = tl_test_sql_text(db, "SELECT offset || ': ' || message FROM trace_warnings(%Q)", zPath);
  {
    char zWant[200];
    snprintf(zWant, sizeof(zWant), "%zu: expected a BufferExtents record to start a buffer, found byte 0x07: "
             "the last %zu bytes of the log are not read", iWrap, w.n - iWrap);
    assert_string_equal(z, zWant);
  }
  free(z);
  tl_test_db_close(db);
}

/*
** The model's call matching alone, on llvm-xray's rules (account
** -deduce-sibling-calls, stack): an exit ends the innermost open call of
** its function and the calls above it; an exit of a function that is not
** open is ignored; calls open at the end stay open, outermost first.
*/
static void calls_model_follows_llvm_xray_rules(void **state){
  TlCallStack st;
  TlCall c;
  int i;
  (void)state;
  memset(&st, 0, sizeof(st));
  /* enter 1 (id 10, ts 100), 2 (11, 110), 3 (12, 120), 2 again (13, 130) */
  assert_int_equal(tl_calls_enter(&st, 10, 1, 100, 0), TL_OK);
  assert_int_equal(tl_calls_enter(&st, 11, 2, 110, 1), TL_OK);
  assert_int_equal(tl_calls_enter(&st, 12, 3, 120, 0), TL_OK);
  assert_int_equal(tl_calls_enter(&st, 13, 2, 130, 0), TL_OK);
  assert_int_equal(tl_calls_exit(&st, 9), 0);          /* not open: ignored */
  assert_int_equal(st.n, 4);
  assert_int_equal(tl_calls_exit(&st, 2), 1);          /* the innermost 2 */
  tl_calls_pop(&st, 140, &c);
  assert_int_equal(c.fr.id, 13);
  assert_int_equal(c.depth, 3);
  assert_true(c.bParent && c.parent==12 && c.bDone && c.tsEnd==140);
  assert_int_equal(tl_calls_exit(&st, 2), 2);          /* 3's exit was lost */
  tl_calls_pop(&st, 150, &c);
  assert_true(c.fr.id==12 && c.fr.funcId==3 && c.depth==2 && c.parent==11 && c.tsEnd==150);
  tl_calls_pop(&st, 150, &c);
  assert_true(c.fr.id==11 && c.fr.cpu==1 && c.fr.ts==110 && c.depth==1 && c.parent==10);
  /* open at the end: 1, then 4 inside it */
  assert_int_equal(tl_calls_enter(&st, 14, 4, 160, 0), TL_OK);
  tl_calls_get(&st, 0, 0, 0, &c);
  assert_true(c.fr.id==10 && c.depth==0 && !c.bParent && !c.bDone);
  tl_calls_get(&st, 1, 0, 0, &c);
  assert_true(c.fr.id==14 && c.depth==1 && c.bParent && c.parent==10 && !c.bDone);
  /* depth is bounded: past it entries are not opened */
  for(i=(int)st.n; i<TL_CALLS_MAX_DEPTH; i++) assert_int_equal(tl_calls_enter(&st, 100+i, 5, 200, 0), TL_OK);
  assert_int_equal(tl_calls_enter(&st, 1, 6, 300, 0), TL_CALLS_TOO_DEEP);
  assert_int_equal(tl_calls_exit(&st, 6), 0);
  assert_int_equal(tl_calls_exit(&st, 1), TL_CALLS_MAX_DEPTH);
  tl_calls_free(&st);
  assert_int_equal(st.n, 0);
}

/* ---- accel=off: a plain scan gives the same rows ------------------------- */

/* A scan of log zLog (options zOpts): tl_test_scan_lines() on it. */
static void scan_log(const char *zLog, const char *zOpts, int iTable, const TlFilter *f,
                     int bRowid, TlScanLines *pOut){
  TlTrace *p;
  TlErr e;
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zLog, zOpts, &p, &e), TL_OK);
  tl_test_scan_lines(p, iTable, f, f->mCols, bRowid, -1, pOut);
  tl_trace_release(p);
}

/* xray_calls GROUP BY func_id, dur varying: the engine's grouped output
** (nVaryCap: the bytes of durs in memory, 0 default); the bytes spilled. */
static uint64_t scan_log_grouped(const char *zLog, const char *zOpts, const TlFilter *f,
                                 int bRowid, uint64_t nVaryCap, TlScanLines *pOut){
  TlTrace *p;
  TlErr e;
  uint64_t n;
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zLog, zOpts, &p, &e), TL_OK);
  n = tl_test_scan_vary(p, TL_TAB_XRAY_CALLS, f, f->mCols, bRowid, TL_XC_FUNC_ID,
                        (uint64_t)1<<TL_XC_DUR, nVaryCap, pOut);
  tl_trace_release(p);
  return n;
}

static void assert_lines_equal(const TlLines *a, const TlLines *b){
  size_t k;
  assert_int_equal(a->n, b->n);
  for(k=0; k<a->n; k++) assert_string_equal(a->az[k], b->az[k]);
}

/*
** accel=off (TlFilter.bPlain) reads every record: count(*)'s shape (no
** column) and xray_calls GROUP BY func_id's shape (func_id, name, dur) give
** the same rows as the accelerated scans (counts from the index, calls
** grouped on two threads), and never a repeated or lazy row. The calls per
** function are llvm-xray account's counts.
*/
static void xray_plain_scans_equal_accelerated(void **state){
  static const char *const azLog[] = { "fdr", "basic", "fdr-O2", "fdr-default", "basic-default" };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zLog[512], zOpts[512], zLine[512];
    TlFilter f;
    TlScanLines acc, plain;
    TlLines want = {0}, got = {0};
    FILE *fa;
    size_t i;
    snprintf(zLog, sizeof(zLog), XRAY_DIR "%s.xray", azLog[k]);
    snprintf(zOpts, sizeof(zOpts), "binary=" XRAY_DIR "%s", k==2 ? "app-O2.map.elf" : "app.map.elf");
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
    /* events, count(*) */
    scan_log(zLog, zOpts, TL_TAB_EVENTS, &f, 1, &acc);
    f.bPlain = 1;
    scan_log(zLog, zOpts, TL_TAB_EVENTS, &f, 1, &plain);
    assert_true(acc.nRepeated > 0);
    assert_int_equal(plain.nRepeated, 0);
    assert_int_equal(plain.nLazy, 0);
    assert_true(plain.rows.n > 5);
    assert_lines_equal(&acc.rows, &plain.rows);
    tl_lines_free(&acc.rows);
    tl_lines_free(&plain.rows);
    /* xray_calls GROUP BY func_id */
    f.bPlain = 0;
    f.mCols = (1u<<TL_XC_FUNC_ID) | (1u<<TL_XC_NAME) | (1u<<TL_XC_DUR);
    scan_log_grouped(zLog, zOpts, &f, 0, 0, &acc);
    f.bPlain = 1;
    scan_log(zLog, zOpts, TL_TAB_XRAY_CALLS, &f, 0, &plain);
    assert_int_equal(plain.nRepeated, 0);
    assert_int_equal(plain.nLazy, 0);
    assert_lines_equal(&acc.rows, &plain.rows);
    /* finished calls per function: llvm-xray account's count column */
    snprintf(zLine, sizeof(zLine), XRAY_DIR "%s.account.txt", azLog[k]);
    fa = fopen(zLine, "r");
    assert_non_null(fa);
    while( fgets(zLine, sizeof(zLine), fa) ){
      int id;
      long long nCalls;
      if( sscanf(zLine, " %d %lld [", &id, &nCalls)!=2 ) continue;
      snprintf(zLine, sizeof(zLine), "%d|%lld", id, nCalls);
      tl_lines_add(&want, zLine);
    }
    fclose(fa);
    for(i=0; i<plain.rows.n; ){
      long long id = atoll(plain.rows.az[i] + 1), nCalls = 0;
      for(; i<plain.rows.n && atoll(plain.rows.az[i] + 1)==id; i++){
        if( strstr(plain.rows.az[i], "|NULL")==0 ) nCalls++;
      }
      snprintf(zLine, sizeof(zLine), "%lld|%lld", id, nCalls);
      tl_lines_add(&got, zLine);
    }
    tl_lines_sort(&want);
    tl_lines_sort(&got);
    assert_true(want.n >= 3);
    assert_lines_equal(&want, &got);
    tl_lines_free(&want);
    tl_lines_free(&got);
    tl_lines_free(&acc.rows);
    tl_lines_free(&plain.rows);
  }
}

/*
** The rowids of the repeats of each repeated row of a grouped scan asked
** for backwards are the ones asked for in order: the rows repeated.
*/
static int grouped_rowids_any_order(const char *zLog, const char *zOpts, const TlFilter *f){
  TlTrace *p;
  TlGroup *g;
  TlFilterCols cols;
  TlErr e;
  TlRow r;
  int rc, nRepeated = 0;
  tl_err_clear(&e);
  memset(&cols, 0, sizeof(cols));
  cols.iTs = cols.iCpu = cols.iKey = -1;
  assert_int_equal(tl_trace_open(zLog, zOpts, &p, &e), TL_OK);
  assert_int_equal(tl_group_open(p, TL_TAB_XRAY_CALLS, TL_MAX_NCOL, f, &cols,
                                 (uint64_t)1<<TL_XC_FUNC_ID, &g, &e), TL_OK);
  tl_group_set_vary(g, (uint64_t)1<<TL_XC_DUR);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_group_next(g, &r))==TL_ROW ){
    int64_t k, *a;
    if( r.nRepeat<=1 ) continue;
    a = malloc((size_t)r.nRepeat*sizeof(int64_t));
    assert_non_null(a);
    for(k=0; k<r.nRepeat; k++) assert_int_equal(tl_group_rowid(g, k, &a[k]), TL_OK);
    for(k=r.nRepeat-1; k>=0; k--){
      int64_t iRowid = 0;
      assert_int_equal(tl_group_rowid(g, k, &iRowid), TL_OK);
      assert_int_equal(iRowid, a[k]);
    }
    free(a);
    nRepeated++;
  }
  assert_int_equal(rc, TL_DONE);
  tl_group_close(g);
  tl_trace_release(p);
  return nRepeated;
}

/*
** Under GROUP BY func_id (the engine's, dur varying) a call's rowid is its own, as
** in a plain scan, and repeat k of a grouped row pairs the dur of a call
** with that call's rowid: per function, the (rowid, dur) pairs equal the
** plain scan's, also when the durs and ids go through temporary files
** (max_memory=1). In SQL, max(dur)'s rowid is that of a call with that dur.
*/
static void xray_grouped_rowids_are_the_calls(void **state){
  static const char *const azLog[] = { "fdr", "basic", "fdr-O2", "fdr-default", "basic-default",
                                       "many-calls.xray", "many-calls-cut.xray" };
  sqlite3 *db = tl_test_db();
  size_t k;
  int m;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    for(m=0; m<2; m++){
      char zLog[512], zOpts[512], zPlain[600];
      TlFilter f;
      TlScanLines grouped, plain;
      char *z, *zLine, *zNext;
      int nRows = 0;
      if( k>=5 ){
        /* (two threads; with max_memory=1 the durs and ids go to files) */
        write_many_calls(zLog, sizeof(zLog), azLog[k], k==6 ? 997 : 0);
        snprintf(zOpts, sizeof(zOpts), "%s", m ? "max_memory=1" : "");
      }else{
        snprintf(zLog, sizeof(zLog), XRAY_DIR "%s.xray", azLog[k]);
        snprintf(zOpts, sizeof(zOpts), "binary=" XRAY_DIR "%s%s", k==2 ? "app-O2.map.elf" : "app.map.elf",
                 m ? " max_memory=1" : "");
      }
      snprintf(zPlain, sizeof(zPlain), "%s accel=off", zOpts);
      memset(&f, 0, sizeof(f));
      f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
      f.mCols = (1u<<TL_XC_FUNC_ID) | (1u<<TL_XC_DUR);
      /* (max_memory=1: a sixteenth of 1 MiB holds 8192 of the 20000 durs) */
      if( scan_log_grouped(zLog, zOpts, &f, 1, 0, &grouped)==0 && m && k>=5 ){
        fail_msg("%s: max_memory=1 spilled no dur", azLog[k]);
      }
      f.bPlain = 1;
      scan_log(zLog, zOpts, TL_TAB_XRAY_CALLS, &f, 1, &plain);
      assert_true(grouped.nRepeated > 0);
      assert_true(plain.rows.n > 5);
      assert_lines_equal(&grouped.rows, &plain.rows);
      tl_lines_free(&grouped.rows);
      tl_lines_free(&plain.rows);
      f.bPlain = 0;
      assert_true(grouped_rowids_any_order(zLog, zOpts, &f) > 0);
      /* max(dur) with its rowid: the row at that rowid has that dur */
      z = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT func_id, max(dur), rowid FROM xray_calls(%Q, %Q) "
                               "GROUP BY func_id", zLog, zOpts);
      if( strstr(z, "TEMP B-TREE") ) fail_msg("%s: GROUP BY func_id sorts: %s", azLog[k], z);
      free(z);
      z = tl_test_sql_rows(db, "SELECT func_id, max(dur), rowid FROM xray_calls(%Q, %Q) GROUP BY func_id",
                           zLog, zOpts);
      for(zLine=z; zLine && *zLine; zLine=zNext){
        long long id = 0, r = 0;
        char zDur[32];
        zNext = strchr(zLine, '\n');
        if( zNext ) *zNext++ = 0;
        assert_int_equal(sscanf(zLine, "%lld|%31[0-9]|%lld", &id, zDur, &r), 3);
        assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM xray_calls(%Q, %Q) "
                                             "WHERE rowid = %lld AND func_id = %lld AND dur = %s",
                                         zLog, zPlain, r, id, zDur), 1);
        nRows++;
      }
      assert_true(nRows >= 3);
      free(z);
    }
  }
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(xray,
  cmocka_unit_test(calls_model_follows_llvm_xray_rules),
  cmocka_unit_test(xray_plain_scans_equal_accelerated),
  cmocka_unit_test(xray_grouped_rowids_are_the_calls),
  cmocka_unit_test(xray_undercounted_extents_read_what_they_cover),
  cmocka_unit_test(xray_pie_map_with_relocations),
  cmocka_unit_test(xray_corrupt_records_are_named),
  cmocka_unit_test(xray_synthetic_versions_and_byte_orders),
  cmocka_unit_test(xray_fuzz_finds_are_read_cleanly),
  cmocka_unit_test(xray_functions_equal_llvm_xray_extract),
  cmocka_unit_test(xray_names_equal_llvm_xray_symbolize),
  cmocka_unit_test(account_sql_equals_llvm_xray_account),
  cmocka_unit_test(xray_index_equals_a_scan),
  cmocka_unit_test(xray_calls_matched_in_runs),
  cmocka_unit_test(xray_open_runs_equal_a_scan),
  cmocka_unit_test(xray_calls_grouped_by_function),
  cmocka_unit_test(xray_calls_nest_like_the_records),
  cmocka_unit_test(xray_fdr_records_equal_llvm_xray),
  cmocka_unit_test(xray_basic_records_equal_llvm_xray),
  cmocka_unit_test(xray_default_threshold_records_equal_llvm_xray),
  cmocka_unit_test(xray_tail_exit_records_equal_llvm_xray),
  cmocka_unit_test(xray_custom_events_and_threads),
  cmocka_unit_test(xray_count_reads_no_packet),
  cmocka_unit_test(xray_cycles_to_ns_any_frequency),
  cmocka_unit_test(xray_truncation_and_empty_logs),
);
