/*
** test_perf_sym.c: perf.data addresses resolved to symbols, against perf.
**
** testdata/perf/sym/ holds sym.data, recorded from a small program
** (record.sh), the program itself under a --symfs root, the lines of
** kallsyms its kernel frames need, and what perf printed with exactly those
** files: perf script (every callchain frame's symbol and dso) and perf
** report --sort sym (samples per symbol). readelf -sW gives the program's
** symbol table.
*/
#include "tltest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define SYM_DIR  TL_TESTDATA_DIR "/perf/sym/"
#define SYM_DATA SYM_DIR "sym.data"
/* as perf was run: only these files, no build-id cache (PERF_BUILDID_DIR empty) */
#define SYM_OPTS "symfs=\"" SYM_DIR "symfs\" kallsyms=\"" SYM_DIR "kallsyms\" " \
                 "buildid_dir=\"" SYM_DIR "no-cache\""

static FILE *open_ref(const char *zName){
  char zPath[512];
  FILE *f;
  snprintf(zPath, sizeof(zPath), SYM_DIR "%s", zName);
  f = fopen(zPath, "r");
  assert_non_null(f);
  return f;
}

/*
** Every frame perf script printed, as "sample|symbol|dso" (and the address
** for kernel frames, which perf prints as is; user frames it prints
** relative to their file), equals the callchains row of the same sample
** and depth.
*/
static void perf_frames_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = open_ref("sym.script.txt");
  char zLine[1024];
  int iSample = -1;
  size_t nKernelNamed = 0, nUserNamed = 0, i;
  char *zOurs, *z;
  sqlite3_str *pRef = sqlite3_str_new(0);
  (void)state;
  while( fgets(zLine, sizeof(zLine), f) ){
    char zAddr[64], zSym[512], zDso[512];
    size_t n = strlen(zLine);
    char *zOpen;
    if( zLine[0]!='\t' ){
      if( zLine[0]!='\n' ) iSample++;
      continue;
    }
    while( n && zLine[n-1]=='\n' ) zLine[--n] = 0;
    /* "\t    ADDR SYMBOL (DSO)"; the symbol may hold spaces, the dso is last */
    zOpen = strrchr(zLine, '(');
    assert_non_null(zOpen);
    assert_true(n>0 && zLine[n-1]==')');
    zLine[n-1] = 0;
    snprintf(zDso, sizeof(zDso), "%s", zOpen+1);
    zOpen[-1] = 0;
    z = zLine;
    while( isspace((unsigned char)*z) ) z++;
    assert_int_equal(sscanf(z, "%63s", zAddr), 1);
    snprintf(zSym, sizeof(zSym), "%s", z + strlen(zAddr) + 1);
    if( strcmp(zDso, "[kernel.kallsyms]")==0 ){
      if( strcmp(zSym, "[unknown]") ) nKernelNamed++;
    }else{
      zAddr[0] = 0;
      if( strcmp(zSym, "[unknown]") ) nUserNamed++;
    }
    sqlite3_str_appendf(pRef, "%d|%s|%s|%s\n", iSample, zAddr, zSym, zDso);
  }
  fclose(f);
  /* the test means something only if perf named frames of both kinds */
  assert_true(iSample>=100);
  assert_true(nKernelNamed>=10);
  assert_true(nUserNamed>=100);
  zOurs = tl_test_sql_rows(db,
      "SELECT s.n, CASE WHEN c.dso='[kernel.kallsyms]' THEN printf('%%x', c.ip) ELSE '' END, "
      "       c.symbol, c.dso "
      "FROM callchains('" SYM_DATA "', '" SYM_OPTS "') c "
      "JOIN (SELECT rowid AS id, row_number() OVER (ORDER BY rowid) - 1 AS n "
      "      FROM events('" SYM_DATA "') WHERE type = 'SAMPLE') s ON s.id = c.event "
      "ORDER BY s.n, c.depth");
  z = sqlite3_str_finish(pRef);
  i = strlen(z);
  if( i ) z[i-1] = 0;                             /* tl_test_sql_rows: no final newline */
  assert_string_equal(zOurs, z);
  sqlite3_free(z);
  free(zOurs);
  tl_test_db_close(db);
}

/*
** perf report --no-children -g none --sort sym -n: samples per symbol of the
** sample's own address. perf shows an address it cannot name as its
** offset ("[.] 0x0000000000012997", one line each); we name them all
** "[unknown]", so those lines are summed. GROUP BY symbol (counted by
** symbol, no sort) gives the same counts.
*/
static void perf_top_symbols_equal_perf_report(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = open_ref("sym.report.txt");
  char zLine[1024];
  int64_t nUnknown = 0, nTotal = 0;
  int nNamed = 0;
  TlLines want = {0}, got = {0};
  char *zRows, *zPlan, *zRow;
  size_t i;
  (void)state;
  while( fgets(zLine, sizeof(zLine), f) ){
    char zPct[32], zKind[8], zSym[512];
    long long n;
    if( sscanf(zLine, " %31s %lld %7s %511s", zPct, &n, zKind, zSym)!=4 || strchr(zPct, '%')==0 ) continue;
    nTotal += n;
    if( strncmp(zSym, "0x", 2)==0 ){ nUnknown += n; continue; }
    nNamed++;
    snprintf(zLine, sizeof(zLine), "%s|%lld", zSym, n);
    tl_lines_add(&want, zLine);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM callchains('" SYM_DATA "', '" SYM_OPTS "') "
        "WHERE depth = 0 AND symbol = '%s' AND dso %s '[kernel.kallsyms]'",
        zSym, strcmp(zKind, "[k]")==0 ? "=" : "<>"), n);
  }
  fclose(f);
  assert_true(nNamed>=5);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM callchains('" SYM_DATA "', '" SYM_OPTS "') "
      "WHERE depth = 0 AND symbol = '[unknown]'"), nUnknown);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM events('" SYM_DATA "') WHERE type = 'SAMPLE'"), nTotal);
  /* GROUP BY symbol comes counted by symbol, without a sort: the same */
  snprintf(zLine, sizeof(zLine), "[unknown]|%lld", (long long)nUnknown);
  tl_lines_add(&want, zLine);
  zPlan = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT symbol, count(*) FROM callchains('" SYM_DATA "', '"
                               SYM_OPTS "') WHERE depth = 0 GROUP BY symbol");
  if( strstr(zPlan, "TEMP B-TREE") ) fail_msg("GROUP BY symbol sorts: %s", zPlan);
  free(zPlan);
  /* ordered by the count, SQLite asks for the groups in descending order:
  ** still grouped only, the sort is the ORDER BY's alone */
  zPlan = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN SELECT symbol, count(*) FROM callchains('" SYM_DATA "', '"
                               SYM_OPTS "') WHERE depth = 0 GROUP BY 1 ORDER BY 2 DESC LIMIT 10");
  if( strstr(zPlan, "FOR GROUP BY") ) fail_msg("GROUP BY symbol sorts: %s", zPlan);
  free(zPlan);
  zRows = tl_test_sql_rows(db, "SELECT symbol || '|' || count(*) FROM callchains('" SYM_DATA "', '"
                               SYM_OPTS "') WHERE depth = 0 GROUP BY symbol");
  for(zRow=strtok(zRows, "\n"); zRow; zRow=strtok(0, "\n")) tl_lines_add(&got, zRow);
  free(zRows);
  tl_lines_sort(&want);
  tl_lines_sort(&got);
  if( got.n!=want.n ) fail_msg("%zu symbol groups, perf report has %zu", got.n, want.n);
  for(i=0; i<got.n; i++){
    if( strcmp(got.az[i], want.az[i]) ) fail_msg("group: ours %s, perf report %s", got.az[i], want.az[i]);
  }
  tl_lines_free(&want);
  tl_lines_free(&got);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(DISTINCT symbol) FROM callchains('" SYM_DATA "', '"
                                       SYM_OPTS "') WHERE depth = 0"), nNamed + 1);
  tl_test_db_close(db);
}

/*
** The symbols table holds the program's .symtab as readelf -sW prints it:
** every defined FUNC and OBJECT symbol with its address and size.
*/
static void perf_symbols_equal_readelf(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = open_ref("symprog.readelf.txt");
  char zLine[1024];
  int bSymtab = 0, nChecked = 0;
  (void)state;
  while( fgets(zLine, sizeof(zLine), f) ){
    unsigned long long addr;
    long long size;
    char zType[32], zBind[32], zVis[32], zNdx[32], zName[512];
    if( strncmp(zLine, "Symbol table", 12)==0 ){ bSymtab = strstr(zLine, "'.symtab'")!=0; continue; }
    if( !bSymtab ) continue;
    if( sscanf(zLine, " %*[0-9]: %llx %lld %31s %31s %31s %31s %511s",
               &addr, &size, zType, zBind, zVis, zNdx, zName)!=7 ) continue;
    if( (strcmp(zType, "FUNC") && strcmp(zType, "OBJECT")) || addr==0
     || strcmp(zNdx, "UND")==0 || strcmp(zNdx, "ABS")==0 ) continue;
    nChecked++;
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM symbols('" SYM_DATA "', '" SYM_OPTS "') "
        "WHERE module = '/tmp/tracelite-sym/symprog' AND name = '%s' AND addr = %llu "
        "AND size = %lld AND kind = '%s'",
        zName, addr, size, strcmp(zType, "FUNC")==0 ? "func" : "object"), 1);
  }
  fclose(f);
  assert_true(nChecked>=10);
  /* kallsyms= adds the kernel's text symbols of that file: each line once */
  {
    FILE *k = open_ref("kallsyms");
    int64_t nLines = 0;
    while( fgets(zLine, sizeof(zLine), k) ) nLines++;
    fclose(k);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM symbols('" SYM_DATA "', '" SYM_OPTS "') "
        "WHERE module = '[kernel.kallsyms]'"), nLines);
  }
  tl_test_db_close(db);
}

/* A kallsyms= file that cannot be read leaves kernel frames unnamed and says so. */
static void perf_missing_kallsyms_is_a_warning(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM callchains('" SYM_DATA "', 'kallsyms=" SYM_DIR "no-such-file') "
      "WHERE dso = '[kernel.kallsyms]' AND symbol <> '[unknown]'"), 0);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM trace_warnings('" SYM_DATA "', 'kallsyms=" SYM_DIR "no-such-file') "
      "WHERE message LIKE '%%kallsyms=%%no-such-file%%'"), 1);
  tl_test_db_close(db);
}

/*
** Where perf finds a file: by the build id the trace recorded, in the
** build-id cache first (.build-id/xx/rest/elf under buildid_dir=), and a
** file at the mapped path only if its build id is that one.
*/
static void perf_build_id_cache_and_mismatch(void **state){
  sqlite3 *db = tl_test_db();
  char *zId, *zWant, *zGot;
  char zDir[512], zPath[1024], zOpts[2048];
  size_t n, i;
  uint8_t *a = tl_test_read_file(SYM_DIR "symfs/tmp/tracelite-sym/symprog", &n);
  (void)state;
  assert_non_null(a);
  zId = tl_test_sql_text(db, "SELECT j.value ->> '$.build_id' FROM perf_features('" SYM_DATA "') f, "
                             "json_each(f.value) j WHERE f.name = 'BUILD_ID' "
                             "AND j.value ->> '$.filename' = '/tmp/tracelite-sym/symprog'");
  assert_non_null(zId);
  assert_int_equal(strlen(zId), 40);
  zWant = tl_test_sql_rows(db, "SELECT symbol FROM callchains('" SYM_DATA "', '" SYM_OPTS "') "
                               "WHERE dso = '/tmp/tracelite-sym/symprog' ORDER BY event, depth");
  assert_non_null(strstr(zWant, "fib"));
  /* the cache alone (symfs= names a directory with nothing in it) */
  snprintf(zDir, sizeof(zDir), "%s/bid-cache", tl_test_tmpdir());
  snprintf(zPath, sizeof(zPath), "%s/.build-id/%.2s/%s", zDir, zId, zId+2);
  assert_int_equal(tl_test_mkdirs(zPath), 0);
  strcat(zPath, "/elf");
  assert_int_equal(tl_test_write_file(zPath, a, n), 0);
  snprintf(zOpts, sizeof(zOpts), "symfs=\"%s/empty\" buildid_dir=\"%s\"", tl_test_tmpdir(), zDir);
  zGot = tl_test_sql_rows(db, "SELECT symbol FROM callchains('" SYM_DATA "', %Q) "
                              "WHERE dso = '/tmp/tracelite-sym/symprog' ORDER BY event, depth", zOpts);
  assert_string_equal(zGot, zWant);
  free(zGot);
  /* a file at the path whose build id differs is not used, and it says so */
  for(i=0; i+17<=n; i++){
    /* the build-id note: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU" */
    static const uint8_t aNote[16] = { 4,0,0,0, 20,0,0,0, 3,0,0,0, 'G','N','U',0 };
    if( memcmp(a+i, aNote, 16)==0 ){ a[i+16] ^= 0xff; break; }   /* its first id byte */
  }
  assert_true(i+17<=n);
  snprintf(zDir, sizeof(zDir), "%s/other-symfs", tl_test_tmpdir());
  snprintf(zPath, sizeof(zPath), "%s/tmp/tracelite-sym", zDir);
  assert_int_equal(tl_test_mkdirs(zPath), 0);
  strcat(zPath, "/symprog");
  assert_int_equal(tl_test_write_file(zPath, a, n), 0);
  snprintf(zOpts, sizeof(zOpts), "symfs=\"%s\" buildid_dir=\"%s/none\"", zDir, tl_test_tmpdir());
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM callchains('" SYM_DATA "', %Q) "
                                       "WHERE dso = '/tmp/tracelite-sym/symprog' AND symbol <> '[unknown]'",
                                   zOpts), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_warnings('" SYM_DATA "', %Q) "
                                       "WHERE message LIKE '%%build id%%' AND message LIKE '%%%s%%'",
                                   zOpts, zId), 1);
  free(zWant);
  free(zId);
  free(a);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_sym,
  cmocka_unit_test(perf_frames_equal_perf_script),
  cmocka_unit_test(perf_top_symbols_equal_perf_report),
  cmocka_unit_test(perf_symbols_equal_readelf),
  cmocka_unit_test(perf_missing_kallsyms_is_a_warning),
  cmocka_unit_test(perf_build_id_cache_and_mismatch),
);
