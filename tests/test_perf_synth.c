/*
** test_perf_synth.c: the perf.data reader on files cut short, damaged or
** written here: what perf on this machine cannot record (the other byte
** order, CPU runs of chosen lengths, callchains longer than their
** samples), truncation at every point, a pipe read from a FIFO, and the
** files the fuzzer found. Expected values come from the bytes written
** (the format's definition) or from perf's outputs for the source files.
*/
#include "tltest.h"

#include <pthread.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "group.h"
#include "perf/perf_scan.h"

#define PERF_DIR TL_TESTDATA_DIR "/perf/"

static void perf_cut_file_keeps_complete_records(void **state){
  sqlite3 *db = tl_test_db();
  int64_t iCut;
  char *z;
  (void)state;
  iCut = tl_test_sql_int(db, "SELECT offset FROM trace_warnings('" PERF_DIR "cut.data') WHERE message LIKE 'record of type%%'");
  assert_true(iCut>0);
  z = tl_test_sql_text(db, "SELECT message FROM trace_warnings('" PERF_DIR "cut.data') WHERE offset=%lld", iCut);
  assert_non_null(strstr(z, "cut short by the end of the data"));
  free(z);
  /* every record before the cut, exactly as in the whole file */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "cut.data')"),
                   tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "cpu-clock-g.data') WHERE rowid < %lld", iCut));
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" PERF_DIR "cut.data') a JOIN events('" PERF_DIR "cpu-clock-g.data') b "
      "ON a.rowid=b.rowid WHERE a.ts IS b.ts AND a.type=b.type AND a.ip IS b.ip AND a.callchain IS b.callchain"),
      tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "cut.data')"));
  tl_test_db_close(db);
}


/*
** Every test file cut at a spread of points (and just before and after each
** record header of the first chunk): each prefix gives rows then a clean
** end or a clean error, never a crash, and never more SAMPLE rows than the
** whole file has.
*/
static void perf_truncation_sweep(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  char zCut[512];
  (void)state;
  /* every recording in testdata/perf */
  static const char *const azFiles[] = {
    "cpu-clock-g", "multi", "zstd", "pipe", "sched", "switch", "dwarf", "reuse", "neigh", "sym/sym"
  };
  snprintf(zCut, sizeof(zCut), "%s/perf-cut.data", tl_test_tmpdir());
  for(k=0; k<sizeof(azFiles)/sizeof(azFiles[0]); k++){
    char zFull[512];
    size_t n, nCut, nStep;
    uint8_t *a;
    int64_t nFullSamples;
    snprintf(zFull, sizeof(zFull), PERF_DIR "%s.data", azFiles[k]);
    a = tl_test_read_file(zFull, &n);
    assert_non_null(a);
    nFullSamples = tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='SAMPLE'", zFull);
    nStep = n/40 + 1;
    for(nCut=0; nCut<n; nCut += (nCut<1024 ? 29 : nStep)){
      sqlite3_stmt *pStmt;
      char *zSql;
      int rc, nRow = 0, nSample = 0;
      assert_int_equal(tl_test_write_file(zCut, a, nCut), 0);
      zSql = sqlite3_mprintf("SELECT type, args, text, callchain, track, "
                             "(SELECT count(*) FROM tracks(%Q)) FROM events(%Q)", zCut, zCut);
      rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
      sqlite3_free(zSql);
      assert_int_equal(rc, SQLITE_OK);
      while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
        nRow++;
        if( strcmp((const char*)sqlite3_column_text(pStmt, 0), "SAMPLE")==0 ) nSample++;
      }
      rc = sqlite3_finalize(pStmt);
      if( rc!=SQLITE_OK ){
        /* a clean error names the file */
        assert_non_null(strstr(sqlite3_errmsg(db), "perf-cut.data"));
      }
      assert_true(nSample <= nFullSamples);
    }
    free(a);
  }
  tl_test_db_close(db);
}

/* perf record -o - | ...: a pipe-mode file read from a FIFO, through SQL */
typedef struct FifoFeed FifoFeed;
struct FifoFeed { const char *zFifo; const char *zFrom; };

static void *fifo_feed(void *pArg){
  FifoFeed *p = pArg;
  size_t n;
  void *a = tl_test_read_file(p->zFrom, &n);
  FILE *f = fopen(p->zFifo, "wb");
  if( f && a ) fwrite(a, 1, n, f);
  if( f ) fclose(f);
  free(a);
  return 0;
}

static void perf_pipe_mode_from_a_fifo(void **state){
  sqlite3 *db = tl_test_db();
  char zFifo[512];
  FifoFeed feed;
  pthread_t th;
  int64_t nFile;
  (void)state;
  nFile = tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "pipe.data') WHERE type='SAMPLE'");
  snprintf(zFifo, sizeof(zFifo), "%s/perf.fifo", tl_test_tmpdir());
  unlink(zFifo);
  assert_int_equal(mkfifo(zFifo, 0600), 0);
  feed.zFifo = zFifo;
  feed.zFrom = PERF_DIR "pipe.data";
  assert_int_equal(pthread_create(&th, 0, fifo_feed, &feed), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='SAMPLE'", zFifo), nFile);
  pthread_join(th, 0);
  unlink(zFifo);
  tl_test_db_close(db);
}

/* ---- synthetic files: the other byte order, corruption ------------------- */

typedef struct PW PW;
struct PW { uint8_t a[1<<18]; size_t n; int bBig; };
static int nSynthRun = 0;     /* perf_synth: samples per CPU run (0: alternate) */
static int nSynthRound = 0;   /* perf_synth: samples per round (0: one round) */
static int iSynthLate = -1;   /* perf_synth: the sample of time tsSynthLate (-1: none) */
static int nSynthTid = 2;     /* perf_synth: the samples' threads, 43 on */
static uint64_t tsSynthLate = 0;

static void pw_put(PW *w, uint64_t v, int nByte){
  int i;
  for(i=0; i<nByte; i++){
    int sh = w->bBig ? 8*(nByte-1-i) : 8*i;
    w->a[w->n++] = (uint8_t)(v>>sh);
  }
}

/*
** A file-mode perf.data with one attr (cpu-clock, sample_type
** IP|TID|TIME|ID|CPU|PERIOD, sample_id_all), ids {7}, a COMM with its
** trailer, nSample samples (ip 0x1000+i, pid 42, tid 43+i%nSynthTid, time
** 1000*(i+1), cpu i%2 or (i/nSynthRun)%2, period 10+i) and a FINISHED_ROUND;
** with nSynthRound, a FINISHED_ROUND after every nSynthRound samples, and
** the samples of CPU 1 1700 ns earlier than that (out of file order within
** a round, as perf's rounds are).
*/
static size_t perf_synth(PW *w, int bBig, int nSample){
  size_t iData, iAttr = 104, iIds;
  uint64_t st = 1|2|4|64|128|256;      /* IP TID TIME ID CPU PERIOD */
  int i;
  memset(w, 0, sizeof(*w));
  w->bBig = bBig;
  if( bBig ) memcpy(w->a, "2ELIFREP", 8); else memcpy(w->a, "PERFILE2", 8);
  w->n = 8;
  pw_put(w, 104, 8);                   /* header size */
  pw_put(w, 64+8+16, 8);               /* attr_size: a 72-byte attr + ids section */
  pw_put(w, iAttr, 8); pw_put(w, 88, 8);
  iIds = iAttr + 88;
  iData = iIds + 8;
  pw_put(w, iData, 8); pw_put(w, 0, 8);   /* data size patched below */
  pw_put(w, 0, 8); pw_put(w, 0, 8);
  pw_put(w, 0, 8); pw_put(w, 0, 8); pw_put(w, 0, 8); pw_put(w, 0, 8);
  /* attr */
  pw_put(w, 1, 4); pw_put(w, 72, 4); pw_put(w, 0, 8); pw_put(w, 100, 8);
  pw_put(w, st, 8); pw_put(w, 0, 8);
  {
    /* flags: sample_id_all is bit 18 of the bitfield word; big-endian
    ** producers number bitfield bits from the top of each byte */
    uint64_t flags = (uint64_t)1<<18;
    if( bBig ){
      uint8_t b = (uint8_t)(flags>>16);  /* byte 2 holds bits 16..23 */
      uint8_t r = 0;
      int k;
      for(k=0; k<8; k++) if( b & (1<<k) ) r |= (uint8_t)(0x80>>k);
      memset(w->a + w->n, 0, 8);
      w->a[w->n+2] = r;
      w->n += 8;
    }else{
      pw_put(w, flags, 8);
    }
  }
  pw_put(w, 0, 4); pw_put(w, 0, 4); pw_put(w, 0, 8); pw_put(w, 0, 8);
  pw_put(w, iIds, 8); pw_put(w, 8, 8);
  pw_put(w, 7, 8);                     /* the id */
  /* COMM + trailer (TID TIME ID CPU) */
  pw_put(w, 3, 4); pw_put(w, 0, 2); pw_put(w, 8+8+8+32, 2);
  pw_put(w, 42, 4); pw_put(w, 43, 4);
  memcpy(w->a + w->n, "synth\0\0\0", 8); w->n += 8;
  pw_put(w, 42, 4); pw_put(w, 43, 4); pw_put(w, 500, 8); pw_put(w, 7, 8);
  pw_put(w, 0, 4); pw_put(w, 0, 4);
  for(i=0; i<nSample; i++){
    pw_put(w, 9, 4); pw_put(w, 1, 2); pw_put(w, 8+6*8, 2);
    pw_put(w, 0x1000+(uint64_t)i, 8);
    pw_put(w, 42, 4); pw_put(w, (uint64_t)(43+i%nSynthTid), 4);
    pw_put(w, i==iSynthLate ? tsSynthLate : 1000*(uint64_t)(i+1) - (nSynthRound && i%2 ? 1700 : 0), 8);
    pw_put(w, 7, 8);
    pw_put(w, (uint64_t)(nSynthRun ? (i/nSynthRun)%2 : i%2), 4); pw_put(w, 0, 4);
    pw_put(w, 10+(uint64_t)i, 8);
    if( nSynthRound && (i+1)%nSynthRound==0 && i+1<nSample ){
      pw_put(w, 68, 4); pw_put(w, 0, 2); pw_put(w, 8, 2);
    }
  }
  pw_put(w, 68, 4); pw_put(w, 0, 2); pw_put(w, 8, 2);
  {
    size_t nSave = w->n;
    w->n = 48;
    pw_put(w, nSave - iData, 8);
    w->n = nSave;
  }
  return iData;
}

static const char *pw_save(PW *w, const char *zName){
  static char z[4][512];
  static int i = 0;
  char *zPath = z[i++ % 4];
  snprintf(zPath, 512, "%s/%s", tl_test_tmpdir(), zName);
  assert_int_equal(tl_test_write_file(zPath, w->a, w->n), 0);
  return zPath;
}

/*
** A file whose CPUs write long runs, as perf writes its per-CPU buffers:
** the index has a chunk per run, and cpu = 1 reads only the chunks of CPU 1
** (and gives what the file holds: samples 1500..2999, periods 10+i).
*/
static void perf_cpu_runs_are_chunks_a_cpu_filter_skips(void **state){
  static PW w;
  sqlite3 *db = tl_test_db();
  const char *zPath;
  (void)state;
  nSynthRun = 1500;                    /* 1500 samples of 56 bytes: past 64 KiB */
  perf_synth(&w, 0, 4500);
  nSynthRun = 0;
  zPath = pw_save(&w, "cpu-runs.data");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q) "
                                       "WHERE args->>'$.cpus' IN ('[0]', '[1]')", zPath), 3);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu = 1", zPath), 1500);
  assert_int_equal(tl_test_sql_int(db, "SELECT sum(value) FROM events(%Q) WHERE cpu = 1", zPath),
                   1500*10 + (1500+2999)*1500/2);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu IN (0, 1) AND type='SAMPLE'", zPath), 4500);
  /* the two chunks of CPU 0 were never read: cpu = 1 skips them, cpu IN
  ** (0, 1) counts them from the index; the chunk of CPU 1 was read by the
  ** sum of values alone (the counts take the index's) */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q) "
                                       "WHERE args->>'$.cpus' = '[0]' AND args->>'$.reads' = 0", zPath), 2);
  assert_int_equal(tl_test_sql_int(db, "SELECT min(args->>'$.reads') FROM packets(%Q) "
                                       "WHERE args->>'$.cpus' = '[1]'", zPath), 1);
  tl_test_db_close(db);
}

/*
** GROUP BY comm, tallied per chunk on the engine's helper threads: only
** thread 43 is named (its COMM: "synth"); perf names a thread never named
** ":TID" (perf report --sort comm), so 44, 45 and 46 are three commands,
** though their names are of one length. As SQL, with and without
** accel=off, and through the engine's grouping, which the tallies made.
*/
static void perf_unnamed_threads_are_commands_apart(void **state){
  static PW w;
  static const char *const azComm[] = { ":44", ":45", ":46", "synth" };
  static const char zWant[] = ":44=1125 :45=1125 :46=1125 synth=1125";
  sqlite3 *db = tl_test_db();
  const char *zPath;
  int64_t aGot[4] = { 0, 0, 0, 0 };
  TlGroup *g = 0;
  TlFilter f;
  TlFilterCols cols;
  TlTrace *p;
  TlErr e;
  TlRow r;
  char *z;
  int i, rc;
  (void)state;
  nSynthRun = 1500;                    /* three chunks: both helpers tally */
  nSynthTid = 4;
  perf_synth(&w, 0, 4500);
  nSynthRun = 0;
  nSynthTid = 2;
  zPath = pw_save(&w, "unnamed.data");
  z = tl_test_sql_text(db, "SELECT group_concat(comm || '=' || n, ' ') FROM (SELECT comm, count(*) AS n "
                           "FROM events(%Q) WHERE type = 'SAMPLE' GROUP BY comm ORDER BY comm)", zPath);
  assert_string_equal(z, zWant);
  free(z);
  z = tl_test_sql_text(db, "SELECT group_concat(comm || '=' || n, ' ') FROM (SELECT comm, count(*) AS n "
                           "FROM events(%Q, 'accel=off') WHERE type = 'SAMPLE' GROUP BY comm ORDER BY comm)", zPath);
  assert_string_equal(z, zWant);
  free(z);
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zPath, 0, &p, &e), TL_OK);
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  f.zType = "SAMPLE";
  f.mCols = ((uint64_t)1<<TL_EV_COMM) | ((uint64_t)1<<TL_EV_TYPE);
  memset(&cols, 0, sizeof(cols));
  cols.iTs = TL_EV_TS; cols.iCpu = TL_EV_CPU; cols.iKey = -1; cols.iType = TL_EV_TYPE;
  cols.nType = strlen(f.zType);
  assert_int_equal(tl_group_open(p, TL_TAB_EVENTS, TL_EV_NCOL, &f, &cols,
                                 (uint64_t)1<<TL_EV_COMM, &g, &e), TL_OK);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_group_next(g, &r))==TL_ROW ){
    const TlVal *v = &r.a[TL_EV_COMM];
    assert_int_equal(v->t, TL_TEXT);
    for(i=0; i<4; i++){
      if( v->n==strlen(azComm[i]) && memcmp(v->z, azComm[i], v->n)==0 ) break;
    }
    if( i==4 ) fail_msg("a command of no thread: %.*s", (int)v->n, v->z);
    aGot[i] += r.nRepeat>1 ? r.nRepeat : 1;
  }
  assert_int_equal(rc, TL_DONE);
  assert_true(tl_group_tallied(g));
  for(i=0; i<4; i++) assert_int_equal(aGot[i], 1125);
  tl_group_close(g);
  /* the names a tally keeps are bounded: past them, an error that says so */
  tl_perf_tid_names_max = 2;
  assert_int_equal(tl_group_open(p, TL_TAB_EVENTS, TL_EV_NCOL, &f, &cols,
                                 (uint64_t)1<<TL_EV_COMM, &g, &e), TL_OK);
  while( (rc = tl_group_next(g, &r))==TL_ROW ){}
  tl_perf_tid_names_max = TL_THREADS_MAX;
  assert_int_equal(rc, TL_ELIMIT);
  assert_non_null(strstr(tl_group_err(g)->zMsg, "more than 2 threads never named"));
  tl_group_close(g);
  tl_trace_release(p);
  tl_test_db_close(db);
}

/*
** The index knows the types of each chunk's records: a scan of one type
** reads only the chunks that hold it. The CPU runs' file has its COMM in
** the first of its three chunks, its FINISHED_ROUND in the last: scanned
** (args asked, so not counted), in time order and counted, each type reads
** its chunk alone, and gives what accel=off gives.
*/
static void perf_type_scans_read_only_its_chunks(void **state){
  static PW w;
  static const char *const azQuery[] = {
    "SELECT count(*), sum(rowid), sum(length(args)) FROM events(%Q, %Q) WHERE type = '%s'",
    "SELECT count(*), sum(rowid) FROM (SELECT rowid FROM events(%Q, %Q) WHERE type = '%s' ORDER BY ts)",
    "SELECT count(*) FROM events(%Q, %Q) WHERE type = '%s'",
  };
  static const char *const azType[] = { "COMM", "FINISHED_ROUND" };
  sqlite3 *db = tl_test_db();
  const char *zPath;
  size_t k, t;
  (void)state;
  nSynthRun = 1500;
  perf_synth(&w, 0, 4500);
  nSynthRun = 0;
  zPath = pw_save(&w, "type-chunks.data");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q)", zPath), 3);
  for(t=0; t<2; t++){
    for(k=0; k<3; k++){
      char *zOn, *zOff;
      int64_t nBefore = tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets(%Q) WHERE id != %d",
                                        zPath, t ? 2 : 0);
      if( t==1 && k==1 ) continue;            /* (FINISHED_ROUND has no time) */
      zOn = tl_test_sql_rows(db, azQuery[k], zPath, "", azType[t]);
      assert_int_equal(tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets(%Q) WHERE id != %d",
                                       zPath, t ? 2 : 0), nBefore);
      zOff = tl_test_sql_rows(db, azQuery[k], zPath, "accel=off", azType[t]);
      assert_string_equal(zOn, zOff);
      assert_true(strncmp(zOn, "1|", 2)==0 || strcmp(zOn, "1")==0);
      free(zOn);
      free(zOff);
    }
  }
  tl_test_db_close(db);
}

/* The samples in the time-order merge's order, as SQLite sorts them (+ts). */
static void assert_samples_merge_as_sorted(sqlite3 *db, const char *zPath){
  char *zMerged = tl_test_sql_text(db, "SELECT group_concat(rowid || ':' || ts) FROM "
                                   "(SELECT rowid, ts FROM events(%Q) WHERE type='SAMPLE' ORDER BY ts)", zPath);
  char *zSorted = tl_test_sql_text(db, "SELECT group_concat(rowid || ':' || ts) FROM "
                                   "(SELECT rowid, ts FROM events(%Q) WHERE type='SAMPLE' ORDER BY +ts, rowid)", zPath);
  assert_non_null(zMerged);
  assert_non_null(zSorted);
  assert_string_equal(zMerged, zSorted);
  free(zMerged);
  free(zSorted);
}

/*
** Rounds of a few records (tracepoint recordings end one every dozen
** records or so) share chunks of 64 KiB: 450 rounds of 10 samples (56
** bytes each, 568 bytes a round with its FINISHED_ROUND) in 4 chunks or so,
** not 450. The time-order merge still gives the samples in time order,
** the ones of CPU 1 (1700 ns early) before the CPU 0 sample written ahead
** of them: the rows SQLite sorts itself (+ts), in the same order.
*/
static void perf_small_rounds_share_chunks(void **state){
  static PW w;
  sqlite3 *db = tl_test_db();
  const char *zPath;
  int64_t nChunk;
  (void)state;
  nSynthRound = 10;
  perf_synth(&w, 0, 4500);
  nSynthRound = 0;
  zPath = pw_save(&w, "small-rounds.data");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='FINISHED_ROUND'",
                                   zPath), 450);
  nChunk = tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q)", zPath);
  assert_true(nChunk >= 3 && nChunk <= 5);        /* 255,600 bytes in 64 KiB and more */
  assert_samples_merge_as_sorted(db, zPath);
  /* the first samples in time order: 1 (t 300), 0 (t 1000), 3 (t 2300) */
  assert_int_equal(tl_test_sql_int(db, "SELECT ip FROM events(%Q) WHERE type='SAMPLE' ORDER BY ts LIMIT 1 OFFSET 2",
                                   zPath), 0x1003);
  tl_test_db_close(db);
}

/*
** Each chunk's time range in the index is its records' (the open walk reads
** the usual samples' fields at their offsets): a record is at each end, and
** a window of just that time (pushed down, so chunks are skipped by their
** range) finds what the same test does on every row (+ts, not pushed down).
** Every file of testdata/perf, and long CPU runs in both byte orders.
*/
static void perf_index_times_are_the_records_times(void **state){
  static PW w;
  static const char *const azFile[] = { "cpu-clock-g", "cut", "dwarf", "lost", "multi", "neigh",
                                        "pipe", "reuse", "sched", "switch", "wakeup", "zstd" };
  sqlite3 *db = tl_test_db();
  char zPath[600];
  int k, nChecked = 0;
  (void)state;
  for(k=0; k<(int)(sizeof(azFile)/sizeof(azFile[0])) + 2; k++){
    sqlite3_stmt *pStmt;
    if( k<(int)(sizeof(azFile)/sizeof(azFile[0])) ){
      snprintf(zPath, sizeof(zPath), "%s/perf/%s.data", TL_TESTDATA_DIR, azFile[k]);
    }else{
      nSynthRun = 1500;
      perf_synth(&w, k - (int)(sizeof(azFile)/sizeof(azFile[0])), 4500);
      nSynthRun = 0;
      snprintf(zPath, sizeof(zPath), "%s", pw_save(&w, k%2 ? "runs-be.data" : "runs-le.data"));
      /* every record has a time: so has every chunk (three: a CPU run each) */
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q) WHERE ts_begin IS NOT NULL"
                                           " AND ts_end IS NOT NULL", zPath), 3);
    }
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT ts_begin, ts_end FROM packets(?) WHERE ts_begin IS NOT NULL",
                                        -1, &pStmt, 0), SQLITE_OK);
    sqlite3_bind_text(pStmt, 1, zPath, -1, SQLITE_STATIC);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      int e;
      for(e=0; e<2; e++){
        int64_t t = sqlite3_column_int64(pStmt, e);
        int64_t nAll = tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE +ts = %lld", zPath, (long long)t);
        assert_true(nAll > 0);
        assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts = %lld",
                                         zPath, (long long)t), nAll);
        nChecked++;
      }
    }
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
  }
  assert_true(nChecked >= 2*(int)(sizeof(azFile)/sizeof(azFile[0])));
  tl_test_db_close(db);
}

static void perf_big_endian_reads_like_little_endian(void **state){
  PW w;
  sqlite3 *db = tl_test_db();
  char zLe[512], zBe[512];
  char *zA, *zB;
  (void)state;
  perf_synth(&w, 0, 20);
  snprintf(zLe, sizeof(zLe), "%s", pw_save(&w, "le.data"));
  perf_synth(&w, 1, 20);
  snprintf(zBe, sizeof(zBe), "%s", pw_save(&w, "be.data"));
  zA = tl_test_sql_rows(db, "SELECT type, ts, cpu, pid, tid, name, value, printf('%%x', ip) FROM events(%Q)", zLe);
  zB = tl_test_sql_rows(db, "SELECT type, ts, cpu, pid, tid, name, value, printf('%%x', ip) FROM events(%Q)", zBe);
  assert_string_equal(zA, zB);
  free(zA); free(zB);
  /* and the values are the ones written; the name is what perf 6.1's perf
  ** script prints for an attr that excludes nothing: "cpu-clock:HG" */
  zA = tl_test_sql_rows(db, "SELECT type, ts, cpu, pid, tid, name, value, printf('%%x', ip) FROM events(%Q) LIMIT 3", zBe);
  assert_string_equal(zA, "COMM|500|0|42|43|||0\n"
                          "SAMPLE|1000|0|42|43|cpu-clock:HG|10|1000\n"
                          "SAMPLE|2000|1|42|44|cpu-clock:HG|11|1001");
  free(zA);
  zA = tl_test_sql_rows(db, "SELECT args->>'$.comm', args->>'$.exec' FROM events(%Q) WHERE type='COMM'", zBe);
  assert_string_equal(zA, "synth|0");
  free(zA);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='FINISHED_ROUND'", zBe), 1);
  zA = tl_test_sql_rows(db, "SELECT id, name, events, args->>'$.samples' FROM tracks(%Q) ORDER BY id", zBe);
  assert_string_equal(zA, "43|synth|11|10\n44||10|10");
  free(zA);
  /* Version 1 ("PERFFILE", the same bytes in either order) has version 2's
  ** layout; perf tells the byte order from attr_size. Both orders read alike. */
  {
    char zV1[2][512];
    int bBig;
    for(bBig=0; bBig<2; bBig++){
      perf_synth(&w, bBig, 20);
      memcpy(w.a, "PERFFILE", 8);
      snprintf(zV1[bBig], sizeof(zV1[bBig]), "%s", pw_save(&w, bBig ? "v1be.data" : "v1le.data"));
      zB = tl_test_sql_rows(db, "SELECT type, ts, cpu, pid, tid, name, value, printf('%%x', ip) FROM events(%Q)",
                            zV1[bBig]);
      zA = tl_test_sql_rows(db, "SELECT type, ts, cpu, pid, tid, name, value, printf('%%x', ip) FROM events(%Q)", zLe);
      assert_string_equal(zA, zB);
      free(zA); free(zB);
    }
  }
  tl_test_db_close(db);
}

/*
** cpu-clock-g.data (sample_type IP|TID|TIME|CALLCHAIN, little-endian): its
** first sample, at offset 776 (the first SAMPLE row's rowid), says its
** callchain holds 2^40 addresses. That sample gets a warning and no
** values; the other 827 are read.
*/
static void perf_callchain_longer_than_its_sample(void **state){
  sqlite3 *db = tl_test_db();
  size_t n, iRec = 776;
  uint8_t *a = tl_test_read_file(PERF_DIR "cpu-clock-g.data", &n);
  char zPath[512], zWant[200], *z;
  unsigned nSize;
  int k;
  (void)state;
  assert_non_null(a);
  assert_int_equal(tl_test_sql_int(db, "SELECT min(rowid) FROM events('" PERF_DIR "cpu-clock-g.data') "
                                       "WHERE type='SAMPLE'"), (int)iRec);
  assert_int_equal(a[iRec], 9);                          /* PERF_RECORD_SAMPLE */
  nSize = (unsigned)a[iRec+6] | (unsigned)a[iRec+7]<<8;
  for(k=0; k<8; k++) a[iRec + 8 + 24 + k] = (uint8_t)(((uint64_t)1<<40) >> (8*k));
  snprintf(zPath, sizeof(zPath), "%s/long-chain.data", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, a, n), 0);
  free(a);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='SAMPLE'", zPath), 828);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='SAMPLE' AND ts IS NOT NULL", zPath), 827);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM callchains(%Q) WHERE event=%d", zPath, (int)iRec), 0);
  z = tl_test_sql_text(db, "SELECT offset || ': ' || message FROM trace_warnings(%Q)", zPath);
  assert_non_null(z);
  snprintf(zWant, sizeof(zWant), "%zu: SAMPLE record of %u bytes is shorter than its sample_type needs", iRec, nSize);
  assert_string_equal(z, zWant);
  free(z);
  tl_test_db_close(db);
}

static void perf_corruption_is_a_clear_error(void **state){
  PW w;
  sqlite3 *db = tl_test_db();
  size_t iData;
  const char *zPath;
  char *z;
  (void)state;
  /* a sample whose header.size is 0: an error naming its offset, no hang */
  iData = perf_synth(&w, 0, 5);
  w.a[iData + 56 + 6] = 0;             /* size of the first sample */
  w.a[iData + 56 + 7] = 0;
  zPath = pw_save(&w, "zero.data");
  z = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zPath);
  assert_non_null(z);
  {
    char zWant[200];
    snprintf(zWant, sizeof(zWant), "zero.data: offset %zu: record of type 9 has size 0, less than its 8-byte header", iData + 56);
    assert_non_null(strstr(z, zWant));
  }
  free(z);
  {
    /* the COMM record before the damage is still a row */
    sqlite3_stmt *pStmt;
    char *zSql = sqlite3_mprintf("SELECT type FROM events(%Q)", zPath);
    int nRow = 0;
    assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
    while( sqlite3_step(pStmt)==SQLITE_ROW ) nRow++;
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_CORRUPT);
    assert_int_equal(nRow, 1);
    sqlite3_free(zSql);
  }
  /* a sample too short for its sample_type: a warning, the others read */
  iData = perf_synth(&w, 0, 5);
  w.a[iData + 56 + 6] = 16;            /* 8 bytes of body instead of 48 */
  memmove(w.a + iData + 56 + 16, w.a + iData + 56 + 56, w.n - (iData + 56 + 56));
  w.n -= 40;
  {
    size_t nSave = w.n;
    w.n = 48;
    pw_put(&w, nSave - iData, 8);
    w.n = nSave;
  }
  zPath = pw_save(&w, "short.data");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='SAMPLE' AND ts IS NOT NULL", zPath), 4);
  z = tl_test_sql_text(db, "SELECT offset || ': ' || message FROM trace_warnings(%Q)", zPath);
  assert_non_null(z);
  {
    char zWant[200];
    snprintf(zWant, sizeof(zWant), "%zu: SAMPLE record of 16 bytes is shorter than its sample_type needs", iData + 56);
    assert_string_equal(z, zWant);
  }
  free(z);
  /* a bad magic */
  perf_synth(&w, 0, 1);
  memcpy(w.a, "PERFILE3", 8);
  zPath = pw_save(&w, "magic.data");
  z = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q, 'format=perf')", zPath);
  assert_non_null(strstr(z, "offset 0: expected the perf.data magic"));
  free(z);
  tl_test_db_close(db);
}

/* Files the fuzzer found (testdata/perf/bad/): read without a fault. */
static void perf_fuzz_finds_are_read_cleanly(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* an attribute whose id list is empty (once a qsort of nothing), then a
  ** record of size 0: the records before it, then the error */
  z = tl_test_sql_error(db, "SELECT count(*), sum(length(args)) FROM events('" PERF_DIR "bad/empty-id-list.data')");
  assert_non_null(z);
  assert_non_null(strstr(z, "empty-id-list.data: offset 584: record of type 65671 has size 0, less than its 8-byte header"));
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings('" PERF_DIR "bad/empty-id-list.data') WHERE offset=584"), 1);
  {
    /* the damaged record is the first of the data section (offset 584):
    ** no rows, then the error as SQLITE_CORRUPT */
    sqlite3_stmt *pStmt;
    int nRow = 0;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT type FROM events('" PERF_DIR "bad/empty-id-list.data')", -1, &pStmt, 0), SQLITE_OK);
    while( sqlite3_step(pStmt)==SQLITE_ROW ) nRow++;
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_CORRUPT);
    assert_int_equal(nRow, 0);
    assert_int_equal(tl_test_sql_int(db, "SELECT offset FROM packets('" PERF_DIR "bad/empty-id-list.data')"), 584);
  }
  /* the same, with every column read (args of a sample with no attribute
  ** once took the address of an element of no array) */
  z = tl_test_sql_error(db, "SELECT count(*), sum(length(args)), count(symbol) FROM events('" PERF_DIR "bad/no-attr-args.data')");
  assert_non_null(z);
  assert_non_null(strstr(z, "no-attr-args.data: offset 15334: record of type 922 has size 0, less than its 8-byte header"));
  free(z);
  /* samples before any attribute (its HEADER_ATTR mangled): rows without
  ** names, then the record of size 0 further on */
  {
    sqlite3_stmt *pStmt;
    int nSample = 0;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT type, name FROM events('" PERF_DIR "bad/no-attr.data')", -1, &pStmt, 0), SQLITE_OK);
    while( sqlite3_step(pStmt)==SQLITE_ROW ){
      if( strcmp((const char*)sqlite3_column_text(pStmt, 0), "SAMPLE")==0 ){
        nSample++;
        assert_int_equal(sqlite3_column_type(pStmt, 1), SQLITE_NULL);
      }
    }
    assert_int_equal(sqlite3_finalize(pStmt), SQLITE_CORRUPT);
    assert_true(nSample > 10);
    assert_non_null(strstr(sqlite3_errmsg(db), "no-attr.data: offset 15334: record of type 922 has size 0"));
  }
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM event_types('" PERF_DIR "bad/no-attr.data')"), 0);
  tl_test_db_close(db);
}

/* Rows of zSql (one column, a time or NULL) out of ascending order. */
static int sql_out_of_order(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt;
  int64_t tsPrev = INT64_MIN;
  int n = 0, bNonNull = 0;
  assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    if( sqlite3_column_type(pStmt, 0)==SQLITE_NULL ){
      n += bNonNull;                  /* NULLs first */
    }else{
      int64_t ts = sqlite3_column_int64(pStmt, 0);
      n += ts<tsPrev;
      tsPrev = ts;
      bNonNull = 1;
    }
  }
  assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
  return n;
}

/* Does SQLite sort the rows of zSql itself (a temporary b-tree)? */
static int sql_sorts(sqlite3 *db, const char *zSql){
  char *z = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", zSql);
  int b = 0;
  sqlite3_stmt *pStmt;
  assert_int_equal(sqlite3_prepare_v2(db, z, -1, &pStmt, 0), SQLITE_OK);
  sqlite3_free(z);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *zDetail = (const char*)sqlite3_column_text(pStmt, 3);
    if( zDetail && strstr(zDetail, "TEMP B-TREE FOR ORDER BY") ) b = 1;
  }
  sqlite3_finalize(pStmt);
  return b;
}

/*
** perf's time-order rule (at each FINISHED_ROUND, give out what came up
** to the latest time of the rounds before the one just read) assumes no
** record comes more than a round late; one written to its buffer after
** perf's pass over it can. Rounds of ten samples: the first ends at 9,000
** ns, the second at 19,000. A sample of time 8,500 ns in the third round
** comes a round later than the rule allows (after the second round, the
** samples up to 9,000 ns went out): the merge waits a round more for it
** (the plan keeps ORDER BY ts, and the rows are those SQLite sorts). One 14
** rounds late, more than the merge waits, and one of time 0 (as perf
** writes its LOST_SAMPLES records at the end) leave ORDER BY ts to SQLite.
*/
static void perf_records_rounds_late_keep_time_order(void **state){
  static PW w;
  static const struct { int iLate; uint64_t ts; int bSorts; } aCase[] = {
    { 25, 8500, 0 }, { 155, 8500, 1 }, { 4400, 0, 1 }, { -1, 0, 0 },
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(aCase)/sizeof(aCase[0]); k++){
    const char *zPath;
    char *zSql;
    nSynthRound = 10;
    iSynthLate = aCase[k].iLate;
    tsSynthLate = aCase[k].ts;
    perf_synth(&w, 0, 4500);
    nSynthRound = 0;
    iSynthLate = -1;
    zPath = pw_save(&w, "late-rounds.data");
    zSql = sqlite3_mprintf("SELECT ts FROM events(%Q) ORDER BY ts", zPath);
    assert_int_equal(sql_sorts(db, zSql), aCase[k].bSorts);
    assert_int_equal(sql_out_of_order(db, zSql), 0);
    sqlite3_free(zSql);
    assert_samples_merge_as_sorted(db, zPath);
  }
  tl_test_db_close(db);
}

/*
** perf writes LOST_SAMPLES records of time 0 at the end of a recording
** that lost samples (`perf script -D` shows them there, time 0): ORDER BY
** ts gives them first, with every row in time order.
*/
static void perf_lost_samples_of_time_zero_sort_first(void **state){
  sqlite3 *db = tl_test_db();
  const char *zPath = TL_TESTDATA_DIR "/sched/syscalls-lost.data";
  char *zSql = sqlite3_mprintf("SELECT ts FROM events(%Q) ORDER BY ts", zPath);
  (void)state;
  assert_true(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type='LOST_SAMPLES' AND ts=0",
                              zPath) > 0);
  assert_int_equal(sql_out_of_order(db, zSql), 0);
  sqlite3_free(zSql);
  tl_test_db_close(db);
}

/*
** ID_INDEX records (perf's, type 69: nr, then nr entries of id, idx, cpu,
** tid) of many ids each: every id is known at once, each found by its hash
** (an index of 128k ids read in one pass, where adding each id sorted them
** all); an id met before keeps its attr; samples read as without them.
*/
static void perf_id_index_of_many_ids(void **state){
  static PW w;
  enum { NREC = 64, NPER = 2000 };
  size_t nData = 0, nAll, iData;
  uint8_t *a;
  char zPath[512];
  sqlite3 *db = tl_test_db();
  int r, k;
  (void)state;
  iData = perf_synth(&w, 0, 100);
  nAll = w.n + (size_t)NREC*(16 + 32*(size_t)NPER);
  a = malloc(nAll);
  assert_non_null(a);
  memcpy(a, w.a, w.n);
  nData = w.n;
  for(r=0; r<NREC; r++){
    uint8_t *p = a + nData;
    uint64_t v[4];
    uint32_t t = 69;
    uint16_t misc = 0, size = (uint16_t)(16 + 32*NPER);
    uint64_t nr = NPER;
    memcpy(p, &t, 4); memcpy(p+4, &misc, 2); memcpy(p+6, &size, 2);
    memcpy(p+8, &nr, 8);
    for(k=0; k<NPER; k++){
      /* ids 1000.., and once id 7 (the attr's own) again */
      v[0] = r==0 && k==0 ? 7 : 1000 + (uint64_t)r*NPER + (uint64_t)k;
      v[1] = 0; v[2] = (uint64_t)(k % 2); v[3] = 43;
      memcpy(p + 16 + 32*(size_t)k, v, 32);
    }
    nData += 16 + 32*(size_t)NPER;
  }
  {
    uint64_t nSection = nData - iData;     /* the data section's size, at 48 */
    memcpy(a + 48, &nSection, 8);
  }
  snprintf(zPath, sizeof(zPath), "%s/id-index.data", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, a, nData), 0);
  free(a);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type = 'ID_INDEX'", zPath),
                   NREC);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE type = 'SAMPLE' "
                                       "AND name = 'cpu-clock:HG'", zPath), 100);
  assert_int_equal(tl_test_sql_int(db, "SELECT json_array_length(args, '$.ids') FROM event_types(%Q)",
                                   zPath), 1 + NREC*NPER - 1);
  assert_int_equal(tl_test_sql_int(db, "SELECT args ->> '$.ids[0]' FROM event_types(%Q)", zPath), 7);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_synth,
  cmocka_unit_test(perf_fuzz_finds_are_read_cleanly),
  cmocka_unit_test(perf_cut_file_keeps_complete_records),
  cmocka_unit_test(perf_truncation_sweep),
  cmocka_unit_test(perf_pipe_mode_from_a_fifo),
  cmocka_unit_test(perf_cpu_runs_are_chunks_a_cpu_filter_skips),
  cmocka_unit_test(perf_big_endian_reads_like_little_endian),
  cmocka_unit_test(perf_corruption_is_a_clear_error),
  cmocka_unit_test(perf_callchain_longer_than_its_sample),
  cmocka_unit_test(perf_index_times_are_the_records_times),
  cmocka_unit_test(perf_small_rounds_share_chunks),
  cmocka_unit_test(perf_records_rounds_late_keep_time_order),
  cmocka_unit_test(perf_lost_samples_of_time_zero_sort_first),
  cmocka_unit_test(perf_type_scans_read_only_its_chunks),
  cmocka_unit_test(perf_unnamed_threads_are_commands_apart),
  cmocka_unit_test(perf_id_index_of_many_ids)
);
