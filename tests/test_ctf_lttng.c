/*
** test_ctf_lttng.c: the CTF reader on LTTng-UST traces recorded by
** testdata/ctf/record.sh, against the babeltrace2 output stored beside
** them (NAME.bt2.txt: "[seconds.ns] event: fields" per event) and the
** counts derived from it (NAME.counts.txt).
*/
#include "tltest.h"

#include "group.h"
#include "str.h"
#include "trace.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CTF_DIR TL_TESTDATA_DIR "/ctf/"

static const char *const azTrace[] = { "ust-types", "ust-multi", "ust-pid" };

/* Split text into lines (the buffer is modified) into *pL. */
static void split_lines(char *z, TlLines *pL){
  char *zLine = z;
  while( zLine && *zLine ){
    char *zEnd = strchr(zLine, '\n');
    if( zEnd ) *zEnd = 0;
    tl_lines_add(pL, zLine);
    zLine = zEnd ? zEnd+1 : 0;
  }
}

/*
** Our lines equal babeltrace2's as sets (equal times may come in another
** order than babeltrace2's); frees both.
*/
static void lines_equal_unordered(const char *zTrace, TlLines *pWant, TlLines *pGot){
  size_t i;
  tl_lines_sort(pWant);
  tl_lines_sort(pGot);
  assert_int_equal(pGot->n, pWant->n);
  for(i=0; i<pWant->n; i++){
    if( strcmp(pGot->az[i], pWant->az[i])!=0 ){
      fail_msg("%s line %zu:\n ours %s\n bt2  %s", zTrace, i, pGot->az[i], pWant->az[i]);
    }
  }
  tl_lines_free(pWant);
  tl_lines_free(pGot);
}

/*
** Every event equals babeltrace2's line for it: time, name and fields, and
** the counts, CPUs and time range agree.
*/
static void lttng_traces_equal_babeltrace2(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zPath[512], zRef[512];
    char *zWant, *zGot, *zCounts, *zLine;
    TlLines want = {0}, got = {0};
    snprintf(zPath, sizeof(zPath), CTF_DIR "%s", azTrace[k]);
    snprintf(zRef, sizeof(zRef), CTF_DIR "%s.bt2.txt", azTrace[k]);
    zWant = tl_test_read_file(zRef, 0);
    assert_non_null(zWant);
    zGot = tl_test_sql_rows(db,
        "SELECT printf('[%%d.%%09d] %%s: %%s', ts/1000000000, ts%%1000000000, name, text)"
        " FROM events(%Q)", zPath);
    split_lines(zWant, &want);
    split_lines(zGot, &got);
    lines_equal_unordered(azTrace[k], &want, &got);
    free(zWant);
    free(zGot);
    /* NAME.counts.txt: events, first_ts, last_ts, name N C, cpu N C */
    snprintf(zRef, sizeof(zRef), CTF_DIR "%s.counts.txt", azTrace[k]);
    zCounts = tl_test_read_file(zRef, 0);
    assert_non_null(zCounts);
    for(zLine=strtok(zCounts, "\n"); zLine; zLine=strtok(0, "\n")){
      char zKey[32], zName[128];
      long long v, c;
      if( sscanf(zLine, "name %127s %lld", zName, &c)==2 ){
        assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE name=%Q",
                                    zPath, zName)==c);
      }else if( sscanf(zLine, "cpu %lld %lld", &v, &c)==2 ){
        /* through the cpu pushdown */
        assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu=%lld",
                                    zPath, v)==c);
      }else if( sscanf(zLine, "%31s %lld", zKey, &v)==2 ){
        const char *zSql = strcmp(zKey, "events")==0 ? "count(*)"
                         : strcmp(zKey, "first_ts")==0 ? "min(ts)" : "max(ts)";
        assert_true(tl_test_sql_int(db, "SELECT %s FROM events(%Q)", zSql, zPath)==v);
      }
    }
    free(zCounts);
  }
  tl_test_db_close(db);
}

/*
** Scans that want no field values run compiled skip plans instead of the
** full decoder: their rows (rowid, time, raw clock, CPU, stream, name)
** equal the full decoder's (a scan that also reads args) row for row, and
** each event's time and name equal babeltrace2's line for it.
*/
static void lttng_skip_plans_equal_full_decode(void **state){
  sqlite3 *db = tl_test_db();
  size_t k, i;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zPath[512], zRef[512];
    char *zFast, *zFull, *zWant, *zNames;
    TlLines want = {0}, got = {0};
    snprintf(zPath, sizeof(zPath), CTF_DIR "%s", azTrace[k]);
    zFast = tl_test_sql_rows(db, "SELECT rowid, ts, ts_raw, cpu, track, name FROM events(%Q)", zPath);
    zFull = tl_test_sql_rows(db, "SELECT rowid, ts, ts_raw, cpu, track, name FROM events(%Q)"
                                 " WHERE args IS NOT NULL", zPath);
    assert_true(strlen(zFast) > 100);
    assert_string_equal(zFast, zFull);
    /* babeltrace2: "[s.ns] name: fields" */
    snprintf(zRef, sizeof(zRef), CTF_DIR "%s.bt2.txt", azTrace[k]);
    zWant = tl_test_read_file(zRef, 0);
    assert_non_null(zWant);
    split_lines(zWant, &want);
    for(i=0; i<want.n; i++){
      char *zColon = strstr(want.az[i], ": ");
      assert_non_null(zColon);
      *zColon = 0;
    }
    zNames = tl_test_sql_rows(db, "SELECT printf('[%%d.%%09d] %%s', ts/1000000000, ts%%1000000000, name)"
                                  " FROM events(%Q)", zPath);
    split_lines(zNames, &got);
    lines_equal_unordered(azTrace[k], &want, &got);
    free(zFast);
    free(zFull);
    free(zWant);
    free(zNames);
  }
  tl_test_db_close(db);
}

/*
** count(*) (no value wanted but cpu, track, type; no time bound) counts each
** packet's events with the plans alone and gives one repeated row per
** packet: the total is babeltrace2's (NAME.counts.txt), the per-CPU counts
** and the rowids (worked out per repeat) are those of the full decoder.
** ust-types has classes no plan covers: those streams are read event by
** event.
*/
static void lttng_count_from_packets(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zPath[512], zRef[512];
    char *zRefText, *zA, *zB;
    long long nWant = -1;
    snprintf(zPath, sizeof(zPath), CTF_DIR "%s", azTrace[k]);
    snprintf(zRef, sizeof(zRef), CTF_DIR "%s.counts.txt", azTrace[k]);
    zRefText = tl_test_read_file(zRef, 0);
    assert_non_null(zRefText);
    assert_int_equal(sscanf(zRefText, "events %lld", &nWant), 1);
    free(zRefText);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), nWant);
    zA = tl_test_sql_rows(db, "SELECT c.value, (SELECT count(*) FROM events(%Q) WHERE cpu = c.value) "
                              "FROM (SELECT column1 AS value FROM (VALUES (0), (1), (2), (3))) c", zPath);
    zB = tl_test_sql_rows(db, "SELECT c.value, (SELECT count(*) FROM events(%Q) WHERE cpu = c.value "
                              "AND args IS NOT NULL) FROM (SELECT column1 AS value FROM (VALUES (0), (1), (2), (3))) c", zPath);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
    zA = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid FROM events(%Q) ORDER BY 1)", zPath);
    zB = tl_test_sql_text(db, "SELECT group_concat(rowid) FROM (SELECT rowid FROM events(%Q) "
                              "WHERE args IS NOT NULL ORDER BY 1)", zPath);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
  }
  tl_test_db_close(db);
}

/*
** GROUP BY name and DISTINCT name over name alone come counted by class,
** without a sort: the counts equal babeltrace2's (NAME.counts.txt, names
** in byte order) and those of a grouping SQLite sorts itself; the
** per-PID session has the same names in two traces, merged.
*/
static void lttng_group_by_name_equals_babeltrace2(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zPath[512], zRef[512], zName[128];
    char *zCounts, *zLine, *zGot, *zSorted, *zDistinct;
    TlStr want, names;
    long long c;
    snprintf(zPath, sizeof(zPath), CTF_DIR "%s", azTrace[k]);
    snprintf(zRef, sizeof(zRef), CTF_DIR "%s.counts.txt", azTrace[k]);
    zCounts = tl_test_read_file(zRef, 0);
    assert_non_null(zCounts);
    tl_str_init(&want);
    tl_str_init(&names);
    for(zLine=strtok(zCounts, "\n"); zLine; zLine=strtok(0, "\n")){
      if( sscanf(zLine, "name %127s %lld", zName, &c)==2 ){
        tl_str_appendf(&want, "%s%s|%lld", want.n ? "\n" : "", zName, c);
        tl_str_appendf(&names, "%s%s", names.n ? "|" : "", zName);
      }
    }
    zGot = tl_test_sql_rows(db, "SELECT name, count(*) FROM events(%Q) GROUP BY name", zPath);
    zSorted = tl_test_sql_rows(db, "SELECT name, count(*) FROM events(%Q) GROUP BY name"
                                   " HAVING min(ts) IS NOT NULL", zPath);
    zDistinct = tl_test_sql_rows(db, "SELECT group_concat(name, '|') FROM"
                                     " (SELECT DISTINCT name FROM events(%Q))", zPath);
    assert_true(want.n > 0);
    assert_string_equal(zGot, want.z);
    assert_string_equal(zSorted, want.z);
    assert_string_equal(zDistinct, names.z);
    tl_str_free(&want);
    tl_str_free(&names);
    free(zCounts);
    free(zGot);
    free(zSorted);
    free(zDistinct);
  }
  tl_test_db_close(db);
}

/*
** The per-PID session: both processes' traces, found below the session
** directory, merged in time order; the CPU of each stream from its packets.
*/
static void lttng_per_pid_session(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  assert_int_equal(tl_test_sql_int(db, "SELECT count(DISTINCT args->>'$.trace') FROM tracks('"
                                       CTF_DIR "ust-pid')"), 2);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM tracks('" CTF_DIR "ust-pid')"
                                       " WHERE name LIKE 'ust/pid/tl_app-%%/chan_%%'"), 4);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT ts, lag(ts) OVER () AS p"
                                       " FROM events('" CTF_DIR "ust-pid')) WHERE p > ts"), 0);
  z = tl_test_sql_text(db, "SELECT group_concat(DISTINCT cpu) FROM (SELECT cpu FROM tracks('"
                           CTF_DIR "ust-pid') ORDER BY cpu)");
  assert_string_equal(z, "0,1");
  free(z);
  tl_test_db_close(db);
}

/*
** A time window over the many-packet trace reads only the packets whose
** range meets it, and gives what the unfiltered scan gives; so does cpu=.
*/
static void lttng_window_and_cpu_read_few_packets(void **state){
  sqlite3 *db = tl_test_db();
  const char *zPath = CTF_DIR "ust-multi";
  int64_t lo, hi, nPkt, nMeet, n0, n;
  (void)state;
  nPkt = tl_test_sql_int(db, "SELECT count(*) FROM packets('%s')", zPath);
  assert_true(nPkt >= 8);
  lo = tl_test_sql_int(db, "SELECT min(ts) + (max(ts)-min(ts))/2 FROM events('%s')", zPath);
  hi = lo + tl_test_sql_int(db, "SELECT (max(ts)-min(ts))/50 FROM events('%s')", zPath);
  nMeet = tl_test_sql_int(db, "SELECT count(*) FROM packets('%s') WHERE ts_end >= %lld"
                              " AND ts_begin <= %lld", zPath, (long long)lo, (long long)hi);
  n0 = tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets('%s')", zPath);
  n = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE ts BETWEEN %lld AND %lld",
                      zPath, (long long)lo, (long long)hi);
  assert_true(n > 0);
  assert_true(tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets('%s')", zPath) - n0
              <= nMeet);
  assert_true(nMeet < nPkt);
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE ts+0 BETWEEN %lld AND %lld",
                              zPath, (long long)lo, (long long)hi)==n);
  n0 = tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets('%s')", zPath);
  n = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE cpu=1", zPath);
  assert_true(tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets('%s')", zPath) - n0
              == tl_test_sql_int(db, "SELECT count(*) FROM packets('%s') WHERE cpu=1", zPath));
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE cpu+0=1", zPath)==n);
  tl_test_db_close(db);
}

/* Copy file zFrom to zTo, cut to nKeep bytes (all when nKeep is -1). */
static void copy_cut(const char *zFrom, const char *zTo, long long nKeep){
  size_t n;
  void *a = tl_test_read_file(zFrom, &n);
  assert_non_null(a);
  if( nKeep>=0 && (size_t)nKeep < n ) n = (size_t)nKeep;
  assert_int_equal(tl_test_write_file(zTo, a, n), 0);
  free(a);
}

/*
** Every stream file of ust-multi cut at each packet boundary, inside each
** packet header and in the middle of each packet: the query succeeds with
** the events of the packets before the cut (all of them at a boundary, a
** prefix of the cut packet's inside it), and a warning unless the cut is
** at a boundary.
*/
static void lttng_truncation_sweep(void **state){
  sqlite3 *db = tl_test_db();
  const char *zSrc = CTF_DIR "ust-multi/ust/uid/0/64-bit";
  char zDir[512], zFrom[700], zTo[700];
  static const char *const azFile[] = { "metadata", "chan_a_0", "chan_a_1", "chan_b_0", "chan_b_1" };
  int f, g;
  int64_t nAll;
  (void)state;
  nAll = tl_test_sql_int(db, "SELECT count(*) FROM events('%s')", zSrc);
  for(f=1; f<5; f++){
    char *zOffs = tl_test_sql_rows(db, "SELECT offset || ' ' || size || ' ' || id FROM packets('%s')"
                                       " WHERE file=%Q", zSrc, azFile[f]);
    char *zLine;
    for(zLine=strtok(zOffs, "\n"); zLine; zLine=strtok(0, "\n")){
      long long off, size, id;
      assert_int_equal(sscanf(zLine, "%lld %lld %lld", &off, &size, &id), 3);
      for(g=0; g<3; g++){
        long long cut = g==0 ? off : g==1 ? off + 20 : off + size/2;
        int64_t nBefore, nIn, nGot;
        snprintf(zDir, sizeof(zDir), "%s/cut-%d-%lld", tl_test_tmpdir(), f, cut);
        mkdir(zDir, 0755);
        for(int k=0; k<5; k++){
          snprintf(zFrom, sizeof(zFrom), "%s/%s", zSrc, azFile[k]);
          snprintf(zTo, sizeof(zTo), "%s/%s", zDir, azFile[k]);
          copy_cut(zFrom, zTo, k==f ? cut : -1);
        }
        /* events of this file's packets from the cut packet on, in the whole trace */
        nBefore = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE (rowid>>28) IN"
                                      " (SELECT id FROM packets('%s') WHERE file=%Q AND id>=%lld)",
                                  zSrc, zSrc, azFile[f], id);
        nIn = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE (rowid>>28)=%lld",
                              zSrc, id);
        nGot = tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir);
        if( g==0 ){
          assert_true(nGot == nAll - nBefore);
        }else{
          assert_true(nGot >= nAll - nBefore && nGot <= nAll - nBefore + nIn);
          assert_true(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zDir) >= 1);
        }
      }
    }
    free(zOffs);
  }
  tl_test_db_close(db);
}

/* babeltrace2's events (NAME.bt2.txt) as "ts|cpu|name" lines, sorted. */
static void bt2_events(const char *zTrace, TlLines *pOut){
  char zRef[512];
  char *zText, *zLine;
  snprintf(zRef, sizeof(zRef), CTF_DIR "%s.bt2.txt", zTrace);
  zText = tl_test_read_file(zRef, 0);
  assert_non_null(zText);
  for(zLine=strtok(zText, "\n"); zLine; zLine=strtok(0, "\n")){
    long long s, ns;
    char *zName = strstr(zLine, "] "), *zEnd = strstr(zLine, ": "), *zCpu = strstr(zLine, "cpu_id = ");
    char zKey[256];
    int64_t ts;
    assert_int_equal(sscanf(zLine, "[%lld.%lld]", &s, &ns), 2);
    assert_true(zName && zEnd && zCpu && zEnd > zName);
    ts = (int64_t)s*1000000000 + ns;
    snprintf(zKey, sizeof(zKey), "%lld|%d|%.*s", (long long)ts, atoi(zCpu + 9),
             (int)(zEnd - zName - 2), zName + 2);
    tl_lines_add(pOut, zKey);
  }
  free(zText);
  tl_lines_sort(pOut);
}

/*
** The rows of a scan of events with filter f, each repeat of a repeated row
** on its own (rowids and TL_LAZY values asked of the reader), as
** "rowid|ts|cpu|name" lines with "-" for what the query does not use (the
** rowid too when !bRowid) and only the rows in f's time window. With
** f->bPlain every row stands for itself and holds its values.
*/
static void scan_events(TlTrace *p, const TlFilter *f, int bRowid, TlLines *pOut){
  TlQuery *q = 0;
  TlErr e;
  TlRow r;
  int rc, bTs = tl_col_used(f, TL_EV_TS) || f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX;
  tl_err_clear(&e);
  assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, f, &q, &e), TL_OK);
  for(;;){
    int64_t i, n;
    memset(&r, 0, sizeof(r));
    if( (rc = tl_query_next(q, &r))!=TL_ROW ) break;
    assert_null(r.aVary);
    if( f->bPlain ){
      int k;
      assert_int_equal(r.nRepeat, 0);
      assert_true(r.iRowid!=TL_ROWID_LAZY);
      for(k=0; k<TL_EV_NCOL; k++) assert_true(r.a[k].t!=TL_LAZY);
    }
    n = r.nRepeat > 1 ? r.nRepeat : 1;
    for(i=0; i<n; i++){
      char zKey[300], zRowid[24] = "-", zTs[24] = "-", zCpu[24] = "-";
      char zName[200] = "-";
      TlVal v = r.a[TL_EV_TS];
      int64_t iRowid;
      if( v.t==TL_LAZY ) assert_int_equal(tl_query_value(q, i, TL_EV_TS, &v), TL_OK);
      if( bTs ){
        if( f->tsLo!=TL_TS_MIN || f->tsHi!=TL_TS_MAX ){
          if( v.t!=TL_INT || v.i < f->tsLo || v.i > f->tsHi ) continue;
        }
        if( v.t==TL_INT ) snprintf(zTs, sizeof(zTs), "%lld", (long long)v.i);
      }
      if( bRowid ){
        assert_int_equal(tl_query_rowid(q, &r, i, &iRowid), TL_OK);
        snprintf(zRowid, sizeof(zRowid), "%lld", (long long)iRowid);
      }
      if( tl_col_used(f, TL_EV_CPU) && r.a[TL_EV_CPU].t==TL_INT ){
        snprintf(zCpu, sizeof(zCpu), "%lld", (long long)r.a[TL_EV_CPU].i);
      }
      if( tl_col_used(f, TL_EV_NAME) ){
        assert_int_equal(r.a[TL_EV_NAME].t, TL_TEXT);
        snprintf(zName, sizeof(zName), "%.*s", (int)r.a[TL_EV_NAME].n, r.a[TL_EV_NAME].z);
      }
      snprintf(zKey, sizeof(zKey), "%s|%s|%s|%s", zRowid, zTs, zCpu, zName);
      tl_lines_add(pOut, zKey);
    }
  }
  assert_int_equal(rc, TL_DONE);
  tl_query_close(q);
}

/* The accelerated scan with f and the plain one (accel=off) give the same rows. */
static void plain_equals_accelerated(const char *zTrace, TlTrace *p, const TlFilter *f, int bRowid){
  TlFilter plain = *f;
  TlLines a = {0}, b = {0};
  plain.bPlain = 1;
  scan_events(p, f, bRowid, &a);
  scan_events(p, &plain, bRowid, &b);
  assert_true(a.n > 0);
  lines_equal_unordered(zTrace, &a, &b);
}

/*
** GROUP BY name by the engine (filter f, only name used: tallied by the
** reader per packet): the rowids of a grouped row's repeats asked out of
** order (the last, the first, then all in order) are the ones asked in
** order, and the rows stand for as many as the plain scan's.
*/
static void grouped_rowids_out_of_order(TlTrace *p, const TlFilter *f, size_t nPlain){
  TlFilterCols cols;
  TlGroup *g = 0;
  TlErr e;
  TlRow r;
  int bSeen = 0;
  size_t nAll = 0;
  memset(&cols, 0, sizeof(cols));
  cols.iTs = TL_EV_TS; cols.iCpu = TL_EV_CPU; cols.iKey = -1; cols.iType = TL_EV_TYPE;
  tl_err_clear(&e);
  assert_int_equal(tl_group_open(p, TL_TAB_EVENTS, TL_EV_NCOL, f, &cols, (uint64_t)1<<TL_EV_NAME,
                                 &g, &e), TL_OK);
  memset(&r, 0, sizeof(r));
  while( tl_group_next(g, &r)==TL_ROW ){
    nAll += r.nRepeat>1 ? (size_t)r.nRepeat : 1;
    if( r.nRepeat>=3 ){
      int64_t aIn[3], iLast, iFirst;
      int i;
      assert_int_equal(tl_group_rowid(g, 2, &iLast), TL_OK);
      assert_int_equal(tl_group_rowid(g, 0, &iFirst), TL_OK);
      for(i=0; i<3; i++) assert_int_equal(tl_group_rowid(g, i, &aIn[i]), TL_OK);
      assert_int_equal(iFirst, aIn[0]);
      assert_int_equal(iLast, aIn[2]);
      assert_true(aIn[0]!=aIn[1] && aIn[1]!=aIn[2] && aIn[0]!=aIn[2]);
      bSeen = 1;
    }
    memset(&r, 0, sizeof(r));
  }
  assert_true(bSeen);
  assert_true(tl_group_tallied(g));
  assert_int_equal(nAll, nPlain);
  tl_group_close(g);
}

/* xTallyValues's callback: the names, one line each. */
static int note_value(void *pArg, const TlVal *v){
  char *z = v->t==TL_TEXT ? sqlite3_mprintf("%.*s", (int)v->n, v->z) : sqlite3_mprintf("(null)");
  tl_lines_add((TlLines*)pArg, z);
  sqlite3_free(z);
  return TL_OK;
}

/*
** The names the reader says a tallied event can have (xTallyValues: the
** engine gives the first of them in an ORDER BY's order early) hold every
** name babeltrace2 printed (aWant).
*/
static void tally_values_hold(TlTrace *p, const TlLines *pWant){
  TlLines have = {0};
  size_t i, j;
  assert_non_null(p->pReader->xTallyValues);
  assert_int_equal(p->pReader->xTallyValues(p, TL_TAB_EVENTS, TL_EV_NAME, note_value, &have), TL_OK);
  assert_int_equal(p->pReader->xTallyValues(p, TL_TAB_EVENTS, TL_EV_CPU, note_value, &have), TL_DONE);
  for(i=0; i<pWant->n; i++){
    for(j=0; j<have.n && strcmp(have.az[j], pWant->az[i]); j++){}
    if( j==have.n ) fail_msg("name %s is not among the tally's values", pWant->az[i]);
  }
  tl_lines_free(&have);
}

/*
** accel=off (TlFilter.bPlain) reads event by event: no repeated row, no
** lazy rowid or value, in the shapes that are otherwise counted (count(*),
** with a time window and cpu; GROUP BY name), and
** the rows, rowids included, equal the accelerated scan's as multisets. The plain rows (time,
** CPU, name) equal babeltrace2's events, so do the counts per name; asked
** for time order, they come in it. Grouped rowids asked out of order are
** the same.
*/
static void lttng_plain_scan_equals_accelerated(void **state){
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zPath[512];
    TlTrace *p = 0;
    TlErr e;
    TlFilter f;
    TlLines want = {0}, got = {0}, names = {0}, wantNames = {0};
    int64_t tsPrev = INT64_MIN;
    size_t i;
    snprintf(zPath, sizeof(zPath), CTF_DIR "%s", azTrace[k]);
    tl_err_clear(&e);
    assert_int_equal(tl_trace_open(zPath, 0, &p, &e), TL_OK);
    bt2_events(azTrace[k], &want);   /* (times of 19 digits: in time order) */
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
    /* count(*) */
    plain_equals_accelerated(azTrace[k], p, &f, 1);
    /* count(*) ... WHERE ts BETWEEN ... with cpu: the middle third of the events */
    f.mCols = (uint64_t)1 << TL_EV_CPU;
    f.tsLo = strtoll(want.az[want.n/3], 0, 10);
    f.tsHi = strtoll(want.az[2*want.n/3], 0, 10);
    plain_equals_accelerated(azTrace[k], p, &f, 1);
    /* GROUP BY name, with the rowids of its repeats */
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX;
    f.mCols = (uint64_t)1 << TL_EV_NAME;
    grouped_rowids_out_of_order(p, &f, want.n);
    f.bPlain = 1;
    scan_events(p, &f, 0, &names);
    for(i=0; i<want.n; i++) tl_lines_add(&wantNames, strrchr(want.az[i], '|') + 1);
    for(i=0; i<names.n; i++) memmove(names.az[i], names.az[i]+6, strlen(names.az[i]+6)+1);
    lines_equal_unordered(azTrace[k], &wantNames, &names);
    tally_values_hold(p, &wantNames);
    /* time, CPU and name of every event */
    f.mCols = ((uint64_t)1 << TL_EV_TS) | ((uint64_t)1 << TL_EV_CPU) | ((uint64_t)1 << TL_EV_NAME);
    f.bOrdered = 1;
    scan_events(p, &f, 0, &got);
    for(i=0; i<got.n; i++){
      int64_t ts = strtoll(got.az[i]+2, 0, 10);
      assert_true(ts >= tsPrev);
      tsPrev = ts;
      memmove(got.az[i], got.az[i]+2, strlen(got.az[i]+2)+1);
    }
    lines_equal_unordered(azTrace[k], &want, &got);
    tl_trace_release(p);
  }
}

/* Does SQLite's plan for zSql sort for GROUP BY (not grouped by the reader)? */
static int plan_sorts_groups(sqlite3 *db, const char *zSql){
  char *zPlan = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN %s", zSql);
  int bSorts = strstr(zPlan, "B-TREE FOR GROUP BY")!=0;
  free(zPlan);
  return bSorts;
}

/*
** GROUP BY name gives each name's events as repeated rows, and the rowids
** of the repeats are the events' own (packet << 28 | index in the packet),
** the ones every plan gives: per name the same count and sum of rowids as
** the plain scan's (accel=off, SQLite grouping), every rowid once, and each
** the rowid of an event of that name when looked up alone.
*/
static void lttng_grouped_rowids_are_the_events(void **state){
  sqlite3 *db = tl_test_db();
  const char *zPath = CTF_DIR "ust-multi";
  char *zSql, *zGrouped, *zPlain, *zList, *zLine;
  (void)state;
  zSql = sqlite3_mprintf("SELECT name, count(*), sum(rowid) FROM events(%Q) GROUP BY name", zPath);
  assert_false(plan_sorts_groups(db, zSql));
  zGrouped = tl_test_sql_rows(db, "%s", zSql);
  sqlite3_free(zSql);
  zSql = sqlite3_mprintf("SELECT name, count(*), sum(rowid) FROM events(%Q, 'accel=off') "
                         "GROUP BY name", zPath);
  assert_true(plan_sorts_groups(db, zSql));
  zPlain = tl_test_sql_rows(db, "%s", zSql);
  sqlite3_free(zSql);
  assert_string_equal(zGrouped, zPlain);
  assert_non_null(strstr(zGrouped, "tl:ints|600|"));
  free(zGrouped);
  free(zPlain);
  /* every rowid of the grouped plan, looked up */
  zSql = sqlite3_mprintf("SELECT name, group_concat(rowid, ' ') FROM events(%Q) GROUP BY name", zPath);
  assert_false(plan_sorts_groups(db, zSql));
  zList = tl_test_sql_rows(db, "%s", zSql);
  sqlite3_free(zSql);
  for(zLine=strtok(zList, "\n"); zLine; zLine=strtok(0, "\n")){
    char *zBar = strchr(zLine, '|'), *z;
    TlLines seen = {0};
    size_t i;
    assert_non_null(zBar);
    *zBar = 0;
    for(z=zBar+1; *z; ){
      char *zEnd;
      long long iRowid = strtoll(z, &zEnd, 10);
      char *zName;
      assert_true(zEnd>z);
      zName = tl_test_sql_rows(db, "SELECT name FROM events(%Q) WHERE rowid=%lld", zPath, iRowid);
      assert_string_equal(zName, zLine);
      free(zName);
      tl_lines_add(&seen, z);
      seen.az[seen.n-1][zEnd - z] = 0;
      z = *zEnd ? zEnd+1 : zEnd;
    }
    assert_int_equal(seen.n, 600);           /* ust-multi.counts.txt */
    tl_lines_sort(&seen);
    for(i=1; i<seen.n; i++) assert_string_not_equal(seen.az[i-1], seen.az[i]);
    tl_lines_free(&seen);
  }
  free(zList);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(ctf_lttng,
  cmocka_unit_test(lttng_traces_equal_babeltrace2),
  cmocka_unit_test(lttng_skip_plans_equal_full_decode),
  cmocka_unit_test(lttng_count_from_packets),
  cmocka_unit_test(lttng_group_by_name_equals_babeltrace2),
  cmocka_unit_test(lttng_per_pid_session),
  cmocka_unit_test(lttng_window_and_cpu_read_few_packets),
  cmocka_unit_test(lttng_truncation_sweep),
  cmocka_unit_test(lttng_plain_scan_equals_accelerated),
  cmocka_unit_test(lttng_grouped_rowids_are_the_events),
);
