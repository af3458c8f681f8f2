/*
** test_ctf_decode.c: the CTF bit cursor. Expected values follow the
** CTF 1.8 bitfield rules: little-endian fields take bits from the least
** significant end of each byte, big-endian ones from the most significant.
*/
#include "tltest.h"

#include <string.h>

#include "bytes.h"
#include "ctf/ctf_decode.h"

static void bitfields_le_and_be(void **state){
  static const uint8_t a[] = { 0xB5, 0x01 };   /* 1011 0101, 0000 0001 */
  TlCtfBits c;
  uint64_t v;
  int64_t s;
  (void)state;
  tl_ctf_bits_init(&c, a, 2, 16);
  assert_int_equal(tl_ctf_bits_uint(&c, 1, 3, TL_LE, &v), 0);
  assert_true(v==5);                           /* low bits 101 */
  assert_int_equal(tl_ctf_bits_sint(&c, 1, 5, TL_LE, &s), 0);
  assert_true(s==-10);                         /* 10110 = 22, signed -10 */
  assert_int_equal(tl_ctf_bits_uint(&c, 8, 8, TL_LE, &v), 0);
  assert_true(v==1);
  assert_int_equal(tl_ctf_bits_uint(&c, 1, 1, TL_LE, &v), -1);  /* at end */
  tl_ctf_bits_init(&c, a, 2, 16);
  assert_int_equal(tl_ctf_bits_uint(&c, 1, 3, TL_BE, &v), 0);
  assert_true(v==5);                           /* high bits 101 */
  assert_int_equal(tl_ctf_bits_uint(&c, 1, 5, TL_BE, &v), 0);
  assert_true(v==21);                          /* 10101 */
  /* A field straddling bytes: 12 bits from bit 4, BE: 0101 0000 0001. */
  tl_ctf_bits_init(&c, a, 2, 16);
  c.iBit = 4;
  assert_int_equal(tl_ctf_bits_uint(&c, 1, 12, TL_BE, &v), 0);
  assert_true(v==0x501);
}

static void alignment_and_content_end(void **state){
  static const uint8_t a[] = { 0xff, 0x34, 0x12, 0, 0x78, 0x56, 0x34, 0x12 };
  TlCtfBits c;
  uint64_t v;
  (void)state;
  /* content ends at 6 bytes: the aligned 32-bit read at byte 4 would pass it */
  tl_ctf_bits_init(&c, a, 8, 48);
  assert_int_equal(tl_ctf_bits_uint(&c, 1, 1, TL_LE, &v), 0);
  assert_int_equal(tl_ctf_bits_uint(&c, 32, 32, TL_LE, &v), -1);
  assert_true(c.iBit==1);                      /* failed read did not move */
  assert_int_equal(tl_ctf_bits_uint(&c, 8, 16, TL_LE, &v), 0);
  assert_true(v==0x1234);
  assert_true(c.iBit==24);
  tl_ctf_bits_init(&c, a, 8, 64);
  c.iBit = 1;
  assert_int_equal(tl_ctf_bits_uint(&c, 32, 32, TL_BE, &v), 0);
  assert_true(v==0x78563412);
  assert_int_equal(tl_ctf_bits_align(&c, 8), 0);
  assert_int_equal(tl_ctf_bits_align(&c, 128), -1);
  /* nBitEnd past the buffer is clamped. */
  tl_ctf_bits_init(&c, a, 2, 1000);
  assert_true(c.nBitEnd==16);
}

static void floats_and_strings(void **state){
  static const uint8_t a[] = {
    0x00, 0x00, 0xc0, 0x3f,                    /* 1.5f LE */
    0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, /* pi BE */
    'h', 'i', 0, 'x', 'y',                     /* "hi", then no NUL */
  };
  TlCtfBits c;
  double d;
  const char *z;
  size_t n;
  (void)state;
  tl_ctf_bits_init(&c, a, sizeof(a), sizeof(a)*8);
  assert_int_equal(tl_ctf_bits_float(&c, 8, 32, TL_LE, &d), 0);
  assert_true(d==1.5);
  assert_int_equal(tl_ctf_bits_float(&c, 8, 64, TL_BE, &d), 0);
  assert_true(d==3.141592653589793);
  assert_int_equal(tl_ctf_bits_string(&c, &z, &n), 0);
  assert_int_equal(n, 2);
  assert_memory_equal(z, "hi", 2);
  assert_int_equal(tl_ctf_bits_string(&c, &z, &n), -1);
  assert_int_equal(tl_ctf_bits_float(&c, 8, 16, TL_LE, &d), -1);
}

static void clock_wrap_rule(void **state){
  (void)state;
  /* 27-bit field: same high bits while the low bits grow. */
  assert_true(tl_ctf_clock_update(0x10000005ull, 0x0000010, 27)==0x10000010ull);
  /* Low bits went down: one wrap of 2^27. */
  assert_true(tl_ctf_clock_update(0x17ffff00ull, 0x0000010, 27)==0x18000010ull);
  /* Equal low bits: no wrap. */
  assert_true(tl_ctf_clock_update(0x1000abcdull, 0xabcd, 27)==0x1000abcdull);
  /* A 64-bit field replaces the value. */
  assert_true(tl_ctf_clock_update(500, 7, 64)==7);
}

static void clock_to_ns(void **state){
  int64_t ns;
  (void)state;
  /* 1 GHz: cycles are ns. */
  assert_int_equal(tl_ctf_clock_ns(1000000000, 1700000000, 250, 1000, &ns), 0);
  assert_true(ns==1700000000000001250ll);
  /* 1 MHz: a cycle is 1000 ns. */
  assert_int_equal(tl_ctf_clock_ns(1000000, 2, 3, 5, &ns), 0);
  assert_true(ns==2000000000ll + 3000 + 5000);
  /* 3 Hz: 2 cycles = 666666666.67 ns, truncated. */
  assert_int_equal(tl_ctf_clock_ns(3, 0, 0, 2, &ns), 0);
  assert_true(ns==666666666);
  /* Negative offset_s. */
  assert_int_equal(tl_ctf_clock_ns(1000000000, -1, 0, 10, &ns), 0);
  assert_true(ns==-999999990ll);
  assert_int_equal(tl_ctf_clock_ns(0, 0, 0, 1, &ns), -1);
  assert_int_equal(tl_ctf_clock_ns(1, 0, 0, UINT64_MAX, &ns), -1);
}

TL_DEFINE_GROUP(ctf_decode,
  cmocka_unit_test(bitfields_le_and_be),
  cmocka_unit_test(alignment_and_content_end),
  cmocka_unit_test(floats_and_strings),
  cmocka_unit_test(clock_wrap_rule),
  cmocka_unit_test(clock_to_ns),
);
