/*
** test_percentile.c: median(), percentile(), percentile_cont() and
** percentile_disc() (src/percentile.c) give what SQLite's percentile
** extension's definition says (ext/misc/percentile.c: the sorted values
** as a graph with straight lines, read at P*(N-1)), with its messages.
*/
#include "tltest.h"

#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define T1 "(SELECT column1 AS x FROM (VALUES (1),(4),(6),(7),(8),(9),(11),(11),(11),(NULL),(NULL)))"

static void pct_one(sqlite3 *db, const char *zExpr, const char *zWant){
  char *z = tl_test_sql_rows(db, "SELECT %s FROM " T1, zExpr);
  assert_string_equal(z, zWant);
  free(z);
}

static void pct_err(sqlite3 *db, const char *zSql, const char *zWant){
  char *z = tl_test_sql_error(db, "%s", zSql);
  assert_non_null(z);
  assert_non_null(strstr(z, zWant));
  free(z);
}

static void percentile_as_sqlite_defines_it(void **state){
  sqlite3 *db = tl_test_db();
  char *z;
  (void)state;
  /* nine values 1 4 6 7 8 9 11 11 11 (and two NULLs, left out) */
  pct_one(db, "percentile(x,0)", "1.0");
  pct_one(db, "percentile(x,100)", "11.0");
  pct_one(db, "percentile(x,50)", "8.0");
  pct_one(db, "percentile(x,20)", "5.2");          /* 1.6: 4 + 0.6*(6-4) */
  pct_one(db, "percentile(x,12.5)", "4.0");        /* 1.0 */
  pct_one(db, "percentile(x,80)", "11.0");         /* 6.4: 11 + 0.4*0 */
  pct_one(db, "median(x)", "8.0");
  pct_one(db, "percentile_cont(x,0.15)", "4.4");   /* 1.2 */
  pct_one(db, "percentile_disc(x,0.15)", "4.0");
  pct_one(db, "percentile_disc(x,0.99)", "11.0");
  pct_one(db, "typeof(percentile_disc(x,0.5))", "real");
  /* even counts: the middle two's mean; one value; none */
  z = tl_test_sql_rows(db, "SELECT median(column1) FROM (VALUES (3),(1),(2),(10))");
  assert_string_equal(z, "2.5");
  free(z);
  z = tl_test_sql_rows(db, "SELECT percentile(column1, 30) FROM (VALUES (7))");
  assert_string_equal(z, "7.0");
  free(z);
  z = tl_test_sql_rows(db, "SELECT quote(median(column1)) FROM (VALUES (NULL))");
  assert_string_equal(z, "NULL");
  free(z);
  /* per group, and as a window (rows leaving it are taken out) */
  z = tl_test_sql_rows(db, "SELECT g, median(v) FROM (SELECT column1 AS g, column2 AS v FROM "
                           "(VALUES (1,5),(1,1),(2,4),(1,3),(2,8))) GROUP BY g");
  assert_string_equal(z, "1|3.0\n2|6.0");
  free(z);
  z = tl_test_sql_rows(db, "SELECT group_concat(m, ' ') FROM (SELECT median(column1) OVER "
                           "(ORDER BY rowid ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS m FROM "
                           "(VALUES (4),(2),(9),(9),(1)))");
  assert_string_equal(z, "4.0 3.0 5.5 9.0 5.0");
  free(z);
  /* SQLite's errors */
  pct_err(db, "SELECT percentile(x, 101) FROM " T1,
          "the fraction argument to percentile() is not between 0.0 and 100.0");
  pct_err(db, "SELECT percentile_cont(x, -0.5) FROM " T1,
          "the fraction argument to percentile_cont() is not between 0.0 and 1.0");
  pct_err(db, "SELECT percentile_disc(x, 'a') FROM " T1,
          "the fraction argument to percentile_disc() is not between 0.0 and 1.0");
  pct_err(db, "SELECT percentile(x, x*10) FROM " T1,
          "the fraction argument to percentile() is not the same for all input rows");
  pct_err(db, "SELECT median(column1) FROM (VALUES ('a'))", "input to median() is not numeric");
  pct_err(db, "SELECT median(column1) FROM (VALUES (1e999))", "Inf input to median()");
  tl_test_db_close(db);
}

/*
** The values of table v (g, x) with p = 0, 0.25, 0.5, 0.9, 0.99, 1: per
** group g, percentile_disc and percentile_cont against the definition
** worked out in plain SQL (a[i] and a[i+1] of the sorted x by row number).
*/
static void pct_like_definition(sqlite3 *db, const char *zValues){
  char *zOurs, *zDef;
  int rc = sqlite3_exec(db, "DROP TABLE IF EXISTS v", 0, 0, 0);
  assert_int_equal(rc, SQLITE_OK);
  zOurs = sqlite3_mprintf("CREATE TABLE v AS %s", zValues);
  rc = sqlite3_exec(db, zOurs, 0, 0, 0);
  sqlite3_free(zOurs);
  assert_int_equal(rc, SQLITE_OK);
  zOurs = tl_test_sql_rows(db,
      "WITH p(p) AS (VALUES (0.0),(0.25),(0.5),(0.9),(0.99),(1.0)) "
      "SELECT g, p, percentile_disc(x, p), percentile_cont(x, p) "
      "FROM v, p GROUP BY g, p ORDER BY g, p");
  zDef = tl_test_sql_rows(db,
      "WITH p(p) AS (VALUES (0.0),(0.25),(0.5),(0.9),(0.99),(1.0)), "
      "n AS (SELECT g, p, count(x) AS n FROM v, p GROUP BY g, p), "
      "i AS (SELECT g, p, n, CAST(p * (n - 1) AS INTEGER) AS i, p * (n - 1) AS r FROM n), "
      "s AS (SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY x) - 1 AS k FROM v WHERE x NOT NULL) "
      "SELECT i.g, i.p, CAST(s0.x AS REAL), CAST(s0.x AS REAL) + (s1.x - s0.x) * (r - i) "
      "FROM i JOIN s AS s0 ON s0.g = i.g AND s0.k = i.i "
      "JOIN s AS s1 ON s1.g = i.g AND s1.k = min(i.i + 1, i.n - 1) ORDER BY i.g, i.p");
  assert_string_equal(zOurs, zDef);
  free(zOurs);
  free(zDef);
}

/* Values counted by distinct value, or kept one each when most are
** distinct (past 65,536 of them), or both in turn, give the same. */
static void percentile_of_many_values(void **state){
  sqlite3 *db = tl_test_db();
  (void)state;
  /* 100,000 values of 37 and 3 distinct ones, in two groups */
  pct_like_definition(db, "WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 99999) "
                          "SELECT k % 2 AS g, (k * 7919) % 37 + (k % 3) * 0.5 AS x FROM c");
  /* 20,000 distinct values, out of order, and NULLs */
  pct_like_definition(db, "WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 19999) "
                          "SELECT 1 AS g, CASE WHEN k % 10 = 0 THEN NULL ELSE (k * 7919) % 20011 - 5000 END "
                          "AS x FROM c");
  /* 50,000 repeats of 100 values, then 100,000 distinct ones (counted, then
  ** one each); -0.0 and 0.0 */
  pct_like_definition(db, "WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 149999) "
                          "SELECT 1 AS g, CASE WHEN k < 50000 THEN (k * 31) % 100 - 50.0 "
                          "WHEN k < 50010 THEN -0.0 ELSE k * 1.5 END AS x FROM c");
  /* a window over repeated values */
  {
    char *z = tl_test_sql_rows(db, "SELECT group_concat(m, ' ') FROM (SELECT median(column1) OVER "
                                   "(ORDER BY rowid ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS m FROM "
                                   "(VALUES (5),(5),(1),(5),(1),(1),(9)))");
    assert_string_equal(z, "5.0 5.0 5.0 5.0 1.0 1.0 1.0");
    free(z);
  }
  tl_test_db_close(db);
}

/*
** Memory follows the distinct values, not the first rows: 2,000 distinct
** values first, then 498,000 repeats of 64 values. One each they would
** take 4 MB (8 bytes a value); counted, 2,064 distinct values take a table
** of 4,096 slots (64 KiB). Past 1 MiB more than before the query is a
** failure. The values 0..63 come 7,781 times each, 16..31 once more (k
** from 2,000: 2,000 % 64 is 16), so sorted, the 249,008 values up to 31
** are followed by 32s: a[249,999] and a[250,000] are 32; the 99th
** percentile, at 494,999.01, is between two 63s.
*/
static void percentile_memory_follows_distinct_values(void **state){
  static const char *zValues =
      "WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 499999) "
      "SELECT 1 AS g, CASE WHEN k < 2000 THEN 100000 + k ELSE k % 64 END AS x FROM c";
  sqlite3 *db = tl_test_db();
  sqlite3_int64 nCur, nHigh, nBefore;
  char *z;
  (void)state;
  z = sqlite3_mprintf("CREATE TABLE v AS %s", zValues);
  assert_int_equal(sqlite3_exec(db, z, 0, 0, 0), SQLITE_OK);
  sqlite3_free(z);
  if( sqlite3_memory_used()==0 ){
    print_message("SQLite keeps no memory statistics here (SQLITE_DEFAULT_MEMSTATUS=0): "
                  "the memory check is skipped\n");
    tl_test_db_close(db);
    return;
  }
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nBefore, &nHigh, 1);
  z = tl_test_sql_rows(db, "SELECT count(*), percentile_disc(x, 0.5), median(x), "
                          "percentile_cont(x, 0.99) FROM v");
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nHigh, 0);
  assert_string_equal(z, "500000|32.0|32.0|63.0");
  free(z);
  assert_true(nHigh - nBefore < 1024*1024);
  tl_test_db_close(db);
}

TL_DEFINE_GROUP(percentile,
  cmocka_unit_test(percentile_as_sqlite_defines_it),
  cmocka_unit_test(percentile_of_many_values),
  cmocka_unit_test(percentile_memory_follows_distinct_values),
);
