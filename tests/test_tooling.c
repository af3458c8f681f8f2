/*
** test_tooling.c: the Chrome trace-event exports (sql/chrome-*.sql), the
** trace_files() table over many traces, and ATTACHed databases.
**
** Expected values come from the reference tools' outputs kept in
** testdata/: perf script lines, babeltrace2 event counts, llvm-xray's YAML
** records and its own trace_event conversion.
*/
#include "tltest.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "json.h"

#define TD TL_TESTDATA_DIR "/"

/*
** Under AddressSanitizer the built tracelite.so needs the sanitizer runtime
** loaded first, which the sqlite3 shell and python3 do not have: the tests
** that load it into those programs run in `make test` only.
*/
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
# define TL_OTHER_PROCESS_CAN_LOAD 0
#else
# define TL_OTHER_PROCESS_CAN_LOAD 1
#endif
#define SQL_DIR TL_TESTDATA_DIR "/../sql/"

/* A skipped test says why, on the line before cmocka's SKIPPED. */
#define skip_because(zWhy) do{ \
  printf("[     SKIP ] %s: %s\n", __func__, zWhy); fflush(stdout); skip(); \
}while(0)

/* ---- helpers ------------------------------------------------------------ */

/* Lines of a reference file that contain zNeedle ("" counts every non-empty line). */
static int count_lines(const char *zPath, const char *zNeedle){
  char *z = tl_test_read_file(zPath, 0);
  char *zLine, *zSave = 0;
  int n = 0;
  assert_non_null(z);
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    if( strstr(zLine, zNeedle) ) n++;
  }
  free(z);
  return n;
}

/* The number after "<zKey> " in a testdata/ctf/<x>.counts.txt file. */
static long long counts_value(const char *zPath, const char *zKey){
  char *z = tl_test_read_file(zPath, 0);
  char *zLine, *zSave = 0;
  long long v = -1;
  size_t nKey = strlen(zKey);
  assert_non_null(z);
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    if( strncmp(zLine, zKey, nKey)==0 && zLine[nKey]==' ' ) v = atoll(zLine+nKey+1);
  }
  free(z);
  assert_true(v>=0);
  return v;
}

/*
** Run the text of a sql/ file the way `.parameter set` + `.read` does: bind
** @trace (and @binary when zBinary) and return its rows one a line, as the
** shell's list mode writes them (malloc'd).
*/
static char *run_sql_text_opt(sqlite3 *db, const char *zSql, const char *zTrace,
                              const char *zBinary, const char *zOptions){
  char *zOut = 0, *zAll = 0;
  const char *zTail;
  sqlite3_stmt *pStmt = 0;
  int rc;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, &zTail)!=SQLITE_OK ){
    fail_msg("%s", sqlite3_errmsg(db));
  }
  while( *zTail==' ' || *zTail=='\n' ) zTail++;
  assert_string_equal(zTail, "");          /* one statement */
  assert_int_equal(sqlite3_bind_text(pStmt, sqlite3_bind_parameter_index(pStmt, "@trace"),
                                     zTrace, -1, SQLITE_TRANSIENT), SQLITE_OK);
  if( zBinary ){
    assert_int_equal(sqlite3_bind_text(pStmt, sqlite3_bind_parameter_index(pStmt, "@binary"),
                                       zBinary, -1, SQLITE_TRANSIENT), SQLITE_OK);
  }
  if( zOptions ){
    assert_int_equal(sqlite3_bind_text(pStmt, sqlite3_bind_parameter_index(pStmt, "@options"),
                                       zOptions, -1, SQLITE_TRANSIENT), SQLITE_OK);
  }
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    const char *zRow = (const char*)sqlite3_column_text(pStmt, 0);
    char *zNew = sqlite3_mprintf("%z%s\n", zAll, zRow ? zRow : "");
    assert_non_null(zNew);
    zAll = zNew;
  }
  if( rc!=SQLITE_DONE || !zAll ) fail_msg("%s", sqlite3_errmsg(db));
  zOut = strdup(zAll);
  sqlite3_free(zAll);
  sqlite3_finalize(pStmt);
  return zOut;
}

static char *run_sql_text(sqlite3 *db, const char *zSql, const char *zTrace,
                          const char *zBinary){
  return run_sql_text_opt(db, zSql, zTrace, zBinary, 0);
}

/* run_sql_text_opt() on sql/<zFile>. */
static char *run_sql_file_opt(sqlite3 *db, const char *zFile, const char *zTrace,
                              const char *zBinary, const char *zOptions){
  char zPath[512];
  char *zSql, *zOut;
  snprintf(zPath, sizeof(zPath), SQL_DIR "%s", zFile);
  zSql = tl_test_read_file(zPath, 0);
  assert_non_null(zSql);
  zOut = run_sql_text_opt(db, zSql, zTrace, zBinary, zOptions);
  free(zSql);
  return zOut;
}

/* run_sql_text() on sql/<zFile>. */
static char *run_sql_file(sqlite3 *db, const char *zFile, const char *zTrace,
                          const char *zBinary){
  return run_sql_file_opt(db, zFile, zTrace, zBinary, 0);
}

/* Parse z with the project's own strict JSON reader; fails the test if invalid. */
static void parse_json(TlJvDoc *pDoc, const char *z){
  TlErr err;
  tl_err_clear(&err);
  if( tl_jv_parse(pDoc, z, strlen(z), 0, &err) ) fail_msg("invalid JSON: %s", err.zMsg);
}

/*
** The events of a parsed Chrome trace document: the root of the array
** form (sql/chrome-*.sql), traceEvents of the object form (llvm-xray).
*/
static const TlJv *trace_events(const TlJvDoc *pDoc){
  const TlJv *p = pDoc->pRoot->eType==TL_JV_ARRAY ? pDoc->pRoot
                                                   : tl_jv_get(pDoc->pRoot, "traceEvents");
  assert_non_null(p);
  assert_int_equal(p->eType, TL_JV_ARRAY);
  return p;
}

/* Events of the array with phase zPh and (when zName) that name. */
static int count_ph(const TlJv *pArr, const char *zPh, const char *zName){
  const TlJv *e;
  int n = 0;
  for(e=pArr->pFirst; e; e=e->pNext){
    if( !tl_jv_is(tl_jv_get(e, "ph"), zPh) ) continue;
    if( zName && !tl_jv_is(tl_jv_get(e, "name"), zName) ) continue;
    n++;
  }
  return n;
}

/* A JSON number, or a number in a string (llvm-xray writes "ts" : "123.25"). */
static double jv_num(const TlJv *p){
  assert_non_null(p);
  if( p->eType==TL_JV_STRING ) return strtod(p->z, 0);
  assert_int_equal(p->eType, TL_JV_NUMBER);
  return p->d;
}

/* ---- Chrome trace-event export: events ----------------------------------- */

/*
** Every instant event Chrome and Perfetto need (ph, s, name, ts, pid, tid
** with the right types) and the count the reference tool gives.
*/
static void check_instants(const char *zJson, int nWant){
  TlJvDoc doc;
  const TlJv *pArr, *e;
  int n = 0;
  parse_json(&doc, zJson);
  pArr = trace_events(&doc);
  for(e=pArr->pFirst; e; e=e->pNext){
    const TlJv *pPh = tl_jv_get(e, "ph");
    assert_non_null(pPh);
    assert_int_equal(tl_jv_get(e, "pid")->eType, TL_JV_NUMBER);
    assert_int_equal(tl_jv_get(e, "tid")->eType, TL_JV_NUMBER);
    assert_int_equal(tl_jv_get(e, "name")->eType, TL_JV_STRING);
    if( tl_jv_is(pPh, "M") ){
      assert_true(tl_jv_is(tl_jv_get(e, "name"), "thread_name")
                  || tl_jv_is(tl_jv_get(e, "name"), "process_name"));
      continue;
    }
    assert_true(tl_jv_is(pPh, "i"));
    assert_true(tl_jv_is(tl_jv_get(e, "s"), "t"));
    assert_int_equal(tl_jv_get(e, "ts")->eType, TL_JV_NUMBER);
    assert_int_equal(tl_jv_get(e, "args")->eType, TL_JV_OBJECT);
    n++;
  }
  assert_int_equal(n, nWant);
  tl_jv_free(&doc);
}

/* perf samples: one instant event per `perf script` line, per event name too. */
static void chrome_events_perf_counts_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  TlJvDoc doc;
  (void)state;
  z = run_sql_file(db, "chrome-events.sql", TD "perf/multi.data", 0);
  check_instants(z, count_lines(TD "perf/multi.script.txt", ""));
  parse_json(&doc, z);
  assert_int_equal(count_ph(trace_events(&doc), "i", "cpu-clock"),
                   count_lines(TD "perf/multi.script.txt", " cpu-clock:"));
  assert_int_equal(count_ph(trace_events(&doc), "i", "task-clock"),
                   count_lines(TD "perf/multi.script.txt", " task-clock:"));
  /* the first sample: perf script prints 3958.305720 (seconds, us digits) */
  {
    const TlJv *e;
    for(e=trace_events(&doc)->pFirst; e && !tl_jv_is(tl_jv_get(e, "ph"), "i"); e=e->pNext){}
    assert_non_null(e);
    assert_true(floor(jv_num(tl_jv_get(e, "ts")))==3958305720.0);
    assert_int_equal((int)jv_num(tl_jv_get(e, "pid")), 9276);
    assert_int_equal((int)jv_num(tl_jv_get(e, "tid")), 9276);
  }
  tl_jv_free(&doc);
  free(z);
  /* sched_switch tracepoint fields travel in args */
  z = run_sql_file(db, "chrome-events.sql", TD "perf/sched.data", 0);
  check_instants(z, count_lines(TD "perf/sched.script.txt", " sched:sched_"));
  assert_non_null(strstr(z, "\"prev_comm\":"));
  free(z);
  tl_test_db_close(db);
}

/* CTF: one instant event per babeltrace2 event, per class, first ts. */
static void chrome_events_ctf_counts_equal_babeltrace2(void **state){
  static const char *const az[] = { "ust-multi", "ust-pid", "ust-types" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(az)/sizeof(az[0]); k++){
    char zTrace[256], zCounts[256];
    char *z;
    snprintf(zTrace, sizeof(zTrace), TD "ctf/%s", az[k]);
    snprintf(zCounts, sizeof(zCounts), TD "ctf/%s.counts.txt", az[k]);
    z = run_sql_file(db, "chrome-events.sql", zTrace, 0);
    check_instants(z, (int)counts_value(zCounts, "events"));
    if( k==0 ){
      TlJvDoc doc;
      const TlJv *e;
      double tsMin = INFINITY;
      parse_json(&doc, z);
      assert_int_equal(count_ph(trace_events(&doc), "i", "tl:ints"), counts_value(zCounts, "name tl:ints"));
      assert_int_equal(count_ph(trace_events(&doc), "i", "tl:tick"), counts_value(zCounts, "name tl:tick"));
      for(e=trace_events(&doc)->pFirst; e; e=e->pNext){
        if( tl_jv_is(tl_jv_get(e, "ph"), "i") && jv_num(tl_jv_get(e, "ts"))<tsMin ){
          tsMin = jv_num(tl_jv_get(e, "ts"));
        }
      }
      /* microseconds: babeltrace2's first ns / 1000 (double keeps ~0.25 us here) */
      assert_true(fabs(tsMin - (double)counts_value(zCounts, "first_ts")/1000.0) < 1.0);
      tl_jv_free(&doc);
    }
    free(z);
  }
  tl_test_db_close(db);
}

/*
** CTF counters: LTTng's perf counter contexts (ust-counters: task-clock,
** context-switches, page-fault) give one counter event per event, at its
** time, on its thread, with the values babeltrace2 prints in the event's
** context ("perf_thread_task_clock = 35177").
*/
static void chrome_events_ctf_counters_equal_babeltrace2(void **state){
  sqlite3 *db = tl_test_db();
  char *z = run_sql_file(db, "chrome-events.sql", TD "ctf/ust-counters", 0);
  char *zRef = tl_test_read_file(TD "ctf/ust-counters.bt2.txt", 0);
  char *zLine, *zSave;
  int nLine = 0;
  TlJvDoc doc;
  (void)state;
  assert_non_null(zRef);
  parse_json(&doc, z);
  for(zLine=strtok_r(zRef, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    long long s, ns, tid;
    char zTs[64], zKey[64];
    const TlJv *e, *a, *v;
    const char *zF;
    int nVal = 0;
    assert_int_equal(sscanf(zLine, "[%lld.%lld]", &s, &ns), 2);
    zF = strstr(zLine, "vtid = ");
    assert_non_null(zF);
    tid = atoll(zF + 7);
    /* the counter event at this time (its text: microseconds, three decimals) */
    snprintf(zTs, sizeof(zTs), "%lld.%03lld", s*1000000 + ns/1000, ns%1000);
    for(e=trace_events(&doc)->pFirst; e; e=e->pNext){
      const TlJv *t = tl_jv_get(e, "ts");
      if( tl_jv_is(tl_jv_get(e, "ph"), "C") && strncmp(z + t->iOff, zTs, strlen(zTs))==0
          && !isdigit((unsigned char)z[t->iOff + strlen(zTs)]) ) break;
    }
    if( !e ) fail_msg("no counter event at %s us (%s)", zTs, zLine);
    {
      int64_t iTid;
      assert_int_equal(tl_jv_int(tl_jv_get(e, "tid"), &iTid), 0);
      assert_int_equal(iTid, tid);
    }
    a = tl_jv_get(e, "args");
    /* every perf_* field babeltrace2 prints, with its value */
    for(zF=strstr(zLine, "perf_"); zF; zF=strstr(zF+1, ", perf_")){
      int64_t iV;
      if( zF[0]==',' ) zF += 2;
      assert_int_equal(sscanf(zF, "%63[a-z_] = ", zKey), 1);
      v = tl_jv_get(a, zKey);
      if( !v || tl_jv_int(v, &iV) ) fail_msg("%s: no %s in the counter event", zTs, zKey);
      assert_int_equal(iV, atoll(strchr(zF, '=') + 2));
      nVal++;
    }
    assert_int_equal(nVal, 3);
    assert_int_equal(a->nChild, 3);
    nLine++;
  }
  assert_int_equal(count_ph(trace_events(&doc), "C", 0), nLine);
  assert_int_equal(nLine, counts_value(TD "ctf/ust-counters.counts.txt", "events"));
  tl_jv_free(&doc);
  free(zRef);
  free(z);
  tl_test_db_close(db);
}

/* ---- Chrome export: perf samples as CPU profiles ---------------------------- */

/* A "ts" (or any number) of the export, microseconds with three decimals, in ns. */
static int64_t us_text_ns(const char *zDoc, const TlJv *t){
  long long us = 0, frac = 0;
  int nFrac = 0;
  const char *z = zDoc + t->iOff;
  assert_int_equal(t->eType, TL_JV_NUMBER);
  for(; isdigit((unsigned char)*z); z++) us = us*10 + (*z - '0');
  if( *z=='.' ){
    for(z++; isdigit((unsigned char)*z); z++, nFrac++) frac = frac*10 + (*z - '0');
  }
  for(; nFrac<3; nFrac++) frac *= 10;
  assert_int_equal(nFrac, 3);
  return us*1000 + frac;
}

typedef struct ProfNode ProfNode;
struct ProfNode { int iProf; int64_t id, parent; const char *zName; };
typedef struct ProfSample ProfSample;
struct ProfSample { int iProf; int64_t node, us; };
typedef struct Profiles Profiles;
struct Profiles {
  const char *azId[16]; int64_t aStart[16], aLast[16]; int aBegun[16]; int nProf;
  ProfNode *aNode; int nNode;
  ProfSample *aSmp; int nSmp;
  char **azStack; int *aCount; int nStack;   /* distinct stacks, counted */
};

static int prof_of(Profiles *p, const TlJv *e){
  const TlJv *pId = tl_jv_get(e, "id");
  int i;
  assert_non_null(pId);
  for(i=0; i<p->nProf && strcmp(p->azId[i], pId->z); i++){}
  if( i==p->nProf ){
    assert_true(p->nProf < 16);
    p->azId[p->nProf++] = pId->z;
  }
  return i;
}

static int cmp_str(const void *a, const void *b){
  return strcmp(*(char *const*)a, *(char *const*)b);
}

/*
** Read the export's Profile / ProfileChunk events as speedscope and
** Perfetto do: a Profile's startTime, then chunks of nodes (id, parent,
** callFrame.functionName) and of samples with their time deltas (us); each
** sample's stack is its node's path from the root (the root "(root)" left
** out), outermost first, joined by ';'.
*/
static void read_profiles(Profiles *p, const TlJv *pArr){
  const TlJv *e, *x, *d;
  int i, k;
  memset(p, 0, sizeof(*p));
  for(e=pArr->pFirst; e; e=e->pNext){
    if( !tl_jv_is(tl_jv_get(e, "ph"), "P") ) continue;
    i = prof_of(p, e);
    d = tl_jv_get(tl_jv_get(e, "args"), "data");
    assert_non_null(d);
    if( tl_jv_is(tl_jv_get(e, "name"), "Profile") ){
      assert_int_equal(tl_jv_int(tl_jv_get(d, "startTime"), &p->aStart[i]), 0);
      p->aLast[i] = p->aStart[i];
      p->aBegun[i] = 1;
      continue;
    }
    /* Perfetto reads a chunk only after its Profile, in file order */
    assert_true(tl_jv_is(tl_jv_get(e, "name"), "ProfileChunk"));
    assert_true(p->aBegun[i]);
    x = tl_jv_get(tl_jv_get(d, "cpuProfile"), "nodes");
    for(x=x ? x->pFirst : 0; x; x=x->pNext){
      ProfNode *n;
      p->aNode = realloc(p->aNode, (p->nNode + 1)*sizeof(ProfNode));
      n = &p->aNode[p->nNode++];
      n->iProf = i;
      assert_int_equal(tl_jv_int(tl_jv_get(x, "id"), &n->id), 0);
      if( tl_jv_int(tl_jv_get(x, "parent"), &n->parent) ) n->parent = 0;
      n->zName = tl_jv_get(tl_jv_get(x, "callFrame"), "functionName")->z;
      /* ids Perfetto takes (32 bits), each once, after its parent */
      assert_true(n->id > 0 && n->id <= 0xffffffff);
      {
        int j, bParent = n->parent==0;
        for(j=0; j<p->nNode-1; j++){
          if( p->aNode[j].iProf!=i ) continue;
          assert_true(p->aNode[j].id!=n->id);
          if( p->aNode[j].id==n->parent ) bParent = 1;
        }
        assert_true(bParent);
      }
    }
    x = tl_jv_get(tl_jv_get(d, "cpuProfile"), "samples");
    if( x ){
      const TlJv *t = tl_jv_get(d, "timeDeltas")->pFirst;
      for(x=x->pFirst; x; x=x->pNext, t=t->pNext){
        ProfSample *s;
        int64_t dt;
        assert_non_null(t);
        assert_int_equal(tl_jv_int(t, &dt), 0);
        p->aSmp = realloc(p->aSmp, (p->nSmp + 1)*sizeof(ProfSample));
        s = &p->aSmp[p->nSmp++];
        s->iProf = i;
        assert_int_equal(tl_jv_int(x, &s->node), 0);
        s->us = p->aLast[i] += dt;
      }
      assert_null(t);
    }
  }
  /* each sample's stack, then the distinct stacks counted */
  p->azStack = calloc((size_t)p->nSmp + 1, sizeof(char*));
  for(k=0; k<p->nSmp; k++){
    const char *azF[256];
    int nF = 0;
    int64_t id = p->aSmp[k].node;
    TlStr s;
    while( id ){
      int j;
      for(j=0; j<p->nNode && (p->aNode[j].iProf!=p->aSmp[k].iProf || p->aNode[j].id!=id); j++){}
      if( j==p->nNode ) fail_msg("sample %d: no node %lld", k, (long long)id);
      if( strcmp(p->aNode[j].zName, "(root)") ){
        assert_true(nF < 256);
        azF[nF++] = p->aNode[j].zName;
      }
      id = p->aNode[j].parent;
    }
    tl_str_init(&s);
    tl_str_appendz(&s, "");
    while( nF>0 ){
      tl_str_appendz(&s, azF[--nF]);
      if( nF ) tl_str_appendc(&s, ';');
    }
    p->azStack[k] = strdup(s.z);
    tl_str_free(&s);
  }
  qsort(p->azStack, (size_t)p->nSmp, sizeof(char*), cmp_str);
  p->aCount = calloc((size_t)p->nSmp + 1, sizeof(int));
  for(k=0; k<p->nSmp; k++){
    if( p->nStack && strcmp(p->azStack[p->nStack-1], p->azStack[k])==0 ){
      free(p->azStack[k]);
    }else{
      p->azStack[p->nStack++] = p->azStack[k];
    }
    p->aCount[p->nStack-1]++;
  }
}

/* The end of an export test: its parsed document, reference text, export, db. */
static void end_export_test(TlJvDoc *pDoc, char *zRef, char *z, sqlite3 *db){
  tl_jv_free(pDoc);
  free(zRef);
  free(z);
  tl_test_db_close(db);
}

static void free_profiles(Profiles *p){
  int k;
  for(k=0; k<p->nStack; k++) free(p->azStack[k]);
  free(p->azStack); free(p->aCount); free(p->aNode); free(p->aSmp);
}

/*
** perf samples with a callchain are Chrome CPU profile events: per stack,
** as many samples as `perf script | stackcollapse-perf.pl` folds
** (lost.folded.txt, with sym/'s files as perf had them; -c 1000: each
** sample's period is 1000; the command name it puts first left out, the
** profile being the thread's), and no instant for them.
*/
static void chrome_events_perf_profile_counts_equal_folded(void **state){
  sqlite3 *db = tl_test_db();
  char *z = run_sql_file_opt(db, "chrome-events.sql", TD "perf/lost.data", 0,
                             "symfs='" TD "perf/sym/symfs' kallsyms='" TD "perf/sym/kallsyms'"
                             " buildid_dir='" TD "perf/sym/no-cache'");
  char *zRef = tl_test_read_file(TD "perf/lost.folded.txt", 0);
  const char *azWant[1024]; int aWant[1024]; int nWant = 0, nSamples = 0;
  char *zLine, *zSave = 0;
  Profiles pr;
  TlJvDoc doc;
  int k;
  (void)state;
  assert_non_null(zRef);
  parse_json(&doc, z);
  assert_int_equal(count_ph(trace_events(&doc), "i", "cpu-clock"), 0);
  read_profiles(&pr, trace_events(&doc));
  assert_int_equal(pr.nProf, 1);
  /* the reference, without the command: stack -> samples */
  for(zLine=strtok_r(zRef, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    char *zSp = strrchr(zLine, ' '), *zSemi = strchr(zLine, ';');
    long long v = atoll(zSp + 1);
    const char *zStack = zSemi && zSemi<zSp ? zSemi + 1 : zSp;
    *zSp = 0;
    assert_int_equal(v % 1000, 0);
    for(k=0; k<nWant && strcmp(azWant[k], zStack); k++){}
    if( k==nWant ){ assert_true(nWant < 1024); azWant[nWant] = zStack; aWant[nWant++] = 0; }
    aWant[k] += (int)(v / 1000);
    nSamples += (int)(v / 1000);
  }
  assert_int_equal(pr.nSmp, nSamples);
  assert_int_equal(pr.nStack, nWant);
  for(k=0; k<pr.nStack; k++){
    int j;
    for(j=0; j<nWant && strcmp(azWant[j], pr.azStack[k]); j++){}
    if( j==nWant ) fail_msg("stack %s: not in lost.folded.txt", pr.azStack[k]);
    if( aWant[j]!=pr.aCount[k] ) fail_msg("stack %s: %d samples, folded %d", pr.azStack[k], pr.aCount[k], aWant[j]);
  }
  free_profiles(&pr);
  end_export_test(&doc, zRef, z, db);
}

/*
** The samples' times: the Profile's startTime plus the deltas give each
** sample's time in whole microseconds, those perf script prints
** (cpu-clock-g.script.txt: "sh  9273  3957.196063: ..."), in order.
*/
static void chrome_events_perf_profile_times_equal_perf_script(void **state){
  sqlite3 *db = tl_test_db();
  char *z = run_sql_file(db, "chrome-events.sql", TD "perf/cpu-clock-g.data", 0);
  char *zRef = tl_test_read_file(TD "perf/cpu-clock-g.script.txt", 0);
  char *zLine, *zSave = 0;
  int64_t *aUs = 0;
  int nUs = 0, k;
  Profiles pr;
  TlJvDoc doc;
  (void)state;
  assert_non_null(zRef);
  for(zLine=strtok_r(zRef, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    long long s, us;
    char *zColon = strstr(zLine, ": ");
    if( zLine[0]=='\t' || !zColon ) continue;
    while( zColon>zLine && zColon[-1]!=' ' ) zColon--;
    assert_int_equal(sscanf(zColon, "%lld.%lld:", &s, &us), 2);
    aUs = realloc(aUs, (size_t)(nUs + 1)*sizeof(int64_t));
    aUs[nUs++] = s*1000000 + us;
  }
  parse_json(&doc, z);
  read_profiles(&pr, trace_events(&doc));
  assert_int_equal(pr.nProf, 1);
  assert_int_equal(pr.nSmp, nUs);
  for(k=0; k<nUs; k++){
    if( pr.aSmp[k].us!=aUs[k] ) fail_msg("sample %d: %lld us, perf script %lld", k, (long long)pr.aSmp[k].us, (long long)aUs[k]);
  }
  free_profiles(&pr);
  free(aUs);
  end_export_test(&doc, zRef, z, db);
}

/*
** The counter events of the export of perf/<zData> against perf script's
** perf/<zScript> (`--ns -F tid,time,event,period`), for the nEv events
** azEv: one counter event per sample, on its thread, a series per event
** holding its count as read. perf script prints each event's change since
** the previous sample as the line's period (no line when it did not
** change): summed up to a sample's time, those are the counts.
*/
static void check_read_counters(const char *zData, const char *zScript,
                                const char *const *azEv, int nEv){
  char zPath[512];
  sqlite3 *db = tl_test_db();
  char *z, *zRef, *zLine, *zSave = 0;
  long long aSum[4] = {0, 0, 0, 0};
  int64_t tPrev = -1;
  int nTimes = 0, nC;
  TlJvDoc doc;
  assert_true(nEv <= 4);
  snprintf(zPath, sizeof(zPath), TD "perf/%s", zData);
  z = run_sql_file(db, "chrome-events.sql", zPath, 0);
  snprintf(zPath, sizeof(zPath), TD "perf/%s", zScript);
  zRef = tl_test_read_file(zPath, 0);
  assert_non_null(zRef);
  parse_json(&doc, z);
  nC = count_ph(trace_events(&doc), "C", 0);
  zLine = strtok_r(zRef, "\n", &zSave);
  while( zLine ){
    long long tid, s, ns, v;
    char zEvent[64];
    int64_t t;
    int k;
    const TlJv *e, *a;
    assert_int_equal(sscanf(zLine, "%lld %lld.%lld: %lld %63s", &tid, &s, &ns, &v, zEvent), 5);
    zEvent[strlen(zEvent) - 1] = 0;              /* its ':' */
    t = s*1000000000 + ns;
    for(k=0; k<nEv && strcmp(zEvent, azEv[k]); k++){}
    assert_true(k<nEv);
    aSum[k] += v;
    zLine = strtok_r(0, "\n", &zSave);
    if( zLine ){
      long long s2, ns2;
      assert_int_equal(sscanf(zLine, "%*s %lld.%lld:", &s2, &ns2), 2);
      if( s2*1000000000 + ns2==t ) continue;     /* the same sample */
    }
    /* the sample at t: its counter event holds the sums */
    assert_true(t > tPrev);
    tPrev = t;
    for(e=trace_events(&doc)->pFirst; e; e=e->pNext){
      if( tl_jv_is(tl_jv_get(e, "ph"), "C") && us_text_ns(z, tl_jv_get(e, "ts"))==t ) break;
    }
    if( !e ) fail_msg("no counter event at %lld ns", (long long)t);
    {
      int64_t iTid;
      assert_int_equal(tl_jv_int(tl_jv_get(e, "tid"), &iTid), 0);
      assert_int_equal(iTid, tid);
      assert_true(strncmp(tl_jv_get(e, "name")->z, "perf counters tid ", 18)==0);
    }
    a = tl_jv_get(e, "args");
    assert_int_equal(a->nChild, nEv);
    for(k=0; k<nEv; k++){
      int64_t iV;
      if( tl_jv_int(tl_jv_get(a, azEv[k]), &iV) ) fail_msg("%lld ns: no %s", (long long)t, azEv[k]);
      if( iV!=aSum[k] ) fail_msg("%lld ns: %s %lld, perf script's sum %lld", (long long)t, azEv[k], (long long)iV, aSum[k]);
    }
    nTimes++;
  }
  assert_true(nTimes > 20);
  assert_int_equal(nC, nTimes);
  end_export_test(&doc, zRef, z, db);
}

/*
** perf counters read with PERF_SAMPLE_READ: the group
** {cpu-clock,task-clock,page-faults}:S (read.data), and one event read
** alone, cpu-clock:S (read-single.data).
*/
static void chrome_events_perf_read_counters_equal_perf_script(void **state){
  static const char *const azGroup[3] = { "cpu-clock", "task-clock", "page-faults" };
  static const char *const azOne[1] = { "cpu-clock:S" };
  (void)state;
  check_read_counters("read.data", "read.script.txt", azGroup, 3);
  check_read_counters("read-single.data", "read-single.script.txt", azOne, 1);
}

/* CPEL: demo.cpel holds 300 events on 3 named tracks (testdata/cpel/README.md). */
static void chrome_events_cpel_has_every_event_and_track_name(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  z = run_sql_file(db, "chrome-events.sql", TD "cpel/demo.cpel", 0);
  check_instants(z, 300);
  assert_non_null(strstr(z, "\"args\":{\"name\":\"main thread\"}"));
  assert_non_null(strstr(z, "\"args\":{\"name\":\"workers 2\"}"));
  free(z);
  tl_test_db_close(db);
}

/*
** The export through the sqlite3 shell exactly as the README shows it
** (.parameter, .output, .read): the file it writes parses and has every
** sample. Skipped when the sqlite3 shell is not installed.
*/
static void chrome_events_through_the_sqlite3_shell(void **state){
  char zOut[512], zCmd[2048];
  char *z;
  (void)state;
  if( !TL_OTHER_PROCESS_CAN_LOAD ) skip_because("a sanitizer build cannot be loaded by the sqlite3 shell");
  if( system("command -v sqlite3 >/dev/null 2>&1")!=0 ) skip_because("the sqlite3 shell is not installed");
  snprintf(zOut, sizeof(zOut), "%s/chrome-shell.json", tl_test_tmpdir());
  snprintf(zCmd, sizeof(zCmd),
      "cd '" TL_TESTDATA_DIR "/..' && sqlite3 :memory: '.load " TL_BUILD_DIR "/tracelite'"
      " \".parameter set @trace 'testdata/perf/multi.data'\" '.headers off' '.mode list'"
      " '.output %s' '.read sql/chrome-events.sql' '.output stdout'", zOut);
  assert_int_equal(system(zCmd), 0);
  z = tl_test_read_file(zOut, 0);
  assert_non_null(z);
  check_instants(z, count_lines(TD "perf/multi.script.txt", ""));
  free(z);
}

/* ---- Chrome trace-event export: XRay calls ------------------------------- */

typedef struct Span Span;
struct Span { char zKey[96]; double t; };   /* "tid|name" and a time in us */

static int span_cmp(const void *a, const void *b){
  const Span *x = a, *y = b;
  int c = strcmp(x->zKey, y->zKey);
  if( c ) return c;
  return x->t<y->t ? -1 : x->t>y->t;
}

/* Begin (bEnd==0) or end times of every call in pArr, keyed by tid|name. */
static int spans(const TlJv *pArr, int bEnd, Span *a, int nMax){
  const TlJv *e;
  int n = 0;
  for(e=pArr->pFirst; e; e=e->pNext){
    const TlJv *pPh = tl_jv_get(e, "ph");
    const TlJv *pTid = tl_jv_get(e, "tid");
    double t;
    char zTid[32];
    if( tl_jv_is(pPh, "X") ){
      t = jv_num(tl_jv_get(e, "ts"));
      if( bEnd ) t += jv_num(tl_jv_get(e, "dur"));
    }else if( tl_jv_is(pPh, bEnd ? "E" : "B") ){
      t = jv_num(tl_jv_get(e, "ts"));
    }else{
      continue;
    }
    assert_true(n<nMax);
    if( pTid->eType==TL_JV_STRING ) snprintf(zTid, sizeof(zTid), "%s", pTid->z);
    else snprintf(zTid, sizeof(zTid), "%.0f", pTid->d);
    snprintf(a[n].zKey, sizeof(a[n].zKey), "%s|%s", zTid, tl_jv_get(e, "name")->z);
    a[n].t = t;
    n++;
  }
  qsort(a, (size_t)n, sizeof(Span), span_cmp);
  return n;
}

/*
** sql/chrome-xray.sql against `llvm-xray convert -output-format=trace_event`:
** the same calls per thread and function, starting and ending at the same
** times (llvm-xray rounds microseconds to float precision: within 0.5 us).
*/
/* The FDR logs kept with llvm-xray's outputs, and their binaries. */
static const char *const azFdr[][2] = {
  { "fdr", "app.map.elf" }, { "fdr-O2", "app-O2.map.elf" },
};

static void chrome_xray_matches_llvm_xray_trace_event(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azFdr)/sizeof(azFdr[0]); k++){
    char zTrace[256], zBin[256], zRef[256];
    char *z, *zWant;
    TlJvDoc got, want;
    Span *aGot = calloc(512, sizeof(Span)), *aWant = calloc(512, sizeof(Span));
    int b, i, n;
    snprintf(zTrace, sizeof(zTrace), TD "xray/%s.xray", azFdr[k][0]);
    snprintf(zBin, sizeof(zBin), TD "xray/%s", azFdr[k][1]);
    snprintf(zRef, sizeof(zRef), TD "xray/%s.trace_event.json", azFdr[k][0]);
    z = run_sql_file(db, "chrome-xray.sql", zTrace, zBin);
    zWant = tl_test_read_file(zRef, 0);
    assert_non_null(zWant);
    parse_json(&got, z);
    parse_json(&want, zWant);
    /* every call once: X for finished calls, B for open ones */
    assert_int_equal(count_ph(trace_events(&got), "X", 0) + count_ph(trace_events(&got), "B", 0),
                     count_ph(trace_events(&want), "B", 0));
    assert_int_equal(count_ph(trace_events(&got), "X", 0), count_ph(trace_events(&want), "E", 0));
    for(b=0; b<2; b++){
      n = spans(trace_events(&got), b, aGot, 512);
      assert_int_equal(n, spans(trace_events(&want), b, aWant, 512));
      for(i=0; i<n; i++){
        assert_string_equal(aGot[i].zKey, aWant[i].zKey);
        if( fabs(aGot[i].t - aWant[i].t) > 0.5 ){
          fail_msg("%s: %s %s at %.3f us, llvm-xray %.3f", azFdr[k][0], aGot[i].zKey,
                   b ? "ends" : "starts", aGot[i].t, aWant[i].t);
        }
      }
    }
    tl_jv_free(&got);
    tl_jv_free(&want);
    free(aGot); free(aWant);
    free(z); free(zWant);
  }
  tl_test_db_close(db);
}

/*
** sql/speedscope-calls.sql against `llvm-xray stack -all-stacks
** -stack-format=flame`: replaying each thread's open and close events as
** speedscope does (times never decreasing, every close the frame on top)
** gives each stack as many calls, and as much time in ns, as llvm-xray's
** folded counts and times.
*/
typedef struct Folded { char zKey[512]; long long nCount, nTime; } Folded;

static Folded *folded_find(Folded *a, int *pN, const char *zKey){
  int i;
  for(i=0; i<*pN; i++) if( strcmp(a[i].zKey, zKey)==0 ) return &a[i];
  assert_true(*pN<256);
  snprintf(a[*pN].zKey, sizeof(a[*pN].zKey), "%s", zKey);
  return &a[(*pN)++];
}

/* The frame names of a speedscope file's shared list (at most 64). */
static int speedscope_frames(const TlJvDoc *pDoc, const char **azFrame){
  const TlJv *f;
  int n = 0;
  assert_true(tl_jv_is(tl_jv_get(pDoc->pRoot, "$schema"),
                       "https://www.speedscope.app/file-format-schema.json"));
  for(f=tl_jv_get(tl_jv_get(pDoc->pRoot, "shared"), "frames")->pFirst; f; f=f->pNext){
    assert_true(n<64);
    azFrame[n++] = tl_jv_get(f, "name")->z;
  }
  return n;
}

/*
** Replay one evented profile as speedscope does: times never decrease nor
** pass endValue, every close names the frame on top, nothing stays open.
** xSpan gets each span as it closes: the frames open (outermost first, its
** own last), its start and end.
*/
typedef void (*SpanFn)(void *pArg, const int *aStack, int nStack, int64_t iStart, int64_t iEnd);

static void speedscope_replay(const TlJv *p, int nFrame, SpanFn xSpan, void *pArg){
  int aStack[64], nStack = 0;
  int64_t aAt[64], iLast = 0, iAt, iFrame, iEndValue;
  const TlJv *e;
  assert_true(tl_jv_is(tl_jv_get(p, "type"), "evented"));
  assert_true(tl_jv_is(tl_jv_get(p, "unit"), "nanoseconds"));
  assert_int_equal(tl_jv_int(tl_jv_get(p, "endValue"), &iEndValue), 0);
  for(e=tl_jv_get(p, "events")->pFirst; e; e=e->pNext){
    assert_int_equal(tl_jv_int(tl_jv_get(e, "at"), &iAt), 0);
    assert_int_equal(tl_jv_int(tl_jv_get(e, "frame"), &iFrame), 0);
    assert_true(iAt>=iLast && iAt<=iEndValue && iFrame>=0 && iFrame<nFrame);
    iLast = iAt;
    if( tl_jv_is(tl_jv_get(e, "type"), "O") ){
      assert_true(nStack<64);
      aStack[nStack] = (int)iFrame;
      aAt[nStack++] = iAt;
      continue;
    }
    assert_true(tl_jv_is(tl_jv_get(e, "type"), "C"));
    assert_true(nStack>0 && aStack[nStack-1]==iFrame);
    xSpan(pArg, aStack, nStack, aAt[nStack-1], iAt);
    nStack--;
  }
  assert_int_equal(nStack, 0);
}

/* speedscope_replay()'s spans of one XRay thread as llvm-xray folds them */
typedef struct FoldCtx { Folded *a; int n; const char **azFrame; long long iTid; } FoldCtx;

static void fold_span(void *pArg, const int *aStack, int nStack, int64_t iStart, int64_t iEnd){
  FoldCtx *p = pArg;
  char zKey[512];
  int b, i;
  /* "tid 13797 pid 13796" is llvm-xray's thread_13797 */
  b = snprintf(zKey, sizeof(zKey), "thread_%lld;", p->iTid);
  for(i=0; i<nStack; i++) b += snprintf(zKey+b, sizeof(zKey)-(size_t)b, "%s;", p->azFrame[aStack[i]]);
  folded_find(p->a, &p->n, zKey)->nCount++;
  folded_find(p->a, &p->n, zKey)->nTime += iEnd - iStart;
}

static void speedscope_calls_replay_equals_llvm_xray_stack(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azFdr)/sizeof(azFdr[0]); k++){
    char zTrace[256], zBin[256], zRef[256];
    const char *azFrame[64];
    const TlJv *p;
    FoldCtx ctx;
    int nFrame, b, i;
    char *z, *zWant, *zLine, *zSave;
    TlJvDoc doc;
    snprintf(zTrace, sizeof(zTrace), TD "xray/%s.xray", azFdr[k][0]);
    snprintf(zBin, sizeof(zBin), TD "xray/%s", azFdr[k][1]);
    z = run_sql_file(db, "speedscope-calls.sql", zTrace, zBin);
    parse_json(&doc, z);
    nFrame = speedscope_frames(&doc, azFrame);
    ctx.a = calloc(256, sizeof(Folded));
    ctx.n = 0;
    ctx.azFrame = azFrame;
    for(p=tl_jv_get(doc.pRoot, "profiles")->pFirst; p; p=p->pNext){
      ctx.iTid = atoll(tl_jv_get(p, "name")->z + 4);
      speedscope_replay(p, nFrame, fold_span, &ctx);
    }
    for(b=0; b<2; b++){
      int nWant = 0;
      snprintf(zRef, sizeof(zRef), TD "xray/%s.flame-%s.txt", azFdr[k][0], b ? "time" : "count");
      zWant = tl_test_read_file(zRef, 0);
      assert_non_null(zWant);
      for(zLine=strtok_r(zWant, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
        char *zSp = strrchr(zLine, ' ');
        Folded *q;
        assert_non_null(zSp);
        *zSp = 0;
        i = ctx.n;
        q = folded_find(ctx.a, &ctx.n, zLine);
        if( ctx.n>i ) fail_msg("%s: stack %s is not in the export", azFdr[k][0], zLine);
        if( (b ? q->nTime : q->nCount)!=atoll(zSp+1) ){
          fail_msg("%s: %s: %lld %s, llvm-xray %s", azFdr[k][0], zLine,
                   b ? q->nTime : q->nCount, b ? "ns" : "calls", zSp+1);
        }
        nWant++;
      }
      assert_int_equal(nWant, ctx.n);
      free(zWant);
    }
    tl_jv_free(&doc);
    free(ctx.a);
    free(z);
  }
  tl_test_db_close(db);
}

/*
** sql/speedscope-spans.sql against babeltrace2's text of CTF traces with
** span events (testdata/ctf/spans: _begin/_end and _entry/_exit pairs with an
** end recorded without its begin and spans still open at the end;
** cyg-profile: func_entry/func_exit). Pairing each thread's events of
** trace.bt2.txt by the trace-event viewers' rule (an end closes the
** thread's newest open span; an end with none open is left out) gives the
** spans the export gives when replayed as speedscope does: per thread as
** many, each named alike, starting at the same time (from the trace's
** first span) and lasting as long; the spans still open at the end end at
** the profile's endValue.
*/
typedef struct Span1 { long long iTid; int iDepth; char zName[128]; int64_t iStart, iEnd; } Span1;
typedef struct SpanSet { Span1 a[256]; int n; } SpanSet;

static int span1_cmp(const void *a, const void *b){
  const Span1 *x = a, *y = b;
  if( x->iTid!=y->iTid ) return x->iTid<y->iTid ? -1 : 1;
  if( x->iStart!=y->iStart ) return x->iStart<y->iStart ? -1 : 1;
  return x->iDepth - y->iDepth;
}

/* 1 for an event that opens a span, -1 for one that closes one, else 0 */
static int span_kind(const char *zName, size_t n){
#define ENDS(s) (n>=sizeof(s)-1 && memcmp(zName+n-(sizeof(s)-1), s, sizeof(s)-1)==0)
  if( strncmp(zName, "syscall_entry_", 14)==0 || ENDS("_entry") || ENDS("_begin") ) return 1;
  if( strncmp(zName, "syscall_exit_", 13)==0 || ENDS("_exit") || ENDS("_end") ) return -1;
  return 0;
#undef ENDS
}

/* The spans of babeltrace2's text "[s.ns] NAME: { cpu_id }, { vtid = T, ... }, { fields }". */
static void bt2_spans(const char *zPath, SpanSet *pSet){
  struct { long long iTid; int aOpen[64], nOpen; } aThread[8];
  int nThread = 0, i;
  char *z = tl_test_read_file(zPath, 0), *zLine, *zSave = 0;
  assert_non_null(z);
  for(zLine=strtok_r(z, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
    long long s, ns, iTid;
    char zName[128];
    const char *zVtid = strstr(zLine, "vtid = "), *zAddr = strstr(zLine, "addr = ");
    int e;
    assert_int_equal(sscanf(zLine, "[%lld.%lld]", &s, &ns), 2);
    /* the event name ("provider:event") and its colon, up to the space */
    assert_int_equal(sscanf(strchr(zLine, ']') + 2, "%127s", zName), 1);
    zName[strlen(zName)-1] = 0;
    e = span_kind(zName, strlen(zName));
    if( e==0 ) continue;
    assert_non_null(zVtid);
    iTid = atoll(zVtid + 7);
    for(i=0; i<nThread && aThread[i].iTid!=iTid; i++){}
    if( i==nThread ){
      assert_true(nThread<8);
      aThread[nThread].iTid = iTid;
      aThread[nThread++].nOpen = 0;
    }
    if( e<0 ){
      if( aThread[i].nOpen>0 ) pSet->a[aThread[i].aOpen[--aThread[i].nOpen]].iEnd = s*1000000000LL + ns;
      continue;
    }
    assert_true(pSet->n<256 && aThread[i].nOpen<64);
    pSet->a[pSet->n].iTid = iTid;
    pSet->a[pSet->n].iDepth = aThread[i].nOpen;
    pSet->a[pSet->n].iStart = s*1000000000LL + ns;
    pSet->a[pSet->n].iEnd = -1;
    if( strstr(zName, ":func_entry") ){
      assert_non_null(zAddr);
      snprintf(pSet->a[pSet->n].zName, sizeof(pSet->a[0].zName), "%#llx", strtoull(zAddr + 7, 0, 16));
    }else if( strncmp(zName, "syscall_entry_", 14)==0 ){
      snprintf(pSet->a[pSet->n].zName, sizeof(pSet->a[0].zName), "%s", zName + 14);
    }else{
      snprintf(pSet->a[pSet->n].zName, sizeof(pSet->a[0].zName), "%.*s", (int)strlen(zName) - 6, zName);
    }
    aThread[i].aOpen[aThread[i].nOpen++] = pSet->n++;
  }
  free(z);
}

/* speedscope_replay()'s spans of one thread of the export */
typedef struct SpanCtx { SpanSet *pSet; const char **azFrame; long long iTid; int64_t iEndValue; } SpanCtx;

static void collect_span(void *pArg, const int *aStack, int nStack, int64_t iStart, int64_t iEnd){
  SpanCtx *p = pArg;
  Span1 *q;
  assert_true(p->pSet->n<256);
  q = &p->pSet->a[p->pSet->n++];
  q->iTid = p->iTid;
  q->iDepth = nStack - 1;
  q->iStart = iStart;
  q->iEnd = iEnd==p->iEndValue ? -1 : iEnd;
  snprintf(q->zName, sizeof(q->zName), "%s", p->azFrame[aStack[nStack-1]]);
}

static void speedscope_spans_equal_babeltrace2_pairs(void **state){
  static const char *const az[] = { "ctf/spans", "ctf/cyg-profile" };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(az)/sizeof(az[0]); k++){
    char zTrace[256], zRef[256];
    const char *azFrame[64];
    SpanSet *pGot = calloc(1, sizeof(SpanSet)), *pWant = calloc(1, sizeof(SpanSet));
    SpanCtx ctx;
    const TlJv *p;
    int64_t iGot0 = INT64_MAX, iWant0 = INT64_MAX;
    int nFrame, i, nOpen = 0;
    char *z;
    TlJvDoc doc;
    snprintf(zTrace, sizeof(zTrace), TD "%s/trace", az[k]);
    snprintf(zRef, sizeof(zRef), TD "%s/trace.bt2.txt", az[k]);
    bt2_spans(zRef, pWant);
    z = run_sql_file(db, "speedscope-spans.sql", zTrace, 0);
    parse_json(&doc, z);
    nFrame = speedscope_frames(&doc, azFrame);
    ctx.pSet = pGot;
    ctx.azFrame = azFrame;
    for(p=tl_jv_get(doc.pRoot, "profiles")->pFirst; p; p=p->pNext){
      ctx.iTid = atoll(tl_jv_get(p, "name")->z + 4);
      assert_int_equal(tl_jv_int(tl_jv_get(p, "endValue"), &ctx.iEndValue), 0);
      speedscope_replay(p, nFrame, collect_span, &ctx);
    }
    assert_int_equal(pGot->n, pWant->n);
    for(i=0; i<pGot->n; i++){
      if( pGot->a[i].iStart<iGot0 ) iGot0 = pGot->a[i].iStart;
      if( pWant->a[i].iStart<iWant0 ) iWant0 = pWant->a[i].iStart;
    }
    qsort(pGot->a, (size_t)pGot->n, sizeof(Span1), span1_cmp);
    qsort(pWant->a, (size_t)pWant->n, sizeof(Span1), span1_cmp);
    for(i=0; i<pGot->n; i++){
      const Span1 *g = &pGot->a[i], *w = &pWant->a[i];
      if( g->iTid!=w->iTid || g->iDepth!=w->iDepth || strcasecmp(g->zName, w->zName)!=0
       || g->iStart-iGot0!=w->iStart-iWant0
       || (g->iEnd<0)!=(w->iEnd<0) || (w->iEnd>=0 && g->iEnd-g->iStart!=w->iEnd-w->iStart) ){
        fail_msg("%s: span %d: tid %lld depth %d %s at %lld for %lld ns;"
                 " babeltrace2: tid %lld depth %d %s at %lld for %lld ns", az[k], i,
                 g->iTid, g->iDepth, g->zName, (long long)(g->iStart-iGot0),
                 (long long)(g->iEnd<0 ? -1 : g->iEnd-g->iStart),
                 w->iTid, w->iDepth, w->zName, (long long)(w->iStart-iWant0),
                 (long long)(w->iEnd<0 ? -1 : w->iEnd-w->iStart));
      }
      nOpen += w->iEnd<0;
    }
    assert_true(nOpen>0);          /* both traces end with spans open */
    tl_jv_free(&doc);
    free(pGot);
    free(pWant);
    free(z);
  }
  tl_test_db_close(db);
}

/* ---- trace_files() ------------------------------------------------------- */

/* tmpdir/runs/ with one trace of each format (a CTF directory among them) and a text file. */
static const char *make_runs(void){
  static char zDir[512];
  static const char *const az[][2] = {
    { "a.data", "perf/multi.data" }, { "b.data", "xray/fdr.xray" },
    { "c.data", "cpel/demo.cpel" }, { "d.data", "ctf/ust-pid" },
  };
  char zLink[600], zTarget[600];
  size_t k;
  snprintf(zDir, sizeof(zDir), "%s/runs", tl_test_tmpdir());
  if( access(zDir, F_OK)==0 ) return zDir;
  assert_int_equal(tl_test_mkdirs(zDir), 0);
  for(k=0; k<sizeof(az)/sizeof(az[0]); k++){
    snprintf(zLink, sizeof(zLink), "%s/%s", zDir, az[k][0]);
    snprintf(zTarget, sizeof(zTarget), TD "%s", az[k][1]);
    assert_int_equal(symlink(zTarget, zLink), 0);
  }
  snprintf(zLink, sizeof(zLink), "%s/e.data", zDir);
  assert_int_equal(tl_test_write_file(zLink, "not a trace\n", 12), 0);
  snprintf(zLink, sizeof(zLink), "%s/notes.txt", zDir);
  assert_int_equal(tl_test_write_file(zLink, "x", 1), 0);
  return zDir;
}

/* Rows of events for each format, from the reference tools' outputs. */
static char *expected_counts(const char *zDir){
  char *z = sqlite3_mprintf(
      "%s/a.data|perf|%d\n%s/b.data|xray|%d\n%s/c.data|cpel|300\n%s/d.data|ctf|%lld",
      zDir, count_lines(TD "perf/multi.script.txt", ""),
      zDir, count_lines(TD "xray/fdr.yaml", "kind: "),
      zDir, zDir, counts_value(TD "ctf/ust-pid.counts.txt", "events"));
  char *zOut = strdup(z);
  sqlite3_free(z);
  return zOut;
}

/*
** The README's query over many traces of mixed formats: perf samples (as
** perf script prints them), XRay records (llvm-xray convert), CPEL events
** and a CTF directory's events (babeltrace2).
*/
static void trace_files_join_counts_every_format(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = make_runs();
  char *zGot, *zWant = expected_counts(zDir);
  (void)state;
  zGot = tl_test_sql_rows(db,
      "SELECT f.path, f.format, count(*) FROM trace_files('%q/*.data') f, events(f.path) e"
      " WHERE f.format IS NOT NULL AND (f.format <> 'perf' OR e.type = 'SAMPLE')"
      " GROUP BY 1 ORDER BY 1", zDir);
  assert_string_equal(zGot, zWant);
  free(zGot);
  free(zWant);
  tl_test_db_close(db);
}

/* Columns: sorted paths, sizes from stat, kinds, formats (NULL: not a trace). */
static void trace_files_columns(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = make_runs();
  char *z, *zWant;
  size_t nPerf = 0;
  void *a = tl_test_read_file(TD "perf/multi.data", &nPerf);
  (void)state;
  free(a);
  z = tl_test_sql_rows(db, "SELECT substr(path, length(%Q)+2), kind, format FROM trace_files('%q/*')",
                       zDir, zDir);
  assert_string_equal(z, "a.data|file|perf\nb.data|file|xray\nc.data|file|cpel\n"
                         "d.data|dir|ctf\ne.data|file|\nnotes.txt|file|");
  free(z);
  assert_int_equal(tl_test_sql_int(db, "SELECT size FROM trace_files('%q/a.data')", zDir), (int64_t)nPerf);
  assert_int_equal(tl_test_sql_int(db, "SELECT size FROM trace_files('%q/e.data')", zDir), 12);
  /* a directory's size: the bytes of the files beneath it */
  assert_true(tl_test_sql_int(db, "SELECT size FROM trace_files('%q/d.data')", zDir) > 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_files('%q/nothing-*')", zDir), 0);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM trace_files('%q/?.data') WHERE format IS NULL", zDir), 1);
  zWant = tl_test_sql_error(db, "SELECT * FROM trace_files");
  assert_non_null(zWant);
  assert_non_null(strstr(zWant, "trace_files: no pattern given"));
  free(zWant);
  tl_test_db_close(db);
}

/*
** Traces joined with the user's own database: a table of runs in an
** ATTACHed file names the traces; trace_files() in a view stored in that
** file is refused (DIRECTONLY), as the other tables are.
*/
static void trace_files_join_attached_database(void **state){
  sqlite3 *db = tl_test_db();
  const char *zDir = make_runs();
  char zDb[600];
  char *z, *zWant;
  (void)state;
  snprintf(zDb, sizeof(zDb), "%s/builds.db", tl_test_tmpdir());
  unlink(zDb);
  z = sqlite3_mprintf(
      "ATTACH %Q AS b;"
      "CREATE TABLE b.runs(file TEXT, build TEXT);"
      "INSERT INTO b.runs VALUES('a.data', 'v1'), ('c.data', 'v2'), ('d.data', 'v2');"
      "CREATE VIEW b.all_files AS SELECT * FROM trace_files('*');", zDb);
  assert_int_equal(sqlite3_exec(db, z, 0, 0, 0), SQLITE_OK);
  sqlite3_free(z);
  zWant = sqlite3_mprintf("v1|%d\nv2|%lld", count_lines(TD "perf/multi.script.txt", ""),
                          300 + counts_value(TD "ctf/ust-pid.counts.txt", "events"));
  z = tl_test_sql_rows(db,
      "SELECT r.build, count(*) FROM b.runs r"
      " JOIN trace_files('%q/*.data') f ON f.path = %Q || '/' || r.file, events(f.path) e"
      " WHERE f.format <> 'perf' OR e.type = 'SAMPLE' GROUP BY 1 ORDER BY 1", zDir, zDir);
  assert_string_equal(z, zWant);
  free(z);
  sqlite3_free(zWant);
  z = tl_test_sql_error(db, "SELECT count(*) FROM b.all_files");
  assert_non_null(z);
  assert_non_null(strstr(z, "unsafe use of virtual table"));
  free(z);
  tl_test_db_close(db);
}

/* ---- progress= ----------------------------------------------------------- */

/*
** Run zSql with stderr sent to a file; return what was written there
** (malloc'd, "" when nothing).
*/
static char *stderr_of(sqlite3 *db, const char *zSql){
  char zPath[512];
  char *z;
  int fdSave, fd;
  snprintf(zPath, sizeof(zPath), "%s/stderr.txt", tl_test_tmpdir());
  fflush(stderr);
  fdSave = dup(2);
  fd = open(zPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fdSave>=0 && fd>=0);
  dup2(fd, 2);
  close(fd);
  z = tl_test_sql_rows(db, "%s", zSql);
  fflush(stderr);
  dup2(fdSave, 2);
  close(fdSave);
  free(z);
  z = tl_test_read_file(zPath, 0);
  assert_non_null(z);
  return z;
}

/*
** progress=on reports the index build and the scan with the file's size as
** the total (a CTF count by name's helper threads included); off and auto
** (stderr is not a terminal here) say nothing.
*/
static void progress_on_reports_index_and_scan_on_stderr(void **state){
  sqlite3 *db = tl_test_db();
  char zWant[128], zCopy[512], zSql[1024];
  char *z;
  size_t nFile = 0;
  void *a = tl_test_read_file(TD "perf/multi.data", &nFile);
  (void)state;
  /* a copy no other test has opened, so that this process indexes it here */
  assert_non_null(a);
  snprintf(zCopy, sizeof(zCopy), "%s/progress-multi.data", tl_test_tmpdir());
  assert_int_equal(tl_test_write_file(zCopy, a, nFile), 0);
  free(a);
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM events('%s', 'progress=on')", zCopy);
  z = stderr_of(db, zSql);
  /* the index build: every byte of the file, then the scan of the data */
  snprintf(zWant, sizeof(zWant), "tracelite: indexing progress-multi.data: %.1f KiB of %.1f KiB (100%%)",
           (double)nFile/1024.0, (double)nFile/1024.0);
  assert_non_null(strstr(z, zWant));
  assert_non_null(strstr(z, ", done in "));
  assert_non_null(strstr(z, "tracelite: scanning progress-multi.data: "));
  free(z);
  /* progress= is not part of the cache key: the trace is open, so the same
  ** query, and one with progress=off or without it, index nothing again,
  ** and each reports its scan as its own option says */
  z = stderr_of(db, zSql);
  assert_null(strstr(z, "indexing"));
  assert_non_null(strstr(z, "tracelite: scanning progress-multi.data: "));
  free(z);
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM events('%s', 'progress=off')", zCopy);
  z = stderr_of(db, zSql);
  assert_string_equal(z, "");
  free(z);
  /* a CTF directory: its total is the bytes of the files beneath it */
  z = stderr_of(db, "SELECT count(*) FROM events('" TD "ctf/ust-pid', 'progress=on')");
  snprintf(zWant, sizeof(zWant), "tracelite: indexing ust-pid: ");
  assert_non_null(strstr(z, zWant));
  free(z);
  /* a CTF count by name: the packets its helper threads count are the
  ** scan's, every one of them by its last line */
  z = stderr_of(db, "SELECT name, count(*) FROM events('" TD "ctf/ust-multi', 'progress=on') GROUP BY name");
  {
    const char *zLast = 0, *zAt = z;
    char zLine[256];
    size_t n;
    while( (zAt = strstr(zAt, "tracelite: scanning ust-multi: "))!=0 ) zLast = zAt++;
    assert_non_null(zLast);
    n = strcspn(zLast, "\n");
    assert_true(n < sizeof(zLine));
    memcpy(zLine, zLast, n);
    zLine[n] = 0;
    /* (a rate comes between the two when the scan took over 10 ms) */
    assert_non_null(strstr(zLine, "KiB (100%)"));
    assert_non_null(strstr(zLine, ", done in "));
  }
  free(z);
  z = stderr_of(db, "SELECT count(*) FROM events('" TD "perf/zstd.data', 'progress=off')");
  assert_string_equal(z, "");
  free(z);
  z = stderr_of(db, "SELECT count(*) FROM events('" TD "perf/switch.data')");
  assert_string_equal(z, "");
  free(z);
  z = stderr_of(db, "SELECT count(*) FROM events('" TD "perf/switch.data', 'progress=auto')");
  assert_string_equal(z, "");
  free(z);
  z = tl_test_sql_error(db, "SELECT count(*) FROM events('" TD "perf/switch.data', 'progress=yes')");
  assert_non_null(z);
  assert_non_null(strstr(z, "progress=yes: expected auto, on or off"));
  free(z);
  tl_test_db_close(db);
}

/* ---- examples/query.py ----------------------------------------------------- */

/* Run examples/query.py (Debian's python3) with zArgs; its stdout, malloc'd. */
static char *run_python(const char *zArgs){
  char zCmd[2048];
  char *zOut = 0;
  size_t n = 0, nAlloc = 0;
  FILE *f;
  int c;
  snprintf(zCmd, sizeof(zCmd), "'%s' '" TL_TESTDATA_DIR "/../examples/query.py'"
           " --so '" TL_BUILD_DIR "/tracelite.so' %s", TL_PYTHON, zArgs);
  f = popen(zCmd, "r");
  assert_non_null(f);
  while( (c = fgetc(f))!=EOF ){
    if( n+2>nAlloc ){
      nAlloc = nAlloc ? nAlloc*2 : 4096;
      zOut = realloc(zOut, nAlloc);
      assert_non_null(zOut);
    }
    zOut[n++] = (char)c;
  }
  if( pclose(f)!=0 ) fail_msg("python failed: %s", zCmd);
  if( zOut==0 ) zOut = strdup("");
  else zOut[n] = 0;
  return zOut;
}

/*
** The example's events per name on perf.data equal perf script's lines:
** the count of each event, its first and last time (perf script prints
** microseconds).
*/
static void python_example_counts_equal_perf_script(void **state){
  static const char *const azEv[] = { "cpu-clock", "task-clock" };
  char *zOut, *zScript, *zLine, *zSave = 0;
  char zWant[256];
  size_t k;
  (void)state;
  if( !TL_OTHER_PROCESS_CAN_LOAD ) skip_because("a sanitizer build cannot be loaded by python3");
  if( access(TL_PYTHON, X_OK)!=0 ) skip_because(TL_PYTHON " is not installed");
  zOut = run_python("'" TD "perf/multi.data'");
  for(k=0; k<2; k++){
    long long nEv = 0, usFirst = -1, usLast = -1;
    zScript = tl_test_read_file(TD "perf/multi.script.txt", 0);
    assert_non_null(zScript);
    for(zLine=strtok_r(zScript, "\n", &zSave); zLine; zLine=strtok_r(0, "\n", &zSave)){
      char zName[64];
      long long sec, us, period;
      const char *p = strchr(zLine, ']');
      if( p==0 || sscanf(p+1, " %lld.%lld: %lld %63[^:]:", &sec, &us, &period, zName)!=4 ) continue;
      if( strcmp(zName, azEv[k]) ) continue;
      nEv++;
      if( usFirst<0 ) usFirst = sec*1000000 + us;
      usLast = sec*1000000 + us;
    }
    free(zScript);
    assert_true(nEv>0);
    /* ts is ns: its microseconds are what perf script shows */
    snprintf(zWant, sizeof(zWant), TD "perf/multi.data\t%s\t%lld\t%lld", azEv[k], nEv, usFirst);
    zLine = strstr(zOut, zWant);
    if( zLine==0 ) fail_msg("want \"%s...\" in:\n%s", zWant, zOut);
    zLine += strlen(zWant);
    assert_true(zLine[0]>='0' && zLine[0]<='9' && zLine[3]=='\t');
    assert_int_equal(atoll(zLine+4)/1000, usLast);
  }
  free(zOut);
}

/* The example's Chrome export: valid JSON with one event per babeltrace2 event. */
static void python_example_exports_chrome_json(void **state){
  char zPath[512], zArgs[1024];
  char *z;
  (void)state;
  if( !TL_OTHER_PROCESS_CAN_LOAD ) skip_because("a sanitizer build cannot be loaded by python3");
  if( access(TL_PYTHON, X_OK)!=0 ) skip_because(TL_PYTHON " is not installed");
  snprintf(zPath, sizeof(zPath), "%s/py-chrome.json", tl_test_tmpdir());
  snprintf(zArgs, sizeof(zArgs), "--chrome '%s' '" TD "ctf/ust-multi'", zPath);
  free(run_python(zArgs));
  z = tl_test_read_file(zPath, 0);
  assert_non_null(z);
  check_instants(z, (int)counts_value(TD "ctf/ust-multi.counts.txt", "events"));
  free(z);
}

/* ---- make install / uninstall ------------------------------------------------ */

/* Mode bits of zPath, or -1 when it does not exist. */
static int mode_of(const char *zPath){
  struct stat st;
  return stat(zPath, &st) ? -1 : (int)(st.st_mode & 07777);
}

/*
** make install into a staging DESTDIR puts the extension in PREFIX/lib and
** the sql/ library in PREFIX/share/tracelite/sql, usable from there; make
** uninstall takes everything away again.
*/
static void make_install_and_uninstall_under_destdir(void **state){
  char zDest[512], zCmd[2048], zPath[600];
  char *z;
  sqlite3 *db;
  (void)state;
  snprintf(zDest, sizeof(zDest), "%s/dest", tl_test_tmpdir());
  snprintf(zCmd, sizeof(zCmd),
      "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '" TL_TESTDATA_DIR "/..'"
      " BUILD='" TL_BUILD_NAME "' DESTDIR='%s' PREFIX=/opt/tl install >/dev/null", zDest);
  assert_int_equal(system(zCmd), 0);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/lib/tracelite.so", zDest);
  assert_int_equal(mode_of(zPath), 0755);
  /* the installed extension loads and runs the installed sql/ files */
  db = 0;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  sqlite3_enable_load_extension(db, 1);
  assert_int_equal(sqlite3_load_extension(db, zPath, 0, 0), SQLITE_OK);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/share/tracelite/sql/chrome-events.sql", zDest);
  assert_int_equal(mode_of(zPath), 0644);
  z = tl_test_read_file(zPath, 0);
  assert_non_null(z);
  {
    char *zRows = run_sql_text(db, z, TD "ctf/ust-pid", 0);
    check_instants(zRows, (int)counts_value(TD "ctf/ust-pid.counts.txt", "events"));
    free(zRows);
  }
  free(z);
  sqlite3_close(db);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/share/tracelite/sql/xray_account.sql", zDest);
  assert_int_equal(mode_of(zPath), 0644);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/share/tracelite/examples/query.py", zDest);
  assert_int_equal(mode_of(zPath), 0755);
  /* uninstall: nothing of ours is left, the lib directory stays */
  snprintf(zCmd, sizeof(zCmd),
      "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '" TL_TESTDATA_DIR "/..'"
      " BUILD='" TL_BUILD_NAME "' DESTDIR='%s' PREFIX=/opt/tl uninstall >/dev/null 2>&1", zDest);
  assert_int_equal(system(zCmd), 0);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/lib/tracelite.so", zDest);
  assert_int_equal(mode_of(zPath), -1);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/share/tracelite", zDest);
  assert_int_equal(mode_of(zPath), -1);
  snprintf(zPath, sizeof(zPath), "%s/opt/tl/lib", zDest);
  assert_true(mode_of(zPath)>=0);
}

TL_DEFINE_GROUP(tooling,
  cmocka_unit_test(chrome_events_perf_counts_equal_perf_script),
  cmocka_unit_test(chrome_events_ctf_counts_equal_babeltrace2),
  cmocka_unit_test(chrome_events_ctf_counters_equal_babeltrace2),
  cmocka_unit_test(chrome_events_perf_profile_counts_equal_folded),
  cmocka_unit_test(chrome_events_perf_profile_times_equal_perf_script),
  cmocka_unit_test(chrome_events_perf_read_counters_equal_perf_script),
  cmocka_unit_test(chrome_events_cpel_has_every_event_and_track_name),
  cmocka_unit_test(chrome_events_through_the_sqlite3_shell),
  cmocka_unit_test(chrome_xray_matches_llvm_xray_trace_event),
  cmocka_unit_test(speedscope_calls_replay_equals_llvm_xray_stack),
  cmocka_unit_test(speedscope_spans_equal_babeltrace2_pairs),
  cmocka_unit_test(trace_files_join_counts_every_format),
  cmocka_unit_test(trace_files_columns),
  cmocka_unit_test(trace_files_join_attached_database),
  cmocka_unit_test(progress_on_reports_index_and_scan_on_stderr),
  cmocka_unit_test(python_example_counts_equal_perf_script),
  cmocka_unit_test(python_example_exports_chrome_json),
  cmocka_unit_test(make_install_and_uninstall_under_destdir),
);
