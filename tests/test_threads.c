/*
** test_threads.c: the threads model (src/model/threads.c) alone, from
** format-neutral inputs, and the names it gives perf.data threads against
** the names perf itself prints.
**
** testdata/perf/threads-inherit.data (threads-inherit.sh) was recorded
** from a program whose threads never name themselves: perf names each
** after the thread that made it.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "model_threads.h"
#include "perf/perf_scan.h"
#include "trace.h"

#define PERF_DIR TL_TESTDATA_DIR "/perf/"
#define NO_TS TL_THREADS_NO_TS

/* The thread with this id (fails if none). */
static TlThread thread_of(const TlThreads *m, int64_t id){
  TlThread t;
  size_t k;
  for(k=0; k<tl_threads_count(m); k++){
    tl_threads_get(m, k, &t);
    if( t.id==id ) return t;
  }
  fail_msg("no thread %lld", (long long)id);
  memset(&t, 0, sizeof(t));
  return t;
}

static void assert_name(const char *zGot, const char *zWant){
  if( zWant==0 ) assert_null(zGot);
  else{ assert_non_null(zGot); assert_string_equal(zGot, zWant); }
}

/* Thread id's last and first names. */
static void assert_names(const TlThreads *m, int64_t id, const char *zLast, const char *zFirst){
  TlThread t = thread_of(m, id);
  assert_name(t.zName, zLast);
  assert_name(t.zNameFirst, zFirst);
}

/* Thread id of tid 500: its reuse index, records, samples, time range (no
** records: none) and last name. */
static void assert_thread(const TlThreads *m, int64_t id, uint32_t iReuse, uint64_t nEvents,
                          uint64_t nSamples, int64_t tsFirst, int64_t tsLast, const char *zName){
  TlThread t = thread_of(m, id);
  assert_int_equal(t.tid, 500);
  assert_int_equal(t.iReuse, iReuse);
  assert_int_equal(t.nEvents, nEvents);
  assert_int_equal(t.nSamples, nSamples);
  assert_int_equal(t.bTs, nEvents>0);
  if( t.bTs ){
    assert_int_equal(t.tsFirst, tsFirst);
    assert_int_equal(t.tsLast, tsLast);
  }
  assert_name(t.zName, zName);
}

static int comm(TlThreads *m, int64_t ts, int64_t pid, int64_t tid, const char *z, int bExec){
  return tl_threads_comm(m, ts, pid, tid, z, strlen(z), bExec);
}

/*
** Names: a forked thread has its parent's name at the fork until its own;
** a parent's later name is not its children's; a name given at the fork's
** very time is the thread's first; a parent with no name passes on none.
*/
static void model_threads_names_follow_forks(void **state){
  TlThreads *m = tl_threads_new();
  TlThread t;
  (void)state;
  assert_non_null(m);
  assert_int_equal(comm(m, NO_TS, 100, 100, "app", 0), TL_OK);
  assert_int_equal(tl_threads_record(m, 10, 100, 100, 1), TL_OK);
  /* 101: a thread of app; 102: made by 101 after it ran ls */
  assert_int_equal(tl_threads_fork(m, 20, 100, 100, 100, 101), TL_OK);
  assert_int_equal(tl_threads_record(m, 30, 100, 101, 1), TL_OK);
  assert_int_equal(comm(m, 40, 100, 100, "app2", 0), TL_OK);
  assert_int_equal(comm(m, 50, 101, 101, "ls", 1), TL_OK);
  assert_int_equal(tl_threads_fork(m, 60, 101, 101, 101, 102), TL_OK);
  assert_int_equal(tl_threads_record(m, 70, 101, 102, 0), TL_OK);
  /* 200: named at its fork's time; 301: its parent has no name */
  assert_int_equal(tl_threads_fork(m, 80, 100, 100, 200, 200), TL_OK);
  assert_int_equal(comm(m, 80, 200, 200, "kworker", 0), TL_OK);
  assert_int_equal(tl_threads_fork(m, 90, 300, 300, 300, 301), TL_OK);
  assert_int_equal(tl_threads_record(m, 95, 300, 301, 1), TL_OK);
  /* 400: named before a fork of its tid, keeps its name */
  assert_int_equal(comm(m, 5, 400, 400, "own", 0), TL_OK);
  assert_int_equal(tl_threads_fork(m, 6, 100, 100, 400, 400), TL_OK);

  assert_int_equal(tl_threads_count(m), 6);
  assert_false(tl_threads_reused(m));
  assert_names(m, 100, "app2", "app");
  assert_names(m, 101, "ls", "app");
  t = thread_of(m, 101);
  assert_int_equal(t.pid, 100);
  assert_int_equal(t.nEvents, 1);         /* records only: a comm is not one */
  assert_int_equal(t.nSamples, 1);
  assert_true(t.bTs);
  assert_int_equal(t.tsFirst, 30);
  assert_int_equal(t.tsLast, 30);
  assert_names(m, 102, "ls", "ls");
  assert_names(m, 200, "kworker", "kworker");
  assert_names(m, 301, 0, 0);
  assert_names(m, 400, "own", "own");

  /* the name in force at a time */
  assert_name(tl_threads_name_at(m, 100, 39), "app");
  assert_name(tl_threads_name_at(m, 100, 40), "app2");
  assert_name(tl_threads_name_at(m, 101, 19), 0);     /* before its fork */
  assert_name(tl_threads_name_at(m, 101, 20), "app");
  assert_name(tl_threads_name_at(m, 101, 45), "app");  /* not app2 */
  assert_name(tl_threads_name_at(m, 101, 50), "ls");
  assert_name(tl_threads_name_at(m, 101, NO_TS), "app");
  assert_name(tl_threads_name_at(m, 102, 70), "ls");
  assert_name(tl_threads_name_at(m, 999, 70), 0);
  tl_threads_free(m);
}

/*
** A tid reused: a fork after the exit of the tid's thread, whose records
** all came before, starts a second thread (id + 2^32) that has the new
** parent's name; records belong to the thread that started last at or
** before their time, records without a time to the first.
*/
static void model_threads_reused_tid(void **state){
  TlThreads *m = tl_threads_new();
  const int64_t id2 = 500 + ((int64_t)1<<32), id3 = 500 + ((int64_t)2<<32);
  (void)state;
  assert_non_null(m);
  assert_int_equal(comm(m, 0, 1, 1, "sh", 0), TL_OK);
  assert_int_equal(comm(m, 0, 2, 2, "make", 0), TL_OK);
  assert_int_equal(tl_threads_fork(m, 10, 1, 1, 500, 500), TL_OK);
  assert_int_equal(tl_threads_record(m, 15, 500, 500, 1), TL_OK);
  assert_int_equal(tl_threads_exit(m, 20, 500, 500), TL_OK);
  assert_int_equal(tl_threads_record(m, 20, 500, 500, 0), TL_OK);
  /* a fork at the time of its last record is no reuse yet */
  assert_int_equal(tl_threads_fork(m, 20, 2, 2, 500, 500), TL_OK);
  assert_false(tl_threads_reused(m));
  assert_int_equal(tl_threads_fork(m, 30, 2, 2, 500, 500), TL_OK);
  assert_true(tl_threads_reused(m));
  assert_int_equal(tl_threads_record(m, 35, 500, 500, 1), TL_OK);
  assert_int_equal(tl_threads_record(m, NO_TS, 500, 500, 0), TL_OK);
  /* no exit of the second thread: a later fork is the same thread */
  assert_int_equal(tl_threads_fork(m, 40, 1, 1, 500, 500), TL_OK);
  assert_int_equal(tl_threads_exit(m, 45, 500, 500), TL_OK);
  assert_int_equal(tl_threads_fork(m, 50, 1, 1, 500, 500), TL_OK);
  assert_int_equal(tl_threads_count(m), 5);

  /* 500's first thread: 15, 20 and the record without a time */
  assert_thread(m, 500, 0, 3, 1, 15, 20, "sh");
  assert_thread(m, id2, 1, 1, 1, 35, 35, "make");
  assert_thread(m, id3, 2, 0, 0, 0, 0, "sh");

  assert_int_equal(tl_threads_id(m, 500, 25), 500);
  assert_int_equal(tl_threads_id(m, 500, 30), id2);
  assert_int_equal(tl_threads_id(m, 500, 49), id2);
  assert_int_equal(tl_threads_id(m, 500, 50), id3);
  assert_int_equal(tl_threads_id(m, 500, NO_TS), 500);
  assert_int_equal(tl_threads_id(m, 77, 50), 77);
  assert_name(tl_threads_name_at(m, 500, 25), "sh");
  assert_name(tl_threads_name_at(m, 500, 35), "make");
  assert_name(tl_threads_name_at(m, 500, 60), "sh");
  tl_threads_free(m);
}

/*
** What perf prints for a sample line of perf script (any -F with comm,
** tid and time, in that order): "tid|sec.usec|comm". 0 if not a sample.
*/
static int script_sample(const char *zLine, char *zOut, size_t nOut){
  const char *z = zLine, *zTid = 0, *zEnd;
  char zComm[256];
  size_t n;
  long long tid;
  unsigned long long sec, usec;
  if( zLine[0]=='\t' || zLine[0]=='\n' || strstr(zLine, "PERF_RECORD_") ) return 0;
  /* the time is the first word "sec.usec:"; tid the word before (or
  ** before "[cpu]"), comm what comes before the tid */
  for(;;){
    const char *zWord;
    while( *z==' ' ) z++;
    if( *z==0 || *z=='\n' ) return 0;
    zWord = z;
    while( *z && *z!=' ' && *z!='\n' ) z++;
    if( sscanf(zWord, "%llu.%6llu:", &sec, &usec)==2 && z[-1]==':' && zTid ) break;
    if( zWord[0]!='[' ) zTid = zWord;
  }
  zEnd = zTid;
  while( zEnd>zLine && zEnd[-1]==' ' ) zEnd--;
  z = zLine;
  while( *z==' ' ) z++;
  n = (size_t)(zEnd - z);
  if( n==0 || n>=sizeof(zComm) ) return 0;
  memcpy(zComm, z, n);
  zComm[n] = 0;
  /* pid/tid, or tid */
  if( sscanf(zTid, "%*d/%lld", &tid)!=1 && sscanf(zTid, "%lld", &tid)!=1 ) return 0;
  snprintf(zOut, nOut, "%lld|%llu.%06llu|%s", tid, sec, usec, zComm);
  return 1;
}

/*
** Every sample perf script printed, as "tid|sec.usec|comm", equals the
** model's name of the sample's thread at its time (perf prints a thread
** never named as :tid, thread 0 as swapper), for every trace perf script
** was run on.
*/
static void perf_names_at_samples_equal_perf_script(void **state){
  static const char *const azTrace[] = {
    "threads-inherit", "cpu-clock-g", "multi", "zstd", "pipe", "sched",
    "switch", "dwarf", "reuse",
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zPath[512], zLine[2048], zRow[512];
    TlLines ref, ours;
    TlTrace *p;
    TlErr e;
    sqlite3_stmt *pStmt;
    const TlThreads *m;
    FILE *f;
    size_t i;
    memset(&ref, 0, sizeof(ref));
    memset(&ours, 0, sizeof(ours));
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.script.txt", azTrace[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      if( script_sample(zLine, zRow, sizeof(zRow)) ) tl_lines_add(&ref, zRow);
    }
    fclose(f);
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.data", azTrace[k]);
    tl_err_clear(&e);
    assert_int_equal(tl_trace_open(zPath, 0, &p, &e), TL_OK);
    assert_int_equal(perf_threads_ready(p, &e), TL_OK);
    m = ((const PerfData*)p->pData)->pThreads;
    assert_int_equal(sqlite3_prepare_v2(db,
        "SELECT tid, ts FROM events(?) WHERE type = 'SAMPLE'", -1, &pStmt, 0), SQLITE_OK);
    sqlite3_bind_text(pStmt, 1, zPath, -1, SQLITE_STATIC);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      int64_t tid = sqlite3_column_int64(pStmt, 0), ts = sqlite3_column_int64(pStmt, 1);
      const char *zName = tl_threads_name_at(m, tid, ts);
      char zDflt[32];
      if( zName==0 ){
        if( tid==0 ) zName = "swapper";
        else{ snprintf(zDflt, sizeof(zDflt), ":%lld", (long long)tid); zName = zDflt; }
      }
      snprintf(zRow, sizeof(zRow), "%lld|%lld.%06lld|%s", (long long)tid,
               (long long)(ts/1000000000), (long long)(ts%1000000000/1000), zName);
      tl_lines_add(&ours, zRow);
    }
    sqlite3_finalize(pStmt);
    tl_trace_release(p);
    assert_true(ref.n>0);
    if( ours.n!=ref.n ){
      fail_msg("%s: %zu samples, perf script %zu", azTrace[k], ours.n, ref.n);
    }
    tl_lines_sort(&ref);
    tl_lines_sort(&ours);
    for(i=0; i<ref.n; i++){
      if( strcmp(ref.az[i], ours.az[i]) ){
        fail_msg("%s: perf script %s, tracelite %s", azTrace[k], ref.az[i], ours.az[i]);
      }
    }
    tl_lines_free(&ref);
    tl_lines_free(&ours);
  }
  tl_test_db_close(db);
}

/*
** threads-inherit.data: every thread perf script shows has a track of its
** tid whose name is the name perf printed (the threads never name
** themselves: each is named after the thread that made it), and perf
** report --sort pid's threads are those tracks with their samples.
*/
static void perf_inherited_names_equal_perf(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(PERF_DIR "threads-inherit.script.txt", "r");
  char zLine[1024], zRow[512];
  size_t nThread = 0, nReport = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char *zName;
    long long tid;
    char zComm[256];
    if( !script_sample(zLine, zRow, sizeof(zRow)) ) continue;
    assert_int_equal(sscanf(zRow, "%lld|%*[^|]|%255[^\n]", &tid, zComm), 2);
    /* the name last printed for each tid (all lines of a tid name one thread here) */
    zName = tl_test_sql_text(db, "SELECT name FROM tracks('" PERF_DIR "threads-inherit.data') "
                                 "WHERE tid = %lld", tid);
    assert_non_null(zName);
    assert_string_equal(zName, zComm);
    free(zName);
  }
  fclose(f);
  /* the program's four threads, each with a name */
  nThread = (size_t)tl_test_sql_int(db, "SELECT count(*) FROM tracks('" PERF_DIR "threads-inherit.data') "
                                        "WHERE args ->> '$.samples' > 0 AND name = 'threadprog'");
  assert_int_equal(nThread, 4);
  f = fopen(PERF_DIR "threads-inherit.report-pid.txt", "r");
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    double pct;
    long long nSamples, tid;
    char zComm[256];
    if( sscanf(zLine, " %lf%% %lld %lld:%255s", &pct, &nSamples, &tid, zComm)!=4 ) continue;
    snprintf(zRow, sizeof(zRow), "%lld|%s", nSamples, zComm);
    {
      char *zOurs = tl_test_sql_text(db,
          "SELECT (args ->> '$.samples') || '|' || name FROM tracks('" PERF_DIR "threads-inherit.data') "
          "WHERE tid = %lld", tid);
      assert_non_null(zOurs);
      assert_string_equal(zOurs, zRow);
      free(zOurs);
    }
    nReport++;
  }
  fclose(f);
  assert_int_equal(nReport, nThread);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(threads,
  cmocka_unit_test(model_threads_names_follow_forks),
  cmocka_unit_test(model_threads_reused_tid),
  cmocka_unit_test(perf_names_at_samples_equal_perf_script),
  cmocka_unit_test(perf_inherited_names_equal_perf),
);
