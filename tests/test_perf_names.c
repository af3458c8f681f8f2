/*
** test_perf_names.c: frames named where perf finds their names on its own.
**
** testdata/perf/kern/: kern.data (record.sh: callchains of dd copying one
** byte at a time, mostly in system calls), what perf script and perf
** report printed for it with no --kallsyms (perf read /proc/kallsyms of
** the running kernel, the recorded one), and a build-id cache holding the
** lines of that kallsyms its frames need, under
** [kernel.kallsyms]/<build id>/kallsyms, where perf record keeps its copy.
** The copy is read (perf, on the machine that recorded it, read the
** running kernel's list: the same names). testdata/perf/kmem/ is the
** same for kmem tracepoints, whose text names call sites with %pS;
** testdata/perf/vdso/ for frames in the vdso, whose image perf record
** keeps in the build-id cache.
**
** testdata/perf/jit/: jit.data (record.sh: callchains of node running
** fib.js with --perf-basic-prof), what perf script and perf report
** printed for it with node's JIT map at its place, and the lines of that
** map holding a sampled address under symfs/tmp/perf-PID.map. perf names
** node's anonymous executable memory by that map: frames in it have the
** dso /tmp/perf-PID.map and the map's names.
*/
#include "tltest.h"

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
#define JIT_DIR   TL_TESTDATA_DIR "/perf/jit/"
#define JIT_DATA  JIT_DIR "jit.data"
#define JIT_OPTS  "symfs=\"" JIT_DIR "symfs\" buildid_dir=\"/nonexistent\""
#define KMEM_DIR  TL_TESTDATA_DIR "/perf/kmem/"
#define KMEM_OPTS "buildid_dir=\"" KMEM_DIR "buildid\""
#define VDSO_DIR  TL_TESTDATA_DIR "/perf/vdso/"
#define VDSO_OPTS "buildid_dir=\"" VDSO_DIR "buildid\" symfs=\"/nonexistent\""
#define KERNEL_DSO "[kernel.kallsyms]"
#define JIT_DSO   "/tmp/perf-%.map"        /* a LIKE pattern */

/* One frame line of perf script -F ip,sym,symoff,dso: "\t ADDR SYM[+0xOFF] (DSO)". */
typedef struct Frame Frame;
struct Frame {
  unsigned long long addr, off;
  char zSym[2048], zDso[512];
};

static int frame_parse(const char *zLine, Frame *p){
  const char *zOpen = strrchr(zLine, '(');
  const char *zName, *zPlus;
  size_t n = strlen(zLine);
  while( n && (zLine[n-1]=='\n' || zLine[n-1]==')') ) n--;
  if( zLine[0]!='\t' || zOpen==0 || sscanf(zLine, " %llx", &p->addr)!=1 ) return -1;
  zName = strchr(zLine + strspn(zLine, "\t "), ' ');
  if( zName==0 || zName+1>=zOpen ) return -1;
  /* a JIT name may hold spaces: the symbol is all up to " (DSO)" */
  snprintf(p->zSym, sizeof(p->zSym), "%.*s", (int)(zOpen - 1 - (zName+1)), zName+1);
  snprintf(p->zDso, sizeof(p->zDso), "%.*s", (int)(zLine + n - zOpen - 1), zOpen + 1);
  p->off = 0;
  zPlus = strstr(p->zSym, "+0x");
  if( zPlus && strcmp(p->zSym, "[unknown]") ){
    p->off = strtoull(zPlus + 3, 0, 16);
    p->zSym[zPlus - p->zSym] = 0;
  }
  return 0;
}

/*
** Every frame perf script printed (zScript) equals the callchains row of
** the same sample (perf script's order: by time) and depth: frames whose dso is LIKE zDsoLike by
** address, symbol and file, the rest by file (perf named those from the
** recording machine's files); the sample's own ip, when in such a frame,
** has perf's symbol and offset in events. At least nNamed frames are named,
** and no warning is LIKE zWarnLike. perf prints the address of a frame in
** an ELF file (the vdso's) as the file's: addresses are compared only
** when bAddr.
*/
static void frames_equal_perf_script(const char *zScript, const char *zData, const char *zOpts,
                                     const char *zDsoLike, int bAddr, size_t nNamed, const char *zWarnLike){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(zScript, "r");
  char zLine[4096];
  int iSample = -1, bFirst = 1;
  size_t nSeen = 0;
  sqlite3_str *pRef = sqlite3_str_new(0), *pTop = sqlite3_str_new(0);
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    Frame fr;
    if( zLine[0]!='\t' ){ bFirst = 1; continue; }   /* samples are apart by blank lines */
    if( bFirst ) iSample++;
    assert_int_equal(frame_parse(zLine, &fr), 0);
    if( sqlite3_strlike(zDsoLike, fr.zDso, 0)==0 ){
      sqlite3_str_appendf(pRef, "%d|%llx|%s|%s\n", iSample, bAddr ? fr.addr : 0, fr.zSym, fr.zDso);
      if( strcmp(fr.zSym, "[unknown]") ) nSeen++;
      if( bFirst ) sqlite3_str_appendf(pTop, "%d|%s|%llu\n", iSample, fr.zSym, fr.off);
    }else{
      sqlite3_str_appendf(pRef, "%d|||%s\n", iSample, fr.zDso);
    }
    bFirst = 0;
  }
  fclose(f);
  assert_true(iSample>=50);
  assert_true(nSeen>=nNamed);
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT s.n, CASE WHEN c.dso LIKE %Q THEN printf('%%x', c.ip * %d) ELSE '' END, "
      "       CASE WHEN c.dso LIKE %Q THEN c.symbol ELSE '' END, c.dso "
      "FROM callchains(%Q, %Q) c "
      "JOIN (SELECT rowid AS id, row_number() OVER (ORDER BY ts, rowid) - 1 AS n "
      "      FROM events(%Q) WHERE type = 'SAMPLE') s ON s.id = c.event "
      "ORDER BY s.n, c.depth", zDsoLike, bAddr!=0, zDsoLike, zData, zOpts, zData), pRef);
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT n, symbol, coalesce(symoff, 0) FROM (SELECT row_number() OVER (ORDER BY ts, rowid) - 1 AS n, "
      "symbol, symoff, dso FROM events(%Q, %Q) WHERE type = 'SAMPLE') "
      "WHERE dso LIKE %Q ORDER BY n", zData, zOpts, zDsoLike), pTop);
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM trace_warnings(%Q, %Q) WHERE message LIKE %Q", zData, zOpts, zWarnLike), 0);
  tl_test_db_close(db);
}

/*
** perf report --no-children --sort sym -g none -n (zReport): the sample
** counts of the symbols of kind zKind ("[k]", "[.]") whose name starts
** with zPrefix equal the samples whose own ip they name in a file LIKE
** zDsoLike. At least nNamed such lines.
*/
static void report_equals_perf_report(const char *zReport, const char *zData, const char *zOpts,
                                      const char *zKind, const char *zPrefix, const char *zDsoLike,
                                      int nNamed){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(zReport, "r");
  char zLine[4096];
  int nSeen = 0;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char zPct[32];
    long long n;
    char *zSym = strstr(zLine, zKind);
    size_t k;
    if( zSym==0 || sscanf(zLine, " %31s %lld", zPct, &n)!=2 || strchr(zPct, '%')==0 ) continue;
    zSym += strlen(zKind) + 1;
    k = strlen(zSym);
    while( k && (zSym[k-1]=='\n' || zSym[k-1]==' ') ) zSym[--k] = 0;
    if( strncmp(zSym, zPrefix, strlen(zPrefix)) || strncmp(zSym, "0x", 2)==0 ) continue;
    nSeen++;
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events(%Q, %Q) WHERE type = 'SAMPLE' AND symbol = %Q AND dso LIKE %Q",
        zData, zOpts, zSym, zDsoLike), n);
  }
  fclose(f);
  assert_true(nSeen>=nNamed);
  tl_test_db_close(db);
}

/* ---- Kernel symbols ---------------------------------------------------- */

/* The running kernel's build id (/sys/kernel/notes) into a[20]: 0, or -1. */
static int host_id(uint8_t a[20]){
  FILE *f = fopen("/sys/kernel/notes", "rb");
  unsigned char b[4096];
  size_t n, i;
  if( f==0 ) return -1;
  n = fread(b, 1, sizeof(b), f);
  fclose(f);
  for(i=0; i+16+20<=n; i+=4){
    if( memcmp(b + i, "\4\0\0\0\24\0\0\0\3\0\0\0GNU\0", 16)==0 ){
      memcpy(a, b + i + 16, 20);
      return 0;
    }
  }
  return -1;
}

/* Is the running kernel the one of build id zId? (Then /proc/kallsyms names its frames.) */
static int host_is(const char *zId){
  uint8_t a[20];
  char zHex[41];
  int k;
  if( host_id(a) ) return 0;
  for(k=0; k<20; k++) snprintf(zHex + 2*k, 3, "%02x", a[k]);
  return strcmp(zHex, zId)==0;
}

/*
** Kernel frames of kern.data as perf script printed them, with no option
** naming the kernel's symbols but the cache the copy is in.
*/
static void perf_kernel_frames_as_perf_finds_them(void **state){
  (void)state;
  frames_equal_perf_script(KERN_DIR "kern.script.txt", KERN_DATA, KERN_OPTS, KERNEL_DSO, 1, 2000, "%kernel%");
}

/* perf report's kernel symbols ("[k] NAME") and their sample counts. */
static void perf_kernel_report_equals_perf_report(void **state){
  (void)state;
  report_equals_perf_report(KERN_DIR "kern.report.txt", KERN_DATA, KERN_OPTS, "[k]", "", KERNEL_DSO, 10);
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
    Frame fr;
    TlSymbolAt at;
    if( frame_parse(zLine, &fr) || strcmp(fr.zDso, "[kernel.kallsyms]") || strcmp(fr.zSym, "[unknown]")==0 ) continue;
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

/* The kernel symbol at address a into zOut, for a trace of the running
** kernel (build id aId), with a build-id cache dir holding the given
** kallsyms copy. */
static void kernel_symbol_with_copy(const char *zDir, const uint8_t aId[20], const char *zCopy,
                                    uint64_t a, char *zOut, size_t nOut){
  char zPath[512], zHex[41];
  TlSymbols *p;
  TlSymbolAt at;
  TlTrace *pTrace = 0;
  TlErr err;
  FILE *out;
  int i;
  for(i=0; i<20; i++) snprintf(zHex + 2*i, 3, "%02x", aId[i]);
  snprintf(zPath, sizeof(zPath), "%s/[kernel.kallsyms]/%s", zDir, zHex);
  assert_int_equal(tl_test_mkdirs(zPath), 0);
  snprintf(zPath, sizeof(zPath), "%s/[kernel.kallsyms]/%s/kallsyms", zDir, zHex);
  out = fopen(zPath, "w");
  assert_non_null(out);
  fputs(zCopy, out);
  fclose(out);
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(KERN_DATA, 0, &pTrace, &err), TL_OK);
  p = tl_symbols_new(0, zDir, 0);
  assert_non_null(p);
  assert_int_equal(tl_symbols_add_build_id(p, "[kernel.kallsyms]", 17, aId, 20), TL_OK);
  tl_symbols_finish(p);
  tl_symbols_at(p, pTrace, 1, 0, a, 1, &at);
  snprintf(zOut, nOut, "%s", at.zSym);
  tl_symbols_free(p);
  tl_trace_release(pTrace);
}

/*
** A trace of the running kernel, its kallsyms copy in the build-id cache:
** the copy is read (the kernel's symbols when the trace was recorded, a
** file, where /proc/kallsyms has the kernel format each line), and when
** the copy names nothing (perf record made it without the right to see
** addresses: all zero) the running kernel's /proc/kallsyms is.
*/
static void model_kallsyms_copy_before_proc_kallsyms(void **state){
  uint8_t aId[20];
  FILE *f = fopen("/proc/kallsyms", "r");
  char zLine[1024], zName[512] = "", zGot[512], zDir[512], zCopy[1100];
  unsigned long long aPrev = 0, a = 0, aNext = 0;
  int n = 0;
  (void)state;
  if( host_id(aId) || f==0 ){
    if( f ) fclose(f);
    printf("[     SKIP ] %s: no build id of the running kernel, or no /proc/kallsyms\n", __func__);
    fflush(stdout);
    skip();
  }
  /* a text symbol alone at its address, well inside the list */
  while( fgets(zLine, sizeof(zLine), f) ){
    unsigned long long v;
    char t, zSym[512];
    if( sscanf(zLine, "%llx %c %511s", &v, &t, zSym)!=3 ) continue;
    if( a && !aNext ){
      if( v>a ){ aNext = v; break; }
      a = 0;                              /* another symbol at its address */
    }
    if( !a && ++n>1000 && (t=='t' || t=='T') && v>aPrev && v!=0 && strchr(zLine, '[')==0 ){
      a = v;
      snprintf(zName, sizeof(zName), "%s", zSym);
    }
    aPrev = v;
  }
  fclose(f);
  if( a==0 || aNext==0 ){
    printf("[     SKIP ] %s: /proc/kallsyms shows no addresses (not root)\n", __func__);
    fflush(stdout);
    skip();
  }
  snprintf(zDir, sizeof(zDir), "%s/hostcopy", tl_test_tmpdir());
  snprintf(zCopy, sizeof(zCopy), "%016llx T tl_named_by_the_copy\n%016llx T tl_after_it\n", a, aNext);
  kernel_symbol_with_copy(zDir, aId, zCopy, a, zGot, sizeof(zGot));
  assert_string_equal(zGot, "tl_named_by_the_copy");
  snprintf(zDir, sizeof(zDir), "%s/hostcopy0", tl_test_tmpdir());
  snprintf(zCopy, sizeof(zCopy), "%016llx T tl_named_by_the_copy\n%016llx T tl_after_it\n", 0ull, 0ull);
  kernel_symbol_with_copy(zDir, aId, zCopy, a, zGot, sizeof(zGot));
  assert_string_equal(zGot, zName);
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

/*
** Tracepoint text whose print format shows a kernel address with %pS
** (kmem:kmalloc's and kmem:kfree's call_site) names it as perf script
** does, from the kernel's symbols found as for frames: every sample's text
** equals its line of perf script -F trace.
*/
static void perf_trace_text_names_kernel_addresses(void **state){
  sqlite3 *db = tl_test_db();
  FILE *f = fopen(KMEM_DIR "kmem.trace.txt", "r");
  char zLine[1024];
  sqlite3_str *pRef = sqlite3_str_new(0);
  int nNamed = 0;
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    char *z = zLine + strspn(zLine, " ");
    size_t n = strlen(z);
    while( n && (z[n-1]=='\n' || z[n-1]==' ') ) z[--n] = 0;
    if( strncmp(z, "call_site=0x", 12) && strncmp(z, "call_site=", 10)==0 ) nNamed++;
    sqlite3_str_appendf(pRef, "%s\n", z);
  }
  fclose(f);
  assert_true(nNamed>=50);
  tl_test_rows_equal_text(tl_test_sql_rows(db,
      "SELECT text FROM events('" KMEM_DIR "kmem.data', '" KMEM_OPTS "') WHERE type = 'SAMPLE' ORDER BY ts, rowid"),
      pRef);
  tl_test_db_close(db);
}

/*
** Frames in the vdso, named from the image perf record keeps in the
** build-id cache ([vdso]/ID/vdso) as perf names them.
*/
static void perf_vdso_frames_equal_perf_script(void **state){
  (void)state;
  frames_equal_perf_script(VDSO_DIR "vdso.script.txt", VDSO_DIR "vdso.data", VDSO_OPTS, "[vdso]", 0, 10,
                           "%vdso%");
}

/* ---- JIT maps ---------------------------------------------------------- */

/* Frames in node's JIT code as perf script printed them. */
static void perf_jit_frames_equal_perf_script(void **state){
  (void)state;
  frames_equal_perf_script(JIT_DIR "jit.script.txt", JIT_DATA, JIT_OPTS, JIT_DSO, 1, 50, "%JIT%");
}

/* perf report's JIT symbols ("[.] JS:...") and their sample counts. */
static void perf_jit_report_equals_perf_report(void **state){
  (void)state;
  report_equals_perf_report(JIT_DIR "jit.report.txt", JIT_DATA, JIT_OPTS, "[.]", "JS:", JIT_DSO, 1);
}

/* The map's file name, "/tmp/perf-PID.map", as the trace names it. */
static char *jit_map_name(sqlite3 *db){
  return tl_test_sql_text(db, "SELECT module FROM symbols('" JIT_DATA "', '" JIT_OPTS "') "
                              "WHERE module LIKE '/tmp/perf-%%' LIMIT 1");
}

/*
** A map with garbage lines among good ones: each bad line is skipped, one
** warning counts them and names the first, and the good lines still name
** their frames. A map cut short in its last line loses just that line.
*/
static void perf_jit_malformed_lines_are_counted(void **state){
  sqlite3 *db = tl_test_db();
  char zPath[1024], zOpts[1200];
  char *zMap = jit_map_name(db), *zGood;
  size_t nGood;
  FILE *f;
  (void)state;
  assert_non_null(zMap);
  snprintf(zPath, sizeof(zPath), "%s/jit-bad/tmp", tl_test_tmpdir());
  assert_int_equal(tl_test_mkdirs(zPath), 0);
  snprintf(zPath, sizeof(zPath), "%s/jit-bad%s", tl_test_tmpdir(), zMap);
  snprintf(zOpts, sizeof(zOpts), JIT_DIR "symfs%s", zMap);
  zGood = tl_test_read_file(zOpts, &nGood);
  assert_non_null(zGood);
  f = fopen(zPath, "wb");
  assert_non_null(f);
  fputs("not a map line\n", f);
  fwrite(zGood, 1, nGood, f);
  fputs("7f0000000000 zz bad size\n0x10 0x20 ab\n\n12345678\n", f);
  fwrite(zGood, 1, 14, f);                          /* a line cut short in its size */
  fclose(f);
  free(zGood);
  snprintf(zOpts, sizeof(zOpts), "symfs=\"%s/jit-bad\" buildid_dir=\"/nonexistent\"", tl_test_tmpdir());
  /* the same frames named as from the good map (the symbols are read then) */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM callchains('" JIT_DATA "', '%s') WHERE dso = %Q AND symbol <> '[unknown]'",
      zOpts, zMap), tl_test_sql_int(db,
      "SELECT count(*) FROM callchains('" JIT_DATA "', '" JIT_OPTS "') WHERE dso = %Q AND symbol <> '[unknown]'",
      zMap));
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM trace_warnings('" JIT_DATA "', '%s') "
      "WHERE message LIKE '5 malformed JIT map lines skipped (the first: line 1;%%'", zOpts), 1);
  /* no map at all: the frames keep the map's name as their dso, unnamed */
  assert_int_equal(tl_test_sql_int(db,
      "SELECT count(*) FROM callchains('" JIT_DATA "', 'symfs=/nonexistent') "
      "WHERE dso = %Q AND symbol = '[unknown]'", zMap) > 50, 1);
  free(zMap);
  tl_test_db_close(db);
}

/* One line at a time, as perf's dso__load_perf_map reads it. */
static void model_jit_lines(void **state){
  static const struct { const char *z; int rc; uint64_t start, size; size_t iName; } aCase[] = {
    { "7f08e8005b80 100 JS:^fib /a.js:2:13", 0, 0x7f08e8005b80ull, 0x100, 17 },
    { "0x10 0x20 name", 0, 0x10, 0x20, 10 },
    { "10\t20\tabc", 0, 0x10, 0x20, 6 },
    { "10 20 ab", -1, 0, 0, 0 },                   /* perf skips names under 3 bytes */
    { "10 20 ", -1, 0, 0, 0 },
    { "10 20", -1, 0, 0, 0 },
    { "zz 20 name", -1, 0, 0, 0 },
    { "10 zz name", -1, 0, 0, 0 },
    { "10,20 name", -1, 0, 0, 0 },
    { "11112222333344445 1 name", -1, 0, 0, 0 },   /* more than 64 bits */
    { "", -1, 0, 0, 0 },
  };
  size_t i;
  (void)state;
  for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++){
    uint64_t start = 0, size = 0;
    size_t iName = 0;
    int rc = tl_symbols_jit_line(aCase[i].z, strlen(aCase[i].z), &start, &size, &iName);
    if( rc!=aCase[i].rc ) fail_msg("\"%s\": %d", aCase[i].z, rc);
    if( rc==0 && (start!=aCase[i].start || size!=aCase[i].size || iName!=aCase[i].iName) ){
      fail_msg("\"%s\": %llx %llx %zu", aCase[i].z, (unsigned long long)start, (unsigned long long)size, iName);
    }
  }
}

TL_DEFINE_GROUP(perf_names,
  cmocka_unit_test(perf_kernel_frames_as_perf_finds_them),
  cmocka_unit_test(perf_kernel_report_equals_perf_report),
  cmocka_unit_test(model_kallsyms_of_another_boot_is_moved_back),
  cmocka_unit_test(model_kallsyms_copy_before_proc_kallsyms),
  cmocka_unit_test(perf_kernel_unnamed_says_which_option),
  cmocka_unit_test(perf_trace_text_names_kernel_addresses),
  cmocka_unit_test(perf_vdso_frames_equal_perf_script),
  cmocka_unit_test(perf_jit_frames_equal_perf_script),
  cmocka_unit_test(perf_jit_report_equals_perf_report),
  cmocka_unit_test(perf_jit_malformed_lines_are_counted),
  cmocka_unit_test(model_jit_lines),
);
