/*
** test_opts.c: the options string.
*/
#include "tltest.h"

#include <stdlib.h>
#include <string.h>

#include "opts.h"

static void opts_parse_pairs_with_separators(void **state){
  TlOpts o;
  TlErr e;
  (void)state;
  tl_opts_init(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, " binary=./app, symfs=/x;format=perf  ", &e), TL_OK);
  assert_int_equal(o.n, 3);
  assert_string_equal(tl_opts_get(&o, "binary"), "./app");
  assert_string_equal(tl_opts_get(&o, "symfs"), "/x");
  assert_string_equal(tl_opts_get(&o, "format"), "perf");
  assert_null(tl_opts_get(&o, "other"));
  tl_opts_free(&o);
}

static void opts_quoted_values_keep_separators(void **state){
  TlOpts o;
  TlErr e;
  (void)state;
  tl_opts_init(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, "binary='my app, v2' x = \"it\"\"s\"", &e), TL_OK);
  assert_string_equal(tl_opts_get(&o, "binary"), "my app, v2");
  assert_string_equal(tl_opts_get(&o, "x"), "it\"s");
  tl_opts_free(&o);
}

static void opts_last_value_wins(void **state){
  TlOpts o;
  TlErr e;
  char *z;
  (void)state;
  tl_opts_init(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, "b=1,a=2,b=3", &e), TL_OK);
  assert_int_equal(o.n, 2);
  assert_string_equal(tl_opts_get(&o, "b"), "3");
  z = tl_opts_canonical(&o);
  assert_string_equal(z, "a='2',b='3'");
  free(z);
  tl_opts_free(&o);
}

static void opts_errors_name_the_problem(void **state){
  TlOpts o;
  TlErr e;
  (void)state;
  tl_opts_init(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, "binary", &e), TL_EMISUSE);
  assert_non_null(strstr(e.zMsg, "expected '='"));
  tl_opts_free(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, "a='open", &e), TL_EMISUSE);
  assert_non_null(strstr(e.zMsg, "unterminated quote"));
  tl_opts_free(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, "=x", &e), TL_EMISUSE);
  assert_non_null(strstr(e.zMsg, "expected a key at character 1"));
  tl_opts_free(&o);
}

static void opts_empty_and_null_are_fine(void **state){
  TlOpts o;
  TlErr e;
  (void)state;
  tl_opts_init(&o);
  tl_err_clear(&e);
  assert_int_equal(tl_opts_parse(&o, 0, &e), TL_OK);
  assert_int_equal(tl_opts_parse(&o, "", &e), TL_OK);
  assert_int_equal(tl_opts_parse(&o, " , ", &e), TL_OK);
  assert_int_equal(o.n, 0);
  tl_opts_free(&o);
}

TL_DEFINE_GROUP(opts,
  cmocka_unit_test(opts_parse_pairs_with_separators),
  cmocka_unit_test(opts_quoted_values_keep_separators),
  cmocka_unit_test(opts_last_value_wins),
  cmocka_unit_test(opts_errors_name_the_problem),
  cmocka_unit_test(opts_empty_and_null_are_fine),
);
