/*
** test_bytes.c: the bounds-checked byte cursor and bit reader.
*/
#include "tltest.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bytes.h"

static void bytes_u32_both_orders_decode(void **state){
  static const uint8_t a[] = { 1, 2, 3, 4 };
  TlBytes b = tl_bytes(a, sizeof(a), TL_LE);
  uint32_t v;
  (void)state;
  assert_int_equal(tl_bytes_u32(&b, TL_LE, &v), 0);
  assert_int_equal(v, 0x04030201);
  b.i = 0;
  assert_int_equal(tl_bytes_u32(&b, TL_BE, &v), 0);
  assert_int_equal(v, 0x01020304);
  assert_int_equal(b.i, 4);
}

static void bytes_u32_short_input_fails_without_moving(void **state){
  static const uint8_t a[] = { 1, 2, 3 };
  TlBytes b = tl_bytes(a, sizeof(a), TL_LE);
  uint32_t v = 77;
  (void)state;
  assert_int_equal(tl_bytes_u32e(&b, &v), -1);
  assert_int_equal(v, 77);
  assert_int_equal(b.i, 0);
  assert_int_equal(tl_bytes_skip(&b, 2), 0);
  assert_int_equal(tl_bytes_skip(&b, 2), -1);
  assert_int_equal(b.i, 2);
}

static void bytes_u64_and_u16_decode(void **state){
  static const uint8_t a[] = { 0x88,0x77,0x66,0x55,0x44,0x33,0x22,0x11, 0xAB,0xCD };
  TlBytes b = tl_bytes(a, sizeof(a), TL_BE);
  uint64_t v;
  uint16_t h;
  (void)state;
  assert_int_equal(tl_bytes_u64(&b, TL_LE, &v), 0);
  assert_true(v==0x1122334455667788ull);
  assert_int_equal(tl_bytes_u16e(&b, &h), 0);
  assert_int_equal(h, 0xABCD);
  assert_int_equal(tl_bytes_left(&b), 0);
  assert_int_equal(tl_bytes_u8(&b, (uint8_t*)&h), -1);
}

static void bytes_huge_request_does_not_wrap(void **state){
  static const uint8_t a[16];
  TlBytes b = tl_bytes(a, sizeof(a), TL_LE), sub;
  const uint8_t *p;
  (void)state;
  assert_int_equal(tl_bytes_skip(&b, 8), 0);
  assert_int_equal(tl_bytes_skip(&b, SIZE_MAX), -1);
  assert_int_equal(tl_bytes_sub(&b, SIZE_MAX - 4, &sub), -1);
  assert_int_equal(tl_bytes_ptr(&b, SIZE_MAX, &p), -1);
  assert_int_equal(b.i, 8);
}

static void bytes_sub_window_is_bounded(void **state){
  static const uint8_t a[] = { 1,2,3,4,5,6,7,8 };
  TlBytes b = tl_bytes(a, sizeof(a), TL_LE), sub;
  uint32_t v;
  (void)state;
  assert_int_equal(tl_bytes_sub(&b, 3, &sub), 0);
  assert_int_equal(b.i, 3);
  assert_int_equal(sub.n, 3);
  assert_int_equal(tl_bytes_u32e(&sub, &v), -1);
  assert_int_equal(tl_bytes_u32e(&b, &v), 0);
  assert_int_equal(v, 0x07060504);
}

static void bytes_cstr_needs_terminator(void **state){
  static const uint8_t a[] = { 'a','b',0,'c','d' };
  TlBytes b = tl_bytes(a, sizeof(a), TL_LE);
  const char *z;
  size_t n;
  (void)state;
  assert_int_equal(tl_bytes_cstr(&b, &z, &n), 0);
  assert_int_equal(n, 2);
  assert_string_equal(z, "ab");
  assert_int_equal(tl_bytes_cstr(&b, &z, &n), -1);
  assert_int_equal(b.i, 3);
}

static void bytes_align_skips_to_multiple(void **state){
  static const uint8_t a[8];
  TlBytes b = tl_bytes(a, sizeof(a), TL_LE);
  (void)state;
  b.i = 1;
  assert_int_equal(tl_bytes_align(&b, 4), 0);
  assert_int_equal(b.i, 4);
  assert_int_equal(tl_bytes_align(&b, 4), 0);
  assert_int_equal(b.i, 4);
  b.i = 5;
  assert_int_equal(tl_bytes_align(&b, 16), -1);
  assert_int_equal(b.i, 5);
}

static void bits_read_le_crosses_bytes(void **state){
  /* 0b1011_0110 0b0000_0011: LE bits 4..9 are 1,0,1,1,1,1 from LSB = 0x3B */
  static const uint8_t a[] = { 0xB6, 0x03 };
  uint64_t v;
  (void)state;
  assert_int_equal(tl_bits_read(a, 2, 4, 6, TL_LE, &v), 0);
  assert_int_equal(v, 0x3B);
  assert_int_equal(tl_bits_read(a, 2, 0, 16, TL_LE, &v), 0);
  assert_int_equal(v, 0x03B6);
  assert_int_equal(tl_bits_read(a, 2, 11, 6, TL_LE, &v), -1);
}

static void bits_read_be_crosses_bytes(void **state){
  /* BE bit numbering from the MSB: bits 4..11 of B6 03 are 0110 0000 = 0x60 */
  static const uint8_t a[] = { 0xB6, 0x03 };
  uint64_t v;
  (void)state;
  assert_int_equal(tl_bits_read(a, 2, 4, 8, TL_BE, &v), 0);
  assert_int_equal(v, 0x60);
  assert_int_equal(tl_bits_read(a, 2, 0, 16, TL_BE, &v), 0);
  assert_int_equal(v, 0xB603);
  assert_int_equal(tl_bits_read(a, 2, 14, 2, TL_BE, &v), 0);
  assert_int_equal(v, 3);
}

static void bits_read_64_unaligned(void **state){
  static const uint8_t a[] = { 0xF0,0xDE,0xBC,0x9A,0x78,0x56,0x34,0x12,0x0F };
  uint64_t v;
  (void)state;
  /* LE: shifting the 72-bit value 0x0F123456789ABCDEF0 right by 4 */
  assert_int_equal(tl_bits_read(a, 9, 4, 64, TL_LE, &v), 0);
  assert_true(v==0xF123456789ABCDEFull);
  /* BE: bits 4..67 of F0 DE BC 9A 78 56 34 12 0F */
  assert_int_equal(tl_bits_read(a, 9, 4, 64, TL_BE, &v), 0);
  assert_true(v==0x0DEBC9A785634120ull);
}

/*
** Every offset and width against the definition, bit by bit: LE fields take
** bit k of the value from bit (i+k) % 8 of byte (i+k) / 8 counting from the
** byte's least significant bit; BE fields fill the value from its most
** significant bit, bit j of the field being bit 7 - (i+j) % 8. A 16-byte
** buffer takes the one-load path where 8 bytes are left, the byte loop near
** its end.
*/
static void bits_read_every_offset_and_width(void **state){
  uint8_t a[16];
  uint64_t iBit;
  unsigned nBits, k;
  (void)state;
  for(k=0; k<sizeof(a); k++) a[k] = (uint8_t)(0x9E * (k + 1) ^ (k << 5));
  for(iBit=0; iBit<8*sizeof(a); iBit++){
    for(nBits=1; nBits<=64; nBits++){
      uint64_t vLe = 0, vBe = 0, v;
      int bFits = iBit + nBits <= 8*sizeof(a);
      for(k=0; k<nBits && bFits; k++){
        uint64_t p = iBit + k;
        vLe |= (uint64_t)((a[p/8] >> (p%8)) & 1) << k;
        vBe = (vBe << 1) | (uint64_t)((a[p/8] >> (7 - p%8)) & 1);
      }
      assert_int_equal(tl_bits_read(a, sizeof(a), iBit, nBits, TL_LE, &v), bFits ? 0 : -1);
      if( bFits && v!=vLe ) fail_msg("LE bit %u width %u: %llx, expected %llx", (unsigned)iBit, nBits,
                                     (unsigned long long)v, (unsigned long long)vLe);
      assert_int_equal(tl_bits_read(a, sizeof(a), iBit, nBits, TL_BE, &v), bFits ? 0 : -1);
      if( bFits && v!=vBe ) fail_msg("BE bit %u width %u: %llx, expected %llx", (unsigned)iBit, nBits,
                                     (unsigned long long)v, (unsigned long long)vBe);
    }
  }
}

/*
** A record window is taken after one check of its size and then read by
** offset: a perf record header (u32 type, u16 misc, u16 size) in both byte
** orders, and a window longer than what remains is refused unmoved.
*/
static void bytes_rec_reads_fields_by_offset(void **state){
  static const uint8_t aLe[] = { 9,0,0,0, 0x02,0x40, 48,0, 0xAA };
  static const uint8_t aBe[] = { 0,0,0,9, 0x40,0x02, 0,48, 0xAA };
  TlBytes b;
  TlRec r;
  (void)state;
  b = tl_bytes(aLe, sizeof(aLe), TL_LE);
  assert_int_equal(tl_bytes_rec(&b, 8, &r), 0);
  assert_int_equal(b.i, 8);
  assert_int_equal(tl_rec_u32(&r, 0), 9);
  assert_int_equal(tl_rec_u16(&r, 4), 0x4002);
  assert_int_equal(tl_rec_u16(&r, 6), 48);
  assert_int_equal(tl_rec_u8(&r, 7), 0);
  assert_int_equal(tl_rec_u64(&r, 0), 0x0030400200000009ull);
  assert_int_equal(tl_bytes_rec(&b, 2, &r), -1);
  assert_int_equal(b.i, 8);
  b = tl_bytes(aBe, sizeof(aBe), TL_BE);
  assert_int_equal(tl_bytes_rec(&b, 8, &r), 0);
  assert_int_equal(tl_rec_u32(&r, 0), 9);
  assert_int_equal(tl_rec_u16(&r, 4), 0x4002);
  assert_int_equal(tl_rec_u16(&r, 6), 48);
  assert_int_equal(tl_bytes_rec(&b, SIZE_MAX, &r), -1);
  assert_int_equal(b.i, 8);
}

/*
** In checking builds (TL_CHECK_RECORDS: make check, the fuzzers) a load past
** its record window aborts the process: a child process tries one.
*/
static void bytes_rec_overrun_aborts_in_checking_builds(void **state){
#ifdef TL_CHECK_RECORDS
  static const uint8_t a[8] = {0};
  pid_t pid;
  int st = 0;
  (void)state;
  fflush(0);
  pid = fork();
  assert_true(pid>=0);
  if( pid==0 ){
    TlBytes b = tl_bytes(a, sizeof(a), TL_LE);
    TlRec r;
    int fd = open("/dev/null", O_WRONLY);
    if( fd>=0 ){ dup2(fd, 2); close(fd); }
    if( tl_bytes_rec(&b, 6, &r)==0 ) (void)tl_rec_u32(&r, 4);
    _exit(0);
  }
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st)==SIGABRT);
#else
  (void)state;
  print_message("skipped: this build has no TL_CHECK_RECORDS (make check has)\n");
#endif
}

TL_DEFINE_GROUP(bytes,
  cmocka_unit_test(bytes_u32_both_orders_decode),
  cmocka_unit_test(bytes_u32_short_input_fails_without_moving),
  cmocka_unit_test(bytes_u64_and_u16_decode),
  cmocka_unit_test(bytes_huge_request_does_not_wrap),
  cmocka_unit_test(bytes_sub_window_is_bounded),
  cmocka_unit_test(bytes_cstr_needs_terminator),
  cmocka_unit_test(bytes_align_skips_to_multiple),
  cmocka_unit_test(bits_read_le_crosses_bytes),
  cmocka_unit_test(bits_read_be_crosses_bytes),
  cmocka_unit_test(bits_read_64_unaligned),
  cmocka_unit_test(bits_read_every_offset_and_width),
  cmocka_unit_test(bytes_rec_reads_fields_by_offset),
  cmocka_unit_test(bytes_rec_overrun_aborts_in_checking_builds),
);
