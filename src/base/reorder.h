/*
** reorder.h: records put back in time order.
**
** A producer that writes from several lanes (perf: one ring buffer per
** CPU) gives records that are in time order within a lane and out of
** order across lanes. A TlReorder takes copies of them as they come, each
** with its time and lane, and gives them back least time first, ties in
** the order they came, up to a time the caller says no later record can
** precede.
**
** A lane's records go into a run while their times do not decrease; a
** record earlier than its lane's last starts a new run, so any order is
** taken, and a lane in order is one run. Giving a record back is then a
** merge of the runs' heads (a heap of runs: a few, one per lane, in a
** well-formed trace), not a heap of records. The copies are laid end to
** end in blocks in the order they came, read back nearly in that order;
** a block is freed once every record in it was given back.
**
** Memory: the blocks and runs held, bounded by the caller's limit
** (TL_ELIMIT past it). A record given back stays readable until the next
** pop or free.
*/
#ifndef TL_REORDER_H
#define TL_REORDER_H

#include <stddef.h>
#include <stdint.h>

#define TL_REORDER_LANES 1024       /* lanes 0..this-1 kept apart; higher
                                    ** lanes (and "no lane") share one */

typedef struct TlReorder TlReorder;
struct TlReorder {
  uint64_t nMax;                  /* bytes of blocks allowed */
  uint64_t nBytes;                /* bytes of blocks and runs held */
  uint64_t iSeq;                  /* records pushed: the next one's place */
  uint64_t nRec;                  /* records held, not given back */
  struct TlReorderBlk **aBlk; uint32_t nBlk; size_t nBlkAlloc;   /* blocks, by index */
  uint32_t *aBlkFree; uint32_t nBlkFree; size_t nBlkFreeAlloc;   /* indexes without one */
  struct TlReorderBlk *pSpare;    /* a block kept for reuse */
  uint32_t iCur;                  /* the block records are added to, or UINT32_MAX */
  struct TlReorderRun *aRun; uint32_t nRun; size_t nRunAlloc;    /* runs, by index */
  uint32_t *aRunFree; uint32_t nRunFree; size_t nRunFreeAlloc;   /* runs not in use */
  uint32_t *aHeap; uint32_t nHeap; size_t nHeapAlloc;  /* runs with records, least head on top */
  int32_t aLane[TL_REORDER_LANES+1];      /* each lane's run records go to, or -1 */
  struct TlReorderRec *pOut;      /* the record given back last, or NULL */
};

/* An empty buffer holding at most nMax bytes. */
void tl_reorder_init(TlReorder*, uint64_t nMax);
void tl_reorder_free(TlReorder*);

/*
** Copy in a record: its time, its lane (UINT32_MAX: none), a header of
** nHead bytes kept aligned to 8 (a struct of the caller's) and a body of
** nBody bytes. TL_OK, TL_ENOMEM, or TL_ELIMIT when the blocks would pass
** nMax.
*/
int tl_reorder_push(TlReorder*, int64_t ts, uint32_t iLane,
                    const void *pHead, size_t nHead, const void *pBody, size_t nBody)
#if defined(__GNUC__)
  __attribute__((warn_unused_result))
#endif
  ;

/* The bytes of the blocks a record with a header of nHead bytes and a body
** of nBody takes. */
size_t tl_reorder_rec_bytes(size_t nHead, size_t nBody);

/* The least time held, into *pTs: 1, or 0 when nothing is held. */
int tl_reorder_least(const TlReorder*, int64_t *pTs);

/*
** Give back the least record (time, then the order they came): 1 with its
** header and body (valid until the next pop or free), 0 when
** nothing is held.
*/
int tl_reorder_pop(TlReorder*, void **ppHead, const uint8_t **ppBody, size_t *pnBody);

#endif /* TL_REORDER_H */
