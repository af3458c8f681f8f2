/*
** fuzz_sql.c: libFuzzer target for the whole extension through SQL: the
** input is written to a file, and every table is queried over it as a
** user would (format detected from the content), in file order, in time
** order, through a time window and a cpu filter, grouped. Each query runs
** with the options '' and 'accel=off' (path and options are literals, so
** that the plan sees them) and the two answers must be the same multiset
** of rows when both succeed, or the target aborts; pairs where only one
** fails are counted and printed at exit. Built by `make fuzz` (target sql,
** linked with SQLite and the extension's objects); `make check` replays
** the test traces through it.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);
int sqlite3_tracelite_init(sqlite3*, char**, const sqlite3_api_routines*);

#define FUZZ_SQL_MAX_ROWS 100000  /* per query: a bound, not an expectation */

/* Each takes (path, options) pairs, as many as it names the trace. */
static const char *const azSql[] = {
  "SELECT count(*), sum(length(args)), sum(length(text)), sum(length(callchain)) "
  "FROM events(%Q, %Q)",
  "SELECT ts, cpu FROM events(%Q, %Q) ORDER BY ts",
  "SELECT count(*) FROM events(%Q, %Q) WHERE ts BETWEEN (SELECT min(ts_begin) FROM "
  "packets(%Q, %Q)) AND (SELECT min(ts_begin) FROM packets(%Q, %Q)) + 1000000",
  "SELECT count(*) FROM events(%Q, %Q) WHERE cpu IN (0, 1)",
  "SELECT name, count(*) FROM events(%Q, %Q) GROUP BY name",
  "SELECT cpu, count(*), sum(value) FROM events(%Q, %Q) GROUP BY cpu",
  "SELECT func_id, count(*), sum(dur) FROM xray_calls(%Q, %Q) GROUP BY func_id",
  "SELECT * FROM call_stats(%Q, %Q)",
  "SELECT stack, sum(calls), count(DISTINCT tid), sum(total_dur) FROM call_stacks(%Q, %Q) GROUP BY stack",
  "SELECT * FROM tracks(%Q, %Q)",
  "SELECT id, stream, cpu, file, offset, size, events FROM packets(%Q, %Q)",
  "SELECT * FROM event_types(%Q, %Q)",
  "SELECT * FROM perf_features(%Q, %Q)",
  "SELECT * FROM callchains(%Q, %Q)",
  "SELECT * FROM symbols(%Q, %Q)",
  "SELECT * FROM trace_warnings(%Q, %Q)",
};

/* An answer as a multiset of row hashes, kept as sums. */
typedef struct SqlSum SqlSum;
struct SqlSum {
  int rc;                         /* SQLITE_DONE, or the error */
  int bCut;                       /* stopped at FUZZ_SQL_MAX_ROWS */
  uint64_t nRow, sum, sumMix;
};

static uint64_t nCompared, nOneFailed;

static uint64_t mix(uint64_t x){
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/* The hash of the statement's current row. */
static uint64_t row_hash(sqlite3_stmt *pStmt){
  uint64_t h = 0x84222325cbf29ce4ULL;
  int i, j, n = sqlite3_column_count(pStmt);
  for(i=0; i<n; i++){
    const unsigned char *z;
    int nz;
    h = mix(h ^ (uint64_t)sqlite3_column_type(pStmt, i));
    switch( sqlite3_column_type(pStmt, i) ){
      case SQLITE_INTEGER: h = mix(h ^ (uint64_t)sqlite3_column_int64(pStmt, i)); break;
      case SQLITE_FLOAT: {
        double r = sqlite3_column_double(pStmt, i);
        uint64_t u;
        memcpy(&u, &r, sizeof(u));
        h = mix(h ^ u);
        break;
      }
      case SQLITE_NULL: break;
      default:
        z = sqlite3_column_blob(pStmt, i);
        nz = sqlite3_column_bytes(pStmt, i);
        for(j=0; j<nz; j++) h = (h ^ z[j]) * 0x100000001b3ULL;
        break;
    }
  }
  return h;
}

/* Run query k on zPath with options zOpt into *pSum. */
static void run(sqlite3 *db, size_t k, const char *zPath, const char *zOpt, SqlSum *pSum){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf(azSql[k], zPath, zOpt, zPath, zOpt, zPath, zOpt);
  memset(pSum, 0, sizeof(*pSum));
  pSum->rc = SQLITE_NOMEM;
  if( zSql==0 ) return;
  pSum->rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( pSum->rc!=SQLITE_OK ) return;
  while( (pSum->rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    uint64_t h;
    if( pSum->nRow>=FUZZ_SQL_MAX_ROWS ){ pSum->bCut = 1; break; }
    h = row_hash(pStmt);
    pSum->nRow++;
    pSum->sum += h;
    pSum->sumMix += mix(h ^ 0x5555555555555555ULL);
  }
  sqlite3_finalize(pStmt);
}

static void report(void){
  printf("sql: %llu queries compared with accel=off; in %llu only one of the two failed\n",
         (unsigned long long)nCompared, (unsigned long long)nOneFailed);
}

/* Run query k with accel on and off and compare the answers. */
static void run_pair(sqlite3 *db, size_t k, const char *zPath){
  SqlSum a, b;
  run(db, k, zPath, "", &a);
  run(db, k, zPath, "accel=off", &b);
  if( nCompared++==0 ) atexit(report);
  if( (a.rc==SQLITE_DONE)!=(b.rc==SQLITE_DONE) && !a.bCut && !b.bCut ){
    nOneFailed++;
    return;
  }
  if( a.rc!=SQLITE_DONE || a.bCut || b.bCut ) return;
  if( a.nRow!=b.nRow || a.sum!=b.sum || a.sumMix!=b.sumMix ){
    fprintf(stderr, "sql: other rows under accel=off (%llu, %llu plain): %s\n",
            (unsigned long long)a.nRow, (unsigned long long)b.nRow, azSql[k]);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  static char zPath[64];
  sqlite3 *db = 0;
  FILE *f;
  size_t k;
  if( zPath[0]==0 ) snprintf(zPath, sizeof(zPath), "/tmp/tl-fuzz-sql-%d", (int)getpid());
  f = fopen(zPath, "wb");
  if( f==0 ) return 0;
  if( n ) fwrite(a, 1, n, f);
  fclose(f);
  if( sqlite3_open(":memory:", &db)==SQLITE_OK ){
    sqlite3_tracelite_init(db, 0, 0);
    for(k=0; k<sizeof(azSql)/sizeof(azSql[0]); k++) run_pair(db, k, zPath);
  }
  sqlite3_close(db);
  unlink(zPath);
  return 0;
}
