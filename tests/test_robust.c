/*
** test_robust.c: odd file-system objects, searches that could run away,
** option values, and errors that must reach the caller whole.
**
** Every case that blocked or ran for minutes before runs on a helper
** thread; the test fails (rather than hangs) when it is not done within
** TL_ROBUST_WAIT seconds. A thread still blocked then is left behind.
**
** Files changed under a scan: a copy of a trace of each format is scanned
** one row at a time; after the first row another thread truncates it,
** rewrites it in place with the same bytes, or copies the same bytes over
** it (truncate, then write, as cp(1) does), and the scan must then end in
** an error naming the file as "changed while it was read", never a signal
** or a short answer. The copies' modification time is set an hour back
** first, so that a rewrite within the same clock tick is still seen.
*/
#include "tltest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctf_writer.h"
#include "source.h"
#include "trace.h"

#define TL_ROBUST_WAIT 60        /* seconds: well over the FIFO wait (3 s) */

#define TD TL_TESTDATA_DIR "/"

typedef struct Job Job;
struct Job {
  const char *zPath;              /* the trace */
  const char *zOpts;              /* its options, or NULL */
  int bSql;                       /* through SQL (events()) rather than the C API */
  int rc;                         /* tl_trace_open()'s code */
  char zMsg[8192];                /* its message, or the SQL error */
  int bDone;                      /* set when the work is over */
  pthread_mutex_t mu;
};

static void *job_run(void *pArg){
  Job *j = pArg;
  if( j->bSql ){
    sqlite3 *db = tl_test_db();
    char *z = tl_test_sql_error(db, "SELECT count(*) FROM events('%s', '%s')",
                                j->zPath, j->zOpts ? j->zOpts : "");
    snprintf(j->zMsg, sizeof(j->zMsg), "%s", z ? z : "");
    j->rc = z ? -1 : 0;
    free(z);
    tl_test_db_close(db);
  }else{
    TlTrace *p = 0;
    TlErr e;
    tl_err_clear(&e);
    j->rc = tl_trace_open(j->zPath, j->zOpts, &p, &e);
    snprintf(j->zMsg, sizeof(j->zMsg), "%s", e.zMsg);
    tl_trace_release(p);
  }
  pthread_mutex_lock(&j->mu);
  j->bDone = 1;
  pthread_mutex_unlock(&j->mu);
  return 0;
}

/*
** Open zPath with zOpts on a thread; fail if it takes over TL_ROBUST_WAIT
** seconds. *pSec is the time it took. The Job is static storage so that a
** thread left blocked never writes to a dead stack.
*/
static Job *run_within(const char *zPath, const char *zOpts, int bSql, double *pSec){
  static Job aJob[16];
  static int nJob = 0;
  Job *j;
  pthread_t th;
  struct timespec t0, t1;
  int bDone = 0;
  assert_true(nJob < 16);
  j = &aJob[nJob++];
  memset(j, 0, sizeof(*j));
  pthread_mutex_init(&j->mu, 0);
  j->zPath = zPath;
  j->zOpts = zOpts;
  j->bSql = bSql;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(pthread_create(&th, 0, job_run, j), 0);
  for(;;){
    double dt;
    pthread_mutex_lock(&j->mu);
    bDone = j->bDone;
    pthread_mutex_unlock(&j->mu);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec)/1e9;
    if( bDone ){ *pSec = dt; break; }
    if( dt > TL_ROBUST_WAIT ){
      pthread_detach(th);
      fail_msg("opening %s (%s) did not end within %d s", zPath, zOpts ? zOpts : "", TL_ROBUST_WAIT);
    }
    usleep(20000);
  }
  pthread_join(th, 0);
  return j;
}

/* A FIFO (that no one writes to) named zName in the tmpdir. */
static const char *make_fifo(const char *zName){
  static char az[4][512];
  static int i = 0;
  char *z = az[i++ & 3];
  snprintf(z, 512, "%s/%s", tl_test_tmpdir(), zName);
  unlink(z);
  assert_int_equal(mkfifo(z, 0600), 0);
  return z;
}

/* ---- FIFOs with no writer ---------------------------------------------- */

static void fifo_without_writer_as_trace_is_an_error(void **state){
  const char *zFifo = make_fifo("nowriter.fifo");
  double dt;
  Job *j;
  (void)state;
  j = run_within(zFifo, 0, 0, &dt);
  assert_int_equal(j->rc, TL_EIO);
  assert_non_null(strstr(j->zMsg, "a FIFO that no writer opened within 3 seconds"));
  assert_true(dt < 10);
  /* through SQL the message names the file */
  j = run_within(zFifo, 0, 1, &dt);
  assert_int_not_equal(j->rc, 0);
  assert_non_null(strstr(j->zMsg, zFifo));
  assert_non_null(strstr(j->zMsg, "no writer"));
}

/* Writes demo.cpel into a FIFO late and in two parts with a pause between. */
static void *late_writer(void *pArg){
  const char *zFifo = pArg;
  size_t n;
  char *a = tl_test_read_file(TD "cpel/demo.cpel", &n);
  FILE *f;
  usleep(700000);                 /* the reader waits for a writer */
  f = fopen(zFifo, "wb");
  if( f && a ){
    fwrite(a, 1, n/2, f);
    fflush(f);
    usleep(400000);               /* the reader waits for bytes */
    fwrite(a + n/2, 1, n - n/2, f);
  }
  if( f ) fclose(f);
  free(a);
  return 0;
}

/* A writer that comes late, and pauses, is waited for: the whole file. */
static void fifo_with_a_late_writer_is_read_whole(void **state){
  static char zFifo[512];
  pthread_t th;
  sqlite3 *db = tl_test_db();
  (void)state;
  snprintf(zFifo, sizeof(zFifo), "%s", make_fifo("late.fifo"));
  assert_int_equal(pthread_create(&th, 0, late_writer, zFifo), 0);
  /* demo.cpel: 300 events (testdata/cpel/README.md) */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('%s')", zFifo), 300);
  pthread_join(th, 0);
  tl_test_db_close(db);
}

static void fifo_as_binary_or_kallsyms_is_an_error(void **state){
  const char *zFifo = make_fifo("option.fifo");
  char zOpts[700];
  double dt;
  Job *j;
  (void)state;
  snprintf(zOpts, sizeof(zOpts), "binary='%s'", zFifo);
  j = run_within(TD "xray/basic-default.xray", zOpts, 0, &dt);
  assert_int_equal(j->rc, TL_EMISUSE);
  assert_non_null(strstr(j->zMsg, "binary="));
  assert_non_null(strstr(j->zMsg, zFifo));
  assert_non_null(strstr(j->zMsg, "is a FIFO, expected a regular file"));
  snprintf(zOpts, sizeof(zOpts), "kallsyms=\"%s\"", zFifo);
  j = run_within(TD "perf/multi.data", zOpts, 1, &dt);
  assert_int_not_equal(j->rc, 0);
  assert_non_null(strstr(j->zMsg, "kallsyms="));
  assert_non_null(strstr(j->zMsg, "is a FIFO, expected a regular file"));
}

/* The shared openers refuse what is not a regular file, at once. */
static void source_open_refuses_fifos_and_devices(void **state){
  const char *zFifo = make_fifo("src.fifo");
  TlSource *p = 0;
  TlErr e;
  char *z = 0;
  size_t n = 0;
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_source_open(zFifo, &p, &e), TL_EMISUSE);
  assert_null(p);
  assert_string_equal(e.zMsg, "is a FIFO, expected a regular file");
  tl_err_clear(&e);
  assert_int_equal(tl_source_open("/dev/null", &p, &e), TL_EMISUSE);
  assert_string_equal(e.zMsg, "is a device, expected a regular file");
  tl_err_clear(&e);
  assert_int_equal(tl_file_read(zFifo, 1<<20, &z, &n, &e), TL_EMISUSE);
  assert_null(z);
  tl_err_clear(&e);
  assert_int_equal(tl_file_read(TD "perf/multi.buildids.txt", 1<<20, &z, &n, &e), TL_OK);
  assert_true(n > 0);
  assert_int_equal(z[n], 0);
  free(z);
  /* /proc files report size 0 but read to their end */
  tl_err_clear(&e);
  assert_int_equal(tl_file_read("/proc/self/status", 1<<20, &z, &n, &e), TL_OK);
  assert_non_null(strstr(z, "Name:"));
  free(z);
}

/*
** A file read into huge-page memory holds the same bytes as one read by
** malloc, however it grows (a limit smaller than the file: cut there), and
** the memory keeps its bytes when it grows and moves.
*/
static void file_read_big_same_bytes(void **state){
  char *z = 0, *zBig = 0, *a;
  size_t n = 0, nBig = 0, nAlloc = 0, i;
  TlErr e;
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_file_read(TD "perf/multi.buildids.txt", 1<<20, &z, &n, &e), TL_OK);
  assert_int_equal(tl_file_read_big(TD "perf/multi.buildids.txt", 1<<20, &zBig, &nBig, &nAlloc, &e), TL_OK);
  assert_int_equal(nBig, n);
  assert_true(nAlloc > nBig);
  assert_memory_equal(zBig, z, n + 1);
  tl_big_free(zBig, nAlloc);
  assert_int_equal(tl_file_read_big(TD "perf/multi.buildids.txt", 10, &zBig, &nBig, &nAlloc, &e), TL_OK);
  assert_int_equal(nBig, 10);
  assert_memory_equal(zBig, z, 10);
  assert_int_equal(zBig[10], 0);
  tl_big_free(zBig, nAlloc);
  free(z);
  a = tl_big_alloc(3<<20);
  assert_non_null(a);
  for(i=0; i<(3u<<20); i+=4096) a[i] = (char)(i>>12);
  a = tl_big_realloc(a, 3<<20, 9<<20);
  assert_non_null(a);
  for(i=0; i<(3u<<20); i+=4096) assert_int_equal(a[i], (char)(i>>12));
  assert_int_equal(a[(9u<<20) - 1], 0);
  tl_big_free(a, 9<<20);
  tl_big_free(0, 0);
}

/* Bytes read into the caller's memory are the window's; past the end, an error. */
static void win_read_to_same_bytes(void **state){
  TlSource *p = 0;
  TlWin w, w2;
  TlBytes b;
  TlErr e;
  uint8_t a[100];
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_source_open(TD "perf/multi.buildids.txt", &p, &e), TL_OK);
  tl_win_init(&w, p);
  tl_win_init(&w2, p);
  assert_int_equal(tl_win_read_to(&w, 10, sizeof(a), a, &e), TL_OK);
  assert_int_equal(tl_win_read(&w2, 10, sizeof(a), TL_LE, &b, &e), TL_OK);
  assert_int_equal(b.n, sizeof(a));
  assert_memory_equal(a, b.a, sizeof(a));
  assert_int_equal(tl_win_read_to(&w, p->nSize - 10, 20, a, &e), TL_EIO);
  assert_non_null(strstr(e.zMsg, "changed while it was read"));
  tl_win_free(&w);
  tl_win_free(&w2);
  tl_source_close(p);
}

/* ---- searches that could run away ---------------------------------------- */

/*
** A directory with three symbolic links to itself: each level used to
** list three more, 3^16 directories in all.
*/
static void symlink_loop_ends_at_once(void **state){
  char zDir[512], zLink[600];
  const char *azName[] = { "a", "b", "c" };
  double dt;
  Job *j;
  int i;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/loop", tl_test_tmpdir());
  assert_int_equal(tl_test_mkdirs(zDir), 0);
  for(i=0; i<3; i++){
    snprintf(zLink, sizeof(zLink), "%s/%s", zDir, azName[i]);
    unlink(zLink);
    assert_int_equal(symlink(".", zLink), 0);
  }
  j = run_within(zDir, 0, 0, &dt);
  assert_int_equal(j->rc, TL_EMISUSE);
  assert_non_null(strstr(j->zMsg, "not a trace"));
  assert_true(dt < 5);
}

/* /proc/self/cwd and /proc/self/root lead back up into the whole tree. */
static void proc_self_ends_within_seconds(void **state){
  double dt;
  Job *j;
  (void)state;
  j = run_within("/proc/self", 0, 1, &dt);
  assert_int_not_equal(j->rc, 0);
  assert_non_null(strstr(j->zMsg, "/proc/self"));
  /* about 1 s in a plain build (the search stops at its caps); the bound
  ** leaves room for the sanitizers on a machine busy with other work */
  assert_true(dt < 45);
}

/* ---- option values ------------------------------------------------------- */

static void max_memory_bad_values_are_errors(void **state){
  static const char *const az[] = { "-1", "0", "abc", "99999999999999999999999", "12abc", "2000000" };
  sqlite3 *db = tl_test_db();
  size_t i;
  (void)state;
  for(i=0; i<sizeof(az)/sizeof(az[0]); i++){
    char zWant[128];
    char *z = tl_test_sql_error(db,
        "SELECT count(*) FROM events('" TD "perf/multi.data', 'max_memory=%s')", az[i]);
    assert_non_null(z);
    snprintf(zWant, sizeof(zWant), "max_memory=%s: expected a whole number of MiB from 1 to 1048576", az[i]);
    if( strstr(z, zWant)==0 ) fail_msg("max_memory=%s: got \"%s\"", az[i], z);
    free(z);
  }
  assert_true(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" TD "perf/multi.data', 'max_memory=1048576')") > 0);
  tl_test_db_close(db);
}

/* The SQL of each row of az[][2] fails with a message holding its text. */
static void sql_errors_hold(const char *const az[][2], size_t n){
  sqlite3 *db = tl_test_db();
  size_t i;
  for(i=0; i<n; i++){
    char *z = tl_test_sql_error(db, "%s", az[i][0]);
    if( z==0 || strstr(z, az[i][1])==0 ) fail_msg("%s: got \"%s\"", az[i][0], z ? z : "no error");
    free(z);
  }
  tl_test_db_close(db);
}

static void nul_in_a_path_is_an_error(void **state){
  static const char *const az[][2] = {
    { "SELECT count(*) FROM events('" TD "perf/multi.data' || char(0) || 'x')",
      "the trace path holds a NUL character" },
    { "SELECT count(*) FROM events('" TD "perf/multi.data', 'accel=on' || char(0) || 'x')",
      "the options string holds a NUL character" },
    { "SELECT count(*) FROM trace_files('/tmp/*' || char(0) || 'x')",
      "the pattern holds a NUL character" },
  };
  (void)state;
  sql_errors_hold(az, sizeof(az)/sizeof(az[0]));
}

/* ---- errors reach the caller whole ----------------------------------------- */

static void long_messages_arrive_whole(void **state){
  char zVal[2001];
  TlErr e;
  sqlite3 *db;
  char *z;
  size_t n;
  (void)state;
  memset(zVal, '7', 2000);
  zVal[2000] = 0;
  db = tl_test_db();
  z = tl_test_sql_error(db, "SELECT count(*) FROM events('" TD "perf/multi.data', 'max_memory=%s')", zVal);
  assert_non_null(z);
  assert_true(strlen(z) > 2000);
  assert_non_null(strstr(z, zVal));
  assert_non_null(strstr(z, ": expected a whole number of MiB from 1 to 1048576"));
  free(z);
  tl_test_db_close(db);
  /* past the buffer a message is cut and says so */
  tl_err_clear(&e);
  assert_int_equal(tl_err_set(&e, TL_EIO, TL_NO_OFFSET, "%09000d", 1), TL_EIO);
  n = strlen(e.zMsg);
  assert_int_equal(n, TL_ERR_MSG - 1);
  assert_string_equal(e.zMsg + n - 3, "...");
}

/*
** A cap is an error with its message, not SQLITE_NOMEM: Python raises
** sqlite3.OperationalError naming the file, not a bare MemoryError.
** /dev/zero is read as a stream up to the 256 MiB cap on non-regular files.
*/
static void limit_error_reaches_python_as_operational_error(void **state){
  static const char zScript[] =
    "import sqlite3, sys\n"
    "c = sqlite3.connect(':memory:')\n"
    "c.enable_load_extension(True)\n"
    "c.load_extension(sys.argv[1])\n"
    "try:\n"
    "    c.execute(\"SELECT count(*) FROM events('/dev/zero')\").fetchall()\n"
    "    print('no error')\n"
    "except sqlite3.Error as e:\n"
    "    print(type(e).__name__ + ': ' + str(e))\n"
    "except MemoryError as e:\n"
    "    print('MemoryError: ' + str(e))\n";
  char zPy[512], zCmd[1200], zOut[1024];
  FILE *f;
  size_t n;
  (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  printf("[     SKIP ] %s: a sanitizer build cannot be loaded by python3\n", __func__);
  skip();
#endif
  if( access(TL_PYTHON, X_OK)!=0 ){
    printf("[     SKIP ] %s: " TL_PYTHON " is not installed\n", __func__);
    skip();
  }
  snprintf(zPy, sizeof(zPy), "%s/limit.py", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPy, zScript, sizeof(zScript)-1), 0);
  snprintf(zCmd, sizeof(zCmd), "'%s' '%s' '" TL_BUILD_DIR "/tracelite'", TL_PYTHON, zPy);
  f = popen(zCmd, "r");
  assert_non_null(f);
  n = fread(zOut, 1, sizeof(zOut)-1, f);
  zOut[n] = 0;
  assert_int_equal(pclose(f), 0);
  if( strstr(zOut, "OperationalError: /dev/zero: ")!=zOut
   || strstr(zOut, "the limit for non-regular files")==0 ){
    fail_msg("python printed: %s", zOut);
  }
}

/* ---- files changed under a scan ----------------------------------------- */

enum { CHG_TRUNCATE, CHG_REWRITE, CHG_COPY_OVER };

typedef struct Change Change;
struct Change {
  const char *zFile;              /* the file to change */
  int eHow;                       /* CHG_* */
};

/* Change p->zFile as p->eHow says (on a thread of its own). */
static void *change_run(void *pArg){
  const Change *p = pArg;
  size_t n = 0;
  uint8_t *a = tl_test_read_file(p->zFile, &n);
  int fd;
  assert_non_null(a);
  if( p->eHow==CHG_TRUNCATE ){
    assert_int_equal(truncate(p->zFile, (off_t)(n/2)), 0);
  }else{
    fd = open(p->zFile, O_WRONLY | (p->eHow==CHG_COPY_OVER ? O_TRUNC : 0));
    assert_true(fd>=0);
    assert_int_equal(write(fd, a, n), (ssize_t)n);
    close(fd);
  }
  free(a);
  return 0;
}

/* Copy file zFrom to zTo, its modification time an hour back. */
static void copy_aged(const char *zFrom, const char *zTo){
  size_t n = 0;
  void *a = tl_test_read_file(zFrom, &n);
  struct timespec ts[2];
  assert_non_null(a);
  assert_int_equal(tl_test_write_file(zTo, a, n), 0);
  free(a);
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= 3600;
  ts[1] = ts[0];
  assert_int_equal(utimensat(AT_FDCWD, zTo, ts, 0), 0);
}

/*
** Scan zTrace one row at a time; after the first, change zFile (part of
** it) as eHow says on another thread; the scan must end with an error
** naming the file.
*/
static void scan_with_change(const char *zTrace, const char *zFile, int eHow){
  sqlite3 *db = tl_test_db();
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("SELECT ts, name FROM events('%q', 'accel=off')", zTrace);
  Change chg;
  pthread_t th;
  int rc, nRow = 1;
  assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
  assert_int_equal(sqlite3_step(pStmt), SQLITE_ROW);
  chg.zFile = zFile;
  chg.eHow = eHow;
  assert_int_equal(pthread_create(&th, 0, change_run, &chg), 0);
  pthread_join(th, 0);
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ) nRow++;
  if( rc!=SQLITE_ERROR || strstr(sqlite3_errmsg(db), "changed while it was read")==0 ){
    fail_msg("%s, change %d: after %d rows, rc %d: %s", zTrace, eHow, nRow, rc,
             sqlite3_errmsg(db));
  }
  assert_non_null(strstr(sqlite3_errmsg(db), zFile + strlen(tl_test_tmpdir())));
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  tl_test_db_close(db);
}

/* Every change to a copy of single-file trace zFrom under a scan. */
static void single_file_changes(const char *zFrom, const char *zExt){
  int eHow;
  for(eHow=CHG_TRUNCATE; eHow<=CHG_COPY_OVER; eHow++){
    char zTo[512];
    snprintf(zTo, sizeof(zTo), "%s/changed-%d.%s", tl_test_tmpdir(), eHow, zExt);
    copy_aged(zFrom, zTo);
    scan_with_change(zTo, zTo, eHow);
  }
}

static void changed_perf_file_ends_the_scan(void **state){
  (void)state;
  single_file_changes(TD "perf/multi.data", "data");
}

static void changed_xray_log_ends_the_scan(void **state){
  (void)state;
  single_file_changes(TD "xray/fdr-O2.xray", "xray");
}

static void changed_cpel_file_ends_the_scan(void **state){
  (void)state;
  single_file_changes(TD "cpel/demo.cpel", "cpel");
}

/* A CTF trace: its largest stream file changes. */
static void changed_ctf_stream_ends_the_scan(void **state){
  static const char *const az[] = { "metadata", "chan_a_0", "chan_a_1", "chan_b_0", "chan_b_1" };
  int eHow;
  size_t k;
  (void)state;
  for(eHow=CHG_TRUNCATE; eHow<=CHG_COPY_OVER; eHow++){
    char zDir[512], zFrom[512], zTo[600];
    snprintf(zDir, sizeof(zDir), "%s/changed-ctf-%d", tl_test_tmpdir(), eHow);
    assert_int_equal(tl_test_mkdirs(zDir), 0);
    for(k=0; k<sizeof(az)/sizeof(az[0]); k++){
      snprintf(zFrom, sizeof(zFrom), TD "ctf/ust-multi/ust/uid/0/64-bit/%s", az[k]);
      snprintf(zTo, sizeof(zTo), "%s/%s", zDir, az[k]);
      copy_aged(zFrom, zTo);
    }
    snprintf(zTo, sizeof(zTo), "%s/chan_a_0", zDir);
    scan_with_change(zDir, zTo, eHow);
  }
}

/*
** Changes in an index build. The test binary's file source calls
** tl_test_poll_hook before every window read (and every other poll); the
** hook below changes a file at the nPoll-th call. Each place is tried in
** turn, from the first read after the open-time stat until the trace
** opens (index built) and scans before the hook's turn comes.
*/
typedef struct HookChange HookChange;
struct HookChange {
  Change chg;                     /* what to change, and how */
  int nLeft;                      /* polls before the change; <0: done */
};
static HookChange hookChg;

static void change_at_poll(void){
  if( hookChg.nLeft<0 || hookChg.nLeft-- > 0 ) return;
  hookChg.nLeft = -1;
  change_run(&hookChg.chg);
}

/*
** Each row of table iTable of p (columns mCols) given to xRow, which
** returns TL_OK to go on. TL_DONE at the end, else xRow's code or the
** scan's error (in pErr).
*/
static int scan_rows(TlTrace *p, int iTable, uint64_t mCols,
                     int (*xRow)(TlQuery*, const TlRow*, void*), void *pArg, TlErr *pErr){
  TlQuery *q = 0;
  TlFilter f;
  TlRow r;
  int rc;
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  f.mCols = mCols;
  rc = tl_query_open(p, iTable, &f, &q, pErr);
  memset(&r, 0, sizeof(r));
  while( rc==TL_OK && (rc = tl_query_next(q, &r))==TL_ROW ) rc = xRow(q, &r, pArg);
  if( rc<0 && q ) *pErr = *tl_query_err(q);
  tl_query_close(q);
  return rc;
}

/* A row's rowid and time into the hash at pArg. */
static int hash_row(TlQuery *q, const TlRow *r, void *pArg){
  uint64_t *pnHash = pArg;
  int64_t iRowid = 0;
  int rc = tl_query_rowid(q, r, 0, &iRowid);
  *pnHash = (*pnHash + 1) * 1000003u ^ (uint64_t)iRowid;
  if( r->a[TL_EV_TS].t==TL_INT ) *pnHash = *pnHash * 31u ^ (uint64_t)r->a[TL_EV_TS].i;
  return rc;
}

/* All rows of table iTable of p: TL_DONE with a hash of their rowids and times, or an error. */
static int scan_all(TlTrace *p, int iTable, uint64_t *pnHash, TlErr *pErr){
  return scan_rows(p, iTable, 0, hash_row, pnHash, pErr);
}

#define SCAN_STOP 100               /* an xRow of scan_rows() has seen enough */

/* SCAN_STOP when warning r says that file pArg changed while it was read. */
static int change_warning_row(TlQuery *q, const TlRow *r, void *pArg){
  const TlVal *v = &r->a[TL_TW_MESSAGE];
  char z[1024];
  (void)q;
  snprintf(z, sizeof(z), "%.*s", v->t==TL_TEXT ? (int)v->n : 0, v->t==TL_TEXT ? v->z : "");
  return strstr(z, "changed while it was read") && strstr(z, (const char*)pArg) ? SCAN_STOP : TL_OK;
}

/* Does a warning of p say that a file named zName changed while it was read? */
static int warned_of_change(TlTrace *p, const char *zName){
  TlErr e;
  tl_err_clear(&e);
  return scan_rows(p, TL_TAB_WARNINGS, (uint64_t)1<<TL_TW_MESSAGE, change_warning_row,
                   (void*)(uintptr_t)zName, &e)==SCAN_STOP;
}

/*
** A case of open_with_change_everywhere(): the trace zFrom (a file, or a
** directory of az[] files) and the file changed, zChange of az[] or the
** trace itself; or, with zAuxFrom, a file the options name, copied to
** zAuxTo (zOpts names it); table iTable is scanned.
*/
typedef struct ChangeCase ChangeCase;
struct ChangeCase {
  const char *zFrom;
  const char *const *az; int nAz;
  const char *zChange;
  const char *zAuxFrom, *zAuxTo, *zOpts;
  int iTable;
};

/*
** Open (and scan) a fresh copy of c's trace, file zFile changed at poll
** nPoll; -1: never, -2: before the open.
*/
static int open_changed(const ChangeCase *c, const char *zTrace, const char *zFile, int eHow,
                        int nPoll, uint64_t *pnHash, int *pbWarned, TlErr *pErr){
  char zA[700], zB[700];
  TlTrace *p = 0;
  int k, rc;
  for(k=0; k<c->nAz; k++){                     /* a fresh copy, aged */
    snprintf(zA, sizeof(zA), "%s/%s", c->zFrom, c->az[k]);
    snprintf(zB, sizeof(zB), "%s/%s", zTrace, c->az[k]);
    copy_aged(zA, zB);
  }
  if( c->nAz==0 ) copy_aged(c->zFrom, zTrace);
  if( c->zAuxFrom ) copy_aged(c->zAuxFrom, c->zAuxTo);
  tl_trace_cache_clear();
  hookChg.chg.zFile = zFile;
  hookChg.chg.eHow = eHow;
  hookChg.nLeft = nPoll;
  if( nPoll>=0 ) tl_test_poll_hook = change_at_poll;
  if( nPoll==-2 ) change_run(&hookChg.chg);     /* changed before the open */
  tl_err_clear(pErr);
  *pnHash = 0;
  rc = tl_trace_open(zTrace, c->zOpts, &p, pErr);
  if( rc==TL_OK ) rc = scan_all(p, c->iTable, pnHash, pErr);
  tl_test_poll_hook = 0;
  *pbWarned = rc==TL_DONE && warned_of_change(p, c->zChange);
  tl_trace_release(p);
  return rc;
}

/*
** Open copies of c's trace with its file changed as eHow says at every
** place of the open (the index build) and the scan after it in turn: each
** must end in "changed while it was read" naming the file (an error, or a
** warning for a file symbols come from), never a crash, or give the rows
** of the trace as it was before the change (a file read whole before it,
** as CTF metadata) or as it is after (a change before the file was opened,
** in a directory's search).
*/
static void open_with_change_everywhere(const ChangeCase *c, int eHow){
  char zTrace[512], zFile[700];
  int nPoll, bWarned, nSaid = 0;
  uint64_t nHashOld = 0, nHash, nHash2;
  TlErr e, e2;
  snprintf(zTrace, sizeof(zTrace), "%s/index-%d-%s", tl_test_tmpdir(), eHow, c->zChange);
  if( c->zAuxFrom ) snprintf(zFile, sizeof(zFile), "%s", c->zAuxTo);
  else if( c->nAz ) snprintf(zFile, sizeof(zFile), "%s/%s", zTrace, c->zChange);
  else snprintf(zFile, sizeof(zFile), "%s", zTrace);
  if( c->nAz ) assert_int_equal(tl_test_mkdirs(zTrace), 0);
  assert_int_equal(open_changed(c, zTrace, zFile, eHow, -1, &nHashOld, &bWarned, &e), TL_DONE);
  for(nPoll=0; nPoll<4096; nPoll++){
    int rc = open_changed(c, zTrace, zFile, eHow, nPoll, &nHash, &bWarned, &e), rc2;
    if( hookChg.nLeft>=0 ){                     /* the change came after all */
      if( rc!=TL_DONE ) fail_msg("%s unchanged: rc %d: %s", zTrace, rc, e.zMsg);
      assert_true(nSaid>0);
      printf("%s: changed at each of %d places, %d said so\n",
             zFile + strlen(tl_test_tmpdir()) + 1, nPoll, nSaid);
      return;
    }
    if( (rc==TL_EIO && strstr(e.zMsg, "changed while it was read") && strstr(e.zMsg, c->zChange))
     || (rc==TL_DONE && bWarned) ){
      nSaid++;
      continue;
    }
    if( rc==TL_DONE && nHash==nHashOld ) continue;
    rc2 = open_changed(c, zTrace, zFile, eHow, -2, &nHash2, &bWarned, &e2);  /* changed first */
    if( rc!=rc2 || (rc==TL_DONE ? nHash!=nHash2 : strcmp(e.zMsg, e2.zMsg)!=0) ){
      fail_msg("%s, change %d at poll %d: rc %d: %s; read again: rc %d: %s",
               zFile, eHow, nPoll, rc, e.zMsg, rc2, e2.zMsg);
    }
  }
  fail_msg("%s: more than 4096 polls", zTrace);
}

static void changed_during_index_builds(void **state){
  static const char *const azCtf[] = { "metadata", "chan_a_0", "chan_a_1", "chan_b_0", "chan_b_1" };
  static const char *const azDir[] = { "data", "data.0", "data.1" };
  static const char *const azBig[] = { "metadata", "chan_0", "chan_1" };
  const char *zCtf = TD "ctf/ust-multi/ust/uid/0/64-bit";
  const char *zBig = tl_test_ctf_dir_big();    /* counts read its packets in parts */
  const ChangeCase aCase[] = {
    { TD "perf/multi.data", 0, 0, "index.data", 0, 0, 0, TL_TAB_EVENTS },
    { TD "xray/fdr-O2.xray", 0, 0, "index.xray", 0, 0, 0, TL_TAB_EVENTS },
    { TD "cpel/demo.cpel", 0, 0, "index.cpel", 0, 0, 0, TL_TAB_EVENTS },
    { zCtf, azCtf, 5, "chan_a_0", 0, 0, 0, TL_TAB_EVENTS },
    { zCtf, azCtf, 5, "metadata", 0, 0, 0, TL_TAB_EVENTS },
    { zBig, azBig, 3, "chan_0", 0, 0, 0, TL_TAB_EVENTS },
    { TD "perf/dir/thr.data", azDir, 3, "data.1", 0, 0, 0, TL_TAB_EVENTS },
    { TD "perf/dir/thr.data", azDir, 3, "data", 0, 0, 0, TL_TAB_EVENTS },
  };
  int eHow;
  size_t k;
  (void)state;
  for(eHow=CHG_TRUNCATE; eHow<=CHG_COPY_OVER; eHow++){
    for(k=0; k<sizeof(aCase)/sizeof(aCase[0]); k++) open_with_change_everywhere(&aCase[k], eHow);
  }
}

/*
** ELF files read for a query: XRay's binary= (read as the trace opens)
** and a file under symfs= that --call-graph dwarf stacks unwind through
** (read, and given to libdw, during the callchains scan). Changed at every
** read: an error or a warning naming the file, never SIGBUS.
*/
static void changed_binaries_end_in_errors_or_warnings(void **state){
  char zBin[512], zSymfs[512], zProg[600], zOptsX[600], zOptsP[1200];
  int eHow;
  (void)state;
  snprintf(zBin, sizeof(zBin), "%s/changed-app.elf", tl_test_tmpdir());
  snprintf(zOptsX, sizeof(zOptsX), "binary=%s", zBin);
  snprintf(zSymfs, sizeof(zSymfs), "%s/changed-symfs", tl_test_tmpdir());
  snprintf(zProg, sizeof(zProg), "%s/tmp/tracelite-dwarf", zSymfs);
  assert_int_equal(tl_test_mkdirs(zProg), 0);
  snprintf(zProg, sizeof(zProg), "%s/tmp/tracelite-dwarf/c-O2", zSymfs);
  snprintf(zOptsP, sizeof(zOptsP), "symfs=%s,kallsyms=" TD "perf/dwarf/kallsyms", zSymfs);
  for(eHow=CHG_TRUNCATE; eHow<=CHG_COPY_OVER; eHow++){
    const ChangeCase x = { TD "xray/fdr-O2.xray", 0, 0, "changed-app.elf", TD "xray/app-O2.map.elf",
                           zBin, zOptsX, TL_TAB_EVENTS };
    const ChangeCase pf = { TD "perf/dwarf/c-O2.data", 0, 0, "c-O2", TD "perf/dwarf/symfs/tmp/tracelite-dwarf/c-O2",
                            zProg, zOptsP, TL_TAB_CALLCHAINS };
    open_with_change_everywhere(&x, eHow);
    open_with_change_everywhere(&pf, eHow);
  }
}

/* mmap=on gives the same rows (by mapping); a value but on/off is an error. */
static void mmap_option_is_an_opt_in(void **state){
  static const char *const az[] = {
    TD "perf/multi.data", TD "xray/fdr-O2.xray", TD "cpel/demo.cpel", TD "ctf/ust-multi",
  };
  sqlite3 *db = tl_test_db();
  char *z;
  size_t k;
  (void)state;
  for(k=0; k<sizeof(az)/sizeof(az[0]); k++){
    assert_int_equal(
        tl_test_sql_int(db, "SELECT count(*) FROM events('%s', 'mmap=on')", az[k]),
        tl_test_sql_int(db, "SELECT count(*) FROM events('%s')", az[k]));
  }
  z = tl_test_sql_error(db, "SELECT count(*) FROM events('%s', 'mmap=yes')", az[0]);
  assert_non_null(z);
  assert_non_null(strstr(z, "mmap=yes: expected on or off"));
  free(z);
  tl_test_db_close(db);
}

/* Readers on four threads while a fifth truncates and rewrites the file. */
typedef struct Stress Stress;
struct Stress {
  const char *zPath;
  int bStop;                      /* set when the writer is done */
  int nErr, nOk;                  /* queries that failed (as expected), ended */
  char zBad[512];                 /* an error that is not the expected one */
  pthread_mutex_t mu;
};

static void *stress_reader(void *pArg){
  Stress *p = pArg;
  sqlite3 *db = tl_test_db();
  for(;;){
    sqlite3_stmt *pStmt = 0;
    char *zSql;
    int rc, bStop;
    pthread_mutex_lock(&p->mu);
    bStop = p->bStop;
    pthread_mutex_unlock(&p->mu);
    if( bStop ) break;
    zSql = sqlite3_mprintf("SELECT count(*), sum(cpu) FROM events('%q')", p->zPath);
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    if( rc==SQLITE_OK ) while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
    pthread_mutex_lock(&p->mu);
    if( rc==SQLITE_DONE ){
      p->nOk++;
    }else{
      const char *z = sqlite3_errmsg(db);
      p->nErr++;
      /* the file as it was at open may be cut short, empty or damaged */
      if( strstr(z, "changed while it was read")==0 && strstr(z, "empty file")==0
       && strstr(z, "offset")==0 && p->zBad[0]==0 ){
        snprintf(p->zBad, sizeof(p->zBad), "%s", z);
      }
    }
    pthread_mutex_unlock(&p->mu);
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
  }
  tl_test_db_close(db);
  return 0;
}

static void readers_survive_a_writer_copying_over_the_file(void **state){
  Stress st;
  pthread_t aTh[4];
  char zPath[512];
  int i, k;
  (void)state;
  memset(&st, 0, sizeof(st));
  pthread_mutex_init(&st.mu, 0);
  snprintf(zPath, sizeof(zPath), "%s/stress.data", tl_test_tmpdir());
  copy_aged(TD "perf/multi.data", zPath);
  st.zPath = zPath;
  for(i=0; i<4; i++) assert_int_equal(pthread_create(&aTh[i], 0, stress_reader, &st), 0);
  for(k=0; k<200; k++){
    Change chg;
    chg.zFile = zPath;
    chg.eHow = k%3;
    if( chg.eHow==CHG_TRUNCATE ) copy_aged(TD "perf/multi.data", zPath);
    else change_run(&chg);
    usleep(1000);
  }
  pthread_mutex_lock(&st.mu);
  st.bStop = 1;
  pthread_mutex_unlock(&st.mu);
  for(i=0; i<4; i++) pthread_join(aTh[i], 0);
  if( st.zBad[0] ) fail_msg("unexpected error: %s", st.zBad);
  assert_true(st.nOk + st.nErr > 0);
  print_message("stress: %d queries answered, %d ended in an error\n", st.nOk, st.nErr);
  pthread_mutex_destroy(&st.mu);
}

/* ---- sqlite3_interrupt() ------------------------------------------------- */

/*
** A basic-mode XRay log (version 1, 1 GHz) of nRec 32-byte records written
** to zPath: function 1 entered and left in turn on threads 1-4 (runs of
** 100), TSC i for record i.
*/
static void write_big_xray(const char *zPath, size_t nRec){
  FILE *f = fopen(zPath, "wb");
  uint8_t a[32*1024];
  size_t i, n = 0;
  assert_non_null(f);
  memset(a, 0, 32);
  a[0] = 1; a[4] = 3;                          /* version 1, type 0, constant TSC */
  for(i=0; i<8; i++) a[8+i] = (uint8_t)(1000000000ull >> (8*i));
  assert_int_equal(fwrite(a, 1, 32, f), 32);
  for(i=0; i<nRec; i++){
    uint8_t *r = a + n;
    int k;
    memset(r, 0, 32);
    r[3] = (uint8_t)(i & 1);                   /* enter, exit */
    r[4] = 1;                                  /* function 1 */
    for(k=0; k<8; k++) r[8+k] = (uint8_t)((uint64_t)i >> (8*k));
    r[16] = (uint8_t)(1 + (i/100)%4);          /* thread */
    n += 32;
    if( n==sizeof(a) || i+1==nRec ){
      assert_int_equal(fwrite(a, 1, n, f), n);
      n = 0;
    }
  }
  assert_int_equal(fclose(f), 0);
}

typedef struct Intr Intr;
struct Intr {
  sqlite3 *db;
  const char *zSql;
  int rc;                         /* the last sqlite3_step() */
  double tEnd;                    /* when it returned */
  int bStarted;
  pthread_mutex_t mu;
};

static double mono_now(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec/1e9;
}

static void *intr_run(void *pArg){
  Intr *p = pArg;
  sqlite3_stmt *pStmt = 0;
  int rc;
  pthread_mutex_lock(&p->mu);
  p->bStarted = 1;
  pthread_mutex_unlock(&p->mu);
  rc = sqlite3_prepare_v2(p->db, p->zSql, -1, &pStmt, 0);
  if( rc==SQLITE_OK ) while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  p->tEnd = mono_now();
  p->rc = rc;
  sqlite3_finalize(pStmt);
  return 0;
}

/*
** Run zSql on another thread, sqlite3_interrupt() it after msWait ms: it
** must end with SQLITE_INTERRUPT within 100 ms of the call.
*/
static void interrupt_after(sqlite3 *db, const char *zSql, int msWait){
  Intr it;
  pthread_t th;
  double tInt;
  int bStarted = 0;
  memset(&it, 0, sizeof(it));
  pthread_mutex_init(&it.mu, 0);
  it.db = db;
  it.zSql = zSql;
  assert_int_equal(pthread_create(&th, 0, intr_run, &it), 0);
  while( !bStarted ){
    usleep(1000);
    pthread_mutex_lock(&it.mu);
    bStarted = it.bStarted;
    pthread_mutex_unlock(&it.mu);
  }
  usleep((useconds_t)msWait*1000);
  tInt = mono_now();
  sqlite3_interrupt(db);
  pthread_join(th, 0);
  pthread_mutex_destroy(&it.mu);
  /* (in planning, the statement fails to prepare: SQLITE_ERROR "interrupted") */
  if( it.rc!=SQLITE_INTERRUPT
   && !(it.rc==SQLITE_ERROR && strcmp(sqlite3_errmsg(db), "interrupted")==0) ){
    fail_msg("%s: ended with %d (%s), not SQLITE_INTERRUPT: done within %d ms?",
             zSql, it.rc, sqlite3_errmsg(db), msWait);
  }
  if( it.tEnd - tInt > 0.1 ){
    fail_msg("%s: interrupted after %.0f ms", zSql, (it.tEnd - tInt)*1e3);
  }
  print_message("%s: interrupted in %.1f ms\n", zSql, (it.tEnd - tInt)*1e3);
}

/* An index build (the first query on a 128 MiB log) and a scan of it. */
static void interrupt_ends_index_builds_and_scans(void **state){
  char zPath[512];
  char *zSql;
  sqlite3 *db = tl_test_db();
  (void)state;
  snprintf(zPath, sizeof(zPath), "%s/big-basic.xray", tl_test_tmpdir());
  write_big_xray(zPath, (size_t)4<<20);
  zSql = sqlite3_mprintf("SELECT count(*) FROM events('%q')", zPath);
  interrupt_after(db, zSql, 100);              /* in its index build */
  sqlite3_free(zSql);
  /* indexed now; no record is of that type: the reader reads them all */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('%s') WHERE rowid=-1", zPath), 0);
  zSql = sqlite3_mprintf("SELECT count(*) FROM events('%q') WHERE type = 'custom-event'", zPath);
  interrupt_after(db, zSql, 20);               /* (counted on two threads: under 100 ms) */
  sqlite3_free(zSql);
  tl_test_db_close(db);
  unlink(zPath);
}

/*
** A CTF trace in zDir of two streams of nPkt copies of one 64 KiB packet
** of events with a sequence (which the count plans do not skip: every
** event decoded), for a GROUP BY name long enough to interrupt. bBegin:
** each packet has a timestamp_begin (all 0), so the index knows when each
** packet starts.
*/
static void write_big_ctf(const char *zDir, int nPkt, int bBegin){
  char zMeta[1200];
  int s, k;
  snprintf(zMeta, sizeof(zMeta),
    "/* CTF 1.8 */\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "clock { name = c; freq = 1000000000; };\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := tstamp;\n"
    "trace { major = 1; minor = 8; byte_order = le;\n"
    "  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
    "stream { id = 0; packet.context := struct { %s uint64_t content_size; uint64_t packet_size; };\n"
    "  event.header := struct { uint32_t id; }; };\n"
    "stream { id = 1; packet.context := struct { %s uint64_t content_size; uint64_t packet_size; };\n"
    "  event.header := struct { uint32_t id; }; };\n"
    "event { name = \"s\"; id = 0; stream_id = 0; fields := struct { uint32_t n; uint32_t q[n]; }; };\n"
    "event { name = \"s\"; id = 0; stream_id = 1; fields := struct { uint32_t n; uint32_t q[n]; }; };\n",
    bBegin ? "tstamp timestamp_begin;" : "", bBegin ? "tstamp timestamp_begin;" : "");
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(s=0; s<2; s++){
    char zPath[600];
    CtfW w;
    FILE *f;
    uint64_t iSizes;
    ctfw_init(&w, 0);
    ctfw_uint(&w, 8, 32, 0xC1FC1FC1);
    ctfw_uint(&w, 8, 32, (uint64_t)s);             /* stream_id */
    if( bBegin ) ctfw_uint(&w, 8, 64, 0);          /* timestamp_begin */
    iSizes = w.iBit;
    ctfw_uint(&w, 8, 64, 0);                       /* content_size, patched */
    ctfw_uint(&w, 8, 64, 0);                       /* packet_size, patched */
    while( ctfw_bytes(&w) + 16 <= 65536 ){
      ctfw_uint(&w, 8, 32, 0);                     /* id */
      ctfw_uint(&w, 8, 32, 2);                     /* n */
      ctfw_uint(&w, 8, 32, 1);
      ctfw_uint(&w, 8, 32, 2);
    }
    ctfw_patch(&w, iSizes, 64, w.iBit);
    ctfw_patch(&w, iSizes + 64, 64, w.iBit);
    snprintf(zPath, sizeof(zPath), "%s/chan_%d", zDir, s);
    f = fopen(zPath, "wb");
    assert_non_null(f);
    for(k=0; k<nPkt; k++) assert_int_equal(fwrite(w.a, 1, ctfw_bytes(&w), f), ctfw_bytes(&w));
    assert_int_equal(fclose(f), 0);
    ctfw_free(&w);
  }
}

/* Remove what write_big_ctf() wrote. */
static void remove_big_ctf(const char *zDir){
  char zPath[600];
  int s;
  for(s=0; s<2; s++){
    snprintf(zPath, sizeof(zPath), "%s/chan_%d", zDir, s);
    unlink(zPath);
  }
  snprintf(zPath, sizeof(zPath), "%s/metadata", zDir);
  unlink(zPath);
  rmdir(zDir);
}

/*
** zSql (a format taking the trace's directory) on a 128 MiB trace of
** write_big_ctf(), its index built first so that the interruption finds
** the scan running: sqlite3_interrupt() stops it within 100 ms.
*/
static void interrupt_big_ctf(const char *zName, int bBegin, const char *zSqlFmt){
  char zDir[512];
  char *zSql;
  sqlite3 *db = tl_test_db();
  snprintf(zDir, sizeof(zDir), "%s/%s", tl_test_tmpdir(), zName);
  write_big_ctf(zDir, 1024, bBegin);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets('%s')", zDir), 2048);
  zSql = sqlite3_mprintf(zSqlFmt, zDir);
  interrupt_after(db, zSql, 100);
  sqlite3_free(zSql);
  tl_test_db_close(db);
  remove_big_ctf(zDir);
}

/*
** GROUP BY name is tallied on the engine's helper threads (one stream
** each): sqlite3_interrupt() stops them within 100 ms too.
*/
static void interrupt_ends_tallies_on_helper_threads(void **state){
  (void)state;
  interrupt_big_ctf("big-ctf", 0, "SELECT name, count(*) FROM events('%q') GROUP BY name");
}

/*
** count(*) of packets whose start the index knows is counted on two
** threads (src/count.c counts ahead on a helper): sqlite3_interrupt()
** stops both within 100 ms, whether the thread giving rows counts or waits.
*/
static void interrupt_ends_counts_ahead(void **state){
  (void)state;
  interrupt_big_ctf("big-ctf-begin", 1, "SELECT count(*) FROM events('%q')");
}

/* A TlPoll that says stop at once. */
static int stop_now(void *pArg){
  (void)pArg;
  return 1;
}

/*
** A CTF search of / (directories without end) and an index build stop
** when the caller's TlPoll says so: "interrupted", with no timing.
*/
static void stop_ends_a_directory_search_and_an_index_build(void **state){
  TlPoll poll, *pPrev;
  TlTrace *p = 0;
  TlErr e;
  (void)state;
  memset(&poll, 0, sizeof(poll));
  poll.xStop = stop_now;
  pPrev = tl_poll_swap(&poll);
  tl_err_clear(&e);
  if( tl_trace_open("/", "format=ctf", &p, &e)!=TL_EINTR ) fail_msg("%d %s", e.rc, e.zMsg);
  assert_string_equal(e.zMsg, "interrupted");
  poll.msNext = 0;
  poll.bStopped = 0;
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(TD "perf/multi.data", "format=perf, max_memory=255", &p, &e), TL_EINTR);
  assert_string_equal(e.zMsg, "interrupted");
  tl_poll_swap(pPrev);
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(TD "perf/multi.data", "format=perf, max_memory=255", &p, &e), TL_OK);
  tl_trace_release(p);
}

/* ---- work bounded by input ----------------------------------------------- */

/*
** A 16 KiB CTF stream of 2048 events, each a sequence of 2^20-1 empty
** structs, cost 10-13 s of decoding: it is refused at once, naming the
** offset. max_fields= caps the fields of one event and is checked.
*/
static void ctf_empty_struct_sequences_are_refused_at_once(void **state){
  static const char zMeta[] = "/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = amplify; fields := struct { integer { size = 64; align = 8; } len;\n"
    "  struct { } empty[len]; }; };\n";
  static const char zMetaB[] = "/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = bytes; fields := struct { integer { size = 64; align = 8; } len;\n"
    "  integer { size = 8; align = 8; } byte[len]; }; };\n";
  sqlite3 *db = tl_test_db();
  char zDir[512];
  char *zErr;
  CtfW w;
  double t0;
  int i;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-amplify", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  ctfw_init(&w, 0);
  for(i=0; i<2048; i++) ctfw_uint(&w, 8, 64, (UINT64_C(1)<<20) - 1);
  assert_int_equal(ctfw_bytes(&w), 16384);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  t0 = mono_now();
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
  assert_non_null(zErr);
  if( strstr(zErr, "stream: offset 8: an event decodes")==0
   || strstr(zErr, "fields of no size repeated are refused")==0 ){
    fail_msg("%s", zErr);
  }
  free(zErr);
  assert_true(mono_now() - t0 < 1.0);
  /* max_fields=: 201 fields (the struct, n, the sequence and its 198) */
  snprintf(zDir, sizeof(zDir), "%s/ctf-fields", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaB), 0);
  ctfw_init(&w, 0);
  ctfw_uint(&w, 8, 64, 198);
  for(i=0; i<198; i++) ctfw_uint(&w, 8, 8, (uint64_t)i);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir), 1);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, 'max_fields=201')", zDir), 1);
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q, 'max_fields=200')", zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "more than 200 fields in one event (max_fields=)"));
  free(zErr);
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q, 'max_fields=0')", zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "max_fields=0: expected a whole number from 1 to 16777216"));
  free(zErr);
  tl_test_db_close(db);
}

/*
** A CTF trace of 1100 stream files, read with at most 512 descriptors:
** streams are opened when read, at most TL_WIN_FDS kept open at once.
*/
static void ctf_more_stream_files_than_descriptors(void **state){
  static const char zMeta[] = "/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = one; fields := struct { integer { size = 32; align = 8; } v; }; };\n";
  sqlite3 *db = tl_test_db();
  struct rlimit rl, rlLow;
  char zDir[512], zName[32];
  int i;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-many-files", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(i=0; i<1100; i++){
    CtfW w;
    ctfw_init(&w, 0);
    ctfw_uint(&w, 8, 32, (uint64_t)i);
    snprintf(zName, sizeof(zName), "stream_%04d", i);
    assert_int_equal(ctfw_save(&w, zDir, zName, ctfw_bytes(&w)), 0);
    ctfw_free(&w);
  }
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
  rlLow = rl;
  if( rlLow.rlim_cur > 512 ) rlLow.rlim_cur = 512;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &rlLow), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir), 1100);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT sum(CAST(args->>'$.v' AS INTEGER)) FROM events(%Q, 'accel=off')", zDir), 1100*1099/2);
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(robust,
  cmocka_unit_test(fifo_without_writer_as_trace_is_an_error),
  cmocka_unit_test(fifo_with_a_late_writer_is_read_whole),
  cmocka_unit_test(fifo_as_binary_or_kallsyms_is_an_error),
  cmocka_unit_test(source_open_refuses_fifos_and_devices),
  cmocka_unit_test(file_read_big_same_bytes),
  cmocka_unit_test(win_read_to_same_bytes),
  cmocka_unit_test(symlink_loop_ends_at_once),
  cmocka_unit_test(proc_self_ends_within_seconds),
  cmocka_unit_test(max_memory_bad_values_are_errors),
  cmocka_unit_test(nul_in_a_path_is_an_error),
  cmocka_unit_test(long_messages_arrive_whole),
  cmocka_unit_test(limit_error_reaches_python_as_operational_error),
  cmocka_unit_test(changed_perf_file_ends_the_scan),
  cmocka_unit_test(changed_xray_log_ends_the_scan),
  cmocka_unit_test(changed_cpel_file_ends_the_scan),
  cmocka_unit_test(changed_ctf_stream_ends_the_scan),
  cmocka_unit_test(changed_during_index_builds),
  cmocka_unit_test(changed_binaries_end_in_errors_or_warnings),
  cmocka_unit_test(readers_survive_a_writer_copying_over_the_file),
  cmocka_unit_test(mmap_option_is_an_opt_in),
  cmocka_unit_test(interrupt_ends_index_builds_and_scans),
  cmocka_unit_test(interrupt_ends_tallies_on_helper_threads),
  cmocka_unit_test(interrupt_ends_counts_ahead),
  cmocka_unit_test(stop_ends_a_directory_search_and_an_index_build),
  cmocka_unit_test(ctf_empty_struct_sequences_are_refused_at_once),
  cmocka_unit_test(ctf_more_stream_files_than_descriptors),
);
