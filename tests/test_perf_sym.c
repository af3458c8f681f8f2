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

#include "elf.h"
#include "model_symbols.h"
#include "trace.h"

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


/* A trace, for its lock and warnings, which the model's questions take. */
static TlTrace *model_trace(void){
  TlTrace *pTrace = 0;
  TlErr err;
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(SYM_DATA, 0, &pTrace, &err), TL_OK);
  return pTrace;
}

/* The answer's file and offset in it, as "dso+0xoff". */
static const char *model_where(TlSymbols *pSyms, TlTrace *pTrace, int64_t pid, int64_t ts,
                               uint64_t ip){
  static char z[256];
  TlSymbolAt at;
  tl_symbols_at(pSyms, pTrace, pid, ts, ip, 0, &at);
  assert_string_equal(at.zSym, "[unknown]");        /* none of these files exist */
  snprintf(z, sizeof(z), "%s+0x%llx", at.zDso, (unsigned long long)at.dsooff);
  return z;
}

/*
** By the definitions: an address of a process at a time is in the map,
** among those of the process holding it made at or before that time, that
** was added last; the offset in its file is ip - start + pgoff. A child
** without a map of its own holding the address has its parent's.
*/
static void model_symbols_maps_over_time_and_fork(void **state){
  TlTrace *pTrace = model_trace();
  TlSymbols *p = tl_symbols_new(0, SYM_DIR "no-cache", 0);
  (void)state;
  assert_non_null(p);
  /* pid 100 maps a.so at 0x1000, then b.so over it at time 2000 */
  assert_int_equal(tl_symbols_add_map(p, 100, 1000, 0x1000, 0x1000, 0, "/no/a.so", 8), TL_OK);
  assert_int_equal(tl_symbols_add_map(p, 100, 2000, 0x1000, 0x1000, 0x5000, "/no/b.so", 8), TL_OK);
  /* 200 is a child of 100, with one small map of its own */
  assert_int_equal(tl_symbols_add_parent(p, 200, 100), TL_OK);
  assert_int_equal(tl_symbols_add_map(p, 200, 3000, 0x1800, 0x100, 0x40, "/no/c.so", 8), TL_OK);
  tl_symbols_finish(p);

  assert_string_equal(model_where(p, pTrace, 100, 500, 0x1234), "[unknown]+0x0");   /* before any */
  assert_string_equal(model_where(p, pTrace, 100, 1500, 0x1234), "/no/a.so+0x234");
  assert_string_equal(model_where(p, pTrace, 100, 2000, 0x1234), "/no/b.so+0x5234"); /* made then */
  assert_string_equal(model_where(p, pTrace, 100, 2500, 0x1234), "/no/b.so+0x5234");
  assert_string_equal(model_where(p, pTrace, 100, TL_SYMBOLS_NO_TS, 0x1234), "/no/b.so+0x5234");
  assert_string_equal(model_where(p, pTrace, 100, 2500, 0x1fff), "/no/b.so+0x5fff");
  assert_string_equal(model_where(p, pTrace, 100, 2500, 0x2000), "[unknown]+0x0");  /* past the end */
  assert_string_equal(model_where(p, pTrace, 100, 2500, 0xfff), "[unknown]+0x0");
  /* the child: its parent's maps, as they were at the time asked */
  assert_string_equal(model_where(p, pTrace, 200, 1500, 0x1234), "/no/a.so+0x234");
  assert_string_equal(model_where(p, pTrace, 200, 2500, 0x1234), "/no/b.so+0x5234");
  /* its own map, from its time on; the parent's elsewhere */
  assert_string_equal(model_where(p, pTrace, 200, 2500, 0x1810), "/no/b.so+0x5810");
  assert_string_equal(model_where(p, pTrace, 200, 3500, 0x1810), "/no/c.so+0x50");
  assert_string_equal(model_where(p, pTrace, 200, 3500, 0x1234), "/no/b.so+0x5234");
  /* the parent does not see the child's map; an unrelated process sees nothing */
  assert_string_equal(model_where(p, pTrace, 100, 3500, 0x1810), "/no/b.so+0x5810");
  assert_string_equal(model_where(p, pTrace, 300, 2500, 0x1234), "[unknown]+0x0");
  tl_symbols_free(p);
  tl_trace_release(pTrace);
}

/* The address readelf -sW gives symbol zName of the program's .symtab, or 0. */
static uint64_t readelf_addr(const char *zName){
  FILE *f = open_ref("symprog.readelf.txt");
  char zLine[1024], zSym[512];
  unsigned long long addr, found = 0;
  while( fgets(zLine, sizeof(zLine), f) ){
    if( sscanf(zLine, " %*[0-9]: %llx %*s %*s %*s %*s %*s %511s", &addr, zSym)==2
     && strcmp(zSym, zName)==0 && addr ){ found = addr; break; }
  }
  fclose(f);
  return found;
}

/*
** The next frame line of perf script's output f ("\tADDR SYMBOL (DSO)", a
** symbol without spaces) into *pAddr, zSym and zDso (512 bytes each); 0
** at its end.
*/
static int script_frame(FILE *f, unsigned long long *pAddr, char *zSym, char *zDso){
  char zLine[1024];
  while( fgets(zLine, sizeof(zLine), f) ){
    if( zLine[0]=='\t' && sscanf(zLine, " %llx %511s (%511[^)])", pAddr, zSym, zDso)==3 ) return 1;
  }
  return 0;
}

/*
** The program mapped whole (from file offset 0) at an address of our
** choosing, and the kallsyms file: every frame perf script named in the
** program or the kernel gets the same symbol from the model. perf prints
** a program frame by its address in the file, which (readelf -lW: the text
** segment's offset and address are both 0x1000) is its offset there too.
** The offset into the symbol is the address less readelf's symbol address.
*/
static void model_symbols_elf_names_equal_perf_script(void **state){
  static const char zProg[] = "/tmp/tracelite-sym/symprog";
  const uint64_t start = 0x7f1200000000ull;
  TlTrace *pTrace = model_trace();
  TlSymbols *p = tl_symbols_new(SYM_DIR "symfs", SYM_DIR "no-cache", SYM_DIR "kallsyms");
  FILE *f = open_ref("sym.script.txt");
  unsigned long long addr;
  char zSym[512], zDso[512];
  int nUser = 0, nKernel = 0;
  (void)state;
  assert_non_null(p);
  assert_int_equal(tl_symbols_add_map(p, 27657, TL_SYMBOLS_NO_TS, start, 0x10000, 0, zProg,
                                      strlen(zProg)), TL_OK);
  tl_symbols_finish(p);
  while( script_frame(f, &addr, zSym, zDso) ){
    TlSymbolAt at;
    if( strcmp(zSym, "[unknown]")==0 ) continue;
    if( strcmp(zDso, zProg)==0 ){
      tl_symbols_at(p, pTrace, 27657, 0, start + addr, 0, &at);
      assert_string_equal(at.zDso, zProg);
      assert_int_equal(at.dsooff, addr);
      assert_int_equal(at.symoff, addr - readelf_addr(zSym));
      nUser++;
    }else if( strcmp(zDso, "[kernel.kallsyms]")==0 ){
      tl_symbols_at(p, pTrace, 27657, 0, addr, 1, &at);
      assert_string_equal(at.zDso, zDso);
      nKernel++;
    }else{
      continue;
    }
    assert_string_equal(at.zSym, zSym);
  }
  fclose(f);
  assert_true(nUser>=100);
  assert_true(nKernel>=10);
  tl_symbols_free(p);
  tl_trace_release(pTrace);
}

/*
** kallsyms read ahead while inputs still come (tl_symbols_kernel_prefetch)
** names every kernel frame perf script named as a model that reads it at
** its first question does. When the ended inputs name another file (a
** kernel build id that is not the running kernel's, whose kallsyms the
** build-id cache does not hold), what was read ahead is dropped: kernel
** frames stay unnamed, as without it; a model freed before its first
** question waits for its read.
*/
static void model_kallsyms_read_ahead_same_names(void **state){
  static const uint8_t aId[20] = { 0xde, 0xad, 0xbe, 0xef };
  TlTrace *pTrace = model_trace();
  TlSymbols *pAhead = tl_symbols_new(SYM_DIR "symfs", SYM_DIR "no-cache", SYM_DIR "kallsyms");
  TlSymbols *pLate = tl_symbols_new(SYM_DIR "symfs", SYM_DIR "no-cache", SYM_DIR "kallsyms");
  TlSymbols *pOther = tl_symbols_new(0, SYM_DIR "no-cache", 0);
  TlSymbols *pUnused = tl_symbols_new(SYM_DIR "symfs", SYM_DIR "no-cache", SYM_DIR "kallsyms");
  FILE *f = open_ref("sym.script.txt");
  unsigned long long addr;
  char zSym[512], zDso[512];
  int nKernel = 0;
  TlSymbolAt at;
  (void)state;
  assert_non_null(pAhead); assert_non_null(pLate); assert_non_null(pOther); assert_non_null(pUnused);
  tl_symbols_kernel_prefetch(pAhead);
  tl_symbols_kernel_prefetch(pOther);
  tl_symbols_kernel_prefetch(pUnused);
  assert_int_equal(tl_symbols_add_build_id(pOther, "[kernel.kallsyms]", 17, aId, sizeof(aId)), TL_OK);
  tl_symbols_finish(pAhead);
  tl_symbols_finish(pLate);
  tl_symbols_finish(pOther);
  tl_symbols_free(pUnused);
  while( script_frame(f, &addr, zSym, zDso) ){
    TlSymbolAt late;
    if( strcmp(zDso, "[kernel.kallsyms]") ) continue;
    tl_symbols_at(pAhead, pTrace, 1, 0, addr, 1, &at);
    tl_symbols_at(pLate, pTrace, 1, 0, addr, 1, &late);
    assert_string_equal(at.zSym, zSym);
    assert_string_equal(at.zSym, late.zSym);
    assert_string_equal(at.zDso, late.zDso);
    assert_int_equal(at.symoff, late.symoff);
    nKernel++;
  }
  fclose(f);
  assert_true(nKernel>=10);
  tl_symbols_at(pOther, pTrace, 1, 0, 0xffffffff81000000ull, 1, &at);
  assert_string_equal(at.zSym, "[unknown]");
  tl_symbols_free(pAhead);
  tl_symbols_free(pLate);
  tl_symbols_free(pOther);
  tl_trace_release(pTrace);
}

/*
** Every cut of the program short of its whole length is no ELF file to
** read: the 64-bit header (64 bytes) or the section headers (at the end)
** are cut, and the parse fails cleanly, holding nothing. A symbol table
** cut inside an entry ends at its last whole entry.
*/
static void elf_cut_short_fails_cleanly(void **state){
  size_t n, k;
  uint8_t *a = tl_test_read_file(SYM_DIR "symfs/tmp/tracelite-sym/symprog", &n);
  TlElf e;
  TlErr err;
  uint32_t iTab = UINT32_MAX;
  (void)state;
  assert_non_null(a);
  for(k=0; k<n; k++){
    uint8_t *aCut = malloc(k ? k : 1);      /* its own buffer: ASan sees reads past it */
    int rc;
    assert_non_null(aCut);
    memcpy(aCut, a, k);
    tl_err_clear(&err);
    rc = tl_elf_parse(&e, aCut, k, "symprog", &err);
    if( rc!=TL_ECORRUPT && rc!=TL_EMISUSE ) fail_msg("a cut at %zu bytes parses (%d)", k, rc);
    assert_true(e.aSec==0 && e.nSec==0 && e.aSeg==0 && e.nSeg==0);
    free(aCut);
  }
  tl_err_clear(&err);
  assert_int_equal(tl_elf_parse(&e, a, n, "symprog", &err), TL_OK);
  for(k=0; k<e.nSec; k++) if( e.aSec[k].type==TL_ELF_SHT_SYMTAB ) iTab = (uint32_t)k;
  assert_true(iTab!=UINT32_MAX);
  {
    TlBytes b = tl_elf_sec(&e, iTab), c;
    TlElfSym s;
    size_t nWhole = 0, nCut = 0;
    assert_true(b.n>=2*24 && b.n%24==0);
    c = b;
    c.n -= 1;
    while( tl_elf_sym_next(&e, &b, &s)==0 ) nWhole++;
    while( tl_elf_sym_next(&e, &c, &s)==0 ) nCut++;
    assert_int_equal(nWhole, e.aSec[iTab].size/24);
    assert_int_equal(nCut, nWhole-1);
  }
  tl_elf_free(&e);
  free(a);
}

/* ---- C++ names and PLT stubs (testdata/perf/cxx/) --------------------- */

#define CXX_DIR  TL_TESTDATA_DIR "/perf/cxx/"
#define CXX_OPTS "symfs=\"" CXX_DIR "symfs\" kallsyms=\"" CXX_DIR "kallsyms\" " \
                 "buildid_dir=\"" CXX_DIR "no-cache\""

/* perf's "SYMBOL+0xOFF" less "+0xOFF" (a C++ name may hold '+': operator+=) */
static void strip_symoff(char *zSym){
  char *zPlus = 0, *z;
  for(z=zSym; (z = strstr(z, "+0x"))!=0; z++) zPlus = z;
  if( zPlus && zPlus[3] && strspn(zPlus+3, "0123456789abcdef")==strlen(zPlus+3) ) *zPlus = 0;
}

/*
** perf script -F ip,sym,symoff,dso of trace zName: each sample's frames
** as one line "symbol|dso;symbol|dso;..." into *pOut (unsorted). Counts the
** frames perf named in the program (zProg) into *pnProg.
*/
static void cxx_script_samples(const char *zName, const char *zProg, TlLines *pOut, int *pnProg){
  char zPath[512], zLine[2048];
  sqlite3_str *pSample = 0;
  FILE *f;
  snprintf(zPath, sizeof(zPath), CXX_DIR "%s.script.txt", zName);
  f = fopen(zPath, "r");
  assert_non_null(f);
  for(;;){
    char *zOk = fgets(zLine, sizeof(zLine), f);
    size_t n = zOk ? strlen(zLine) : 0;
    char *zOpen, *z;
    if( zOk==0 || zLine[0]!='\t' ){                /* a sample ends */
      if( pSample ){
        char *zS = sqlite3_str_finish(pSample);
        tl_lines_add(pOut, zS);
        sqlite3_free(zS);
        pSample = 0;
      }
      if( zOk==0 ) break;
      continue;
    }
    /* "\t    ADDR SYMBOL+0xOFF (DSO)": the dso is last */
    while( n && zLine[n-1]=='\n' ) zLine[--n] = 0;
    zOpen = strrchr(zLine, '(');
    assert_true(zOpen && zOpen>zLine && n>0 && zLine[n-1]==')');
    zLine[n-1] = 0;
    zOpen[-1] = 0;
    z = zLine;
    while( isspace((unsigned char)*z) ) z++;
    z = strchr(z, ' ');                            /* past the address */
    assert_non_null(z);
    z++;
    strip_symoff(z);
    if( strcmp(zOpen+1, zProg)==0 && strcmp(z, "[unknown]") ) (*pnProg)++;
    if( pSample==0 ) pSample = sqlite3_str_new(0);
    else sqlite3_str_appendchar(pSample, 1, ';');
    sqlite3_str_appendf(pSample, "%s|%s", z, zOpen+1);
  }
  fclose(f);
}

/*
** Every sample's frames (symbol and dso; the samples compared as a
** multiset, as the program's two threads make perf's order by time) equal
** perf script's: demangled C++ names without their parameters, lambdas,
** constructors, operators, anonymous namespaces, std::thread's templates,
** and PLT stubs named NAME@plt.
*/
static void perf_cxx_and_plt_frames_equal_perf_script(void **state){
  static const struct { const char *zName, *zProg, *zMust; } aT[] = {
    { "cxx", "/tmp/tracelite-cxx/cxxprog", "(anonymous namespace)::anon_work|/tmp/tracelite-cxx/cxxprog" },
    { "plt", "/tmp/tracelite-cxx/pltprog", "memset@plt|/tmp/tracelite-cxx/pltprog" },
  };
  sqlite3 *db = tl_test_db();
  size_t k, i;
  (void)state;
  for(k=0; k<sizeof(aT)/sizeof(aT[0]); k++){
    TlLines want = {0}, got = {0};
    int nProg = 0;
    char *zRows, *zRow;
    cxx_script_samples(aT[k].zName, aT[k].zProg, &want, &nProg);
    assert_true(want.n>=500);
    assert_true(nProg>=100);
    zRows = tl_test_sql_rows(db,
        "SELECT group_concat(symbol || '|' || dso, ';') FROM "
        "(SELECT event, symbol, dso FROM callchains('" CXX_DIR "%s.data', '" CXX_OPTS "') "
        " ORDER BY event, depth) GROUP BY event", aT[k].zName);
    for(zRow=strtok(zRows, "\n"); zRow; zRow=strtok(0, "\n")) tl_lines_add(&got, zRow);
    free(zRows);
    tl_lines_sort(&want);
    tl_lines_sort(&got);
    if( got.n!=want.n ) fail_msg("%s: %zu samples, perf script has %zu", aT[k].zName, got.n, want.n);
    for(i=0; i<got.n; i++){
      if( strcmp(got.az[i], want.az[i]) ) fail_msg("%s: ours %s\nperf script %s", aT[k].zName, got.az[i], want.az[i]);
    }
    /* the test means something only if perf named what it is about */
    for(i=0; i<want.n && strstr(want.az[i], aT[k].zMust)==0; i++){}
    assert_true(i<want.n);
    tl_lines_free(&want);
    tl_lines_free(&got);
  }
  tl_test_db_close(db);
}

/*
** perf report --no-children --sort sym -g none -n: the samples per symbol
** of the sample's own address, C++ names with spaces in them and PLT stubs
** too. Addresses perf cannot name ("[.] 0x...") are "[unknown]" here.
*/
static void perf_cxx_and_plt_report_equal_perf_report(void **state){
  static const char *azName[] = { "cxx", "plt" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<2; k++){
    char zPath[512], zLine[1024];
    int64_t nUnknown = 0, nTotal = 0;
    int nNamed = 0;
    FILE *f;
    snprintf(zPath, sizeof(zPath), CXX_DIR "%s.report.txt", azName[k]);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      char zPct[32], zKind[8];
      long long n;
      int iSym = 0;
      size_t m;
      if( sscanf(zLine, " %31s %lld %7s %n", zPct, &n, zKind, &iSym)!=3 || iSym==0
       || strchr(zPct, '%')==0 ) continue;
      m = strlen(zLine);
      while( m && isspace((unsigned char)zLine[m-1]) ) zLine[--m] = 0;
      nTotal += n;
      if( strncmp(zLine+iSym, "0x", 2)==0 ){ nUnknown += n; continue; }
      nNamed++;
      assert_int_equal(tl_test_sql_int(db,
          "SELECT count(*) FROM callchains('" CXX_DIR "%s.data', '" CXX_OPTS "') "
          "WHERE depth = 0 AND symbol = %Q AND dso %s '[kernel.kallsyms]'",
          azName[k], zLine+iSym, strcmp(zKind, "[k]")==0 ? "=" : "<>"), n);
    }
    fclose(f);
    assert_true(nNamed>=5);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM callchains('" CXX_DIR "%s.data', '"
                                         CXX_OPTS "') WHERE depth = 0 AND symbol = '[unknown]'",
                                     azName[k]), nUnknown);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" CXX_DIR "%s.data') "
                                         "WHERE type = 'SAMPLE'", azName[k]), nTotal);
  }
  tl_test_db_close(db);
}

/*
** The symbols table holds the program's PLT stubs as the x86-64 psABI lays
** them out and perf names them (readelf -SsW -r): after .plt's header of
** one entry, the stub of the i-th .rela.plt relocation, NAME@plt, one
** entry (.plt's entry size) long.
*/
static void perf_plt_stubs_equal_readelf(void **state){
  sqlite3 *db = tl_test_db();
  char zLine[1024];
  unsigned long long pltAddr = 0, pltEs = 0;
  int bRela = 0, nChecked = 0;
  FILE *f = fopen(CXX_DIR "plt.readelf.txt", "r");
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zSec[64], zName[256];
    unsigned long long addr, off, size, es;
    char *zAt;
    if( sscanf(zLine, " [%*d] %63s %*s %llx %llx %llx %llx", zSec, &addr, &off, &size, &es)==5 ){
      if( strcmp(zSec, ".plt")==0 ){ pltAddr = addr; pltEs = es; }
      continue;
    }
    if( strncmp(zLine, "Relocation section", 18)==0 ){ bRela = strstr(zLine, "'.rela.plt'")!=0; continue; }
    if( !bRela || sscanf(zLine, "%*x %*x R_X86_64_JUMP_SLOT %*x %255s", zName)!=1 ) continue;
    zAt = strchr(zName, '@');                      /* the version is not part of the name */
    if( zAt ) *zAt = 0;
    assert_true(pltEs>0);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM symbols('" CXX_DIR "plt.data', '" CXX_OPTS "') "
        "WHERE module = '/tmp/tracelite-cxx/pltprog' AND name = '%q@plt' AND addr = %llu "
        "AND size = %llu AND kind = 'func'",
        zName, pltAddr + pltEs*(unsigned long long)(nChecked+1), pltEs), 1);
    nChecked++;
  }
  fclose(f);
  assert_true(nChecked>=5);
  tl_test_db_close(db);
}

/*
** A program without symbols or DWARF of its own (testdata/perf/debuglink/,
** record.sh: no build id; its .symtab and DWARF are in .debug/lnkprog.debug,
** named by its .gnu_debuglink): its frames' symbols and lines come from
** the debug file, as perf script -F ip,sym,dso,srcline prints them
** (lnk.script.txt; the frames of the program, each "IP SYMBOL SRCLINE",
** IP its offset in its page, per sample).
*/
static void perf_debuglink_frames_equal_perf_script(void **state){
  const char *zDir = TL_TESTDATA_DIR "/perf/debuglink/";
  char zPath[512], *zAll, *zLine, *zNext, *zGot;
  sqlite3_str *pS = sqlite3_str_new(0);
  TlLines want = {0};
  sqlite3 *db = tl_test_db();
  size_t i, nFrame = 0;
  int bKeep = 0;
  (void)state;
  snprintf(zPath, sizeof(zPath), "%slnk.script.txt", zDir);
  zAll = tl_test_read_file(zPath, 0);
  assert_non_null(zAll);
  for(zLine=zAll; ; zLine=zNext){
    size_t n = strcspn(zLine, "\n");
    int bEnd = zLine[0]==0;
    zNext = zLine + n + (zLine[n]=='\n');
    zLine[n] = 0;
    if( n==0 ){                                   /* a sample ends */
      char *z = sqlite3_str_finish(pS);
      if( z && z[0] ) tl_lines_add(&want, z);
      sqlite3_free(z);
      pS = sqlite3_str_new(0);
      if( bEnd ) break;
    }else if( zLine[0]=='\t' ){                   /* "IP SYMBOL (DSO)" */
      char *zSym, *zDso = strrchr(zLine, '(');
      unsigned long long ip = strtoull(zLine, &zSym, 16);
      assert_non_null(zDso);
      bKeep = strcmp(zDso, "(/opt/tracelite-perflnk/lnkprog)")==0;
      zDso[-1] = 0;
      if( bKeep ){
        sqlite3_str_appendf(pS, "%s%llx %s", sqlite3_str_length(pS) ? ";" : "", ip & 0xfff, zSym + 1);
        nFrame++;
      }
    }else if( bKeep ){                            /* "  SRCLINE" */
      sqlite3_str_appendf(pS, " %s", zLine + strspn(zLine, " "));
    }
  }
  sqlite3_free(sqlite3_str_finish(pS));
  free(zAll);
  assert_true(want.n >= 20);
  assert_true(nFrame >= 60);
  zGot = tl_test_sql_rows(db,
      "SELECT group_concat(f, ';') FROM (SELECT event, printf('%%x %%s %%s', ip & 4095, symbol,"
      " coalesce(srcline, '?')) f FROM callchains('%qlnk.data', 'symfs=\"%qsymfs\"')"
      " WHERE dso = '/opt/tracelite-perflnk/lnkprog' ORDER BY event, depth) GROUP BY event ORDER BY event",
      zDir, zDir);
  for(i=0, zLine=zGot; *zLine; zLine=zNext, i++){
    zNext = zLine + strcspn(zLine, "\n");
    if( *zNext ) *zNext++ = 0;
    assert_true(i < want.n);
    if( strcmp(zLine, want.az[i]) ) fail_msg("sample %zu:\nours %s\nperf %s", i, zLine, want.az[i]);
  }
  assert_int_equal(i, want.n);
  free(zGot);
  tl_lines_free(&want);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_sym,
  cmocka_unit_test(perf_frames_equal_perf_script),
  cmocka_unit_test(perf_top_symbols_equal_perf_report),
  cmocka_unit_test(perf_symbols_equal_readelf),
  cmocka_unit_test(perf_missing_kallsyms_is_a_warning),
  cmocka_unit_test(perf_build_id_cache_and_mismatch),
  cmocka_unit_test(model_symbols_maps_over_time_and_fork),
  cmocka_unit_test(model_symbols_elf_names_equal_perf_script),
  cmocka_unit_test(model_kallsyms_read_ahead_same_names),
  cmocka_unit_test(elf_cut_short_fails_cleanly),
  cmocka_unit_test(perf_cxx_and_plt_frames_equal_perf_script),
  cmocka_unit_test(perf_cxx_and_plt_report_equal_perf_report),
  cmocka_unit_test(perf_plt_stubs_equal_readelf),
  cmocka_unit_test(perf_debuglink_frames_equal_perf_script),
);
