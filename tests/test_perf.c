/*
** test_perf.c: the perf.data reader against perf's own outputs.
**
** testdata/perf/ holds small files recorded with perf record (record.sh)
** and what perf said about them: perf script (.script.txt), perf report
** --stats (.stats.txt) and --header-only (.header.txt). The tests parse
** those outputs and compare them with tracelite's tables, so every
** expected value comes from perf. Synthetic files written here cover what
** perf on this machine cannot make: the other byte order and corruption.
*/
#include "tltest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "perf/perf_int.h"
#include "trace.h"

#define PERF_DIR TL_TESTDATA_DIR "/perf/"

static const char *const azFiles[] = {
  "cpu-clock-g", "multi", "zstd", "pipe", "sched", "switch", "dwarf"
};
#define N_FILES (sizeof(azFiles)/sizeof(azFiles[0]))


/*
** The sample lines of a perf script output as "tid|cpu|sec.usec|period|event|ip"
** (cpu and ip empty when perf did not print them).
*/
static void script_samples(const char *zFile, TlLines *pOut, int *pbCpu, int *pbIp){
  char zPath[512];
  FILE *f;
  char zLine[4096];
  snprintf(zPath, sizeof(zPath), PERF_DIR "%s.script.txt", zFile);
  f = fopen(zPath, "r");
  assert_non_null(f);
  *pbCpu = 0;
  *pbIp = 0;
  while( fgets(zLine, sizeof(zLine), f) ){
    char *az[64];
    int n = 0, i, iTime = -1;
    char *z = zLine;
    char zCpu[32] = "", zIp[32] = "", zOut[256];
    if( zLine[0]=='\t' || zLine[0]=='\n' ) continue;
    while( n<64 ){
      while( *z && isspace((unsigned char)*z) ) z++;
      if( *z==0 ) break;
      az[n++] = z;
      while( *z && !isspace((unsigned char)*z) ) z++;
      if( *z ) *z++ = 0;
    }
    for(i=1; i<n; i++){
      size_t k = strlen(az[i]);
      char *zDot = strchr(az[i], '.');
      if( k>8 && az[i][k-1]==':' && zDot && (size_t)(az[i]+k-1-zDot)==7 && isdigit((unsigned char)az[i][0]) ){
        iTime = i;
        break;
      }
    }
    if( iTime<2 || iTime+2>=n ) continue;
    az[iTime][strlen(az[iTime])-1] = 0;
    if( az[iTime-1][0]=='[' ){
      snprintf(zCpu, sizeof(zCpu), "%d", atoi(az[iTime-1]+1));
      *pbCpu = 1;
    }
    if( iTime+3<n && isxdigit((unsigned char)az[iTime+3][0]) ){
      snprintf(zIp, sizeof(zIp), "%s", az[iTime+3]);
      *pbIp = 1;
    }
    az[iTime+2][strlen(az[iTime+2])-1] = 0;      /* "cpu-clock:" */
    snprintf(zOut, sizeof(zOut), "%s|%s|%s|%s|%s|%s",
             az[iTime-1 - (zCpu[0] ? 1 : 0)], zCpu, az[iTime], az[iTime+1], az[iTime+2], zIp);
    tl_lines_add(pOut, zOut);
  }
  fclose(f);
  tl_lines_sort(pOut);
}

static void perf_samples_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<N_FILES; k++){
    TlLines want, got;
    int bCpu, bIp;
    sqlite3_stmt *pStmt;
    char *zSql;
    size_t i;
    memset(&want, 0, sizeof(want));
    memset(&got, 0, sizeof(got));
    script_samples(azFiles[k], &want, &bCpu, &bIp);
    assert_true(want.n > 0);
    zSql = sqlite3_mprintf(
        "SELECT tid, %s, printf('%%d.%%06d', ts/1000000000, (ts/1000)%%1000000), value, name, %s"
        " FROM events('" PERF_DIR "%q.data') WHERE type='SAMPLE'",
        bCpu ? "cpu" : "''", bIp ? "printf('%x', ip)" : "''", azFiles[k]);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      char zRow[256];
      snprintf(zRow, sizeof(zRow), "%s|%s|%s|%s|%s|%s",
               sqlite3_column_text(pStmt, 0), sqlite3_column_text(pStmt, 1),
               sqlite3_column_text(pStmt, 2), sqlite3_column_text(pStmt, 3),
               sqlite3_column_text(pStmt, 4), sqlite3_column_text(pStmt, 5));
      tl_lines_add(&got, zRow);
    }
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
    tl_lines_sort(&got);
    if( got.n!=want.n ) fail_msg("%s: %zu samples, perf script has %zu", azFiles[k], got.n, want.n);
    for(i=0; i<got.n; i++){
      if( strcmp(got.az[i], want.az[i]) ){
        fail_msg("%s: sample differs: ours %s, perf script %s", azFiles[k], got.az[i], want.az[i]);
      }
    }
    tl_lines_free(&want);
    tl_lines_free(&got);
  }
  tl_test_db_close(db);
}

/* Every "NAME events: N" line of perf report --stats's aggregated section. */
static void perf_record_counts_equal_perf_report_stats(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<N_FILES; k++){
    char zPath[512], zLine[512];
    FILE *f;
    int nChecked = 0;
    int64_t nTotal = -1, nContainers = 0;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.stats.txt", azFiles[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zName[64];
      long long n;
      if( strstr(zLine, " stats:") && !strstr(zLine, "Aggregated") ) break;  /* per-event sections */
      if( sscanf(zLine, " %63s events: %lld", zName, &n)!=2 ) continue;
      if( strcmp(zName, "TOTAL")==0 ){ nTotal = n; continue; }
      if( strcmp(zName, "COMPRESSED")==0 ){
        nContainers = n;                             /* containers are not rows */
        assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') WHERE type='COMPRESSED'", azFiles[k]), 0);
        continue;
      }
      if( tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') WHERE type=%Q", azFiles[k], zName)!=n ){
        fail_msg("%s: %s count differs from perf report --stats (%lld)", azFiles[k], zName, n);
      }
      nChecked++;
    }
    fclose(f);
    assert_true(nChecked>=5);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data')", azFiles[k]) + nContainers, nTotal);
  }
  tl_test_db_close(db);
}

/*
** type = 'X' is pushed down: records of other types are skipped by their
** header, and nothing is decoded when only type and rowid are used. The
** per-event "SAMPLE events" of perf report --stats hold for each path (type
** alone, with name, with a cpu filter, and not pushed: another collation),
** and the pushed scans give the same rowids as one SQLite filters itself.
*/
static void perf_type_pushdown_equals_perf_report_stats(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<N_FILES; k++){
    char zPath[512], zLine[512], zEvent[64] = "";
    FILE *f;
    int nEvents = 0;
    int64_t nAll = -1, nSum = 0;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.stats.txt", azFiles[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      long long n;
      char *zStats = strstr(zLine, " stats:");
      if( zStats && !strstr(zLine, "Aggregated") ){
        char *z = zLine;
        while( *z==' ' ) z++;
        *zStats = 0;
        snprintf(zEvent, sizeof(zEvent), "%.63s", z);
        continue;
      }
      if( sscanf(zLine, " SAMPLE events: %lld", &n)!=1 ) continue;
      if( zEvent[0]==0 ){ nAll = n; continue; }
      if( tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                              "WHERE type='SAMPLE' AND name=%Q", azFiles[k], zEvent)!=n ){
        fail_msg("%s: SAMPLE count of %s differs from perf report --stats (%lld)",
                 azFiles[k], zEvent, n);
      }
      nSum += n;
      nEvents++;
    }
    fclose(f);
    assert_true(nAll>0);
    if( nEvents>0 ) assert_int_equal(nSum, nAll);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                                         "WHERE type='SAMPLE'", azFiles[k]), nAll);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                                         "WHERE type='sample' COLLATE NOCASE", azFiles[k]), nAll);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                                         "WHERE 'SAMPLE'=type AND cpu IS NOT NULL OR type='SAMPLE' AND cpu IS NULL",
                                         azFiles[k]), nAll);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                                         "WHERE type='sample'", azFiles[k]), 0);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                                         "WHERE type='SAMPLE' AND type='MMAP'", azFiles[k]), 0);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') "
                                         "WHERE type=NULL", azFiles[k]), 0);
    assert_int_equal(
        tl_test_sql_int(db, "SELECT sum(rowid %% 1000003) FROM events('" PERF_DIR "%s.data') "
                            "WHERE type='SAMPLE'", azFiles[k]),
        tl_test_sql_int(db, "SELECT sum(rowid %% 1000003) FROM events('" PERF_DIR "%s.data') "
                            "WHERE type||''='SAMPLE'", azFiles[k]));
  }
  tl_test_db_close(db);
}

/*
** count(*) with nothing but type = 'SAMPLE' (or no constraint) is answered
** from the chunk index's counts: no chunk is read. The rowids such a scan
** gives when asked are still the records' file offsets, as perf report -D
** prints them, in file order; one asked in the middle of a chunk is found
** by walking to it.
*/
static void perf_counts_read_no_chunk_and_rowids_equal_perf_dump(void **state){
  const char *zData = PERF_DIR "multi.data";
  sqlite3 *db = tl_test_db();
  size_t nFile = 0, i, nLine = 0;
  char *zWant = tl_test_read_file(PERF_DIR "multi.sample-offsets.txt", &nFile);
  char *zGot, *zLine;
  int64_t nReads0, nReads1;
  (void)state;
  assert_non_null(zWant);
  for(i=0; i<nFile; i++) nLine += zWant[i]=='\n';
  assert_int_equal(nLine, 490);                     /* SAMPLE events of perf report --stats */
  while( nFile>0 && zWant[nFile-1]=='\n' ) zWant[--nFile] = 0;
  nReads0 = tl_test_sql_int(db, "SELECT total(args->>'$.reads') FROM packets(%Q)", zData);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='SAMPLE'", zData), 490);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zData), 528);   /* TOTAL events */
  nReads1 = tl_test_sql_int(db, "SELECT total(args->>'$.reads') FROM packets(%Q)", zData);
  assert_int_equal(nReads1, nReads0);
  zGot = tl_test_sql_text(db, "SELECT group_concat(printf('0x%%x', rowid), char(10)) FROM events(%Q) WHERE type='SAMPLE'", zData);
  assert_string_equal(zGot, zWant);
  free(zGot);
  assert_true(tl_test_sql_int(db, "SELECT total(args->>'$.reads') FROM packets(%Q)", zData) > nReads1);
  /* the 301st sample alone: OFFSET skips rows without asking their rowid */
  zLine = zWant;
  for(i=0; i<300; i++) zLine = strchr(zLine, '\n') + 1;
  *strchr(zLine, '\n') = 0;
  zGot = tl_test_sql_text(db, "SELECT printf('0x%%x', rowid) FROM events(%Q) WHERE type='SAMPLE' LIMIT 1 OFFSET 300", zData);
  assert_string_equal(zGot, zLine);
  free(zGot);
  free(zWant);
  tl_test_db_close(db);
}

/*
** GROUP BY cpu reads the chunks CPU by CPU instead of letting SQLite sort:
** the samples per event and CPU are perf report --sort cpu's. In traces
** whose chunks hold one CPU each (sched, wakeup, neigh) the plan has no
** sort; cpu-clock-g has no cpus (one group, NULL). Every file gives the
** same groups as a GROUP BY SQLite sorts itself (+cpu), with and without
** a cpu filter.
*/
static void perf_group_by_cpu_equals_perf_report_sort_cpu(void **state){
  static const char *const azRef[] = { "sched", "wakeup", "neigh", "multi" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azRef)/sizeof(azRef[0]); k++){
    char zPath[512], zLine[512], zEvent[128] = "";
    char *zPlan;
    FILE *f;
    int nGroups = 0;
    TlLines want = {0}, got = {0};
    size_t i;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.report-cpu.txt", azRef[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zCpu[64], zRow[256];
      double pct;
      long long n;
      if( sscanf(zLine, "# Samples: %*d of event '%127[^']'", zEvent)==1 ) continue;
      if( zLine[0]=='#' || sscanf(zLine, " %lf%% %lld %63s", &pct, &n, zCpu)!=3 ) continue;
      snprintf(zRow, sizeof(zRow), "%s|%lld|%lld", zEvent, strtoll(zCpu, 0, 10), n);
      tl_lines_add(&want, zRow);
      nGroups++;
    }
    fclose(f);
    assert_true(nGroups>=2);
    for(i=0; i<want.n; i++){
      /* each event of the reference once: its groups */
      sqlite3_stmt *pStmt;
      char zName[128];
      char *zSql;
      size_t j;
      int bSeen = 0;
      snprintf(zName, sizeof(zName), "%.*s", (int)(strchr(want.az[i], '|') - want.az[i]), want.az[i]);
      for(j=0; j<i && !bSeen; j++) bSeen = strncmp(want.az[j], zName, strlen(zName))==0 && want.az[j][strlen(zName)]=='|';
      if( bSeen ) continue;
      zSql = sqlite3_mprintf("SELECT %Q || '|' || cpu || '|' || count(*) FROM events('" PERF_DIR "%q.data') "
                             "WHERE type='SAMPLE' AND name=%Q GROUP BY cpu", zName, azRef[k], zName);
      assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
      while( sqlite3_step(pStmt)==SQLITE_ROW ) tl_lines_add(&got, (const char*)sqlite3_column_text(pStmt, 0));
      sqlite3_finalize(pStmt);
      sqlite3_free(zSql);
    }
    tl_lines_sort(&want);
    tl_lines_sort(&got);
    if( got.n!=want.n ) fail_msg("%s: %zu event/cpu groups, perf report has %zu", azRef[k], got.n, want.n);
    for(i=0; i<got.n; i++){
      if( strcmp(got.az[i], want.az[i]) ){
        fail_msg("%s: group differs: ours %s, perf report %s", azRef[k], got.az[i], want.az[i]);
      }
    }
    tl_lines_free(&want);
    tl_lines_free(&got);
    zPlan = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT cpu, count(*) FROM events('" PERF_DIR "%s.data') "
                                 "WHERE type='SAMPLE' GROUP BY cpu", azRef[k]);
    if( k<3 && strstr(zPlan, "TEMP B-TREE") ) fail_msg("%s: GROUP BY cpu sorts: %s", azRef[k], zPlan);
    free(zPlan);
  }
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT cpu, count(*) FROM events('" PERF_DIR "cpu-clock-g.data') "
                                       "WHERE type='SAMPLE' GROUP BY cpu)"), 1);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "cpu-clock-g.data') WHERE type='SAMPLE' AND cpu IS NULL"),
                   tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "cpu-clock-g.data') WHERE type='SAMPLE'"));
  for(k=0; k<N_FILES+3; k++){
    const char *zFile = k<N_FILES ? azFiles[k] : azRef[k-N_FILES];
    static const char *const azWhere[] = { "", "WHERE type='SAMPLE'", "WHERE cpu IN (0,1)", "WHERE type='MMAP2'" };
    size_t j;
    for(j=0; j<sizeof(azWhere)/sizeof(azWhere[0]); j++){
      char *zA = tl_test_sql_rows(db, "SELECT cpu, count(*), sum(ts), total(value) FROM events('" PERF_DIR "%s.data') %s GROUP BY cpu",
                                  zFile, azWhere[j]);
      char *zB = tl_test_sql_rows(db, "SELECT cpu, count(*), sum(ts), total(value) FROM events('" PERF_DIR "%s.data') %s GROUP BY +cpu",
                                  zFile, azWhere[j]);
      if( strcmp(zA, zB) ) fail_msg("%s %s: GROUP BY cpu gives\n%s\nsorted by SQLite\n%s", zFile, azWhere[j], zA, zB);
      free(zA);
      free(zB);
    }
  }
  tl_test_db_close(db);
}

/*
** Rows that use only type, cpu, value and name come as runs: consecutive
** records with the same values are one row repeated, their rowids kept.
** Every file, the cut one included, gives the rows (rowids too) of a scan
** that also reads ts, row for row.
*/
/*
** The rows of zSqlA and zSqlB (each with one %s for the file's name, as
** PERF_DIR NAME.data) must be the same; returns the length of their text.
*/
static size_t perf_same_rows(sqlite3 *db, const char *zFile, const char *zWhat,
                             const char *zSqlA, const char *zSqlB){
  char *zA = tl_test_sql_rows(db, zSqlA, zFile);
  char *zB = tl_test_sql_rows(db, zSqlB, zFile);
  size_t n = strlen(zA);
  if( strcmp(zA, zB) ) fail_msg("%s: %s differ from the rows read one by one", zFile, zWhat);
  free(zA);
  free(zB);
  return n;
}

static void perf_runs_equal_row_by_row(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<=N_FILES; k++){
    const char *zFile = k<N_FILES ? azFiles[k] : "cut";
    assert_true(perf_same_rows(db, zFile, "runs",
        "SELECT rowid, cpu, value, name, type FROM events('" PERF_DIR "%s.data')",
        "SELECT rowid, cpu, value, name, type FROM events('" PERF_DIR "%s.data') "
        "WHERE ts IS NOT NULL OR ts IS NULL") > 100);
    /* SAMPLE rows only: chunks whose samples all show the same are not read */
    perf_same_rows(db, zFile, "SAMPLE runs",
        "SELECT rowid, cpu, value, name FROM events('" PERF_DIR "%s.data') WHERE type='SAMPLE'",
        "SELECT rowid, cpu, value, name FROM events('" PERF_DIR "%s.data') "
        "WHERE type='SAMPLE' AND (ts IS NOT NULL OR ts IS NULL)");
    perf_same_rows(db, zFile, "SAMPLE rows by cpu",
        "SELECT cpu, name, count(*), sum(value), sum(rowid %% 1000003) FROM events('" PERF_DIR "%s.data') "
        "WHERE type='SAMPLE' GROUP BY cpu",
        "SELECT cpu, name, count(*), sum(value), sum(rowid %% 1000003) FROM events('" PERF_DIR "%s.data') "
        "WHERE type='SAMPLE' AND (ts IS NOT NULL OR ts IS NULL) GROUP BY +cpu");
    assert_int_equal(
        tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') WHERE cpu = 0", zFile),
        tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "%s.data') WHERE +cpu = 0", zFile));
  }
  /* switch.data's samples (one event, one period, no cpu) are alike in
  ** every chunk: their rows come without reading a chunk */
  {
    sqlite3 *db2 = tl_test_db();
    size_t nScript = 0;
    char *zScript = tl_test_read_file(PERF_DIR "switch.script.txt", &nScript), *z;
    int64_t nWant = 0, sumWant = 0, nReads;
    assert_non_null(zScript);
    for(z=zScript; z && *z; z = strchr(z, '\n') ? strchr(z, '\n')+1 : 0){
      /* comm pid time: period event: ... */
      long long period;
      if( sscanf(z, "%*s %*d %*s %lld", &period)==1 ){ nWant++; sumWant += period; }
    }
    free(zScript);
    assert_true(nWant > 100);
    /* (the trace, and its read counts, may be cached from the tests before) */
    nReads = tl_test_sql_int(db2, "SELECT sum(args->>'reads') FROM packets('" PERF_DIR "switch.data')");
    assert_int_equal(tl_test_sql_int(db2, "SELECT count(*) FROM events('" PERF_DIR "switch.data') WHERE type='SAMPLE'"), nWant);
    assert_int_equal(tl_test_sql_int(db2, "SELECT sum(value) FROM events('" PERF_DIR "switch.data') WHERE type='SAMPLE' GROUP BY cpu"), sumWant);
    assert_int_equal(tl_test_sql_int(db2, "SELECT sum(args->>'reads') FROM packets('" PERF_DIR "switch.data')"), nReads);
    assert_true(tl_test_sql_int(db2, "SELECT count(*) FROM events('" PERF_DIR "switch.data') WHERE type='SAMPLE' AND ts>0") > 0);
    assert_true(tl_test_sql_int(db2, "SELECT sum(args->>'reads') FROM packets('" PERF_DIR "switch.data')") > nReads);
    tl_test_db_close(db2);
  }
  tl_test_db_close(db);
}

/* The header-only lines that map one to one onto perf_features values. */
static void perf_features_equal_perf_header_only(void **state){
  static const struct { const char *zLabel; const char *zSql; } aMap[] = {
    { "hostname",      "SELECT value FROM perf_features(%Q) WHERE name='HOSTNAME'" },
    { "os release",    "SELECT value FROM perf_features(%Q) WHERE name='OSRELEASE'" },
    { "perf version",  "SELECT value FROM perf_features(%Q) WHERE name='VERSION'" },
    { "arch",          "SELECT value FROM perf_features(%Q) WHERE name='ARCH'" },
    { "nrcpus online", "SELECT value->>'$.online' FROM perf_features(%Q) WHERE name='NRCPUS'" },
    { "nrcpus avail",  "SELECT value->>'$.avail' FROM perf_features(%Q) WHERE name='NRCPUS'" },
    { "cpudesc",       "SELECT value FROM perf_features(%Q) WHERE name='CPUDESC'" },
    { "cpuid",         "SELECT value FROM perf_features(%Q) WHERE name='CPUID'" },
    { "total memory",  "SELECT value FROM perf_features(%Q) WHERE name='TOTAL_MEM'" },
    { "cmdline",       "SELECT value FROM perf_features(%Q) WHERE name='CMDLINE'" },
    { "pmu mappings",  "SELECT value FROM perf_features(%Q) WHERE name='PMU_MAPPINGS'" },
    { "time of first sample", "SELECT printf('%%d.%%06d', (value->>'$.first')/1000000000, ((value->>'$.first')/1000)%%1000000) FROM perf_features(%Q) WHERE name='SAMPLE_TIME'" },
    { "time of last sample",  "SELECT printf('%%d.%%06d', (value->>'$.last')/1000000000, ((value->>'$.last')/1000)%%1000000) FROM perf_features(%Q) WHERE name='SAMPLE_TIME'" },
  };
  sqlite3 *db = tl_test_db();
  size_t k, j;
  (void)state;
  for(k=0; k<N_FILES; k++){
    char zPath[512], zData[512], zLine[4096];
    FILE *f;
    int nChecked = 0, nEvents = 0;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.header.txt", azFiles[k]);
    snprintf(zData, sizeof(zData), PERF_DIR "%s.data", azFiles[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      size_t n = strlen(zLine);
      while( n && (zLine[n-1]=='\n' || zLine[n-1]==' ') ) zLine[--n] = 0;
      if( strncmp(zLine, "# event : name = ", 17)==0 ){
        /* name and sample_type of each attr */
        char *zName = zLine + 17, *zEnd = strchr(zName, ',');
        char *zSt = strstr(zLine, "sample_type = ");
        char *zGot;
        assert_non_null(zEnd);
        *zEnd = 0;
        assert_non_null(zSt);
        zSt += 14;
        *strchr(zSt, ',') = 0;
        zGot = tl_test_sql_text(db, "SELECT format FROM event_types(%Q) WHERE name=%Q", zData, zName);
        if( zGot==0 || strcmp(zGot, zSt) ) fail_msg("%s: event %s: sample_type %s, perf says %s", azFiles[k], zName, zGot ? zGot : "(none)", zSt);
        free(zGot);
        nEvents++;
        continue;
      }
      for(j=0; j<sizeof(aMap)/sizeof(aMap[0]); j++){
        size_t nL = strlen(aMap[j].zLabel);
        const char *zWant;
        char *zGot;
        if( strncmp(zLine+2, aMap[j].zLabel, nL) ) continue;
        if( strncmp(zLine+2+nL, " : ", 3)==0 ) zWant = zLine+2+nL+3;
        else if( strncmp(zLine+2+nL, ": ", 2)==0 ) zWant = zLine+2+nL+2;
        else continue;
        zGot = tl_test_sql_text(db, aMap[j].zSql, zData);
        if( zGot==0 || strcmp(zGot, zWant) ){
          fail_msg("%s: %s is \"%s\", perf says \"%s\"", azFiles[k], aMap[j].zLabel, zGot ? zGot : "(null)", zWant);
        }
        free(zGot);
        nChecked++;
      }
    }
    fclose(f);
    assert_true(nChecked>=11);
    assert_int_equal(nEvents, tl_test_sql_int(db, "SELECT count(*) FROM event_types(%Q)", zData));
  }
  tl_test_db_close(db);
}

/* The BUILD_ID feature lists what perf buildid-list prints. */
static void perf_build_ids_equal_perf_buildid_list(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  int nTotal = 0;
  (void)state;
  for(k=0; k<N_FILES; k++){
    char zPath[512], zLine[1024], zData[512];
    FILE *f;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.buildids.txt", azFiles[k]);
    snprintf(zData, sizeof(zData), PERF_DIR "%s.data", azFiles[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zId[128], zName[512];
      if( sscanf(zLine, "%127s %511[^\n]", zId, zName)!=2 ) continue;
      assert_int_equal(tl_test_sql_int(db,
          "SELECT count(*) FROM perf_features(%Q) p, json_each(p.value) j WHERE p.name='BUILD_ID' "
          "AND j.value->>'$.build_id'=%Q AND j.value->>'$.filename'=%Q", zData, zId, zName), 1);
      nTotal++;
    }
    fclose(f);
  }
  assert_true(nTotal>=6);
  tl_test_db_close(db);
}

static void perf_windows_and_cpus_equal_unfiltered(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<N_FILES; k++){
    char zData[512];
    int64_t lo, hi;
    int i;
    snprintf(zData, sizeof(zData), PERF_DIR "%s.data", azFiles[k]);
    lo = tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q)", zData);
    hi = tl_test_sql_int(db, "SELECT max(ts) FROM events(%Q)", zData);
    for(i=0; i<=10; i++){
      int64_t a = lo + (hi-lo)*i/10, b = a + (hi-lo)/7;
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN %lld AND %lld", zData, a, b),
                       tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE +ts BETWEEN %lld AND %lld", zData, a, b));
    }
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu IN (0, 1)", zData),
                     tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE +cpu IN (0, 1)", zData));
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu = 1", zData),
                     tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE +cpu = 1", zData));
    /* rowid seeks find each record again */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events(%Q) a WHERE (SELECT count(*) FROM events(%Q) b WHERE b.rowid=a.rowid AND b.type IS a.type)=1",
        zData, zData), tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zData));
  }
  tl_test_db_close(db);
}

/* ORDER BY ts is done by the reader, and equals SQLite's own sort. */
static void perf_order_by_ts_equals_sorted(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<N_FILES; k++){
    char zData[512], *zA, *zB, *zPlan;
    int64_t lo, hi;
    snprintf(zData, sizeof(zData), PERF_DIR "%s.data", azFiles[k]);
    zPlan = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT rowid FROM events(%Q) ORDER BY ts", zData);
    assert_null(strstr(zPlan, "TEMP B-TREE"));
    free(zPlan);
    zA = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid FROM events(%Q) ORDER BY ts)", zData);
    zB = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid FROM events(%Q) ORDER BY +ts, rowid)", zData);
    assert_non_null(zA);
    assert_string_equal(zA, zB);
    free(zA); free(zB);
    lo = tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q)", zData);
    hi = tl_test_sql_int(db, "SELECT max(ts) FROM events(%Q)", zData);
    zA = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid FROM events(%Q) WHERE ts BETWEEN %lld AND %lld ORDER BY ts)",
                          zData, lo + (hi-lo)/3, lo + (hi-lo)/2);
    zB = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid FROM events(%Q) WHERE +ts BETWEEN %lld AND %lld ORDER BY +ts, rowid)",
                          zData, lo + (hi-lo)/3, lo + (hi-lo)/2);
    assert_string_equal(zA ? zA : "", zB ? zB : "");
    free(zA); free(zB);
  }
  tl_test_db_close(db);
}

/* perf script -F uregs prints the user registers of each sample. */
static void perf_user_registers_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(PERF_DIR "dwarf.regs.txt", "r");
  char zLine[4096];
  int nSamples = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    int tid, nUsed = 0;
    long long sec, usec;
    char *z = zLine, *zGot;
    char zWant[2048] = "";
    size_t nWant = 0;
    int abi;
    if( sscanf(z, "%d %lld.%lld: ABI:%d%n", &tid, &sec, &usec, &abi, &nUsed)!=4 ) continue;
    z += nUsed;
    for(;;){
      char zReg[16], zVal[32];
      int n2 = 0;
      if( sscanf(z, " %15[^:]:0x%31s%n", zReg, zVal, &n2)!=2 ) break;
      nWant += (size_t)snprintf(zWant + nWant, sizeof(zWant) - nWant, "%s%s", nWant ? "," : "", zVal);
      z += n2;
    }
    zGot = tl_test_sql_text(db,
        "SELECT (SELECT group_concat(printf('%%x', j.value), ',') FROM json_each(e.args, '$.regs_user') j) "
        "|| '|' || (e.args->>'$.regs_user_abi') "
        "FROM events('" PERF_DIR "dwarf.data') e WHERE type='SAMPLE' AND tid=%d AND ts/1000=%lld",
        tid, sec*1000000 + usec);
    assert_non_null(zGot);
    {
      char zFull[2100];
      snprintf(zFull, sizeof(zFull), "%s|%d", zWant, abi);
      assert_string_equal(zGot, zFull);
    }
    free(zGot);
    nSamples++;
  }
  fclose(f);
  assert_true(nSamples >= 10);
  assert_int_equal(nSamples, tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "dwarf.data') WHERE type='SAMPLE'"));
  assert_int_equal(0, tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "dwarf.data') WHERE type='SAMPLE' AND args->>'$.stack_user_size' != 1024"));
  tl_test_db_close(db);
}

static void perf_sched_cpus_match_perf_script(void **state){
  /* perf script printed [cpu] for the system-wide tracepoint file */
  sqlite3 *db = tl_test_db();
  TlLines want;
  int bCpu, bIp;
  size_t i;
  int64_t n0 = 0, n1 = 0;
  (void)state;
  memset(&want, 0, sizeof(want));
  script_samples("sched", &want, &bCpu, &bIp);
  assert_true(bCpu);
  for(i=0; i<want.n; i++){
    const char *z = strchr(want.az[i], '|') + 1;
    if( z[0]=='0' ) n0++; else if( z[0]=='1' ) n1++;
  }
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "sched.data') WHERE type='SAMPLE' AND cpu=0"), n0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "sched.data') WHERE type='SAMPLE' AND cpu=1"), n1);
  tl_lines_free(&want);
  tl_test_db_close(db);
}

static void perf_syscall_ids_match_perf_script(void **state){
  /* perf script printed "raw_syscalls:sys_enter: NR 12 (...)": the
  ** tracepoint's `id` field, which args must give, not the sample's id */
  sqlite3 *db = tl_test_db();
  sqlite3_str *pRef = sqlite3_str_new(0);
  char zLine[512];
  FILE *f = fopen(TL_TESTDATA_DIR "/sched/trace.syscalls.txt", "r");
  int n = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    const char *zName = zLine + strspn(zLine, " ");
    const char *zNr = strstr(zName, ": NR ");
    assert_non_null(zNr);
    sqlite3_str_appendf(pRef, "%.*s|%d\n", (int)(zNr - zName), zName, atoi(zNr+5));
    n++;
  }
  fclose(f);
  assert_true(n > 500);
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT name, args->>'$.id' FROM events('" TL_TESTDATA_DIR "/sched/trace.data') "
      "WHERE name LIKE 'raw_syscalls:%%' ORDER BY ts, rowid"), pRef);
  tl_test_db_close(db);
}

static void perf_callchains_are_rows(void **state){
  sqlite3 *db = tl_test_db();
  char zPath[512], zLine[1024];
  FILE *f;
  int64_t nFrames = 0;
  (void)state;
  /* perf script prints one tab-indented line per callchain frame */
  snprintf(zPath, sizeof(zPath), PERF_DIR "cpu-clock-g.script.txt");
  f = fopen(zPath, "r");
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ) if( zLine[0]=='\t' ) nFrames++;
  fclose(f);
  assert_true(nFrames>800);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM callchains('" PERF_DIR "cpu-clock-g.data')"), nFrames);
  /* frames of one sample, by its rowid, in callchain order */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" PERF_DIR "cpu-clock-g.data') e "
      "WHERE e.type='SAMPLE' AND json_array_length(e.callchain) - "
      "(SELECT count(*) FROM json_each(e.callchain) WHERE value IN (-32, -128, -512, -2048, -2176, -2560)) "
      "!= (SELECT count(*) FROM callchains('" PERF_DIR "cpu-clock-g.data') c WHERE c.event = e.rowid)"), 0);
  tl_test_db_close(db);
}

/*
** depth ranges are pushed down to the callchain walk. perf script prints a
** sample's frames leaf first, one tab-indented line each: the samples with
** more than k frames are the rows at depth k, whatever the range's form.
*/
static void perf_callchain_depth_ranges_equal_perf_script(void **state){
  static const struct { const char *zWhere; int lo, hi; } aRange[] = {
    { "depth = 0", 0, 0 },        { "depth = 2", 2, 2 },
    { "depth < 2", 0, 1 },        { "depth <= 1.5", 0, 1 },
    { "depth >= 3", 3, 1000 },    { "depth > 0 AND depth <= 2", 1, 2 },
    { "depth BETWEEN 1 AND 3", 1, 3 }, { "0 = depth", 0, 0 },
  };
  sqlite3 *db = tl_test_db();
  char zLine[1024];
  FILE *f;
  int64_t aAtLeast[1001];         /* samples with more than k frames */
  int nCur = 0, k;
  size_t i;
  (void)state;
  memset(aAtLeast, 0, sizeof(aAtLeast));
  f = fopen(PERF_DIR "cpu-clock-g.script.txt", "r");
  assert_non_null(f);
  for(;;){
    char *z = fgets(zLine, sizeof(zLine), f);
    if( z && zLine[0]=='\t' ){ nCur++; continue; }
    for(k=0; k<nCur && k<1001; k++) aAtLeast[k]++;
    nCur = 0;
    if( z==0 ) break;
  }
  fclose(f);
  assert_true(aAtLeast[3]>0);
  for(i=0; i<sizeof(aRange)/sizeof(aRange[0]); i++){
    int64_t nWant = 0;
    for(k=aRange[i].lo; k<=aRange[i].hi; k++) nWant += aAtLeast[k];
    if( tl_test_sql_int(db, "SELECT count(*) FROM callchains('" PERF_DIR "cpu-clock-g.data') WHERE %s",
                        aRange[i].zWhere)!=nWant ){
      fail_msg("%s: count differs from perf script's frames (%lld)", aRange[i].zWhere, (long long)nWant);
    }
  }
  /* the same frames as SQLite's own filtering of every row */
  assert_int_equal(
      tl_test_sql_int(db, "SELECT sum(ip %% 1000003 + event %% 7) FROM callchains('" PERF_DIR "cpu-clock-g.data') "
                          "WHERE depth BETWEEN 1 AND 3"),
      tl_test_sql_int(db, "SELECT sum(ip %% 1000003 + event %% 7) FROM callchains('" PERF_DIR "cpu-clock-g.data') "
                          "WHERE depth+0 BETWEEN 1 AND 3"));
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM callchains('" PERF_DIR "cpu-clock-g.data') "
                                       "WHERE depth = 1 AND depth = 2"), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM callchains('" PERF_DIR "cpu-clock-g.data') "
                                       "WHERE depth = NULL"), 0);
  tl_test_db_close(db);
}

/*
** perf script -F ...,trace prints each tracepoint by its print format: the
** text column must be the same text, and where perf prints a field as a
** number or a string, args has the same value (fields perf renders
** symbolically, prev_state=D, are compared through the text only).
*/
static void perf_tracepoint_fields_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(PERF_DIR "sched.trace.txt", "r");
  char zLine[4096];
  int nLines = 0, nFields = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char *zEv = strstr(zLine, " sched:");
    char *zTime, *zCpu, *z, *zArgs;
    int tid;
    long long sec, usec;
    char zName[64];
    if( zEv==0 ) continue;
    *zEv = 0;
    zCpu = strrchr(zLine, '[');
    assert_non_null(zCpu);
    zTime = strchr(zCpu, ']') + 1;
    assert_int_equal(sscanf(zTime, " %lld.%lld", &sec, &usec), 2);
    *zCpu = 0;
    z = zCpu;
    while( z>zLine && z[-1]==' ' ) z--;
    while( z>zLine && z[-1]!=' ' ) z--;
    tid = atoi(z);
    {
      char *zColon = strchr(zEv + 1 + 6, ':');      /* after "sched:name" */
      assert_non_null(zColon);
      snprintf(zName, sizeof(zName), "%.*s", (int)(zColon - (zEv + 1)), zEv + 1);
      z = zColon + 1;
    }
    zArgs = tl_test_sql_text(db,
        "SELECT args FROM events('" PERF_DIR "sched.data') WHERE type='SAMPLE' AND tid=%d "
        "AND ts/1000=%lld AND name=%Q", tid, sec*1000000 + usec, zName);
    if( zArgs==0 ) fail_msg("no sample for tid %d at %lld.%06lld %s", tid, sec, usec, zName);
    {
      /* the text column is what perf prints after the event name */
      char *zText = tl_test_sql_text(db,
          "SELECT text FROM events('" PERF_DIR "sched.data') WHERE type='SAMPLE' AND tid=%d "
          "AND ts/1000=%lld AND name=%Q", tid, sec*1000000 + usec, zName);
      char *zWant = z;
      size_t nWant;
      while( *zWant==' ' ) zWant++;
      nWant = strlen(zWant);
      while( nWant && (zWant[nWant-1]=='\n' || zWant[nWant-1]==' ') ) nWant--;
      if( zText==0 || strlen(zText)!=nWant || memcmp(zText, zWant, nWant) ){
        fail_msg("%s: text \"%s\", perf prints \"%.*s\"", zName, zText ? zText : "(null)", (int)nWant, zWant);
      }
      free(zText);
    }
    /* each name=value token */
    for(;;){
      char zKey[64], zVal[512], *zGot;
      int nUsed = 0;
      while( *z==' ' ) z++;
      if( *z==0 || *z=='\n' ) break;
      if( sscanf(z, "%63[^= ]=%511s%n", zKey, zVal, &nUsed)!=2 ){
        while( *z && *z!=' ' ) z++;         /* "==>" and the like */
        continue;
      }
      z += nUsed;
      zGot = tl_test_sql_text(db, "SELECT json_extract(%Q, '$.' || %Q)", zArgs, zKey);
      if( zGot==0 ) continue;               /* not a field */
      if( (zVal[0]=='-' || isdigit((unsigned char)zVal[0])) || !isdigit((unsigned char)zGot[0]) ){
        if( strcmp(zGot, zVal) ) fail_msg("%s %s: %s=%s, perf says %s", zName, zTime, zKey, zGot, zVal);
        nFields++;
      }
      free(zGot);
    }
    free(zArgs);
    nLines++;
  }
  fclose(f);
  assert_int_equal(nLines, tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "sched.data') WHERE type='SAMPLE'"));
  assert_true(nFields > 5*nLines);
  tl_test_db_close(db);
}


/*
** Casts, array elements, %Lu, %ps and kernel constants, on formats and
** values from a recording of this machine (raw_syscalls:sys_enter,
** sched:sched_stat_runtime, timer:hrtimer_start) and the lines
** `perf script -F event,trace` printed for them.
*/
static void perf_printfmt_casts_and_arrays(void **state){
  PerfTpField aF[4];
  PerfTp t;
  PerfPrintFmt *p;
  TlStr o;
  uint8_t aRaw[64];
  static const uint64_t aArg[6] = { 7, 0x2400, 0, 0x7f91d1c2b5e0ull, 1, 0 };
  const char *zFmt;
  int i;
  (void)state;
  memset(aF, 0, sizeof(aF));
  memset(aRaw, 0, sizeof(aRaw));
  aF[0].zName = (char*)(uintptr_t)"id";   aF[0].off = 8;  aF[0].size = 8; aF[0].bSigned = 1;
  aF[1].zName = (char*)(uintptr_t)"args"; aF[1].off = 16; aF[1].size = 48; aF[1].bArray = 1; aF[1].nElem = 6;
  memset(&t, 0, sizeof(t));
  t.aField = aF; t.nField = 2;
  aRaw[8] = 16;
  for(i=0; i<6; i++) memcpy(aRaw + 16 + 8*i, &aArg[i], 8);     /* host order = TL_LE here */
  zFmt = "\"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], REC->args[1], "
         "REC->args[2], REC->args[3], REC->args[4], REC->args[5]";
  p = perf_printfmt_parse(&t, zFmt, strlen(zFmt));
  assert_non_null(p);
  tl_str_init(&o);
  tl_str_append(&o, "", 0);
  assert_int_equal(perf_printfmt_render(p, &t, aRaw, sizeof(aRaw), TL_LE, &o), 0);
  assert_string_equal(o.z, "NR 16 (7, 2400, 0, 7f91d1c2b5e0, 1, 0)");
  tl_str_free(&o);
  perf_printfmt_free(p);
  /* "runtime=48572 [ns]" and "mode=0x0" (constants the trace does not define) */
  aF[0].zName = (char*)(uintptr_t)"runtime"; aF[0].bSigned = 0;
  aF[1].zName = (char*)(uintptr_t)"mode"; aF[1].off = 16; aF[1].size = 4; aF[1].bArray = 0; aF[1].nElem = 0;
  aF[2].zName = (char*)(uintptr_t)"function"; aF[2].off = 24; aF[2].size = 8;
  t.nField = 3;
  memset(aRaw, 0, sizeof(aRaw));
  aRaw[8] = 0xBC; aRaw[9] = 0xBD;                           /* 48572 */
  aRaw[24] = 0xE0; aRaw[25] = 0x30; aRaw[26] = 0x43; aRaw[27] = 0x81;
  memset(aRaw+28, 0xFF, 4);                                 /* 0xffffffff814330e0 */
  zFmt = "\"runtime=%Lu [ns] mode=%s fn=%ps|%d %d %u\", (unsigned long long)REC->runtime, "
         "__print_symbolic(REC->mode, { HRTIMER_MODE_ABS, \"ABS\" }, { HRTIMER_MODE_REL, \"REL\" }), "
         "REC->function, (unsigned char)0x1FF, (short)0x18000, ( unsigned int)(REC->runtime << 20)";
  p = perf_printfmt_parse(&t, zFmt, strlen(zFmt));
  assert_non_null(p);
  tl_str_init(&o);
  tl_str_append(&o, "", 0);
  assert_int_equal(perf_printfmt_render(p, &t, aRaw, sizeof(aRaw), TL_LE, &o), 0);
  /* %ps is a kernel symbol for perf; without symbols the address, as 0x... */
  /* C: (unsigned char)0x1FF = 255, (short)0x18000 = -32768, (48572 << 20) mod 2^32 */
  assert_string_equal(o.z, "runtime=48572 [ns] mode=0x0 fn=0xffffffff814330e0|255 -32768 3686793216");
  tl_str_free(&o);
  perf_printfmt_free(p);
}

/*
** MEM_TOPOLOGY equals what `perf report --header-only -I` prints for it:
** "# memory nodes (nr N, block size 0x..):" then "#  %3u [size]: blocks".
*/
static void perf_mem_topology_equals_header_I(void **state){
  sqlite3 *db = tl_test_db();
  char *zRef = tl_test_read_file(PERF_DIR "cpu-clock-g.header-I.txt", 0);
  char *zLine, *zGot;
  unsigned long long bsize = 0;
  int nr = 0, nNode = 0;
  TlStr want;
  (void)state;
  assert_non_null(zRef);
  zLine = strstr(zRef, "# memory nodes (nr ");
  assert_non_null(zLine);
  assert_int_equal(sscanf(zLine, "# memory nodes (nr %d, block size %llx):", &nr, &bsize), 2);
  tl_str_init(&want);
  tl_str_appendf(&want, "{\"block_size\":%llu,\"nodes\":[", bsize);
  zLine = strchr(zLine, '\n');
  while( zLine && nNode<nr ){
    unsigned node;
    char zSize[32], zMap[128];
    zLine++;
    if( sscanf(zLine, "# %u [%31[^]]]: %127s", &node, zSize, zMap)!=3 ) break;
    tl_str_appendf(&want, "%s{\"node\":%u,\"size\":\"%s\",\"blocks\":\"%s\"}",
                   nNode ? "," : "", node, zSize, zMap);
    nNode++;
    zLine = strchr(zLine, '\n');
  }
  tl_str_appendz(&want, "]}");
  assert_int_equal(nNode, nr);
  zGot = tl_test_sql_text(db, "SELECT value FROM perf_features('" PERF_DIR "cpu-clock-g.data')"
                              " WHERE name='MEM_TOPOLOGY'");
  assert_string_equal(zGot, want.z);
  free(zGot);
  /* Empty BPF and PMU capability sections: perf prints nothing for them. */
  zGot = tl_test_sql_rows(db, "SELECT name, value FROM perf_features('" PERF_DIR "cpu-clock-g.data')"
                              " WHERE name IN ('BPF_PROG_INFO','BPF_BTF','PMU_CAPS') ORDER BY id");
  assert_string_equal(zGot, "BPF_PROG_INFO|{\"programs\":0}\nBPF_BTF|[]\nPMU_CAPS|{}");
  free(zGot);
  tl_str_free(&want);
  free(zRef);
  tl_test_db_close(db);
}

/* print fmt evaluation, on a format written here (C semantics are the judge) */
static void perf_printfmt_evaluates_c_expressions(void **state){
  PerfTpField aF[2];
  PerfTp t;
  PerfPrintFmt *p;
  TlStr o;
  uint8_t aRaw[16] = { 0 };
  const char *zFmt;
  char zDeep[4096];
  int i;
  (void)state;
  memset(aF, 0, sizeof(aF));
  aF[0].zName = (char*)(uintptr_t)"v";  aF[0].off = 0; aF[0].size = 4; aF[0].bSigned = 1;
  aF[1].zName = (char*)(uintptr_t)"comm"; aF[1].off = 4; aF[1].size = 8; aF[1].bChar = 1; aF[1].bArray = 1; aF[1].nElem = 8;
  memset(&t, 0, sizeof(t));
  t.aField = aF; t.nField = 2;
  aRaw[0] = 0xFA; aRaw[1] = 0xFF; aRaw[2] = 0xFF; aRaw[3] = 0xFF;   /* v = -6 */
  memcpy(aRaw+4, "ab\0\0\0\0\0\0", 8);
  zFmt = "\"%d %u %x %s %s %s|%5d|%-3s|\", REC->v, REC->v, -REC->v * 2 + 1, REC->comm, "
         "(REC->v & 3) ? __print_flags(REC->v & 7, \"|\", { 1, \"A\" }, { 2, \"B\" }, { 4, \"C\" }) : \"none\", "
         "__print_symbolic(REC->v < 0, { 0, \"pos\" }, { 1, \"neg\" }), 1 << 3, REC->comm";
  p = perf_printfmt_parse(&t, zFmt, strlen(zFmt));
  assert_non_null(p);
  tl_str_init(&o);
  tl_str_append(&o, "", 0);
  assert_int_equal(perf_printfmt_render(p, &t, aRaw, sizeof(aRaw), TL_LE, &o), 0);
  /* -6 = ...11111010: &3 = 2 (true), &7 = 2 -> "B"; -(-6)*2+1 = 13 */
  assert_string_equal(o.z, "-6 4294967290 d ab B neg|    8|ab |");
  tl_str_free(&o);
  perf_printfmt_free(p);
  /* what it cannot evaluate, or nests too deep, it refuses (text falls back) */
  /* __print_hex: "%02x" per byte, spaced; __print_hex_str: joined */
  zFmt = "\"%s|%s\", __print_hex(REC->comm, 3), __print_hex_str(REC->comm, 2)";
  p = perf_printfmt_parse(&t, zFmt, strlen(zFmt));
  assert_non_null(p);
  tl_str_init(&o);
  tl_str_append(&o, "", 0);
  assert_int_equal(perf_printfmt_render(p, &t, aRaw, sizeof(aRaw), TL_LE, &o), 0);
  assert_string_equal(o.z, "61 62 00|6162");
  tl_str_free(&o);
  perf_printfmt_free(p);
  zFmt = "\"%s\", __get_bitmask(REC->comm)";
  assert_null(perf_printfmt_parse(&t, zFmt, strlen(zFmt)));
  zFmt = "\"%d\", REC->missing";
  assert_null(perf_printfmt_parse(&t, zFmt, strlen(zFmt)));
  strcpy(zDeep, "\"%d\", ");
  for(i=0; i<500; i++) strcat(zDeep, "(");
  strcat(zDeep, "1");
  for(i=0; i<500; i++) strcat(zDeep, ")");
  assert_null(perf_printfmt_parse(&t, zDeep, strlen(zDeep)));
  strcpy(zDeep, "\"%d\", 1");
  for(i=0; i<300; i++) strcat(zDeep, " ? 1");
  for(i=0; i<300; i++) strcat(zDeep, " : 0");
  assert_null(perf_printfmt_parse(&t, zDeep, strlen(zDeep)));
}

/*
** reuse.data: one tid used by two processes in turn. perf script
** --show-task-events prints both FORKs of that tid; the samples of the tid
** before the second FORK are the first thread's, the rest the second's,
** and tracks has one row for each with its own id.
*/
static void perf_reused_tid_is_two_tracks(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(PERF_DIR "reuse.script.txt", "r");
  char zLine[1024];
  long long tid = -1, aFork[2] = {0, 0};
  double tFork2 = 0;
  int nFork = 0;
  int64_t nBefore = 0, nAfter = 0;
  (void)state;
  assert_non_null(f);
  /* the tid forked twice */
  while( fgets(zLine, sizeof(zLine), f) ){
    char *z = strstr(zLine, "PERF_RECORD_FORK(");
    long long child;
    if( z && sscanf(z, "PERF_RECORD_FORK(%lld:", &child)==1 ){
      int k;
      for(k=0; k<nFork && k<2; k++) if( aFork[k]==child ){ tid = child; }
      if( nFork<2 ) aFork[nFork] = child;
      nFork++;
      if( tid==child ){
        char zComm[64], zTime[64];
        long long t;
        assert_int_equal(sscanf(zLine, "%63s %lld %63s", zComm, &t, zTime), 3);
        tFork2 = atof(zTime);
        break;
      }
    }
  }
  assert_true(tid>0);
  rewind(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zComm[64], zTime[64], zEvent[64];
    long long t;
    if( sscanf(zLine, "%63s %lld %63s %63s", zComm, &t, zTime, zEvent)!=4 ) continue;
    if( t!=tid || strcmp(zEvent, "cpu-clock:") ) continue;
    if( atof(zTime) < tFork2 ) nBefore++; else nAfter++;
  }
  fclose(f);
  assert_true(nBefore>10 && nAfter>10);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM tracks('" PERF_DIR "reuse.data') WHERE tid = %lld", tid), 2);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) - count(DISTINCT id) FROM tracks('" PERF_DIR "reuse.data')"), 0);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT args ->> '$.samples' FROM tracks('" PERF_DIR "reuse.data') WHERE id = %lld", tid), nBefore);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT args ->> '$.samples' FROM tracks('" PERF_DIR "reuse.data') WHERE id = %lld + (1 << 32)", tid),
      nAfter);
  /* events.track joins tracks.id: the same split row by row */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" PERF_DIR "reuse.data') e JOIN tracks('" PERF_DIR "reuse.data') t "
      "ON e.track = t.id WHERE e.type = 'SAMPLE' AND e.tid = %lld AND t.first_ts >= %lld", tid,
      (long long)(tFork2 * 1e9) - 1000), nAfter);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" PERF_DIR "reuse.data') WHERE type = 'SAMPLE' AND track = %lld", tid),
      nBefore);
  tl_test_db_close(db);
}

/*
** neigh.data: tracepoints whose print formats use __print_hex_str,
** __print_symbolic, %pI4 and %pI6c (IPv4-mapped and plain IPv6). The text
** of every sample, in time order, is the line perf script -F trace printed.
*/
static void perf_print_hex_and_addresses_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(PERF_DIR "neigh.trace.txt", "r");
  char zLine[4096];
  sqlite3_str *pWant = sqlite3_str_new(0);
  char *zWant, *zGot;
  int nLines = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char *z = zLine;
    size_t n;
    while( *z==' ' ) z++;
    n = strlen(z);
    while( n && (z[n-1]=='\n' || z[n-1]==' ') ) n--;
    sqlite3_str_appendf(pWant, "%s%.*s", nLines ? "\n" : "", (int)n, z);
    nLines++;
  }
  fclose(f);
  zWant = sqlite3_str_finish(pWant);
  assert_true(nLines>=8);
  assert_non_null(strstr(zWant, "primary_key6 2001:db8::55"));   /* the cases are there */
  assert_non_null(strstr(zWant, "lladdr 020000000a0b"));
  zGot = tl_test_sql_rows(db, "SELECT text FROM events('" PERF_DIR "neigh.data') "
                              "WHERE type = 'SAMPLE' ORDER BY ts");
  assert_string_equal(zGot, zWant);
  free(zGot);
  sqlite3_free(zWant);
  tl_test_db_close(db);
}

/* ---- accel=off: the plain scan gives the accelerated scan's rows -------- */

/* "SAMPLE events: N" of the Aggregated section of perf report --stats. */
static int64_t stats_samples(const char *zFile){
  char zPath[512], zLine[512];
  long long n = -1;
  FILE *f;
  snprintf(zPath, sizeof(zPath), PERF_DIR "%s.stats.txt", zFile);
  f = fopen(zPath, "r");
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) && sscanf(zLine, " SAMPLE events: %lld", &n)!=1 ){}
  fclose(f);
  return n;
}

/*
** TlFilter.bPlain (accel=off) on every shape the reader accelerates:
** count(*) (chunk counts), type = 'SAMPLE' (counts of SAMPLE records),
** type, cpu, value and name (runs, chunk keys), cpu alone (GROUP BY cpu's
** scan, grouped by the engine) and callchains grouped by symbol (the
** engine's grouping, tallied per chunk by the reader). The plain scan
** repeats no row and leaves nothing lazy; both give the same rows, and the
** SAMPLE rows are as many as perf report --stats counts.
*/
static void perf_plain_scan_equals_accelerated(void **state){
  enum { SH_COUNT, SH_SAMPLE, SH_RUNS, SH_CPU, SH_SYMBOL, SH_N };
  int aAccel[SH_N], aGrouped[SH_N];
  size_t k;
  (void)state;
  memset(aAccel, 0, sizeof(aAccel));
  memset(aGrouped, 0, sizeof(aGrouped));
  for(k=0; k<=N_FILES; k++){
    char zPath[512];
    const char *zOpts = 0;
    TlTrace *p;
    TlErr e;
    int iShape;
    if( k<N_FILES ){
      snprintf(zPath, sizeof(zPath), PERF_DIR "%s.data", azFiles[k]);
    }else{
      /* symbols for the callchain frames: the files perf was given */
      snprintf(zPath, sizeof(zPath), PERF_DIR "sym/sym.data");
      zOpts = "symfs=\"" PERF_DIR "sym/symfs\" kallsyms=\"" PERF_DIR "sym/kallsyms\"";
    }
    tl_err_clear(&e);
    assert_int_equal(tl_trace_open(zPath, zOpts, &p, &e), TL_OK);
    for(iShape=0; iShape<SH_N; iShape++){
      TlFilter f;
      TlScanLines accel, plain;
      int iTable = iShape==SH_SYMBOL ? TL_TAB_CALLCHAINS : TL_TAB_EVENTS;
      int iGroupCol = iShape==SH_SYMBOL ? TL_CC_SYMBOL : -1;
      size_t i;
      memset(&f, 0, sizeof(f));
      f.tsLo = TL_TS_MIN;
      f.tsHi = TL_TS_MAX;
      f.nCpu = -1;
      switch( iShape ){
        case SH_SAMPLE:
          f.zType = "SAMPLE";
          f.mCols = (uint64_t)1<<TL_EV_TYPE;
          break;
        case SH_RUNS:
          f.zType = "SAMPLE";
          f.mCols = ((uint64_t)1<<TL_EV_TYPE) | ((uint64_t)1<<TL_EV_CPU)
                  | ((uint64_t)1<<TL_EV_VALUE) | ((uint64_t)1<<TL_EV_NAME);
          break;
        case SH_CPU:
          f.mCols = (uint64_t)1<<TL_EV_CPU;
          break;
        case SH_SYMBOL:
          f.mCols = (uint64_t)1<<TL_CC_SYMBOL;
          break;
        default:
          break;
      }
      tl_test_scan_lines(p, iTable, &f, f.mCols, iShape!=SH_SYMBOL, iGroupCol, &accel);
      f.bPlain = 1;
      tl_test_scan_lines(p, iTable, &f, f.mCols, iShape!=SH_SYMBOL, -1, &plain);
      if( plain.nRepeated>0 || plain.nLazy>0 ){
        fail_msg("%s, shape %d: the plain scan repeats or defers rows", zPath, iShape);
      }
      if( accel.nRepeated>0 || accel.nLazy>0 ) aAccel[iShape]++;
      if( iGroupCol>=0 && accel.bScattered ){
        fail_msg("%s, shape %d: the grouped scan's rows are not grouped", zPath, iShape);
      }
      if( iGroupCol>=0 && accel.rows.n>0 ) aGrouped[iShape]++;
      if( accel.rows.n!=plain.rows.n ){
        fail_msg("%s, shape %d: %zu rows, %zu plain", zPath, iShape, accel.rows.n, plain.rows.n);
      }
      for(i=0; i<plain.rows.n; i++){
        if( strcmp(accel.rows.az[i], plain.rows.az[i]) ){
          fail_msg("%s, shape %d: row %s, plain %s", zPath, iShape, accel.rows.az[i], plain.rows.az[i]);
        }
      }
      if( iShape==SH_SAMPLE && k<N_FILES ){
        assert_int_equal((int64_t)plain.rows.n, stats_samples(azFiles[k]));
      }
      tl_lines_free(&accel.rows);
      tl_lines_free(&plain.rows);
    }
    tl_trace_release(p);
  }
  /* the accelerated scans did accelerate: counted chunks, runs, symbols */
  assert_true(aAccel[SH_COUNT]>0);
  assert_true(aAccel[SH_SAMPLE]>0);
  assert_true(aAccel[SH_RUNS]>0);
  assert_true(aAccel[SH_SYMBOL]>0);
  assert_true(aGrouped[SH_SYMBOL]>0);
}

TL_DEFINE_GROUP(perf,
  cmocka_unit_test(perf_plain_scan_equals_accelerated),
  cmocka_unit_test(perf_printfmt_evaluates_c_expressions),
  cmocka_unit_test(perf_printfmt_casts_and_arrays),
  cmocka_unit_test(perf_mem_topology_equals_header_I),
  cmocka_unit_test(perf_samples_equal_perf_script),
  cmocka_unit_test(perf_record_counts_equal_perf_report_stats),
  cmocka_unit_test(perf_type_pushdown_equals_perf_report_stats),
  cmocka_unit_test(perf_counts_read_no_chunk_and_rowids_equal_perf_dump),
  cmocka_unit_test(perf_group_by_cpu_equals_perf_report_sort_cpu),
  cmocka_unit_test(perf_runs_equal_row_by_row),
  cmocka_unit_test(perf_features_equal_perf_header_only),
  cmocka_unit_test(perf_build_ids_equal_perf_buildid_list),
  cmocka_unit_test(perf_windows_and_cpus_equal_unfiltered),
  cmocka_unit_test(perf_order_by_ts_equals_sorted),
  cmocka_unit_test(perf_user_registers_equal_perf_script),
  cmocka_unit_test(perf_sched_cpus_match_perf_script),
  cmocka_unit_test(perf_syscall_ids_match_perf_script),
  cmocka_unit_test(perf_callchains_are_rows),
  cmocka_unit_test(perf_callchain_depth_ranges_equal_perf_script),
  cmocka_unit_test(perf_reused_tid_is_two_tracks),
  cmocka_unit_test(perf_tracepoint_fields_equal_perf_script),
  cmocka_unit_test(perf_print_hex_and_addresses_equal_perf_script),
);
