/*
** test_accel.c: every accelerated path checked against the plain scan.
**
** For every trace under testdata/ and, when it is there, under the peer
** traces folder, each query shape runs twice through the extension, with
** the options '' and 'accel=off', and the answers must be the same rows
** (compared as sorted lists; ORDER BY answers in order) or the same error.
** accel=off asks the readers for a plain per-record scan (TlFilter.bPlain)
** and the engine checks that they give one, so the two answers come from
** two different computations.
**
** A failing trace prints one line naming the shapes that differ.
** TL_PEER_DIR in the environment overrides the folder the build names.
*/
#include "tltest.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpel_writer.h"
#include "ctf_writer.h"
#include "group.h"
#include "count.h"
#include "trace.h"

#define TD TL_TESTDATA_DIR "/"
#define ACCEL_MAX_DEPTH 8          /* folder levels walked below a root */
#define ACCEL_ORDER_LIMIT 50       /* rows of the ORDER BY ts shape */

/* What a shape needs besides the path and the options. */
#define SHAPE_PLAIN  0
#define SHAPE_WINDOW 1             /* a ts window: two bounds */
#define SHAPE_EVENT  2             /* a sample's rowid */

typedef struct Shape Shape;
struct Shape {
  const char *zName;               /* named in failure lines */
  const char *zFmt;                /* sqlite3_mprintf: path, options, a, b */
  int eKind;                       /* SHAPE_* */
  int bOrdered;                    /* SHAPE_TS: ORDER BY ts LIMIT, in ts order;
                                   ** SHAPE_SORTED: every row in order */
};

#define SHAPE_TS     1
#define SHAPE_SORTED 2

static const Shape aShape[] = {
  { "count", "SELECT count(*) FROM events(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "by-name", "SELECT name, count(*) FROM events(%Q, %Q) GROUP BY name", SHAPE_PLAIN, 0 },
  /* (the rowid is no column: the grouped plan stays, and must keep rowids) */
  { "by-name-rowids", "SELECT name, count(*), sum(rowid %% 4294967291) FROM events(%Q, %Q) "
                      "GROUP BY name", SHAPE_PLAIN, 0 },
  { "by-cpu", "SELECT cpu, count(*) FROM events(%Q, %Q) GROUP BY cpu", SHAPE_PLAIN, 0 },
  { "by-type", "SELECT type, count(*) FROM events(%Q, %Q) GROUP BY type", SHAPE_PLAIN, 0 },
  { "distinct-name", "SELECT DISTINCT name FROM events(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "window", "SELECT count(*), sum(rowid %% 4294967291) FROM events(%Q, %Q) "
              "WHERE ts BETWEEN %lld AND %lld", SHAPE_WINDOW, 0 },
  /* (counted rows: their ts, cpu and rowid asked one by one) */
  { "window-values", "SELECT count(*), sum(ts %% 4294967291), sum(ts_raw %% 4294967291), "
                     "sum(cpu), sum(rowid %% 4294967291) FROM events(%Q, %Q) "
                     "WHERE ts BETWEEN %lld AND %lld AND cpu IN (0, 1)", SHAPE_WINDOW, 0 },
  { "window-samples", "SELECT count(*), sum(ts %% 4294967291) FROM events(%Q, %Q) "
                      "WHERE ts BETWEEN %lld AND %lld AND type = 'SAMPLE'", SHAPE_WINDOW, 0 },
  { "cpu1", "SELECT count(*) FROM events(%Q, %Q) WHERE cpu = 1", SHAPE_PLAIN, 0 },
  { "cpu-in", "SELECT count(*) FROM events(%Q, %Q) WHERE cpu IN (0, 1)", SHAPE_PLAIN, 0 },
  { "order-ts", "SELECT ts, cpu, name, rowid FROM events(%Q, %Q) ORDER BY ts LIMIT 50",
    SHAPE_PLAIN, SHAPE_TS },
  /* (rowids may be large: their sum modulo a prime does not overflow) */
  { "rowids", "SELECT count(*), sum(rowid %% 4294967291) FROM events(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "samples", "SELECT count(*) FROM events(%Q, %Q) WHERE type = 'SAMPLE'", SHAPE_PLAIN, 0 },
  { "xray-count", "SELECT count(*) FROM xray_calls(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "xray-by-func", "SELECT func_id, count(*), sum(dur) FROM xray_calls(%Q, %Q) "
                    "GROUP BY func_id", SHAPE_PLAIN, 0 },
  { "xray-by-func-rowids", "SELECT func_id, count(*), sum(rowid %% 4294967291) "
                          "FROM xray_calls(%Q, %Q) GROUP BY func_id", SHAPE_PLAIN, 0 },
  { "xray-by-stack", "SELECT tid, stack, count(*), sum(dur) FROM xray_calls(%Q, %Q) "
                    "GROUP BY tid, stack", SHAPE_PLAIN, 0 },
  { "cc-by-depth", "SELECT depth, count(*) FROM callchains(%Q, %Q) GROUP BY depth",
    SHAPE_PLAIN, 0 },
  { "cc-by-symbol", "SELECT symbol, count(*) FROM callchains(%Q, %Q) GROUP BY symbol",
    SHAPE_PLAIN, 0 },
  { "cc-event", "SELECT * FROM callchains(%Q, %Q) WHERE event = %lld", SHAPE_EVENT, 0 },
  /* (the engine's grouping from the readers' tallies: a depth, rowids) */
  { "cc-by-symbol-depth0", "SELECT symbol, count(*) FROM callchains(%Q, %Q) WHERE depth = 0 "
                           "GROUP BY symbol", SHAPE_PLAIN, 0 },
  { "cc-by-symbol-rowids", "SELECT symbol, count(*), sum(rowid %% 4294967291) "
                           "FROM callchains(%Q, %Q) GROUP BY symbol", SHAPE_PLAIN, 0 },
  { "distinct-symbol-dso", "SELECT DISTINCT symbol, dso FROM callchains(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "by-name-cpu-in", "SELECT name, count(*) FROM events(%Q, %Q) WHERE cpu IN (0, 1) "
                          "GROUP BY name", SHAPE_PLAIN, 0 },
  { "xray-by-func-stats", "SELECT func_id, count(*), min(dur), max(dur), sum(dur) "
                          "FROM xray_calls(%Q, %Q) GROUP BY func_id", SHAPE_PLAIN, 0 },
  /* GROUP BY and DISTINCT on several columns: the engine's grouped output */
  { "by-symbol-dso", "SELECT symbol, dso, count(*), sum(value) FROM events(%Q, %Q) "
                     "GROUP BY symbol, dso", SHAPE_PLAIN, 0 },
  { "by-comm", "SELECT comm, count(*) FROM events(%Q, %Q) GROUP BY comm", SHAPE_PLAIN, 0 },
  { "by-name-cpu-type", "SELECT name, cpu, type, count(*), sum(value), sum(pid) "
                        "FROM events(%Q, %Q) GROUP BY name, cpu, type", SHAPE_PLAIN, 0 },
  { "by-name-cpu-rowids", "SELECT name, cpu, count(*), sum(rowid %% 4294967291) "
                          "FROM events(%Q, %Q) GROUP BY name, cpu", SHAPE_PLAIN, 0 },
  { "distinct-name-cpu", "SELECT DISTINCT name, cpu FROM events(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "samples-by-ip", "SELECT name, ip, symbol, dso_offset, count(*), sum(value) "
                     "FROM events(%Q, %Q) WHERE type = 'SAMPLE' "
                     "GROUP BY name, ip, symbol, dso_offset", SHAPE_PLAIN, 0 },
  { "window-by-name-cpu", "SELECT name, cpu, count(*) FROM events(%Q, %Q) "
                          "WHERE ts BETWEEN %lld AND %lld GROUP BY name, cpu", SHAPE_WINDOW, 0 },
  { "xray-by-func-tid", "SELECT func_id, tid, name, count(*), sum(dur) FROM xray_calls(%Q, %Q) "
                        "GROUP BY func_id, tid", SHAPE_PLAIN, 0 },
  /* (dso grouped on too: [unknown] frames of several files share a
  ** symbol, and a bare column's row in a group is any of them) */
  { "cc-by-depth-symbol", "SELECT depth, symbol, dso, count(*) FROM callchains(%Q, %Q) "
                          "GROUP BY depth, symbol, dso", SHAPE_PLAIN, 0 },
  { "packets-by-cpu", "SELECT cpu, count(*), sum(size) FROM packets(%Q, %Q) GROUP BY cpu",
    SHAPE_PLAIN, 0 },
  { "tracks", "SELECT * FROM tracks(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "symbols", "SELECT * FROM symbols(%Q, %Q)", SHAPE_PLAIN, 0 },
  { "event-types", "SELECT * FROM event_types(%Q, %Q)", SHAPE_PLAIN, 0 },
  /* packets without args: its "reads" counts the scans so far */
  { "packets", "SELECT id, stream, cpu, file, offset, size, content_size, ts_begin, "
               "ts_end, events, discarded, seq FROM packets(%Q, %Q)", SHAPE_PLAIN, 0 },
  /* the scheduling model: its ts window and CPU set */
  { "sched-window", "SELECT count(*), sum(dur), sum(tid), sum(wait_time), sum(runtime) "
                    "FROM sched_slices(%Q, %Q) WHERE ts BETWEEN %lld AND %lld AND cpu IN (0, 1)",
                    SHAPE_WINDOW, 0 },
  { "thread-states", "SELECT state, count(*), sum(dur), sum(waker_tid) FROM thread_states(%Q, %Q) "
                     "GROUP BY state", SHAPE_PLAIN, 0 },
  { "syscalls", "SELECT count(*), count(dur), sum(dur), sum(nr), sum(ret), sum(tid) "
                "FROM syscalls(%Q, %Q) WHERE ts BETWEEN %lld AND %lld AND cpu IN (0, 1)",
                SHAPE_WINDOW, 0 },
  /* text, args and callchain worked out only for the rows SQLite keeps
  ** (perf: TL_LAZY), in a filtered scan, in ts order and grouped */
  { "args-where-name", "SELECT count(*), sum(length(args)), sum(length(text)), "
                       "sum(length(callchain)) FROM events(%Q, %Q) "
                       "WHERE name GLOB '*switch*' OR type = 'COMM' OR rowid %% 7 = 0", SHAPE_PLAIN, 0 },
  { "args-order-ts", "SELECT ts, args, text, callchain FROM events(%Q, %Q) ORDER BY ts LIMIT 300",
    SHAPE_PLAIN, SHAPE_TS },
  { "args-by-name", "SELECT name, count(*), max(args), min(text), max(callchain) "
                    "FROM events(%Q, %Q) GROUP BY name", SHAPE_PLAIN, 0 },
  /* the model tables grouped with their columns of one value per row
  ** (durations, ends, waits, parents) varying within a group */
  { "syscalls-by-tid-nr", "SELECT tid, nr, name, count(*), sum(dur), min(dur), max(ts_end), "
                          "sum(ret < 0) FROM syscalls(%Q, %Q) GROUP BY tid, nr, name", SHAPE_PLAIN, 0 },
  { "slices-by-tid-cpu", "SELECT tid, cpu, count(*), sum(dur), max(ts_end), sum(wait_time), "
                         "max(sched_delay), sum(runtime) FROM sched_slices(%Q, %Q) "
                         "GROUP BY tid, cpu", SHAPE_PLAIN, 0 },
  { "states-by-tid", "SELECT tid, state, count(*), sum(dur), max(ts_end), sum(runtime) "
                     "FROM thread_states(%Q, %Q) GROUP BY tid, state", SHAPE_PLAIN, 0 },
  { "calls-by-func", "SELECT func_id, name, count(*), sum(dur), max(parent), min(id) "
                     "FROM calls(%Q, %Q) GROUP BY func_id", SHAPE_PLAIN, 0 },
  /* calls: its ts window and CPU set filter the calls, not the records matched */
  { "calls-window", "SELECT count(*), count(dur), sum(dur), sum(depth), sum(id %% 4294967291) "
                    "FROM calls(%Q, %Q) WHERE ts BETWEEN %lld AND %lld AND cpu IN (0, 1)",
                    SHAPE_WINDOW, 0 },
  { "calls-by-stack", "SELECT tid, stack, count(*), sum(dur) FROM calls(%Q, %Q) "
                      "GROUP BY tid, stack", SHAPE_PLAIN, 0 },
  /* the calls summed per function, and per thread and stack, by the engine,
  ** from whichever scan of calls */
  { "call-stats", "SELECT * FROM call_stats(%Q, %Q)", SHAPE_PLAIN, SHAPE_SORTED },
  { "call-stacks", "SELECT * FROM call_stacks(%Q, %Q)", SHAPE_PLAIN, SHAPE_SORTED },
  /* GROUP BY with an ORDER BY on the same terms: SQLite (3.40) asks the table
  ** for groups only (sqlite3_vtab_distinct 1) and then takes its order as the
  ** ORDER BY's, so grouped output must come sorted as the terms say */
  { "by-name-sorted", "SELECT name, count(*) FROM events(%Q, %Q) GROUP BY name ORDER BY name",
    SHAPE_PLAIN, SHAPE_SORTED },
  { "by-name-desc", "SELECT name, count(*) FROM events(%Q, %Q) GROUP BY name "
                    "ORDER BY name DESC", SHAPE_PLAIN, SHAPE_SORTED },
  { "by-comm-sorted", "SELECT comm, count(*) FROM events(%Q, %Q) GROUP BY comm ORDER BY comm",
    SHAPE_PLAIN, SHAPE_SORTED },
  { "by-cpu-name-sorted", "SELECT cpu, name, count(*) FROM events(%Q, %Q) GROUP BY name, cpu "
                          "ORDER BY cpu DESC, name", SHAPE_PLAIN, SHAPE_SORTED },
  { "distinct-name-sorted", "SELECT DISTINCT name FROM events(%Q, %Q) ORDER BY name DESC",
    SHAPE_PLAIN, SHAPE_SORTED },
  { "xray-by-func-sorted", "SELECT func_id, count(*) FROM xray_calls(%Q, %Q) "
                           "GROUP BY func_id ORDER BY func_id DESC", SHAPE_PLAIN, SHAPE_SORTED },
  { "xray-by-func-asc", "SELECT func_id, count(*), sum(dur) FROM xray_calls(%Q, %Q) "
                        "GROUP BY func_id ORDER BY func_id", SHAPE_PLAIN, SHAPE_SORTED },
  { "cc-by-symbol-sorted", "SELECT symbol, count(*) FROM callchains(%Q, %Q) "
                           "GROUP BY symbol ORDER BY symbol", SHAPE_PLAIN, SHAPE_SORTED },
  { "calls-by-name-sorted", "SELECT name, count(*) FROM calls(%Q, %Q) "
                            "GROUP BY name ORDER BY name", SHAPE_PLAIN, SHAPE_SORTED },
  /* one type, or two (IN: a scan per value): perf reads the chunks that hold it */
  { "lost", "SELECT type, cpu, count(*), sum(args->>'lost'), sum(rowid %% 4294967291), "
            "sum(ts %% 4294967291) FROM events(%Q, %Q) WHERE type IN ('LOST', 'LOST_SAMPLES') "
            "GROUP BY type, cpu", SHAPE_PLAIN, 0 },
  { "mmap2-count", "SELECT count(*) FROM events(%Q, %Q) WHERE type = 'MMAP2'", SHAPE_PLAIN, 0 },
  /* GROUP BY with other columns of one value per row: the engine keeps
  ** them varying within a group (durs by function, ts by name); rowids
  ** paired with them; also with two varying columns */
  { "xray-by-func-stats-desc", "SELECT func_id, count(*), count(dur), min(dur), max(dur), sum(dur) "
                               "FROM xray_calls(%Q, %Q) GROUP BY func_id ORDER BY func_id DESC",
                               SHAPE_PLAIN, SHAPE_SORTED },
  { "xray-by-func-dur-rowids", "SELECT func_id, name, sum(dur), "
                               "sum((rowid %% 4294967291) * (coalesce(dur, 7) %% 1000)) "
                               "FROM xray_calls(%Q, %Q) GROUP BY func_id", SHAPE_PLAIN, 0 },
  { "xray-by-tid-func-ts", "SELECT tid, func_id, min(ts), max(ts), sum(dur), max(depth) "
                           "FROM xray_calls(%Q, %Q) GROUP BY tid, func_id", SHAPE_PLAIN, 0 },
  { "by-name-ts", "SELECT name, count(*), min(ts), max(ts) FROM events(%Q, %Q) GROUP BY name",
    SHAPE_PLAIN, 0 },
  { "by-name-ts-desc", "SELECT name, count(*), min(ts), max(ts) FROM events(%Q, %Q) "
                       "GROUP BY name ORDER BY name DESC", SHAPE_PLAIN, SHAPE_SORTED },
  { "by-name-ts-rowids", "SELECT name, min(ts), sum((rowid %% 4294967291) * (ts %% 1000)) "
                         "FROM events(%Q, %Q) GROUP BY name", SHAPE_PLAIN, 0 },
  { "calls-by-name-dur", "SELECT name, count(*), min(dur), max(dur), sum(dur), min(ts) "
                         "FROM calls(%Q, %Q) GROUP BY name ORDER BY name", SHAPE_PLAIN, SHAPE_SORTED },
};

/* One answer: its rows as text lines, or its error. */
typedef struct Answer Answer;
struct Answer {
  char *zErr;                      /* the error message, or NULL */
  TlLines rows;                    /* "type:value|..." per row */
  TlLines ts;                      /* bOrdered: the ts column, in order */
};

static void answer_free(Answer *p){
  free(p->zErr);
  tl_lines_free(&p->rows);
  tl_lines_free(&p->ts);
  memset(p, 0, sizeof(*p));
}

/* Column i of the current row as "<type letter>:<text>". */
static void append_value(sqlite3_str *pOut, sqlite3_stmt *pStmt, int i){
  switch( sqlite3_column_type(pStmt, i) ){
    case SQLITE_NULL:    sqlite3_str_appendall(pOut, "n:"); break;
    case SQLITE_INTEGER: sqlite3_str_appendf(pOut, "i:%lld", sqlite3_column_int64(pStmt, i)); break;
    case SQLITE_FLOAT:   sqlite3_str_appendf(pOut, "r:%.17g", sqlite3_column_double(pStmt, i)); break;
    case SQLITE_BLOB:    sqlite3_str_appendf(pOut, "b:%d", sqlite3_column_bytes(pStmt, i)); break;
    default:
      sqlite3_str_appendf(pOut, "t:%s", (const char*)sqlite3_column_text(pStmt, i));
      break;
  }
}

/*
** Run zSql with the texts azBind[0..nBind) bound to ?1, ?2, ...; rows into
** p->rows (and, bOrdered, column 0 into p->ts).
*/
static void answer_run_bound(sqlite3 *db, const char *zSql, const char *const *azBind,
                             int nBind, int bOrdered, Answer *p){
  sqlite3_stmt *pStmt = 0;
  int rc, iBind;
  memset(p, 0, sizeof(*p));
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  for(iBind=0; pStmt && iBind<nBind; iBind++){
    sqlite3_bind_text(pStmt, iBind+1, azBind[iBind], -1, SQLITE_STATIC);
  }
  while( pStmt && (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    sqlite3_str *pRow = sqlite3_str_new(0);
    char *z;
    int i, n = sqlite3_column_count(pStmt);
    for(i=0; i<n; i++){
      if( i ) sqlite3_str_appendchar(pRow, 1, '|');
      append_value(pRow, pStmt, i);
    }
    z = sqlite3_str_finish(pRow);
    assert_non_null(z);
    tl_lines_add(&p->rows, z);
    sqlite3_free(z);
    if( bOrdered ){
      sqlite3_str *pTs = sqlite3_str_new(0);
      append_value(pTs, pStmt, 0);
      z = sqlite3_str_finish(pTs);
      assert_non_null(z);
      tl_lines_add(&p->ts, z);
      sqlite3_free(z);
    }
  }
  if( rc!=SQLITE_DONE ){
    p->zErr = strdup(sqlite3_errmsg(db));
    assert_non_null(p->zErr);
  }
  sqlite3_finalize(pStmt);
}

static void answer_run(sqlite3 *db, const char *zSql, int bOrdered, Answer *p){
  answer_run_bound(db, zSql, 0, 0, bOrdered, p);
}

/*
** Rows of an ORDER BY ts LIMIT answer whose ts is not the last one's: rows
** of equal ts may come in any order, so the last ts's rows may be others.
*/
static void drop_last_ts(Answer *p){
  size_t n = p->rows.n;
  const char *zLast;
  if( n==0 ) return;
  zLast = p->ts.az[n-1];
  while( n>0 && strcmp(p->ts.az[n-1], zLast)==0 ){
    n--;
    free(p->rows.az[n]);
  }
  p->rows.n = n;
}

/* Write into zOut why lists a and b differ, or return 0 when they do not. */
static int lines_differ(const TlLines *a, const TlLines *b, char *zOut, size_t nOut){
  size_t i;
  for(i=0; i<a->n && i<b->n; i++){
    if( strcmp(a->az[i], b->az[i])!=0 ){
      snprintf(zOut, nOut, "row %zu: '%.60s' with accel, '%.60s' with accel=off",
               i+1, a->az[i], b->az[i]);
      return 1;
    }
  }
  if( a->n!=b->n ){
    snprintf(zOut, nOut, "%zu rows with accel, %zu with accel=off", a->n, b->n);
    return 1;
  }
  return 0;
}

/*
** Compare the two answers of one shape. Returns 0 when they agree, else 1
** with the difference in zOut.
*/
static int answers_differ(Answer *pOn, Answer *pOff, int bOrdered,
                          char *zOut, size_t nOut){
  if( pOn->zErr || pOff->zErr ){
    if( pOn->zErr && pOff->zErr && strcmp(pOn->zErr, pOff->zErr)==0 ) return 0;
    snprintf(zOut, nOut, "error '%.100s' with accel, '%.100s' with accel=off",
             pOn->zErr ? pOn->zErr : "(none)", pOff->zErr ? pOff->zErr : "(none)");
    return 1;
  }
  if( bOrdered==SHAPE_SORTED ) return lines_differ(&pOn->rows, &pOff->rows, zOut, nOut);
  if( bOrdered==SHAPE_TS ){
    if( lines_differ(&pOn->ts, &pOff->ts, zOut, nOut) ) return 1;
    drop_last_ts(pOn);
    drop_last_ts(pOff);
  }
  tl_lines_sort(&pOn->rows);
  tl_lines_sort(&pOff->rows);
  return lines_differ(&pOn->rows, &pOff->rows, zOut, nOut);
}

/* Values the shapes need, found with the default options. */
typedef struct TraceFacts TraceFacts;
struct TraceFacts {
  int bWindow;                     /* the trace has timestamps */
  int64_t tsLo, tsHi;              /* 1/3 and 2/3 of [min(ts), max(ts)] */
  int bEvent;                      /* a sample with a callchain */
  int64_t iEvent;                  /* its rowid */
};

/* Run a one-row query of two integers; 1 when both are there. */
static int query_two_ints(sqlite3 *db, const char *zSql, int64_t *pA, int64_t *pB){
  sqlite3_stmt *pStmt = 0;
  int bOk = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK
   && sqlite3_step(pStmt)==SQLITE_ROW
   && sqlite3_column_type(pStmt, 0)==SQLITE_INTEGER
   && sqlite3_column_type(pStmt, 1)==SQLITE_INTEGER ){
    *pA = sqlite3_column_int64(pStmt, 0);
    *pB = sqlite3_column_int64(pStmt, 1);
    bOk = 1;
  }
  sqlite3_finalize(pStmt);
  return bOk;
}

static void trace_facts(sqlite3 *db, const char *zPath, TraceFacts *p){
  char *zSql;
  int64_t lo = 0, hi = 0, x = 0;
  memset(p, 0, sizeof(*p));
  zSql = sqlite3_mprintf("SELECT min(ts), max(ts) FROM events(%Q)", zPath);
  if( query_two_ints(db, zSql, &lo, &hi) ){
    p->bWindow = 1;
    p->tsLo = lo + (hi - lo)/3;
    p->tsHi = lo + (hi - lo)/3*2;
  }
  sqlite3_free(zSql);
  zSql = sqlite3_mprintf("SELECT event, 0 FROM callchains(%Q) LIMIT 1", zPath);
  p->bEvent = query_two_ints(db, zSql, &p->iEvent, &x);
  sqlite3_free(zSql);
}

/*
** Run every shape on one trace with accel on and off. Returns the number
** of shapes that differ, after printing one line about them.
*/
static int check_trace(sqlite3 *db, const char *zPath){
  TraceFacts facts;
  sqlite3_str *pLine = sqlite3_str_new(0);
  size_t k;
  int nDiff = 0;
  int bDamaged = 0;               /* the plain count fails */
  trace_facts(db, zPath, &facts);
  for(k=0; k<sizeof(aShape)/sizeof(aShape[0]); k++){
    const Shape *s = &aShape[k];
    Answer on, off;
    char zWhy[400];
    char *zOn, *zOff;
    long long a = 0, b = 0;
    if( s->eKind==SHAPE_WINDOW ){
      if( !facts.bWindow ) continue;
      a = facts.tsLo; b = facts.tsHi;
    }else if( s->eKind==SHAPE_EVENT ){
      if( !facts.bEvent ) continue;
      a = facts.iEvent;
    }
    zOn = sqlite3_mprintf(s->zFmt, zPath, "", a, b);
    zOff = sqlite3_mprintf(s->zFmt, zPath, "accel=off", a, b);
    assert_non_null(zOn);
    assert_non_null(zOff);
    answer_run(db, zOn, s->bOrdered==SHAPE_TS, &on);
    answer_run(db, zOff, s->bOrdered==SHAPE_TS, &off);
    if( k==0 && off.zErr ) bDamaged = 1;
    if( s->bOrdered==SHAPE_TS && bDamaged && on.zErr==0 && off.zErr ){
      /* ORDER BY ts LIMIT in ts order stops before the damage that the
      ** plain scan, sorted by SQLite, reads to the end to meet */
    }else if( answers_differ(&on, &off, s->bOrdered, zWhy, sizeof(zWhy)) ){
      sqlite3_str_appendf(pLine, "\n    %s: %s", s->zName, zWhy);
      nDiff++;
    }
    answer_free(&on);
    answer_free(&off);
    sqlite3_free(zOn);
    sqlite3_free(zOff);
  }
  if( nDiff ){
    char *z = sqlite3_str_finish(pLine);
    printf("accel: FAIL %s: %d shapes differ%s\n", zPath, nDiff, z ? z : "");
    fflush(stdout);
    sqlite3_free(z);
  }else{
    sqlite3_free(sqlite3_str_finish(pLine));
  }
  return nDiff;
}

/* Does zDir/zName exist? */
static int has_entry(const char *zDir, const char *zName){
  struct stat st;
  char *zPath = sqlite3_mprintf("%s/%s", zDir, zName);
  int bHas;
  assert_non_null(zPath);
  bHas = stat(zPath, &st)==0;
  sqlite3_free(zPath);
  return bHas;
}

/*
** Is zDir one CTF trace: a directory a reader claims that holds the
** metadata file, or an LTTng session (its ust/ or kernel/ traces are read
** as one)? A reader also claims any folder with a trace somewhere below,
** which is walked instead.
*/
static int is_trace_dir(const char *zDir){
  if( !has_entry(zDir, "metadata") && !has_entry(zDir, "ust")
   && !has_entry(zDir, "kernel") ){
    return 0;
  }
  return tl_trace_sniff(zDir)!=0;
}

/*
** Collect the traces under zDir: CTF trace directories (is_trace_dir) are
** not walked into, other folders are; a file a reader claims is a trace.
** Sorted by name, so runs are alike.
*/
static void find_traces(const char *zDir, int nDepth, TlLines *pOut){
  struct dirent **aEnt = 0;
  int i, n;
  if( nDepth>ACCEL_MAX_DEPTH ) return;
  n = scandir(zDir, &aEnt, 0, alphasort);
  for(i=0; i<n; i++){
    const char *zName = aEnt[i]->d_name;
    struct stat st;
    char *zPath;
    if( zName[0]=='.' ){ free(aEnt[i]); continue; }
    zPath = sqlite3_mprintf("%s/%s", zDir, zName);
    assert_non_null(zPath);
    if( lstat(zPath, &st) ){
      /* gone */
    }else if( S_ISDIR(st.st_mode) ){
      if( is_trace_dir(zPath) ) tl_lines_add(pOut, zPath);
      else find_traces(zPath, nDepth+1, pOut);
    }else if( S_ISREG(st.st_mode) && tl_trace_sniff(zPath) ){
      tl_lines_add(pOut, zPath);
    }
    sqlite3_free(zPath);
    free(aEnt[i]);
  }
  free(aEnt);
}

/* Check every trace under zRoot; fail the test when one differs. */
static void check_root(const char *zRoot){
  TlLines traces;
  sqlite3 *db = tl_test_db();
  size_t i;
  int nBad = 0;
  memset(&traces, 0, sizeof(traces));
  find_traces(zRoot, 0, &traces);
  assert_true(traces.n>0);
  for(i=0; i<traces.n; i++){
    if( check_trace(db, traces.az[i]) ) nBad++;
  }
  tl_test_db_close(db);
  i = traces.n;
  tl_lines_free(&traces);
  if( nBad ){
    fail_msg("%d of %zu traces under %s answer differently with accel=off",
             nBad, i, zRoot);
  }
}

/* ---- tests -------------------------------------------------------------- */

static void accel_off_same_rows_on_testdata(void **state){
  (void)state;
  check_root(TL_TESTDATA_DIR);
}

static void accel_off_same_rows_on_peer_traces(void **state){
  const char *zPeer = getenv("TL_PEER_DIR");
  struct stat st;
  (void)state;
  if( zPeer==0 || zPeer[0]==0 ) zPeer = TL_PEER_DIR;
  if( stat(zPeer, &st) || !S_ISDIR(st.st_mode) ){
    printf("[     SKIP ] %s: no peer traces at %s\n", __func__, zPeer);
    fflush(stdout);
    skip();
  }
  check_root(zPeer);
}

/* The shape check itself: answers that differ by one row are told apart. */
static void accel_compare_finds_a_missing_row(void **state){
  Answer on, off;
  char zWhy[400];
  (void)state;
  memset(&on, 0, sizeof(on));
  memset(&off, 0, sizeof(off));
  tl_lines_add(&on.rows, "i:1");
  tl_lines_add(&on.rows, "i:2");
  tl_lines_add(&off.rows, "i:2");
  tl_lines_add(&off.rows, "i:1");
  assert_int_equal(answers_differ(&on, &off, 0, zWhy, sizeof(zWhy)), 0);
  tl_lines_add(&off.rows, "i:1");
  assert_int_equal(answers_differ(&on, &off, 0, zWhy, sizeof(zWhy)), 1);
  answer_free(&on);
  answer_free(&off);
  on.zErr = strdup("x: boom");
  assert_int_equal(answers_differ(&on, &off, 0, zWhy, sizeof(zWhy)), 1);
  off.zErr = strdup("x: boom");
  assert_int_equal(answers_differ(&on, &off, 0, zWhy, sizeof(zWhy)), 0);
  answer_free(&on);
  answer_free(&off);
}

/* accel= takes on or off; another value is an error naming the option. */
static void accel_bad_value_is_an_error_naming_it(void **state){
  sqlite3 *db = tl_test_db();
  char *zErr;
  (void)state;
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM events('%q', 'accel=fast')",
                           TD "perf/sched.data");
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "accel=fast: expected on or off"));
  free(zErr);
  assert_null(tl_test_sql_error(db,
      "CREATE VIRTUAL TABLE temp.t USING events(path='%q', accel=fast)", TD "perf/sched.data"));
  zErr = tl_test_sql_error(db, "SELECT count(*) FROM t");
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "accel=fast: expected on or off"));
  free(zErr);
  assert_int_equal(tl_test_sql_int(db, "SELECT count(*) FROM packets('%q', 'accel=on')",
                                   TD "perf/sched.data"),
                   tl_test_sql_int(db, "SELECT count(*) FROM packets('%q')",
                                   TD "perf/sched.data"));
  tl_test_db_close(db);
}

/*
** Does SQLite sort for the query zFmt (on the trace zPath): does its plan
** use a temporary b-tree for zWhat ("ORDER BY", "GROUP BY")?
*/
static int plan_sorts(sqlite3 *db, const char *zFmt, const char *zPath, const char *zWhat){
  char *zSql = sqlite3_mprintf(zFmt, zPath);
  char *zPlan, *zNeedle = sqlite3_mprintf("B-TREE FOR %s", zWhat);
  int bSorts;
  assert_non_null(zSql);
  assert_non_null(zNeedle);
  zPlan = tl_test_sql_rows(db, "EXPLAIN QUERY PLAN %s", zSql);
  bSorts = strstr(zPlan, zNeedle)!=0;
  free(zPlan);
  sqlite3_free(zNeedle);
  sqlite3_free(zSql);
  return bSorts;
}

/*
** With accel=off, SQLite sorts: ORDER BY ts is not consumed, in both
** forms (the options known at planning time), and GROUP BY name is not
** answered by grouped output.
*/
static void accel_off_plans_sort_in_sqlite(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  /* perf merges events in ts order; CTF groups them by name */
  assert_false(plan_sorts(db, "SELECT ts FROM events('%q') ORDER BY ts",
                          TD "perf/sched.data", "ORDER BY"));
  assert_true(plan_sorts(db, "SELECT ts FROM events('%q', 'accel=off') ORDER BY ts",
                         TD "perf/sched.data", "ORDER BY"));
  assert_null(tl_test_sql_error(db,
      "CREATE VIRTUAL TABLE temp.plain USING events(path='%q', accel=off)",
      TD "perf/sched.data"));
  assert_true(plan_sorts(db, "SELECT ts FROM %s ORDER BY ts", "plain", "ORDER BY"));
  assert_false(plan_sorts(db, "SELECT name, count(*) FROM events('%q') GROUP BY name",
                          TD "ctf/ust-multi", "GROUP BY"));
  assert_true(plan_sorts(db, "SELECT name, count(*) FROM events('%q', 'accel=off') GROUP BY name",
                         TD "ctf/ust-multi", "GROUP BY"));
  tl_test_db_close(db);
}

/* accel= is the query's, not the trace's: one opened trace serves both. */
static void accel_is_not_part_of_the_cache_key(void **state){
  TlTrace *pOn = 0, *pOff = 0;
  TlErr err;
  (void)state;
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(TD "perf/sched.data", "", &pOn, &err), TL_OK);
  assert_int_equal(tl_trace_open(TD "perf/sched.data", "accel=off", &pOff, &err), TL_OK);
  assert_ptr_equal(pOn, pOff);
  tl_trace_release(pOn);
  tl_trace_release(pOff);
  assert_int_equal(tl_trace_open(TD "perf/sched.data", "accel=no", &pOff, &err), TL_EMISUSE);
  assert_non_null(strstr(err.zMsg, "accel=no"));
}

/*
** GROUP BY with the trace and the options bound parameters: the plan cannot
** see the trace nor accel=off, so the engine groups (SQLite does not sort),
** over the reader's plain rows when accel=off comes in xFilter; the rows
** are those of accel=off known at planning time.
*/
static void accel_bound_options_group_in_the_engine(void **state){
  static const char *const azPath[] = {
    TD "ctf/ust-multi", TD "perf/cpu-clock-g.data", TD "xray/fdr.xray", TD "cpel/demo.cpel",
  };
  static const char zBound[] = "SELECT name, cpu, type, count(*), sum(rowid %% 4294967291) "
                               "FROM events(?1, ?2) GROUP BY name, cpu, type";
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  assert_false(plan_sorts(db, zBound, "", "GROUP BY"));
  for(k=0; k<sizeof(azPath)/sizeof(azPath[0]); k++){
    const char *azOn[2], *azOff[2];
    char *zLiteral = sqlite3_mprintf("SELECT name, cpu, type, count(*), sum(rowid %% 4294967291) "
                                     "FROM events(%Q, 'accel=off') GROUP BY name, cpu, type",
                                     azPath[k]);
    char *zSql = sqlite3_mprintf(zBound);
    Answer on, off, ref;
    char zWhy[400];
    azOn[0] = azOff[0] = azPath[k];
    azOn[1] = "";
    azOff[1] = "accel=off";
    answer_run_bound(db, zSql, azOn, 2, 0, &on);
    answer_run_bound(db, zSql, azOff, 2, 0, &off);
    answer_run(db, zLiteral, 0, &ref);
    assert_null(ref.zErr);
    assert_true(ref.rows.n>0);
    if( answers_differ(&on, &ref, 0, zWhy, sizeof(zWhy)) ) fail_msg("%s: %s", azPath[k], zWhy);
    if( answers_differ(&off, &ref, 0, zWhy, sizeof(zWhy)) ) fail_msg("%s: off: %s", azPath[k], zWhy);
    answer_free(&on);
    answer_free(&off);
    answer_free(&ref);
    sqlite3_free(zLiteral);
    sqlite3_free(zSql);
  }
  tl_test_db_close(db);
}

/* What one grouping of a trace's events gave (accel_grouping_splits_past_its_cap). */
typedef struct GroupSum GroupSum;
struct GroupSum {
  int64_t nEntry, nAll;           /* entries, rows they stand for */
  int64_t sumRowid;               /* the rowids of every row, modulo a prime */
  int nSplit;
};

/*
** Group the events of p by name and ts_raw (about one entry per event),
** GROUP BY name, or both (bBoth), with a cap of nCap bytes (0: max_memory);
** every rowid asked; the entries of a name together unless bBoth.
*/
static void group_sum(TlTrace *p, uint64_t nCap, int bBoth, GroupSum *pOut){
  TlFilterCols cols;
  TlFilter f;
  TlGroup *g = 0;
  TlErr err;
  TlRow r;
  TlLines seen;
  char *zPrev = 0;
  int rc;
  memset(pOut, 0, sizeof(*pOut));
  memset(&seen, 0, sizeof(seen));
  memset(&cols, 0, sizeof(cols));
  cols.iTs = TL_EV_TS; cols.iCpu = TL_EV_CPU; cols.iKey = -1; cols.iType = TL_EV_TYPE;
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  f.mCols = ((uint64_t)1<<TL_EV_NAME) | ((uint64_t)1<<TL_EV_TS_RAW);
  tl_err_clear(&err);
  assert_int_equal(tl_group_open(p, TL_TAB_EVENTS, TL_EV_NCOL, &f, &cols,
                                 bBoth ? f.mCols : (uint64_t)1<<TL_EV_NAME, &g, &err), TL_OK);
  if( nCap ) tl_group_set_cap(g, nCap);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_group_next(g, &r))==TL_ROW ){
    const TlVal *v = &r.a[TL_EV_NAME];
    char *zName = v->t==TL_TEXT ? strndup(v->z, v->n) : strdup("(null)");
    int64_t k, n = r.nRepeat>1 ? r.nRepeat : 1;
    size_t j;
    assert_non_null(zName);
    if( !bBoth && (zPrev==0 || strcmp(zPrev, zName)!=0) ){
      /* a name's entries come together: a name seen before is not back */
      for(j=0; j<seen.n; j++) assert_string_not_equal(seen.az[j], zName);
      tl_lines_add(&seen, zName);
    }
    free(zPrev);
    zPrev = zName;
    pOut->nEntry++;
    pOut->nAll += n;
    for(k=0; k<n; k++){
      int64_t iRowid = 0;
      assert_int_equal(tl_group_rowid(g, k, &iRowid), TL_OK);
      pOut->sumRowid = (pOut->sumRowid + (iRowid % 4294967291LL + 4294967291LL)) % 4294967291LL;
    }
  }
  assert_int_equal(rc, TL_DONE);
  pOut->nSplit = tl_group_splits(g);
  free(zPrev);
  tl_lines_free(&seen);
  tl_group_close(g);
}

/*
** The engine's grouping past its memory cap: the rows split into parts by
** their GROUP BY values, each part scanned again, give the same entries,
** rows and rowids as one part (where a GROUP BY value's entries come
** together).
*/
static void accel_grouping_splits_past_its_cap(void **state){
  static const char *const azPath[] = { TD "ctf/ust-multi", TD "perf/cpu-clock-g.data" };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azPath)/sizeof(azPath[0]); k++){
    TlTrace *p = 0;
    TlErr err;
    GroupSum whole, split;
    tl_err_clear(&err);
    assert_int_equal(tl_trace_open(azPath[k], 0, &p, &err), TL_OK);
    group_sum(p, 0, 0, &whole);
    group_sum(p, 16*1024, 1, &split);
    assert_int_equal(whole.nSplit, 0);
    assert_true(split.nSplit>0);
    assert_true(whole.nEntry>500);
    assert_int_equal(split.nEntry, whole.nEntry);
    assert_int_equal(split.nAll, whole.nAll);
    assert_int_equal(split.sumRowid, whole.sumRowid);
    tl_trace_release(p);
  }
}

/*
** GROUP BY with a varying column past a small budget for its values (a few
** hundred bytes: the rest goes to the temporary file): the same rows and
** rowids as the plain scan, for events by name with ts varying (CTF, perf)
** and xray_calls by function with dur varying; and no plan sorts them.
*/
static void accel_varying_columns_spill_and_equal_plain(void **state){
  static const struct { const char *zPath; int iTable, iGroup, iVary; } a[] = {
    { TD "ctf/ust-multi", TL_TAB_EVENTS, TL_EV_NAME, TL_EV_TS },
    { TD "perf/cpu-clock-g.data", TL_TAB_EVENTS, TL_EV_NAME, TL_EV_TS },
    { TD "xray/names-fdr.xray", TL_TAB_XRAY_CALLS, TL_XC_FUNC_ID, TL_XC_DUR },
    { TD "xray/names-basic.xray", TL_TAB_XRAY_CALLS, TL_XC_FUNC_ID, TL_XC_DUR },
  };
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    TlTrace *p = 0;
    TlErr err;
    TlFilter f;
    TlScanLines grouped, plain;
    size_t i;
    tl_err_clear(&err);
    assert_int_equal(tl_trace_open(a[k].zPath, 0, &p, &err), TL_OK);
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
    f.mCols = ((uint64_t)1<<a[k].iGroup) | ((uint64_t)1<<a[k].iVary);
    assert_true(tl_test_scan_vary(p, a[k].iTable, &f, f.mCols, 1, a[k].iGroup,
                                  (uint64_t)1<<a[k].iVary, 256, &grouped) > 0);
    f.bPlain = 1;
    tl_test_scan_lines(p, a[k].iTable, &f, f.mCols, 1, -1, &plain);
    assert_true(plain.rows.n > 100);
    assert_true(grouped.nRepeated > 0);
    assert_int_equal(grouped.rows.n, plain.rows.n);
    for(i=0; i<plain.rows.n; i++) assert_string_equal(grouped.rows.az[i], plain.rows.az[i]);
    tl_lines_free(&grouped.rows);
    tl_lines_free(&plain.rows);
    tl_trace_release(p);
  }
  assert_false(plan_sorts(db, "SELECT func_id, min(dur), max(dur) FROM xray_calls('%q') GROUP BY func_id",
                          TD "xray/fdr.xray", "GROUP BY"));
  assert_false(plan_sorts(db, "SELECT name, min(ts) FROM events('%q') GROUP BY name ORDER BY name DESC",
                          TD "ctf/ust-multi", "B-TREE"));
  assert_true(plan_sorts(db, "SELECT func_id, min(dur) FROM xray_calls('%q', 'accel=off') GROUP BY func_id",
                         TD "xray/fdr.xray", "GROUP BY"));
  /* (a text column of one value per row: SQLite sorts) */
  assert_true(plan_sorts(db, "SELECT name, max(text) FROM events('%q') GROUP BY name",
                         TD "ctf/ust-multi", "GROUP BY"));
  tl_test_db_close(db);
}

/* Rows of a scan of events with filter f: *pnRow rows standing for *pnAll. */
/*
** Groups that must come in order (a GROUP BY that may be an ORDER BY) do not
** split into parts by hash past the cap, which would sort each part alone:
** the query ends with an error naming max_memory.
*/
static void accel_sorted_grouping_past_its_cap_is_an_error(void **state){
  TlFilterCols cols;
  TlFilter f;
  TlGroup *g = 0;
  TlTrace *p = 0;
  TlErr err;
  TlRow r;
  int rc, aCol[2] = { TL_EV_NAME, TL_EV_TS_RAW }, aDesc[2] = { 1, 0 };
  (void)state;
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(TD "perf/cpu-clock-g.data", 0, &p, &err), TL_OK);
  memset(&cols, 0, sizeof(cols));
  cols.iTs = TL_EV_TS; cols.iCpu = TL_EV_CPU; cols.iKey = -1; cols.iType = TL_EV_TYPE;
  memset(&f, 0, sizeof(f));
  f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
  f.mCols = ((uint64_t)1<<TL_EV_NAME) | ((uint64_t)1<<TL_EV_TS_RAW);
  assert_int_equal(tl_group_open(p, TL_TAB_EVENTS, TL_EV_NCOL, &f, &cols, f.mCols, &g, &err), TL_OK);
  tl_group_set_order(g, 2, aCol, aDesc);
  tl_group_set_cap(g, 16*1024);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_group_next(g, &r))==TL_ROW ){}
  assert_true(rc<0);
  assert_non_null(strstr(tl_group_err(g)->zMsg, "max_memory"));
  assert_int_equal(tl_group_splits(g), 0);
  tl_group_close(g);
  tl_trace_release(p);
}

static void count_rows(TlTrace *p, const TlFilter *f, int64_t *pnRow, int64_t *pnAll){
  TlQuery *q = 0;
  TlErr err;
  TlRow r;
  int rc;
  tl_err_clear(&err);
  *pnRow = *pnAll = 0;
  assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, f, &q, &err), TL_OK);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_query_next(q, &r))==TL_ROW ){
    (*pnRow)++;
    *pnAll += r.nRepeat>1 ? r.nRepeat : 1;
    if( !f->bPlain ) assert_int_equal(r.iRowid, TL_ROWID_LAZY);
    if( !f->bPlain && r.nRepeat>=3 ){
      /* the rowids of its repeats, asked out of order, are stable */
      int64_t a0, a1, aLast, b0;
      assert_int_equal(tl_query_rowid(q, &r, r.nRepeat-1, &aLast), TL_OK);
      assert_int_equal(tl_query_rowid(q, &r, 0, &a0), TL_OK);
      assert_int_equal(tl_query_rowid(q, &r, 1, &a1), TL_OK);
      assert_int_equal(tl_query_rowid(q, &r, 0, &b0), TL_OK);
      assert_true(a0!=a1 && a1!=aLast && a0!=aLast);
      assert_int_equal(a0, b0);
    }
    memset(&r, 0, sizeof(r));
  }
  assert_int_equal(rc, TL_DONE);
  tl_query_close(q);
}

/*
** count(*) of events is the engine's counted scan for CTF, perf and XRay:
** at most one row per packet of the index, each standing for its rows with
** a lazy rowid, as many rows in all as the plain scan gives.
*/
static void accel_counts_are_one_row_per_packet(void **state){
  static const char *const azPath[] = {
    TD "ctf/ust-multi", TD "perf/cpu-clock-g.data", TD "xray/fdr.xray",
  };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(azPath)/sizeof(azPath[0]); k++){
    TlTrace *p = 0;
    TlErr err;
    TlFilter f;
    int64_t nRow, nAll, nPlainRow, nPlainAll;
    tl_err_clear(&err);
    assert_int_equal(tl_trace_open(azPath[k], 0, &p, &err), TL_OK);
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
    count_rows(p, &f, &nRow, &nAll);
    f.bPlain = 1;
    count_rows(p, &f, &nPlainRow, &nPlainAll);
    assert_true(nRow>0 && (size_t)nRow <= p->index.n);
    assert_true(nAll > nRow);
    assert_int_equal(nAll, nPlainAll);
    assert_int_equal(nPlainRow, nPlainAll);
    tl_trace_release(p);
  }
}

/*
** A trace of many streams, the column that names a row's stream, and
** whether its reader splits an ordered scan into them (reader.h: xStreams).
*/
typedef struct MergeCase MergeCase;
struct MergeCase {
  const char *zPath;
  const char *zStream;             /* the stream's column: its order */
  int nStreamMin;                  /* streams xStreams gives at least */
};

static const MergeCase aMerge[] = {
  { TD "ctf/ust-pid", "track", 4 },          /* two traces of two streams */
  { TD "ctf/ust-multi", "track", 2 },
  { TD "sched/sched-ctf", "track", 2 },      /* a kernel trace, a stream per CPU */
};

/*
** An ordered scan of a trace of many streams is the engine's merge of one
** scan per stream: every row in ascending ts (no sort by SQLite), a tie to
** the lower stream, and within a stream in the stream's (rowid) order:
** the plain scan sorted by SQLite on (ts, stream, rowid) is the same list.
*/
static void accel_ordered_scans_merge_streams(void **state){
  sqlite3 *db = tl_test_db();
  size_t k;
  (void)state;
  for(k=0; k<sizeof(aMerge)/sizeof(aMerge[0]); k++){
    const MergeCase *c = &aMerge[k];
    TlTrace *p = 0;
    TlErr err;
    TlFilter f;
    Answer on, off;
    char *zOn, *zOff, zWhy[256];
    tl_err_clear(&err);
    assert_int_equal(tl_trace_open(c->zPath, 0, &p, &err), TL_OK);
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1; f.bOrdered = 1;
    f.mCols = ((uint64_t)1<<TL_EV_TS) | ((uint64_t)1<<TL_EV_NAME);
    assert_non_null(p->pReader->xStreams);
    assert_true(p->pReader->xStreams(p, TL_TAB_EVENTS, &f) >= c->nStreamMin);
    tl_trace_release(p);
    assert_false(plan_sorts(db, "SELECT ts FROM events('%q') ORDER BY ts", c->zPath, "ORDER BY"));
    zOn = sqlite3_mprintf("SELECT ts, %s, rowid, name, cpu FROM events(%Q) ORDER BY ts",
                          c->zStream, c->zPath);
    zOff = sqlite3_mprintf("SELECT ts, %s, rowid, name, cpu FROM events(%Q, 'accel=off') "
                           "ORDER BY ts, %s, rowid", c->zStream, c->zPath, c->zStream);
    assert_non_null(zOn);
    assert_non_null(zOff);
    answer_run(db, zOn, 0, &on);
    answer_run(db, zOff, 0, &off);
    assert_null(on.zErr);
    assert_null(off.zErr);
    assert_true(on.rows.n > 0);
    if( lines_differ(&on.rows, &off.rows, zWhy, sizeof(zWhy)) ){
      fail_msg("%s: %s", c->zPath, zWhy);
    }
    answer_free(&on);
    answer_free(&off);
    sqlite3_free(zOn);
    sqlite3_free(zOff);
  }
  tl_test_db_close(db);
}

/*
** The merge's rule on a CTF trace written here (1 GHz clock, no offset: ts
** is the 64-bit timestamp field): three stream files, a (ts 10 20 20 30),
** b (20 5 40: it goes back in time) and c (10 20), their events numbered
** v 1-4, 5-7, 8-9. Each row is the one of least ts among the streams'
** current events, a tie to the lower stream (the files in name order).
*/
static void accel_merge_ties_and_a_stream_back_in_time(void **state){
  static const char zMeta[] = "/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };\n"
    "clock { name = c; freq = 1000000000; };\n"
    "stream { event.header := struct {\n"
    "  integer { size = 64; align = 8; map = clock.c.value; } timestamp; }; };\n"
    "event { name = one; fields := struct { integer { size = 32; align = 8; } v; }; };\n";
  static const struct { const char *zName; int n; uint64_t aTs[4]; } aStm[] = {
    { "a", 4, { 10, 20, 20, 30 } }, { "b", 3, { 20, 5, 40 } }, { "c", 2, { 10, 20 } },
  };
  sqlite3 *db = tl_test_db();
  char zDir[512];
  char *z;
  int i, e, v = 1;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-merge-ties", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(i=0; i<3; i++){
    CtfW w;
    ctfw_init(&w, 0);
    for(e=0; e<aStm[i].n; e++){
      ctfw_uint(&w, 8, 64, aStm[i].aTs[e]);
      ctfw_uint(&w, 8, 32, (uint64_t)v++);
    }
    assert_int_equal(ctfw_save(&w, zDir, aStm[i].zName, ctfw_bytes(&w)), 0);
    ctfw_free(&w);
  }
  z = tl_test_sql_rows(db, "SELECT group_concat(args->>'$.v' || '@' || ts, ' ') FROM "
                           "(SELECT args, ts FROM events(%Q) ORDER BY ts)", zDir);
  assert_string_equal(z, "1@10 8@10 2@20 3@20 5@20 6@5 9@20 4@30 7@40");
  free(z);
  z = tl_test_sql_rows(db, "SELECT group_concat(args->>'$.v' || '@' || ts, ' ') FROM "
                           "(SELECT args, ts FROM events(%Q) WHERE ts >= 15 ORDER BY ts)", zDir);
  assert_string_equal(z, "2@20 3@20 5@20 9@20 4@30 7@40");
  free(z);
  tl_test_db_close(db);
}

/*
** The same rule on a CPEL file written here: two sorted event sections
** (1e9 ticks a second: ts is the ticks), a (ts 10 20 20, datum 0-2) and b
** (10 20 30, datum 3-5): a tie goes to the earlier section.
*/
static void accel_merge_ties_of_cpel_sections(void **state){
  static const char *const az[] = { "T", "e" };
  static const uint64_t aTicks[2][3] = { { 10, 20, 20 }, { 10, 20, 30 } };
  CpelW w;
  const char *zPath;
  sqlite3 *db;
  char *z;
  int i, e;
  (void)state;
  cw_init(&w, 0, 3);
  cw_strtab(&w, az, 2, 0);
  for(i=0; i<2; i++){
    cw_sec_begin(&w, 5);
    cw_name(&w, "T");
    cw_u32(&w, 3);
    cw_u32(&w, 1000000000);
    for(e=0; e<3; e++) cw_event(&w, aTicks[i][e], 1, 1, (uint32_t)(3*i+e));
    cw_sec_end(&w);
  }
  zPath = cw_save(&w, "merge-ties.cpel");
  cw_free(&w);
  db = tl_test_db();
  assert_false(plan_sorts(db, "SELECT ts FROM events('%q') ORDER BY ts", zPath, "ORDER BY"));
  z = tl_test_sql_rows(db, "SELECT group_concat(value || '@' || ts, ' ') FROM "
                           "(SELECT value, ts FROM events(%Q) ORDER BY ts)", zPath);
  assert_string_equal(z, "0@10 3@10 1@20 2@20 4@20 5@30");
  free(z);
  tl_test_db_close(db);
}

/*
** The stream scans of a merge count what they hold decoded together
** against max_memory=, as one scan's cursors do: three stream files, each
** one event of a 5000-byte sequence (some 400 KiB of value nodes each),
** merged at once: more than 1 MiB in all.
*/
static void accel_merge_streams_share_max_memory(void **state){
  static const char zMeta[] = "/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };\n"
    "event { name = big; fields := struct { integer { size = 32; align = 8; } n;\n"
    "  integer { size = 8; align = 8; } a[n]; }; };\n";
  sqlite3 *db = tl_test_db();
  char zDir[512], zName[16];
  char *zErr;
  int i, k;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-merge-memory", tl_test_tmpdir());
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(i=0; i<3; i++){
    CtfW w;
    ctfw_init(&w, 0);
    ctfw_uint(&w, 8, 32, 5000);
    for(k=0; k<5000; k++) ctfw_uint(&w, 8, 8, (uint64_t)(k & 0xff));
    snprintf(zName, sizeof(zName), "s%d", i);
    assert_int_equal(ctfw_save(&w, zDir, zName, ctfw_bytes(&w)), 0);
    ctfw_free(&w);
  }
  zErr = tl_test_sql_rows(db, "SELECT length(args) > 5000 FROM events(%Q, 'max_memory=2') "
                              "ORDER BY ts", zDir);
  assert_string_equal(zErr, "1\n1\n1");
  free(zErr);
  zErr = tl_test_sql_error(db, "SELECT length(args) FROM events(%Q, 'max_memory=1') ORDER BY ts",
                           zDir);
  assert_non_null(zErr);
  assert_non_null(strstr(zErr, "more than 1 MiB of field buffers (max_memory=)"));
  free(zErr);
  tl_test_db_close(db);
}

/*
** A CTF trace of two streams of AHEAD_PKTS packets of AHEAD_EVENTS events,
** every packet with its timestamp_begin and timestamp_end (1 GHz clock, no
** offset; 64 KiB packets, mostly padding, so that the scan is worth two
** threads): event e of packet p of stream s at ts 1000*(AHEAD_EVENTS*p + e)
** + 7*s, its field v numbered 1, 2, ... stream by stream. A sequence of n
** bytes follows v, empty but where bBad puts n = 2^24 into stream 1's
** packet AHEAD_BAD (past its content: the scan's error).
*/
#define AHEAD_PKTS 24
#define AHEAD_EVENTS 6
#define AHEAD_BAD 17
#define AHEAD_PKT_BITS ((uint64_t)65536*8)   /* 64 KiB packets: 3 MiB in all */

static int64_t ahead_ts(int s, int p, int e){
  return 1000*(int64_t)(AHEAD_EVENTS*p + e) + 7*s;
}

static void write_ahead_ctf(const char *zDir, int bBad){
  static const char zMeta[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "clock { name = c; freq = 1000000000; };\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := tstamp;\n"
    "trace { major = 1; minor = 8; byte_order = le;\n"
    "  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
    "stream { id = 0; packet.context := struct { tstamp timestamp_begin; tstamp timestamp_end;\n"
    "  uint64_t content_size; uint64_t packet_size; };\n"
    "  event.header := struct { tstamp timestamp; }; };\n"
    "stream { id = 1; packet.context := struct { tstamp timestamp_begin; tstamp timestamp_end;\n"
    "  uint64_t content_size; uint64_t packet_size; };\n"
    "  event.header := struct { tstamp timestamp; }; };\n"
    "event { name = \"e\"; stream_id = 0; fields := struct { uint32_t v; uint32_t n;\n"
    "  integer { size = 8; align = 8; } b[n]; }; };\n"
    "event { name = \"e\"; stream_id = 1; fields := struct { uint32_t v; uint32_t n;\n"
    "  integer { size = 8; align = 8; } b[n]; }; };\n";
  int s, p, e, v = 1;
  assert_int_equal(ctfw_save_text(zDir, "metadata", zMeta), 0);
  for(s=0; s<2; s++){
    char zName[16];
    CtfW w;
    ctfw_init(&w, 0);
    for(p=0; p<AHEAD_PKTS; p++){
      uint64_t iStart = w.iBit;
      ctfw_uint(&w, 8, 32, 0xC1FC1FC1);
      ctfw_uint(&w, 8, 32, (uint64_t)s);
      ctfw_uint(&w, 8, 64, (uint64_t)ahead_ts(s, p, 0));
      ctfw_uint(&w, 8, 64, (uint64_t)ahead_ts(s, p, AHEAD_EVENTS-1));
      ctfw_uint(&w, 8, 64, 0);                     /* content_size, patched */
      ctfw_uint(&w, 8, 64, 0);                     /* packet_size, patched */
      for(e=0; e<AHEAD_EVENTS; e++){
        ctfw_uint(&w, 8, 64, (uint64_t)ahead_ts(s, p, e));
        ctfw_uint(&w, 8, 32, (uint64_t)v++);
        ctfw_uint(&w, 8, 32, bBad && s==1 && p==AHEAD_BAD && e==2 ? 1u<<24 : 0);
      }
      ctfw_patch(&w, iStart + 192, 64, w.iBit - iStart);
      while( w.iBit - iStart < AHEAD_PKT_BITS ) ctfw_uint(&w, 8, 64, 0);   /* padding */
      ctfw_patch(&w, iStart + 256, 64, w.iBit - iStart);
    }
    snprintf(zName, sizeof(zName), "s%d", s);
    assert_int_equal(ctfw_save(&w, zDir, zName, ctfw_bytes(&w)), 0);
    ctfw_free(&w);
  }
}

/* Threads of this process (/proc/self/task). */
static int thread_count(void){
  DIR *d = opendir("/proc/self/task");
  struct dirent *p;
  int n = 0;
  assert_non_null(d);
  while( (p = readdir(d))!=0 ) n += p->d_name[0]!='.';
  closedir(d);
  return n;
}

/*
** The process's threads once they are n or fewer, waiting up to 2 s: a
** joined thread can still be listed for a moment (the kernel wakes the
** joiner before it takes the thread off /proc/self/task).
*/
static int thread_count_down_to(int n){
  int k, nNow = thread_count();
  for(k=0; k<2000 && nNow>n; k++){
    usleep(1000);
    nNow = thread_count();
  }
  return nNow;
}

/* What a scan of events in [lo, hi] gives: rows, the sums of their ts and
** rowids (lazy ones asked one by one), or the error it ends with. */
typedef struct WinSum WinSum;
struct WinSum { int64_t n, sumTs, sumRowid; char zErr[TL_ERR_MSG]; };

static void window_sum(TlTrace *p, int64_t lo, int64_t hi, int bPlain, WinSum *w){
  TlQuery *q = 0;
  TlFilter f;
  TlErr err;
  TlRow r;
  int rc;
  memset(w, 0, sizeof(*w));
  memset(&f, 0, sizeof(f));
  f.tsLo = lo; f.tsHi = hi; f.nCpu = -1; f.bPlain = bPlain;
  f.mCols = (uint64_t)1<<TL_EV_TS;
  tl_err_clear(&err);
  assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, &f, &q, &err), TL_OK);
  memset(&r, 0, sizeof(r));
  while( (rc = tl_query_next(q, &r))==TL_ROW ){
    int64_t k, nRep = r.nRepeat>1 ? r.nRepeat : 1;
    for(k=0; k<nRep; k++){
      int64_t id = r.iRowid;
      TlVal v = r.a[TL_EV_TS];
      if( id==TL_ROWID_LAZY ) assert_int_equal(tl_query_rowid(q, &r, k, &id), TL_OK);
      if( v.t==TL_LAZY ) assert_int_equal(tl_query_value(q, k, TL_EV_TS, &v), TL_OK);
      assert_int_equal(v.t, TL_INT);
      w->n++;
      w->sumTs += v.i;
      w->sumRowid += id % 4294967291;
    }
    memset(&r, 0, sizeof(r));
  }
  if( rc<0 ) snprintf(w->zErr, sizeof(w->zErr), "%s", tl_query_err(q)->zMsg);
  else assert_int_equal(rc, TL_DONE);
  tl_query_close(q);
}

/*
** A counted scan of packets whose start the index knows is counted by two
** threads (here from the second packet on: tl_count_ahead_after_ns 0; then
** from the first: tl_count_ahead_bytes 0; one more thread while the scan
** is open), the rows still given in the index's order: counts, ts and
** rowids equal the events written and the plain scan's; an event that
** overruns its packet is the plain scan's error.
*/
static void counts_ahead_check(const char *zDir, const char *zBad);

void accel_counts_ahead_equal_the_events_written(void **state){
  char zDir[512], zBad[512];
  int64_t nAfter = tl_count_ahead_after_ns;
  uint64_t nBytes = tl_count_ahead_bytes;
  (void)state;
  snprintf(zDir, sizeof(zDir), "%s/ctf-count-ahead", tl_test_tmpdir());
  snprintf(zBad, sizeof(zBad), "%s/ctf-count-ahead-bad", tl_test_tmpdir());
  write_ahead_ctf(zDir, 0);
  write_ahead_ctf(zBad, 1);
  tl_count_ahead_after_ns = 0;
  counts_ahead_check(zDir, zBad);
  tl_count_ahead_after_ns = nAfter;
  tl_count_ahead_bytes = 0;
  counts_ahead_check(zDir, zBad);
  tl_count_ahead_bytes = nBytes;
}

static void counts_ahead_check(const char *zDir, const char *zBad){
  static const int64_t aWin[][2] = {
    { 0, 1000000 }, { 3000, 3000 }, { 2500, 41007 }, { 40000, 97000 }, { 143005, 143007 },
  };
  TlTrace *p = 0;
  TlQuery *q = 0;
  TlFilter f;
  TlErr err;
  TlRow r;
  WinSum on, off;
  size_t k;
  int nBefore, nDuring, s, pk, e;
  uint64_t nHelpers;
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(zDir, 0, &p, &err), TL_OK);
  assert_int_equal(p->index.n, 2*AHEAD_PKTS);

  if( sysconf(_SC_NPROCESSORS_ONLN)>1 ){
    memset(&f, 0, sizeof(f));
    f.tsLo = TL_TS_MIN; f.tsHi = TL_TS_MAX; f.nCpu = -1;
    nBefore = thread_count();
    nHelpers = __atomic_load_n(&tl_count_helpers, __ATOMIC_RELAXED);
    assert_int_equal(tl_query_open(p, TL_TAB_EVENTS, &f, &q, &err), TL_OK);
    memset(&r, 0, sizeof(r));
    assert_int_equal(tl_query_next(q, &r), TL_ROW);
    assert_int_equal(r.nRepeat, AHEAD_EVENTS);
    nDuring = thread_count();
    assert_int_equal(__atomic_load_n(&tl_count_helpers, __ATOMIC_RELAXED), nHelpers + 1);
    assert_true(nDuring > nBefore);   /* (a sanitizer may start a thread of its own too) */
    tl_query_close(q);
    /* joined: one thread fewer (or more fewer, when a thread an earlier
    ** test's trace started, as kallsyms' reader, ended meanwhile) */
    assert_true(thread_count_down_to(nDuring - 1) <= nDuring - 1);
  }else{
    print_message("one CPU: the helper thread is not started, its check skipped\n");
  }

  for(k=0; k<sizeof(aWin)/sizeof(aWin[0]); k++){
    int64_t nWant = 0, tsWant = 0;
    for(s=0; s<2; s++) for(pk=0; pk<AHEAD_PKTS; pk++) for(e=0; e<AHEAD_EVENTS; e++){
      int64_t ts = ahead_ts(s, pk, e);
      if( ts<aWin[k][0] || ts>aWin[k][1] ) continue;
      nWant++; tsWant += ts;
    }
    window_sum(p, aWin[k][0], aWin[k][1], 0, &on);
    window_sum(p, aWin[k][0], aWin[k][1], 1, &off);
    assert_string_equal(on.zErr, "");
    assert_int_equal(on.n, nWant);
    assert_int_equal(on.sumTs, tsWant);
    assert_int_equal(off.n, nWant);
    assert_int_equal(on.sumRowid, off.sumRowid);
  }
  tl_trace_release(p);

  assert_int_equal(tl_trace_open(zBad, 0, &p, &err), TL_OK);
  window_sum(p, 0, 200000, 0, &on);
  window_sum(p, 0, 200000, 1, &off);
  assert_true(on.zErr[0]!=0);
  assert_string_equal(on.zErr, off.zErr);
  assert_non_null(strstr(on.zErr, "runs past the end of the packet content"));
  tl_trace_release(p);
}

/*
** Rows of p of type zType (NULL: any) with ts in [lo, hi], counted by a scan
** with the helper starting at once whenever counting needs a byte read
** (tl_count_ahead_bytes 1, never after some time): *pnHelpers the helper
** threads it started.
*/
static int64_t count_of_type(TlTrace *p, const char *zType, int64_t lo, int64_t hi,
                          int *pnHelpers){
  TlFilter f;
  int64_t n;
  uint64_t nBefore = __atomic_load_n(&tl_count_helpers, __ATOMIC_RELAXED);
  memset(&f, 0, sizeof(f));
  f.tsLo = lo; f.tsHi = hi; f.nCpu = -1;
  f.zType = zType;
  n = tl_test_count_rows(p, TL_TAB_EVENTS, &f);
  *pnHelpers = (int)(__atomic_load_n(&tl_count_helpers, __ATOMIC_RELAXED) - nBefore);
  return n;
}

/*
** A counted scan starts its helper at once only when its packets need
** reading to be counted (xPacketCountBytes): perf chunks the index counts
** whole start none; a window that cuts two chunks starts one. The counts
** are perf script's (perf/wakeup.times.txt: one line per sample). Nor
** does a count of XRay buffers the index counts whole (xray/fdr.xray: its
** records as llvm-xray convert lists them, in fdr.yaml).
*/
void accel_counts_the_index_answers_start_no_helper(void **state){
  const int64_t lo = 45816545300000, hi = 45816590000000;   /* cuts chunks 2 and 3 */
  int64_t nAll = 0, nWin = 0, nsAfter = tl_count_ahead_after_ns;
  uint64_t nBytes = tl_count_ahead_bytes;
  long long sec, nsec;
  char zLine[256];
  TlTrace *p = 0;
  TlErr err;
  FILE *in = fopen(TD "perf/wakeup.times.txt", "r");
  int nHelpers;
  (void)state;
  assert_non_null(in);
  while( fgets(zLine, sizeof(zLine), in) ){
    int64_t ts;
    assert_int_equal(sscanf(zLine, "%lld.%9lld:", &sec, &nsec), 2);
    ts = (int64_t)sec*1000000000 + nsec;
    nAll++;
    nWin += ts>=lo && ts<=hi;
  }
  fclose(in);
  assert_int_equal(nAll, 65);
  assert_true(nWin>0 && nWin<nAll);
  tl_err_clear(&err);
  assert_int_equal(tl_trace_open(TD "perf/wakeup.data", 0, &p, &err), TL_OK);
  tl_count_ahead_bytes = 1;
  tl_count_ahead_after_ns = INT64_MAX;
  assert_int_equal(count_of_type(p, "SAMPLE", TL_TS_MIN, TL_TS_MAX, &nHelpers), nAll);
  assert_int_equal(nHelpers, 0);
  assert_int_equal(count_of_type(p, "SAMPLE", lo, hi, &nHelpers), nWin);
  if( sysconf(_SC_NPROCESSORS_ONLN)>1 ){
    assert_int_equal(nHelpers, 1);
  }else{
    print_message("one CPU: the helper thread is not started, its check skipped\n");
  }
  tl_trace_release(p);

  in = fopen(TD "xray/fdr.yaml", "r");
  assert_non_null(in);
  nAll = 0;
  while( fgets(zLine, sizeof(zLine), in) ) nAll += strstr(zLine, "kind:")!=0;
  fclose(in);
  assert_int_equal(tl_trace_open(TD "xray/fdr.xray", 0, &p, &err), TL_OK);
  assert_true(p->index.n > 1);
  assert_int_equal(count_of_type(p, 0, TL_TS_MIN, TL_TS_MAX, &nHelpers), nAll);
  assert_int_equal(nHelpers, 0);
  tl_trace_release(p);
  tl_count_ahead_bytes = nBytes;
  tl_count_ahead_after_ns = nsAfter;
}

TL_DEFINE_GROUP(accel,
  cmocka_unit_test(accel_counts_ahead_equal_the_events_written),
  cmocka_unit_test(accel_counts_the_index_answers_start_no_helper),
  cmocka_unit_test(accel_merge_streams_share_max_memory),
  cmocka_unit_test(accel_merge_ties_of_cpel_sections),
  cmocka_unit_test(accel_merge_ties_and_a_stream_back_in_time),
  cmocka_unit_test(accel_ordered_scans_merge_streams),
  cmocka_unit_test(accel_counts_are_one_row_per_packet),
  cmocka_unit_test(accel_varying_columns_spill_and_equal_plain),
  cmocka_unit_test(accel_compare_finds_a_missing_row),
  cmocka_unit_test(accel_bad_value_is_an_error_naming_it),
  cmocka_unit_test(accel_off_plans_sort_in_sqlite),
  cmocka_unit_test(accel_is_not_part_of_the_cache_key),
  cmocka_unit_test(accel_bound_options_group_in_the_engine),
  cmocka_unit_test(accel_grouping_splits_past_its_cap),
  cmocka_unit_test(accel_sorted_grouping_past_its_cap_is_an_error),
  cmocka_unit_test(accel_off_same_rows_on_testdata),
  cmocka_unit_test(accel_off_same_rows_on_peer_traces),
);
