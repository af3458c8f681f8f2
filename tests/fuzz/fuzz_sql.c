/*
** fuzz_sql.c: libFuzzer target for the whole extension through SQL: the
** input is written to a file, and every table is queried over it as a
** user would (format detected from the content), in file order, in time
** order, through a time window and a cpu filter. Built by `make fuzz`
** (target sql, linked with SQLite and the extension's objects); `make
** check` replays the test traces through it.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);
int sqlite3_tracelite_init(sqlite3*, char**, const sqlite3_api_routines*);

static const char *const azSql[] = {
  "SELECT count(*), sum(length(args)), sum(length(text)), sum(length(callchain)) FROM events(?1)",
  "SELECT ts, cpu FROM events(?1) ORDER BY ts",
  "SELECT count(*) FROM events(?1) WHERE ts BETWEEN (SELECT min(ts_begin) FROM packets(?1)) "
  "AND (SELECT min(ts_begin) FROM packets(?1)) + 1000000",
  "SELECT count(*) FROM events(?1) WHERE cpu IN (0, 1)",
  "SELECT * FROM tracks(?1)",
  "SELECT * FROM packets(?1)",
  "SELECT * FROM event_types(?1)",
  "SELECT * FROM perf_features(?1)",
  "SELECT * FROM callchains(?1)",
  "SELECT * FROM symbols(?1)",
  "SELECT * FROM trace_warnings(?1)",
};

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
    for(k=0; k<sizeof(azSql)/sizeof(azSql[0]); k++){
      sqlite3_stmt *pStmt = 0;
      int nRow = 0;
      if( sqlite3_prepare_v2(db, azSql[k], -1, &pStmt, 0)!=SQLITE_OK ) continue;
      sqlite3_bind_text(pStmt, 1, zPath, -1, SQLITE_STATIC);
      while( sqlite3_step(pStmt)==SQLITE_ROW && ++nRow < 100000 ){}
      sqlite3_finalize(pStmt);
    }
  }
  sqlite3_close(db);
  unlink(zPath);
  return 0;
}
