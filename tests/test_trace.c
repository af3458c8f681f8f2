/*
** test_trace.c: file sources, format detection and the trace cache.
*/
#include "tltest.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cpel_writer.h"
#include "ctf_writer.h"
#include "group.h"
#include "trace.h"

/* A small valid CPEL file with nEv events at path zName in the tmpdir. */
static const char *small_cpel(const char *zName, int nEv){
  static const char *const az[] = { "S", "ev" };
  CpelW w;
  const char *z;
  int i;
  cw_init(&w, 0, 2);
  cw_strtab(&w, az, 2, 0);
  cw_sec_begin(&w, 5);
  cw_name(&w, "S");
  cw_u32(&w, (uint32_t)nEv);
  cw_u32(&w, 1000000000);
  for(i=0; i<nEv; i++) cw_event(&w, (uint64_t)i*10, 0, 1, (uint32_t)i);
  cw_sec_end(&w);
  z = cw_save(&w, zName);
  cw_free(&w);
  return z;
}

static int count_events(TlTrace *p){
  TlQuery *q;
  TlErr e;
  TlRow r;
  TlFilter f;
  int n = 0;
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  tl_err_clear(&e);
  assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, &f, &q, &e), TL_OK);
  while( tl_query_next(q, &r)==TL_ROW ) n++;
  tl_query_close(q);
  return n;
}

static void source_reads_file_and_memory(void **state){
  TlSource *p;
  TlErr e;
  TlWin w;
  TlBytes b;
  const char *zPath = small_cpel("src.cpel", 3);
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_source_open(zPath, &p, &e), TL_OK);
  assert_int_equal(p->nSize, 8 + (8 + 8) + (8 + 72 + 3*20));  /* header, STRTAB "S\0ev\0" padded to 8, EVENTS */
  tl_win_init(&w, p);
  assert_int_equal(tl_win_get(&w, 1, 3, TL_BE, &b, &e), TL_OK);
  assert_int_equal(b.n, 3);
  assert_int_equal(b.a[2], 2);                 /* nsections low byte */
  assert_int_equal(tl_win_get(&w, p->nSize - 2, 100, TL_BE, &b, &e), TL_OK);
  assert_int_equal(b.n, 2);                    /* shorter at the end */
  assert_int_equal(tl_win_get(&w, p->nSize + 5, 4, TL_BE, &b, &e), TL_OK);
  assert_int_equal(b.n, 0);                    /* empty past it */
  tl_win_free(&w);
  tl_source_close(p);
  tl_source_close(0);
  tl_err_clear(&e);
  assert_int_equal(tl_source_open(tl_test_tmpdir(), &p, &e), TL_EMISUSE);
  assert_non_null(strstr(e.zMsg, "is a directory"));
}

/*
** A window of a few bytes inside the bytes held reads nothing; a miss
** reads TL_WIN_AHEAD, twice as many at each miss of a walk onward up to
** TL_WIN_AHEAD_MAX, and TL_WIN_AHEAD again after a jump back; no further
** than a stop (tl_win_stop()) but for the bytes asked for. (The bytes
** held tell: iBufOff and nBuf.)
*/
static void source_window_reads_ahead_of_a_walk(void **state){
  const size_t nFile = 4*TL_WIN_AHEAD_MAX;
  uint8_t *a = malloc(nFile);
  char zPath[512];
  TlSource *p;
  TlErr e;
  TlWin w;
  TlBytes b;
  uint64_t iOff = 0;
  size_t i, nLast = 0;
  (void)state;
  assert_non_null(a);
  for(i=0; i<nFile; i++) a[i] = (uint8_t)(i*7 + i/251);
  snprintf(zPath, sizeof(zPath), "%s/ahead.bin", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, a, nFile), 0);
  tl_err_clear(&e);
  assert_int_equal(tl_source_open(zPath, &p, &e), TL_OK);
  tl_win_init(&w, p);
  assert_int_equal(tl_win_get(&w, 0, 440, TL_LE, &b, &e), TL_OK);
  assert_int_equal(b.n, 440);
  assert_int_equal(w.nBuf, TL_WIN_AHEAD);
  /* records of 440 bytes one after the other, to the end of the file */
  for(iOff=440; iOff<nFile; iOff+=440){
    uint64_t iBuf = w.iBufOff;
    size_t n = nFile - iOff < 440 ? (size_t)(nFile - iOff) : 440;
    int bIn = iOff + n <= w.iBufOff + w.nBuf;
    assert_int_equal(tl_win_get(&w, iOff, 440, TL_LE, &b, &e), TL_OK);
    assert_int_equal(b.n, n);
    assert_memory_equal(b.a, a + iOff, n);
    if( bIn ){
      assert_int_equal(w.iBufOff, iBuf);     /* held: not read again */
    }else{
      assert_int_equal(w.iBufOff, iOff);     /* a miss: more than the last */
      assert_true(w.nBuf >= nLast || iOff + w.nBuf==nFile);
      assert_true(w.nBuf <= TL_WIN_AHEAD_MAX);
    }
    nLast = w.nBuf;
  }
  assert_int_equal(w.nAhead, TL_WIN_AHEAD_MAX);
  /* a jump back: the least again */
  assert_int_equal(tl_win_get(&w, 100, 8, TL_LE, &b, &e), TL_OK);
  assert_memory_equal(b.a, a + 100, 8);
  assert_int_equal(w.iBufOff, 100);
  assert_int_equal(w.nBuf, TL_WIN_AHEAD);
  /* a stop: a miss reads up to it and no further, unless asked for more
  ** (each offset below is past the bytes held before it) */
  tl_win_stop(&w, 300);
  assert_int_equal(tl_win_get(&w, 200000, 8, TL_LE, &b, &e), TL_OK);
  assert_int_equal(w.nBuf, TL_WIN_AHEAD);        /* (a stop behind: none) */
  tl_win_stop(&w, 501000);
  assert_int_equal(tl_win_get(&w, 500000, 8, TL_LE, &b, &e), TL_OK);
  assert_memory_equal(b.a, a + 500000, 8);
  assert_int_equal(w.iBufOff, 500000);
  assert_int_equal(w.nBuf, 1000);
  assert_int_equal(tl_win_get(&w, 500900, 400, TL_LE, &b, &e), TL_OK);
  assert_memory_equal(b.a, a + 500900, 400);
  assert_int_equal(w.nBuf, 400);                 /* the window asked for, whole */
  tl_win_stop(&w, 0);
  assert_int_equal(tl_win_get(&w, 700000, 8, TL_LE, &b, &e), TL_OK);
  assert_int_equal(w.nBuf, TL_WIN_AHEAD);
  tl_win_free(&w);
  tl_source_close(p);
  free(a);
}

/* Byte i of the read-ahead test's file: from its definition alone. */
static uint8_t walk_byte(uint64_t i){
  return (uint8_t)((i * 2654435761u) >> 11);
}

/*
** A walk with a helper reading ahead (tl_win_walk(), from any length here)
** in windows of nWin bytes gets the file's bytes: requests as a record
** walker makes them (each from inside the last window, a record cut at
** its end asked for again), jumps back and forward between them (the ring
** starts again), and the end of the walk. bLate: the helper starts after
** the walk's first read (the window's buffer then swapped for a larger).
*/
static void walk_ahead_check(const uint8_t *a, size_t nFile, TlSource *p, size_t nWin,
                             int bLate){
  uint64_t iOff = 0, nSeen = 0;
  TlWin w;
  TlBytes b;
  TlErr e;
  unsigned seed = 7;
  int nJump = 0, nGet = 0;
  tl_err_clear(&e);
  tl_win_init(&w, p);
  if( bLate ){
    assert_int_equal(tl_win_get(&w, 0, 4096, TL_LE, &b, &e), TL_OK);
    assert_memory_equal(b.a, a, b.n);
  }
  assert_int_equal(tl_win_walk(&w, 0, nFile, nWin), 1);
  while( iOff < nFile ){
    size_t nStep;
    seed = seed*1103515245u + 12345u;
    if( ++nGet % 7==0 ){          /* a jump: back or on, then the walk goes on */
      uint64_t iTo = ((uint64_t)(seed>>8) * 4099) % nFile;
      assert_int_equal(tl_win_get(&w, iTo, 4096, TL_LE, &b, &e), TL_OK);
      assert_memory_equal(b.a, a + iTo, b.n);
      nJump++;
    }
    assert_int_equal(tl_win_get(&w, iOff, nWin, TL_LE, &b, &e), TL_OK);
    assert_int_equal(b.n, nWin < nFile - iOff ? nWin : nFile - iOff);
    assert_memory_equal(b.a, a + iOff, b.n);
    nSeen += b.n;
    /* records of 8 to 400 bytes until one is cut by the window's end */
    for(nStep=0; ; ){
      size_t nRec = 8 + (seed>>4) % 393;
      seed = seed*1103515245u + 12345u;
      if( nStep + nRec > b.n ) break;
      nStep += nRec;
    }
    iOff += nStep ? nStep : b.n;
  }
  assert_true(nJump > 0);
  assert_true(nSeen > nFile);
  tl_win_free(&w);
}

/*
** The read-ahead walks above in windows of 256 KiB (four slots) and 1 MiB
** (two), the helper started before the first read and after it; then the
** file cut short, or written over with the same bytes, under a walk ends
** it with "changed while it was read", never a crash or bytes that are
** not the file's.
*/
static void win_walk_ahead_gives_the_files_bytes(void **state){
  const size_t nFile = (size_t)5<<20;
  uint64_t nWalk = tl_win_walk_bytes, iOff;
  char zPath[512];
  uint8_t *a = malloc(nFile);
  TlSource *p = 0;
  TlWin w;
  TlBytes b;
  TlErr e;
  struct timeval aTime[2];
  size_t i;
  int rc = TL_OK, k;
  (void)state;
  assert_non_null(a);
  gettimeofday(&aTime[0], 0);
  aTime[0].tv_sec -= 3600;
  aTime[1] = aTime[0];
  for(i=0; i<nFile; i++) a[i] = walk_byte(i);
  snprintf(zPath, sizeof(zPath), "%s/walk-ahead.bin", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, a, nFile), 0);
  tl_err_clear(&e);
  assert_int_equal(tl_source_open(zPath, &p, &e), TL_OK);
  tl_win_walk_bytes = 0;
  walk_ahead_check(a, nFile, p, 256<<10, 0);
  walk_ahead_check(a, nFile, p, 256<<10, 1);
  walk_ahead_check(a, nFile, p, 1<<20, 0);
  walk_ahead_check(a, nFile, p, 1<<20, 1);

  /* rewritten in place (the same bytes, a new time), then cut short,
  ** halfway through a walk */
  for(k=0; k<2; k++){
    if( k==1 ){
      assert_int_equal(utimes(zPath, aTime), 0);    /* (an hour back: a rewrite is seen) */
      tl_source_close(p);
      assert_int_equal(tl_source_open(zPath, &p, &e), TL_OK);
    }
    tl_win_init(&w, p);
    assert_int_equal(tl_win_walk(&w, 0, nFile, 256<<10), 1);
    for(iOff=0; iOff < nFile; iOff += 200<<10){
      if( iOff >= nFile/2 && iOff < nFile/2 + (200<<10) ){
        if( k==0 ) assert_int_equal(truncate(zPath, nFile/3), 0);
        else assert_int_equal(tl_test_write_file(zPath, a, nFile), 0);
      }
      rc = tl_win_get(&w, iOff, 256<<10, TL_LE, &b, &e);
      if( rc ) break;
      assert_memory_equal(b.a, a + iOff, b.n);
    }
    assert_int_equal(rc, TL_EIO);
    assert_non_null(strstr(e.zMsg, "changed while it was read"));
    tl_win_free(&w);
    if( k==0 ) assert_int_equal(tl_test_write_file(zPath, a, nFile), 0);
  }
  tl_source_close(p);
  tl_win_walk_bytes = nWalk;
  free(a);
}

typedef struct FifoArg { const char *zFifo; const char *zFrom; } FifoArg;

static void *fifo_writer(void *pArg){
  FifoArg *a = pArg;
  size_t n;
  void *p = tl_test_read_file(a->zFrom, &n);
  FILE *f = fopen(a->zFifo, "wb");
  if( f && p ) fwrite(p, 1, n, f);
  if( f ) fclose(f);
  free(p);
  return 0;
}

static void source_reads_a_fifo_once(void **state){
  char zFifo[512];
  pthread_t th;
  FifoArg arg;
  TlTrace *p;
  TlErr e;
  (void)state;
  arg.zFrom = small_cpel("fifo-src.cpel", 25);
  snprintf(zFifo, sizeof(zFifo), "%s/trace.fifo", tl_test_tmpdir());
  unlink(zFifo);
  assert_int_equal(mkfifo(zFifo, 0600), 0);
  arg.zFifo = zFifo;
  assert_int_equal(pthread_create(&th, 0, fifo_writer, &arg), 0);
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zFifo, 0, &p, &e), TL_OK);
  pthread_join(th, 0);
  assert_string_equal(p->pReader->zName, "cpel");
  assert_int_equal(count_events(p), 25);
  tl_trace_release(p);
  assert_int_equal(tl_trace_cache_count(), 0);  /* a FIFO is never cached */
}

static void cache_shares_and_refreshes(void **state){
  TlTrace *p1, *p2, *p3, *p4;
  TlErr e;
  const char *zPath;
  (void)state;
  tl_trace_cache_clear();
  zPath = small_cpel("cache1.cpel", 10);
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zPath, 0, &p1, &e), TL_OK);
  assert_int_equal(tl_trace_open(zPath, "", &p2, &e), TL_OK);
  assert_ptr_equal(p1, p2);                     /* same file, same options */
  assert_int_equal(tl_trace_open(zPath, "cpel_clock=per_us", &p3, &e), TL_OK);
  assert_ptr_not_equal(p1, p3);                 /* options are part of the key */
  assert_int_equal(tl_trace_cache_count(), 2);
  tl_trace_release(p1);
  tl_trace_release(p2);
  tl_trace_release(p3);
  assert_int_equal(tl_trace_cache_count(), 2);  /* kept for reuse */
  zPath = small_cpel("cache1.cpel", 11);        /* the file changes */
  assert_int_equal(tl_trace_open(zPath, 0, &p4, &e), TL_OK);
  assert_int_equal(count_events(p4), 11);
  tl_trace_release(p4);
  tl_trace_cache_clear();
  assert_int_equal(tl_trace_cache_count(), 0);
}

static void cache_keeps_a_bounded_number(void **state){
  TlErr e;
  int i;
  (void)state;
  tl_trace_cache_clear();
  for(i=0; i<20; i++){
    char zName[32];
    TlTrace *p;
    snprintf(zName, sizeof(zName), "many%d.cpel", i);
    tl_err_clear(&e);
    assert_int_equal(tl_trace_open(small_cpel(zName, i), 0, &p, &e), TL_OK);
    assert_int_equal(count_events(p), i);
    tl_trace_release(p);
  }
  assert_true(tl_trace_cache_count() <= 8);
  tl_trace_cache_clear();
}

static void *open_scan_release(void *pArg){
  const char *zPath = pArg;
  int i;
  for(i=0; i<40; i++){
    TlTrace *p;
    TlErr e;
    tl_err_clear(&e);
    if( tl_trace_open(zPath, 0, &p, &e) ) return (void*)1;
    if( count_events(p)!=30 ){ tl_trace_release(p); return (void*)1; }
    tl_trace_release(p);
    if( i%10==9 ) tl_trace_cache_clear();
  }
  return 0;
}

static void cache_is_shared_by_threads(void **state){
  pthread_t aTh[4];
  char zPath[512];
  int i;
  (void)state;
  snprintf(zPath, sizeof(zPath), "%s", small_cpel("threads.cpel", 30));
  for(i=0; i<4; i++) assert_int_equal(pthread_create(&aTh[i], 0, open_scan_release, zPath), 0);
  for(i=0; i<4; i++){
    void *r;
    pthread_join(aTh[i], &r);
    assert_null(r);
  }
  tl_trace_cache_clear();
}

static void open_mem_detects_and_rejects(void **state){
  TlTrace *p;
  TlErr e;
  static const uint8_t aJunk[64] = { 0x7f, 'E', 'L', 'X' };
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open_mem(aJunk, sizeof(aJunk), 0, &p, &e), TL_EMISUSE);
  assert_non_null(strstr(e.zMsg, "not a trace"));
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open_mem(aJunk, 0, 0, &p, &e), TL_EMISUSE);
  assert_non_null(strstr(e.zMsg, "empty file"));
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open_mem(aJunk, sizeof(aJunk), "format=cpel", &p, &e), TL_EUNSUPPORTED);
  assert_int_equal(e.iOff, 0);
}

static void extension_exports_only_its_entry_point(void **state){
  void *h = dlopen(TL_BUILD_DIR "/tracelite.so", RTLD_NOW | RTLD_LOCAL);
  (void)state;
  assert_non_null(h);
  assert_non_null(dlsym(h, "sqlite3_tracelite_init"));
  assert_null(dlsym(h, "tl_trace_open"));
  assert_null(dlsym(h, "tl_cpel_reader"));
  assert_null(dlsym(h, "tl_bytes_u32"));
  assert_null(dlsym(h, "events_vtab_register"));
  dlclose(h);
}

static void scan_of_a_changed_file_is_a_clear_error(void **state){
  TlTrace *p;
  TlErr e;
  TlQuery *q = 0;
  TlFilter f;
  const char *zPath = small_cpel("changing.cpel", 10);
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zPath, 0, &p, &e), TL_OK);
  small_cpel("changing.cpel", 4);            /* rewritten in place, shorter */
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, &f, &q, &e), TL_EIO);
  assert_non_null(strstr(e.zMsg, "changed while it was read (184 bytes, was 304)"));
  tl_trace_release(p);
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zPath, 0, &p, &e), TL_OK);   /* opened anew */
  assert_int_equal(count_events(p), 4);
  tl_trace_release(p);
  tl_trace_cache_clear();
}

typedef struct SqlThread { const char *zPath; int nBad; } SqlThread;

static void *sql_thread(void *pArg){
  SqlThread *t = pArg;
  sqlite3 *db = tl_test_db();
  int i;
  for(i=0; i<30; i++){
    if( tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts >= %d", t->zPath, i*10)!=30-i ) t->nBad++;
  }
  tl_test_db_close(db);
  return 0;
}

static void connections_in_threads_share_traces(void **state){
  pthread_t aTh[4];
  SqlThread aArg[4];
  char zA[512], zB[512];
  int i;
  (void)state;
  snprintf(zA, sizeof(zA), "%s", small_cpel("shared-a.cpel", 30));
  snprintf(zB, sizeof(zB), "%s", small_cpel("shared-b.cpel", 30));
  for(i=0; i<4; i++){
    aArg[i].zPath = (i%2) ? zA : zB;
    aArg[i].nBad = 0;
    assert_int_equal(pthread_create(&aTh[i], 0, sql_thread, &aArg[i]), 0);
  }
  for(i=0; i<4; i++){
    pthread_join(aTh[i], 0);
    assert_int_equal(aArg[i].nBad, 0);
  }
}

/*
** "name|count" lines of the per-name counts in testdata/ctf/NAME.counts.txt
** (counted from babeltrace2's output, sorted by name as strcmp sorts these
** names): malloc'd.
*/
static char *ctf_reference_names(const char *zName){
  char zPath[1024], zLine[512], *zOut;
  size_t n = 0;
  FILE *f;
  snprintf(zPath, sizeof(zPath), "%s/ctf/%s.counts.txt", TL_TESTDATA_DIR, zName);
  f = fopen(zPath, "r");
  assert_non_null(f);
  zOut = calloc(1, 4096);
  assert_non_null(zOut);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zEv[256];
    long long c;
    if( sscanf(zLine, "name %255s %lld", zEv, &c)==2 ){
      n += (size_t)snprintf(zOut + n, 4096 - n, "%s%s|%lld", n ? "\n" : "", zEv, c);
      assert_true(n < 4096);
    }
  }
  fclose(f);
  return zOut;
}

typedef struct RowsThread RowsThread;
struct RowsThread {
  const char *zSql;               /* a query of the trace at zDir (%Q) */
  const char *zDir;
  const char *zWant;
  int nBad;
};

static void *rows_thread(void *pArg){
  RowsThread *t = pArg;
  sqlite3 *db = tl_test_db();
  int i;
  for(i=0; i<5; i++){
    char *z = tl_test_sql_rows(db, t->zSql, t->zDir);
    if( z==0 || strcmp(z, t->zWant)!=0 ) t->nBad++;
    free(z);
  }
  tl_test_db_close(db);
  return 0;
}

/* zSql on the trace at zDir, five times in each of two connections at once:
** zWant each time. */
static void in_two_connections(const char *zSql, const char *zDir, const char *zWant){
  pthread_t aTh[2];
  RowsThread aArg[2];
  int i;
  for(i=0; i<2; i++){
    aArg[i].zSql = zSql;
    aArg[i].zDir = zDir;
    aArg[i].zWant = zWant;
    aArg[i].nBad = 0;
    assert_int_equal(pthread_create(&aTh[i], 0, rows_thread, &aArg[i]), 0);
  }
  for(i=0; i<2; i++){
    pthread_join(aTh[i], 0);
    assert_int_equal(aArg[i].nBad, 0);
  }
}

/*
** A CTF count by name splits the streams between two threads (four streams
** here: two each). Queries in two connections at once, so four counting
** threads share the trace; under ThreadSanitizer in `make check`.
*/
static void ctf_count_by_name_on_two_threads(void **state){
  char zDir[1024];
  char *zWant = ctf_reference_names("ust-multi");
  (void)state;
  assert_string_equal(zWant, "tl:ints|600\ntl:tick|600");
  snprintf(zDir, sizeof(zDir), "%s/ctf/ust-multi", TL_TESTDATA_DIR);
  in_two_connections("SELECT name, count(*) FROM events(%Q) GROUP BY name", zDir, zWant);
  free(zWant);
}

/*
** The head of the metadata of the traces below: 32- and 64-bit integers, a
** packet header of magic and stream_id, and stream 0 (packet sizes, event
** ids).
*/
#define CTF_PIPE_META_HEAD \
    "/* CTF 1.8 */\n" \
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n" \
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n" \
    "trace { major = 1; minor = 8; byte_order = le;\n" \
    "  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n" \
    "stream { id = 0; packet.context := struct { uint64_t content_size; uint64_t packet_size; };\n" \
    "  event.header := struct { uint32_t id; }; };\n"

/*
** Begin a packet of stream s in w: magic, stream_id, then content_size and
** packet_size (the packet header and context's first fields of the traces
** below), both patched by ctf_packet_end(). Returns the packet's first bit.
*/
static uint64_t ctf_packet_begin(CtfW *w, int s){
  uint64_t iStart = w->iBit;
  ctfw_uint(w, 8, 32, 0xC1FC1FC1);
  ctfw_uint(w, 8, 32, (uint64_t)s);                /* stream_id */
  ctfw_uint(w, 8, 64, 0);                          /* content_size, patched */
  ctfw_uint(w, 8, 64, 0);                          /* packet_size, patched */
  return iStart;
}

static void ctf_packet_end(CtfW *w, uint64_t iStart){
  ctfw_patch(w, iStart + 64, 64, w->iBit - iStart);
  ctfw_patch(w, iStart + 128, 64, w->iBit - iStart);
}

/* Remove the trace at zDir: its metadata and streams chan_0..chan_<nStm-1>. */
static void ctf_trace_remove(const char *zDir, int nStm){
  char zPath[600];
  int i;
  for(i=-1; i<nStm; i++){
    if( i<0 ) snprintf(zPath, sizeof(zPath), "%s/metadata", zDir);
    else snprintf(zPath, sizeof(zPath), "%s/chan_%d", zDir, i);
    assert_int_equal(unlink(zPath), 0);
  }
  assert_int_equal(rmdir(zDir), 0);
}

/*
** A two-stream trace of nPkt packets a stream, 50 events each, named by
** ctf_pipe_class(): stream 0 has classes "m" (id 0) and "z" (id 1), stream
** 1 has "m" (id 0) and "a" (id 1). Its directory in zDir.
*/
static int ctf_pipe_class(int s, int k, int e){
  return (e*7 + k + s) % 3==0;
}

static void ctf_pipe_trace(char *zDir, size_t nDir, int nPkt){
  static const char zMeta[] =
    CTF_PIPE_META_HEAD
    "stream { id = 1; packet.context := struct { uint64_t content_size; uint64_t packet_size; };\n"
    "  event.header := struct { uint32_t id; }; };\n"
    "event { name = \"m\"; id = 0; stream_id = 0; fields := struct { uint32_t v; }; };\n"
    "event { name = \"z\"; id = 1; stream_id = 0; fields := struct { uint32_t v; }; };\n"
    "event { name = \"m\"; id = 0; stream_id = 1; fields := struct { uint32_t v; }; };\n"
    "event { name = \"a\"; id = 1; stream_id = 1; fields := struct { uint32_t v; }; };\n";
  int s;
  snprintf(zDir, nDir, "%s/ctf-pipe-%d", tl_test_tmpdir(), nPkt);
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(s=0; s<2; s++){
    char zFile[32];
    CtfW w;
    int k, e;
    ctfw_init(&w, 0);
    for(k=0; k<nPkt; k++){
      uint64_t iStart = ctf_packet_begin(&w, s);
      for(e=0; e<50; e++){
        ctfw_uint(&w, 8, 32, (uint64_t)ctf_pipe_class(s, k, e));
        ctfw_uint(&w, 8, 32, (uint64_t)e);
      }
      ctf_packet_end(&w, iStart);
    }
    snprintf(zFile, sizeof(zFile), "chan_%d", s);
    assert_int_equal(ctfw_save(&w, zDir, zFile, ctfw_bytes(&w)), 0);
    ctfw_free(&w);
  }
}

/* GROUP BY name through the engine's grouping, with the name column only. */
static TlGroup *by_name_group(TlTrace *p){
  TlGroup *g = 0;
  TlFilter f;
  TlFilterCols cols;
  TlErr e;
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  f.mCols = (uint64_t)1 << TL_EV_NAME;
  memset(&cols, 0, sizeof(cols));
  cols.iTs = TL_EV_TS; cols.iCpu = TL_EV_CPU; cols.iKey = -1; cols.iType = TL_EV_TYPE;
  tl_err_clear(&e);
  assert_int_equal(tl_group_open(p, TL_TAB_EVENTS, TL_EV_NCOL, &f, &cols, f.mCols, &g, &e), TL_OK);
  return g;
}

/* The index of row r's name in azName[0..n), failing the test if none. */
static int row_name(const TlRow *r, const char *const *azName, int n){
  int i;
  assert_int_equal(r->a[TL_EV_NAME].t, TL_TEXT);
  for(i=0; i<n; i++){
    if( r->a[TL_EV_NAME].n==strlen(azName[i])
     && memcmp(r->a[TL_EV_NAME].z, azName[i], r->a[TL_EV_NAME].n)==0 ) return i;
  }
  fail_msg("row of an unknown name");
  return -1;
}

/*
** GROUP BY name is tallied per packet by the reader on the engine's helper
** threads (one stream each): a name's rows together (the first name's as
** the helpers count it, the others' once the count is whole), each name's
** adding up to the events written of it. A row's rowid is that of an
** event of its name. Twenty times over, and as many queries left after
** their first row (ASan and ThreadSanitizer in `make check`).
*/
static void ctf_count_by_name_rows_come_as_counted(void **state){
  static const char *const azName[] = { "a", "m", "z" };
  char zDir[512];
  int64_t aWant[3] = { 0, 0, 0 };
  TlTrace *p;
  TlErr e;
  int s, k, i, iRound;
  (void)state;
  ctf_pipe_trace(zDir, sizeof(zDir), 40);
  for(s=0; s<2; s++){
    for(k=0; k<40; k++){
      for(i=0; i<50; i++){
        int bOne = ctf_pipe_class(s, k, i);
        aWant[bOne ? (s==0 ? 2 : 0) : 1]++;
      }
    }
  }
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zDir, 0, &p, &e), TL_OK);
  for(iRound=0; iRound<20; iRound++){
    int64_t aGot[3] = { 0, 0, 0 };
    int mSeen = 0, iPrev = -1, rc;
    TlGroup *g = by_name_group(p);
    TlRow r;
    memset(&r, 0, sizeof(r));
    while( (rc = tl_group_next(g, &r))==TL_ROW ){
      int64_t n = r.nRepeat>1 ? r.nRepeat : 1, iRowid;
      int j = row_name(&r, azName, 3);
      /* a name's rows come together: once it is left, it is not back */
      assert_false((mSeen & (1<<j)) && j!=iPrev);
      mSeen |= 1<<j;
      iPrev = j;
      aGot[j] += n;
      /* the rowid of an event of that name: packet << 28 | event */
      assert_int_equal(tl_group_rowid(g, 0, &iRowid), TL_OK);
      assert_true(iRowid>=0 && (iRowid >> 28) < 80 && (iRowid & 0xFFFFFFF) < 50);
      k = (int)(iRowid >> 28);
      i = ctf_pipe_class(k/40, k%40, (int)(iRowid & 0xFFFFFFF));
      assert_int_equal(i ? (k<40 ? 2 : 0) : 1, j);
    }
    assert_int_equal(rc, TL_DONE);
    for(i=0; i<3; i++) assert_int_equal(aGot[i], aWant[i]);
    assert_true(tl_group_tallied(g));
    tl_group_close(g);
    /* left after its first row */
    g = by_name_group(p);
    assert_int_equal(tl_group_next(g, &r), TL_ROW);
    assert_true(row_name(&r, azName, 3)>=0);
    tl_group_close(g);
  }
  tl_trace_release(p);
  tl_trace_cache_clear();
  ctf_trace_remove(zDir, 2);
}

/*
** A stream class without event classes whose stream holds events: a count
** by name has no name to give, yet fails as a scan does, naming the class
** id its helpers met (two packets: a helper thread each).
*/
static void ctf_count_by_name_without_names_still_fails(void **state){
  static const char zMeta[] =
    CTF_PIPE_META_HEAD;
  sqlite3 *db = tl_test_db();
  char zDir[512], *zScan, *zByName;
  CtfW w;
  int k, e;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-no-names", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  ctfw_init(&w, 0);
  for(k=0; k<2; k++){
    uint64_t iStart = ctf_packet_begin(&w, 0);
    for(e=0; e<4; e++) ctfw_uint(&w, 8, 32, 7);        /* id 7: no such class */
    ctf_packet_end(&w, iStart);
  }
  assert_int_equal(ctfw_save(&w, zDir, "chan_0", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  zScan = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q) WHERE text IS NOT NULL", zDir);
  zByName = tl_test_sql_error(db, "SELECT name, count(*) FROM events(%Q) GROUP BY name", zDir);
  assert_non_null(zScan);
  assert_non_null(zByName);
  assert_non_null(strstr(zScan, "event of class id 7"));
  assert_non_null(strstr(zByName, "event of class id 7"));
  assert_non_null(strstr(zByName, "chan_0"));
  free(zScan);
  free(zByName);
  ctf_trace_remove(zDir, 1);
  tl_test_db_close(db);
}

/*
** xray_calls GROUP BY func_id matches the calls of half the log's threads
** on a second thread (fdr.xray: three threads): the same as SQLite's own
** grouping (GROUP BY +func_id, read in one pass), in two connections at
** once; under ThreadSanitizer in `make check`.
*/
static void xray_grouped_calls_on_two_threads(void **state){
  static const char zCols[] = "func_id, count(*), count(dur), min(dur), max(dur), sum(dur)";
  char zLog[1024], zSql[256];
  sqlite3 *db = tl_test_db();
  char *zWant;
  (void)state;
  snprintf(zLog, sizeof(zLog), "%s/xray/fdr.xray", TL_TESTDATA_DIR);
  zWant = tl_test_sql_rows(db, "SELECT %s FROM xray_calls(%Q) GROUP BY +func_id", zCols, zLog);
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM tracks(%Q)", zLog) >= 2);
  assert_true(strlen(zWant) > 20);
  snprintf(zSql, sizeof(zSql), "SELECT %s FROM xray_calls(%%Q) GROUP BY func_id", zCols);
  in_two_connections(zSql, zLog, zWant);
  free(zWant);
  tl_test_db_close(db);
}

/*
** A stream whose packet context needs more field buffers than max_memory=
** allows fails the count by name on whichever thread counts it: stream 0 is
** this thread's, stream 1 the second thread's. The error names its file.
** (Such a context is also longer than the first bytes the packet index
** reads of a header: the index reads it again whole.)
*/
static void ctf_count_by_name_error_on_either_thread(void **state){
  static const char zMeta[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "trace { major = 1; minor = 8; byte_order = le;\n"
    "  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
    "stream { id = 0; packet.context := struct { uint64_t content_size; uint64_t packet_size;\n"
    "  uint8_t pad[%d]; }; event.header := struct { uint32_t id; }; };\n"
    "stream { id = 1; packet.context := struct { uint64_t content_size; uint64_t packet_size;\n"
    "  uint8_t pad[%d]; }; event.header := struct { uint32_t id; }; };\n"
    "event { name = \"a\"; id = 0; stream_id = 0; fields := struct { uint32_t v; }; };\n"
    "event { name = \"b\"; id = 0; stream_id = 1; fields := struct { uint32_t v; }; };\n";
  sqlite3 *db = tl_test_db();
  int iBig;
  (void)state;
  for(iBig=0; iBig<2; iBig++){
    char zDir[512], zText[2048], zFile[64], *z;
    int s;
    snprintf(zDir, sizeof(zDir), "%s/ctf-bigctx-%d", tl_test_tmpdir(), iBig);
    /* 40000 nodes of field buffers (over 1 MiB) for the big one's context */
    snprintf(zText, sizeof(zText), zMeta, iBig==0 ? 40000 : 1, iBig==1 ? 40000 : 1);
    assert_int_equal(ctfw_save_text(zDir, "metadata", zText), 0);
    for(s=0; s<2; s++){
      int nPad = s==iBig ? 40000 : 1, k, e;
      CtfW w;
      ctfw_init(&w, 0);
      for(k=0; k<3; k++){
        uint64_t iStart = ctf_packet_begin(&w, s);
        for(e=0; e<nPad; e++) ctfw_uint(&w, 8, 8, 0);
        for(e=0; e<10; e++){
          ctfw_uint(&w, 8, 32, 0);                       /* id */
          ctfw_uint(&w, 8, 32, (uint64_t)e);             /* v */
        }
        ctf_packet_end(&w, iStart);
      }
      snprintf(zFile, sizeof(zFile), "chan_%d", s);
      assert_int_equal(ctfw_save(&w, zDir, zFile, ctfw_bytes(&w)), 0);
      ctfw_free(&w);
    }
    /* within the default max_memory, both threads count */
    z = tl_test_sql_rows(db, "SELECT * FROM (SELECT name, count(*) FROM events(%Q) "
                             "GROUP BY name) ORDER BY 1", zDir);
    assert_string_equal(z, "a|30\nb|30");
    free(z);
    z = tl_test_sql_error(db, "SELECT name, count(*) FROM events(%Q, 'max_memory=1') GROUP BY name", zDir);
    assert_non_null(z);
    snprintf(zFile, sizeof(zFile), "chan_%d", iBig);
    assert_non_null(strstr(z, zFile));
    assert_null(strstr(z, iBig ? "chan_0" : "chan_1"));
    assert_non_null(strstr(z, "max_memory="));
    free(z);
    {
      /* through the engine's grouping: the error before any row */
      static const char *const azAB[] = { "a", "b" };
      TlTrace *p;
      TlGroup *g;
      TlRow r;
      TlErr e;
      int64_t nA = 0;
      int rc;
      tl_err_clear(&e);
      assert_int_equal(tl_trace_open(zDir, "max_memory=1", &p, &e), TL_OK);
      g = by_name_group(p);
      memset(&r, 0, sizeof(r));
      while( (rc = tl_group_next(g, &r))==TL_ROW ){
        assert_int_equal(row_name(&r, azAB, 2), 0);
        nA += r.nRepeat>1 ? r.nRepeat : 1;
      }
      assert_true(rc<0);
      assert_non_null(strstr(tl_group_err(g)->zFile, zFile));
      assert_int_equal(nA, 0);
      tl_group_close(g);
      tl_trace_release(p);
      tl_trace_cache_clear();
    }
    /* (gone again: other tests expect no trace below the test directory) */
    ctf_trace_remove(zDir, 2);
  }
  tl_test_db_close(db);
}

/* (tests/test_accel.c: also here, the group make threads runs under ThreadSanitizer) */
void accel_counts_ahead_equal_the_events_written(void **state);
void accel_counts_the_index_answers_start_no_helper(void **state);

TL_DEFINE_GROUP(trace,
  cmocka_unit_test(scan_of_a_changed_file_is_a_clear_error),
  cmocka_unit_test(connections_in_threads_share_traces),
  cmocka_unit_test(ctf_count_by_name_on_two_threads),
  cmocka_unit_test(ctf_count_by_name_rows_come_as_counted),
  cmocka_unit_test(ctf_count_by_name_without_names_still_fails),
  cmocka_unit_test(ctf_count_by_name_error_on_either_thread),
  cmocka_unit_test(xray_grouped_calls_on_two_threads),
  cmocka_unit_test(extension_exports_only_its_entry_point),
  cmocka_unit_test(source_reads_file_and_memory),
  cmocka_unit_test(source_window_reads_ahead_of_a_walk),
  cmocka_unit_test(win_walk_ahead_gives_the_files_bytes),
  cmocka_unit_test(source_reads_a_fifo_once),
  cmocka_unit_test(cache_shares_and_refreshes),
  cmocka_unit_test(cache_keeps_a_bounded_number),
  cmocka_unit_test(cache_is_shared_by_threads),
  cmocka_unit_test(open_mem_detects_and_rejects),
  cmocka_unit_test(accel_counts_ahead_equal_the_events_written),
  cmocka_unit_test(accel_counts_the_index_answers_start_no_helper),
);
