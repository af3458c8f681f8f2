/*
** test_ctf_tsdl.c: CTF metadata unpacking and the TSDL tokenizer.
*/
#include "tltest.h"

#include <stdio.h>
#include <string.h>

#include "ctf/tsdl.h"

/* Append a 37-byte metadata packet header in byte order bBig. */
static size_t put_hdr(uint8_t *a, int bBig, uint32_t nContent, uint32_t nPacket){
  uint32_t av[4];
  size_t i = 0;
  int k, j;
  av[0] = TL_CTF_META_MAGIC; av[1] = 0; av[2] = nContent; av[3] = nPacket;
  for(k=0; k<4; k++){
    if( k==1 ){ memset(a+i, 0xab, 16); i += 16; }
    for(j=0; j<4; j++){
      int sh = bBig ? 24-8*j : 8*j;
      a[i++] = (uint8_t)(av[k]>>sh);
    }
  }
  a[i++] = 0; a[i++] = 0; a[i++] = 0; a[i++] = 1; a[i++] = 8;
  return i;
}

/* Two packets in byte order bBig: "trace {" + padding, then "};". */
static size_t make_packets(uint8_t *a, int bBig){
  size_t i = 0, h;
  h = put_hdr(a, bBig, (37+7)*8, (37+7+5)*8);
  assert_int_equal(h, TL_CTF_META_HDR);
  i += h;
  memcpy(a+i, "trace {", 7); i += 7;
  memset(a+i, 0, 5); i += 5;
  i += put_hdr(a+i, bBig, (37+2)*8, (37+2)*8);
  memcpy(a+i, "};", 2); i += 2;
  return i;
}

static void sniff_and_unpack_both_orders(void **state){
  uint8_t a[200];
  int bBig;
  (void)state;
  for(bBig=0; bBig<2; bBig++){
    TlStr s;
    TlErr e;
    size_t n = make_packets(a, bBig);
    tl_err_clear(&e);
    tl_str_init(&s);
    assert_int_equal(tl_tsdl_sniff(a, n), 2);
    assert_int_equal(tl_tsdl_text(a, n, &s, &e), TL_OK);
    assert_int_equal(s.n, 9);
    assert_memory_equal(s.z, "trace {};", 9);
    tl_str_free(&s);
  }
}

static void sniff_plain_text(void **state){
  static const char z1[] = "/* CTF 1.8 */\ntrace {};";
  static const char z2[] = "trace {};";
  (void)state;
  assert_int_equal(tl_tsdl_sniff((const uint8_t*)z1, strlen(z1)), 1);
  assert_int_equal(tl_tsdl_sniff((const uint8_t*)z2, strlen(z2)), 0);
  assert_int_equal(tl_tsdl_sniff((const uint8_t*)z1, 3), 0);
}

static void unpack_rejects_truncated_and_bad_sizes(void **state){
  uint8_t a[200];
  TlStr s;
  TlErr e;
  size_t n;
  (void)state;
  n = make_packets(a, 0);
  /* Cut inside the second packet's header. */
  tl_err_clear(&e); tl_str_init(&s);
  assert_int_equal(tl_tsdl_text(a, 49+10, &s, &e), TL_ECORRUPT);
  assert_int_equal(e.iOff, 49);
  tl_str_free(&s);
  /* Cut inside the first packet's padding. */
  tl_err_clear(&e); tl_str_init(&s);
  assert_int_equal(tl_tsdl_text(a, 46, &s, &e), TL_ECORRUPT);
  assert_int_equal(e.iOff, 0);
  tl_str_free(&s);
  /* content_size larger than packet_size. */
  put_hdr(a, 0, 100*8, 40*8);
  tl_err_clear(&e); tl_str_init(&s);
  assert_int_equal(tl_tsdl_text(a, n, &s, &e), TL_ECORRUPT);
  assert_non_null(strstr(e.zMsg, "content_size"));
  tl_str_free(&s);
}

/* Lex z and return the tokens' kinds and texts joined as "K:text ". */
static void lex_all(const char *z, char *zOut, size_t nOut){
  TlTsdlLex lx;
  TlTsdlTok t;
  TlErr e;
  size_t i = 0;
  tl_err_clear(&e);
  tl_tsdl_lex_init(&lx, z, strlen(z));
  for(;;){
    int m;
    assert_int_equal(tl_tsdl_lex_next(&lx, &t, &e), TL_OK);
    if( t.eKind==TL_TSDL_EOF ) break;
    m = snprintf(zOut+i, nOut-i, "%d:%.*s ", t.eKind, (int)t.n, t.z);
    assert_true(m>0 && (size_t)m<nOut-i);
    i += (size_t)m;
  }
  zOut[i] = 0;
}

static void lex_tokens_comments_crlf(void **state){
  char z[512];
  (void)state;
  lex_all("/* CTF 1.8 */\r\ntypealias integer { size = 8; } := uint8_t;\r\n"
          "// line comment\r\nenum e : uint8_t { A = 0 ... 3, \"b c\" };",
          z, sizeof(z));
  assert_string_equal(z,
    "1:typealias 1:integer 4:{ 1:size 4:= 2:8 4:; 4:} 4::= 1:uint8_t 4:; "
    "1:enum 1:e 4:: 1:uint8_t 4:{ 1:A 4:= 2:0 4:... 2:3 4:, 3:b c 4:} 4:; ");
  lex_all("event.fields := stream.packet.context->x[2];", z, sizeof(z));
  assert_string_equal(z,
    "1:event 4:. 1:fields 4::= 1:stream 4:. 1:packet 4:. 1:context 4:-> "
    "1:x 4:[ 2:2 4:] 4:; ");
}

static void lex_integer_bases(void **state){
  static const struct { const char *z; uint64_t v; } a[] = {
    { "42", 42 }, { "0x75D11D57", 0x75D11D57u }, { "017", 15 }, { "0", 0 },
    { "18446744073709551615ULL", UINT64_MAX }, { "32U", 32 },
  };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    TlTsdlLex lx;
    TlTsdlTok t;
    TlErr e;
    tl_err_clear(&e);
    tl_tsdl_lex_init(&lx, a[k].z, strlen(a[k].z));
    assert_int_equal(tl_tsdl_lex_next(&lx, &t, &e), TL_OK);
    assert_int_equal(t.eKind, TL_TSDL_INT);
    assert_true(t.iVal==a[k].v);
  }
}

static void lex_errors_name_offset_and_line(void **state){
  static const struct { const char *z; uint64_t iOff; const char *zMsg; } a[] = {
    { "a /* open", 2, "unterminated comment" },
    { "\n\"abc", 1, "line 2: unterminated string" },
    { "18446744073709551616", 0, "64 bits" },
    { "x @", 2, "unexpected byte 0x40" },
    { "0x", 0, "hex digits" },
    { "12ab", 0, "bad integer" },
  };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    TlTsdlLex lx;
    TlTsdlTok t;
    TlErr e;
    int rc;
    tl_err_clear(&e);
    tl_tsdl_lex_init(&lx, a[k].z, strlen(a[k].z));
    do{
      rc = tl_tsdl_lex_next(&lx, &t, &e);
    }while( rc==TL_OK && t.eKind!=TL_TSDL_EOF );
    assert_int_equal(rc, TL_ECORRUPT);
    assert_true(e.iOff==a[k].iOff);
    assert_non_null(strstr(e.zMsg, a[k].zMsg));
  }
}

TL_DEFINE_GROUP(ctf_tsdl,
  cmocka_unit_test(sniff_and_unpack_both_orders),
  cmocka_unit_test(sniff_plain_text),
  cmocka_unit_test(unpack_rejects_truncated_and_bad_sizes),
  cmocka_unit_test(lex_tokens_comments_crlf),
  cmocka_unit_test(lex_integer_bases),
  cmocka_unit_test(lex_errors_name_offset_and_line),
);
