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
#define SYM_OPTS "symfs=\"" SYM_DIR "symfs\" kallsyms=\"" SYM_DIR "kallsyms\""

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
** "[unknown]", so those lines are summed.
*/
static void perf_top_symbols_equal_perf_report(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = open_ref("sym.report.txt");
  char zLine[1024];
  int64_t nUnknown = 0, nTotal = 0;
  int nNamed = 0;
  (void)state;
  while( fgets(zLine, sizeof(zLine), f) ){
    char zPct[32], zKind[8], zSym[512];
    long long n;
    if( sscanf(zLine, " %31s %lld %7s %511s", zPct, &n, zKind, zSym)!=4 || strchr(zPct, '%')==0 ) continue;
    nTotal += n;
    if( strncmp(zSym, "0x", 2)==0 ){ nUnknown += n; continue; }
    nNamed++;
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

TL_DEFINE_GROUP(perf_sym,
  cmocka_unit_test(perf_frames_equal_perf_script),
  cmocka_unit_test(perf_top_symbols_equal_perf_report),
  cmocka_unit_test(perf_symbols_equal_readelf),
  cmocka_unit_test(perf_missing_kallsyms_is_a_warning),
);
