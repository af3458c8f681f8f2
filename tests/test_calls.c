/*
** test_calls.c: the calls table (src/model/calls.c's TlCallSet, fed by
** readers/ctf/ctf_calls.c and the XRay reader).
**
** The expected calls are computed here from babeltrace2's text of each
** trace (testdata/ctf/cyg-profile/trace.bt2.txt, testdata/ctf/syscalls/
** ctf.bt2.txt; record.sh beside them): per thread, an entry opens a call,
** an exit ends the newest open call of its function (and the calls above
** it), dur = the exit's ts - the entry's ts, depth = the calls open around
** it; entries never exited stay open (no dur).
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"
#include "err.h"
#include "model/callstats.h"
#include "model/stackstats.h"

#define CYG_DIR TL_TESTDATA_DIR "/ctf/cyg-profile/"
#define SYS_DIR TL_TESTDATA_DIR "/ctf/syscalls/"
#define REF_MAX_THREADS 64
#define REF_MAX_DEPTH 256

typedef struct RefFrame RefFrame;
struct RefFrame { char zName[64]; unsigned long long ts; };

typedef struct RefThread RefThread;
struct RefThread {
  long long tid;
  RefFrame a[REF_MAX_DEPTH];
  int n;
};

typedef struct Ref Ref;
struct Ref {
  RefThread aTh[REF_MAX_THREADS];
  int nTh;
  TlLines rows;                   /* "tid|name|ts|dur|depth", dur empty if open */
  int nDone, maxDepth;
};

static void ref_row(Ref *r, const RefThread *t, int k, int bDone, unsigned long long tsEnd){
  char z[256];
  if( bDone ){
    snprintf(z, sizeof(z), "%lld|%s|%llu|%llu|%d", t->tid, t->a[k].zName, t->a[k].ts,
             tsEnd - t->a[k].ts, k);
    r->nDone++;
  }else{
    snprintf(z, sizeof(z), "%lld|%s|%llu||%d", t->tid, t->a[k].zName, t->a[k].ts, k);
  }
  if( k>r->maxDepth ) r->maxDepth = k;
  tl_lines_add(&r->rows, z);
}

/* The integer after "zKey = " in line z (hex with 0x), 1 with *pv, or 0. */
static int ref_field(const char *z, const char *zKey, unsigned long long *pv){
  char zPat[64];
  const char *p;
  snprintf(zPat, sizeof(zPat), " %s = ", zKey);
  p = strstr(z, zPat);
  if( p==0 ) return 0;
  *pv = strtoull(p + strlen(zPat), 0, 0);
  return 1;
}

/*
** The calls of babeltrace2's text zFile: an event named zEnter.. or
** zExit.. (prefixes) opens or ends a call; the call's name is the event
** name's rest, or (bAddr) the addr field as 0x%llx; the thread is the
** zTid field.
*/
static void ref_calls(Ref *r, const char *zFile, const char *zEnter, const char *zExit,
                      int bAddr, const char *zTid){
  char *zText = tl_test_read_file(zFile, 0), *z, *zNext;
  int i, k;
  assert_non_null(zText);
  memset(r, 0, sizeof(*r));
  for(z=zText; *z; z=zNext){
    unsigned long long s, ns, tid, addr;
    char zEv[128], zName[64];
    int bEnter, bExit;
    RefThread *t = 0;
    zNext = strchr(z, '\n');
    if( zNext ) *zNext++ = 0; else zNext = z + strlen(z);
    if( sscanf(z, "[%llu.%llu] %127s", &s, &ns, zEv)!=3 ) continue;
    zEv[strlen(zEv)-1] = 0;                  /* its ':' */
    bEnter = strncmp(zEv, zEnter, strlen(zEnter))==0;
    bExit = strncmp(zEv, zExit, strlen(zExit))==0;
    if( !bEnter && !bExit ) continue;
    assert_true(ref_field(z, zTid, &tid));
    if( bAddr ){
      assert_true(ref_field(z, "addr", &addr));
      snprintf(zName, sizeof(zName), "0x%llx", addr);
    }else{
      snprintf(zName, sizeof(zName), "%s", zEv + strlen(bEnter ? zEnter : zExit));
    }
    for(i=0; i<r->nTh && r->aTh[i].tid!=(long long)tid; i++){}
    if( i==r->nTh ){
      assert_true(r->nTh<REF_MAX_THREADS);
      r->aTh[r->nTh++].tid = (long long)tid;
    }
    t = &r->aTh[i];
    if( bEnter ){
      assert_true(t->n<REF_MAX_DEPTH);
      snprintf(t->a[t->n].zName, sizeof(t->a[t->n].zName), "%s", zName);
      t->a[t->n++].ts = s*1000000000ull + ns;
    }else{
      for(k=t->n-1; k>=0 && strcmp(t->a[k].zName, zName)!=0; k--){}
      if( k<0 ) continue;                    /* an exit of no open call */
      while( t->n>k ){
        ref_row(r, t, t->n-1, 1, s*1000000000ull + ns);
        t->n--;
      }
    }
  }
  for(i=0; i<r->nTh; i++){
    for(k=0; k<r->aTh[i].n; k++) ref_row(r, &r->aTh[i], k, 0, 0);
  }
  tl_lines_sort(&r->rows);
  free(zText);
}

/* calls(zTrace, zOpts) as sorted "tid|name|ts|dur|depth" lines, equal to r's. */
static void calls_equal_ref(sqlite3 *db, const char *zTrace, const char *zOpts, Ref *r){
  char *zOurs = tl_test_sql_rows(db,
      "SELECT tid, name, ts, dur, depth FROM calls(%Q, %Q) ORDER BY 1, 2, 3, 4, 5",
      zTrace, zOpts);
  TlLines ours = {0};
  char *z, *zNext;
  size_t i;
  for(z=zOurs; *z; z=zNext){
    zNext = strchr(z, '\n');
    if( zNext ) *zNext++ = 0; else zNext = z + strlen(z);
    tl_lines_add(&ours, z);
  }
  tl_lines_sort(&ours);
  assert_int_equal(ours.n, r->rows.n);
  for(i=0; i<ours.n; i++) assert_string_equal(ours.az[i], r->rows.az[i]);
  tl_lines_free(&ours);
  free(zOurs);
}

/* A ts ordering of the rows must not matter: each row is the same call. */
static void cyg_profile_calls_equal_babeltrace(void **state){
  sqlite3 *db = tl_test_db();
  const char *zTrace = CYG_DIR "trace";
  Ref r;
  (void)state;
  ref_calls(&r, CYG_DIR "trace.bt2.txt", "lttng_ust_cyg_profile:func_entry",
            "lttng_ust_cyg_profile:func_exit", 1, "vtid");
  /* the program: two threads, main exits from inside itself (one call open) */
  assert_int_equal(r.nTh, 2);
  assert_int_equal((int)r.rows.n - r.nDone, 1);
  assert_true(r.maxDepth>=5);                 /* main, middle, fib x3, leaf */
  calls_equal_ref(db, zTrace, "", &r);
  calls_equal_ref(db, zTrace, "accel=off", &r);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q)", zTrace), (int64_t)r.rows.n);
  assert_int_equal(tl_test_sql_int(db, "SELECT max(depth) FROM calls(%Q)", zTrace), r.maxDepth);
  /* the open call: main (0x4012e6 in cyg.nm.txt), the outermost */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q) WHERE dur IS NULL "
                                   "AND name = '0x4012e6' AND depth = 0 AND parent IS NULL", zTrace), 1);
  /* ids are the entries' events; parents are calls of the same thread one level out */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM calls(%Q) c JOIN events(%Q) e ON e.rowid = c.id "
      "WHERE e.name = 'lttng_ust_cyg_profile:func_entry' AND e.ts = c.ts AND e.tid = c.tid",
      zTrace, zTrace), (int64_t)r.rows.n);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM calls(%Q) c JOIN calls(%Q) p ON p.id = c.parent "
      "WHERE p.tid = c.tid AND p.depth = c.depth - 1 AND p.ts <= c.ts "
      "AND (p.dur IS NULL OR c.ts + c.dur <= p.ts + p.dur)", zTrace, zTrace),
      tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q) WHERE depth > 0", zTrace));
  /* stack: the names from the outermost call, the call's own last */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q) "
      "WHERE stack = name OR stack LIKE '%%;' || name", zTrace), (int64_t)r.rows.n);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q) "
      "WHERE length(stack) - length(replace(stack, ';', '')) != depth", zTrace), 0);
  /* a ts window is a filter on the rows, not on the records matched */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT * FROM calls(%Q) WHERE ts > "
      "(SELECT min(ts) + 20000 FROM calls(%Q)) EXCEPT SELECT * FROM calls(%Q) WHERE +ts > "
      "(SELECT min(ts) + 20000 FROM calls(%Q)))", zTrace, zTrace, zTrace, zTrace), 0);
  tl_lines_free(&r.rows);
  tl_test_db_close(db);
}

static void syscall_calls_equal_babeltrace(void **state){
  sqlite3 *db = tl_test_db();
  const char *zTrace = SYS_DIR "ctf";
  Ref r;
  (void)state;
  ref_calls(&r, SYS_DIR "ctf.bt2.txt", "syscalls:sys_enter_", "syscalls:sys_exit_", 0, "perf_tid");
  assert_true(r.nDone>200);
  calls_equal_ref(db, zTrace, "", &r);
  calls_equal_ref(db, zTrace, "accel=off", &r);
  assert_int_equal(tl_test_sql_int(db, "SELECT max(depth) FROM calls(%Q)", zTrace), r.maxDepth);
  tl_lines_free(&r.rows);
  tl_test_db_close(db);
}

/* On an XRay log, calls gives the rows of xray_calls. */
static void xray_calls_are_calls(void **state){
  static const char *const azLog[] = { "fdr.xray", "basic-default.xray" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zPath[512];
    snprintf(zPath, sizeof(zPath), "%s/xray/%s", TL_TESTDATA_DIR, azLog[k]);
    assert_true(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q)", zPath)>0);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q)", zPath),
                     tl_test_sql_int(db, "SELECT count(*) FROM xray_calls(%Q)", zPath));
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT * FROM calls(%Q) "
                                     "EXCEPT SELECT * FROM xray_calls(%Q))", zPath, zPath), 0);
  }
  tl_test_db_close(db);
}

/* LTTng-UST's cyg-profile and cyg-profile-fast traces of the peer set: a
** call per func_entry event (the fast variant's exits name no function). */
static void peer_cyg_profile_calls(void **state){
  static const char *const azTr[] = { "glxgears-cyg-profile", "glxgears-cyg-profile-fast" };
  sqlite3 *db;
  size_t k;
  char zDir[512];
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf/tracecompass-test-traces/cyg-profile/%s", TL_PEER_DIR, azTr[0]);
  {
    void *pMeta = tl_test_read_file(strcat(zDir, "/metadata"), 0);
    if( pMeta==0 ){
      print_message("peer traces not found (%s): skipped\n", TL_PEER_DIR);
      skip();
    }
    free(pMeta);
  }
  db = tl_test_db();
  for(k=0; k<2; k++){
    int64_t nEntry, nExit;
    snprintf(zDir, sizeof(zDir), "%s/ctf/tracecompass-test-traces/cyg-profile/%s", TL_PEER_DIR, azTr[k]);
    nEntry = tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE name LIKE '%%:func_entry'", zDir);
    nExit = tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE name LIKE '%%:func_exit'", zDir);
    assert_true(nEntry>1000);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q)", zDir), nEntry);
    assert_true(tl_test_sql_int(db, "SELECT count(dur) FROM calls(%Q)", zDir)<=nExit);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q) WHERE dur < 0", zDir), 0);
  }
  tl_test_db_close(db);
}

/*
** A position-independent program with the statedump (testdata/ctf/
** cyg-named/record.sh): each function is named as its debug info names
** it; names.txt counts the entries per name, each addr less the program's
** baddr named by nm. Without its file (no symfs=): hex addresses.
*/
static void cyg_profile_calls_named_by_debug_info(void **state){
  const char *zDir = TL_TESTDATA_DIR "/ctf/cyg-named/";
  sqlite3 *db = tl_test_db();
  char zPath[512], *zRef, *zLine, *zNext, *zOurs;
  TlLines want = {0}, ours = {0};
  size_t i;
  int k;
  (void)state;
  snprintf(zPath, sizeof(zPath), "%snames.txt", zDir);
  zRef = tl_test_read_file(zPath, 0);
  assert_non_null(zRef);
  for(zLine=zRef; *zLine; zLine=zNext){
    zNext = zLine + strcspn(zLine, "\n");
    if( *zNext ) *zNext++ = 0;
    tl_lines_add(&want, zLine);
  }
  free(zRef);
  assert_int_equal(want.n, 5);                  /* main, worker, middle, fib, leaf */
  tl_lines_sort(&want);
  for(k=0; k<2; k++){
    zOurs = tl_test_sql_rows(db, "SELECT count(*) || ' ' || name FROM calls('%qtrace', 'symfs=\"%qsymfs\"%s')"
                             " GROUP BY name", zDir, zDir, k ? " accel=off" : "");
    for(zLine=zOurs; *zLine; zLine=zNext){
      zNext = zLine + strcspn(zLine, "\n");
      if( *zNext ) *zNext++ = 0;
      tl_lines_add(&ours, zLine);
    }
    free(zOurs);
    tl_lines_sort(&ours);
    assert_int_equal(ours.n, want.n);
    for(i=0; i<want.n; i++) assert_string_equal(ours.az[i], want.az[i]);
    tl_lines_free(&ours);
  }
  tl_lines_free(&want);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM calls('%qtrace') WHERE name NOT LIKE '0x%%'",
                                   zDir), 0);
  tl_test_db_close(db);
}


/*
** call_stats against its definition, computed here in SQL from the rows
** of calls: per function the finished calls, their total, least and
** greatest duration, and the durations at llvm-xray account's indexes of
** the sorted durations (n / 2, floor(n * 0.9), floor(n * 0.99)); rows by
** function id. (account_sql_equals_llvm_xray_account and the sql library
** compare the same rows with llvm-xray account's own output.)
*/
static const char zStatsRef[] =
  "WITH c AS (SELECT func_id, name, dur FROM calls(%Q, %Q) WHERE dur IS NOT NULL),"
  " r AS (SELECT func_id, dur, row_number() OVER (PARTITION BY func_id ORDER BY dur) - 1 AS i"
  "       FROM c),"
  " g AS (SELECT func_id, max(name) AS name, count(*) AS n, sum(dur) AS s, min(dur) AS lo,"
  "       max(dur) AS hi FROM c GROUP BY func_id)"
  " SELECT g.func_id, g.name, g.n, g.s, g.lo,"
  "  (SELECT dur FROM r WHERE r.func_id = g.func_id AND r.i = g.n / 2),"
  "  (SELECT dur FROM r WHERE r.func_id = g.func_id AND r.i = CAST(g.n * 0.9 AS INTEGER)),"
  "  (SELECT dur FROM r WHERE r.func_id = g.func_id AND r.i = CAST(g.n * 0.99 AS INTEGER)),"
  "  g.hi FROM g ORDER BY g.func_id";

/* The rows of zSelect (a derived table of trace zTrace with options
** zOpts), with and without accel=off, equal zRef. */
static void derived_equals(sqlite3 *db, const char *zSelect, const char *zTrace,
                           const char *zOpts, const char *zRef){
  int bOff;
  for(bOff=0; bOff<2; bOff++){
    char zAll[600];
    char *zOurs;
    snprintf(zAll, sizeof(zAll), "%s%s", zOpts, bOff ? " accel=off" : "");
    zOurs = tl_test_sql_rows(db, zSelect, zTrace, zAll);
    assert_non_null(zOurs);
    if( strcmp(zOurs, zRef)!=0 ) print_message("%s %s:\n%s\nwant:\n%s\n", zTrace, zAll, zOurs, zRef);
    assert_string_equal(zOurs, zRef);
    free(zOurs);
  }
}

static void call_stats_equal_their_definition(void **state){
  static const struct { const char *zTrace, *zOpts; } a[] = {
    { TL_TESTDATA_DIR "/xray/fdr.xray", "" },
    { TL_TESTDATA_DIR "/xray/basic.xray", "binary=" TL_TESTDATA_DIR "/xray/app.map.elf" },
    { TL_TESTDATA_DIR "/xray/fdr-O2.xray", "binary=" TL_TESTDATA_DIR "/xray/app-O2.map.elf" },
    { TL_TESTDATA_DIR "/xray/names-fdr.xray", "binary=" TL_TESTDATA_DIR "/xray/names.map.elf" },
    { TL_TESTDATA_DIR "/xray/basic-default.xray", "" },
    { TL_TESTDATA_DIR "/xray/halfway.xray", "" },
    { CYG_DIR "trace", "" },
    { SYS_DIR "ctf", "" },
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    char *zRef = tl_test_sql_rows(db, zStatsRef, a[k].zTrace, a[k].zOpts);
    assert_non_null(zRef);
    assert_true(strchr(zRef, '\n')!=0);          /* functions, not one row */
    /* (a function has one name, or none) */
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT func_id FROM calls(%Q, %Q) "
                                     "GROUP BY func_id HAVING count(DISTINCT name) > 1)",
                                     a[k].zTrace, a[k].zOpts), 0);
    derived_equals(db, "SELECT * FROM call_stats(%Q, %Q)", a[k].zTrace, a[k].zOpts, zRef);
    free(zRef);
  }
  /* a trace without calls: no rows */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM call_stats(%Q)",
                                   TL_TESTDATA_DIR "/perf/cpu-clock-g.data"), 0);
  tl_test_db_close(db);
}

/* The model's sums on durations whose order statistics are known. */
static void call_stats_model_takes_llvm_xray_indexes(void **state){
  TlCallStats *p = tl_callstats_new((uint64_t)1<<20);
  TlCallStat s;
  int64_t i;
  (void)state;
  assert_non_null(p);
  /* function 7: 1..100 ns, each once, in a scrambled order; function 3:
  ** 10 calls, 5 ns nine times and 50 ns once; between them function -2,
  ** once, with its name given only by its second call */
  for(i=0; i<100; i++){
    assert_int_equal(tl_callstats_add(p, 7, "seven", 5, 1 + (i*37)%100), TL_OK);
    if( i<10 ) assert_int_equal(tl_callstats_add(p, 3, 0, 0, i==4 ? 50 : 5), TL_OK);
  }
  assert_int_equal(tl_callstats_add(p, -2, 0, 0, -4), TL_OK);
  assert_int_equal(tl_callstats_add(p, -2, "minus", 5, -4), TL_OK);
  /* ascending function ids */
  assert_int_equal(tl_callstats_next(p, &s), 1);
  assert_int_equal(s.funcId, -2);
  assert_string_equal(s.zName, "minus");
  assert_int_equal(s.nCalls, 2);
  assert_int_equal(s.total, -8);
  assert_int_equal(s.med, -4);
  assert_int_equal(tl_callstats_next(p, &s), 1);
  assert_int_equal(s.funcId, 3);
  assert_null(s.zName);
  assert_int_equal(s.nCalls, 10);
  assert_int_equal(s.total, 95);
  assert_int_equal(s.min, 5);
  assert_int_equal(s.med, 5);                   /* a[5] */
  assert_int_equal(s.p90, 50);                  /* a[9] */
  assert_int_equal(s.p99, 50);                  /* a[floor(9.9)] */
  assert_int_equal(s.max, 50);
  assert_int_equal(tl_callstats_next(p, &s), 1);
  assert_int_equal(s.funcId, 7);
  assert_string_equal(s.zName, "seven");
  assert_int_equal(s.nCalls, 100);
  assert_int_equal(s.total, 5050);
  assert_int_equal(s.min, 1);
  assert_int_equal(s.med, 51);                  /* a[50] */
  assert_int_equal(s.p90, 91);                  /* a[90] */
  assert_int_equal(s.p99, 100);                 /* a[99] */
  assert_int_equal(s.max, 100);
  assert_int_equal(tl_callstats_next(p, &s), 0);
  tl_callstats_free(p);

  /* distinct durations past the bytes allowed: TL_ELIMIT, the sum kept */
  p = tl_callstats_new(64*1024);
  assert_non_null(p);
  for(i=0; i<100000; i++){
    int rc = tl_callstats_add(p, 1, "f", 1, i);
    if( rc ){
      assert_int_equal(rc, TL_ELIMIT);
      break;
    }
  }
  assert_true(i>100 && i<100000);
  assert_true(tl_callstats_bytes(p) <= 64*1024);
  assert_int_equal(tl_callstats_next(p, &s), 1);
  assert_int_equal(s.nCalls, (uint64_t)i);
  assert_int_equal(s.max, i-1);
  tl_callstats_free(p);
}

/*
** call_stacks against its definition, computed here in SQL from the rows
** of calls: per thread and stack text, the calls that finished and those
** still open, the total, least and greatest duration; rows by thread then
** stack text, bytewise. (The sql library compares xray_stacks.sql and
** xray_folded.sql, which read it, with llvm-xray stack's own output.)
*/
static void call_stacks_equal_their_definition(void **state){
  static const struct { const char *zTrace, *zOpts; } a[] = {
    { TL_TESTDATA_DIR "/xray/fdr.xray", "" },
    { TL_TESTDATA_DIR "/xray/names-fdr.xray", "binary=" TL_TESTDATA_DIR "/xray/names.map.elf" },
    { TL_TESTDATA_DIR "/xray/fdr-O2.xray", "binary=" TL_TESTDATA_DIR "/xray/app-O2.map.elf" },
    { TL_TESTDATA_DIR "/xray/basic-default.xray", "" },
    { CYG_DIR "trace", "" },
    { SYS_DIR "ctf", "" },
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    char *zRef = tl_test_sql_rows(db,
        "SELECT tid, min(func_id), max(name), stack, min(depth), count(dur), count(*) - count(dur), "
        "sum(dur), min(dur), max(dur) FROM calls(%Q, %Q) GROUP BY tid, stack "
        "ORDER BY tid, CAST(stack AS BLOB)", a[k].zTrace, a[k].zOpts);
    assert_non_null(zRef);
    assert_true(strchr(zRef, '\n')!=0);
    /* (one function and one depth at a thread's stack, in these traces) */
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT 1 FROM calls(%Q, %Q) "
                                     "GROUP BY tid, stack HAVING count(DISTINCT func_id) > 1 "
                                     "OR count(DISTINCT depth) > 1)", a[k].zTrace, a[k].zOpts), 0);
    derived_equals(db, "SELECT tid, func_id, name, stack, depth, calls, open_calls, "
                   "total_dur, min_dur, max_dur FROM call_stacks(%Q, %Q)",
                   a[k].zTrace, a[k].zOpts, zRef);
    free(zRef);
  }
  /* calls still open at the end are counted apart (names-fdr has two) */
  assert_int_equal(tl_test_sql_int(db, "SELECT sum(open_calls) FROM call_stacks(%Q)",
                                   TL_TESTDATA_DIR "/xray/names-fdr.xray"),
                   tl_test_sql_int(db, "SELECT count(*) FROM calls(%Q) WHERE dur IS NULL",
                                   TL_TESTDATA_DIR "/xray/names-fdr.xray"));
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM call_stacks(%Q)",
                                   TL_TESTDATA_DIR "/perf/cpu-clock-g.data"), 0);
  tl_test_db_close(db);
}

/* The model's sums per thread and stack: keys, order, open calls, bound. */
static void call_stacks_model_keys_and_order(void **state){
  TlStackStats *p = tl_stackstats_new((uint64_t)1<<20);
  TlStackStat c, s;
  int i;
  (void)state;
  assert_non_null(p);
  memset(&c, 0, sizeof(c));
  /* thread 9 "a;b" three times (one still open), thread 2 "a;b" once,
  ** thread 2 "a" once, no thread "a" once, thread 2 no stack once; a name
  ** given with its length only (no NUL after it) */
  c.bTid = 1; c.tid = 9; c.zStack = "a;bXX"; c.nStack = 3; c.zName = "bYY"; c.nName = 1;
  c.bFunc = 1; c.funcId = 5; c.bDepth = 1; c.depth = 1;
  assert_int_equal(tl_stackstats_add(p, &c, 1, 30), TL_OK);
  assert_int_equal(tl_stackstats_add(p, &c, 1, 10), TL_OK);
  assert_int_equal(tl_stackstats_add(p, &c, 0, 0), TL_OK);
  c.tid = 2;
  assert_int_equal(tl_stackstats_add(p, &c, 1, 7), TL_OK);
  c.nStack = 1; c.depth = 0; c.funcId = 4; c.zName = 0;
  assert_int_equal(tl_stackstats_add(p, &c, 0, 0), TL_OK);
  c.bTid = 0;
  assert_int_equal(tl_stackstats_add(p, &c, 1, 1), TL_OK);
  c.bTid = 1; c.zStack = 0; c.nStack = 0;
  assert_int_equal(tl_stackstats_add(p, &c, 1, 2), TL_OK);
  /* no thread first; then by thread; no stack first, then bytewise */
  assert_int_equal(tl_stackstats_next(p, &s), 1);
  assert_false(s.bTid);
  assert_int_equal(s.nStack, 1);
  assert_int_equal(tl_stackstats_next(p, &s), 1);
  assert_int_equal(s.tid, 2);
  assert_null(s.zStack);
  assert_int_equal(tl_stackstats_next(p, &s), 1);
  assert_int_equal(s.tid, 2);
  assert_string_equal(s.zStack, "a");
  assert_int_equal(s.nDone, 0);
  assert_int_equal(s.nCalls, 1);
  assert_int_equal(tl_stackstats_next(p, &s), 1);
  assert_int_equal(s.tid, 2);
  assert_string_equal(s.zStack, "a;b");
  assert_int_equal(s.total, 7);
  assert_int_equal(tl_stackstats_next(p, &s), 1);
  assert_int_equal(s.tid, 9);
  assert_string_equal(s.zStack, "a;b");
  assert_string_equal(s.zName, "b");
  assert_int_equal(s.funcId, 5);
  assert_int_equal(s.depth, 1);
  assert_int_equal(s.nCalls, 3);
  assert_int_equal(s.nDone, 2);
  assert_int_equal(s.total, 40);
  assert_int_equal(s.min, 10);
  assert_int_equal(s.max, 30);
  assert_int_equal(tl_stackstats_next(p, &s), 0);
  tl_stackstats_free(p);

  /* distinct stacks past the bytes allowed: TL_ELIMIT */
  p = tl_stackstats_new(64*1024);
  assert_non_null(p);
  memset(&c, 0, sizeof(c));
  for(i=0; i<100000; i++){
    char z[32];
    int rc;
    c.nStack = (size_t)snprintf(z, sizeof(z), "main;f%d", i);
    c.zStack = z;
    rc = tl_stackstats_add(p, &c, 1, i);
    if( rc ){
      assert_int_equal(rc, TL_ELIMIT);
      break;
    }
  }
  assert_true(i>100 && i<100000);
  assert_true(tl_stackstats_bytes(p) <= 64*1024);
  tl_stackstats_free(p);
}

TL_DEFINE_GROUP(calls,
  cmocka_unit_test(cyg_profile_calls_equal_babeltrace),
  cmocka_unit_test(syscall_calls_equal_babeltrace),
  cmocka_unit_test(xray_calls_are_calls),
  cmocka_unit_test(peer_cyg_profile_calls),
  cmocka_unit_test(cyg_profile_calls_named_by_debug_info),
  cmocka_unit_test(call_stats_equal_their_definition),
  cmocka_unit_test(call_stats_model_takes_llvm_xray_indexes),
  cmocka_unit_test(call_stacks_equal_their_definition),
  cmocka_unit_test(call_stacks_model_keys_and_order),
);
