/*
** test_str.c: the string and JSON builder, and error formatting.
*/
#include "tltest.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "intern.h"
#include "reader.h"
#include "str.h"

static void json_nested_object_and_array(void **state){
  TlStr s;
  (void)state;
  tl_str_init(&s);
  tl_json_obj_begin(&s);
  tl_json_key(&s, "a"); tl_json_int(&s, -5);
  tl_json_key(&s, "b"); tl_json_arr_begin(&s);
  tl_json_uint(&s, 18446744073709551615ull); tl_json_strz(&s, "x"); tl_json_null(&s);
  tl_json_arr_end(&s);
  tl_json_key(&s, "c"); tl_json_obj_begin(&s); tl_json_obj_end(&s);
  tl_json_key(&s, "d"); tl_json_double(&s, 0.1);
  tl_json_obj_end(&s);
  assert_false(s.bErr);
  assert_string_equal(s.z, "{\"a\":-5,\"b\":[18446744073709551615,\"x\",null],\"c\":{},\"d\":0.1}");
  tl_str_free(&s);
}

static void json_string_escapes_and_replaces_bad_utf8(void **state){
  TlStr s;
  (void)state;
  tl_str_init(&s);
  tl_json_str(&s, "q\"\\\n\x01\xff" "\xc3\xa9", 8);
  assert_string_equal(s.z, "\"q\\\"\\\\\\n\\u0001\xEF\xBF\xBD\xc3\xa9\"");
  tl_str_free(&s);
}

static void json_hex_bytes(void **state){
  static const uint8_t a[] = { 0x00, 0xab, 0x10 };
  TlStr s;
  (void)state;
  tl_str_init(&s);
  tl_json_hex(&s, a, 3);
  assert_string_equal(s.z, "\"00ab10\"");
  tl_str_free(&s);
}

static void err_is_sticky_and_formats_offset(void **state){
  TlErr e;
  char z[200];
  (void)state;
  tl_err_clear(&e);
  assert_int_equal(tl_err_set(&e, TL_ECORRUPT, 42, "expected %s", "magic"), TL_ECORRUPT);
  assert_int_equal(tl_err_set(&e, TL_EIO, 7, "later"), TL_ECORRUPT);
  tl_err_format(&e, "t.cpel", z, (int)sizeof(z));
  assert_string_equal(z, "t.cpel: offset 42: expected magic");
  tl_err_clear(&e);
  tl_err_set(&e, TL_EIO, TL_NO_OFFSET, "cannot open");
  tl_err_format(&e, "x", z, (int)sizeof(z));
  assert_string_equal(z, "x: cannot open");
}

static void json_deep_nesting_is_valid_then_refused(void **state){
  TlStr s;
  int i;
  (void)state;
  tl_str_init(&s);
  for(i=0; i<100; i++){ tl_json_arr_begin(&s); tl_json_int(&s, i); }
  for(i=0; i<100; i++) tl_json_arr_end(&s);
  assert_false(s.bErr);
  assert_int_equal(strncmp(s.z, "[0,[1,[2,", 9), 0);
  assert_int_equal(strncmp(s.z + s.n - 5, "]]]]]", 5), 0);
  tl_str_reset(&s);
  for(i=0; i<TL_JSON_MAXDEPTH+1; i++) tl_json_obj_begin(&s);
  assert_true(s.bErr);
  tl_str_free(&s);
}

/* One kept copy per distinct text (its n bytes, then a NUL), none past the cap. */
static void intern_keeps_one_copy_within_its_cap(void **state){
  char zBuf[16];
  const char *a, *b;
  char *zBig = malloc(TL_INTERN_MAX + 1);
  TlVal v;
  (void)state;
  assert_non_null(zBig);
  memcpy(zBuf, "name:x", 7);
  a = tl_intern("name:x", 6);
  b = tl_intern(zBuf, 6);
  assert_non_null(a);
  assert_ptr_equal(a, b);
  assert_ptr_not_equal(a, zBuf);
  assert_string_equal(a, "name:x");
  assert_ptr_equal(tl_intern("name:xy", 6), a);
  b = tl_intern("name:y", 6);
  assert_non_null(b);
  assert_ptr_not_equal(a, b);
  b = tl_intern("a\0b", 3);
  assert_non_null(b);
  assert_memory_equal(b, "a\0b", 4);
  /* a text the cap has no room for: NULL, and a value borrows it */
  memset(zBig, 'x', TL_INTERN_MAX + 1);
  assert_null(tl_intern(zBig, TL_INTERN_MAX + 1));
  assert_null(tl_intern(zBig, TL_INTERN_MAX - 8));
  tl_val_text_kept(&v, zBig, TL_INTERN_MAX - 8);
  assert_int_equal(v.t, TL_TEXT);
  assert_false(v.bKept);
  assert_ptr_equal(v.z, zBig);
  tl_val_text_kept(&v, "name:y", 6);
  assert_true(v.bKept);
  assert_ptr_equal(v.z, tl_intern("name:y", 6));
  tl_val_text(&v, zBuf, 6);
  assert_false(v.bKept);
  free(zBig);
}

TL_DEFINE_GROUP(str,
  cmocka_unit_test(json_deep_nesting_is_valid_then_refused),
  cmocka_unit_test(json_nested_object_and_array),
  cmocka_unit_test(json_string_escapes_and_replaces_bad_utf8),
  cmocka_unit_test(json_hex_bytes),
  cmocka_unit_test(err_is_sticky_and_formats_offset),
  cmocka_unit_test(intern_keeps_one_copy_within_its_cap),
);
