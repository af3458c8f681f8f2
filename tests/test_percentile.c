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

TL_DEFINE_GROUP(percentile,
  cmocka_unit_test(percentile_as_sqlite_defines_it),
);
