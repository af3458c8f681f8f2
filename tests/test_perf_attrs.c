/*
** test_perf_attrs.c: what event_types says of each perf attribute's
** samples (args samples, first_ts, last_ts), against perf.
**
** X.times.txt beside a trace is `perf script --ns -F time,event`
** (sql-refs.sh): one line per sample, its time in ns and its event. Each
** event's line count and its earliest and latest time are what event_types
** gives; `perf report --stats` (X.stats.txt) gives the same counts. The
** numbers are counted when the trace is opened: they must also be what the
** events table's own rows give, on every test file (cut short, compressed,
** pipe mode, a --threads directory merged in memory or through files,
** clock=), and on a pipe file whose attributes come after samples.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define PERF_DIR TL_TESTDATA_DIR "/perf/"
#define MAX_EV 16

typedef struct EvTimes EvTimes;
struct EvTimes { char zName[128]; int64_t n, tsFirst, tsLast; };

static int ev_cmp(const void *x, const void *y){
  return strcmp(((const EvTimes*)x)->zName, ((const EvTimes*)y)->zName);
}

/* The events of a perf script --ns -F time,event output, sorted by name. */
static int times_read(const char *zPath, EvTimes *a){
  FILE *f = fopen(zPath, "r");
  char zLine[512];
  int nEv = 0, i;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    long long sec, ns;
    char zName[128];
    size_t k;
    int64_t ts;
    if( sscanf(zLine, " %lld.%9lld: %127s", &sec, &ns, zName)!=3 ) continue;
    k = strlen(zName);
    assert_true(k>1 && zName[k-1]==':');
    zName[k-1] = 0;
    ts = sec*1000000000 + ns;
    for(i=0; i<nEv && strcmp(a[i].zName, zName)!=0; i++){}
    if( i==nEv ){
      assert_true(nEv<MAX_EV);
      snprintf(a[i].zName, sizeof(a[i].zName), "%s", zName);
      a[i].n = 0;
      a[i].tsFirst = a[i].tsLast = ts;
      nEv++;
    }
    a[i].n++;
    if( ts<a[i].tsFirst ) a[i].tsFirst = ts;
    if( ts>a[i].tsLast ) a[i].tsLast = ts;
  }
  fclose(f);
  qsort(a, (size_t)nEv, sizeof(EvTimes), ev_cmp);
  return nEv;
}

/* perf report --stats: "NAME stats:" sections, then "SAMPLE events: N";
** as "NAME|N" lines, sorted. */
static sqlite3_str *stats_samples(const char *zPath){
  FILE *f = fopen(zPath, "r");
  sqlite3_str *p = sqlite3_str_new(0);
  TlLines lines = {0, 0, 0};
  char zLine[512], zEv[512] = "";
  size_t i;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    long long n;
    size_t k = strlen(zLine);
    while( k && (zLine[k-1]=='\n' || zLine[k-1]==' ') ) zLine[--k] = 0;
    if( k>7 && zLine[0]!=' ' && strcmp(zLine + k - 7, " stats:")==0 ){
      zLine[k-7] = 0;
      snprintf(zEv, sizeof(zEv), "%s", strcmp(zLine, "Aggregated")==0 ? "" : zLine);
    }else if( zEv[0] && sscanf(zLine, " SAMPLE events: %lld", &n)==1 ){
      char z[600];
      snprintf(z, sizeof(z), "%s|%lld", zEv, n);
      tl_lines_add(&lines, z);
    }
  }
  fclose(f);
  tl_lines_sort(&lines);
  for(i=0; i<lines.n; i++) sqlite3_str_appendf(p, "%s\n", lines.az[i]);
  tl_lines_free(&lines);
  return p;
}

/*
** Each event's samples, first and last time: the line count and the
** earliest and latest line of perf script; the counts also perf report
** --stats's (sections in perf's order: sorted here).
*/
static void perf_attr_samples_and_times_equal_perf(void **state){
  static const char *const azTrace[] = { "sched", "wakeup", "multi", "pipe", "dir/thr" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    EvTimes a[MAX_EV];
    char zPath[512];
    sqlite3_str *pRef = sqlite3_str_new(0);
    int i, nEv;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.times.txt", azTrace[k]);
    nEv = times_read(zPath, a);
    assert_true(nEv>0);
    for(i=0; i<nEv; i++){
      sqlite3_str_appendf(pRef, "%s|%lld|%lld|%lld\n", a[i].zName, (long long)a[i].n,
                          (long long)a[i].tsFirst, (long long)a[i].tsLast);
    }
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.data", azTrace[k]);
    tl_test_rows_equal_text(tl_test_sql_rows(db,
        "SELECT name, args->>'samples', args->>'first_ts', args->>'last_ts' FROM event_types(%Q) "
        "WHERE args->>'samples' > 0 ORDER BY name", zPath), pRef);
    if( strcmp(azTrace[k], "wakeup")!=0 ){        /* (no stats.txt) */
      char zStats[512];
      snprintf(zStats, sizeof(zStats), PERF_DIR "%s.stats.txt", azTrace[k]);
      tl_test_rows_equal_text(tl_test_sql_rows(db,
          "SELECT name, args->>'samples' FROM event_types(%Q) WHERE args->>'samples' > 0 ORDER BY name",
          zPath), stats_samples(zStats));
    }
  }
  tl_test_db_close(db);
}

/*
** event_types' numbers against the events table's SAMPLE rows, scanned
** plainly (accel=off), per event name: none may differ, either way.
*/
static void attrs_equal_events(sqlite3 *db, const char *zPath, const char *zOpts){
  static const char *const zAttr =
    "SELECT name, sum(args->>'samples'), min(args->>'first_ts'), max(args->>'last_ts') "
    "FROM event_types(%Q, %Q) WHERE args->>'samples' > 0 GROUP BY name";
  static const char *const zEvents =
    "SELECT name, count(*), min(ts), max(ts) FROM events(%Q, %Q) WHERE type = 'SAMPLE' GROUP BY name";
  char zPlain[256], zSql[1024];
  snprintf(zPlain, sizeof(zPlain), "%s%saccel=off", zOpts, zOpts[0] ? "," : "");
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM (%s EXCEPT %s)", zAttr, zEvents);
  assert_int_equal(tl_test_sql_int(db, zSql, zPath, zOpts, zPath, zPlain), 0);
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM (%s EXCEPT %s)", zEvents, zAttr);
  assert_int_equal(tl_test_sql_int(db, zSql, zPath, zPlain, zPath, zOpts), 0);
}

static void perf_attr_numbers_are_the_events_rows(void **state){
  static const struct { const char *zFile, *zOpts; } aCase[] = {
    { "cpu-clock-g.data", "" }, { "clock.data", "" }, { "clock.data", "clock=monotonic" },
    { "clock.data", "clock=realtime" }, { "multi.data", "" }, { "zstd.data", "" },
    { "pipe.data", "" }, { "sched.data", "" }, { "wakeup.data", "" }, { "switch.data", "" },
    { "dwarf.data", "" }, { "reuse.data", "" }, { "neigh.data", "" }, { "lost.data", "" },
    { "cut.data", "" }, { "threads-inherit.data", "" }, { "kmem/kmem.data", "" },
    { "dir/thr.data", "" }, { "dir/thr.data", "max_memory=1" },
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(aCase)/sizeof(aCase[0]); k++){
    char zPath[512];
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s", aCase[k].zFile);
    attrs_equal_events(db, zPath, aCase[k].zOpts);
  }
  /* clock=realtime moved them as it moves ts */
  assert_true(tl_test_sql_int(db, "SELECT a.args->>'first_ts' - b.args->>'first_ts' FROM "
                                  "event_types('" PERF_DIR "clock.data', 'clock=realtime') a, "
                                  "event_types('" PERF_DIR "clock.data') b WHERE a.id = b.id AND a.id = 0")
              > (int64_t)1000000000*1000000000);
  tl_test_db_close(db);
}

/* ---- a pipe file written here --------------------------------------------- */

typedef struct PipeW PipeW;
struct PipeW { uint8_t a[4096]; size_t n; };

static void pipe_put(PipeW *w, uint64_t v, int nByte){
  int i;
  for(i=0; i<nByte; i++) w->a[w->n++] = (uint8_t)(v>>(8*i));
}

/* HEADER_ATTR: a 64-byte software attr (IP|TID|TIME|ID), one id. */
static void pipe_attr(PipeW *w, uint64_t config, uint64_t id){
  pipe_put(w, 64, 4); pipe_put(w, 0, 2); pipe_put(w, 8+64+8, 2);
  pipe_put(w, 1, 4); pipe_put(w, 64, 4); pipe_put(w, config, 8); pipe_put(w, 100000, 8);
  pipe_put(w, 1|2|4|64, 8); pipe_put(w, 0, 8); pipe_put(w, 0, 8);
  pipe_put(w, 0, 8); pipe_put(w, 0, 8);
  pipe_put(w, id, 8);
}

static void pipe_sample(PipeW *w, uint64_t id, uint64_t ts){
  pipe_put(w, 9, 4); pipe_put(w, 1, 2); pipe_put(w, 8+32, 2);
  pipe_put(w, 0x1000, 8); pipe_put(w, 42, 4); pipe_put(w, 42, 4); pipe_put(w, ts, 8); pipe_put(w, id, 8);
}

/*
** Pipe mode: cpu-clock (id 7), samples of ids 7 and 8, then task-clock
** (id 8), then more samples. Every sample of id 8 is task-clock's, also
** the ones before its attr (as the scans read them, with every attr known);
** so in the file cut short too.
*/
static void perf_attr_after_samples_counts_them_again(void **state){
  static PipeW w;
  sqlite3 *db = tl_test_db();
  char zPath[512];
  sqlite3_str *pRef = sqlite3_str_new(0);
  (void)state;
  memset(&w, 0, sizeof(w));
  memcpy(w.a, "PERFILE2", 8);
  w.n = 8;
  pipe_put(&w, 16, 8);
  pipe_attr(&w, 0, 7);
  pipe_sample(&w, 7, 1000); pipe_sample(&w, 8, 2000); pipe_sample(&w, 7, 3000); pipe_sample(&w, 8, 4000);
  pipe_attr(&w, 1, 8);
  pipe_sample(&w, 8, 5000); pipe_sample(&w, 7, 6000);
  snprintf(zPath, sizeof(zPath), "%s/late-attr.data", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
  sqlite3_str_appendf(pRef, "0|3|1000|6000\n1|3|2000|5000\n");
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT args->>'config', args->>'samples', args->>'first_ts', args->>'last_ts' FROM event_types(%Q) ORDER BY id",
      zPath), pRef);
  attrs_equal_events(db, zPath, "");
  /* cut short inside the last sample: the samples before it */
  assert_int_equal(tl_test_write_file(zPath, w.a, w.n - 10), 0);
  pRef = sqlite3_str_new(0);
  sqlite3_str_appendf(pRef, "0|2|1000|3000\n1|3|2000|5000\n");
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT args->>'config', args->>'samples', args->>'first_ts', args->>'last_ts' FROM event_types(%Q) ORDER BY id",
      zPath), pRef);
  attrs_equal_events(db, zPath, "");
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_attrs,
  cmocka_unit_test(perf_attr_samples_and_times_equal_perf),
  cmocka_unit_test(perf_attr_numbers_are_the_events_rows),
  cmocka_unit_test(perf_attr_after_samples_counts_them_again),
);
