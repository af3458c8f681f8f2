/*
** test_reorder.c: records put back in time order (src/base/reorder.h).
**
** What comes back is checked against the definition: a stable sort of what
** went in by time (equal times in the order they came).
*/
#include "tltest.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "reorder.h"

typedef struct Head Head;
struct Head { uint64_t iIn; int64_t ts; };

typedef struct In In;
struct In { int64_t ts; uint64_t iIn; };

static int in_cmp(const void *a, const void *b){
  const In *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->iIn<y->iIn ? -1 : x->iIn>y->iIn;
}

static uint64_t rnd(uint64_t *p){
  *p = *p*6364136223846793005ull + 1442695040888963407ull;
  return *p>>33;
}

/* Push one record: the body is its arrival index repeated, n bytes. */
static int push(TlReorder *q, int64_t ts, uint32_t iLane, uint64_t iIn, size_t n){
  Head h = { iIn, ts };
  uint8_t a[300];
  size_t k;
  for(k=0; k<n; k++) a[k] = (uint8_t)(iIn + k);
  return tl_reorder_push(q, ts, iLane, &h, sizeof(h), a, n);
}

/* Pop one record, checking its header and body; its arrival index. */
static uint64_t pop(TlReorder *q){
  void *pHead;
  const uint8_t *a;
  size_t n, k;
  Head h;
  assert_int_equal(tl_reorder_pop(q, &pHead, &a, &n), 1);
  memcpy(&h, pHead, sizeof(h));
  assert_int_equal(n, h.iIn % 300);
  for(k=0; k<n; k++) assert_int_equal(a[k], (uint8_t)(h.iIn + k));
  return h.iIn;
}

/* Lanes each in time order but interleaved, some out of order within a
** lane, ties across lanes, lanes past TL_REORDER_LANES and none: all of
** it comes back as the stable sort by time. */
static void reorder_gives_the_stable_sort(void **state){
  enum { N = 20000 };
  In *a = malloc(N*sizeof(In));
  int64_t aLast[8] = {0};
  uint64_t r = 7, i;
  TlReorder q;
  (void)state;
  assert_non_null(a);
  tl_reorder_init(&q, (uint64_t)64<<20);
  for(i=0; i<N; i++){
    uint32_t k = (uint32_t)(rnd(&r) % 8);
    uint32_t aLane[8] = { 0, 1, 2, 3, 5000, UINT32_MAX, 7, TL_REORDER_LANES };
    int64_t ts;
    if( rnd(&r) % 50==0 ) ts = aLast[k] - (int64_t)(rnd(&r) % 1000);   /* late */
    else ts = aLast[k] + (int64_t)(rnd(&r) % 3);                        /* ties too */
    aLast[k] = ts;
    a[i].ts = ts;
    a[i].iIn = i;
    assert_int_equal(push(&q, ts, aLane[k], i, (size_t)(i % 300)), TL_OK);
  }
  qsort(a, N, sizeof(In), in_cmp);
  for(i=0; i<N; i++){
    int64_t ts;
    assert_int_equal(tl_reorder_least(&q, &ts), 1);
    assert_true(ts==a[i].ts);
    assert_true(pop(&q)==a[i].iIn);
  }
  assert_int_equal(tl_reorder_least(&q, &(int64_t){0}), 0);
  assert_true(q.nRec==0);
  tl_reorder_free(&q);
  free(a);
}

/* Pushes and pops in turn, a window of records held: the memory held stays
** that of the window, however many records pass (blocks and runs reused). */
static void reorder_memory_follows_what_is_held(void **state){
  TlReorder q;
  uint64_t i, nIn = 0, nOut = 0, nMaxBytes = 0;
  uint32_t nRunMax = 0;
  (void)state;
  tl_reorder_init(&q, (uint64_t)64<<20);
  for(i=0; i<200000; i++){
    /* two lanes; every 100th record of lane 1 a little late */
    int64_t ts = (int64_t)i*10 - ((i % 2) && i % 100==1 ? 25 : 0);
    assert_int_equal(push(&q, ts, (uint32_t)(i % 2), nIn++, (size_t)(i % 300)), TL_OK);
    if( q.nRec>500 ){
      pop(&q);
      nOut++;
    }
    if( q.nBytes>nMaxBytes ) nMaxBytes = q.nBytes;
    if( q.nRun>nRunMax ) nRunMax = q.nRun;
  }
  while( q.nRec ){ pop(&q); nOut++; }
  assert_true(nOut==nIn);
  /* 500 records of at most 40+16+304 bytes: a few 64 KiB blocks */
  assert_true(nMaxBytes < (uint64_t)512<<10);
  assert_true(nRunMax < 64);
  tl_reorder_free(&q);
}

/* Past the limit: TL_ELIMIT, what was held still comes back in order. */
static void reorder_limit(void **state){
  TlReorder q;
  uint64_t i, n = 0;
  int rc = TL_OK;
  (void)state;
  tl_reorder_init(&q, (uint64_t)200<<10);
  for(i=0; i<100000 && rc==TL_OK; i++){
    rc = push(&q, (int64_t)(100000 - i), 0, i, (size_t)(i % 300));   /* each late: a run each */
    if( rc==TL_OK ) n++;
  }
  assert_int_equal(rc, TL_ELIMIT);
  assert_true(n>100 && n<2000);
  assert_true(q.nBytes<=(uint64_t)200<<10);
  for(i=0; i<n; i++) assert_true(pop(&q)==n-1-i);
  assert_int_equal(tl_reorder_least(&q, &(int64_t){0}), 0);
  tl_reorder_free(&q);
}

TL_DEFINE_GROUP(reorder,
  cmocka_unit_test(reorder_gives_the_stable_sort),
  cmocka_unit_test(reorder_memory_follows_what_is_held),
  cmocka_unit_test(reorder_limit),
);
