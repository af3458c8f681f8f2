/*
** test_perf_stat.c: the args of perf stat's records and of NAMESPACES,
** against what perf prints.
**
** testdata/perf/stat/ (record.sh): stat.data and stat-a.data from perf stat
** record (one thread; system-wide), with perf report -D's lines of their
** STAT, STAT_ROUND, STAT_CONFIG, THREAD_MAP and CPU_MAP records
** (X.dump.txt), and ns.data from perf record --namespaces with perf
** script --show-namespace-events (ns.script.txt). perf stat report's
** numbers are sql/perf_stat.sql's test (tests/sql_library.py).
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define STAT_DIR TL_TESTDATA_DIR "/perf/stat/"

/* perf report -D's fields of every STAT-family record of zName.data equal the args. */
static void dump_equals_args(sqlite3 *db, const char *zName){
  char zPath[512], zLine[512], zData[512];
  FILE *f;
  sqlite3_str *pRef = sqlite3_str_new(0);
  int nStat = 0;
  snprintf(zPath, sizeof(zPath), STAT_DIR "%s.dump.txt", zName);
  snprintf(zData, sizeof(zData), STAT_DIR "%s.data", zName);
  f = fopen(zPath, "r");
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    long long a, b, c;
    char zType[32], zRest[256];
    if( sscanf(zLine, "... id %lld, cpu %lld, thread %lld", &a, &b, &c)==3 ){
      sqlite3_str_appendf(pRef, "STAT|%lld|%lld|%lld", a, b, c);
      nStat++;
    }else if( sscanf(zLine, "... value %lld, enabled %lld, running %lld", &a, &b, &c)==3 ){
      sqlite3_str_appendf(pRef, "|%lld|%lld|%lld\n", a, b, c);
    }else if( sscanf(zLine, "... time %lld, type %31s", &a, zType)==2 ){
      sqlite3_str_appendf(pRef, "STAT_ROUND|%lld|%s\n", a, zType);
    }else if( sscanf(zLine, "... aggr_mode %lld", &a)==1 ){
      sqlite3_str_appendf(pRef, "STAT_CONFIG|%lld", a);
    }else if( sscanf(zLine, "... scale %lld", &a)==1 ){
      sqlite3_str_appendf(pRef, "|%lld\n", a);
    }else if( sscanf(zLine, "%*s %*s %*s %*s PERF_RECORD_THREAD_MAP nr: %lld thread: %lld", &a, &b)==2 ){
      sqlite3_str_appendf(pRef, "THREAD_MAP|%lld|%lld\n", a, b);
    }else if( sscanf(zLine, "%*s %*s %*s %*s PERF_RECORD_CPU_MAP: %255[^\n]", zRest)==1 ){
      long lo, hi;
      if( sscanf(zRest, "%ld-%ld", &lo, &hi)!=2 ) hi = lo = atol(zRest);
      sqlite3_str_appendf(pRef, "CPU_MAP|[");
      for(; lo<=hi; lo++) sqlite3_str_appendf(pRef, "%ld%s", lo, lo<hi ? "," : "]\n");
    }
  }
  fclose(f);
  assert_true(nStat>=3);
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT type || '|' || CASE type "
      "  WHEN 'STAT' THEN printf('%%d|%%d|%%d|%%d|%%d|%%d', json_extract(args, '$.id'), "
      "    json_extract(args, '$.cpu'), json_extract(args, '$.thread'), json_extract(args, '$.value'), "
      "    json_extract(args, '$.enabled'), json_extract(args, '$.running')) "
      "  WHEN 'STAT_ROUND' THEN json_extract(args, '$.time') || '|' || json_extract(args, '$.type') "
      "  WHEN 'STAT_CONFIG' THEN json_extract(args, '$.aggr_mode') || '|' || json_extract(args, '$.scale') "
      "  WHEN 'THREAD_MAP' THEN json_extract(args, '$.nr') || '|' || json_extract(args, '$.threads[0].pid') "
      "  ELSE json_extract(args, '$.cpus') END "
      "FROM events(%Q) WHERE type IN ('STAT', 'STAT_ROUND', 'STAT_CONFIG', 'THREAD_MAP', 'CPU_MAP') "
      "ORDER BY rowid", zData), pRef);
}

/* STAT rows also name their counter, as perf stat report does through the id. */
static void perf_stat_records_equal_perf_report_dump(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  dump_equals_args(db, "stat");
  dump_equals_args(db, "stat-a");
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(DISTINCT json_extract(args, '$.event')) FROM events('" STAT_DIR "stat-a.data') "
      "WHERE type = 'STAT'"), 4);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" STAT_DIR "stat-a.data') WHERE type = 'STAT' "
      "AND json_extract(args, '$.event') = 'cpu-migrations'"), 2);   /* one per CPU */
  tl_test_db_close(db);
}

/* NAMESPACES: "[0/net: DEV/0xINO, 1/uts: ...]" of perf script --show-namespace-events. */
static void perf_namespaces_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(STAT_DIR "ns.script.txt", "r");
  char zLine[1024];
  sqlite3_str *pRef = sqlite3_str_new(0);
  int bIn = 0, nNs = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char *z = zLine;
    long pid, tid;
    char *zHead = strstr(zLine, "PERF_RECORD_NAMESPACES ");
    if( zHead && sscanf(zHead, "PERF_RECORD_NAMESPACES %ld/%ld", &pid, &tid)==2 ){
      sqlite3_str_appendf(pRef, "%ld|%ld", pid, tid);
      bIn = 1;
      continue;
    }
    while( bIn && (z = strchr(z, '/'))!=0 ){
      char zNs[32];
      unsigned long long dev, ino;
      if( sscanf(z, "/%31[a-z]: %llu/0x%llx", zNs, &dev, &ino)==3 ){
        sqlite3_str_appendf(pRef, "|%s:%llu/%llu", zNs, dev, ino);
        nNs++;
      }
      z++;
    }
    if( bIn && strchr(zLine, ']') ){ sqlite3_str_appendf(pRef, "\n"); bIn = 0; }
  }
  fclose(f);
  assert_true(nNs>=7);
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT json_extract(e.args, '$.pid') || '|' || json_extract(e.args, '$.tid') || "
      "  (SELECT group_concat('|' || key || ':' || json_extract(value, '$.dev') || '/' || "
      "     json_extract(value, '$.ino'), '') FROM json_each(e.args, '$.namespaces')) "
      "FROM events('" STAT_DIR "ns.data') e WHERE type = 'NAMESPACES' ORDER BY rowid"), pRef);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_stat,
  cmocka_unit_test(perf_stat_records_equal_perf_report_dump),
  cmocka_unit_test(perf_namespaces_equal_perf_script),
);
