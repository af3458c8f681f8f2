/*
** test_threads.c: the threads model (src/model/threads.c) alone, from
** format-neutral inputs.
*/
#include "tltest.h"

#include <string.h>

#include "model_threads.h"

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

TL_DEFINE_GROUP(threads,
  cmocka_unit_test(model_threads_names_follow_forks),
  cmocka_unit_test(model_threads_reused_tid),
);
