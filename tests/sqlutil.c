/*
** sqlutil.c: SQL helpers for the tests (see tltest.h).
*/
#include "tltest.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sqlite3 *tl_test_db(void){
  sqlite3 *db = 0;
  char *zErr = 0;
  int rc = sqlite3_open(":memory:", &db);
  assert_int_equal(rc, SQLITE_OK);
  sqlite3_enable_load_extension(db, 1);
  rc = sqlite3_load_extension(db, TL_BUILD_DIR "/tracelite.so", "sqlite3_tracelite_init", &zErr);
  if( rc!=SQLITE_OK ) fail_msg("load_extension: %s", zErr ? zErr : "?");
  return db;
}

void tl_test_db_close(sqlite3 *db){
  sqlite3_close(db);
}

static char *vformat(const char *zFmt, va_list ap){
  char *z = sqlite3_vmprintf(zFmt, ap);
  assert_non_null(z);
  return z;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    fail_msg("prepare: %s\n  in: %s", sqlite3_errmsg(db), zSql);
  }
  return pStmt;
}

int64_t tl_test_sql_int(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  char *zSql;
  sqlite3_stmt *pStmt;
  int64_t v = 0;
  int rc;
  va_start(ap, zFmt);
  zSql = vformat(zFmt, ap);
  va_end(ap);
  pStmt = prepare(db, zSql);
  rc = sqlite3_step(pStmt);
  if( rc==SQLITE_ROW ){
    v = sqlite3_column_int64(pStmt, 0);
  }else if( rc!=SQLITE_DONE ){
    fail_msg("step: %s\n  in: %s", sqlite3_errmsg(db), zSql);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  return v;
}

char *tl_test_sql_text(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  char *zSql, *zOut = 0;
  sqlite3_stmt *pStmt;
  int rc;
  va_start(ap, zFmt);
  zSql = vformat(zFmt, ap);
  va_end(ap);
  pStmt = prepare(db, zSql);
  rc = sqlite3_step(pStmt);
  if( rc==SQLITE_ROW ){
    const unsigned char *z = sqlite3_column_text(pStmt, 0);
    if( z ) zOut = strdup((const char*)z);
  }else if( rc!=SQLITE_DONE ){
    fail_msg("step: %s\n  in: %s", sqlite3_errmsg(db), zSql);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  return zOut;
}

char *tl_test_sql_rows(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  char *zSql, *zOut;
  sqlite3_stmt *pStmt;
  sqlite3_str *pOut = sqlite3_str_new(0);
  int rc, nRow = 0;
  va_start(ap, zFmt);
  zSql = vformat(zFmt, ap);
  va_end(ap);
  pStmt = prepare(db, zSql);
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    int i, n = sqlite3_column_count(pStmt);
    if( nRow++ ) sqlite3_str_appendchar(pOut, 1, '\n');
    for(i=0; i<n; i++){
      const unsigned char *z = sqlite3_column_text(pStmt, i);
      if( i ) sqlite3_str_appendchar(pOut, 1, '|');
      if( z ) sqlite3_str_appendall(pOut, (const char*)z);
    }
  }
  if( rc!=SQLITE_DONE ) fail_msg("step: %s\n  in: %s", sqlite3_errmsg(db), zSql);
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  {
    char *z = sqlite3_str_finish(pOut);
    zOut = strdup(z ? z : "");
    sqlite3_free(z);
  }
  return zOut;
}

char *tl_test_sql_error(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  char *zSql, *zOut = 0;
  sqlite3_stmt *pStmt = 0;
  int rc;
  va_start(ap, zFmt);
  zSql = vformat(zFmt, ap);
  va_end(ap);
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc==SQLITE_OK ){
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
    if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  }
  if( rc!=SQLITE_OK ) zOut = strdup(sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  return zOut;
}

void tl_lines_add(TlLines *p, const char *z){
  if( p->n==p->nAlloc ){
    p->nAlloc = p->nAlloc ? p->nAlloc*2 : 128;
    p->az = realloc(p->az, p->nAlloc*sizeof(char*));
    assert_non_null(p->az);
  }
  p->az[p->n] = strdup(z);
  assert_non_null(p->az[p->n]);
  p->n++;
}

static int lines_cmp(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

void tl_lines_sort(TlLines *p){
  if( p->n ) qsort(p->az, p->n, sizeof(char*), lines_cmp);
}

void tl_lines_free(TlLines *p){
  size_t i;
  for(i=0; i<p->n; i++) free(p->az[i]);
  free(p->az);
  memset(p, 0, sizeof(*p));
}

void tl_test_rows_equal_text(char *zOurs, sqlite3_str *pRef){
  char *z = sqlite3_str_finish(pRef);
  size_t n = z ? strlen(z) : 0;
  if( n ) z[n-1] = 0;
  assert_string_equal(zOurs, z ? z : "");
  sqlite3_free(z);
  free(zOurs);
}
