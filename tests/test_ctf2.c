/*
** test_ctf2.c: CTF 2 (JSON metadata) traces written here, as no Debian
** tool writes CTF 2 yet. Every expected value is the one written, read
** back as the CTF 2 specification defines the field class: each field
** class, relative and absolute field locations, roles, the 1.8 twin of
** trace A (tests/test_ctf.c) giving the same rows, packetized metadata,
** and metadata errors.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "ctf_writer.h"

#define FLU(n, bo) "{\"type\": \"fixed-length-unsigned-integer\", \"length\": " #n \
                   ", \"byte-order\": \"" bo "\", \"alignment\": 8}"

/* Trace A's metadata in CTF 2: the same layout, roles instead of names. */
static const char zMetaA2[] =
  "\x1e{\"type\": \"preamble\", \"version\": 2}\n"
  "\x1e{\"type\": \"trace-class\", \"packet-header-field-class\": {\"type\": \"structure\", \"member-classes\": ["
  "  {\"name\": \"magic\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 32,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"packet-magic-number\"]}},"
  "  {\"name\": \"stream_id\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 32,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"data-stream-class-id\"]}}]}}\n"
  "\x1e{\"type\": \"clock-class\", \"id\": \"monotonic\", \"frequency\": 1000000000,"
  " \"offset-from-origin\": {\"seconds\": 1000, \"cycles\": 0}}\n"
  "\x1e{\"type\": \"field-class-alias\", \"name\": \"u64\", \"field-class\": " FLU(64, "little-endian") "}\n"
  "\x1e{\"type\": \"data-stream-class\", \"default-clock-class-id\": \"monotonic\","
  " \"packet-context-field-class\": {\"type\": \"structure\", \"member-classes\": ["
  "  {\"name\": \"timestamp_begin\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"default-clock-timestamp\"]}},"
  "  {\"name\": \"timestamp_end\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"packet-end-default-clock-timestamp\"]}},"
  "  {\"name\": \"content_size\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"packet-content-length\"]}},"
  "  {\"name\": \"packet_size\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"packet-total-length\"]}},"
  "  {\"name\": \"packet_seq_num\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"packet-sequence-number\"]}},"
  "  {\"name\": \"events_discarded\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"discarded-event-record-counter-snapshot\"]}},"
  "  {\"name\": \"cpu_id\", \"field-class\": " FLU(32, "little-endian") "}]},"
  " \"event-record-header-field-class\": {\"type\": \"structure\", \"minimum-alignment\": 8, \"member-classes\": ["
  "  {\"name\": \"id\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 5,"
  "    \"byte-order\": \"little-endian\", \"roles\": [\"event-record-class-id\"],"
  "    \"mappings\": {\"compact\": [[0, 30]], \"extended\": [[31, 31]]}}},"
  "  {\"name\": \"v\", \"field-class\": {\"type\": \"variant\","
  "    \"selector-field-location\": {\"origin\": \"event-record-header\", \"path\": [\"id\"]}, \"options\": ["
  "    {\"name\": \"compact\", \"selector-field-ranges\": [[0, 30]], \"field-class\": {\"type\": \"structure\","
  "      \"member-classes\": [{\"name\": \"timestamp\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\","
  "      \"length\": 27, \"byte-order\": \"little-endian\", \"roles\": [\"default-clock-timestamp\"]}}]}},"
  "    {\"name\": \"extended\", \"selector-field-ranges\": [[31, 31]], \"field-class\": {\"type\": \"structure\","
  "      \"member-classes\": [{\"name\": \"id\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\","
  "      \"length\": 32, \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"event-record-class-id\"]}},"
  "      {\"name\": \"timestamp\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 64,"
  "      \"byte-order\": \"little-endian\", \"alignment\": 8, \"roles\": [\"default-clock-timestamp\"]}}]}}]}}]},"
  " \"event-record-common-context-field-class\": {\"type\": \"structure\", \"member-classes\": ["
  "  {\"name\": \"vtid\", \"field-class\": {\"type\": \"fixed-length-signed-integer\", \"length\": 32,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8}},"
  "  {\"name\": \"vpid\", \"field-class\": {\"type\": \"fixed-length-signed-integer\", \"length\": 32,"
  "    \"byte-order\": \"little-endian\", \"alignment\": 8}}]}}\n"
  "\x1e{\"type\": \"event-record-class\", \"id\": 0, \"name\": \"tick\", \"payload-field-class\": {\"type\": \"structure\","
  " \"member-classes\": [{\"name\": \"seq\", \"field-class\": " FLU(32, "little-endian") "},"
  " {\"name\": \"msg\", \"field-class\": {\"type\": \"null-terminated-string\"}}]}}\n"
  "\x1e{\"type\": \"event-record-class\", \"id\": 40, \"name\": \"big\", \"payload-field-class\": {\"type\": \"structure\","
  " \"member-classes\": [{\"name\": \"value\", \"field-class\": \"u64\"}]}}\n";

static void copy_file(const char *zFrom, const char *zTo){
  size_t n;
  void *a = tl_test_read_file(zFrom, &n);
  assert_non_null(a);
  assert_int_equal(tl_test_write_file(zTo, a, n), 0);
  free(a);
}

/* The 1.8 trace A and its CTF 2 twin (same stream files): the same rows. */
static void ctf2_twin_of_trace_a_reads_the_same(void **state){
  sqlite3 *db = tl_test_db();
  const char *zA = tl_test_ctf_dir_a();
  char zDir[512], zFrom[640], zTo[640];
  char *z1, *z2;
  int s;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf2-a", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaA2), 0);
  for(s=0; s<2; s++){
    snprintf(zFrom, sizeof(zFrom), "%s/chan_%d", zA, s);
    snprintf(zTo, sizeof(zTo), "%s/chan_%d", zDir, s);
    copy_file(zFrom, zTo);
  }
  z1 = tl_test_sql_rows(db, "SELECT ts, cpu, tid, pid, name, args, text FROM events(%Q) ORDER BY ts", zA);
  z2 = tl_test_sql_rows(db, "SELECT ts, cpu, tid, pid, name, args, text FROM events(%Q) ORDER BY ts", zDir);
  assert_true(strlen(z1) > 1000);
  assert_string_equal(z2, z1);
  free(z1); free(z2);
  /* packets from the roles: sizes, times, discarded counts, sequence numbers */
  z1 = tl_test_sql_rows(db, "SELECT cpu, offset, size, content_size, ts_begin, ts_end, discarded, seq FROM packets(%Q)", zA);
  z2 = tl_test_sql_rows(db, "SELECT cpu, offset, size, content_size, ts_begin, ts_end, discarded, seq FROM packets(%Q)", zDir);
  assert_string_equal(z2, z1);
  free(z1); free(z2);
  /* and a window reads the same few packets */
  z1 = tl_test_sql_rows(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN 1005000000000 AND 1006000000000", zA);
  z2 = tl_test_sql_rows(db, "SELECT count(*) FROM events(%Q) WHERE ts BETWEEN 1005000000000 AND 1006000000000", zDir);
  assert_string_equal(z2, z1);
  free(z1); free(z2);
  tl_test_db_close(db);
}

/* One event class with every CTF 2 field class. */
static const char zMetaAll[] =
  "\x1e{\"type\": \"preamble\", \"version\": 2}\n"
  "\x1e{\"type\": \"trace-class\"}\n"
  "\x1e{\"type\": \"data-stream-class\"}\n"
  "\x1e{\"type\": \"field-class-alias\", \"name\": \"u8\", \"field-class\": " FLU(8, "little-endian") "}\n"
  "\x1e{\"type\": \"event-record-class\", \"name\": \"all\","
  " \"user-attributes\": {\"babeltrace.org,2020\": {\"log-level\": \"warning\"}, \"x.org\": [1, 2.5, null]},"
  " \"payload-field-class\": {\"type\": \"structure\", \"member-classes\": ["
  "{\"name\": \"bits\", \"field-class\": {\"type\": \"fixed-length-bit-array\", \"length\": 3, \"byte-order\": \"little-endian\"}},"
  "{\"name\": \"pad\", \"field-class\": {\"type\": \"fixed-length-bit-array\", \"length\": 5, \"byte-order\": \"little-endian\"}},"
  "{\"name\": \"b\", \"field-class\": {\"type\": \"fixed-length-signed-integer\", \"length\": 13, \"byte-order\": \"big-endian\", \"alignment\": 8}},"
  "{\"name\": \"pad2\", \"field-class\": {\"type\": \"fixed-length-bit-array\", \"length\": 3, \"byte-order\": \"big-endian\"}},"
  "{\"name\": \"flag\", \"field-class\": {\"type\": \"fixed-length-boolean\", \"length\": 8, \"byte-order\": \"little-endian\", \"alignment\": 8}},"
  "{\"name\": \"off\", \"field-class\": {\"type\": \"fixed-length-boolean\", \"length\": 8, \"byte-order\": \"little-endian\", \"alignment\": 8}},"
  "{\"name\": \"bm\", \"field-class\": {\"type\": \"fixed-length-bit-map\", \"length\": 8, \"byte-order\": \"little-endian\","
  "  \"alignment\": 8, \"flags\": {\"a\": [[0, 0]], \"b\": [[1, 2]]}}},"
  "{\"name\": \"u16rev\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 16, \"byte-order\": \"little-endian\","
  "  \"bit-order\": \"last-to-first\", \"alignment\": 8}},"
  "{\"name\": \"en\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 8, \"byte-order\": \"little-endian\","
  "  \"alignment\": 8, \"mappings\": {\"X\": [[0, 0]], \"Y\": [[1, 5]]}}},"
  "{\"name\": \"vu\", \"field-class\": {\"type\": \"variable-length-unsigned-integer\"}},"
  "{\"name\": \"vs\", \"field-class\": {\"type\": \"variable-length-signed-integer\"}},"
  "{\"name\": \"f64\", \"field-class\": {\"type\": \"fixed-length-floating-point-number\", \"length\": 64, \"byte-order\": \"little-endian\", \"alignment\": 8}},"
  "{\"name\": \"nts\", \"field-class\": {\"type\": \"null-terminated-string\"}},"
  "{\"name\": \"n16\", \"field-class\": {\"type\": \"null-terminated-string\", \"encoding\": \"utf-16le\"}},"
  "{\"name\": \"n32\", \"field-class\": {\"type\": \"null-terminated-string\", \"encoding\": \"utf-32be\"}},"
  "{\"name\": \"sls\", \"field-class\": {\"type\": \"static-length-string\", \"length\": 6}},"
  "{\"name\": \"len\", \"field-class\": \"u8\"},"
  "{\"name\": \"dls\", \"field-class\": {\"type\": \"dynamic-length-string\", \"length-field-location\": {\"path\": [\"len\"]}}},"
  "{\"name\": \"slb\", \"field-class\": {\"type\": \"static-length-blob\", \"length\": 2}},"
  "{\"name\": \"dlb\", \"field-class\": {\"type\": \"dynamic-length-blob\","
  "  \"length-field-location\": {\"origin\": \"event-record-payload\", \"path\": [\"len\"]}}},"
  "{\"name\": \"sla\", \"field-class\": {\"type\": \"static-length-array\", \"length\": 2, \"element-field-class\": \"u8\"}},"
  "{\"name\": \"dla\", \"field-class\": {\"type\": \"dynamic-length-array\", \"length-field-location\": {\"path\": [\"len\"]},"
  "  \"element-field-class\": " FLU(16, "little-endian") "}},"
  "{\"name\": \"sel\", \"field-class\": \"u8\"},"
  "{\"name\": \"opt\", \"field-class\": {\"type\": \"optional\", \"selector-field-location\": {\"path\": [\"sel\"]},"
  "  \"selector-field-ranges\": [[1, 1]], \"field-class\": \"u8\"}},"
  "{\"name\": \"optoff\", \"field-class\": {\"type\": \"optional\", \"selector-field-location\": {\"path\": [\"off\"]},"
  "  \"field-class\": \"u8\"}},"
  "{\"name\": \"var\", \"field-class\": {\"type\": \"variant\", \"selector-field-location\": {\"path\": [\"sel\"]}, \"options\": ["
  "  {\"name\": \"a\", \"selector-field-ranges\": [[0, 0]], \"field-class\": \"u8\"},"
  "  {\"name\": \"b\", \"selector-field-ranges\": [[1, 9]], \"field-class\": {\"type\": \"null-terminated-string\"}}]}},"
  "{\"name\": \"nest\", \"field-class\": {\"type\": \"structure\", \"member-classes\": ["
  "  {\"name\": \"arr\", \"field-class\": {\"type\": \"dynamic-length-array\", \"length-field-location\": {\"path\": [null, \"len\"]},"
  "   \"element-field-class\": \"u8\"}}]}}"
  "]}}\n";

static uint64_t rev_bits(uint64_t v, unsigned n){
  uint64_t r = 0;
  unsigned k;
  for(k=0; k<n; k++){ r = r<<1 | (v & 1); v >>= 1; }
  return r;
}

static void write_all(CtfW *w){
  static const uint8_t aN16[] = { 'a',0, 0xF1,0, 'b',0, 0,0 };            /* "a\u00f1b" */
  static const uint8_t aN32[] = { 0,0,0,'x', 0,0,0x20,0xAC, 0,0,0,0 };      /* "x\u20ac" */
  size_t k;
  w->bBig = 0;
  ctfw_uint(w, 1, 3, 5);                        /* bits */
  ctfw_uint(w, 1, 5, 0);                        /* pad */
  w->bBig = 1;
  ctfw_uint(w, 8, 13, (uint64_t)-1000 & 0x1FFF);  /* b */
  ctfw_uint(w, 1, 3, 0);                        /* pad2 */
  w->bBig = 0;
  ctfw_uint(w, 8, 8, 1);                        /* flag */
  ctfw_uint(w, 8, 8, 0);                        /* off */
  ctfw_uint(w, 8, 8, 6);                        /* bm: flags b */
  ctfw_uint(w, 8, 16, rev_bits(0x1234, 16));    /* u16rev */
  ctfw_uint(w, 8, 8, 3);                        /* en: Y */
  ctfw_uint(w, 8, 8, 0xE5); ctfw_uint(w, 8, 8, 0x8E); ctfw_uint(w, 8, 8, 0x26);   /* vu: 624485 */
  ctfw_uint(w, 8, 8, 0xC0); ctfw_uint(w, 8, 8, 0xBB); ctfw_uint(w, 8, 8, 0x78);   /* vs: -123456 */
  ctfw_uint(w, 8, 64, UINT64_C(0x4004000000000000));                              /* f64: 2.5 */
  ctfw_string(w, "h\xc3\xa9llo");                                                  /* nts */
  for(k=0; k<sizeof(aN16); k++) ctfw_uint(w, 8, 8, aN16[k]);
  for(k=0; k<sizeof(aN32); k++) ctfw_uint(w, 8, 8, aN32[k]);
  ctfw_string(w, "abc"); ctfw_uint(w, 8, 8, 'z'); ctfw_uint(w, 8, 8, 'z');        /* sls: 6 bytes */
  ctfw_uint(w, 8, 8, 3);                                                          /* len */
  ctfw_uint(w, 8, 8, 'x'); ctfw_uint(w, 8, 8, 'y'); ctfw_uint(w, 8, 8, 'z');      /* dls */
  ctfw_uint(w, 8, 8, 0xDE); ctfw_uint(w, 8, 8, 0xAD);                             /* slb */
  ctfw_uint(w, 8, 8, 1); ctfw_uint(w, 8, 8, 2); ctfw_uint(w, 8, 8, 3);            /* dlb */
  ctfw_uint(w, 8, 8, 7); ctfw_uint(w, 8, 8, 8);                                   /* sla */
  ctfw_uint(w, 8, 16, 1); ctfw_uint(w, 8, 16, 2); ctfw_uint(w, 8, 16, 3);         /* dla */
  ctfw_uint(w, 8, 8, 1);                                                          /* sel */
  ctfw_uint(w, 8, 8, 42);                                                         /* opt */
  ctfw_string(w, "vee");                                                          /* var: option b */
  ctfw_uint(w, 8, 8, 4); ctfw_uint(w, 8, 8, 5); ctfw_uint(w, 8, 8, 6);            /* nest.arr */
}

static const char zAllArgs[] =
  "{\"bits\":5,\"pad\":0,\"b\":-1000,\"pad2\":0,\"flag\":true,\"off\":false,\"bm\":6,\"u16rev\":4660,"
  "\"en\":{\"label\":\"Y\",\"value\":3},\"vu\":624485,\"vs\":-123456,\"f64\":2.5,"
  "\"nts\":\"h\xc3\xa9llo\",\"n16\":\"a\xc3\xb1" "b\",\"n32\":\"x\xe2\x82\xac\",\"sls\":\"abc\",\"len\":3,"
  "\"dls\":\"xyz\",\"slb\":\"dead\",\"dlb\":\"010203\",\"sla\":[7,8],\"dla\":[1,2,3],\"sel\":1,"
  "\"opt\":42,\"optoff\":null,\"var\":\"vee\",\"nest\":{\"arr\":[4,5,6]}}";

static const char *write_all_trace(const char *zName, int bPacketized){
  static char zDir[512];
  CtfW w;
  snprintf(zDir, sizeof(zDir), "%s/%s", tl_test_tmpdir(), zName);
  if( bPacketized ){
    /* one metadata packet (CTF 2 version 2.0) around the JSON text */
    CtfW m;
    size_t k, n = strlen(zMetaAll);
    ctfw_init(&m, 0);
    ctfw_uint(&m, 8, 32, 0x75D11D57);
    for(k=0; k<16; k++) ctfw_uint(&m, 8, 8, 0);
    ctfw_uint(&m, 8, 32, 0);
    ctfw_uint(&m, 8, 32, (uint64_t)(37 + n)*8);
    ctfw_uint(&m, 8, 32, (uint64_t)(37 + n)*8);
    ctfw_uint(&m, 8, 8, 0); ctfw_uint(&m, 8, 8, 0); ctfw_uint(&m, 8, 8, 0);
    ctfw_uint(&m, 8, 8, 2); ctfw_uint(&m, 8, 8, 0);
    for(k=0; k<n; k++) ctfw_uint(&m, 8, 8, (uint8_t)zMetaAll[k]);
    assert_int_equal(ctfw_save(&m, zDir, "metadata", ctfw_bytes(&m)), 0);
    ctfw_free(&m);
  }else{
    assert_int_equal(ctfw_save_text(zDir, "metadata", zMetaAll), 0);
  }
  ctfw_init(&w, 0);
  write_all(&w);
  write_all(&w);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  return zDir;
}

static void ctf2_every_field_class(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = write_all_trace("ctf2-all", 0);
  char *z;
  (void)state;
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)", zDir), 2);
  z = tl_test_sql_text(db, "SELECT args FROM events(%Q) LIMIT 1", zDir);
  assert_string_equal(z, zAllArgs);
  free(z);
  z = tl_test_sql_text(db, "SELECT args FROM events(%Q) LIMIT 1 OFFSET 1", zDir);
  assert_string_equal(z, zAllArgs);
  free(z);
  z = tl_test_sql_text(db, "SELECT name FROM events(%Q) LIMIT 1", zDir);
  assert_string_equal(z, "all");
  free(z);
  /* the text column: booleans, absent optionals, BLOBs in hex */
  z = tl_test_sql_text(db, "SELECT text FROM events(%Q) LIMIT 1", zDir);
  assert_non_null(strstr(z, "flag = true, off = false"));
  assert_non_null(strstr(z, "slb = dead"));
  assert_non_null(strstr(z, "optoff = <none>"));
  assert_non_null(strstr(z, "n16 = \"a\xc3\xb1" "b\""));
  free(z);
  /* user attributes in event_types; babeltrace2's log level name as CTF 1.8's number (warning: 4) */
  z = tl_test_sql_rows(db, "SELECT args ->> '$.loglevel', args -> '$.user_attributes' FROM event_types(%Q)", zDir);
  assert_string_equal(z, "4|{\"babeltrace.org,2020\":{\"log-level\":\"warning\"},\"x.org\":[1,2.5,null]}");
  free(z);
  /* the same metadata in a metadata packet */
  zDir = write_all_trace("ctf2-all-packetized", 1);
  z = tl_test_sql_text(db, "SELECT args FROM events(%Q) LIMIT 1", zDir);
  assert_string_equal(z, zAllArgs);
  free(z);
  tl_test_db_close(db);
}

/* Metadata errors name the metadata file, the offset and what was expected. */
static void ctf2_metadata_errors(void **state){
  static const struct { const char *zMeta; const char *zWant; } aCase[] = {
    { "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"trace-class\"",
      "metadata: offset 58: JSON: expected ',' or '}'" },
    { "\x1e{\"type\": \"preamble\", \"version\": 3}", "the preamble's version is not 2" },
    { "\x1e{\"type\": \"trace-class\"}", "the first fragment is not a preamble" },
    { "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"trace-class\"}\x1e{\"type\": \"data-stream-class\"}"
      "\x1e{\"type\": \"event-record-class\", \"payload-field-class\": {\"type\": \"structure\", \"member-classes\": ["
      "{\"name\": \"a\", \"field-class\": {\"type\": \"dynamic-length-array\", \"length-field-location\": {\"path\": [\"a\"]},"
      " \"element-field-class\": \"nope\"}}]}}",
      "the field location names \"a\", not found before the field" },
    { "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"trace-class\"}\x1e{\"type\": \"data-stream-class\"}"
      "\x1e{\"type\": \"event-record-class\", \"payload-field-class\": \"nope\"}",
      "unknown field class alias \"nope\"" },
    { "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"field-class-alias\", \"name\": \"x\", \"field-class\": \"x\"}",
      "alias \"x\" names an unknown alias" },
    { "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"trace-class\", \"x\": \"\\ud800\"}",
      "high surrogate without a low one" },
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(aCase)/sizeof(aCase[0]); k++){
    char zDir[512];
    char *zErr;
    snprintf(zDir, sizeof(zDir), "%s/ctf2-bad-%zu", tl_test_tmpdir(), k);
    assert_int_equal(ctfw_save_text(zDir, "metadata", aCase[k].zMeta), 0);
    assert_int_equal(ctfw_save_text(zDir, "stream", ""), 0);
    zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
    if( zErr==0 || strstr(zErr, aCase[k].zWant)==0 ){
      fail_msg("case %zu: error \"%s\", expected \"%s\"", k, zErr ? zErr : "(none)", aCase[k].zWant);
    }
    free(zErr);
  }
  /* nesting deeper than the limit: an error, not a stack overflow */
  {
    char zDir[512], *zMeta, *zErr;
    size_t n = 0, i;
    zMeta = malloc(200000);
    assert_non_null(zMeta);
    n += (size_t)sprintf(zMeta, "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e");
    for(i=0; i<50000; i++) zMeta[n++] = '[';
    zMeta[n] = 0;
    snprintf(zDir, sizeof(zDir), "%s/ctf2-deep", tl_test_tmpdir());
    assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
    zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
    assert_non_null(zErr);
    assert_non_null(strstr(zErr, "nested deeper than the limit"));
    free(zErr);
    free(zMeta);
  }
  tl_test_db_close(db);
}

/* LEB128 beyond 10 bytes or 64 bits is corruption, after the events before it. */
static void ctf2_oversized_leb128(void **state){
  static const char zMeta[] =
    "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"trace-class\"}\x1e{\"type\": \"data-stream-class\"}"
    "\x1e{\"type\": \"event-record-class\", \"name\": \"v\", \"payload-field-class\": {\"type\": \"structure\","
    " \"member-classes\": [{\"name\": \"x\", \"field-class\": {\"type\": \"variable-length-unsigned-integer\"}}]}}";
  sqlite3 *db = tl_test_db();
  char zDir[512];
  char *zErr;
  CtfW w;
  int k;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf2-leb", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  ctfw_init(&w, 0);
  ctfw_uint(&w, 8, 8, 0x7F);                                  /* 127 */
  for(k=0; k<9; k++) ctfw_uint(&w, 8, 8, 0xFF);               /* UINT64_MAX: 9 x 0xff, 0x01 */
  ctfw_uint(&w, 8, 8, 0x01);
  for(k=0; k<9; k++) ctfw_uint(&w, 8, 8, 0xFF);               /* 65 bits */
  ctfw_uint(&w, 8, 8, 0x03);
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  zErr = tl_test_sql_rows(db, "SELECT args ->> '$.x' FROM events(%Q) LIMIT 2", zDir);
  assert_string_equal(zErr, "127\n18446744073709551615");
  free(zErr);
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events(%Q)", zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "does not fit 64 bits"));
  free(zErr);
  tl_test_db_close(db);
}

/* max_memory= caps what one query holds decoded: a clear error beyond it. */
static void ctf2_max_memory_option(void **state){
  static const char zMeta[] =
    "\x1e{\"type\": \"preamble\", \"version\": 2}\x1e{\"type\": \"trace-class\"}\x1e{\"type\": \"data-stream-class\"}"
    "\x1e{\"type\": \"event-record-class\", \"name\": \"big\", \"payload-field-class\": {\"type\": \"structure\","
    " \"member-classes\": [{\"name\": \"n\", \"field-class\": " FLU(32, "little-endian") "},"
    " {\"name\": \"a\", \"field-class\": {\"type\": \"dynamic-length-array\", \"length-field-location\": {\"path\": [\"n\"]},"
    " \"element-field-class\": " FLU(8, "little-endian") "}}]}}";
  sqlite3 *db = tl_test_db();
  char zDir[512];
  char *zErr;
  CtfW w;
  int k;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf2-mem", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  ctfw_init(&w, 0);
  ctfw_uint(&w, 8, 32, 100000);                 /* 100000 elements: several MiB of value nodes */
  for(k=0; k<100000; k++) ctfw_uint(&w, 8, 8, (uint64_t)(k & 0xff));
  assert_int_equal(ctfw_save(&w, zDir, "stream", ctfw_bytes(&w)), 0);
  ctfw_free(&w);
  assert_int_equal(tl_test_sql_int(db, "SELECT json_array_length(args, '$.a') FROM events(%Q)", zDir), 100000);
  zErr = tl_test_sql_error(db, "SELECT json_array_length(args, '$.a') FROM events(%Q, 'max_memory=1')", zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "more than 1 MiB of field buffers (max_memory=)"));
  free(zErr);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(ctf2,
  cmocka_unit_test(ctf2_every_field_class),
  cmocka_unit_test(ctf2_twin_of_trace_a_reads_the_same),
  cmocka_unit_test(ctf2_metadata_errors),
  cmocka_unit_test(ctf2_oversized_leb128),
  cmocka_unit_test(ctf2_max_memory_option),
);
