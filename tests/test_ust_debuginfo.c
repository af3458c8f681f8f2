/*
** test_ust_debuginfo.c: symbol, dso, symoff, dso_offset and srcline of
** LTTng-UST events with an ip context, against babeltrace2's debug-info
** filter on the trace of testdata/ctf/ust-debuginfo/record.sh
** (debuginfo.bt2.txt: `babeltrace2 --debug-info
** --debug-info-target-prefix=symfs`, whose debug_info = { bin, func, src }
** each event line carries).
**
** babeltrace2's strings are made from our columns: bin is the base name of
** dso, "+0x" and dso_offset in hex; func is symbol, "+0x" and symoff in
** hex; src is srcline; each "" where the columns are NULL.
*/
#include "tltest.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DBG_DIR TL_TESTDATA_DIR "/ctf/ust-debuginfo/"
#define DBG_OPTS "symfs=\"" DBG_DIR "symfs\""
#define LNK_DIR TL_TESTDATA_DIR "/ctf/ust-debuglink/"
#define LNK_OPT_DIR "/opt/tracelite-lnk"
#define LNK_OPTS "symfs=\"" LNK_DIR "symfs\""

/* babeltrace2's fields, as "NAME|bin|func|src" per event, from our columns. */
#define DBG_SELECT \
  "SELECT name || '|' ||" \
  " coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), '') || printf('+0x%%x', dso_offset), '')" \
  " || '|' || coalesce(symbol || printf('+0x%%x', symoff), '') || '|' || coalesce(srcline, '')"

/*
** babeltrace2's lines z (modified) as "NAME|bin|func|src" lines, in their
** order: "[ts] [HOST ]NAME: { ... debug_info = { bin = .. } ..." (an event
** without the debug_info field: "NAME|||").
*/
static void bt2_parse(char *z, TlLines *pOut, int *pnFunc, int *pnSrc){
  char *zLine, *zSave = 0;
  *pnFunc = *pnSrc = 0;
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    char zBin[256], zFunc[256], zSrc[256], zRow[1024];
    const char *zHost = strstr(zLine, "] "), *zInfo = strstr(zLine, "debug_info = { bin = \"");
    const char *zName, *zEnd, *zSp;
    assert_non_null(zHost);
    zName = zHost + 2;
    zEnd = strstr(zName, ": ");
    assert_non_null(zEnd);
    zSp = strchr(zName, ' ');
    if( zSp && zSp < zEnd ) zName = zSp + 1;      /* past the host name */
    zBin[0] = zFunc[0] = zSrc[0] = 0;
    if( zInfo==0 ){
      snprintf(zRow, sizeof(zRow), "%.*s|||", (int)(zEnd - zName), zName);
      tl_lines_add(pOut, zRow);
      continue;
    }
    assert_int_equal(sscanf(zInfo, "debug_info = { bin = \"%255[^\"]", zBin) >= 0, 1);
    zInfo = strstr(zInfo, "func = \"");
    assert_non_null(zInfo);
    assert_int_equal(sscanf(zInfo, "func = \"%255[^\"]", zFunc) >= 0, 1);
    zInfo = strstr(zInfo, "src = \"");
    assert_non_null(zInfo);
    assert_int_equal(sscanf(zInfo, "src = \"%255[^\"]", zSrc) >= 0, 1);
    if( zFunc[0] ) (*pnFunc)++;
    if( zSrc[0] ) (*pnSrc)++;
    snprintf(zRow, sizeof(zRow), "%.*s|%s|%s|%s", (int)(zEnd - zName), zName, zBin, zFunc, zSrc);
    tl_lines_add(pOut, zRow);
  }
}

/* A reference file as bt2_parse gives it. */
static void bt2_lines(const char *zRef, TlLines *pOut, int *pnFunc, int *pnSrc){
  char *z = tl_test_read_file(zRef, 0);
  assert_non_null(z);
  bt2_parse(z, pOut, pnFunc, pnSrc);
  free(z);
}

/* Our rows (one per line; zGot is modified) equal want, in order. */
static void rows_equal(const TlLines *pWant, char *zGot){
  char *zLine, *zSave = 0;
  size_t i = 0;
  for(zLine=strtok_r(zGot, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave), i++){
    assert_true(i < pWant->n);
    if( strcmp(zLine, pWant->az[i]) ){
      print_error("event %zu: ours '%s', babeltrace2 '%s'\n", i, zLine, pWant->az[i]);
      fail();
    }
  }
  assert_int_equal(i, pWant->n);
}

/*
** Every event of DIR/trace (options zOpts, with and without accel) has
** the bin, func and src of the babeltrace2 output DIR/zRef, which has more
** than nMin events, at least nFuncMin funcs and nSrcMin srcs.
*/
static void equals_bt2(sqlite3 *db, const char *zDir, const char *zRef, const char *zOpts,
                       size_t nMin, int nFuncMin, int nSrcMin){
  TlLines want = {0};
  char zPath[1024];
  int nFunc, nSrc, k;
  snprintf(zPath, sizeof(zPath), "%s%s", zDir, zRef);
  bt2_lines(zPath, &want, &nFunc, &nSrc);
  assert_true(want.n > nMin);
  assert_true(nFunc >= nFuncMin);
  assert_true(nSrc >= nSrcMin);
  snprintf(zPath, sizeof(zPath), "%strace", zDir);
  for(k=0; k<2; k++){
    char *zGot = tl_test_sql_rows(db, DBG_SELECT " FROM events(%Q, '%q%s') ORDER BY ts",
                                  zPath, zOpts, k ? " accel=off" : "");
    rows_equal(&want, zGot);
    free(zGot);
  }
  tl_lines_free(&want);
}

/* Every event's bin, func and src equal babeltrace2's, with and without accel. */
static void ust_debuginfo_equals_babeltrace2(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  /* the reference names functions and lines of the program and both libraries */
  equals_bt2(db, DBG_DIR, "debuginfo.bt2.txt", DBG_OPTS, 50, 20, 15);
  tl_test_db_close(db);
}

/*
** A window late in the trace gives the same answers: the maps come from
** the statedump and the loads before it.
*/
static void ust_debuginfo_window(void **state){
  sqlite3 *db = tl_test_db();
  char *zAll, *zWin;
  int64_t tsMid;
  (void)state;
  tsMid = tl_test_sql_int(db, "SELECT ts FROM events(%Q) WHERE name='dbg:hit' ORDER BY ts LIMIT 1 OFFSET 5",
                          DBG_DIR "trace");
  /* +ts: the whole trace read, the window applied by SQLite */
  zAll = tl_test_sql_rows(db, DBG_SELECT " FROM events(%Q, %Q) WHERE +ts>=%lld ORDER BY ts",
                          DBG_DIR "trace", DBG_OPTS, (long long)tsMid);
  tl_test_db_close(db);
  /* in a fresh database, the window pushed down: the maps are built for it */
  db = tl_test_db();
  zWin = tl_test_sql_rows(db, DBG_SELECT " FROM events(%Q, %Q) WHERE ts>=%lld ORDER BY ts",
                          DBG_DIR "trace", DBG_OPTS, (long long)tsMid);
  assert_true(strlen(zAll) > 0);
  assert_string_equal(zWin, zAll);
  free(zAll);
  free(zWin);
  tl_test_db_close(db);
}

/*
** Where no file is found (babeltrace2 with a target prefix holding none,
** tracelite with a symfs= likewise): a file whose build id the statedump
** gave has nothing (babeltrace2 cannot check it), the dlopened one its
** bin alone. A trace without an ip context has none of the columns.
*/
static void ust_debuginfo_files_missing(void **state){
  sqlite3 *db = tl_test_db();
  TlLines want = {0};
  int nFunc, nSrc;
  char *zGot;
  (void)state;
  bt2_lines(DBG_DIR "debuginfo-nofiles.bt2.txt", &want, &nFunc, &nSrc);
  assert_int_equal(nFunc, 0);
  zGot = tl_test_sql_rows(db, DBG_SELECT " FROM events(%Q, 'symfs=/nonexistent') ORDER BY ts",
                          DBG_DIR "trace");
  rows_equal(&want, zGot);
  free(zGot);
  tl_lines_free(&want);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q)"
                                   " WHERE coalesce(symbol, dso, symoff, dso_offset, srcline) IS NOT NULL",
                                   TL_TESTDATA_DIR "/ctf/ust-types"), 0);
  tl_test_db_close(db);
}

/* All of f's bytes, NUL-ended (malloc'd), or NULL when out of memory. */
static char *read_stream(FILE *f){
  size_t n = 0, nAlloc = 0, k;
  char *z = 0;
  do{
    if( nAlloc - n < 4096 ){
      char *zNew = realloc(z, nAlloc*2 + 8192);
      if( zNew==0 ){ free(z); return 0; }
      z = zNew;
      nAlloc = nAlloc*2 + 8192;
    }
    k = fread(z + n, 1, nAlloc - n - 1, f);
    n += k;
  }while( k>0 );
  z[n] = 0;
  return z;
}

/*
** The debug-info traces of the peer set (Trace Compass's test traces:
** synthetic statedumps of several processes, exec, build ids and debug
** links, and a recorded test program), against babeltrace2 --debug-info
** run on them now (the files they name are not on this machine, so bin
** alone is known, and only until a build id is given). bin is "@0x"
** and the ip for a file that is not position-independent: dso_offset is
** then the ip.
*/
static void ust_debuginfo_peer_traces(void **state){
  static const char *const azTrace[] = {
    "debuginfo-test-app4", "debuginfo-synth-two-processes",
    "debuginfo-synth-buildid-debuglink", "debuginfo-synth-exec",
  };
  const char *zPeer = getenv("TL_PEER_DIR");
  sqlite3 *db;
  size_t k;
  int nBin = 0;
  (void)state;
  if( zPeer==0 || zPeer[0]==0 ) zPeer = TL_PEER_DIR;
  db = tl_test_db();
  for(k=0; k<sizeof(azTrace)/sizeof(azTrace[0]); k++){
    char zTrace[1024], zCmd[1200];
    TlLines want = {0};
    int nFunc, nSrc;
    size_t i;
    char *zOut, *zGot;
    FILE *f;
    snprintf(zTrace, sizeof(zTrace), "%s/ctf/tracecompass-test-traces/%s", zPeer, azTrace[k]);
    snprintf(zCmd, sizeof(zCmd), "babeltrace2 --clock-seconds --no-delta --debug-info '%s' 2>/dev/null", zTrace);
    f = access(zTrace, R_OK)==0 ? popen(zCmd, "r") : 0;
    if( f==0 ){
      printf("[     SKIP ] %s: no peer traces at %s\n", __func__, zPeer);
      tl_test_db_close(db);
      skip();
      return;
    }
    zOut = read_stream(f);
    if( pclose(f)!=0 || zOut==0 || zOut[0]==0 ){
      printf("[     SKIP ] %s: babeltrace2 --debug-info failed on %s\n", __func__, zTrace);
      free(zOut);
      tl_test_db_close(db);
      skip();
      return;
    }
    bt2_parse(zOut, &want, &nFunc, &nSrc);
    free(zOut);
    for(i=0; i<want.n; i++) nBin += strchr(want.az[i], '|')[1]!='|';
    zGot = tl_test_sql_rows(db,
        "SELECT name || '|' || coalesce(replace(dso, rtrim(dso, replace(dso, '/', '')), '')"
        " || printf(iif(dso_offset = args->>'$.ip', '@0x%%x', '+0x%%x'), dso_offset), '')"
        " || '|' || coalesce(symbol || printf('+0x%%x', symoff), '') || '|' || coalesce(srcline, '')"
        " FROM events(%Q) ORDER BY ts", zTrace);
    rows_equal(&want, zGot);
    free(zGot);
    tl_lines_free(&want);
  }
  assert_true(nBin > 0);
  tl_test_db_close(db);
}

/*
** Files whose debug info is split off and named by a GNU debug link only
** (testdata/ctf/ust-debuglink/record.sh: no build id; the statedump's
** debug_link events): found beside the file and in its .debug/ folder, as
** babeltrace2 finds them (debuglink.bt2.txt). A debug file whose CRC-32 is
** not the link's is not used: the library's events then have no srcline.
*/
static void ust_debuginfo_debug_link(void **state){
  sqlite3 *db = tl_test_db();
  char zDir[512], zCmd[4096];
  (void)state;
  /* the program's and the library's functions and lines, from the debug files */
  equals_bt2(db, LNK_DIR, "debuglink.bt2.txt", LNK_OPTS, 20, 8, 8);
  /* a copy whose library debug file has one more byte */
  snprintf(zDir, sizeof(zDir), "%s/debuglink", tl_test_tmpdir());
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s' && mkdir '%s' && cp -r '%s' '%s/'"
           " && printf x >> '%s/symfs" LNK_OPT_DIR "/liblnk.so.debug'", zDir, zDir, LNK_DIR "symfs", zDir, zDir);
  assert_int_equal(system(zCmd), 0);
  snprintf(zCmd, sizeof(zCmd), "symfs=\"%s/symfs\"", zDir);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, %Q)"
                                   " WHERE dso LIKE '%%/liblnk.so' AND srcline IS NULL AND symbol IS NOT NULL",
                                   LNK_DIR "trace", zCmd), 3);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events(%Q, %Q)"
                                   " WHERE dso LIKE '%%/lnk_app' AND srcline IS NOT NULL",
                                   LNK_DIR "trace", zCmd), 5);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings(%Q, %Q)"
                                   " WHERE file = '" LNK_OPT_DIR "/liblnk.so' AND message LIKE"
                                   " '%%/liblnk.so.debug is not its debug file: its CRC-32 is not the debug link''s (%%)'",
                                   LNK_DIR "trace", zCmd), 1);
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s'", zDir);
  assert_int_equal(system(zCmd), 0);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(ust_debuginfo,
  cmocka_unit_test(ust_debuginfo_equals_babeltrace2),
  cmocka_unit_test(ust_debuginfo_window),
  cmocka_unit_test(ust_debuginfo_files_missing),
  cmocka_unit_test(ust_debuginfo_peer_traces),
  cmocka_unit_test(ust_debuginfo_debug_link),
);
