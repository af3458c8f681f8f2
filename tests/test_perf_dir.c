/*
** test_perf_dir.c: perf data directories (perf record --threads) against
** perf.
**
** testdata/perf/dir/thr.data is one (record.sh): DIR/data with the header
** and the records perf synthesizes, DIR/data.0 and DIR/data.1 with the
** samples of a loop on CPU 0 and one on CPU 1. Beside it what perf script,
** perf report --stats and --sort comm printed for it, and --stats of a
** copy without data.0.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define DIR_DIR  TL_TESTDATA_DIR "/perf/dir/"
#define DIR_DATA DIR_DIR "thr.data"

/*
** The rows of perf script's output zFile, one a line ('|' between columns)
** as xLine makes them from each line of the file (it appends to pOut,
** counting the rows it starts in *pnRow); the count in *pnRow.
*/
static char *script_rows(const char *zFile, void (*xLine)(const char*, sqlite3_str*, int*), int *pnRow){
  FILE *f = fopen(zFile, "r");
  char zLine[512];
  sqlite3_str *pOut = sqlite3_str_new(0);
  *pnRow = 0;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ) xLine(zLine, pOut, pnRow);
  fclose(f);
  return sqlite3_str_finish(pOut);
}

/* A sample's line of thr.script.txt: comm, tid, cpu, time, period, ip. */
static void sample_line(const char *zLine, sqlite3_str *pOut, int *pnRow){
  char zComm[64], zEvent[64], zIp[32];
  long tid, cpu, sec, usec;
  long long period;
  if( sscanf(zLine, " %63s %ld [%ld] %ld.%ld: %lld %63s %31s", zComm, &tid, &cpu, &sec, &usec,
             &period, zEvent, zIp)!=8 ) fail_msg("perf script line: %s", zLine);
  sqlite3_str_appendf(pOut, "%s%s|%ld|%ld|%ld%06ld|%lld|%s", *pnRow ? "\n" : "", zComm, tid, cpu,
                      sec, usec, period, zIp);
  ++*pnRow;
}

/*
** The samples in ts order (the engine's merge of the files, SQLite's sort,
** and under accel=off) are perf script's lines in its order: comm, tid,
** cpu, time (perf prints microseconds), period, ip.
*/
static void perf_dir_samples_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  int nLine, iOrder;
  char *zRef = script_rows(DIR_DIR "thr.script.txt", sample_line, &nLine);
  (void)state;
  assert_true(nLine>=300);
  for(iOrder=0; iOrder<3; iOrder++){
    char *zOurs = tl_test_sql_rows(db,
        "SELECT comm, tid, cpu, ts/1000, value, printf('%%x', ip) FROM events('" DIR_DATA "', '%s') "
        "WHERE type = 'SAMPLE' ORDER BY %s", iOrder==2 ? "accel=off" : "", iOrder ? "ts, rowid" : "ts");
    assert_string_equal(zOurs, zRef);
    free(zOurs);
  }
  /* both CPUs, so both data.N files, are in it */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(DISTINCT cpu) FROM events('" DIR_DATA "') "
                                       "WHERE type = 'SAMPLE'"), 2);
  sqlite3_free(zRef);
  tl_test_db_close(db);
}

/* perf report --stats of zStats: "NAME events: N" equals the records of each type of zPath. */
static void stats_equal(sqlite3 *db, const char *zStats, const char *zPath, const char *zOpts){
  FILE *f = fopen(zStats, "r");
  char zLine[512];
  int nTypes = 0;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zType[64];
    long long nEvents;
    if( strstr(zLine, "stats:") && !strstr(zLine, "Aggregated") ) break;   /* then per event */
    if( sscanf(zLine, " %63s events: %lld", zType, &nEvents)!=2 || strcmp(zType, "TOTAL")==0 ) continue;
    nTypes++;
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, %Q) WHERE type = %Q",
                                     zPath, zOpts, zType), nEvents);
  }
  fclose(f);
  assert_true(nTypes>=5);
}

/* perf report --stats and --sort comm of the directory. */
static void perf_dir_stats_and_comms_equal_perf_report(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(DIR_DIR "thr.report-comm.txt", "r");
  char zLine[512];
  int nComm = 0;
  (void)state;
  stats_equal(db, DIR_DIR "thr.stats.txt", DIR_DATA, "");
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zPct[32], zComm[64];
    long long n;
    if( sscanf(zLine, " %31s %lld %63s", zPct, &n, zComm)!=3 || strchr(zPct, '%')==0 ) continue;
    nComm++;
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" DIR_DATA "') "
                                         "WHERE type = 'SAMPLE' AND comm = %Q", zComm), n);
  }
  fclose(f);
  assert_true(nComm>=2);
  tl_test_db_close(db);
}

/*
** DIR/data given reads the whole directory; DIR/data.N given alone is an
** error naming the directory to open.
*/
static void perf_dir_parts_given_alone(void **state){
  sqlite3 *db = tl_test_db();
  char *zErr;
  (void)state;
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" DIR_DATA "/data')"),
                   tl_test_sql_int(db, "SELECT count(*) FROM events('" DIR_DATA "')"));
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events('" DIR_DATA "/data.1')");
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "data.1 is one part of the perf data directory"));
  assert_non_null(strstr(zErr, "open the directory"));
  free(zErr);
  tl_test_db_close(db);
}

/* A copy without data.0: one warning names it, the rest is read as perf reads it. */
static void perf_dir_missing_part_is_a_warning(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zCmd[2048];
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/no-0.data", tl_test_tmpdir());
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s' && cp -r '" DIR_DATA "' '%s' && rm '%s/data.0'", zDir, zDir, zDir);
  assert_int_equal(system(zCmd), 0);
  stats_equal(db, DIR_DIR "thr.stats-no-0.txt", zDir, "");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q) "
                                       "WHERE message LIKE '%%data.N file is missing (the first: data.0)%%'", zDir), 1);
  tl_test_db_close(db);
}

/*
** A directory of 120 threads' files (data.1 copied): each file is a stream
** of the engine's merge, read through windows under the descriptor budget;
** with max_memory=1 the rows, rowids included, are the same, in the same
** order, and in ts order by the merge as by SQLite's sort.
*/
static void perf_dir_many_files_merged(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zCmd[2048];
  const char *zCols = "rowid, ts, cpu, pid, tid, type, name, value, ip, symbol";
  int i;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/many.data", tl_test_tmpdir());
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s' && cp -r '" DIR_DATA "' '%s'", zDir, zDir);
  assert_int_equal(system(zCmd), 0);
  for(i=2; i<120; i++){
    snprintf(zCmd, sizeof(zCmd), "cp '" DIR_DATA "/data.1' '%s/data.%d'", zDir, i);
    assert_int_equal(system(zCmd), 0);
  }
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir) > 100*50);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, 'max_memory=1')", zDir),
                   tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir));
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT %s FROM events(%Q) "
                                       "EXCEPT SELECT %s FROM events(%Q, 'max_memory=1'))",
                                   zCols, zDir, zCols, zDir), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT %s FROM events(%Q, 'max_memory=1') "
                                       "EXCEPT SELECT %s FROM events(%Q))", zCols, zDir, zCols, zDir), 0);
  /* in the same order */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT rowid r, ts, row_number() OVER () n "
                                       "FROM events(%Q)) a JOIN (SELECT rowid r, ts, row_number() OVER () n "
                                       "FROM events(%Q, 'max_memory=1')) b USING (n) WHERE a.r!=b.r OR a.ts!=b.ts",
                                   zDir, zDir), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT r, ts, row_number() OVER () n FROM "
                                       "(SELECT rowid r, ts FROM events(%Q) ORDER BY ts)) a JOIN (SELECT rowid r, ts, "
                                       "row_number() OVER (ORDER BY ts, rowid) n FROM events(%Q, 'accel=off')) b "
                                       "USING (n) WHERE a.r!=b.r OR a.ts IS NOT b.ts", zDir, zDir), 0);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_dir,
  cmocka_unit_test(perf_dir_samples_equal_perf_script),
  cmocka_unit_test(perf_dir_stats_and_comms_equal_perf_report),
  cmocka_unit_test(perf_dir_parts_given_alone),
  cmocka_unit_test(perf_dir_missing_part_is_a_warning),
  cmocka_unit_test(perf_dir_many_files_merged),
);
