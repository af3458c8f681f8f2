/*
** test_xray_names.c: XRay function names equal llvm-xray's (LLVM's
** demangler, model_demangle.h) on the C++ program of
** testdata/xray/names.cc, recorded by testdata/xray/record-names.sh, and
** its calls' stacks (model_calls.h's paths) equal llvm-xray stack's.
*/
#include "tltest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "model_calls.h"
#include "model_demangle.h"
#include "str.h"

#define XRAY_DIR TL_TESTDATA_DIR "/xray/"

static void demangle_one(const char *zIn, const char *zWant){
  char *z = tl_demangle_llvm(zIn);
  assert_non_null(z);
  assert_string_equal(z, zWant);
  free(z);
}

/* Names as `llvm-cxxfilt` (LLVM 14) prints them; what is not a C++ name
** or does not demangle stays as it is, as llvm-xray keeps it. */
static void xray_demangle_as_llvm(void **state){
  (void)state;
  demangle_one("_Z3fibi", "fib(int)");
  demangle_one("_ZNK1A1fEv", "A::f() const");
  demangle_one("_ZL6workeril", "worker(int, long)");
  demangle_one("_ZN12_GLOBAL__N_16hiddenEl", "(anonymous namespace)::hidden(long)");
  demangle_one("_Z10count_argsIJEElDpT_", "long count_args<>()");
  demangle_one("_ZNSt3mapIiSt6vectorIlSaIlEESt4lessIiESaISt4pairIKiS2_EEEC2Ev",
      "std::map<int, std::vector<long, std::allocator<long> >, std::less<int>, "
      "std::allocator<std::pair<int const, std::vector<long, std::allocator<long> > > > >::map()");
  demangle_one("main", "main");
  demangle_one("_Z99x", "_Z99x");
  demangle_one("_Z", "_Z");
  /* nesting as deep as the symbol is long (a pointer to a pointer to ...
  ** int): demangled on a stack of its size; past 1 MiB kept as it is */
  {
    size_t aN[] = { 100000, (1u<<20) + 1 };
    size_t k;
    for(k=0; k<2; k++){
      size_t n = aN[k];
      char *zIn = malloc(n + 6), *z;
      assert_non_null(zIn);
      memcpy(zIn, "_Z1f", 4);
      memset(zIn + 4, 'P', n);
      memcpy(zIn + 4 + n, "i", 2);
      z = tl_demangle_llvm(zIn);
      assert_non_null(z);
      if( k==0 ){
        assert_int_equal(strlen(z), n + 6);            /* f(int***...*) */
        assert_memory_equal(z, "f(int**", 7);
      }else{
        assert_string_equal(z, zIn);
      }
      free(z);
      free(zIn);
    }
  }
}

/* Run SQL made by sqlite3_mprintf(zFmt, ...); fail the test on an error. */
static void xray_exec(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  char *zSql, *zErr = 0;
  va_start(ap, zFmt);
  zSql = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  assert_non_null(zSql);
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ) fail_msg("%s: %s", zSql, zErr);
  sqlite3_free(zSql);
}

/* A name field of an llvm-xray YAML line (single-quoted with '' for a
** quote, or plain), into a malloc'ed string; NULL if absent. */
static char *yaml_name(const char *zLine, const char *zKey){
  char zPat[64];
  const char *p;
  TlStr o;
  snprintf(zPat, sizeof(zPat), " %s: ", zKey);
  p = strstr(zLine, zPat);
  if( p==0 ) return 0;
  p += strlen(zPat);
  tl_str_init(&o);
  tl_str_append(&o, "", 0);
  if( *p=='\'' ){
    for(p++; *p; p++){
      if( *p=='\'' && p[1]!='\'' ) break;
      if( *p=='\'' ) p++;
      tl_str_appendc(&o, *p);
    }
  }else{
    while( *p && *p!=',' && *p!='}' ) tl_str_appendc(&o, *p++);
  }
  return o.z;
}

/* A field of an llvm-xray YAML line into z (cut to n-1 bytes; empty if
** absent). */
static void yaml_field(const char *zLine, const char *zKey, char *z, size_t n){
  char *zVal = yaml_name(zLine, zKey);
  snprintf(z, n, "%s", zVal ? zVal : "");
  free(zVal);
}

/* names.cc (testdata/xray/record-names.sh): every function's name equals
** llvm-xray extract --symbolize's, from the binary and from extract's map
** (names past 511 bytes among them), and every record's name equals
** llvm-xray convert -symbolize's. */
static void xray_cxx_names_equal_llvm_xray(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(XRAY_DIR "names.map.yaml", "r");
  static char zLine[65536];
  int nFunc = 0, nLong = 0;
  const char *azLog[] = { "names-fdr", "names-basic" };
  size_t k;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zId[16], zKind[64];
    char *zName;
    if( strncmp(zLine, "- {", 3) ) continue;
    yaml_field(zLine, "id", zId, sizeof(zId));
    yaml_field(zLine, "kind", zKind, sizeof(zKind));
    if( strcmp(zKind, "function-enter") ) continue;
    zName = yaml_name(zLine, "function-name");
    assert_non_null(zName);
    if( strlen(zName)>511 ) nLong++;
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM xray_functions('" XRAY_DIR "names.map.elf') WHERE func_id=%s AND name=%Q",
        zId, zName), 1);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM xray_functions('" XRAY_DIR "names-fdr.xray', 'binary=" XRAY_DIR "names.map.yaml') "
        "WHERE func_id=%s AND name=%Q", zId, zName), 1);
    free(zName);
    nFunc++;
  }
  fclose(f);
  assert_true(nFunc>100);
  assert_true(nLong>0);
  assert_int_equal(nFunc, tl_test_sql_int(db, "SELECT count(*) FROM xray_functions('" XRAY_DIR "names.map.elf')"));
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zCmd[512];
    int nRec = 0;
    snprintf(zCmd, sizeof(zCmd), "xz -dc '%s%s.sym.yaml.xz'", XRAY_DIR, azLog[k]);
    f = popen(zCmd, "r");
    assert_non_null(f);
    xray_exec(db, "CREATE TEMP TABLE want(tsc TEXT, tid TEXT, kind TEXT, name TEXT)");
    while( fgets(zLine, sizeof(zLine), f) ){
      char zKind[64], zTsc[32], zTid[32];
      char *zName;
      if( strncmp(zLine, "  - {", 5) ) continue;
      yaml_field(zLine, "kind", zKind, sizeof(zKind));
      yaml_field(zLine, "tsc", zTsc, sizeof(zTsc));
      yaml_field(zLine, "thread", zTid, sizeof(zTid));
      if( strncmp(zKind, "function", 8) ) continue;
      zName = yaml_name(zLine, "function");
      assert_non_null(zName);
      xray_exec(db, "INSERT INTO want VALUES(%Q, %Q, %Q, %Q)", zTsc, zTid, zKind, zName);
      free(zName);
      nRec++;
    }
    assert_int_equal(pclose(f), 0);
    assert_true(nRec>500);
    /* every record's name, and no record more or less */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM (SELECT ts_raw, tid, type, name FROM events('%s%s.xray', 'binary=%snames.map.elf') "
        "WHERE type LIKE 'function%%' EXCEPT SELECT CAST(tsc AS INTEGER), CAST(tid AS INTEGER), kind, name FROM want)",
        XRAY_DIR, azLog[k], XRAY_DIR), 0);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events('%s%s.xray', 'binary=%snames.map.elf') WHERE type LIKE 'function%%'",
        XRAY_DIR, azLog[k], XRAY_DIR), nRec);
    /* every call's name is its entry's */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM xray_calls('%s%s.xray', 'binary=%snames.map.elf') c "
        "WHERE NOT EXISTS (SELECT 1 FROM want w WHERE CAST(w.tsc AS INTEGER)=c.ts AND w.name=c.name "
        "AND w.kind LIKE 'function-enter%%')", XRAY_DIR, azLog[k], XRAY_DIR), 0);
    xray_exec(db, "DROP TABLE want");
  }
  tl_test_db_close(db);
}


/* Names for the paths test: function k is "f<k>". */
static const char *path_name(const void *pCtx, int32_t funcId, TlStr *pScratch){
  (void)pCtx;
  tl_str_reset(pScratch);
  tl_str_appendf(pScratch, "f%d", (int)funcId);
  return pScratch->z;
}

/* The model's call paths: one node per distinct path, shared by threads,
** texts outermost first joined by ';'. */
static void calls_paths_name_stacks(void **state){
  TlCallStack a, b;
  TlCallPaths p;
  uint32_t i1, i12, i123;
  (void)state;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  tl_paths_init(&p);
  assert_string_equal(tl_paths_text(&p, 0, path_name, 0), "");
  assert_int_equal(tl_calls_enter(&a, 1, 1, 10, 0), TL_OK);
  assert_int_equal(tl_calls_path(&a, &p), TL_OK);
  assert_int_equal(tl_calls_enter(&a, 2, 2, 20, 0), TL_OK);
  assert_int_equal(tl_calls_path(&a, &p), TL_OK);
  assert_int_equal(tl_calls_enter(&a, 3, 3, 30, 0), TL_OK);
  assert_int_equal(tl_calls_path(&a, &p), TL_OK);
  i1 = a.a[0].iPath; i12 = a.a[1].iPath; i123 = a.a[2].iPath;
  assert_true(i1!=0 && i12!=i1 && i123!=i12);
  assert_string_equal(tl_paths_text(&p, i123, path_name, 0), "f1;f2;f3");
  assert_string_equal(tl_paths_text(&p, i12, path_name, 0), "f1;f2");
  /* the same path on another thread is the same node */
  assert_int_equal(tl_calls_enter(&b, 7, 1, 40, 0), TL_OK);
  assert_int_equal(tl_calls_path(&b, &p), TL_OK);
  assert_int_equal(tl_calls_enter(&b, 8, 2, 50, 0), TL_OK);
  assert_int_equal(tl_calls_path(&b, &p), TL_OK);
  assert_int_equal(b.a[1].iPath, i12);
  assert_int_equal(tl_calls_enter(&b, 9, 3, 60, 0), TL_OK);
  assert_int_equal(tl_calls_path(&b, &p), TL_OK);
  assert_int_equal(b.a[2].iPath, i123);
  assert_int_equal(p.n, 4);                 /* the empty path and three */
  tl_calls_free(&a);
  tl_calls_free(&b);
  tl_paths_free(&p);
}

/* xray_calls.stack: the stacks llvm-xray stack -all-stacks prints (calls
** nested in the calls that never return among them), each call's its
** caller's and its own name; #id frames without the binary. */
static void xray_stacks_equal_llvm_xray(void **state){
  sqlite3 *db = tl_test_db();
  const char *azLog[] = { "names-fdr", "names-basic", "fdr", "fdr-O2" };
  const char *azMap[] = { "names.map.elf", "names.map.elf", "app.map.elf", "app-O2.map.elf" };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azLog)/sizeof(azLog[0]); k++){
    char zCmd[512], zLine[65536];
    FILE *f;
    int nRef = 0;
    snprintf(zCmd, sizeof(zCmd), "f=%s%s.flame-count.txt; if [ -f $f ]; then cat $f; else xz -dc $f.xz; fi",
             XRAY_DIR, azLog[k]);
    f = popen(zCmd, "r");
    assert_non_null(f);
    xray_exec(db, "CREATE TEMP TABLE want(stack TEXT)");
    while( fgets(zLine, sizeof(zLine), f) ){
      char *z = strrchr(zLine, ' ');
      if( z==0 || z==zLine || z[-1]!=';' ) continue;
      z[-1] = 0;                            /* llvm-xray's closing ';' */
      xray_exec(db, "INSERT INTO want VALUES(%Q)", zLine);
      nRef++;
    }
    assert_int_equal(pclose(f), 0);
    assert_true(nRef>5);
    xray_exec(db, "CREATE TEMP TABLE got AS SELECT DISTINCT 'thread_' || tid || ';' || stack AS stack "
                  "FROM xray_calls('%s%s.xray', 'binary=%s%s')", XRAY_DIR, azLog[k], XRAY_DIR, azMap[k]);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT stack FROM want EXCEPT SELECT stack FROM got)"), 0);
    assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM (SELECT stack FROM got EXCEPT SELECT stack FROM want)"), 0);
    xray_exec(db, "DROP TABLE want");
    xray_exec(db, "DROP TABLE got");
    /* each call's stack: its caller's, then its name */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM xray_calls('%s%s.xray', 'binary=%s%s') c "
        "LEFT JOIN xray_calls('%s%s.xray', 'binary=%s%s') p ON p.id = c.parent "
        "WHERE c.stack IS NOT (CASE WHEN c.parent IS NULL THEN c.name ELSE p.stack || ';' || c.name END)",
        XRAY_DIR, azLog[k], XRAY_DIR, azMap[k], XRAY_DIR, azLog[k], XRAY_DIR, azMap[k]), 0);
    /* without the binary: function ids */
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM xray_calls('%s%s.xray') WHERE stack NOT LIKE '%%#' || func_id",
        XRAY_DIR, azLog[k]), 0);
  }
  /* names-fdr: run_all and flush_log never return; the calls inside count */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM xray_calls('" XRAY_DIR "names-fdr.xray', 'binary=" XRAY_DIR "names.map.elf') "
      "WHERE stack = 'run_all()' AND dur IS NULL"), 1);
  assert_true(tl_test_sql_int(db,
      "SELECT count(*) FROM xray_calls('" XRAY_DIR "names-fdr.xray', 'binary=" XRAY_DIR "names.map.elf') "
      "WHERE stack LIKE 'run_all();%%' AND dur IS NOT NULL") > 10);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(xray_names,
  cmocka_unit_test(xray_demangle_as_llvm),
  cmocka_unit_test(xray_cxx_names_equal_llvm_xray),
  cmocka_unit_test(calls_paths_name_stacks),
  cmocka_unit_test(xray_stacks_equal_llvm_xray),
);
