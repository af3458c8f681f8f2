/*
** test_perf_kern.c: kernel frames named with no kallsyms= option, as perf
** finds the kernel's symbols on its own.
**
** testdata/perf/kern/ holds kern.data (record.sh: callchains of dd copying
** one byte at a time, mostly in system calls), what perf script and perf
** report printed for it with no --kallsyms (perf read /proc/kallsyms of
** the running kernel, the recorded one), and a build-id cache holding the
** lines of that kallsyms its frames need, under
** [kernel.kallsyms]/<build id>/kallsyms, where perf record keeps its copy.
** On the machine that recorded it the running kernel is used; elsewhere
** the cache's copy: either way perf's names.
*/
#include "tltest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "model_symbols.h"
#include "trace.h"

#define KERN_DIR  TL_TESTDATA_DIR "/perf/kern/"
#define KERN_DATA KERN_DIR "kern.data"
#define KERN_OPTS "buildid_dir=\"" KERN_DIR "buildid\""
#define KERN_ID   "85c7e4e2ed76f4417e8aaad7c6b040d2bb897a26"
#define KERN_KALLSYMS KERN_DIR "buildid/[kernel.kallsyms]/" KERN_ID "/kallsyms"
#define SYM_DATA  TL_TESTDATA_DIR "/perf/sym/sym.data"
#define SYM_ID    "e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1"

/* One frame line of perf script -F ip,sym,symoff,dso: "\t ADDR SYM[+0xOFF] (DSO)". */
typedef struct KernFrame KernFrame;
struct KernFrame {
  unsigned long long addr, off;
  char zSym[512], zDso[512];
};

static int kern_frame(const char *zLine, KernFrame *p){
  const char *zOpen = strrchr(zLine, '(');
  const char *zPlus;
  size_t n = strlen(zLine);
  while( n && (zLine[n-1]=='\n' || zLine[n-1]==')') ) n--;
  if( zLine[0]!='\t' || zOpen==0 || sscanf(zLine, " %llx %511s", &p->addr, p->zSym)!=2 ) return -1;
  snprintf(p->zDso, sizeof(p->zDso), "%.*s", (int)(zLine + n - zOpen - 1), zOpen + 1);
  p->off = 0;
  zPlus = strstr(p->zSym, "+0x");
  if( zPlus ){
    p->off = strtoull(zPlus + 3, 0, 16);
    p->zSym[zPlus - p->zSym] = 0;
  }
  return 0;
}

/* Is the running kernel the one of build id zId? (Then /proc/kallsyms names its frames.) */
static int host_is(const char *zId){
  FILE *f = fopen("/sys/kernel/notes", "rb");
  unsigned char a[4096];
  char zHex[64];
  size_t n, i;
  if( f==0 ) return 0;
  n = fread(a, 1, sizeof(a), f);
  fclose(f);
  for(i=0; i+16+20<=n; i+=4){
    if( memcmp(a + i, "\4\0\0\0\24\0\0\0\3\0\0\0GNU\0", 16)==0 ){
      size_t k;
      for(k=0; k<20; k++) snprintf(zHex + 2*k, 3, "%02x", a[i+16+k]);
      return strcmp(zHex, zId)==0;
    }
  }
  return 0;
}

/* Rows of ours (freed) equal the lines of pRef (finished), less its last newline. */
static void rows_equal_lines(char *zOurs, sqlite3_str *pRef){
  char *z = sqlite3_str_finish(pRef);
  size_t n = z ? strlen(z) : 0;
  if( n ) z[n-1] = 0;
  assert_string_equal(zOurs, z ? z : "");
  sqlite3_free(z);
  free(zOurs);
}

/*
** Every frame perf script printed equals the callchains row of the same
** sample and depth: kernel frames by address, symbol and file; user frames
** by file (perf named them from the recording machine's libc). The
** sample's own ip, when the kernel's, has perf's symbol and offset in
** events. No option names the kernel's symbols.
*/
static void perf_kernel_frames_as_perf_finds_them(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(KERN_DIR "kern.script.txt", "r");
  char zLine[1024];
  int iSample = -1, bFirst = 1;
  size_t nKernel = 0;
  sqlite3_str *pRef = sqlite3_str_new(0), *pTop = sqlite3_str_new(0);
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    KernFrame fr;
    int bKernel;
    if( zLine[0]!='\t' ){                        /* samples are apart by blank lines */
      bFirst = 1;
      continue;
    }
    if( bFirst ) iSample++;
    assert_int_equal(kern_frame(zLine, &fr), 0);
    bKernel = strcmp(fr.zDso, "[kernel.kallsyms]")==0;
    if( bKernel ){
      sqlite3_str_appendf(pRef, "%d|%llx|%s|%s\n", iSample, fr.addr, fr.zSym, fr.zDso);
      if( strcmp(fr.zSym, "[unknown]") ) nKernel++;
      if( bFirst ) sqlite3_str_appendf(pTop, "%d|%s|%llu\n", iSample, fr.zSym, fr.off);
    }else{
      sqlite3_str_appendf(pRef, "%d|||%s\n", iSample, fr.zDso);
    }
    bFirst = 0;
  }
  fclose(f);
  assert_true(iSample>=500);
  assert_true(nKernel>=2000);
  rows_equal_lines(tl_test_sql_rows(db,
      "SELECT s.n, CASE WHEN c.dso='[kernel.kallsyms]' THEN printf('%%x', c.ip) ELSE '' END, "
      "       CASE WHEN c.dso='[kernel.kallsyms]' THEN c.symbol ELSE '' END, c.dso "
      "FROM callchains('" KERN_DATA "', '" KERN_OPTS "') c "
      "JOIN (SELECT rowid AS id, row_number() OVER (ORDER BY rowid) - 1 AS n "
      "      FROM events('" KERN_DATA "') WHERE type = 'SAMPLE') s ON s.id = c.event "
      "ORDER BY s.n, c.depth"), pRef);
  rows_equal_lines(tl_test_sql_rows(db,
      "SELECT n, symbol, symoff FROM (SELECT row_number() OVER (ORDER BY rowid) - 1 AS n, symbol, "
      "symoff, dso FROM events('" KERN_DATA "', '" KERN_OPTS "') WHERE type = 'SAMPLE') "
      "WHERE dso = '[kernel.kallsyms]' ORDER BY n"), pTop);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM trace_warnings('" KERN_DATA "', '" KERN_OPTS "') WHERE message LIKE '%%kernel%%'"), 0);
  tl_test_db_close(db);
}

/*
** perf report --no-children --sort sym -g none -n: the kernel symbols'
** sample counts ("[k] NAME") equal the samples whose own ip they name.
*/
static void perf_kernel_report_equals_perf_report(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(KERN_DIR "kern.report.txt", "r");
  char zLine[1024];
  int nNamed = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zPct[32], zKind[8], zSym[512];
    long long n;
    if( sscanf(zLine, " %31s %lld %7s %511s", zPct, &n, zKind, zSym)!=4 || strchr(zPct, '%')==0 ) continue;
    if( strcmp(zKind, "[k]") || strncmp(zSym, "0x", 2)==0 ) continue;
    nNamed++;
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events('" KERN_DATA "', '" KERN_OPTS "') "
        "WHERE type = 'SAMPLE' AND symbol = %Q AND dso = '[kernel.kallsyms]'", zSym), n);
  }
  fclose(f);
  assert_true(nNamed>=10);
  tl_test_db_close(db);
}

/*
** The build-id cache's copy of kallsyms, for a recorded kernel that is
** not the running one, of a kernel relocated elsewhere at another boot
** (KASLR): every address moved, the recorded _text where perf record saw
** it. The model finds the copy by the build id and moves it back by the
** difference, as perf's kallsyms__delta does: every kernel frame keeps
** perf's name and offset.
*/
static void model_kallsyms_of_another_boot_is_moved_back(void **state){
  static const uint8_t aFake[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  static const char zFakeHex[] = "deadbeef0102030405060708090a0b0c0d0e0f10";
  const uint64_t shift = 0x3a00000;
  char zPath[512], zLine[1024];
  FILE *in = fopen(KERN_KALLSYMS, "r"), *out, *f;
  TlSymbols *p;
  TlTrace *pTrace = 0;
  TlErr err;
  uint64_t text = 0;
  int nChecked = 0;
  (void)state;
  assert_non_null(in);
  /* in a build-id cache, under a build id no running kernel has */
  snprintf(zPath, sizeof(zPath), "%s/moved/[kernel.kallsyms]/%s", tl_test_tmpdir(), zFakeHex);
  assert_int_equal(tl_test_mkdirs(zPath), 0);
  snprintf(zPath, sizeof(zPath), "%s/moved/[kernel.kallsyms]/%s/kallsyms", tl_test_tmpdir(), zFakeHex);
  out = fopen(zPath, "w");
  assert_non_null(out);
  while( fgets(zLine, sizeof(zLine), in) ){
    unsigned long long a;
    char zRest[900];
    if( sscanf(zLine, "%llx %899[^\n]", &a, zRest)!=2 ) continue;
    if( strstr(zRest, " _text")==zRest + 1 && zRest[1+6]==0 ) text = a;
    fprintf(out, "%016llx %s\n", a + (unsigned long long)shift, zRest);
  }
  fclose(in);
  fclose(out);
  assert_true(text!=0);
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(KERN_DATA, 0, &pTrace, &err), TL_OK);
  snprintf(zPath, sizeof(zPath), "%s/moved", tl_test_tmpdir());
  p = tl_symbols_new(0, zPath, 0);
  assert_non_null(p);
  assert_int_equal(tl_symbols_add_build_id(p, "[kernel.kallsyms]", 17, aFake, sizeof(aFake)), TL_OK);
  tl_symbols_set_kernel_ref(p, "_text", 5, text);
  tl_symbols_finish(p);
  f = fopen(KERN_DIR "kern.script.txt", "r");
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) && nChecked<2000 ){
    KernFrame fr;
    TlSymbolAt at;
    if( kern_frame(zLine, &fr) || strcmp(fr.zDso, "[kernel.kallsyms]") || strcmp(fr.zSym, "[unknown]")==0 ) continue;
    tl_symbols_at(p, pTrace, 1, 0, fr.addr, 1, &at);
    assert_string_equal(at.zSym, fr.zSym);
    assert_int_equal(at.symoff, fr.off);
    nChecked++;
  }
  fclose(f);
  assert_int_equal(nChecked, 2000);
  tl_symbols_free(p);
  tl_trace_release(pTrace);
}

/*
** Where perf finds no kernel symbols, kernel frames stay "[unknown]" and
** one warning says which option names them: a trace of another kernel
** with no copy in the build-id cache, and any trace under symfs= (perf
** reads no local kallsyms then).
*/
static void perf_kernel_unnamed_says_which_option(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  if( !host_is(SYM_ID) ){
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM callchains('" SYM_DATA "', 'buildid_dir=/nonexistent') "
        "WHERE dso = '[kernel.kallsyms]' AND symbol <> '[unknown]'"), 0);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM callchains('" SYM_DATA "', 'buildid_dir=/nonexistent') "
        "WHERE dso = '[kernel.kallsyms]'") > 10, 1);
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM trace_warnings('" SYM_DATA "', 'buildid_dir=/nonexistent') "
        "WHERE message LIKE '%%" SYM_ID "%%kallsyms=FILE%%'"), 1);
  }
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM callchains('" KERN_DATA "', 'symfs=/nonexistent') "
      "WHERE dso = '[kernel.kallsyms]' AND symbol <> '[unknown]'"), 0);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM trace_warnings('" KERN_DATA "', 'symfs=/nonexistent') "
      "WHERE message LIKE '%%symfs=%%kallsyms=FILE%%'"), 1);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_kern,
  cmocka_unit_test(perf_kernel_frames_as_perf_finds_them),
  cmocka_unit_test(perf_kernel_report_equals_perf_report),
  cmocka_unit_test(model_kallsyms_of_another_boot_is_moved_back),
  cmocka_unit_test(perf_kernel_unnamed_says_which_option),
);
