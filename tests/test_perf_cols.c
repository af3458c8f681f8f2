/*
** test_perf_cols.c: the events columns perf's model answers (comm, symbol,
** dso, symoff, dso_offset, stack) against perf's own output.
**
** X.samples.txt beside each trace is `perf script -G -F
** comm,tid,time,ip,sym,symoff,dso` (each sample's own ip) made with the
** files the trace's options name (record.sh, threads-inherit.sh). X.script.txt
** is perf script's callchains; the expected stack of a sample is what
** FlameGraph's stackcollapse-perf.pl makes of them with its default options,
** computed here from the script's rules (the script is not packaged in
** Debian): each frame line "ADDR SYMBOL[+0xOFF] (DSO)" is split by its regex
** (the last " (" ends the symbol), "+0xOFF" dropped, a symbol starting with
** '(' skipped, split at "->" into inlined frames (marked "_[i]"), "[unknown]"
** made "[FILE]" (the dso's base name) when the dso is known, then tidied:
** ';' to ':', everything from the first '(' not opening "(anonymous
** namespace)" dropped (unless a Go method), '"' and '\'' dropped. The
** frames are joined outermost first.
*/
#include "tltest.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "perf/perf_scan.h"

#define PERF_DIR TL_TESTDATA_DIR "/perf/"
#define SYM_OPTS "symfs=\"" PERF_DIR "sym/symfs\" kallsyms=\"" PERF_DIR "sym/kallsyms\" " \
                 "buildid_dir=\"" PERF_DIR "sym/no-cache\""
#define CXX_OPTS "symfs=\"" PERF_DIR "cxx/symfs\" kallsyms=\"" PERF_DIR "cxx/kallsyms\" " \
                 "buildid_dir=\"" PERF_DIR "cxx/no-cache\""
#define NOSYM_OPTS "symfs=\"/nonexistent\" kallsyms=\"" PERF_DIR "no-kallsyms\" buildid_dir=\"/nonexistent\""

typedef struct ColTrace ColTrace;
struct ColTrace {
  const char *zName;              /* trace, relative to testdata/perf */
  const char *zOpts;
  int bCallchain;                 /* X.script.txt has the callchains */
};

static const ColTrace aTrace[] = {
  { "sym/sym", SYM_OPTS, 1 },
  { "cxx/cxx", CXX_OPTS, 1 },
  { "cxx/plt", CXX_OPTS, 1 },
  { "threads-inherit", NOSYM_OPTS, 0 },
};

/* The rows of a query, one line each, into *pOut. */
static void query_lines(sqlite3 *db, TlLines *pOut, const char *zSql){
  char *zRows = tl_test_sql_rows(db, "%s", zSql);
  char *z, *zNext;
  for(z=zRows; z && *z; z=zNext){
    zNext = strchr(z, '\n');
    if( zNext ) *zNext++ = 0;
    else zNext = z + strlen(z);
    tl_lines_add(pOut, z);
  }
  free(zRows);
}

/* Both sorted, then equal line for line (the first difference shown). */
static void lines_equal(const char *zWhat, TlLines *pGot, TlLines *pWant){
  size_t i;
  tl_lines_sort(pGot);
  tl_lines_sort(pWant);
  for(i=0; i<pGot->n && i<pWant->n; i++){
    if( strcmp(pGot->az[i], pWant->az[i]) ) fail_msg("%s: ours\n  %s\nthe reference's\n  %s", zWhat, pGot->az[i], pWant->az[i]);
  }
  if( pGot->n!=pWant->n ) fail_msg("%s: %zu lines, the reference has %zu", zWhat, pGot->n, pWant->n);
}

/*
** One line of perf script -G -F comm,tid,time,ip,sym,symoff,dso as
** "comm|tid|time|ip|symbol+0xoff|dso" into zOut, or 0 if it is none.
*/
static int sample_line(const char *zLine, char *zOut, size_t nOut){
  regex_t re;
  regmatch_t m[7];
  int rc;
  /* COMM (may hold spaces) TID SEC.USEC: ADDR SYMBOL (DSO) */
  rc = regcomp(&re, "^ *(.*[^ ]) +([0-9]+) +([0-9]+\\.[0-9]{6}): +([0-9a-f]+) (.+) \\((.*)\\)$", REG_EXTENDED);
  assert_int_equal(rc, 0);
  rc = regexec(&re, zLine, 7, m, 0);
  regfree(&re);
  if( rc ) return 0;
  snprintf(zOut, nOut, "%.*s|%.*s|%.*s|%.*s|%.*s|%.*s",
           (int)(m[1].rm_eo-m[1].rm_so), zLine+m[1].rm_so, (int)(m[2].rm_eo-m[2].rm_so), zLine+m[2].rm_so,
           (int)(m[3].rm_eo-m[3].rm_so), zLine+m[3].rm_so, (int)(m[4].rm_eo-m[4].rm_so), zLine+m[4].rm_so,
           (int)(m[5].rm_eo-m[5].rm_so), zLine+m[5].rm_so, (int)(m[6].rm_eo-m[6].rm_so), zLine+m[6].rm_so);
  return 1;
}

/*
** Every sample's comm, tid, time, ip, symbol+offset and dso equal perf
** script's (as multisets: perf prints them in time order).
*/
static void perf_sample_columns_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(aTrace)/sizeof(aTrace[0]); k++){
    TlLines want = {0}, got = {0};
    char zPath[512], zLine[4096], zOut[4096];
    char *zSql;
    size_t nNamed = 0, i;
    FILE *f;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.samples.txt", aTrace[k].zName);
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ){
      size_t n = strlen(zLine);
      while( n && zLine[n-1]=='\n' ) zLine[--n] = 0;
      if( n==0 ) continue;
      if( !sample_line(zLine, zOut, sizeof(zOut)) ) fail_msg("%s: unexpected line %s", zPath, zLine);
      tl_lines_add(&want, zOut);
    }
    fclose(f);
    zSql = sqlite3_mprintf(
        "SELECT comm || '|' || tid || '|' || printf('%%d.%%06d', ts / 1000000000, ts / 1000 %% 1000000)"
        " || '|' || printf('%%x', ip) || '|' || symbol"
        " || CASE WHEN symoff IS NULL THEN '' ELSE printf('+0x%%x', symoff) END || '|' || dso"
        " FROM events('" PERF_DIR "%s.data', '%q') WHERE type = 'SAMPLE'", aTrace[k].zName, aTrace[k].zOpts);
    query_lines(db, &got, zSql);
    sqlite3_free(zSql);
    /* the test means something only if perf named some and left some unnamed */
    for(i=0; i<want.n; i++) nNamed += strstr(want.az[i], "|[unknown]|")==0;
    assert_true(want.n>=100);
    if( aTrace[k].bCallchain ) assert_true(nNamed>=50 && nNamed<want.n);
    lines_equal(aTrace[k].zName, &got, &want);
    tl_lines_free(&want);
    tl_lines_free(&got);
  }
  tl_test_db_close(db);
}

/* ---- stackcollapse-perf.pl's rules, on perf script's frame lines ----- */

/* Tidy one frame name as the script's $tidy_generic does, appending it to p. */
static void tidy_frame(const char *z, size_t n, sqlite3_str *p){
  static const char zAnon[] = "(anonymous namespace)";
  regex_t re;
  char *zCopy = sqlite3_mprintf("%.*s", (int)n, z);
  size_t i, nKeep = n;
  int bGo;
  assert_int_equal(regcomp(&re, "\\.\\(.*\\)\\.", REG_EXTENDED|REG_NOSUB), 0);
  bGo = regexec(&re, zCopy, 0, 0, 0)==0;
  regfree(&re);
  for(i=0; i<n; i++) if( zCopy[i]==';' ) zCopy[i] = ':';
  if( !bGo ){
    for(i=0; i<n; i++){
      if( zCopy[i]=='(' && strncmp(zCopy+i, zAnon, strlen(zAnon)) ){ nKeep = i; break; }
    }
  }
  for(i=0; i<nKeep; i++){
    if( zCopy[i]!='"' && zCopy[i]!='\'' ) sqlite3_str_appendchar(p, 1, zCopy[i]);
  }
  sqlite3_free(zCopy);
}

/*
** The frames of one frame line, innermost first, each followed by '\n',
** appended to pFrames (nothing when the script skips the line).
*/
static void collapse_line(const char *zLine, sqlite3_str *pFrames){
  regex_t re;
  regmatch_t m[4];
  char *zFunc, *zMod, *z, *zPiece;
  size_t n;
  int bFirst = 1;
  assert_int_equal(regcomp(&re, "^[[:space:]]*([[:alnum:]_]+)[[:space:]]*(.+) \\((.*)\\)", REG_EXTENDED), 0);
  if( regexec(&re, zLine, 4, m, 0) ) fail_msg("not a frame line: %s", zLine);
  regfree(&re);
  zFunc = sqlite3_mprintf("%.*s", (int)(m[2].rm_eo-m[2].rm_so), zLine+m[2].rm_so);
  zMod = sqlite3_mprintf("%.*s", (int)(m[3].rm_eo-m[3].rm_so), zLine+m[3].rm_so);
  /* s/\+0x[\da-f]+$// */
  n = strlen(zFunc);
  for(z=zFunc+n; z>zFunc && isxdigit((unsigned char)z[-1]) && !isupper((unsigned char)z[-1]); z--){}
  if( z<zFunc+n && z-zFunc>=3 && memcmp(z-3, "+0x", 3)==0 ) z[-3] = 0;
  if( zFunc[0]!='(' ){
    /* split /->/: trailing empty pieces go */
    n = strlen(zFunc);
    while( n>=2 && memcmp(zFunc+n-2, "->", 2)==0 ) zFunc[n -= 2] = 0;
    for(zPiece=zFunc; zPiece; ){
      char *zArrow = strstr(zPiece, "->");
      size_t nPiece = zArrow ? (size_t)(zArrow-zPiece) : strlen(zPiece);
      sqlite3_str *pOne = sqlite3_str_new(0);
      char *zOne;
      if( nPiece==9 && memcmp(zPiece, "[unknown]", 9)==0 ){
        if( strcmp(zMod, "[unknown]") ){
          const char *zBase = strrchr(zMod, '/');
          char *zBr = sqlite3_mprintf("[%s]", zBase ? zBase+1 : zMod);
          tidy_frame(zBr, strlen(zBr), pOne);
          sqlite3_free(zBr);
        }else{
          sqlite3_str_appendall(pOne, "[unknown]");
        }
      }else{
        tidy_frame(zPiece, nPiece, pOne);
      }
      zOne = sqlite3_str_finish(pOne);
      sqlite3_str_appendall(pFrames, zOne ? zOne : "");
      if( !bFirst && !(zOne && strstr(zOne, "_[i]")) ) sqlite3_str_appendall(pFrames, "_[i]");
      sqlite3_str_appendchar(pFrames, 1, '\n');
      sqlite3_free(zOne);
      bFirst = 0;
      zPiece = zArrow ? zArrow + 2 : 0;
    }
  }
  sqlite3_free(zFunc);
  sqlite3_free(zMod);
}

/* Frames "a\nb\nc\n" (innermost first) as "c;b;a" into pOut. */
static void add_stack(char *zFrames, TlLines *pOut){
  sqlite3_str *p = sqlite3_str_new(0);
  char *zStack;
  size_t n = zFrames ? strlen(zFrames) : 0;
  while( n>0 ){
    size_t i = n - 1;
    while( i>0 && zFrames[i-1]!='\n' ) i--;
    if( sqlite3_str_length(p) ) sqlite3_str_appendchar(p, 1, ';');
    sqlite3_str_appendf(p, "%.*s", (int)(n - 1 - i), zFrames + i);
    n = i;
  }
  zStack = sqlite3_str_finish(p);
  tl_lines_add(pOut, zStack ? zStack : "");
  sqlite3_free(zStack);
}

/* The stack of every sample, from perf script's callchains (zPath). */
static void script_stacks(const char *zPath, TlLines *pOut){
  char zLine[4096];
  sqlite3_str *pFrames = 0;
  FILE *f = fopen(zPath, "r");
  assert_non_null(f);
  for(;;){
    char *zOk = fgets(zLine, sizeof(zLine), f);
    size_t n = zOk ? strlen(zLine) : 0;
    while( n && zLine[n-1]=='\n' ) zLine[--n] = 0;
    if( zOk==0 || zLine[0]!='\t' ){                /* a sample ends */
      if( pFrames ){
        char *z = sqlite3_str_finish(pFrames);
        add_stack(z, pOut);
        sqlite3_free(z);
        pFrames = 0;
      }
      if( zOk==0 ) break;
      continue;
    }
    if( pFrames==0 ) pFrames = sqlite3_str_new(0);
    collapse_line(zLine, pFrames);
  }
  fclose(f);
}

/*
** Every sample's stack equals what stackcollapse-perf.pl makes of perf
** script's callchain for it (without the command name it puts first).
*/
static void perf_stack_equals_stackcollapse(void **state){
  sqlite3 *db = tl_test_db();
  size_t k, i;
  (void)state;
  for(k=0; k<sizeof(aTrace)/sizeof(aTrace[0]); k++){
    TlLines want = {0}, got = {0};
    char zPath[512];
    char *zSql;
    int bLambda = 0, bAnon = 0;
    FILE *f;
    char zLine[4096];
    if( !aTrace[k].bCallchain ) continue;
    snprintf(zPath, sizeof(zPath), PERF_DIR "%s.script.txt", aTrace[k].zName);
    script_stacks(zPath, &want);
    zSql = sqlite3_mprintf("SELECT stack FROM events('" PERF_DIR "%s.data', '%q') WHERE stack IS NOT NULL",
                           aTrace[k].zName, aTrace[k].zOpts);
    query_lines(db, &got, zSql);
    sqlite3_free(zSql);
    assert_true(want.n>=100);
    /* the rules had something to do: a lambda cut at '(', and frames
    ** starting with '(' ("(anonymous namespace)::f") skipped */
    for(i=0; i<want.n; i++) bLambda |= strstr(want.az[i], "::{lambda;")!=0 || strstr(want.az[i], "::{lambda")!=0;
    f = fopen(zPath, "r");
    assert_non_null(f);
    while( fgets(zLine, sizeof(zLine), f) ) bAnon |= strstr(zLine, " (anonymous namespace)::")!=0;
    fclose(f);
    if( strcmp(aTrace[k].zName, "cxx/cxx")==0 ) assert_true(bLambda && bAnon);
    lines_equal(aTrace[k].zName, &got, &want);
    tl_lines_free(&want);
    tl_lines_free(&got);
  }
  /* no callchain: no stack; a record that is no sample has no symbol */
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "threads-inherit.data', '"
                                   NOSYM_OPTS "') WHERE stack IS NOT NULL"), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" PERF_DIR "sym/sym.data', '"
                                   SYM_OPTS "') WHERE type <> 'SAMPLE' AND symbol IS NOT NULL"), 0);
  tl_test_db_close(db);
}

/*
** The naming rules on made-up frames, each against the rules applied to the
** line perf script would print for it ("\tADDR SYMBOL (DSO)"): parameters,
** anonymous namespaces, Go methods, quotes, ';', "->" inlining, unknown
** symbols of known and unknown files, a dso holding " (" and '('. Java: the
** script's own example.
*/
static void perf_stack_naming_rules(void **state){
  static const char *aFrame[][2] = {
    { "foo(int) const", "/usr/bin/x" },
    { "(anonymous namespace)::f", "/usr/bin/x" },
    { "ns::(anonymous namespace)::g(int)", "/usr/bin/x" },
    { "net/http.(*Client).Do", "/usr/bin/goprog" },
    { "a;b\"c'd", "/usr/bin/x" },
    { "inl1->inl2->outer", "/usr/bin/x" },
    { "Foo::operator->", "/usr/bin/x" },
    { "x->[unknown]", "/lib/liba.so" },
    { "[unknown]", "/memfd:jit (deleted)" },
    { "sym", "/memfd:jit (deleted)" },
    { "[unknown]", "[unknown]" },
    { "[unknown]", "/lib/libfoo(1).so" },
    { "[unknown]", "[kernel.kallsyms]" },
    { "[unknown]", "/lib/x;y\"z.so" },
  };
  TlStr line, out;
  size_t k;
  (void)state;
  tl_str_init(&line);
  tl_str_init(&out);
  for(k=0; k<sizeof(aFrame)/sizeof(aFrame[0]); k++){
    char *zLine = sqlite3_mprintf("\t    55d0c1 %s (%s)", aFrame[k][0], aFrame[k][1]);
    sqlite3_str *pWant = sqlite3_str_new(0);
    char *zWant;
    collapse_line(zLine, pWant);
    zWant = sqlite3_str_finish(pWant);
    tl_str_reset(&out);
    tl_str_append(&out, "", 0);
    perf_cols_frame_names(aFrame[k][0], aFrame[k][1], 0, &line, &out);
    if( strcmp(out.z, zWant ? zWant : "") ) fail_msg("%s: ours %s, the rules' %s", zLine, out.z, zWant);
    sqlite3_free(zWant);
    sqlite3_free(zLine);
  }
  tl_str_reset(&out);
  tl_str_append(&out, "", 0);
  perf_cols_frame_names("Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/javascript/ContextAction;)"
                        "Ljava/lang/Object;", "/tmp/perf-19982.map", 1, &line, &out);
  assert_string_equal(out.z, "org/mozilla/javascript/ContextFactory:.call\n");
  tl_str_free(&line);
  tl_str_free(&out);
}

/*
** dso_offset is what perf report --sort sym lists for an address no symbol
** names: "[.] 0x<offset in the file>", kernel "[k] 0x<address>".
*/
static void perf_dso_offset_equals_perf_report(void **state){
  sqlite3 *db = tl_test_db();
  char zLine[1024];
  size_t nAddr = 0;
  FILE *f = fopen(PERF_DIR "threads-inherit.report-sym.txt", "r");
  (void)state;
  assert_non_null(f);
  while( fgets(zLine, sizeof(zLine), f) ){
    unsigned long long off;
    int n;
    char cLevel;
    if( sscanf(zLine, " %*[0-9.]%% %d [%c] 0x%llx", &n, &cLevel, &off)!=3 ) continue;
    assert_int_equal(tl_test_sql_int(db,
        "SELECT count(*) FROM events('" PERF_DIR "threads-inherit.data', '" NOSYM_OPTS "') "
        "WHERE type = 'SAMPLE' AND symbol = '[unknown]' AND (ip < 0) = %d "
        "AND coalesce(dso_offset, ip) = %lld", cLevel=='k', (long long)off), n);
    nAddr++;
  }
  fclose(f);
  assert_true(nAddr>=10);
  tl_test_db_close(db);
}

/*
** CTF: comm is the procname context field, as babeltrace2 prints it
** ("{ procname = "glxgears", vtid = 16073 }"), on a peer trace recorded
** with LTTng's procname context (skipped when the peer traces or
** babeltrace2 are absent); NULL in a trace without it.
*/
static void ctf_comm_equals_babeltrace2_procname(void **state){
  const char *zPeer = getenv("TL_PEER_DIR");
  char zTrace[1024], zCmd[1200], zLine[4096];
  TlLines want = {0}, got = {0};
  sqlite3 *db;
  FILE *f;
  char *zSql;
  (void)state;
  if( zPeer==0 || zPeer[0]==0 ) zPeer = TL_PEER_DIR;
  snprintf(zTrace, sizeof(zTrace), "%s/ctf/tracecompass-test-traces/cyg-profile/glxgears-cyg-profile", zPeer);
  snprintf(zCmd, sizeof(zCmd), "babeltrace2 '%s' 2>/dev/null", zTrace);
  f = access(zTrace, R_OK)==0 ? popen(zCmd, "r") : 0;
  if( f==0 ){ skip(); return; }
  while( fgets(zLine, sizeof(zLine), f) ){
    const char *z = strstr(zLine, "{ procname = \"");
    const char *zEnd = z ? strchr(z + 14, '"') : 0;
    char zOut[256];
    if( zEnd==0 ) continue;
    snprintf(zOut, sizeof(zOut), "%.*s", (int)(zEnd - (z + 14)), z + 14);
    tl_lines_add(&want, zOut);
  }
  if( pclose(f)!=0 || want.n==0 ){ tl_lines_free(&want); skip(); return; }
  db = tl_test_db();
  zSql = sqlite3_mprintf("SELECT comm FROM events('%q')", zTrace);
  query_lines(db, &got, zSql);
  sqlite3_free(zSql);
  lines_equal("glxgears-cyg-profile", &got, &want);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM events('" TL_TESTDATA_DIR "/ctf/ust-pid') "
                                   "WHERE comm IS NOT NULL"), 0);
  tl_lines_free(&want);
  tl_lines_free(&got);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(perf_cols,
  cmocka_unit_test(perf_sample_columns_equal_perf_script),
  cmocka_unit_test(perf_stack_equals_stackcollapse),
  cmocka_unit_test(perf_stack_naming_rules),
  cmocka_unit_test(perf_dso_offset_equals_perf_report),
  cmocka_unit_test(ctf_comm_equals_babeltrace2_procname),
);
