/*
** test_perf_dir.c: perf data directories (perf record --threads) against
** perf.
**
** testdata/perf/dir/thr.data is one (record.sh): DIR/data with the header
** and the records perf synthesizes, DIR/data.0 and DIR/data.1 with the
** samples of a loop on CPU 0 and one on CPU 1. Beside it what perf script,
** perf report --stats and --sort comm printed for it, and --stats of a
** copy without data.0. testdata/perf/dir/cg.data is the same loops with
** their callchains, and what perf script printed for it.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define DIR_DIR  TL_TESTDATA_DIR "/perf/dir/"
#define DIR_DATA DIR_DIR "thr.data"
#define DIR_CG   DIR_DIR "cg.data"

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
** A line of cg.script.txt: a sample's (comm, tid, cpu, time) starts a row,
** each address line after it appends to it (a user address within its
** page: perf prints it as its offset in its file's mapping).
*/
static void callchain_line(const char *zLine, sqlite3_str *pOut, int *pnRow){
  char zComm[64], zIp[32];
  long tid, cpu, sec, usec;
  if( sscanf(zLine, " %63s %ld [%ld] %ld.%ld:", zComm, &tid, &cpu, &sec, &usec)==5 ){
    sqlite3_str_appendf(pOut, "%s%s|%ld|%ld|%ld%06ld|", *pnRow ? "\n" : "", zComm, tid, cpu, sec, usec);
    ++*pnRow;
  }else if( sscanf(zLine, " %31s", zIp)==1 ){
    unsigned long long ip = strtoull(zIp, 0, 16);
    int nOut = sqlite3_str_length(pOut);
    if( ip < 0xffff800000000000ull ) ip &= 4095;     /* (not the kernel's) */
    sqlite3_str_appendf(pOut, "%s%llx", nOut && sqlite3_str_value(pOut)[nOut-1]!='|' ? "," : "", ip);
  }
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

/*
** perf script's samples with their callchains (cg.script.txt: a sample's
** line, then an address a line, then an empty line) are the samples in
** ts order, each with its callchains rows in depth order: comm, tid, cpu,
** time in microseconds, the addresses.
*/
static void perf_dir_callchains_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  int nSample, iPlain;
  char *zRef = script_rows(DIR_DIR "cg.script.txt", callchain_line, &nSample);
  size_t n = strlen(zRef);
  (void)state;
  assert_true(nSample>=200);
  for(iPlain=0; iPlain<2; iPlain++){
    const char *zOpt = iPlain ? "accel=off" : "";
    char *zOurs = tl_test_sql_rows(db,
        "SELECT e.comm, e.tid, e.cpu, e.ts/1000, (SELECT group_concat(x, ',') FROM "
        "(SELECT printf('%%x', CASE WHEN ip BETWEEN -140737488355328 AND -1 THEN ip ELSE ip & 4095 END) x "
        "FROM callchains('" DIR_CG "', %Q) c WHERE c.event = e.rowid "
        "ORDER BY c.depth)) FROM events('" DIR_CG "', %Q) e WHERE e.type = 'SAMPLE' ORDER BY e.ts",
        zOpt, zOpt);
    assert_int_equal(strlen(zOurs), n);
    assert_string_equal(zOurs, zRef);
    free(zOurs);
  }
  sqlite3_free(zRef);
  tl_test_db_close(db);
}

/*
** A rowid names its file and its record: every row of events (and of
** callchains, by its sample's rowid) is the row WHERE rowid = r gives; the
** rowids of a file's records are in its packets, and perf record --threads
** writes CPU N's samples to data.N.
*/
static void perf_dir_rowids_round_trip(void **state){
  sqlite3 *db = tl_test_db();
  const char *azPath[] = { DIR_DATA, DIR_CG };
  int i;
  (void)state;
  for(i=0; i<2; i++){
    const char *zPath = azPath[i];
    const char *zCols = "rowid, ts, cpu, pid, tid, type, name, value, ip, comm, track, args";
    int nRow = tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath);
    assert_true(nRow>=300);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(DISTINCT rowid) FROM events(%Q)", zPath), nRow);
    /* each row again by its rowid, plain and not */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events(%Q) a WHERE (SELECT count(*) FROM (SELECT %s FROM events(%Q) b "
        "WHERE b.rowid = a.rowid INTERSECT SELECT %s FROM events(%Q) c WHERE c.rowid = a.rowid))=1",
        zPath, zCols, zPath, zCols, zPath), nRow);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events(%Q) a WHERE (SELECT count(*) FROM (SELECT %s FROM events(%Q, 'accel=off') b "
        "WHERE b.rowid = a.rowid INTERSECT SELECT %s FROM events(%Q) c WHERE c.rowid = a.rowid))=1",
        zPath, zCols, zPath, zCols, zPath), nRow);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events(%Q) e JOIN packets(%Q) p ON e.rowid >= p.offset "
        "AND e.rowid < p.offset + p.size WHERE e.type = 'SAMPLE' AND p.file = 'data.' || e.cpu", zPath, zPath),
        tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type = 'SAMPLE'", zPath));
  }
  /* a sample's frames by its rowid: those of the scan of every frame */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM (SELECT event, depth, ip FROM callchains('" DIR_CG "') "
      "EXCEPT SELECT c.event, c.depth, c.ip FROM events('" DIR_CG "') e "
      "JOIN callchains('" DIR_CG "') c ON c.event = e.rowid)"), 0);
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM callchains('" DIR_CG "')") > 500);
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

/* A data.N cut short: its warning names that file and an offset in it. */
static void perf_dir_cut_part_is_named(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zCmd[2048];
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/cut.data", tl_test_tmpdir());
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s' && cp -r '" DIR_DATA "' '%s' && truncate -s 5003 '%s/data.1'",
           zDir, zDir, zDir);
  assert_int_equal(system(zCmd), 0);
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir) > 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q) WHERE file = 'data.1' "
                                       "AND offset < 5003 AND message LIKE '%%cut short%%'", zDir), 1);
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
  cmocka_unit_test(perf_dir_callchains_equal_perf_script),
  cmocka_unit_test(perf_dir_rowids_round_trip),
  cmocka_unit_test(perf_dir_stats_and_comms_equal_perf_report),
  cmocka_unit_test(perf_dir_parts_given_alone),
  cmocka_unit_test(perf_dir_missing_part_is_a_warning),
  cmocka_unit_test(perf_dir_cut_part_is_named),
  cmocka_unit_test(perf_dir_many_files_merged),
);
