/*
** test_index.c: the packet index.
*/
#include "tltest.h"

#include "err.h"
#include "index.h"

static TlPacket pkt(int64_t b, int64_t e, int64_t cpu){
  TlPacket p = {0};
  p.tsBegin = b; p.tsEnd = e; p.iCpu = cpu; p.nEvents = 10; p.iStream = -1; p.iSeq = -1;
  return p;
}

static void index_add_grows_and_counts(void **state){
  TlIndex x;
  int i;
  (void)state;
  tl_index_init(&x);
  for(i=0; i<1000; i++){
    TlPacket p = pkt(i*10, i*10+9, i%4);
    assert_int_equal(tl_index_add(&x, &p), TL_OK);
  }
  assert_int_equal(x.n, 1000);
  assert_true(tl_index_events(&x)==10000);
  x.a[5].nEvents = TL_UNKNOWN;
  assert_true(tl_index_events(&x)==TL_UNKNOWN);
  assert_int_equal(tl_packets_first_end_ge(x.a, x.n, 0), 0);
  assert_int_equal(tl_packets_first_end_ge(x.a, x.n, 55), 5);
  assert_int_equal(tl_packets_first_end_ge(x.a, x.n, 59), 5);
  assert_int_equal(tl_packets_first_end_ge(x.a, x.n, 60), 6);
  assert_int_equal(tl_packets_first_end_ge(x.a, x.n, 100000), 1000);
  tl_index_free(&x);
}

static void packet_may_match_window_and_cpu(void **state){
  TlPacket p = pkt(100, 200, 2);
  int64_t a1[] = { 1, 3 }, a2[] = { 2 };
  (void)state;
  assert_true(tl_packet_may_match(&p, 150, 160, 0, -1));
  assert_true(tl_packet_may_match(&p, 200, 300, 0, -1));
  assert_false(tl_packet_may_match(&p, 201, 300, 0, -1));
  assert_false(tl_packet_may_match(&p, 0, 99, 0, -1));
  assert_false(tl_packet_may_match(&p, TL_TS_MIN, TL_TS_MAX, a1, 2));
  assert_true(tl_packet_may_match(&p, TL_TS_MIN, TL_TS_MAX, a2, 1));
  p.iCpu = -1; p.mCpu = (1u<<1) | (1u<<5);
  assert_true(tl_packet_may_match(&p, TL_TS_MIN, TL_TS_MAX, a1, 2));
  assert_false(tl_packet_may_match(&p, TL_TS_MIN, TL_TS_MAX, a2, 1));
  p.mCpu |= (uint64_t)1<<63;
  assert_true(tl_packet_may_match(&p, TL_TS_MIN, TL_TS_MAX, a2, 1));
}

TL_DEFINE_GROUP(index,
  cmocka_unit_test(index_add_grows_and_counts),
  cmocka_unit_test(packet_may_match_window_and_cpu),
);
