/*
** test_sched.c: the scheduling model (src/model/sched.c) and its tables.
**
** testdata/sched/ holds perf sched record and perf record -e 'sched:*'
** recordings with perf sched timehist's output for them (record.sh), and
** sched.data converted to CTF by perf data convert --to-ctf --all.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"
#include "model_sched.h"

#define SCHED_DIR TL_TESTDATA_DIR "/sched/"

/*
** Every column of zTab is the same for sched.data and its CTF (converted
** with --all, so that the CTF has perf's COMM and FORK records too: the
** names and processes perf.data has from them).
*/
static void same_rows(sqlite3 *db, const char *zTab){
  const char *zA = SCHED_DIR "sched.data", *zB = SCHED_DIR "sched-ctf";
  char *zRowsA, *zRowsB;
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM %s('%s')", zTab, zA)>1000);
  /* every row, every column, in the order the model gives them */
  zRowsA = tl_test_sql_rows(db, "SELECT * FROM %s('%s')", zTab, zA);
  zRowsB = tl_test_sql_rows(db, "SELECT * FROM %s('%s')", zTab, zB);
  assert_string_equal(zRowsA, zRowsB);
  free(zRowsA);
  free(zRowsB);
  /* the names only perf's COMM records give: a kworker's work queue
  ** (perf sched timehist prints kworker/0:1H-kb, the switches kworker/0:1H) */
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM %s('%s') "
      "WHERE comm GLOB 'kworker/*-*'", zTab, zB)>0);
}

/* perf.data and its perf data convert --to-ctf --all give the same rows. */
static void perf_and_its_ctf_agree(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  same_rows(db, "sched_slices");
  same_rows(db, "thread_states");
  tl_test_db_close(db);
}

/* sql/sched_timehist.sql prints what perf sched timehist prints. */
static void timehist_sql_equals_perf(void **state){
  static const char *const azRec[] = { "sched", "tp" };
  sqlite3 *db = tl_test_db();
  size_t nSql, k;
  char *zSql = tl_test_read_file(TL_TESTDATA_DIR "/../sql/sched_timehist.sql", &nSql);
  (void)state;
  assert_non_null(zSql);
  for(k=0; k<sizeof(azRec)/sizeof(azRec[0]); k++){
    char zPath[512], zLine[512], zWant[1024], zGot[1024];
    FILE *f;
    sqlite3_stmt *pStmt;
    int nLines = 0;
    snprintf(zPath, sizeof(zPath), SCHED_DIR "%s.timehist.txt", azRec[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    snprintf(zPath, sizeof(zPath), SCHED_DIR "%s.data", azRec[k]);
    assert_int_equal(sqlite3_bind_text(pStmt, sqlite3_bind_parameter_index(pStmt, "@trace"),
                                       zPath, -1, SQLITE_TRANSIENT), SQLITE_OK);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zTime[64], zCpu[64], zTask[256], zW[64], zD[64], zR[64];
      if( sscanf(zLine, " %63s %63s %255s %63s %63s %63s", zTime, zCpu, zTask, zW, zD, zR)!=6
       || zCpu[0]!='[' ) continue;
      snprintf(zWant, sizeof(zWant), "%s %s %s %s %s %s", zTime, zCpu, zTask, zW, zD, zR);
      assert_int_equal(sqlite3_step(pStmt), SQLITE_ROW);
      snprintf(zGot, sizeof(zGot), "%s %s %s %s %s %s",
               sqlite3_column_text(pStmt, 0), sqlite3_column_text(pStmt, 1),
               sqlite3_column_text(pStmt, 2), sqlite3_column_text(pStmt, 3),
               sqlite3_column_text(pStmt, 4), sqlite3_column_text(pStmt, 5));
      assert_string_equal(zGot, zWant);
      nLines++;
    }
    assert_int_equal(sqlite3_step(pStmt), SQLITE_DONE);
    assert_true(nLines>500);
    sqlite3_finalize(pStmt);
    fclose(f);
  }
  free(zSql);
  tl_test_db_close(db);
}

/*
** sched_threads is thread_states summed per thread, as perf sched latency
** counts the waits (sql/sched_latency.sql's rules before the table), and
** sched_slices as perf sched timehist -s sums the runs, and is the same
** for sched.data and its CTF.
*/
static void sched_threads_sum_thread_states(void **state){
  static const char *const azTrace[] = {
    SCHED_DIR "sched.data", SCHED_DIR "tp.data", SCHED_DIR "sched-ctf"
  };
  sqlite3 *db = tl_test_db();
  char *zA, *zB;
  int k;
  (void)state;
  for(k=0; k<3; k++){
    const char *z = azTrace[k];
    assert_true(tl_test_sql_int(db, "SELECT count(*) FROM sched_threads('%s') WHERE max_delay > 0", z)>5);
    zA = tl_test_sql_rows(db,
        "WITH st AS (SELECT * FROM thread_states('%s') "
        "  WHERE wakeup IS NOT 'sched_waking' AND state != 'Runnable (Preempted)'), "
        "t AS (SELECT tid, pid, count(*) FILTER (WHERE state = 'Runnable' AND dur IS NOT NULL) "
        "  + coalesce(count(*) FILTER (WHERE ts IS NULL) = 0 "
        "             AND min(ts) = min(ts) FILTER (WHERE state = 'Running'), 0) AS sw, "
        "  coalesce(sum(dur) FILTER (WHERE state = 'Runnable'), 0) AS delay, "
        "  coalesce(max(dur) FILTER (WHERE state = 'Runnable'), 0) AS mx, "
        "  coalesce(sum(runtime) FILTER (WHERE state = 'Running'), 0) AS runtime "
        "  FROM st GROUP BY tid) "
        "SELECT tid, (SELECT comm FROM st WHERE st.tid = t.tid "
        "             ORDER BY coalesce(ts_end, 9223372036854775807) DESC, comm LIMIT 1), "
        "  sw, delay, max(mx, 0), (SELECT min(ts) FROM st WHERE st.tid = t.tid "
        "             AND state = 'Runnable' AND dur = t.mx AND t.mx > 0), runtime "
        "FROM t ORDER BY tid", z);
    zB = tl_test_sql_rows(db, "SELECT tid, comm, switches, delay, max_delay, max_delay_ts, runtime "
                          "FROM sched_threads('%s') ORDER BY tid", z);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
  }
  /* and its slices that ended, as sql/sched_runtime.sql summed them */
  for(k=0; k<3; k++){
    const char *z = azTrace[k];
    zA = tl_test_sql_rows(db,
        "SELECT tid, count(*), sum(coalesce(dur, 0)), min(coalesce(dur, 0)), max(coalesce(dur, 0)), "
        "  sum(coalesce(wait_time, 0)) FROM sched_slices('%s') "
        "WHERE ts_end IS NOT NULL AND tid != 0 GROUP BY tid ORDER BY tid", z);
    zB = tl_test_sql_rows(db, "SELECT tid, slices, run_time, min_run, max_run, wait_time "
                          "FROM sched_threads('%s') WHERE slices > 0 ORDER BY tid", z);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
  }
  zA = tl_test_sql_rows(db, "SELECT * FROM sched_threads('%s')", azTrace[0]);
  zB = tl_test_sql_rows(db, "SELECT * FROM sched_threads('%s')", azTrace[2]);
  assert_string_equal(zA, zB);
  free(zA);
  free(zB);
  tl_test_db_close(db);
}

/* ts and cpu pushed down give the rows a full scan filtered gives. */
static void pushdown_equals_filter(void **state){
  sqlite3 *db = tl_test_db();
  static const char *const azTab[] = { "sched_slices", "thread_states" };
  int k;
  (void)state;
  for(k=0; k<2; k++){
    const char *zT = azTab[k];
    int64_t lo = tl_test_sql_int(db, "SELECT min(ts) + (max(ts)-min(ts))/3 FROM %s('" SCHED_DIR "sched.data')", zT);
    int64_t hi = tl_test_sql_int(db, "SELECT min(ts) + (max(ts)-min(ts))/2 FROM %s('" SCHED_DIR "sched.data')", zT);
    int64_t n = tl_test_sql_int(db, "SELECT count(*) FROM %s('" SCHED_DIR "sched.data') "
                                "WHERE ts BETWEEN %lld AND %lld AND cpu = 1", zT, (long long)lo, (long long)hi);
    int64_t m = tl_test_sql_int(db, "SELECT count(*) FROM (SELECT * FROM %s('" SCHED_DIR "sched.data') "
                                "WHERE +ts BETWEEN %lld AND %lld AND +cpu = 1 LIMIT -1 OFFSET 0)",
                                zT, (long long)lo, (long long)hi);
    int64_t a = tl_test_sql_int(db, "SELECT count(*) FROM %s('" SCHED_DIR "sched.data', 'accel=off') "
                                "WHERE ts BETWEEN %lld AND %lld AND cpu = 1", zT, (long long)lo, (long long)hi);
    assert_true(n>10);
    assert_int_equal(n, m);
    assert_int_equal(n, a);
  }
  tl_test_db_close(db);
}

static void feed_switch(TlSched *p, int64_t ts, int64_t cpu, int64_t prev, int64_t state,
                        int64_t next){
  TlSchedRec r;
  tl_sched_rec_clear(&r, TL_SCHED_SWITCH);
  r.bTs = 1; r.ts = ts; r.bCpu = 1; r.cpu = cpu;
  tl_sched_rec_int(&r, TL_SF_PREV_TID, prev);
  tl_sched_rec_int(&r, TL_SF_PREV_STATE, state);
  tl_sched_rec_int(&r, TL_SF_NEXT_TID, next);
  tl_sched_rec_int(&r, TL_SF_NEXT_PRIO, 120);
  tl_sched_rec_text(&r, TL_SF_NEXT_COMM, "t", 1);
  assert_int_equal(tl_sched_feed(p, &r), TL_OK);
}

/* Hostile orders: NULLs and oddities, no crash. */
static void hostile_orders_give_nulls(void **state){
  TlSched *p = tl_sched_new(TL_SCHED_OUT_SLICE | TL_SCHED_OUT_STATE | TL_SCHED_OUT_THREAD,
                            TL_TS_MIN, TL_TS_MAX, 0, -1);
  TlSchedRec r;
  TlSchedOut o;
  const char *zOdd;
  int nSlice = 0, nNoEnd = 0, nNoStart = 0, nThread = 0;
  (void)state;
  assert_non_null(p);
  feed_switch(p, 100, 0, 0, 0, 7);       /* 7 runs on CPU 0 */
  feed_switch(p, 200, 1, 0, 0, 7);       /* and is switched in on CPU 1 */
  feed_switch(p, 150, 1, 7, 1, 0);       /* time goes backwards */
  tl_sched_rec_clear(&r, TL_SCHED_WAKEUP);   /* a thread never seen */
  r.bTs = 1; r.ts = 300; r.bCpu = 1; r.cpu = 5000000;
  tl_sched_rec_int(&r, TL_SF_TID, 99);
  assert_int_equal(tl_sched_feed(p, &r), TL_OK);
  feed_switch(p, 400, 3, 8, 1, 9);       /* out of a thread never switched in */
  tl_sched_finish(p);
  while( tl_sched_take(p, &o) ){
    if( o.eOut==TL_SCHED_OUT_THREAD ){
      /* (woken, never run: no switch, no wait) */
      nThread++;
      if( o.tid==99 ) assert_true(o.sum.nSwitch==0 && o.sum.nSlice==0 && !o.sum.bMaxTs);
      assert_true(o.sum.run>=0 && o.sum.delay>=0);
      continue;
    }
    if( o.eOut==TL_SCHED_OUT_SLICE ) nSlice++;
    if( !o.bEnd ) nNoEnd++;
    if( !o.bTs ) nNoStart++;
  }
  assert_int_equal(nThread, 4);        /* 7, 8, 9 and 99 */
  assert_true(nSlice>=3);
  assert_true(nNoEnd>=2);
  assert_true(nNoStart>=1);
  assert_true(tl_sched_oddities(p, &zOdd)>=2);
  assert_non_null(zOdd);
  tl_sched_free(p);
}

/*
** Many forks of one parent: the model's threads grow (and move) while the
** parent is in hand; every child, switched in once, is a thread of its
** own with the pid the fork gave it (ASan in make check sees a parent
** read from moved memory).
*/
static void many_forks_of_one_parent(void **state){
  TlSched *p = tl_sched_new(TL_SCHED_OUT_THREAD, TL_TS_MIN, TL_TS_MAX, 0, -1);
  TlSchedRec r;
  TlSchedOut o;
  int i, nThread = 0, nChildPid = 0;
  (void)state;
  assert_non_null(p);
  feed_switch(p, 10, 0, 0, 0, 1);
  for(i=0; i<3000; i++){
    tl_sched_rec_clear(&r, TL_SCHED_FORK);
    r.bTs = 1; r.ts = 100 + i; r.bCpu = 1; r.cpu = 0;
    tl_sched_rec_int(&r, TL_SF_PARENT_TID, 1);
    tl_sched_rec_int(&r, TL_SF_PARENT_PID, 1);
    tl_sched_rec_int(&r, TL_SF_CHILD_TID, 1000 + i);
    tl_sched_rec_int(&r, TL_SF_CHILD_PID, 1000 + i);
    assert_int_equal(tl_sched_feed(p, &r), TL_OK);
  }
  for(i=0; i<3000; i++) feed_switch(p, 10000 + i, 0, i ? 999 + i : 1, 1, 1000 + i);
  tl_sched_finish(p);
  while( tl_sched_take(p, &o) ){
    if( o.eOut!=TL_SCHED_OUT_THREAD ) continue;
    nThread++;
    if( o.tid>=1000 && o.bPid && o.pid==o.tid ) nChildPid++;
  }
  assert_int_equal(nThread, 3001);
  assert_int_equal(nChildPid, 3000);
  tl_sched_free(p);
}

/* A recording cut short mid-record: rows up to the cut, a warning. */
static void cut_recording_reads(void **state){
  size_t n;
  uint8_t *a = tl_test_read_file(SCHED_DIR "sched.data", &n);
  char zPath[512];
  sqlite3 *db;
  char *zErr;
  (void)state;
  assert_non_null(a);
  snprintf(zPath, sizeof(zPath), "%s/sched-cut.data", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, a, n/2 + 3), 0);
  db = tl_test_db();
  zErr = tl_test_sql_error(db, "SELECT count(*), sum(dur) FROM sched_slices('%s')", zPath);
  free(zErr);
  zErr = tl_test_sql_error(db, "SELECT count(*), sum(dur) FROM thread_states('%s')", zPath);
  free(zErr);
  tl_test_db_close(db);
  free(a);
}

/* A kernel CTF event's thread is its CPU's current thread: in perf's CTF
** the sample's own perf_tid says which (but where a switch was lost).
** The samples only: perf's side-band records (perf_comm, perf_mmap2, ...)
** carry no perf_tid, and those synthesized at the start come before any
** switch. */
static void ctf_events_get_their_thread(void **state){
  sqlite3 *db = tl_test_db();
  const char *z = SCHED_DIR "sched-ctf";
  int64_t n, nSame, nNull;
  (void)state;
  n = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE name GLOB 'sched:*'", z);
  nSame = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') "
                          "WHERE tid = args ->> '$.perf_tid'", z);
  /* a process is known once the thread's own events said it */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('%s') "
                   "WHERE tid = args ->> '$.perf_tid' AND pid != args ->> '$.perf_pid'", z), 0);
  nNull = tl_test_sql_int(db, "SELECT count(*) FROM events('%s') "
                          "WHERE tid IS NULL AND name GLOB 'sched:*'", z);
  assert_true(n>3000);
  assert_true(nNull<=16);         /* before each CPU's first switch */
  assert_true(nSame>=n - nNull - 16);
  /* a ts window gives the same threads as the whole trace */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM (SELECT ts, tid, comm FROM events('%s') WHERE ts BETWEEN 8042300000000 AND 8042400000000 "
      "EXCEPT SELECT ts, tid, comm FROM events('%s') WHERE +ts BETWEEN 8042300000000 AND 8042400000000)", z, z), 0);
  tl_test_db_close(db);
}

/* syscalls: every entry and exit perf script printed for the perf trace
** record recording, the exits in its order with its numbers and values. */
static void syscalls_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(SCHED_DIR "trace.syscalls.txt", "r");
  char zLine[512];
  sqlite3_str *pRef = sqlite3_str_new(0);
  int64_t nEnter = 0, nExit = 0, nErr = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    long long nr, ret;
    if( strstr(zLine, "sys_enter: NR ") ) nEnter++;
    if( sscanf(zLine, " raw_syscalls:sys_exit: NR %lld = %lld", &nr, &ret)==2 ){
      sqlite3_str_appendf(pRef, "%lld|%lld\n", nr, ret);
      nExit++;
      nErr += ret<0;
    }
  }
  fclose(f);
  assert_true(nExit>400);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(ts) FROM syscalls('" SCHED_DIR "trace.data')"), nEnter);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(ts_end) FROM syscalls('" SCHED_DIR "trace.data')"), nExit);
  assert_int_equal(tl_test_sql_int(db, "SELECT sum(ret < 0) FROM syscalls('" SCHED_DIR "trace.data')"), nErr);
  /* a call is paired when its entry is its thread's record just before */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM syscalls('" SCHED_DIR "trace.data') "
                                   "WHERE dur < 0 OR (dur IS NOT NULL AND nr < 0)"), 0);
  tl_test_rows_equal_text(tl_test_sql_rows(db, "SELECT nr, ret FROM syscalls('" SCHED_DIR "trace.data') "
                                           "WHERE ts_end IS NOT NULL ORDER BY ts_end"), pRef);
  /* a ts window and a CPU give the rows a full scan filtered gives */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT * FROM syscalls('" SCHED_DIR "trace.data') "
                   "WHERE ts BETWEEN (SELECT min(ts) + 1000000 FROM syscalls('" SCHED_DIR "trace.data')) "
                   "AND (SELECT max(ts) - 1000000 FROM syscalls('" SCHED_DIR "trace.data')) AND cpu = 0 "
                   "EXCEPT SELECT * FROM syscalls('" SCHED_DIR "trace.data', 'accel=off') "
                   "WHERE +ts BETWEEN (SELECT min(ts) + 1000000 FROM syscalls('" SCHED_DIR "trace.data')) "
                   "AND (SELECT max(ts) - 1000000 FROM syscalls('" SCHED_DIR "trace.data')) AND +cpu = 0)"), 0);
  tl_test_db_close(db);
}

/* A system call record: LTTng's (named by zEvent, no thread of its own) or,
** with aTidNr, perf's (thread aTidNr[0], number aTidNr[1]). */
static void feed_call(TlSched *p, int eKind, const char *zEvent, const int64_t *aTidNr,
                      int64_t ts, int64_t cpu, int64_t ret){
  TlSchedRec r;
  tl_sched_rec_clear(&r, eKind);
  r.zEvent = zEvent;
  r.bTs = 1; r.ts = ts; r.bCpu = 1; r.cpu = cpu;
  if( aTidNr ){
    tl_sched_rec_int(&r, TL_SF_CUR_TID, aTidNr[0]);
    tl_sched_rec_int(&r, TL_SF_NR, aTidNr[1]);
  }
  if( eKind==TL_SCHED_SYS_EXIT ) tl_sched_rec_int(&r, TL_SF_RET, ret);
  assert_int_equal(tl_sched_feed(p, &r), TL_OK);
}

static void feed_sys(TlSched *p, int eKind, const char *zEvent, int64_t ts, int64_t cpu,
                     int64_t ret){
  feed_call(p, eKind, zEvent, 0, ts, cpu, ret);
}

/* The model's rows at the end, as "tid call ts ts_end dur ret;" each (the
** call its name, else its number, else "-"; -1 for NULL, tid "?" when
** unknown). */
static void sys_rows(TlSched *p, char *zGot, size_t nGot){
  TlSchedOut o;
  size_t n = 0;
  tl_sched_finish(p);
  while( tl_sched_take(p, &o) ){
    char zCall[64];
    assert_int_equal(o.eOut, TL_SCHED_OUT_SYSCALL);
    if( o.zSys ) snprintf(zCall, sizeof(zCall), "%.*s", (int)o.nSys, o.zSys);
    else if( o.bNr ) snprintf(zCall, sizeof(zCall), "%lld", (long long)o.nr);
    else snprintf(zCall, sizeof(zCall), "-");
    if( o.bNoTid ) n += (size_t)snprintf(zGot+n, nGot-n, "? ");
    else n += (size_t)snprintf(zGot+n, nGot-n, "%lld ", (long long)o.tid);
    n += (size_t)snprintf(zGot+n, nGot-n, "%s %lld %lld %lld %lld;", zCall,
                          o.bTs ? (long long)o.ts : -1LL, o.bEnd ? (long long)o.tsEnd : -1LL,
                          o.bDur ? (long long)o.dur : -1LL, o.bRet ? (long long)o.ret : -1LL);
    assert_true(n<nGot);
  }
}

/* LTTng's system calls (no thread of their own, named by the event):
** paired by name on the thread the CPU runs, as the model header says. */
static void syscalls_pair_by_name_on_the_cpus_thread(void **state){
  TlSched *p = tl_sched_new(TL_SCHED_OUT_SYSCALL, TL_TS_MIN, TL_TS_MAX, 0, -1);
  char zGot[1024] = "";
  (void)state;
  assert_non_null(p);
  assert_int_equal(tl_sched_kind("syscall_entry_read"), TL_SCHED_SYS_ENTER);
  assert_int_equal(tl_sched_kind("syscall_exit_read"), TL_SCHED_SYS_EXIT);
  feed_switch(p, 50, 0, 0, 0, 7);                        /* 7 runs on CPU 0 */
  feed_sys(p, TL_SCHED_SYS_ENTER, "syscall_entry_read", 100, 0, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "syscall_exit_read", 150, 0, -2);
  feed_sys(p, TL_SCHED_SYS_ENTER, "syscall_entry_openat", 200, 0, 0);
  feed_sys(p, TL_SCHED_SYS_ENTER, "syscall_entry_close", 210, 0, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "syscall_exit_close", 220, 0, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "syscall_exit_write", 230, 1, 5);  /* no thread on CPU 1 */
  feed_sys(p, TL_SCHED_SYS_ENTER, "syscall_entry_poll", 240, 0, 0); /* open at the end */
  sys_rows(p, zGot, sizeof(zGot));
  assert_string_equal(zGot, "7 read 100 150 50 -2;7 openat 200 -1 -1 -1;7 close 210 220 10 0;"
                            "? write -1 230 -1 5;7 poll 240 -1 -1 -1;");
  tl_sched_free(p);
}

/* LTTng's exits pair with their thread's pending entry whatever it names,
** as lttng-analyses pairs them (SyscallsStateProvider: the thread's
** current_syscall), and lttng-modules before 2.6 names entries sys_NAME and
** every exit exit_syscall. */
static void syscalls_pair_as_lttng_analyses(void **state){
  TlSched *p = tl_sched_new(TL_SCHED_OUT_SYSCALL, TL_TS_MIN, TL_TS_MAX, 0, -1);
  char zGot[1024] = "";
  const int64_t aUnknown[2] = { 7, 194 };     /* sys_unknown carries its number */
  (void)state;
  assert_non_null(p);
  assert_int_equal(tl_sched_kind("sys_open"), TL_SCHED_SYS_ENTER);
  assert_int_equal(tl_sched_kind("exit_syscall"), TL_SCHED_SYS_EXIT);
  feed_switch(p, 50, 0, 0, 0, 7);
  feed_sys(p, TL_SCHED_SYS_ENTER, "sys_open", 100, 0, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "exit_syscall", 130, 0, -2);
  feed_sys(p, TL_SCHED_SYS_ENTER, "syscall_entry_read", 200, 0, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "syscall_exit_write", 260, 0, 3);  /* the entry's call */
  feed_sys(p, TL_SCHED_SYS_EXIT, "exit_syscall", 300, 0, 0);        /* none pending */
  feed_call(p, TL_SCHED_SYS_ENTER, "sys_unknown", aUnknown, 400, 0, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "exit_syscall", 420, 0, 0);
  sys_rows(p, zGot, sizeof(zGot));
  assert_string_equal(zGot, "7 open 100 130 30 -2;7 read 200 260 60 3;7 - -1 300 -1 0;"
                            "7 unknown 400 420 20 0;");
  tl_sched_free(p);
}

/* perf's numbered system calls of thread tid: a call's time as perf trace
** -s measures it (builtin-trace.c: trace__sys_enter sets the thread's
** entry_time for a call, -1 is none; thread__update_stats times an exit
** from it, 0 when not after it; no exit clears it). */
static void feed_nr(TlSched *p, int eKind, int64_t tid, int64_t nr, int64_t ts){
  const int64_t aTidNr[2] = { tid, nr };
  feed_call(p, eKind, 0, aTidNr, ts, 0, 0);
}

static void syscalls_time_lost_entries_as_perf_trace(void **state){
  TlSched *p = tl_sched_new(TL_SCHED_OUT_SYSCALL, TL_TS_MIN, TL_TS_MAX, 0, -1);
  char zGot[1024] = "";
  (void)state;
  assert_non_null(p);
  feed_nr(p, TL_SCHED_SYS_ENTER, 7, 0, 100);
  feed_nr(p, TL_SCHED_SYS_EXIT, 7, 0, 150);     /* paired: 50 */
  feed_nr(p, TL_SCHED_SYS_EXIT, 7, 1, 170);     /* its entry lost: from 100 */
  feed_nr(p, TL_SCHED_SYS_ENTER, 7, -1, 180);   /* no call: not an entry */
  feed_nr(p, TL_SCHED_SYS_ENTER, 7, 3, 200);
  feed_nr(p, TL_SCHED_SYS_EXIT, 7, 2, 260);     /* another call's exit: from 200 */
  feed_nr(p, TL_SCHED_SYS_EXIT, 8, 0, 300);     /* a thread with no entry */
  sys_rows(p, zGot, sizeof(zGot));
  assert_string_equal(zGot, "7 0 100 150 50 0;7 1 -1 170 70 0;7 -1 180 -1 -1 -1;7 3 200 -1 -1 -1;"
                            "7 2 -1 260 60 0;8 0 -1 300 -1 0;");
  tl_sched_free(p);
}

/*
** syscall_stats is the syscalls rows summed per thread and call by the
** rules docs/tables.md gives (a call: an exit with its entry, or numbered
** 0 or more; its time dur, else 0), here in SQL over the syscalls table:
** perf trace record files, one with lost records, an LTTng kernel trace,
** and the peer set's lttng-modules 2.5 trace (sys_NAME entries; its
** sys_unknown names calls of several numbers, counted as one call).
*/
static void syscall_stats_sum_syscalls(void **state){
  char zPeer[512];
  const char *azTrace[] = {
    SCHED_DIR "trace.data", SCHED_DIR "syscalls-lost.data", SCHED_DIR "lttng-syscalls/kernel", zPeer
  };
  const char *zPeerDir = getenv("TL_PEER_DIR");
  sqlite3 *db = tl_test_db();
  int k, nTrace = 4;
  (void)state;
  if( zPeerDir==0 || zPeerDir[0]==0 ) zPeerDir = TL_PEER_DIR;
  snprintf(zPeer, sizeof(zPeer), "%s/ctf/tracecompass-test-traces/bug446190", zPeerDir);
  {
    char zMeta[600];
    void *pMeta;
    snprintf(zMeta, sizeof(zMeta), "%s/metadata", zPeer);
    if( (pMeta = tl_test_read_file(zMeta, 0))==0 ){
      print_message("peer trace not found (%s): left out\n", zPeer);
      nTrace = 3;
    }
    free(pMeta);
  }
  for(k=0; k<nTrace; k++){
    const char *z = azTrace[k];
    char *zA, *zB;
    assert_true(tl_test_sql_int(db, "SELECT count(*) FROM syscall_stats('%s') WHERE calls > 1", z)>=3);
    /* (the means and deviations to 9 and 6 significant digits: the
    ** table's come from Welford's rule, these from sums) */
    zA = tl_test_sql_rows(db,
        "WITH r AS (SELECT *, coalesce(ts_end IS NOT NULL AND (ts IS NOT NULL OR nr >= 0), 0) AS c, "
        "  coalesce(dur, 0) AS d FROM syscalls('%s') WHERE tid IS NOT NULL), "
        "g AS (SELECT tid, CASE WHEN name IS NULL THEN nr END AS nr, name, sum((ts IS NOT NULL) + (ts_end IS NOT NULL)) AS e, sum(c) AS n, "
        "  coalesce(sum(c AND ret < 0), 0) AS err, coalesce(sum(d) FILTER (WHERE c), 0) AS tot, "
        "  min(d) FILTER (WHERE c) AS mn, max(d) FILTER (WHERE c) AS mx, avg(d) FILTER (WHERE c) AS av, "
        "  sum(d * 1.0 * d) FILTER (WHERE c) AS sq FROM r GROUP BY tid, coalesce(name, nr)) "
        "SELECT tid, nr, name, e, n, err, tot, mn, mx, CASE WHEN n > 0 THEN printf('%%.9g', av) END, "
        "  CASE WHEN n > 1 THEN printf('%%.6g', sqrt(max(sq - n * av * av, 0) / (n - 1))) END "
        "FROM g ORDER BY tid, nr, name", z);
    zB = tl_test_sql_rows(db,
        "SELECT tid, nr, name, events, calls, errors, total_dur, min_dur, max_dur, "
        "  CASE WHEN avg_dur IS NOT NULL THEN printf('%%.9g', avg_dur) END, "
        "  CASE WHEN stddev_dur IS NOT NULL THEN printf('%%.6g', stddev_dur) END "
        "FROM syscall_stats('%s') ORDER BY tid, nr, name", z);
    assert_string_equal(zA, zB);
    free(zA);
    free(zB);
    /* a thread's name: at its last call's row (perf trace -s), or when its
    ** first named call ended (lttng-syscallstats) */
    assert_int_equal(tl_test_sql_int(db,
        "WITH r AS (SELECT rowid AS i, * FROM syscalls('%s') WHERE tid IS NOT NULL), "
        "t AS (SELECT DISTINCT tid, comm FROM syscall_stats('%s')) "
        "SELECT count(*) FROM t WHERE comm IS NOT coalesce("
        "  (SELECT comm FROM r WHERE r.tid = t.tid AND name IS NOT NULL AND ts IS NOT NULL "
        "   AND ts_end IS NOT NULL AND comm IS NOT NULL ORDER BY ts_end, comm LIMIT 1), "
        "  (SELECT comm FROM r WHERE r.tid = t.tid AND (name IS NOT NULL OR nr >= 0) "
        "   AND coalesce(ts_end, ts) IS NOT NULL ORDER BY coalesce(ts_end, ts) DESC, i DESC LIMIT 1))",
        z, z), 0);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT DISTINCT tid, comm, pid "
                                     "FROM syscall_stats('%s'))", z),
                     tl_test_sql_int(db, "SELECT count(DISTINCT tid) FROM syscall_stats('%s')", z));
  }
  tl_test_db_close(db);
}

/* The sums by their definitions: a sample standard deviation, an exit of
** a lost entry (perf: a call, timed from the thread's latest entry), -1 (no
** call: its records counted, no call), an LTTng exit with no entry (no
** call), and many kinds of call in one thread. */
static void syscall_stats_by_definition(void **state){
  TlSched *p = tl_sched_new(TL_SCHED_OUT_SYSSTAT, TL_TS_MIN, TL_TS_MAX, 0, -1);
  TlSchedOut o;
  char zGot[4096] = "";
  size_t n = 0;
  int64_t i, nKind = 0, nCall = 0;
  (void)state;
  assert_non_null(p);
  /* thread 7, call 0: times 10, 20, 30, 40 (mean 25, deviation
  ** sqrt(500/3)); call 1: its entry lost, timed from 400: 55 */
  for(i=0; i<4; i++){
    feed_nr(p, TL_SCHED_SYS_ENTER, 7, 0, 100*i);
    feed_nr(p, TL_SCHED_SYS_EXIT, 7, 0, 100*i + 10*(i + 1));
  }
  feed_nr(p, TL_SCHED_SYS_ENTER, 7, 2, 400);
  feed_nr(p, TL_SCHED_SYS_EXIT, 7, 1, 455);
  feed_nr(p, TL_SCHED_SYS_ENTER, 7, -1, 500);
  feed_nr(p, TL_SCHED_SYS_EXIT, 7, -1, 510);
  /* thread 8: 300 kinds of call, one each, 5 ns */
  for(i=0; i<300; i++){
    feed_nr(p, TL_SCHED_SYS_ENTER, 8, 1000 + i, 1000 + 10*i);
    feed_nr(p, TL_SCHED_SYS_EXIT, 8, 1000 + i, 1005 + 10*i);
  }
  /* LTTng: thread 9 on CPU 1, an exit of no entry, then a call */
  feed_switch(p, 5000, 1, 0, 0, 9);
  feed_sys(p, TL_SCHED_SYS_EXIT, "syscall_exit_read", 5010, 1, 0);
  feed_sys(p, TL_SCHED_SYS_ENTER, "syscall_entry_read", 5020, 1, 0);
  feed_sys(p, TL_SCHED_SYS_EXIT, "syscall_exit_read", 5050, 1, -4);
  tl_sched_finish(p);
  while( tl_sched_take(p, &o) ){
    TlVal a[TL_SX_NCOL];
    if( o.eOut!=TL_SCHED_OUT_SYSSTAT ) continue;
    assert_true(tl_sched_row(&o, TL_TAB_SYSCALL_STATS, a));
    if( o.tid==8 ){
      nKind++;
      nCall += o.stat.nCall;
      assert_int_equal(o.stat.nCall, 1);
      assert_int_equal(o.stat.total, 5);
      assert_int_equal(a[TL_SX_STDDEV_DUR].t, TL_NULL);
      continue;
    }
    if( o.zSys ){
      n += (size_t)snprintf(zGot+n, sizeof(zGot)-n, "%lld %.*s:", (long long)o.tid,
                            (int)o.nSys, o.zSys);
    }else{
      n += (size_t)snprintf(zGot+n, sizeof(zGot)-n, "%lld %lld:", (long long)o.tid, (long long)o.nr);
    }
    n += (size_t)snprintf(zGot+n, sizeof(zGot)-n, " %lld %lld %lld %lld %lld %lld",
                          (long long)o.stat.nEvent, (long long)o.stat.nCall,
                          (long long)o.stat.nErr, (long long)o.stat.total,
                          a[TL_SX_MIN_DUR].t==TL_NULL ? -1LL : (long long)a[TL_SX_MIN_DUR].i,
                          a[TL_SX_MAX_DUR].t==TL_NULL ? -1LL : (long long)a[TL_SX_MAX_DUR].i);
    if( a[TL_SX_AVG_DUR].t==TL_REAL ){
      n += (size_t)snprintf(zGot+n, sizeof(zGot)-n, " %.6g", a[TL_SX_AVG_DUR].r);
    }
    if( a[TL_SX_STDDEV_DUR].t==TL_REAL ){
      n += (size_t)snprintf(zGot+n, sizeof(zGot)-n, " %.6g", a[TL_SX_STDDEV_DUR].r);
    }
    n += (size_t)snprintf(zGot+n, sizeof(zGot)-n, ";");
    assert_true(n<sizeof(zGot));
  }
  assert_int_equal(nKind, 300);
  assert_int_equal(nCall, 300);
  assert_string_equal(zGot, "7 0: 8 4 0 100 10 40 25 12.9099;"
                            "7 2: 1 0 0 0 -1 -1;"           /* the entry, no exit */
                            "7 1: 1 1 0 55 55 55 55;"
                            "7 -1: 2 0 0 0 -1 -1;"
                            "9 read: 3 1 1 30 30 30 30;");
  tl_sched_free(p);
}

TL_DEFINE_GROUP(sched,
  cmocka_unit_test(ctf_events_get_their_thread),
  cmocka_unit_test(perf_and_its_ctf_agree),
  cmocka_unit_test(timehist_sql_equals_perf),
  cmocka_unit_test(pushdown_equals_filter),
  cmocka_unit_test(sched_threads_sum_thread_states),
  cmocka_unit_test(hostile_orders_give_nulls),
  cmocka_unit_test(many_forks_of_one_parent),
  cmocka_unit_test(cut_recording_reads),
  cmocka_unit_test(syscalls_equal_perf_script),
  cmocka_unit_test(syscalls_pair_by_name_on_the_cpus_thread),
  cmocka_unit_test(syscalls_time_lost_entries_as_perf_trace),
  cmocka_unit_test(syscalls_pair_as_lttng_analyses),
  cmocka_unit_test(syscall_stats_sum_syscalls),
  cmocka_unit_test(syscall_stats_by_definition),
);
