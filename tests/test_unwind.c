/*
** test_unwind.c: user stacks of --call-graph dwarf samples, unwound from
** their registers and stack copies (src/model/unwind.c through the perf
** reader), against perf script's frames on the recordings of
** testdata/perf/dwarf/ (record.sh: C and C++ at -O0 and -O2, threads, a
** shared library; perf may use only the files stored there).
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "model_unwind.h"
#include "tables.h"
#include "trace.h"

#define DW_DIR TL_TESTDATA_DIR "/perf/dwarf/"
#define DW_OPTS "symfs=" DW_DIR "symfs,kallsyms=" DW_DIR "kallsyms"

/* A frame line "\t  IP SYMBOL (DSO)\n" of n bytes cut into its parts, in place. */
static void split_frame(char *zLine, size_t n, unsigned long long *pIp, char **pzSym, char **pzDso){
  char *zEnd = zLine + n, *zParen;
  *pIp = strtoull(zLine, pzSym, 16);              /* (strtoull skips the blanks) */
  assert_true(**pzSym==' ');
  (*pzSym)++;
  while( zEnd>zLine && (zEnd[-1]=='\n' || zEnd[-1]==')') ) *--zEnd = 0;
  for(zParen=zEnd; zParen>*pzSym && !(zParen[-1]==' ' && zParen[0]=='('); zParen--){}
  assert_true(zParen>*pzSym);
  zParen[-1] = 0;
  *pzDso = zParen + 1;
}

/*
** The samples of perf script -F ip,sym,dso (file zName), in its order
** (each an empty line, its frames, an empty line): each a line of frames "IP SYMBOL (DSO)" joined by ';', where IP is a
** kernel address whole and a user address by its offset in its page (perf
** prints a user frame's address within its file; pages map whole). perf's
** inlined frames ("(inlined)") are left out; a frame perf shows only as
** its inlined functions (the outermost function's DWARF name is not the
** symbol's) is "IP *": without the inlined column a frame is one row,
** named by its symbol. Counts the user frames in *pnUser.
*/
static void script_samples(const char *zName, TlLines *pOut, int *pnUser){
  char zPath[512], *zAll, *zLine, *zNext;
  char azFrame[256][512];
  unsigned long long aIp[256];
  int abInl[256], nFrame = 0, i, bInSample = 0;
  snprintf(zPath, sizeof(zPath), DW_DIR "%s.script.txt", zName);
  zAll = tl_test_read_file(zPath, 0);
  assert_non_null(zAll);
  for(zLine=zAll; ; zLine=zNext){
    char *zOk = *zLine ? zLine : 0;               /* NULL at the end */
    size_t n = strcspn(zLine, "\n");
    char *zOpen, *zSym;
    unsigned long long ip;
    zNext = zLine + n + (zLine[n]=='\n');
    zLine[n] = 0;
    if( zOk && zLine[0]!='\t' && !bInSample ){ /* a sample's (empty) first line */
      bInSample = 1;
      continue;
    }
    if( zOk==0 || zLine[0]!='\t' ){              /* a sample ends */
      if( bInSample ){
        sqlite3_str *pS = sqlite3_str_new(0);
        char *zS;
        int iRun = 0;                 /* first frame of the current run at one ip */
        for(i=0; i<nFrame; i++){
          const char *zSep = sqlite3_str_length(pS) ? ";" : "";
          if( i>0 && aIp[i]!=aIp[i-1] ) iRun = i;
          if( !abInl[i] ){
            sqlite3_str_appendf(pS, "%s%s", zSep, azFrame[i]);
          }else if( (i+1==nFrame || aIp[i+1]!=aIp[i]) && abInl[iRun] ){
            /* inlined functions with no frame of their own at their ip
            ** (perf 6.1 shows some caller frames as the frame, then its
            ** inlined functions: those are the frame's own) */
            sqlite3_str_appendf(pS, "%s%llx *", zSep, aIp[i]);
          }
        }
        zS = sqlite3_str_finish(pS);
        tl_lines_add(pOut, zS ? zS : "");
        sqlite3_free(zS);
      }
      bInSample = 0;
      nFrame = 0;
      if( zOk==0 ) break;
      continue;
    }
    split_frame(zLine, n, &ip, &zSym, &zOpen);
    if( ip < 0xffffffff80000000ull ){
      ip &= 0xfff;
      (*pnUser)++;
    }
    assert_true(nFrame<256);
    aIp[nFrame] = ip;
    abInl[nFrame] = strcmp(zOpen, "inlined")==0;
    snprintf(azFrame[nFrame], sizeof(azFrame[0]), "%llx %s (%s)", ip, zSym, zOpen);
    nFrame++;
  }
  free(zAll);
}

/* Our frames of every sample of trace zName (options zOpts), in time order, as script_samples. */
static void our_samples_as(sqlite3 *db, const char *zName, const char *zOpts, const char *zFrame,
                           TlLines *pOut);
static void our_samples(sqlite3 *db, const char *zName, const char *zOpts, TlLines *pOut){
  our_samples_as(db, zName, zOpts, "printf('%x %s (%s)', CASE WHEN context='kernel' THEN ip "
                 "ELSE ip & 4095 END, symbol, dso)", pOut);
}

/* The same, each frame made by the SQL expression zFrame of callchains' columns. */
static void our_samples_as(sqlite3 *db, const char *zName, const char *zOpts, const char *zFrame,
                           TlLines *pOut){
  char *zEvents, *zFrames, *zRow, *zNext;
  TlLines frames = {0};
  size_t i;
  zEvents = tl_test_sql_rows(db, "SELECT rowid FROM events('" DW_DIR "%s.data', '%s') "
                             "WHERE type='SAMPLE' ORDER BY ts, rowid", zName, zOpts);
  zFrames = tl_test_sql_rows(db, "SELECT event, %s FROM callchains('" DW_DIR "%s.data', '%s') "
                             "ORDER BY event, depth", zFrame, zName, zOpts);
  for(zRow=zFrames; zRow && *zRow; zRow=zNext){
    zNext = strchr(zRow, '\n');
    if( zNext ) *zNext++ = 0; else zNext = zRow + strlen(zRow);
    tl_lines_add(&frames, zRow);
  }
  for(zRow=zEvents; zRow && *zRow; zRow=zNext){
    sqlite3_str *pS = sqlite3_str_new(0);
    char *zS;
    size_t nEv;
    zNext = strchr(zRow, '\n');
    if( zNext ) *zNext++ = 0; else zNext = zRow + strlen(zRow);
    nEv = strlen(zRow);
    for(i=0; i<frames.n; i++){
      if( strncmp(frames.az[i], zRow, nEv)==0 && frames.az[i][nEv]=='|' ){
        sqlite3_str_appendf(pS, "%s%s", sqlite3_str_length(pS) ? ";" : "", frames.az[i] + nEv + 1);
      }
    }
    zS = sqlite3_str_finish(pS);
    tl_lines_add(pOut, zS ? zS : "");
    sqlite3_free(zS);
  }
  tl_lines_free(&frames);
  free(zEvents);
  free(zFrames);
}

/* Frame lists a and b equal, a frame "IP *" of b matching any frame at IP. */
static int frames_match(const char *a, const char *b){
  while( *a || *b ){
    size_t na = strcspn(a, ";"), nb = strcspn(b, ";");
    if( nb>=2 && b[nb-1]=='*' && b[nb-2]==' ' ){
      if( na<nb-1 || memcmp(a, b, nb-1) ) return 0;
    }else if( na!=nb || memcmp(a, b, na) ){
      return 0;
    }
    a += na + (a[na]==';');
    b += nb + (b[nb]==';');
  }
  return 1;
}

/*
** Every frame of every sample equals perf script's (kernel frames, then
** the user frames unwound from the stack copy, stopping at the first frame
** of a file not in symfs), but for the inlined functions perf adds.
*/
static void unwind_frames_equal_perf_script(void **state){
  static const char *const azName[] = { "c-O0", "c-O2", "cxx-O0", "cxx-O2" };
  sqlite3 *db = tl_test_db();
  size_t k, i;
  (void)state;
  for(k=0; k<sizeof(azName)/sizeof(azName[0]); k++){
    TlLines want = {0}, got = {0};
    int nUser = 0;
    script_samples(azName[k], &want, &nUser);
    our_samples(db, azName[k], DW_OPTS, &got);
    assert_true(want.n>=8);
    assert_true(nUser>=2*(int)want.n);          /* the test is about user frames */
    if( got.n!=want.n ) fail_msg("%s: %zu samples, perf script has %zu", azName[k], got.n, want.n);
    for(i=0; i<got.n; i++){
      if( !frames_match(got.az[i], want.az[i]) ){
        fail_msg("%s sample %zu:\nours        %s\nperf script %s", azName[k], i, got.az[i], want.az[i]);
      }
    }
    tl_lines_free(&want);
    tl_lines_free(&got);
  }
  tl_test_db_close(db);
}

/* The same frames under accel=off, and through the stack column (outermost first). */
static void unwind_plain_and_stack_column(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  assert_int_equal(
    tl_test_sql_int(db, "SELECT count(*) FROM callchains('" DW_DIR "c-O2.data', '" DW_OPTS "') WHERE context='user'"),
    tl_test_sql_int(db, "SELECT count(*) FROM callchains('" DW_DIR "c-O2.data', '" DW_OPTS ",accel=off') WHERE context='user'"));
  /* perf script: dw_lib_work, middle (inlined), callback, dw_lib_call, worker, main, libc:
  ** stackcollapse-perf.pl folds it outermost first, the inlined function a frame */
  assert_true(tl_test_sql_int(db,
    "SELECT count(*) FROM events('" DW_DIR "c-O2.data', '" DW_OPTS "') "
    "WHERE stack = '[libc.so.6];main;worker;dw_lib_call;callback;middle;dw_lib_work'")>=1);
  /* leaf (inlined), middle (inlined), callback, dw_lib_call, worker, libc */
  assert_true(tl_test_sql_int(db,
    "SELECT count(*) FROM events('" DW_DIR "c-O2.data', '" DW_OPTS "') "
    "WHERE stack = '[libc.so.6];worker;dw_lib_call;callback;middle;leaf'")>=1);
  /* the exec's sample has no stack copy (perf shows its kernel frames only): said once */
  assert_int_equal(1, tl_test_sql_int(db,
    "SELECT count(*) FROM trace_warnings('" DW_DIR "c-O2.data', '" DW_OPTS "') "
    "WHERE message = 'samples without a copy of the user stack: their user frames are not known'"));
  tl_test_db_close(db);
}

/*
** A file that is not in symfs: the frames stop at its first frame (perf
** shows it, then no more), and trace_warnings says so once.
*/
static void unwind_missing_file_stops_and_warns(void **state){
  char zSymfs[512], zDir[600], zSrc[600], zDst[700], zOpts[1400];
  void *a;
  size_t n;
  sqlite3 *db = tl_test_db();
  (void)state;
  snprintf(zSymfs, sizeof(zSymfs), "%s/dwsymfs", tl_test_tmpdir());
  snprintf(zDir, sizeof(zDir), "%s/tmp/tracelite-dwarf", zSymfs);
  assert_int_equal(0, tl_test_mkdirs(zDir));
  snprintf(zSrc, sizeof(zSrc), DW_DIR "symfs/tmp/tracelite-dwarf/c-O2");
  snprintf(zDst, sizeof(zDst), "%s/c-O2", zDir);
  a = tl_test_read_file(zSrc, &n);
  assert_non_null(a);
  assert_int_equal(0, tl_test_write_file(zDst, a, n));
  free(a);
  snprintf(zOpts, sizeof(zOpts), "symfs=%s,kallsyms=" DW_DIR "kallsyms", zSymfs);
  /* no frame after one in libdwlib.so */
  assert_int_equal(0, tl_test_sql_int(db,
    "SELECT count(*) FROM callchains('" DW_DIR "c-O2.data', '%s') a "
    "JOIN callchains('" DW_DIR "c-O2.data', '%s') b ON a.event=b.event AND b.depth>a.depth "
    "WHERE a.dso LIKE '%%libdwlib.so'", zOpts, zOpts));
  assert_true(tl_test_sql_int(db,
    "SELECT count(*) FROM callchains('" DW_DIR "c-O2.data', '%s') WHERE dso LIKE '%%libdwlib.so'", zOpts)>=1);
  assert_int_equal(1, tl_test_sql_int(db,
    "SELECT count(*) FROM trace_warnings('" DW_DIR "c-O2.data', '%s') "
    "WHERE file LIKE '%%libdwlib.so' AND message LIKE 'user stacks stop at its frames: the file is not found'",
    zOpts));
  tl_test_db_close(db);
}

/* ---- inlined frames and source lines --------------------------------- */

/*
** perf script's samples in file DW_DIR zName.zKind.txt, each its lines
** after the (empty) first one, joined by ';': for -F ip,sym,dso each
** frame "IP SYMBOL (DSO)", for -F ip,srcline each "IP SRCLINE" (an
** inlined function's " (inlined)" dropped); IP as in script_samples.
*/
static void ref_samples(const char *zName, const char *zKind, TlLines *pOut){
  char zPath[512], *zAll, *zLine, *zNext;
  sqlite3_str *pS = 0;
  unsigned long long ip = 0;
  int bPend = 0;                                  /* an address whose line has not come */
  snprintf(zPath, sizeof(zPath), DW_DIR "%s.%s.txt", zName, zKind);
  zAll = tl_test_read_file(zPath, 0);
  assert_non_null(zAll);
  for(zLine=zAll; *zLine; zLine=zNext){
    size_t n = strcspn(zLine, "\n");
    zNext = zLine + n + (zLine[n]=='\n');
    zLine[n] = 0;
    if( bPend && (n==0 || zLine[0]=='\t') ){      /* perf printed no line for it */
      sqlite3_str_appendf(pS, "%s%llx ?", sqlite3_str_length(pS) ? ";" : "", ip);
    }
    bPend = 0;
    if( n==0 ){                                   /* a sample starts or ends */
      if( pS ){
        char *zS = sqlite3_str_finish(pS);
        tl_lines_add(pOut, zS ? zS : "");
        sqlite3_free(zS);
        pS = 0;
      }else{
        pS = sqlite3_str_new(0);
      }
      continue;
    }
    assert_non_null(pS);
    if( zLine[0]=='\t' ){
      char *zSym, *zDso;
      ip = strtoull(zLine, &zSym, 16);
      if( ip < 0xffffffff80000000ull ) ip &= 0xfff;
      if( *zSym==0 ){ bPend = 1; continue; }      /* srcline: the line follows */
      split_frame(zLine, n, &ip, &zSym, &zDso);
      if( ip < 0xffffffff80000000ull ) ip &= 0xfff;
      sqlite3_str_appendf(pS, "%s%llx %s (%s)", sqlite3_str_length(pS) ? ";" : "", ip, zSym, zDso);
    }else{
      char *z = zLine + strspn(zLine, " "), *zIn = strstr(z, " (inlined)");
      if( zIn ) *zIn = 0;
      sqlite3_str_appendf(pS, "%s%llx %s", sqlite3_str_length(pS) ? ";" : "", ip, z);
    }
  }
  free(zAll);
}

/* A frame list "a;b;c" cut into its n frames (in place, at most 256). */
static int split_list(char *z, char **az){
  int n = 0;
  while( *z && n<256 ){
    az[n++] = z;
    z += strcspn(z, ";");
    if( *z ) *z++ = 0;
  }
  return n;
}

/* The address part of a frame "IP REST". */
static size_t ip_len(const char *z){ return strcspn(z, " "); }

/* Does our sample a (frames with their inlined functions) equal perf script's b? */
static int inline_frames_match(const char *zA, const char *zB){
  return strcmp(zA, zB)==0;
}

/* Our source lines ("IP ?" where we know none) against perf's, frame by frame. */
static int srclines_match(const char *zA, const char *zB){
  char *a = strdup(zA), *b = strdup(zB), *azA[256], *azB[256];
  int nA = split_list(a, azA), nB = split_list(b, azB), i, rc = nA==nB;
  for(i=0; rc && i<nA; i++){
    size_t n = strlen(azA[i]);
    if( n>=2 && strcmp(azA[i] + n - 2, " ?")==0 ) continue;   /* no line known here */
    if( ip_len(azA[i])==ip_len(azB[i]) && memcmp(azA[i], azB[i], ip_len(azA[i]))==0
     && strcmp(azB[i] + ip_len(azB[i]), " ?")==0 ){
      rc = 0;                                     /* one perf does not know */
      break;
    }
    rc = strcmp(azA[i], azB[i])==0;
  }
  free(a);
  free(b);
  return rc;
}

/*
** With srcline or inlined asked for, every frame of every sample is the
** rows perf script shows for it by default (and with --inline): its
** inlined functions (inlined = 1) and the frame, in perf's order and with
** perf's names, even where the frame comes first or is not there (named by
** its DWARF name, inlined); and srcline is perf script -F ip,srcline's,
** wherever the file's DWARF says it (the programs' frames; libc's lines
** come from its debug file, which symfs does not hold).
*/
static void unwind_inlined_and_srcline_equal_perf_script(void **state){
  static const char *const azName[] = { "c-O0", "c-O2", "cxx-O0", "cxx-O2" };
  sqlite3 *db = tl_test_db();
  size_t k, i;
  int nInl = 0, nSrc = 0;
  (void)state;
  for(k=0; k<sizeof(azName)/sizeof(azName[0]); k++){
    TlLines wantF = {0}, wantS = {0}, gotF = {0}, gotS = {0};
    ref_samples(azName[k], "script", &wantF);
    ref_samples(azName[k], "srcline", &wantS);
    our_samples_as(db, azName[k], DW_OPTS,
        "printf('%x %s (%s)', CASE WHEN context='kernel' THEN ip ELSE ip & 4095 END, symbol, "
        "CASE WHEN inlined THEN 'inlined' ELSE dso END)", &gotF);
    our_samples_as(db, azName[k], DW_OPTS,
        "printf('%x %s', CASE WHEN context='kernel' THEN ip ELSE ip & 4095 END, coalesce(srcline, '?'))",
        &gotS);
    assert_int_equal(gotF.n, wantF.n);
    assert_int_equal(gotS.n, wantS.n);
    for(i=0; i<gotF.n; i++){
      if( !inline_frames_match(gotF.az[i], wantF.az[i]) ) fail_msg("%s sample %zu:\nours        %s\nperf script %s", azName[k], i, gotF.az[i], wantF.az[i]);
      if( !srclines_match(gotS.az[i], wantS.az[i]) ){
        fail_msg("%s sample %zu srclines:\nours        %s\nperf script %s", azName[k], i, gotS.az[i], wantS.az[i]);
      }
      nInl += strstr(gotF.az[i], "(inlined)")!=0;
      nSrc += strstr(gotS.az[i], ".c:")!=0 || strstr(gotS.az[i], ".cpp:")!=0;
    }
    tl_lines_free(&wantF); tl_lines_free(&wantS);
    tl_lines_free(&gotF); tl_lines_free(&gotS);
  }
  /* the test is about samples with inlined functions and known lines */
  assert_true(nInl>=10);
  assert_true(nSrc>=30);
  tl_test_db_close(db);
}

/* ---- the model alone: made-up samples over a real file ---------------- */

#define DW_PROG "/tmp/tracelite-dwarf/c-O2"
#define DW_BASE 0x555555554000ull   /* where the made-up process maps it */

/* The warnings of trace p as "file|message" lines. */
static void warnings_of(TlTrace *p, TlScanLines *pOut){
  TlFilter f;
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  f.mCols = ((uint64_t)1<<TL_TW_FILE) | ((uint64_t)1<<TL_TW_MESSAGE);
  memset(pOut, 0, sizeof(*pOut));
  tl_test_scan_lines(p, TL_TAB_WARNINGS, &f, f.mCols, 0, -1, pOut);
}

/* Process 1 maps c-O2 whole at DW_BASE; aId: a build id the trace gives it, or NULL. */
static TlSymbols *model_with_prog(const uint8_t *aId){
  TlSymbols *p = tl_symbols_new(DW_DIR "symfs", DW_DIR "no-cache", 0);
  assert_non_null(p);
  assert_int_equal(tl_symbols_add_map(p, 1, TL_SYMBOLS_NO_TS, DW_BASE, 0x5000, 0, DW_PROG,
                                      strlen(DW_PROG)), TL_OK);
  if( aId ) assert_int_equal(tl_symbols_add_build_id(p, DW_PROG, strlen(DW_PROG), aId, 20), TL_OK);
  tl_symbols_finish(p);
  return p;
}

/*
** By the x86-64 ABI and the program's CFI: at the first instruction of
** callback (0x1200, readelf -s) the return address is the word at rsp;
** the caller's frame is that address - 1 (in worker, which perf script
** shows as 0x127a); worker's own return address lies past the 8 bytes of
** stack given, which perf reads as 0: a last frame at 0 - 1.
*/
static void unwind_model_made_up_sample(void **state){
  TlTrace *pTrace = 0;
  TlErr err;
  TlSymbols *pSyms = model_with_prog(0);
  TlUnwind *u = tl_unwind_new(pSyms);
  TlUnwindIn in;
  uint8_t aStack[8];
  uint64_t aIp[TL_UNWIND_MAX_FRAMES], ra = DW_BASE + 0x127b;
  int i, n;
  (void)state;
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(DW_DIR "c-O2.data", 0, &pTrace, &err), TL_OK);
  assert_non_null(u);
  memset(&in, 0, sizeof(in));
  in.pid = in.tid = 1;
  in.ts = TL_SYMBOLS_NO_TS;
  in.aReg[TL_UNWIND_REG_IP] = DW_BASE + 0x1200;
  in.aReg[TL_UNWIND_REG_SP] = 0x7ffc00001000ull;
  in.mReg = (1u<<TL_UNWIND_REG_IP) | (1u<<TL_UNWIND_REG_SP);
  for(i=0; i<8; i++) aStack[i] = (uint8_t)(ra >> (8*i));
  in.aStack = aStack;
  in.nStack = sizeof(aStack);
  n = tl_unwind_frames(u, pTrace, &in, aIp, TL_UNWIND_MAX_FRAMES);
  assert_int_equal(n, 3);
  assert_true(aIp[0]==DW_BASE + 0x1200);
  assert_true(aIp[1]==DW_BASE + 0x127a);
  assert_true(aIp[2]==UINT64_MAX);
  /* no stack at all: the pc, then the return address perf reads as 0 */
  in.nStack = 0;
  assert_int_equal(tl_unwind_frames(u, pTrace, &in, aIp, TL_UNWIND_MAX_FRAMES), 2);
  assert_true(aIp[0]==DW_BASE + 0x1200 && aIp[1]==UINT64_MAX);
  /* no rip: nothing */
  in.mReg = 1u<<TL_UNWIND_REG_SP;
  assert_int_equal(tl_unwind_frames(u, pTrace, &in, aIp, TL_UNWIND_MAX_FRAMES), 0);
  tl_unwind_free(u);
  tl_symbols_free(pSyms);
  tl_trace_release(pTrace);
}

/* A file whose build id is not the trace's: its frame is the last, and a warning says why, once. */
static void unwind_model_build_id_mismatch_warns(void **state){
  static const uint8_t aWrong[20] = { 0xde, 0xad, 0xbe, 0xef };
  TlTrace *pTrace = 0;
  TlErr err;
  TlSymbols *pSyms = model_with_prog(aWrong);
  TlUnwind *u = tl_unwind_new(pSyms);
  TlUnwindIn in;
  TlScanLines w;
  uint8_t aStack[64];
  uint64_t aIp[4];
  size_t i, nHit = 0;
  (void)state;
  tl_err_clear(&err);
  /* a trace of its own: the warnings are the trace's */
  assert_int_equal(tl_trace_open(DW_DIR "c-O0.data", "symfs=" DW_DIR "no-such-dir", &pTrace, &err), TL_OK);
  memset(&in, 0, sizeof(in));
  memset(aStack, 0x11, sizeof(aStack));
  in.pid = in.tid = 1;
  in.ts = TL_SYMBOLS_NO_TS;
  in.aReg[TL_UNWIND_REG_IP] = DW_BASE + 0x1200;
  in.aReg[TL_UNWIND_REG_SP] = 0x7ffc00001000ull;
  in.mReg = (1u<<TL_UNWIND_REG_IP) | (1u<<TL_UNWIND_REG_SP);
  in.aStack = aStack;
  in.nStack = sizeof(aStack);
  for(i=0; i<3; i++){
    assert_int_equal(tl_unwind_frames(u, pTrace, &in, aIp, 4), 1);
    assert_true(aIp[0]==DW_BASE + 0x1200);
  }
  warnings_of(pTrace, &w);
  for(i=0; i<w.rows.n; i++){
    if( strstr(w.rows.az[i], DW_PROG "|user stacks stop at its frames: no file with the trace's build id") ) nHit++;
  }
  assert_int_equal(nHit, 1);
  tl_lines_free(&w.rows);
  tl_unwind_free(u);
  tl_symbols_free(pSyms);
  tl_trace_release(pTrace);
}

TL_DEFINE_GROUP(unwind,
  cmocka_unit_test(unwind_frames_equal_perf_script),
  cmocka_unit_test(unwind_plain_and_stack_column),
  cmocka_unit_test(unwind_missing_file_stops_and_warns),
  cmocka_unit_test(unwind_inlined_and_srcline_equal_perf_script),
  cmocka_unit_test(unwind_model_made_up_sample),
  cmocka_unit_test(unwind_model_build_id_mismatch_warns),
);
