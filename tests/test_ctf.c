/*
** test_ctf.c: the CTF reader through SQL, on traces written by
** tests/ctf_writer.c. Expected values follow from what the writer put in
** the bytes and the CTF 1.8 rules (the 27-bit timestamp wrap, clock
** offsets, cumulative events_discarded); recorded LTTng traces are
** checked against babeltrace2's output elsewhere.
*/
#include "tltest.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf_writer.h"
#include "trace.h"

/* ------------------------------------------------------------ trace A */

/*
** Trace A: little-endian, LTTng-style compact/extended event headers with
** a 27-bit timestamp, two streams (cpu_id 0 and 1) of CTF_A_PKT packets of
** CTF_A_EV events each. Event g of stream s (g counting over the stream)
** is at cycles CTF_A_BASE + g*CTF_A_STEP + s*CTF_A_STEP/2, so the streams
** interleave and the low 27 bits wrap every few events; every 7th event is
** "big" (id 40, which needs the extended header).
*/
#define CTF_A_PKT   10
#define CTF_A_EV    20
#define CTF_A_BASE  UINT64_C(5000000000)
#define CTF_A_STEP  UINT64_C(40000001)
#define CTF_A_OFFS  1000                      /* clock offset_s */

static const char zMetaA[] = CTF_META_A_STREAM CTF_META_A_EVENTS;

static uint64_t ctf_a_cycles(int s, int g){
  return CTF_A_BASE + (uint64_t)g*CTF_A_STEP + (uint64_t)s*(CTF_A_STEP/2);
}

static int64_t ctf_a_ns(int s, int g){
  return (int64_t)CTF_A_OFFS*1000000000 + (int64_t)ctf_a_cycles(s, g);
}

/* Per stream: the bit offset after each event, for the truncation test. */
static uint64_t aEvEndA[2][CTF_A_PKT*CTF_A_EV];
static uint64_t aPktEndA[2][CTF_A_PKT];

/*
** Write trace A into zDir. Stream 0 reports 3 discarded events from its
** packet 5 on (a cumulative counter); stream 1 skips packet_seq_num 7.
*/
static void ctf_write_a_lying(const char *zDir, int iLiePkt);
static void ctf_write_a(const char *zDir){
  ctf_write_a_lying(zDir, -1);
}

/*
** Trace A's shape with nPkt packets of nEv events per stream, in metadata
** zMeta. When nAlignBig is 64, "big" events' value is aligned to 64 bits
** (zMeta must say so); when nLong > 0 every 5000th event, a tick, has a
** msg of nLong bytes. Only the usual shape records aEvEndA and aPktEndA.
*/
static void ctf_write_a_shape(const char *zDir, int iLiePkt, const char *zMeta, int nPkt,
                              int nEv, unsigned nAlignBig, int nLong);

/* Trace A, with stream 0's packet iLiePkt (if >= 0) giving a timestamp_end
** that is its 10th event's time, not its last's. */
static void ctf_write_a_lying(const char *zDir, int iLiePkt){
  ctf_write_a_shape(zDir, iLiePkt, zMetaA, CTF_A_PKT, CTF_A_EV, 8, 0);
}

static void ctf_write_a_shape(const char *zDir, int iLiePkt, const char *zMeta, int nPkt,
                              int nEv, unsigned nAlignBig, int nLong){
  int s, bRecord = nPkt==CTF_A_PKT && nEv==CTF_A_EV;
  char *zLong = nLong>0 ? malloc((size_t)nLong + 1) : 0;
  if( zLong ){
    memset(zLong, 'x', (size_t)nLong);
    zLong[nLong] = 0;
  }
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(s=0; s<2; s++){
    CtfW w;
    int k, e, g = 0;
    char zName[32];
    uint64_t prev = 0;
    ctfw_init(&w, 0);
    for(k=0; k<nPkt; k++){
      uint64_t iStart = w.iBit, iTsEnd, iContent, iSize;
      ctfw_uint(&w, 8, 32, 0xC1FC1FC1);
      ctfw_uint(&w, 8, 32, 0);                            /* stream_id */
      ctfw_uint(&w, 8, 64, ctf_a_cycles(s, g));           /* timestamp_begin */
      iTsEnd = w.iBit;
      ctfw_uint(&w, 8, 64, 0);                            /* timestamp_end, patched */
      iContent = w.iBit;
      ctfw_uint(&w, 8, 64, 0);
      iSize = w.iBit;
      ctfw_uint(&w, 8, 64, 0);
      ctfw_uint(&w, 8, 64, (uint64_t)(s==1 && k>=7 ? k+1 : k));
      ctfw_uint(&w, 8, 64, s==0 && k>=5 ? 3 : 0);
      ctfw_uint(&w, 8, 32, (uint64_t)s);
      prev = ctf_a_cycles(s, g);
      for(e=0; e<nEv; e++, g++){
        uint64_t t = ctf_a_cycles(s, g);
        int bBig = g%7==3;
        ctfw_align(&w, 8);
        if( bBig ){
          ctfw_uint(&w, 1, 5, 31);
          ctfw_uint(&w, 8, 32, 40);
          ctfw_uint(&w, 8, 64, t);
        }else{
          assert_true(t - prev < (UINT64_C(1)<<27));
          ctfw_uint(&w, 1, 5, 0);
          ctfw_uint(&w, 1, 27, t & ((UINT64_C(1)<<27)-1));
        }
        prev = t;
        ctfw_uint(&w, 8, 32, (uint64_t)(100 + s));          /* vtid */
        ctfw_uint(&w, 8, 32, 77);                          /* vpid */
        if( bBig ){
          ctfw_uint(&w, nAlignBig, 64, UINT64_C(0xF000000000000000) + (uint64_t)g);
        }else{
          char zMsg[32];
          snprintf(zMsg, sizeof(zMsg), "s%d-e%d", s, g);
          ctfw_uint(&w, 8, 32, (uint64_t)g);
          ctfw_string(&w, zLong && g%5000==4999 ? zLong : zMsg);
        }
        if( bRecord ) aEvEndA[s][g] = w.iBit;
      }
      ctfw_patch(&w, iTsEnd, 64, ctf_a_cycles(s, s==0 && k==iLiePkt ? g-nEv+9 : g-1));
      ctfw_patch(&w, iContent, 64, w.iBit - iStart);
      ctfw_align(&w, 8);
      ctfw_uint(&w, 8, 8, 0);                             /* padding */
      ctfw_align(&w, 64);
      ctfw_patch(&w, iSize, 64, w.iBit - iStart);
      if( bRecord ) aPktEndA[s][k] = w.iBit;
    }
    snprintf(zName, sizeof(zName), "chan_%d", s);
    assert_int_equal(ctfw_save(&w, zDir, zName, ctfw_bytes(&w)), 0);
    ctfw_free(&w);
  }
  free(zLong);
}

static const char *ctf_dir_a(void);
const char *tl_test_ctf_dir_a(void){
  return ctf_dir_a();
}

static const char *ctf_dir_a(void){
  static char zDir[512];
  if( zDir[0]==0 ){
    snprintf(zDir, sizeof(zDir), "%s/ctf-a", tl_test_tmpdir());
    ctf_write_a(zDir);
  }
  return zDir;
}

static void ctf_merged_time_order(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = ctf_dir_a();
  sqlite3_stmt *pStmt;
  int n = 0, g;
  (void)state;
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir),
                   2*CTF_A_PKT*CTF_A_EV);
  /* The streams interleave: s0 g0, s1 g0, s0 g1, ... with the wrap applied. */
  assert_int_equal(sqlite3_prepare_v2(db,
      "SELECT ts, ts_raw, cpu, tid, pid, name, track FROM events(?)", -1, &pStmt, 0), SQLITE_OK);
  sqlite3_bind_text(pStmt, 1, zDir, -1, SQLITE_STATIC);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    int s = n%2;
    g = n/2;
    assert_true(sqlite3_column_int64(pStmt, 0)==ctf_a_ns(s, g));
    assert_true((uint64_t)sqlite3_column_int64(pStmt, 1)==ctf_a_cycles(s, g));
    assert_int_equal(sqlite3_column_int(pStmt, 2), s);
    assert_int_equal(sqlite3_column_int(pStmt, 3), 100+s);
    assert_int_equal(sqlite3_column_int(pStmt, 4), 77);
    assert_string_equal((const char*)sqlite3_column_text(pStmt, 5), g%7==3 ? "big" : "tick");
    assert_int_equal(sqlite3_column_int(pStmt, 6), s);
    n++;
  }
  assert_int_equal(sqlite3_finalize(pStmt), SQLITE_OK);
  assert_int_equal(n, 2*CTF_A_PKT*CTF_A_EV);
  /* ORDER BY ts is consumed: no sorter in the plan. */
  {
    char *z = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT ts FROM events(%Q) ORDER BY ts", zDir);
    assert_null(strstr(z, "TEMP B-TREE"));
    free(z);
  }
  tl_test_db_close(db);
}

/*
** Trace A's shape with packets of about 200 KiB, a msg of 70,000 bytes in
** every 5000th event and big events' value aligned to 64 bits: counts read
** such packets a part at a time (ctf_scan.c), so events, the parts' bounds
** and the windows' meet in every way. Counts are those of the events the
** writer put in each window, with and without the accelerators.
*/
#define CTF_A_BIG_PKT 3
#define CTF_A_BIG_EV  8000

static const char zMetaBig[] = CTF_META_A_STREAM
  "typealias integer { size = 64; align = 64; signed = false; } := uint64a_t;\n"
  "event { name = \"tick\"; id = 0; stream_id = 0; fields := struct { uint32_t seq; string msg; }; };\n"
  "event { name = \"big\"; id = 40; stream_id = 0; fields := struct { uint64a_t value; }; };\n";

/* (ctf_scan.c) */
extern size_t tl_ctf_part_size;

static void assert_plain_error(sqlite3 *db, const char *zFmt, const char *zDir,
                               const char *zFile, uint64_t iOff);

/* Events of trace p from lo to hi (of CPU 1 when bCpu1), counted by the
** trace API of this binary (whose tl_ctf_part_size the test sets). */
static int64_t ctf_count_api(TlTrace *p, int64_t lo, int64_t hi, int bCpu1){
  static const int64_t aCpu1[1] = { 1 };
  TlFilter f;
  memset(&f, 0, sizeof(f));
  f.tsLo = lo;
  f.tsHi = hi;
  f.aCpu = bCpu1 ? aCpu1 : 0;
  f.nCpu = bCpu1 ? 1 : -1;
  return tl_test_count_rows(p, TL_TAB_EVENTS, &f);
}

/*
** The events the writer put in the window from event g0 of stream 0 to
** event g1 of stream 1, of both streams (*pnAll) and of stream 1 (*pnCpu1).
*/
static void ctf_big_expected(int g0, int g1, int64_t *plo, int64_t *phi, int *pnAll, int *pnCpu1){
  int s, g;
  *plo = ctf_a_ns(0, g0);
  *phi = ctf_a_ns(1, g1);
  *pnAll = *pnCpu1 = 0;
  for(s=0; s<2; s++){
    for(g=0; g<CTF_A_BIG_PKT*CTF_A_BIG_EV; g++){
      int bIn = ctf_a_ns(s, g)>=*plo && ctf_a_ns(s, g)<=*phi;
      *pnAll += bIn;
      *pnCpu1 += bIn && s==1;
    }
  }
}

/* The trace of big packets, written once into the test directory: its path. */
const char *tl_test_ctf_dir_big(void){
  static char zDir[512];
  if( zDir[0]==0 ){
    snprintf(zDir, sizeof(zDir), "%s/ctf-a-big", tl_test_tmpdir());
    ctf_write_a_shape(zDir, -1, zMetaBig, CTF_A_BIG_PKT, CTF_A_BIG_EV, 64, 70000);
  }
  return zDir;
}

static void ctf_counts_of_packets_read_in_parts(void **state){
  static const int aFrom[] = { 0, 1, 2400, 4999, 7999, 8000, 12345, 16000, 23990 };
  static const int aWidth[] = { 0, 3, 50, 3000, 9000, 30000 };
  /* parts too small for the packet context, of a few events, of odd sizes */
  static const size_t aPart[] = { 32, 64, 100, 257, 1000, 4096, 20000, 0 };
  const int nEv = CTF_A_BIG_PKT*CTF_A_BIG_EV;
  sqlite3 *db = tl_test_db();
  const char *zDir = tl_test_ctf_dir_big();
  TlTrace *p = 0;
  TlErr err;
  size_t nWas = tl_ctf_part_size;
  int i, k, j, g, nBig = 0, nAll, nCpu1;
  int64_t lo, hi;
  (void)state;
  assert_true(tl_test_sql_int(db, "SELECT min(size) FROM packets(%Q)", zDir) > 3*65536);
  for(g=0; g<nEv; g++) nBig += g%7==3;
  /* through SQL, parts of the usual size, and the plain scan */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir), 2*nEv);
  assert_int_equal(tl_test_sql_int(db, "SELECT n FROM (SELECT name, count(*) n FROM events(%Q)"
                                   " GROUP BY name) WHERE name='big'", zDir), 2*nBig);
  for(i=0; i<(int)(sizeof(aFrom)/sizeof(aFrom[0])); i++){
    for(k=0; k<(int)(sizeof(aWidth)/sizeof(aWidth[0])); k++){
      ctf_big_expected(aFrom[i], aFrom[i] + aWidth[k], &lo, &hi, &nAll, &nCpu1);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)"
                                       " WHERE ts BETWEEN %lld AND %lld",
                                       zDir, (long long)lo, (long long)hi), nAll);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, 'accel=off')"
                                       " WHERE ts BETWEEN %lld AND %lld",
                                       zDir, (long long)lo, (long long)hi), nAll);
    }
  }
  /* through the trace API, parts of every size */
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(zDir, 0, &p, &err), TL_OK);
  for(j=0; j<(int)(sizeof(aPart)/sizeof(aPart[0])); j++){
    tl_ctf_part_size = aPart[j] ? aPart[j] : nWas;
    assert_int_equal(ctf_count_api(p, TL_TS_MIN, TL_TS_MAX, 0), 2*nEv);
    for(i=0; i<(int)(sizeof(aFrom)/sizeof(aFrom[0])); i++){
      for(k=0; k<(int)(sizeof(aWidth)/sizeof(aWidth[0])); k++){
        ctf_big_expected(aFrom[i], aFrom[i] + aWidth[k], &lo, &hi, &nAll, &nCpu1);
        assert_int_equal(ctf_count_api(p, lo, hi, 0), nAll);
        assert_int_equal(ctf_count_api(p, lo, hi, 1), nCpu1);
      }
    }
  }
  tl_ctf_part_size = nWas;
  tl_trace_release(p);
  /* an event of no class in packet 0's third part: the plain scan's error */
  {
    static const char zMsg[] = "s0-e5002";       /* a tick (5002 % 7 != 3) */
    char zBad[600], zPath[700], zFmt[200];
    uint8_t *a;
    size_t n, iMsg;
    snprintf(zBad, sizeof(zBad), "%s/ctf-a-big-bad", tl_test_tmpdir());
    ctf_write_a_shape(zBad, -1, zMetaBig, CTF_A_BIG_PKT, CTF_A_BIG_EV, 64, 70000);
    snprintf(zPath, sizeof(zPath), "%s/chan_0", zBad);
    a = tl_test_read_file(zPath, &n);
    assert_non_null(a);
    for(iMsg=0; iMsg+sizeof(zMsg)<=n && memcmp(a+iMsg, zMsg, sizeof(zMsg)); iMsg++){}
    assert_true(iMsg > 2*65536 && iMsg+sizeof(zMsg)<=n);
    /* compact header (4 bytes), vtid, vpid, seq, then msg */
    a[iMsg-16] = (uint8_t)((a[iMsg-16] & ~0x1f) | 9);
    assert_int_equal(tl_test_write_file(zPath, a, n), 0);
    free(a);
    assert_plain_error(db, "SELECT count(*) FROM events(%Q, %Q)", zBad, "chan_0", iMsg-16);
    snprintf(zFmt, sizeof(zFmt), "SELECT count(*) FROM events(%%Q, %%Q) WHERE ts BETWEEN %lld AND %lld",
             (long long)ctf_a_ns(0, 5000), (long long)ctf_a_ns(0, 5100));
    assert_plain_error(db, zFmt, zBad, "chan_0", iMsg-16);
  }
  tl_test_db_close(db);
}

static void ctf_payload_values(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = ctf_dir_a();
  char *z;
  (void)state;
  /* Event 11 of stream 1 is a tick (11 % 7 != 3); event 3 a big one with a u64 above INT64_MAX. */
  z = tl_test_sql_text(db, "SELECT args->>'$.msg' FROM events(%Q) WHERE ts=%lld",
                       zDir, (long long)ctf_a_ns(1, 11));
  assert_non_null(z);
  assert_string_equal(z, "s1-e11");
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT args->>'$.seq' FROM events(%Q) WHERE ts=%lld",
                                   zDir, (long long)ctf_a_ns(1, 11)), 11);
  /* The whole object: payload, then the stream event context (vtid, vpid);
  ** the text is the line babeltrace2 2.0.4 prints for this event of trace A. */
  z = tl_test_sql_text(db, "SELECT args FROM events(%Q) WHERE ts=%lld",
                       zDir, (long long)ctf_a_ns(1, 11));
  assert_string_equal(z, "{\"seq\":11,\"msg\":\"s1-e11\",\"vtid\":101,\"vpid\":77}");
  free(z);
  z = tl_test_sql_text(db, "SELECT text FROM events(%Q) WHERE ts=%lld",
                       zDir, (long long)ctf_a_ns(1, 11));
  assert_string_equal(z, "{ cpu_id = 1 }, { vtid = 101, vpid = 77 }, { seq = 11, msg = \"s1-e11\" }");
  free(z);
  z = tl_test_sql_text(db, "SELECT args->>'$.value' FROM events(%Q) WHERE ts=%lld",
                       zDir, (long long)ctf_a_ns(0, 3));
  assert_string_equal(z, "17293822569102704643");   /* 0xF000000000000000 + 3 */
  free(z);
  tl_test_db_close(db);
}

/* Sum of packets.args.reads over the trace. */
static int64_t ctf_reads(sqlite3 *db, const char *zDir){
  return tl_test_sql_int(db, "SELECT sum(args->>'$.reads') FROM packets(%Q)", zDir);
}

static void ctf_window_reads_few_packets(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = ctf_dir_a();
  int64_t lo = ctf_a_ns(0, 101), hi = ctf_a_ns(0, 104), nBefore;
  int n;
  (void)state;
  /* Window [s0 g101, s0 g104]: s0 g101..104 and s1 g101..103. */
  nBefore = ctf_reads(db, zDir);
  n = (int)tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN %lld AND %lld",
                           zDir, (long long)lo, (long long)hi);
  assert_int_equal(n, 4 + 3);
  /* Events 100..119 are packet 5 of each stream: 2 packets read of 20. */
  assert_int_equal(ctf_reads(db, zDir) - nBefore, 2);
  /* The same answer as the unfiltered scan filtered by SQLite. */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM (SELECT ts FROM events(%Q) ORDER BY ts+0) WHERE ts BETWEEN %lld AND %lld",
      zDir, (long long)lo, (long long)hi), n);
  /* cpu = 1 reads only stream 1's packets. */
  nBefore = ctf_reads(db, zDir);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu=1", zDir),
                   CTF_A_PKT*CTF_A_EV);
  assert_int_equal(ctf_reads(db, zDir) - nBefore, CTF_A_PKT);
  /* A rowid finds its event again, reading one packet. */
  {
    int64_t r = tl_test_sql_int(db, "SELECT rowid FROM events(%Q) WHERE ts=%lld",
                                zDir, (long long)ctf_a_ns(1, 150));
    nBefore = ctf_reads(db, zDir);
    assert_true(tl_test_sql_int(db, "SELECT ts FROM events(%Q) WHERE rowid=%lld",
                                zDir, (long long)r)==ctf_a_ns(1, 150));
    assert_int_equal(ctf_reads(db, zDir) - nBefore, 1);
  }
  tl_test_db_close(db);
}

/* Events of trace A with ts in [lo, hi], from its definition. */
static int ctf_a_count(int64_t lo, int64_t hi){
  int s, g, n = 0;
  for(s=0; s<2; s++){
    for(g=0; g<CTF_A_PKT*CTF_A_EV; g++) n += ctf_a_ns(s, g)>=lo && ctf_a_ns(s, g)<=hi;
  }
  return n;
}

/*
** count(*) over a time window counts with the plans: packets inside it
** whole, each packet that crosses a bound by its events' times. Counts
** equal the trace's definition for windows that start and end anywhere
** (on an event, between two, inside packets or at their edges), each packet
** is read once, and ts, ts_raw and rowid (worked out per repeat) equal the
** full decoder's. A packet whose timestamp_end is earlier than its last
** event is counted by its events, not by its header.
*/
static void ctf_window_counts_by_packet(void **state){
  sqlite3 *db = tl_test_db();
  char zLie[512];
  const char *azDir[2];
  int d, a, b;
  (void)state;
  snprintf(zLie, sizeof(zLie), "%s/ctf-a-lie", tl_test_tmpdir());
  ctf_write_a_lying(zLie, 3);
  azDir[0] = ctf_dir_a();
  azDir[1] = zLie;
  for(d=0; d<2; d++){
    for(a=37; a<CTF_A_PKT*CTF_A_EV; a+=23){
      for(b=a; b<CTF_A_PKT*CTF_A_EV; b+=29){
        /* from just after event a of stream 0 to just before event b's
        ** successor in stream 1, and exactly on events */
        int64_t lo = ctf_a_ns(0, a) + (a%2), hi = ctf_a_ns(1, b) - (b%3);
        int64_t nReads = ctf_reads(db, azDir[d]), nPkts;
        char *zA, *zB;
        assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN %lld AND %lld",
                                         azDir[d], (long long)lo, (long long)hi), ctf_a_count(lo, hi));
        nPkts = tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q) WHERE ts_end >= %lld AND ts_begin <= %lld",
                                azDir[d], (long long)lo, (long long)hi);
        if( d==0 ) assert_int_equal(ctf_reads(db, azDir[d]) - nReads, nPkts);
        zA = tl_test_sql_rows(db, "SELECT ts, ts_raw, rowid, cpu FROM events(%Q) WHERE ts > %lld AND ts <= %lld ORDER BY rowid",
                              azDir[d], (long long)lo, (long long)hi);
        zB = tl_test_sql_rows(db, "SELECT ts, ts_raw, rowid, cpu FROM events(%Q) WHERE ts > %lld AND ts <= %lld "
                                  "AND args IS NOT NULL ORDER BY rowid", azDir[d], (long long)lo, (long long)hi);
        assert_string_equal(zA, zB);
        free(zA);
        free(zB);
      }
    }
    /* the lying packet: a window that ends after its header's end but
    ** before its last event */
    {
      int64_t lo = ctf_a_ns(0, 3*CTF_A_EV) - 1, hi = ctf_a_ns(0, 3*CTF_A_EV + 12);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN %lld AND %lld",
                                       azDir[d], (long long)lo, (long long)hi), ctf_a_count(lo, hi));
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu = 0 AND ts BETWEEN %lld AND %lld",
                                       azDir[d], (long long)lo, (long long)hi), 13);
    }
  }
  tl_test_db_close(db);
}

/*
** A window count compares the events' clock values with the bounds' (the
** least value at or after the window's start, the greatest at or before
** its end). Trace A's streams under a 3000001 Hz clock (a cycle is about
** 333 ns) and a 2999999999 Hz one (about 3 cycles share a ns): windows
** that start and end exactly at an event's time, a ns inside it and a ns
** outside it. The counts (ctf_clock=exact: floor(cycles * 1e9 / freq)
** after offset_s) follow from trace A's definition; with babeltrace2's
** conversion they equal the event-by-event read's, and so do the rows'
** rowids and times.
*/
static int64_t ctf_a_ns_at(int s, int g, uint64_t freq){
  return CTF_A_OFFS*INT64_C(1000000000)
       + (int64_t)((unsigned __int128)ctf_a_cycles(s, g)*1000000000u/freq);
}

static void ctf_window_counts_by_clock_value(void **state){
  static const uint64_t aFreq[] = { 3000001, 2999999999u };
  sqlite3 *db = tl_test_db();
  const char *zFrom = "freq = 1000000000;";
  size_t n, k, f;
  int s, g;
  (void)state;
  for(f=0; f<2; f++){
    char zDir[512], zSrc[600], zDst[600], *zMeta;
    const char *z = strstr(zMetaA, zFrom);
    const uint64_t freq = aFreq[f];
    assert_non_null(z);
    snprintf(zDir, sizeof(zDir), "%s/ctf-clock-%llu", tl_test_tmpdir(), (unsigned long long)freq);
    zMeta = malloc(sizeof(zMetaA) + 32);
    assert_non_null(zMeta);
    snprintf(zMeta, sizeof(zMetaA) + 32, "%.*sfreq = %llu;%s", (int)(z - zMetaA), zMetaA,
             (unsigned long long)freq, z + strlen(zFrom));
    assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
    free(zMeta);
    for(s=0; s<2; s++){
      void *a;
      snprintf(zSrc, sizeof(zSrc), "%s/chan_%d", ctf_dir_a(), s);
      snprintf(zDst, sizeof(zDst), "%s/chan_%d", zDir, s);
      a = tl_test_read_file(zSrc, &n);
      assert_non_null(a);
      assert_int_equal(tl_test_write_file(zDst, a, n), 0);
      free(a);
    }
    for(k=0; k<6; k++){
      /* from event g0 of stream 0 to event g0+37 of stream 1 (about 2 packets) */
      static const int aG[] = { 0, 13, 19, 20, 101, 150 };
      static const int aD[][2] = { {0, 0}, {1, -1}, {-1, 1} };
      int g0 = aG[k], d;
      for(d=0; d<3; d++){
        int64_t lo = ctf_a_ns_at(0, g0, freq) + aD[d][0], hi = ctf_a_ns_at(1, g0+37, freq) + aD[d][1];
        int nWant = 0;
        char *zA, *zB;
        for(s=0; s<2; s++){
          for(g=0; g<CTF_A_PKT*CTF_A_EV; g++){
            int64_t t = ctf_a_ns_at(s, g, freq);
            if( t>=lo && t<=hi ) nWant++;
          }
        }
        assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, 'ctf_clock=exact') "
                                             "WHERE ts BETWEEN %lld AND %lld", zDir, (long long)lo, (long long)hi), nWant);
        zA = tl_test_sql_rows(db, "SELECT count(*), sum(rowid), sum(ts - %lld) FROM events(%Q) "
                                  "WHERE ts BETWEEN %lld AND %lld", (long long)lo, zDir, (long long)lo, (long long)hi);
        zB = tl_test_sql_rows(db, "SELECT count(*), sum(rowid), sum(ts - %lld) FROM events(%Q) "
                                  "WHERE ts BETWEEN %lld AND %lld AND (args IS NULL OR args IS NOT NULL)",
                                  (long long)lo, zDir, (long long)lo, (long long)hi);
        assert_string_equal(zA, zB);
        free(zA);
        free(zB);
      }
    }
  }
  tl_test_db_close(db);
}

static void ctf_packets_tracks_warnings(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = ctf_dir_a();
  char *z;
  (void)state;
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q)", zDir), 2*CTF_A_PKT);
  /* Packet 5 of stream 0: its begin/end times, and 3 discarded events (the counter's step). */
  z = tl_test_sql_rows(db, "SELECT stream, cpu, file, offset, size, ts_begin, ts_end, discarded, seq"
                           " FROM packets(%Q) WHERE stream=0 AND seq=5", zDir);
  {
    char zWant[256];
    snprintf(zWant, sizeof(zWant), "0|0|chan_0|%llu|%llu|%lld|%lld|3|5",
             (unsigned long long)(aPktEndA[0][4]/8),
             (unsigned long long)((aPktEndA[0][5]-aPktEndA[0][4])/8),
             (long long)ctf_a_ns(0, 100), (long long)ctf_a_ns(0, 119));
    assert_string_equal(z, zWant);
  }
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT sum(discarded) FROM packets(%Q)", zDir), 3);
  z = tl_test_sql_rows(db, "SELECT id, kind, name, cpu, first_ts, last_ts, args->>'$.packets',"
                           " args->>'$.discarded_events', args->>'$.lost_packets' FROM tracks(%Q)", zDir);
  {
    char zWant[512];
    snprintf(zWant, sizeof(zWant), "0|stream|chan_0|0|%lld|%lld|10|3|0\n1|stream|chan_1|1|%lld|%lld|10|0|1",
             (long long)ctf_a_ns(0, 0), (long long)ctf_a_ns(0, 199),
             (long long)ctf_a_ns(1, 0), (long long)ctf_a_ns(1, 199));
    assert_string_equal(z, zWant);
  }
  free(z);
  z = tl_test_sql_rows(db, "SELECT file, message FROM trace_warnings(%Q) ORDER BY file, message", zDir);
  assert_string_equal(z, "chan_0|the tracer discarded 3 events in this stream\n"
                         "chan_1|1 packets are missing (gaps in packet_seq_num)");
  free(z);
  z = tl_test_sql_rows(db, "SELECT id, name, stream, kind FROM event_types(%Q)", zDir);
  assert_string_equal(z, "0|tick|0|event\n40|big|0|event");
  free(z);
  tl_test_db_close(db);
}

static void ctf_paths_metadata_and_parent(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = ctf_dir_a();
  char zPath[700], zParent[600];
  (void)state;
  snprintf(zPath, sizeof(zPath), "%s/metadata", zDir);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), 2*CTF_A_PKT*CTF_A_EV);
  /* A directory above two traces (one two levels down) reads both, merged. */
  snprintf(zParent, sizeof(zParent), "%s/session", tl_test_tmpdir());
  mkdir(zParent, 0755);
  snprintf(zPath, sizeof(zPath), "%s/ust", zParent);
  mkdir(zPath, 0755);
  snprintf(zPath, sizeof(zPath), "%s/ust/one", zParent);
  ctf_write_a(zPath);
  snprintf(zPath, sizeof(zPath), "%s/two", zParent);
  ctf_write_a(zPath);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zParent), 4*CTF_A_PKT*CTF_A_EV);
  {
    char *z = tl_test_sql_rows(db, "SELECT name FROM tracks(%Q)", zParent);
    assert_string_equal(z, "two/chan_0\ntwo/chan_1\nust/one/chan_0\nust/one/chan_1");
    free(z);
  }
  /* Equal times from the two copies come out together, in stream order. */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT ts, lag(ts) OVER () AS p"
                                       " FROM events(%Q)) WHERE p > ts", zParent), 0);
  tl_test_db_close(db);
}

/* A copy of trace A whose stream 0 is cut at byte nCut. */
static const char *ctf_cut_copy(size_t nCut){
  static char zDir[512];
  char zSrc[600], zDst[600];
  void *a;
  size_t n;
  snprintf(zDir, sizeof(zDir), "%s/ctf-cut-%zu", tl_test_tmpdir(), nCut);
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaA), 0);
  snprintf(zSrc, sizeof(zSrc), "%s/chan_0", ctf_dir_a());
  snprintf(zDst, sizeof(zDst), "%s/chan_0", zDir);
  a = tl_test_read_file(zSrc, &n);
  assert_non_null(a);
  assert_true(nCut <= n);
  assert_int_equal(tl_test_write_file(zDst, a, nCut), 0);
  free(a);
  return zDir;
}

static void ctf_truncated_stream(void **state){
  sqlite3 *db = tl_test_db();
  size_t aCut[4];
  int i;
  (void)state;
  aCut[0] = (size_t)(aEvEndA[0][67]/8) + 3;        /* inside event 68 */
  aCut[1] = (size_t)(aPktEndA[0][2]/8) + 10;       /* inside packet 3's header */
  aCut[2] = (size_t)(aPktEndA[0][9]/8) - 4;        /* in the last packet's padding */
  aCut[3] = 1;
  (void)ctf_dir_a();
  for(i=0; i<4; i++){
    const char *zDir = ctf_cut_copy(aCut[i]);
    int nWant, g;
    for(nWant=0, g=0; g<CTF_A_PKT*CTF_A_EV; g++){
      if( aEvEndA[0][g] <= (uint64_t)aCut[i]*8 ) nWant++;
    }
    if( i==1 ) nWant = 3*CTF_A_EV;
    if( i==3 ){
      /* Not even a packet header: no events from it, and a warning naming it. */
      char *z = tl_test_sql_text(db, "SELECT file || ': ' || message FROM trace_warnings(%Q)", zDir);
      assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir), 0);
      assert_string_equal(z, "chan_0: the file ends inside a packet header; the rest is ignored");
      free(z);
      continue;
    }
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir), nWant);
    if( i<2 ){
      assert_true(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zDir) >= 1);
    }
  }
  tl_test_db_close(db);
}

/*
** The counts by name of trace zDir are zWant, as the reader gives them
** grouped and as SQLite groups the events in time order (HAVING min(ts)
** needs ts, so the events come one by one).
*/
static void assert_counts_by_name(sqlite3 *db, const char *zDir, const char *zWant){
  /* (the grouped query inside, in whatever order of names it gives them) */
  char *z = tl_test_sql_rows(db, "SELECT * FROM (SELECT name, count(*) FROM events(%Q) "
                                 "GROUP BY name) ORDER BY 1", zDir);
  assert_string_equal(z, zWant);
  free(z);
  z = tl_test_sql_rows(db, "SELECT name, count(*) FROM events(%Q) GROUP BY name HAVING min(ts) IS NOT NULL", zDir);
  assert_string_equal(z, zWant);
  free(z);
}

/*
** GROUP BY name counts two streams' packets at once. Trace A whole, then
** with chan_0 cut inside its event 68 (packet 3; chan_1 whole): that
** stream's packet goes event by event after the plans stop at the cut, the
** other stream on alone. The counts follow from trace A's definition (event
** g of a stream is big when g%7==3) and equal SQLite's own grouping.
*/
static void ctf_group_by_name_two_streams_at_once(void **state){
  sqlite3 *db = tl_test_db();
  int k;
  (void)state;
  for(k=0; k<2; k++){
    char zDir[512], zSrc[600], zDst[600], zWant[64];
    int s, g, nBig = 0, nTick = 0;
    snprintf(zDir, sizeof(zDir), "%s/ctf-pair-%d", tl_test_tmpdir(), k);
    assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaA), 0);
    for(s=0; s<2; s++){
      void *a;
      size_t n, nKeep;
      int nEv = CTF_A_PKT*CTF_A_EV;
      snprintf(zSrc, sizeof(zSrc), "%s/chan_%d", ctf_dir_a(), s);
      snprintf(zDst, sizeof(zDst), "%s/chan_%d", zDir, s);
      a = tl_test_read_file(zSrc, &n);
      assert_non_null(a);
      nKeep = n;
      if( k==1 && s==0 ){
        nKeep = (size_t)(aEvEndA[0][67]/8) + 3;
        nEv = 68;
      }
      assert_int_equal(tl_test_write_file(zDst, a, nKeep), 0);
      free(a);
      for(g=0; g<nEv; g++){ if( g%7==3 ) nBig++; else nTick++; }
    }
    snprintf(zWant, sizeof(zWant), "big|%d\ntick|%d", nBig, nTick);
    assert_counts_by_name(db, zDir, zWant);
  }
  tl_test_db_close(db);
}

/*
** GROUP BY name reads each stream as two halves of its packets (here six:
** 0-2 and 3-5, one half on each thread). An event with a sequence, which
** the plans do not skip, sends a half to the full decoder from its packet
** on: packet 1 in the first half, packet 4 in the second. Each half still
** ends where it ends: the counts are the definition's (ten events a packet,
** "seq" at event 5 of packets 1 and 4, "tick" the rest) and SQLite's own
** grouping of the events in time order.
*/
static const char zMetaHalves[] =
  "/* CTF 1.8 */\n"
  "trace { major = 1; minor = 8; byte_order = le;\n"
  "  packet.header := struct { integer { size = 32; align = 8; } magic; }; };\n"
  "stream {\n"
  "  packet.context := struct { integer { size = 64; align = 8; } content_size;\n"
  "    integer { size = 64; align = 8; } packet_size; };\n"
  "  event.header := struct { integer { size = 8; align = 8; } id;\n"
  "    integer { size = 64; align = 8; } timestamp; };\n"
  "};\n"
  "event { name = tick; id = 0; fields := struct { integer { size = 32; align = 8; } v; }; };\n"
  "event { name = seq; id = 1; fields := struct { integer { size = 8; align = 8; } n;\n"
  "  integer { size = 8; align = 8; } q[n]; }; };\n";

/*
** Write the halves trace into zDir: six packets of ten events, "seq" at
** event 5 of packets 1 and 4. Events listed in aBad (packet*10 + event, -1
** ends) get class id 9, which the metadata does not define; their byte
** offsets go to aBadOff. Counts into *pnSeq, *pnTick.
*/
static void ctf_write_halves(const char *zDir, const int *aBad, uint64_t *aBadOff,
                             int *pnSeq, int *pnTick){
  CtfW w;
  int k, e, nBad = 0;
  uint64_t t = 1000;
  *pnSeq = *pnTick = 0;
  ctfw_init(&w, 0);
  for(k=0; k<6; k++){
    uint64_t iStart = w.iBit, iContent, iSize;
    ctfw_uint(&w, 8, 32, 0xC1FC1FC1);
    iContent = w.iBit;
    ctfw_uint(&w, 8, 64, 0);
    iSize = w.iBit;
    ctfw_uint(&w, 8, 64, 0);
    for(e=0; e<10; e++, t+=10){
      int bSeq = e==5 && (k==1 || k==4);
      if( aBad && aBad[nBad]==k*10 + e ){
        aBadOff[nBad++] = w.iBit/8;
        ctfw_uint(&w, 8, 8, 9);
        ctfw_uint(&w, 8, 64, t);
        ctfw_uint(&w, 8, 32, 0);
        continue;
      }
      ctfw_uint(&w, 8, 8, bSeq ? 1 : 0);
      ctfw_uint(&w, 8, 64, t);
      if( bSeq ){
        ctfw_uint(&w, 8, 8, 3);
        ctfw_uint(&w, 8, 8, 7); ctfw_uint(&w, 8, 8, 8); ctfw_uint(&w, 8, 8, 9);
        (*pnSeq)++;
      }else{
        ctfw_uint(&w, 8, 32, (uint64_t)(k*10 + e));
        (*pnTick)++;
      }
    }
    ctfw_patch(&w, iContent, 64, w.iBit - iStart);
    ctfw_align(&w, 64);
    ctfw_patch(&w, iSize, 64, w.iBit - iStart);
  }
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaHalves), 0);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
}

static void ctf_group_by_name_halves_of_a_stream(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zWant[64];
  int nSeq, nTick;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-halves", tl_test_tmpdir());
  ctf_write_halves(zDir, 0, 0, &nSeq, &nTick);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets(%Q)", zDir), 6);
  snprintf(zWant, sizeof(zWant), "seq|%d\ntick|%d", nSeq, nTick);
  assert_counts_by_name(db, zDir, zWant);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zDir), 0);
  tl_test_db_close(db);
}

/*
** The error of query zFmt (on zDir, then the options) with and without
** accel=off: the same, naming zFile and offset iOff.
*/
static void assert_plain_error(sqlite3 *db, const char *zFmt, const char *zDir,
                               const char *zFile, uint64_t iOff){
  char *zOn = tl_test_sql_error(db, zFmt, zDir, "");
  char *zOff = tl_test_sql_error(db, zFmt, zDir, "accel=off");
  char zOffset[64];
  snprintf(zOffset, sizeof(zOffset), "%s: offset %llu:", zFile, (unsigned long long)iOff);
  assert_non_null(zOn);
  assert_non_null(zOff);
  assert_string_equal(zOn, zOff);
  assert_non_null(strstr(zOn, zOffset));
  assert_non_null(strstr(zOn, "class id 9"));
  free(zOn);
  free(zOff);
}

/*
** An accelerated path that meets damage reports the error a plain scan
** meets first (the streams one after the other, in file order), not the
** first in its own order. Trace A damaged in chan_0's last packet and in
** chan_1's first: every shape names chan_0's event, also GROUP BY name,
** whose helper threads read chan_1 beside chan_0. The halves trace (no
** cpu_id) damaged in packets 2 and 3, one in each half of the stream, which
** GROUP BY name reads on two threads: the error is packet 2's; a count
** with a cpu filter still reads the packets, as the plain scan does.
*/
static void ctf_accelerated_errors_are_the_plain_scans(void **state){
  static const char *const azShape[] = {
    "SELECT count(*) FROM events(%Q, %Q)",
    "SELECT name, count(*) FROM events(%Q, %Q) GROUP BY name",
    "SELECT name, count(*), sum(rowid) FROM events(%Q, %Q) GROUP BY name",
    "SELECT DISTINCT name FROM events(%Q, %Q)",
    "SELECT count(*) FROM events(%Q, %Q) WHERE cpu IN (0, 1)",
    "SELECT count(*) FROM events(%Q, %Q) WHERE cpu = 0",
  };
  static const int aBad[] = { 27, 31, -1 };
  sqlite3 *db = tl_test_db();
  char zDir[512], zPath[600];
  uint64_t aOff[2], iOff0;
  size_t k;
  int s, nSeq, nTick;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-two-errors", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaA), 0);
  /* compact events (g%7!=3): 197 of chan_0 (packet 9), 4 of chan_1 (packet 0) */
  iOff0 = aEvEndA[0][196]/8;
  for(s=0; s<2; s++){
    uint8_t *a;
    size_t n;
    uint64_t iOff = s==0 ? iOff0 : aEvEndA[1][3]/8;
    snprintf(zPath, sizeof(zPath), "%s/chan_%d", ctf_dir_a(), s);
    a = tl_test_read_file(zPath, &n);
    assert_non_null(a);
    a[iOff] = (uint8_t)((a[iOff] & ~0x1f) | 9);
    snprintf(zPath, sizeof(zPath), "%s/chan_%d", zDir, s);
    assert_int_equal(tl_test_write_file(zPath, a, n), 0);
    free(a);
  }
  for(k=0; k<sizeof(azShape)/sizeof(azShape[0]) - 1; k++){
    assert_plain_error(db, azShape[k], zDir, "chan_0", iOff0);
  }
  snprintf(zDir, sizeof(zDir), "%s/ctf-halves-bad", tl_test_tmpdir());
  ctf_write_halves(zDir, aBad, aOff, &nSeq, &nTick);
  for(k=0; k<sizeof(azShape)/sizeof(azShape[0]); k++){
    assert_plain_error(db, azShape[k], zDir, "stream", aOff[0]);
  }
  tl_test_db_close(db);
}

static void ctf_corrupt_event_id(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zPath[600];
  uint8_t *a;
  size_t n;
  char *zErr;
  uint64_t iOff;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-badid", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaA), 0);
  snprintf(zPath, sizeof(zPath), "%s/chan_0", ctf_dir_a());
  a = tl_test_read_file(zPath, &n);
  assert_non_null(a);
  /* Event 4 (compact, at the byte after event 3) gets id 9, undefined. */
  iOff = aEvEndA[0][3]/8;
  a[iOff] = (uint8_t)((a[iOff] & ~0x1f) | 9);
  snprintf(zPath, sizeof(zPath), "%s/chan_0", zDir);
  assert_int_equal(tl_test_write_file(zPath, a, n), 0);
  free(a);
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "chan_0"));
  assert_non_null(strstr(zErr, "class id 9"));
  {
    char zOff[64];
    snprintf(zOff, sizeof(zOff), "offset %llu", (unsigned long long)iOff);
    assert_non_null(strstr(zErr, zOff));
  }
  free(zErr);
  /* The four events before it are returned before the error. */
  {
    sqlite3_stmt *pStmt;
    int nRow = 0, rc;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT ts FROM events(?)", -1, &pStmt, 0), SQLITE_OK);
    sqlite3_bind_text(pStmt, 1, zDir, -1, SQLITE_STATIC);
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ) nRow++;
    assert_int_not_equal(rc, SQLITE_DONE);
    assert_int_equal(nRow, 4);
    sqlite3_finalize(pStmt);
  }
  tl_test_db_close(db);
}

/* ------------------------------------------------------------ trace B */

/*
** Trace B: big-endian, no packet header or context (the file is one
** packet), an 8-bit id and a 64-bit timestamp on a 1 MHz clock with an
** offset, and a payload of bitfields, an enum-tagged variant, a sequence
** inside a variant option, a float and a text array.
*/
static const char zMetaB[] =
  "/* CTF 1.8 */\n"
  "trace { major = 1; minor = 8; byte_order = be; };\n"
  "clock { name = c; freq = 1000000; offset_s = 10; offset = 2500000; };\n"
  "stream {\n"
  "  event.header := struct { integer { size = 8; align = 8; } id;\n"
  "    integer { size = 64; align = 8; map = clock.c.value; } timestamp; };\n"
  "};\n"
  "event { name = \"bits\"; id = 1; loglevel = 13; model.emf.uri = \"http://example.com/bits\";\n"
  " fields := struct {\n"
  "  integer { size = 3; align = 1; } a;\n"
  "  integer { size = 13; align = 1; signed = true; } b;\n"
  "  enum : integer { size = 8; align = 8; } { ZERO = 0, ONE = 1, MANY = 2 ... 10 } tag;\n"
  "  variant <tag> {\n"
  "    integer { size = 16; align = 8; } ZERO;\n"
  "    string ONE;\n"
  "    struct { integer { size = 8; align = 8; } n; integer { size = 4; align = 1; } v[n]; } MANY;\n"
  "  } var;\n"
  "  floating_point { exp_dig = 8; mant_dig = 24; align = 32; } f;\n"
  "  integer { size = 8; align = 8; encoding = UTF8; } txt[6];\n"
  "}; };\n";

static void ctf_write_b(const char *zDir){
  CtfW w;
  int e;
  ctfw_init(&w, 1);
  for(e=0; e<3; e++){
    ctfw_uint(&w, 8, 8, 1);
    ctfw_uint(&w, 8, 64, (uint64_t)(1000 + e));       /* cycles of 1 us */
    ctfw_align(&w, 32);                               /* the payload struct aligns as f */
    ctfw_uint(&w, 1, 3, 5);                           /* a = 5 */
    ctfw_uint(&w, 1, 13, 0x1FFF & (uint64_t)-100);    /* b = -100 */
    ctfw_uint(&w, 8, 8, (uint64_t)(e==2 ? 7 : e));    /* tag */
    if( e==0 ) ctfw_uint(&w, 8, 16, 4242);
    if( e==1 ) ctfw_string(&w, "one");
    if( e==2 ){
      ctfw_uint(&w, 8, 8, 3);
      ctfw_uint(&w, 1, 4, 1); ctfw_uint(&w, 1, 4, 15); ctfw_uint(&w, 1, 4, 9);
    }
    ctfw_uint(&w, 32, 32, 0x3FC00000);                /* 1.5f */
    ctfw_uint(&w, 8, 8, 'h'); ctfw_uint(&w, 8, 8, 'i');
    ctfw_uint(&w, 8, 8, 0); ctfw_uint(&w, 8, 8, 'x');
    ctfw_uint(&w, 8, 8, 'y'); ctfw_uint(&w, 8, 8, 'z');
  }
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaB), 0);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
}

static void ctf_big_endian_bitfields_variants(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512];
  char *z;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-b", tl_test_tmpdir());
  ctf_write_b(zDir);
  /* ts = 10 s + 2500000 cycles of 1 us + 1000+e cycles = 12.501000 s + e us. */
  z = tl_test_sql_rows(db, "SELECT ts, ts_raw, name, cpu FROM events(%Q)", zDir);
  assert_string_equal(z, "12501000000|1000|bits|\n12501001000|1001|bits|\n12501002000|1002|bits|");
  free(z);
  z = tl_test_sql_rows(db, "SELECT args->>'$.a', args->>'$.b', args->>'$.tag.label', args->>'$.tag.value',"
                           " args->>'$.var', args->>'$.f', args->>'$.txt' FROM events(%Q)", zDir);
  assert_string_equal(z, "5|-100|ZERO|0|4242|1.5|hi\n"
                         "5|-100|ONE|1|one|1.5|hi\n"
                         "5|-100|MANY|7|{\"n\":3,\"v\":[1,15,9]}|1.5|hi");
  free(z);
  z = tl_test_sql_rows(db, "SELECT id, name, args->>'$.loglevel', args->>'$.emf_uri',"
                           " args->>'$.fields.members[0][0]' FROM event_types(%Q)", zDir);
  assert_string_equal(z, "1|bits|13|http://example.com/bits|a");
  free(z);
  /* babeltrace2 2.0.4 prints this trace as (after "bits: "): */
  z = tl_test_sql_rows(db, "SELECT text FROM events(%Q)", zDir);
  assert_string_equal(z,
    "{ a = 5, b = -100, tag = ( \"ZERO\" : container = 0 ), var = { 4242 }, f = 1.5, txt = \"hi\" }\n"
    "{ a = 5, b = -100, tag = ( \"ONE\" : container = 1 ), var = { \"one\" }, f = 1.5, txt = \"hi\" }\n"
    "{ a = 5, b = -100, tag = ( \"MANY\" : container = 7 ), var = { { n = 3, v = [ [0] = 1, [1] = 15, [2] = 9 ] } }, f = 1.5, txt = \"hi\" }");
  free(z);
  tl_test_db_close(db);
}

/*
** Trace C: strings of every length from 0 to 80 bytes, each followed by
** its length as a 16-bit integer, in one stream with no packet header; the
** last event's string leaves fewer than eight bytes to the end. The plans
** skip each string without decoding it (eight bytes at a time, then
** memchr past 32); a wrong landing shifts every later header.
*/
#define CTF_C_N 81
static const char zMetaC[] =
  "/* CTF 1.8 */\n"
  "trace { major = 1; minor = 8; byte_order = le; };\n"
  "stream {\n"
  "  event.header := struct { integer { size = 8; align = 8; } id;\n"
  "    integer { size = 64; align = 8; } timestamp; };\n"
  "};\n"
  "event { name = s; id = 0; fields := struct {\n"
  "  string s; integer { size = 16; align = 8; } n; }; };\n";

static void ctf_plans_skip_strings_of_every_length(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zStr[96], *z;
  char zWant[CTF_C_N*8];
  size_t nWant = 0;
  CtfW w;
  int k, j;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-c", tl_test_tmpdir());
  ctfw_init(&w, 0);
  for(k=0; k<CTF_C_N; k++){
    int len = k==CTF_C_N-1 ? 3 : k;
    for(j=0; j<len; j++) zStr[j] = (char)('a' + (k+j)%26);
    zStr[len] = 0;
    ctfw_uint(&w, 8, 8, 0);
    ctfw_uint(&w, 8, 64, (uint64_t)(1000 + k));
    ctfw_string(&w, zStr);
    ctfw_uint(&w, 8, 16, (uint64_t)len);
    nWant += (size_t)snprintf(zWant + nWant, sizeof(zWant) - nWant, "%s%d", k ? "," : "", 1000 + k);
  }
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaC), 0);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  /* counted by the plans, whole and by name */
  z = tl_test_sql_rows(db, "SELECT count(*) FROM events(%Q)", zDir);
  assert_string_equal(z, "81");
  free(z);
  z = tl_test_sql_rows(db, "SELECT name, count(*) FROM events(%Q) GROUP BY name", zDir);
  assert_string_equal(z, "s|81");
  free(z);
  /* read by the plans: every header where it was written */
  z = tl_test_sql_rows(db, "SELECT group_concat(ts_raw) FROM events(%Q)", zDir);
  assert_string_equal(z, zWant);
  free(z);
  /* and by the full decoder: 0 + 1 + ... + 79, and 3 */
  z = tl_test_sql_rows(db, "SELECT sum(args->>'$.n'), max(length(args->>'$.s')) FROM events(%Q)", zDir);
  assert_string_equal(z, "3163|79");
  free(z);
  tl_test_db_close(db);
}

static void ctf_clock_option(void **state){
  sqlite3 *db = tl_test_db();
  char *zErr;
  (void)state;
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q, 'ctf_clock=fast')", ctf_dir_a());
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "ctf_clock"));
  free(zErr);
  assert_true(tl_test_sql_int(db, "SELECT min(ts) FROM events(%Q, 'ctf_clock=exact')", ctf_dir_a())
              == ctf_a_ns(0, 0));
  tl_test_db_close(db);
}

/*
** Lengths from the stream that claim more than exists: an array of 2^40
** empty structs (no bits to run out of) stops at the field cap with a
** clear error; 2^19 of them fit, and the byte sequence of the same length
** then runs past the packet.
*/
static void ctf_hostile_lengths_are_bounded(void **state){
  static const char zMeta[] =
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = e; fields := struct {\n"
    "  integer { size = 64; align = 8; } n;\n"
    "  struct { } a[n];\n"
    "  integer { size = 8; align = 8; } b[n];\n"
    "}; };\n";
  sqlite3 *db = tl_test_db();
  char zDir[512];
  char *zErr;
  CtfW w;
  int i;
  (void)state;
  for(i=0; i<2; i++){
    snprintf(zDir, sizeof(zDir), "%s/ctf-hostile-%d", tl_test_tmpdir(), i);
    assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
    ctfw_init(&w, 0);
    ctfw_uint(&w, 8, 64, i==0 ? UINT64_C(1)<<40 : UINT64_C(0));
    if( i==1 ){
      /* n = 0, then a second event whose n is 2^19 with 4 bytes after it. */
      ctfw_uint(&w, 8, 64, UINT64_C(1)<<19);
      ctfw_uint(&w, 8, 32, 0);
    }
    assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
    ctfw_free(&w);
    zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
    assert_non_null(zErr);
    /* (a sequence of 2^19 empty structs is refused before the end is met) */
    assert_non_null(strstr(zErr, "fields of no size repeated are refused"));
    free(zErr);
  }
  /* A string literal with an escape C does not have: the metadata line. */
  snprintf(zDir, sizeof(zDir), "%s/ctf-escape", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata",
      "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n"
      "env { x = \"a\\o\"; };\n"), 0);
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "metadata line 3: unknown escape sequence"));
  free(zErr);
  tl_test_db_close(db);
}

/*
** The text column, rule by rule: small traces written here, and for each
** the lines babeltrace2 2.0.4 printed for it (after "<name>: "), captured
** by running babeltrace2 on exactly these bytes: integer bases and widths,
** enums with several or no labels, string escapes, floats, the scopes
** printed (packet context without its packet properties), empty
** compounds, variants, arrays of structs.
*/
static const struct CtfTextCase {
  const char *zName;
  const char *zMeta;
  const char *aData;
  size_t nData;
  const char *zWant;
} aTextCase[] = {
  { "ints",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = e; fields := struct {\n"
    " integer { size = 16; align = 8; signed = true; base = 16; } sh;\n"
    " integer { size = 16; align = 8; signed = false; base = 16; } uh;\n"
    " integer { size = 8; align = 8; signed = true; base = 8; } so;\n"
    " integer { size = 8; align = 8; signed = false; base = 2; } ub;\n"
    " integer { size = 64; align = 8; signed = false; base = 16; } big;\n"
    " integer { size = 64; align = 8; signed = false; base = 10; } bigd;\n"
    " integer { size = 8; align = 8; signed = false; encoding = UTF8; } ch;\n"
    " integer { size = 5; align = 1; signed = true; base = 2; } sb;\n"
    " integer { size = 3; align = 1; signed = false; } pad;\n"
    "}; };\n"
    "",
    "\376\377\315\253\375\005\276\272\376\312\357\276\255\336\377\377\377\377\377\377\377\377A\033", 24,
    "{ sh = 0xFFFE, uh = 0xABCD, so = 0775, ub = 0b00000101, big = 0xDEADBEEFCAFEBABE, bigd = 18446744073709551615, ch = 65, sb = 0b11011, pad = 0 }" },
  { "enums",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = e; fields := struct {\n"
    " enum : integer { size = 8; align = 8; } { A = 0 ... 5, B = 3 ... 9, C = 20 } x;\n"
    " enum : integer { size = 8; align = 8; signed = true; } { NEG = -5 ... -1, POS = 1 } y;\n"
    "}; };\n"
    "",
    "\004\3772\000\024\003", 6,
    "{ x = ( \"A\", \"B\" : container = 4 ), y = ( \"NEG\" : container = -1 ) }\012{ x = ( <unknown> : container = 50 ), y = ( <unknown> : container = 0 ) }\012{ x = ( \"C\" : container = 20 ), y = ( <unknown> : container = 3 ) }" },
  { "strs",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = e; fields := struct { string s; integer { size = 8; align = 8; encoding = UTF8; } t[6]; }; };\n"
    "",
    "a\"b\\c\011d\012e\001f\177g'h\077i\303\251j\033k\000x\"y\002\000z", 29,
    "{ s = \"a\\\"b\\\\c\\td\\ne\\x01f\\x7fg\\'h\\\077i\303\251j\\ek\", t = \"x\\\"y\\x02\" }" },
  { "floats",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = e; fields := struct {\n"
    " floating_point { exp_dig = 8; mant_dig = 24; align = 8; } f;\n"
    " floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d1;\n"
    " floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d2;\n"
    " floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d3;\n"
    " floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d4;\n"
    "}; };\n"
    "",
    "\000\000\300\077@\214\265x\035\257\025D\000\000\000\000\000\000\000\200\000\000\000\000\000\000\370\177\266\363}T4o\235A", 36,
    "{ f = 1.5, d1 = 1e+20, d2 = -0, d3 = nan, d4 = 1.23457e+08 }" },
  { "scopes",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "stream { packet.context := struct { integer { size = 64; align = 8; } content_size; integer { size = 64; align = 8; } packet_size; integer { size = 32; align = 8; } cpu_id; integer { size = 8; align = 8; } extra; };\n"
    " event.header := struct { integer { size = 8; align = 8; } id; };\n"
    " event.context := struct { integer { size = 8; align = 8; } sc; };\n"
    "};\n"
    "event { name = e; id = 0; context := struct { integer { size = 8; align = 8; } ec; }; fields := struct { integer { size = 8; align = 8; } p; }; };\n"
    "event { name = f; id = 1; fields := struct { }; };\n"
    "",
    "\330\000\000\000\000\000\000\000\330\000\000\000\000\000\000\000\003\000\000\000\011\000\001\002\003\001\005", 27,
    "{ cpu_id = 3, extra = 9 }, { sc = 1 }, { ec = 2 }, { p = 3 }\012{ cpu_id = 3, extra = 9 }, { sc = 5 }, { }" },
  { "empty",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "stream { packet.context := struct { integer { size = 64; align = 8; } content_size; integer { size = 64; align = 8; } packet_size; };\n"
    " event.header := struct { integer { size = 8; align = 8; } id; };\n"
    "};\n"
    "event { name = e; id = 0; fields := struct { struct { } es; integer { size = 8; align = 8; } a[0]; integer { size = 8; align = 8; } n; }; };\n"
    "event { name = f; id = 1; fields := struct { }; };\n"
    "event { name = g; id = 2; context := struct { integer { size = 8; align = 8; } c; }; };\n"
    "event { name = h; id = 3; };\n"
    "",
    "\260\000\000\000\000\000\000\000\260\000\000\000\000\000\000\000\000\007\001\002\011\003", 22,
    "{ es = { }, a = [ ], n = 7 }\012{ }\012{ c = 9 }\012" },
  { "compound",
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = e; fields := struct {\n"
    " enum : integer { size = 8; align = 8; } { A, B } tag;\n"
    " variant <tag> { integer { size = 8; align = 8; } A; string B; } v;\n"
    " integer { size = 8; align = 8; } n;\n"
    " struct { integer { size = 8; align = 8; } x; string s; } a[n];\n"
    " integer { size = 16; align = 8; base = 16; } h[2];\n"
    "}; };\n"
    "",
    "\000\007\002\001q\000\002\0004\022\315\253\001hi\000\000xV\000\000", 21,
    "{ tag = ( \"A\" : container = 0 ), v = { 7 }, n = 2, a = [ [0] = { x = 1, s = \"q\" }, [1] = { x = 2, s = \"\" } ], h = [ [0] = 0x1234, [1] = 0xABCD ] }\012{ tag = ( \"B\" : container = 1 ), v = { \"hi\" }, n = 0, a = [ ], h = [ [0] = 0x5678, [1] = 0x0 ] }" },
};

static void ctf_text_like_babeltrace2(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(aTextCase)/sizeof(aTextCase[0]); k++){
    const struct CtfTextCase *c = &aTextCase[k];
    char zDir[512];
    char *z;
    snprintf(zDir, sizeof(zDir), "%s/text-%s", tl_test_tmpdir(), c->zName);
    assert_int_equal(ctfw_save_text(zDir, "metadata", c->zMeta), 0);
    {
      char zPath[600];
      snprintf(zPath, sizeof(zPath), "%s/stream", zDir);
      assert_int_equal(tl_test_write_file(zPath, c->aData, c->nData), 0);
    }
    z = tl_test_sql_rows(db, "SELECT text FROM events(%Q)", zDir);
    if( strcmp(z, c->zWant)!=0 ) fail_msg("%s:\n got  %s\n want %s", c->zName, z, c->zWant);
    free(z);
  }
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(ctf,
  cmocka_unit_test(ctf_text_like_babeltrace2),
  cmocka_unit_test(ctf_hostile_lengths_are_bounded),
  cmocka_unit_test(ctf_merged_time_order),
  cmocka_unit_test(ctf_window_counts_by_packet),
  cmocka_unit_test(ctf_window_counts_by_clock_value),
  cmocka_unit_test(ctf_payload_values),
  cmocka_unit_test(ctf_counts_of_packets_read_in_parts),
  cmocka_unit_test(ctf_window_reads_few_packets),
  cmocka_unit_test(ctf_packets_tracks_warnings),
  cmocka_unit_test(ctf_paths_metadata_and_parent),
  cmocka_unit_test(ctf_truncated_stream),
  cmocka_unit_test(ctf_group_by_name_two_streams_at_once),
  cmocka_unit_test(ctf_group_by_name_halves_of_a_stream),
  cmocka_unit_test(ctf_corrupt_event_id),
  cmocka_unit_test(ctf_accelerated_errors_are_the_plain_scans),
  cmocka_unit_test(ctf_big_endian_bitfields_variants),
  cmocka_unit_test(ctf_plans_skip_strings_of_every_length),
  cmocka_unit_test(ctf_clock_option),
);
