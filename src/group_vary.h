/*
** group_vary.h: the values that vary within a group of the engine's
** grouped output (src/group.c), kept per entry.
**
** A GROUP BY whose query uses other columns that are about one value per
** row (a call's dur, an event's ts) cannot collapse its rows into counts:
** each entry of the grouped output (its GROUP BY values and the other
** columns that repeat) then keeps a list of those integer values, a tuple
** of nW per row, in the order the rows came. The lists live in memory up
** to a cap; past it every list's tuples in memory go to an unlinked
** temporary file in TMPDIR (as one block each, in order) and the lists
** start again. A list is read back block by block, in the order written.
** Stores of several threads merge by moving one's lists onto another's
** ends (their files move along, still open). An integer value of a
** varying column is not part of its row's key (the key says 'v' for it);
** a value of another type (NULL, a real, text) is, as any value.
*/
#ifndef TL_GROUP_VARY_H
#define TL_GROUP_VARY_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "reader.h"

#define TL_VARY_FILES 4           /* temporary files a store holds at most */

typedef struct TlVarySeg TlVarySeg;
typedef struct TlVaryList TlVaryList;
typedef struct TlVary TlVary;
typedef struct TlVaryRead TlVaryRead;

struct TlVaryList {
  TlVarySeg *aSeg;                /* blocks before the current tuples, in order */
  size_t nSeg, nSegAlloc;
  int64_t *a;                     /* the latest tuples, in memory */
  size_t n, nAlloc;               /* (in words: tuples * nW) */
};

struct TlVary {
  int nW;                         /* values a tuple has */
  uint64_t nCap;                  /* bytes of tuples kept in memory at most */
  uint64_t nMem;                  /* bytes of them now */
  uint64_t nSpilled;              /* bytes written to files so far */
  TlVaryList *aList;
  size_t nList, nListAlloc;
  int aFd[TL_VARY_FILES];         /* temporary files: [0] its own (-1: none yet), */
  int nFd;                        /* then those of stores taken from */
  uint64_t nTmp;                  /* bytes written to its own */
  int iMovedTo;                   /* its files are another's from this one on
                                  ** (-1: not moved) */
};

/* A list being read (tl_vary_read_*). */
struct TlVaryRead {
  const TlVaryList *pList;
  size_t iSeg;                    /* next segment (nSeg: the memory's tuples) */
  uint64_t iOff, nLeft;           /* the rest of the file segment being read */
  int bDone;
  int64_t *aBuf;                  /* words read from a file */
};

/*
** The varying columns of one grouped output (TlGroup.v): which they are,
** the row at hand's tuple, the lists, and the list being given.
*/
typedef struct TlGroupVary TlGroupVary;
struct TlGroupVary {
  uint64_t mVary;                 /* the columns (bit i: column i) */
  int nW;                         /* how many */
  int aWOf[TL_MAX_NCOL];          /* column -> its place in a tuple */
  int aWCol[TL_MAX_NCOL];         /* place in a tuple -> its column */
  int64_t aW[TL_MAX_NCOL];        /* the row at hand's tuple */
  int bRow;                       /* it has a varying integer */
  uint64_t nCap;                  /* bytes of tuples in memory (0: the caller's) */
  TlVary store;
  int bOut;                       /* a list is being given (tl_gvary_next): */
  TlVaryRead vr;                  /* read, */
  const int64_t *aChunk;          /* a chunk at a time */
  size_t nChunk, iChunk;
  uint64_t nGiven;                /* its rows given so far */
};

void tl_gvary_init(TlGroupVary*);
/* The columns of mVary vary (of nCol): tuples of as many values. */
void tl_gvary_set(TlGroupVary*, uint64_t mVary, int nCol);
/* Value v of column iCol of the row at hand: 1 when it is a varying
** integer (kept in the tuple; its key says 'v'), else 0. */
static inline int tl_gvary_val(TlGroupVary *p, int iCol, const TlVal *v){
  if( !(p->mVary>>iCol & 1) || v->t!=TL_INT ) return 0;
  if( !p->bRow ) memset(p->aW, 0, (size_t)p->nW*sizeof(int64_t));
  p->bRow = 1;
  p->aW[p->aWOf[iCol]] = v->i;
  return 1;
}
/* The tuple of aRow (nothing lazy) as the row at hand's. */
void tl_gvary_row(TlGroupVary*, const TlVal *aRow);
/* n more rows of the row at hand's tuple onto list *piList (1 + its index;
** 0: made now), nCap the bytes in memory when the store has none set. */
int tl_gvary_note(TlGroupVary*, size_t *piList, uint64_t n, uint64_t nCap, TlErr*);
/* List iSrc (1 + index) of pSrc moved onto the end of list *piDst (likewise). */
int tl_gvary_merge(TlGroupVary*, size_t *piDst, TlGroupVary *pSrc, size_t iSrc, TlErr*);
/* Drop every list (and stop giving one). */
void tl_gvary_reset(TlGroupVary*);
void tl_gvary_free(TlGroupVary*);
/* Give list iList (1 + index): then tl_gvary_next() until TL_DONE. */
void tl_gvary_begin(TlGroupVary*, size_t iList);
/*
** The next rows of the list being given into pRow, whose values aVal
** (nCol) hold the entry's key, its varying integers set from the tuples:
** TL_ROW (one row standing for a run of them, *piBase the first's place
** in the list; one varying column: TlRow.aVary), TL_DONE when the list
** is done (it must have given nWant rows), or < 0.
*/
int tl_gvary_next(TlGroupVary*, TlVal *aVal, int nCol, TlRow *pRow, uint64_t nWant,
                  uint64_t *piBase, TlErr*);
/* Bytes written to temporary files so far (tests). */
uint64_t tl_gvary_spilled(const TlGroupVary*);

#endif /* TL_GROUP_VARY_H */
