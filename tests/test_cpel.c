/*
** test_cpel.c: the CPEL reader, through SQL and alone.
**
** The files are written by tests/cpel_writer.c to the layout of the CPEL
** definition (readers/cpel.h); every expected value below follows from
** what was written and from the format's rules (ts = ticks * 1e9 / ticks
** per second, formats rendered with the datum, E%d for missing
** definitions, nearest symbol + offset for %k). The comparison with
** cpeldump's own output on real files is `make conformance`.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "cpel/cpel.h"
#include "cpel_writer.h"
#include "trace.h"

/* ---- the sample file ------------------------------------------------------ */

#define N_EV1 200                 /* events in section 1 (ns clock) */
#define N_EV2 50                  /* events in section 2 (us clock) */

enum { S_NAME, S_RX, S_PCT_S, S_W1, S_W2, S_PKT, S_PKTFMT, S_HELLO, S_CALL,
       S_SYMFMT, S_WORLD, S_COUNT };
static const char *const azMain[S_COUNT] = {
  "FileStrtab", "rx", "%s", "workers 1", "workers 2", "pkt", "pkt %d len 0x%04x",
  "hello", "call", "sym %k", "world"
};
enum { O_NAME, O_TX, O_D, O_IO, O_COUNT };
static const char *const azOther[O_COUNT] = { "Other", "tx", "%d", "io %d" };
enum { Y_NAME, Y_MAIN, Y_FOO, Y_COUNT };
static const char *const azSyms[Y_COUNT] = { "Syms", "main", "foo" };

typedef struct Sample Sample;
struct Sample {
  uint32_t aMain[S_COUNT], aOther[O_COUNT], aSym[Y_COUNT];
  size_t iEv1, iEv2;              /* file offsets of the first events */
  size_t aSecEnd[16];             /* offset after each section */
  int nSec;
};

/* Event i of section 1: its code, track and datum (see build_sample). */
static void ev1(const Sample *s, int i, uint32_t *pCode, uint32_t *pTrack, uint32_t *pDatum){
  switch( i%4 ){
    case 0: *pCode = 1; *pDatum = (i%8==0) ? s->aMain[S_HELLO] : s->aMain[S_WORLD]; break;
    case 1: *pCode = 2; *pDatum = (uint32_t)i; break;
    case 2: *pCode = 3; *pDatum = 0x2000 + (uint32_t)i; break;
    default: *pCode = 4; *pDatum = 7; break;
  }
  *pTrack = (i%5==4) ? 9 : (uint32_t)(i%2);
}

static void build_sample(CpelW *w, int bLittle, Sample *s){
  int i;
  memset(s, 0, sizeof(*s));
  cw_init(w, bLittle, 10);
  /* Definitions come before the string tables they name: readers must
  ** take two passes. */
  {
    /* offsets are known before writing: compute them with a dry run */
    uint32_t off = 0;
    for(i=0; i<S_COUNT; i++){ s->aMain[i] = off; off += (uint32_t)strlen(azMain[i])+1; }
    off = 0;
    for(i=0; i<O_COUNT; i++){ s->aOther[i] = off; off += (uint32_t)strlen(azOther[i])+1; }
    off = 0;
    for(i=0; i<Y_COUNT; i++){ s->aSym[i] = off; off += (uint32_t)strlen(azSyms[i])+1; }
  }
  cw_sec_begin(w, 3);                         /* EVTDEF in FileStrtab */
  cw_name(w, "FileStrtab");
  cw_u32(w, 4);
  cw_u32(w, 1); cw_u32(w, s->aMain[S_RX]);   cw_u32(w, s->aMain[S_PCT_S]);
  cw_u32(w, 2); cw_u32(w, s->aMain[S_PKT]);  cw_u32(w, s->aMain[S_PKTFMT]);
  cw_u32(w, 3); cw_u32(w, s->aMain[S_CALL]); cw_u32(w, s->aMain[S_SYMFMT]);
  cw_u32(w, 1); cw_u32(w, s->aMain[S_W1]);   cw_u32(w, 0);   /* redefined: ignored */
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
  cw_strtab(w, azMain, S_COUNT, 0);
  s->aSecEnd[s->nSec++] = w->n;
  cw_strtab(w, azOther, O_COUNT, 0);
  s->aSecEnd[s->nSec++] = w->n;
  cw_sec_begin(w, 3);                         /* EVTDEF in Other */
  cw_name(w, "Other");
  cw_u32(w, 1);
  cw_u32(w, 5); cw_u32(w, s->aOther[O_TX]); cw_u32(w, s->aOther[O_D]);
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
  cw_strtab(w, azSyms, Y_COUNT, 0);
  s->aSecEnd[s->nSec++] = w->n;
  cw_sec_begin(w, 2);                         /* SYMTAB */
  cw_name(w, "Syms");
  cw_u32(w, 2);
  cw_u32(w, 0x1000); cw_u32(w, s->aSym[Y_MAIN]);
  cw_u32(w, 0x2000); cw_u32(w, s->aSym[Y_FOO]);
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
  cw_sec_begin(w, 4);                         /* TRACKDEF in FileStrtab */
  cw_name(w, "FileStrtab");
  cw_u32(w, 2);
  cw_u32(w, 0); cw_u32(w, s->aMain[S_W1]);
  cw_u32(w, 1); cw_u32(w, s->aMain[S_W2]);
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
  cw_sec_begin(w, 4);                         /* TRACKDEF in Other */
  cw_name(w, "Other");
  cw_u32(w, 1);
  cw_u32(w, 20); cw_u32(w, s->aOther[O_IO]);
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
  cw_sec_begin(w, 5);                         /* EVENTS: ns clock (per second) */
  cw_name(w, "FileStrtab");
  cw_u32(w, N_EV1);
  cw_u32(w, 1000000000);
  s->iEv1 = w->n;
  for(i=0; i<N_EV1; i++){
    uint32_t code, track, datum;
    ev1(s, i, &code, &track, &datum);
    cw_event(w, 5000000000ull + (uint64_t)i*1000, track, code, datum);
  }
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
  cw_sec_begin(w, 5);                         /* EVENTS: 500 ticks per us */
  cw_name(w, "Other");
  cw_u32(w, N_EV2);
  cw_u32(w, 500);
  s->iEv2 = w->n;
  for(i=0; i<N_EV2; i++){
    /* ts = ticks*1000/500 = 2*ticks: interleaves with section 1 */
    cw_event(w, 2500000000ull + (uint64_t)i*2000 + 250, 20, 5, (uint32_t)(-i));
  }
  cw_sec_end(w);
  s->aSecEnd[s->nSec++] = w->n;
}

static const char *sample_path(int bLittle, Sample *s){
  CpelW w;
  const char *z;
  build_sample(&w, bLittle, s);
  z = cw_save(&w, bLittle ? "sample-le.cpel" : "sample-be.cpel");
  cw_free(&w);
  return z;
}

/* ---- formatting ---------------------------------------------------------- */

static void fmt(char *zOut, size_t n, const char *zFmt, uint32_t v,
                const char *zStr, const char *zSym){
  TlStr s;
  tl_str_init(&s);
  tl_str_append(&s, "", 0);
  tl_cpel_format(&s, zFmt, v, zStr, zSym);
  snprintf(zOut, n, "%s", s.z);
  tl_str_free(&s);
}

static void cpel_format_every_conversion_takes_the_datum(void **state){
  char z[200];
  (void)state;
  fmt(z, sizeof(z), "0x%08x(%d)", 255, 0, 0);
  assert_string_equal(z, "0x000000ff(255)");
  fmt(z, sizeof(z), "%d %u %o %X", 0xFFFFFFFFu, 0, 0);
  assert_string_equal(z, "-1 4294967295 37777777777 FFFFFFFF");
  fmt(z, sizeof(z), "[%5d|%-5d|%05u]", 42, 0, 0);
  assert_string_equal(z, "[   42|42   |00042]");
  fmt(z, sizeof(z), "100%% %c", 'A', 0, 0);
  assert_string_equal(z, "100% A");
  fmt(z, sizeof(z), "%lu %hx %lld", 10, 0, 0);
  assert_string_equal(z, "10 a 10");
}

static void cpel_format_strings_symbols_and_oddities(void **state){
  char z[200];
  (void)state;
  fmt(z, sizeof(z), "<%s>", 5, "abc", 0);
  assert_string_equal(z, "<abc>");
  fmt(z, sizeof(z), "<%-6s|%6.2s>", 5, "abc", 0);
  assert_string_equal(z, "<abc   |    ab>");
  fmt(z, sizeof(z), "<%s>", 5, 0, 0);
  assert_string_equal(z, "<>");
  fmt(z, sizeof(z), "at %k", 0x1234, 0, "main+0x34");
  assert_string_equal(z, "at main+0x34");
  fmt(z, sizeof(z), "at %k", 0x1234, 0, 0);
  assert_string_equal(z, "at 0x1234");
  fmt(z, sizeof(z), "%q %y end %", 1, 0, 0);
  assert_string_equal(z, "%q %y end %");
  fmt(z, sizeof(z), "%999999999d", 1, 0, 0);   /* width capped, no huge output */
  assert_int_equal(strlen(z), 199);
}

/* ---- the sample through SQL ---------------------------------------------- */

static void cpel_sample_rows_follow_the_definitions(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  char *z;
  int i;
  (void)state;
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), N_EV1+N_EV2);
  /* Section 1: ns clock given per second: ts = ticks. */
  for(i=0; i<N_EV1; i+=37){
    uint32_t code, track, datum;
    char zWant[128];
    int64_t off = (int64_t)(s.iEv1 + (size_t)i*20);
    ev1(&s, i, &code, &track, &datum);
    assert_int_equal(tl_test_sql_int(db, "SELECT ts FROM events(%Q) WHERE rowid=%lld", zPath, off),
                     5000000000ll + i*1000);
    assert_int_equal(tl_test_sql_int(db, "SELECT track FROM events(%Q) WHERE rowid=%lld", zPath, off), track);
    assert_int_equal(tl_test_sql_int(db, "SELECT value FROM events(%Q) WHERE rowid=%lld", zPath, off), datum);
    z = tl_test_sql_rows(db, "SELECT name, text, type FROM events(%Q) WHERE rowid=%lld", zPath, off);
    switch( code ){
      case 1: snprintf(zWant, sizeof(zWant), "rx|%s|event", i%8==0 ? "hello" : "world"); break;
      case 2: snprintf(zWant, sizeof(zWant), "pkt|pkt %d len 0x%04x|event", i, i); break;
      case 3: snprintf(zWant, sizeof(zWant), "call|sym foo+0x%x|event", i); break;
      default: snprintf(zWant, sizeof(zWant), "E4||event"); break;
    }
    assert_string_equal(z, zWant);
    free(z);
  }
  /* Section 2: clock 500 is below a million, so ticks per microsecond. */
  assert_int_equal(tl_test_sql_int(db, "SELECT ts FROM events(%Q) WHERE rowid=%lld", zPath,
                                   (long long)(s.iEv2 + 3*20)), 2*(2500000000ll + 3*2000 + 250));
  z = tl_test_sql_rows(db, "SELECT name, text, ts_raw FROM events(%Q) WHERE rowid=%lld", zPath,
                       (long long)(s.iEv2 + 3*20));
  assert_string_equal(z, "tx|-3|2500006250");
  free(z);
  /* The datum %s of section 2 looks in its own table "Other". */
  z = tl_test_sql_rows(db, "SELECT args FROM events(%Q) WHERE rowid=%lld", zPath,
                       (long long)(s.iEv2 + 1*20));
  assert_string_equal(z, "{\"code\":5,\"datum\":4294967295,\"track\":20}");
  free(z);
  tl_test_db_close(db);
}

static void cpel_sample_tracks_join_events(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* Section 1: track 9 every 5th event (40), else 0/1 by parity: of the
  ** 160 others, i%2 splits 80/80. Section 2: 50 on track 20. */
  z = tl_test_sql_rows(db,
      "SELECT t.id, t.name, count(*), t.events FROM events(%Q) e JOIN tracks(%Q) t ON e.track=t.id "
      "GROUP BY t.id ORDER BY t.id", zPath, zPath);
  assert_string_equal(z, "0|workers 1|80|80\n1|workers 2|80|80\n9|9|40|40\n20|io 20|50|50");
  free(z);
  z = tl_test_sql_rows(db, "SELECT id, first_ts, last_ts FROM tracks(%Q) WHERE id IN (0, 20)", zPath);
  assert_string_equal(z, "0|5000000000|5000198000\n20|5000000500|5000196500");
  free(z);
  z = tl_test_sql_rows(db, "SELECT id, name, format, args FROM event_types(%Q)", zPath);
  assert_string_equal(z, "1|rx|rx|{\"datum_format\":\"%s\"}\n"
                         "2|pkt|pkt|{\"datum_format\":\"pkt %d len 0x%04x\"}\n"
                         "3|call|call|{\"datum_format\":\"sym %k\"}\n"
                         "5|tx|tx|{\"datum_format\":\"%d\"}");
  free(z);
  z = tl_test_sql_rows(db, "SELECT addr, size, name FROM symbols(%Q)", zPath);
  assert_string_equal(z, "4096|4096|main\n8192||foo");
  free(z);
  z = tl_test_sql_rows(db, "SELECT offset, size, events, ts_begin, ts_end FROM packets(%Q)", zPath);
  {
    char zWant[200];
    snprintf(zWant, sizeof(zWant), "%zu|%d|%d|5000000000|5000199000\n%zu|%d|%d|5000000500|5000196500",
             s.iEv1, N_EV1*20, N_EV1, s.iEv2, N_EV2*20, N_EV2);
    assert_string_equal(z, zWant);
  }
  free(z);
  tl_test_db_close(db);
}

static void cpel_little_endian_reads_like_big_endian(void **state){
  Sample s1, s2;
  const char *zBe = sample_path(0, &s1);
  const char *zLe = sample_path(1, &s2);
  sqlite3 *db = tl_test_db();
  char *zA, *zB;
  (void)state;
  zA = tl_test_sql_rows(db, "SELECT ts, ts_raw, track, name, value, text FROM events(%Q)", zBe);
  zB = tl_test_sql_rows(db, "SELECT ts, ts_raw, track, name, value, text FROM events(%Q)", zLe);
  assert_true(strlen(zA) > 1000);
  assert_string_equal(zA, zB);
  free(zA); free(zB);
  zA = tl_test_sql_rows(db, "SELECT * FROM tracks(%Q)", zBe);
  zB = tl_test_sql_rows(db, "SELECT * FROM tracks(%Q)", zLe);
  assert_string_equal(zA, zB);
  free(zA); free(zB);
  tl_test_db_close(db);
}

static void cpel_clock_option_overrides_the_guess(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* per_second: section 2's 500 ticks/s -> ts = ticks * 2e6 */
  assert_int_equal(tl_test_sql_int(db, "SELECT ts FROM events(%Q, 'cpel_clock=per_second') WHERE rowid=%lld",
                                   zPath, (long long)s.iEv2), 2500000250ll*2000000);
  /* per_us: section 1's 1e9 ticks/us -> ts = ticks / 1e6 */
  assert_int_equal(tl_test_sql_int(db, "SELECT ts FROM events(%Q, 'cpel_clock=per_us') WHERE rowid=%lld",
                                   zPath, (long long)s.iEv1 + 20*100), 5000);
  z = tl_test_sql_error(db, "SELECT * FROM events(%Q, 'cpel_clock=weekly')", zPath);
  assert_non_null(z);
  assert_non_null(strstr(z, "cpel_clock must be per_us or per_second"));
  free(z);
  tl_test_db_close(db);
}

/* Count of sample events in [a, b], from the definition of the sample. */
static int64_t sample_window_count(int64_t a, int64_t b){
  int64_t n = 0;
  int i;
  for(i=0; i<N_EV1; i++){
    int64_t ts = 5000000000ll + i*1000;
    if( ts>=a && ts<=b ) n++;
  }
  for(i=0; i<N_EV2; i++){
    int64_t ts = 2*(2500000000ll + i*2000 + 250);
    if( ts>=a && ts<=b ) n++;
  }
  return n;
}

static void cpel_ts_window_equals_unfiltered_count(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  unsigned seed = 12345;
  int k;
  (void)state;
  for(k=0; k<200; k++){
    int64_t a, b;
    seed = seed*1103515245u + 12345u;
    a = 4999990000ll + (int64_t)(seed % 220000);
    seed = seed*1103515245u + 12345u;
    b = a + (int64_t)(seed % 60000) - 5000;
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN %lld AND %lld",
                                     zPath, a, b), sample_window_count(a, b));
    /* The same window without pushdown (+ts hides the column). */
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE +ts BETWEEN %lld AND %lld",
                                     zPath, a, b), sample_window_count(a, b));
  }
  /* Strict bounds, equality, reals and text compare like SQLite does. */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts > 5000000000 AND ts < 5000003000", zPath), 3);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts = 5000001000", zPath), 1);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts >= 5000000999.5 AND ts <= 5000002000.0", zPath), 2);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts = 5000001000.5", zPath), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts < 'abc'", zPath), N_EV1+N_EV2);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts > 'abc'", zPath), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts > NULL", zPath), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts <= 9223372036854775807 AND ts >= -9223372036854775808", zPath), N_EV1+N_EV2);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts > 9223372036854775807", zPath), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts > 1e30", zPath), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts > -1e30", zPath), N_EV1+N_EV2);
  /* CPEL has no CPU: a cpu filter matches nothing. */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu = 1", zPath), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE cpu IN (0, 1)", zPath), 0);
  tl_test_db_close(db);
}

static void cpel_order_by_ts_merges_sections(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* The two sections interleave in time; ORDER BY ts is consumed. */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM (SELECT ts, lag(ts) OVER () AS p FROM "
      "(SELECT ts FROM events(%Q) ORDER BY ts)) WHERE p > ts", zPath), 0);
  z = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT ts FROM events(%Q) ORDER BY ts", zPath);
  assert_null(strstr(z, "TEMP B-TREE"));
  free(z);
  z = tl_test_sql_rows(db, "SELECT ts, name FROM events(%Q) WHERE ts BETWEEN 5000000000 AND 5000002000 ORDER BY ts", zPath);
  assert_string_equal(z, "5000000000|rx\n5000000500|tx\n5000001000|pkt\n5000002000|call");
  free(z);
  /* Descending order is left to SQLite and still right. */
  z = tl_test_sql_rows(db, "SELECT ts FROM events(%Q) ORDER BY ts DESC LIMIT 2", zPath);
  assert_string_equal(z, "5000199000\n5000198000");
  free(z);
  tl_test_db_close(db);
}

static void cpel_unsorted_section_still_filters_exactly(void **state){
  CpelW w;
  const char *zPath;
  sqlite3 *db;
  char *z;
  static const char *const az[] = { "T", "e" };
  (void)state;
  cw_init(&w, 0, 2);
  cw_strtab(&w, az, 2, 0);
  cw_sec_begin(&w, 5);
  cw_name(&w, "T");
  cw_u32(&w, 5);
  cw_u32(&w, 1000000000);
  cw_event(&w, 50, 1, 1, 0);
  cw_event(&w, 10, 1, 1, 1);
  cw_event(&w, 40, 2, 1, 2);
  cw_event(&w, 20, 2, 1, 3);
  cw_event(&w, 30, 1, 1, 4);
  cw_sec_end(&w);
  zPath = cw_save(&w, "unsorted.cpel");
  cw_free(&w);
  db = tl_test_db();
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN 15 AND 45", zPath), 3);
  z = tl_test_sql_rows(db, "SELECT value FROM events(%Q) ORDER BY ts", zPath);
  assert_string_equal(z, "1\n3\n4\n2\n0");
  free(z);
  z = tl_test_sql_rows(db, "SELECT name, value FROM events(%Q) LIMIT 1", zPath);
  assert_string_equal(z, "E1|0");          /* no definition: E%d, no datum text */
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q) WHERE message LIKE '%%not in time order%%'", zPath), 1);
  tl_test_db_close(db);
}

/*
** Events complete in the first nCut bytes of the sample: section 1's events
** count when the section header (72 bytes before iEv1) is complete.
*/
static int64_t complete_events(const Sample *s, size_t nCut){
  int64_t n = 0;
  if( nCut >= s->iEv1 ) n += (int64_t)((nCut - s->iEv1)/20 < N_EV1 ? (nCut - s->iEv1)/20 : N_EV1);
  if( nCut >= s->iEv2 ) n += (int64_t)((nCut - s->iEv2)/20 < N_EV2 ? (nCut - s->iEv2)/20 : N_EV2);
  return n;
}

static void cpel_every_truncation_gives_complete_events(void **state){
  Sample s;
  CpelW w;
  sqlite3 *db = tl_test_db();
  size_t nCut;
  char zPath[512];
  (void)state;
  build_sample(&w, 0, &s);
  snprintf(zPath, sizeof(zPath), "%s/cut.cpel", tl_test_tmpdir());
  for(nCut=0; nCut<w.n; nCut += (nCut<s.iEv1 ? 1 : 7)){
    sqlite3_stmt *pStmt;
    int rc;
    assert_int_equal(tl_test_write_file(zPath, w.a, nCut), 0);
    pStmt = 0;
    {
      char *zSql = sqlite3_mprintf("SELECT count(*) FROM events(%Q)", zPath);
      assert_int_equal(sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0), SQLITE_OK);
      sqlite3_free(zSql);
    }
    rc = sqlite3_step(pStmt);
    if( nCut<16 ){
      /* Too short to be recognised, or a header cut short: a clear error. */
      assert_int_equal(rc, SQLITE_ERROR);
      assert_non_null(strstr(sqlite3_errmsg(db), "cut.cpel"));
    }else{
      assert_int_equal(rc, SQLITE_ROW);
      assert_int_equal(sqlite3_column_int64(pStmt, 0), complete_events(&s, nCut));
    }
    sqlite3_finalize(pStmt);
    if( nCut>=16 && nCut<s.aSecEnd[s.nSec-1] ){
      /* A cut file says so, with an offset. */
      assert_true(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q) WHERE offset IS NOT NULL", zPath) >= 1);
    }
  }
  assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zPath), 0);
  cw_free(&w);
  tl_test_db_close(db);
}

static void cpel_corrupt_lengths_warn_with_offsets(void **state){
  Sample s;
  CpelW w;
  sqlite3 *db = tl_test_db();
  const char *zPath;
  char *z;
  uint8_t *a;
  (void)state;
  /* The events section claims more events than its length holds. */
  build_sample(&w, 0, &s);
  a = w.a + s.iEv1 - 8;                       /* number_of_events */
  a[0] = 0x7F; a[1] = 0xFF; a[2] = 0xFF; a[3] = 0xFF;
  zPath = cw_save(&w, "bad-count.cpel");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), N_EV1+N_EV2);
  z = tl_test_sql_rows(db, "SELECT offset, message FROM trace_warnings(%Q)", zPath);
  {
    char zWant[200];
    snprintf(zWant, sizeof(zWant), "%zu|event section declares 2147483647 events but only %d are complete",
             s.iEv1 + N_EV1*20, N_EV1);
    assert_string_equal(z, zWant);
  }
  free(z);
  cw_free(&w);

  /* A section length past the end of the file: what is there is read. */
  build_sample(&w, 0, &s);
  a = w.a + s.iEv1 - 72 - 4;                  /* length of the first EVENTS */
  a[0] = 0x10;
  zPath = cw_save(&w, "bad-seclen.cpel");
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), N_EV1);
  z = tl_test_sql_text(db, "SELECT message FROM trace_warnings(%Q) WHERE offset=%lld", zPath, (long long)(s.iEv1 - 80));
  assert_non_null(z);
  assert_non_null(strstr(z, "section 9 (type 5) declares"));
  free(z);
  cw_free(&w);

  /* An event definition count too large for its section. */
  build_sample(&w, 1, &s);
  a = w.a + 8 + 8 + 64;                       /* EVTDEF count, little-endian */
  a[2] = 0x01;
  zPath = cw_save(&w, "bad-defcount.cpel");
  z = tl_test_sql_text(db, "SELECT offset || ': ' || message FROM trace_warnings(%Q)", zPath);
  assert_string_equal(z, "80: event definition section declares 65540 entries but its 116 bytes hold 4");
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q) WHERE name='pkt'", zPath), N_EV1/4);
  cw_free(&w);

  /* A version we do not know is an error naming offset 0. */
  build_sample(&w, 0, &s);
  w.a[0] = 0x02;
  zPath = cw_save(&w, "bad-version.cpel");
  z = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q, 'format=cpel')", zPath);
  assert_non_null(z);
  assert_non_null(strstr(z, "bad-version.cpel: offset 0: CPEL file version 2 is not supported"));
  free(z);
  /* Without format=, it is not recognised at all. */
  z = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zPath);
  assert_non_null(strstr(z, "not a trace in a format tracelite reads"));
  free(z);
  cw_free(&w);
  tl_test_db_close(db);
}

static void cpel_reader_alone_reads_memory_and_rejects_garbage(void **state){
  uint8_t aZero[64];
  (void)state;
  memset(aZero, 0, sizeof(aZero));
  assert_int_equal(tl_cpel_reader.xProbe(aZero, sizeof(aZero), "x", 0), 0);
  assert_int_equal(tl_cpel_reader.xProbe((const uint8_t*)"PERFILE2........", 16, "x", 0), 0);
  assert_int_equal(tl_cpel_reader.xProbe(aZero, 0, "x", 1), 0);
  {
    Sample s;
    CpelW w;
    build_sample(&w, 0, &s);
    assert_true(tl_cpel_reader.xProbe(w.a, w.n, "x", 0) > 0);
    cw_free(&w);
  }
}

static void cpel_file_over_4gib_reads_events_past_it(void **state){
  /* A sparse file: two skipped sections of almost 4 GiB each, then the
  ** events at an offset beyond 8 GiB. Offsets and rowids are 64-bit. */
  static const char *const az[] = { "T", "ev" };
  CpelW w;
  char zPath[512];
  FILE *f;
  uint64_t iGap = 0xFFFFFFF0u, iEvents;
  sqlite3 *db;
  char *z;
  (void)state;
  snprintf(zPath, sizeof(zPath), "%s/big.cpel", tl_test_tmpdir());
  f = fopen(zPath, "wb");
  assert_non_null(f);
  cw_init(&w, 0, 4);
  cw_strtab(&w, az, 2, 0);
  cw_u32(&w, 77); cw_u32(&w, (uint32_t)iGap);      /* unknown type, skipped */
  assert_int_equal(fwrite(w.a, 1, w.n, f), w.n);
  assert_int_equal(fseeko(f, (off_t)iGap, SEEK_CUR), 0);
  w.n = 0;
  cw_u32(&w, 78); cw_u32(&w, (uint32_t)iGap);
  assert_int_equal(fwrite(w.a, 1, w.n, f), w.n);
  assert_int_equal(fseeko(f, (off_t)iGap, SEEK_CUR), 0);
  w.n = 0;
  cw_sec_begin(&w, 5);
  cw_name(&w, "T");
  cw_u32(&w, 3);
  cw_u32(&w, 1000000000);
  cw_event(&w, 10, 1, 1, 0);
  cw_event(&w, 20, 1, 1, 1);
  cw_event(&w, 30, 2, 1, 2);
  cw_sec_end(&w);
  iEvents = (uint64_t)ftello(f) + 8 + 72;
  assert_int_equal(fwrite(w.a, 1, w.n, f), w.n);
  assert_int_equal(fclose(f), 0);
  cw_free(&w);
  assert_true(iEvents > ((uint64_t)1<<33));
  db = tl_test_db();
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), 3);
  z = tl_test_sql_rows(db, "SELECT rowid, ts, value FROM events(%Q) WHERE rowid=%lld", zPath,
                       (long long)(iEvents + 40));
  {
    char zWant[64];
    snprintf(zWant, sizeof(zWant), "%llu|30|2", (unsigned long long)(iEvents + 40));
    assert_string_equal(z, zWant);
  }
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zPath), 0);
  tl_test_db_close(db);
  unlink(zPath);
}

/*
** Many definitions, most of them repeats: cpeldump keeps the first
** definition of a code (as the sample's redefined code 1 shows), whichever
** section or position the repeats come in. 60000 entries in two EVTDEF
** sections define 20000 codes: the first entry of each names it "first %d",
** later ones "second %d" or "third %d".
*/
#define N_DEF_CODES 20000

/* An EVENTS section header: n events on a clock of 1e9 ticks per second. */
static void events_begin(CpelW *w, const char *zStrtab, uint32_t n){
  cw_sec_begin(w, 5);
  cw_name(w, zStrtab);
  cw_u32(w, n);
  cw_u32(w, 1000000000);
}

static void cpel_repeated_definitions_keep_the_first(void **state){
  static const char *const az[] = { "Defs", "first %d", "second %d", "third %d" };
  uint32_t aOff[4];
  CpelW w;
  const char *zPath;
  sqlite3 *db = tl_test_db();
  char *z;
  int i;
  (void)state;
  cw_init(&w, 0, 4);
  cw_strtab(&w, az, 4, aOff);
  cw_sec_begin(&w, 3);
  cw_name(&w, "Defs");
  cw_u32(&w, 2*N_DEF_CODES);
  for(i=0; i<N_DEF_CODES; i++){               /* codes 0, 7, 14, ... mod 20000 */
    cw_u32(&w, (uint32_t)((i*7) % N_DEF_CODES)); cw_u32(&w, aOff[1]); cw_u32(&w, 0);
  }
  for(i=N_DEF_CODES-1; i>=0; i--){            /* every code again, backwards */
    cw_u32(&w, (uint32_t)i); cw_u32(&w, aOff[2]); cw_u32(&w, 0);
  }
  cw_sec_end(&w);
  cw_sec_begin(&w, 3);                        /* and a third time */
  cw_name(&w, "Defs");
  cw_u32(&w, N_DEF_CODES);
  for(i=0; i<N_DEF_CODES; i++){ cw_u32(&w, (uint32_t)i); cw_u32(&w, aOff[3]); cw_u32(&w, 0); }
  cw_sec_end(&w);
  events_begin(&w, "Defs", 2);
  cw_event(&w, 10, 0, 777, 1);
  cw_event(&w, 20, 0, 19999, 2);
  cw_sec_end(&w);
  zPath = cw_save(&w, "many-defs.cpel");
  cw_free(&w);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM event_types(%Q)", zPath), N_DEF_CODES);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM event_types(%Q) WHERE name = 'first ' || id",
                                   zPath), N_DEF_CODES);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(DISTINCT id) FROM event_types(%Q)", zPath), N_DEF_CODES);
  z = tl_test_sql_rows(db, "SELECT name FROM events(%Q)", zPath);
  assert_string_equal(z, "first 777\nfirst 19999");
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q)", zPath), 0);
  tl_test_db_close(db);
}

/*
** accel=off (TlFilter.bPlain): CPEL scans have no counted, repeated or
** grouped rows to turn off, so a plain scan gives, row for row, what the
** usual one gives, in file order, with every row its own.
*/
static void cpel_plain_scan_gives_the_same_rows(void **state){
  Sample s;
  const char *zPath = sample_path(1, &s);
  TlLines aGot[2];
  TlTrace *p;
  TlErr e;
  int bPlain;
  size_t k;
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_trace_open(zPath, 0, &p, &e), TL_OK);
  for(bPlain=0; bPlain<2; bPlain++){
    TlFilter f;
    TlQuery *q;
    TlRow r;
    memset(&aGot[bPlain], 0, sizeof(TlLines));
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
    f.mCols = ~(uint64_t)0;
    f.bPlain = bPlain;
    assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, &f, &q, &e), TL_OK);
    while( tl_query_next(q, &r)==TL_ROW ){
      char z[256];
      assert_true(r.nRepeat<=1 && r.iRowid!=TL_ROWID_LAZY);
      assert_int_equal(r.a[TL_EV_TS].t, TL_INT);
      assert_int_equal(r.a[TL_EV_NAME].t, TL_TEXT);
      snprintf(z, sizeof(z), "%lld %lld %.*s %lld", (long long)r.iRowid, (long long)r.a[TL_EV_TS].i,
               (int)r.a[TL_EV_NAME].n, r.a[TL_EV_NAME].z, (long long)r.a[TL_EV_VALUE].i);
      tl_lines_add(&aGot[bPlain], z);
    }
    tl_query_close(q);
  }
  tl_trace_release(p);
  assert_int_equal(aGot[1].n, N_EV1+N_EV2);
  assert_int_equal(aGot[0].n, aGot[1].n);
  for(k=0; k<aGot[0].n; k++) assert_string_equal(aGot[0].az[k], aGot[1].az[k]);
  tl_lines_free(&aGot[0]);
  tl_lines_free(&aGot[1]);
}

/* ---- the table machinery, through CPEL ------------------------------------ */

static void sql_view_in_schema_is_unsafe(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  z = tl_test_sql_error(db, "CREATE VIEW v AS SELECT * FROM events(%Q)", zPath);
  assert_null(z);                 /* creating it is allowed ... */
  z = tl_test_sql_error(db, "SELECT count(*) FROM v");
  assert_non_null(z);             /* ... using it is not */
  assert_non_null(strstr(z, "unsafe use of virtual table"));
  free(z);
  z = tl_test_sql_error(db, "PRAGMA trusted_schema=1");
  assert_null(z);
  z = tl_test_sql_error(db, "SELECT count(*) FROM v");
  assert_non_null(strstr(z, "unsafe use of virtual table"));
  free(z);
  /* Nor can a trigger stored in the schema. */
  z = tl_test_sql_error(db, "CREATE TABLE t(x)");
  assert_null(z);
  z = tl_test_sql_error(db, "CREATE TRIGGER tr AFTER INSERT ON t "
                            "BEGIN SELECT count(*) FROM events(%Q); END", zPath);
  assert_null(z);
  z = tl_test_sql_error(db, "INSERT INTO t VALUES(1)");
  assert_non_null(z);
  assert_non_null(strstr(z, "unsafe use of virtual table"));
  free(z);
  /* A TEMP view is the user's own and works. */
  z = tl_test_sql_error(db, "CREATE TEMP VIEW tv AS SELECT * FROM events(%Q)", zPath);
  assert_null(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM tv"), N_EV1+N_EV2);
  tl_test_db_close(db);
}

static void sql_create_virtual_table_takes_path_and_options(void **state){
  Sample s;
  const char *zPath = sample_path(0, &s);
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  z = tl_test_sql_error(db, "CREATE VIRTUAL TABLE temp.run USING events(path=%Q, cpel_clock='per_us')", zPath);
  assert_null(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM temp.run"), N_EV1+N_EV2);
  assert_int_equal(tl_test_sql_int(db, "SELECT ts FROM temp.run WHERE rowid=%lld", (long long)s.iEv1), 5000);
  z = tl_test_sql_text(db, "SELECT options FROM temp.run LIMIT 1");
  assert_string_equal(z, "cpel_clock='per_us'");
  free(z);
  z = tl_test_sql_error(db, "CREATE VIRTUAL TABLE temp.bad USING events(%Q)", zPath);
  assert_non_null(strstr(z, "expected key=value"));
  free(z);
  z = tl_test_sql_error(db, "CREATE VIRTUAL TABLE temp.bad2 USING tracks(format='cpel')");
  assert_non_null(strstr(z, "needs path="));
  free(z);
  tl_test_db_close(db);
}

static void sql_errors_name_the_file(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  char zEmpty[512];
  (void)state;
  z = tl_test_sql_error(db, "SELECT * FROM events('/nonexistent/x.cpel')");
  assert_string_equal(z, "/nonexistent/x.cpel: cannot open: No such file or directory");
  free(z);
  z = tl_test_sql_error(db, "SELECT * FROM events()");
  assert_non_null(strstr(z, "no trace given"));
  free(z);
  z = tl_test_sql_error(db, "SELECT * FROM events WHERE ts = 1 OR ts = 2");
  assert_non_null(strstr(z, "no trace given"));
  free(z);
  /* an OR of pushdown terms: SQLite also plans each branch alone, without
  ** the path; that plan is refused, not an error */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" TL_TESTDATA_DIR "/cpel/demo.cpel') "
      "WHERE ts = 1000000000 OR ts BETWEEN 1000003000 AND 1000010000"), 7);   /* make_demo.py: events 0, 3..8 */
  z = tl_test_sql_error(db, "SELECT * FROM events(NULL)");
  assert_non_null(strstr(z, "path is NULL"));
  free(z);
  snprintf(zEmpty, sizeof(zEmpty), "%s/empty.bin", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zEmpty, "", 0), 0);
  z = tl_test_sql_error(db, "SELECT * FROM events(%Q)", zEmpty);
  assert_non_null(strstr(z, "empty file"));
  free(z);
  z = tl_test_sql_error(db, "SELECT * FROM events(%Q, 'bogus=1')", zEmpty);
  assert_non_null(strstr(z, "unknown option \"bogus\""));
  free(z);
  z = tl_test_sql_error(db, "SELECT * FROM events(%Q, 'format=nope')", zEmpty);
  assert_non_null(strstr(z, "unknown format \"nope\""));
  free(z);
  z = tl_test_sql_error(db, "SELECT * FROM events(%Q)", tl_test_tmpdir());
  assert_non_null(z);
  free(z);
  tl_test_db_close(db);
}

static void sql_trace_cache_is_reused_and_refreshed(void **state){
  Sample s;
  CpelW w;
  sqlite3 *db = tl_test_db();
  sqlite3 *db2 = tl_test_db();
  char zPath[512];
  (void)state;
  build_sample(&w, 0, &s);
  snprintf(zPath, sizeof(zPath), "%s/cache.cpel", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zPath, w.a, w.n), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), N_EV1+N_EV2);
  assert_int_equal(tl_test_sql_int(db2, "SELECT count(*) FROM events(%Q)", zPath), N_EV1+N_EV2);
  /* A changed file is not answered from the cache: it is read anew. */
  assert_int_equal(tl_test_write_file(zPath, w.a, s.iEv2 + 20), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zPath), N_EV1+1);
  cw_free(&w);
  tl_test_db_close(db);
  tl_test_db_close(db2);
}

TL_DEFINE_GROUP(cpel,
  cmocka_unit_test(cpel_format_every_conversion_takes_the_datum),
  cmocka_unit_test(cpel_format_strings_symbols_and_oddities),
  cmocka_unit_test(cpel_sample_rows_follow_the_definitions),
  cmocka_unit_test(cpel_sample_tracks_join_events),
  cmocka_unit_test(cpel_little_endian_reads_like_big_endian),
  cmocka_unit_test(cpel_clock_option_overrides_the_guess),
  cmocka_unit_test(cpel_ts_window_equals_unfiltered_count),
  cmocka_unit_test(cpel_order_by_ts_merges_sections),
  cmocka_unit_test(cpel_unsorted_section_still_filters_exactly),
  cmocka_unit_test(cpel_every_truncation_gives_complete_events),
  cmocka_unit_test(cpel_corrupt_lengths_warn_with_offsets),
  cmocka_unit_test(cpel_reader_alone_reads_memory_and_rejects_garbage),
  cmocka_unit_test(cpel_file_over_4gib_reads_events_past_it),
  cmocka_unit_test(cpel_repeated_definitions_keep_the_first),
  cmocka_unit_test(cpel_plain_scan_gives_the_same_rows),
  cmocka_unit_test(sql_view_in_schema_is_unsafe),
  cmocka_unit_test(sql_create_virtual_table_takes_path_and_options),
  cmocka_unit_test(sql_errors_name_the_file),
  cmocka_unit_test(sql_trace_cache_is_reused_and_refreshed),
);
