/*
** group.h: grouped output, the engine's side (src/group.c).
**
** For GROUP BY or DISTINCT on columns of a table (the plan's
** TL_PLAN_COLLAPSE), when the scan's used columns are few values repeated
** many times: the table's ordinary scan (counted or not) runs once, rows
** with equal values of every used column collapse into one entry of a hash
** table, and the entries come out as one row each (TlRow.nRepeat: how many
** rows it stands for), those with equal values of the GROUP BY columns
** next to each other. SQLite then needs no sorter.
**
** Memory is bounded by the distinct entries, not the rows: past the
** trace's max_memory the rows are split by the hash of their values into
** parts, one scan each, so that one part's entries fit; every row of a
** group is in the same part. Rowids of collapsed rows come from one more
** scan of the part, only when SQLite asks for one.
*/
#ifndef TL_GROUP_H
#define TL_GROUP_H

#include "trace.h"

typedef struct TlGroup TlGroup;

/*
** Start grouped output of table iTable (nCol columns) with filter f
** (f->mCols: the columns collapsed on; the grouping bits are ignored),
** checked row by row against f with the columns of pCols. mGroupBy: the
** GROUP BY or DISTINCT columns, a subset of f->mCols. TL_OK with *ppGroup,
** or an error in *pErr. The first rows are worked out by the first
** tl_group_next.
*/
int tl_group_open(TlTrace*, int iTable, int nCol, const TlFilter *f,
                  const TlFilterCols *pCols, uint64_t mGroupBy, TlGroup **ppGroup,
                  TlErr *pErr);

/*
** The order the entries must come in, before the first tl_group_next: n
** terms, column aCol[i] descending when aDesc[i] (SQLite's order of types
** and values, binary collation). SQLite (3.40) asks for GROUP BY with its
** sqlite3_vtab_distinct() 1 also when an ORDER BY on the same terms follows,
** and then takes the rows' order for the ORDER BY's: so the entries of a
** GROUP BY come sorted, and rows given before the scan ends (a tally's first
** key) and parts split by hash (past max_memory: an error instead) are off.
*/
void tl_group_set_order(TlGroup*, int n, const int *aCol, const int *aDesc);

/*
** Columns (bit i: column i; not GROUP BY columns) that vary within a group,
** before the first tl_group_next: their integer values are not collapsed
** on but kept per entry, every row's in turn (a bounded part in memory,
** the rest in a temporary file in TMPDIR), and the entry's rows come as
** runs of them (src/group_vary.h). A sum, min or max over a call's dur
** grouped by function, or min(ts) grouped by name, then needs no sorter.
*/
void tl_group_set_vary(TlGroup*, uint64_t mVary);

/* The next entry into pRow (pRow->a: nCol values): TL_ROW, TL_DONE or < 0. */
int tl_group_next(TlGroup*, TlRow *pRow);

/* The rowid of the current entry's iRepeat-th row. */
int tl_group_rowid(TlGroup*, int64_t iRepeat, int64_t *piRowid);

/*
** Tests: the bytes one part may hold (instead of max_memory), before the
** first tl_group_next; and how many times a part was split so far.
*/
void tl_group_set_cap(TlGroup*, uint64_t nBytes);
int tl_group_splits(const TlGroup*);
/* Tests: the bytes of varying values kept in memory (instead of a
** sixteenth of max_memory), before the first tl_group_next; the bytes
** written to the temporary file so far. */
void tl_group_set_vary_cap(TlGroup*, uint64_t nBytes);
uint64_t tl_group_spilled(const TlGroup*);
/* Tests: have the reader's tallies (xTallyPacket) made the entries so far? */
int tl_group_tallied(const TlGroup*);

/* The error after a call returned < 0. */
const TlErr *tl_group_err(TlGroup*);

void tl_group_close(TlGroup*);     /* NULL-safe */

#endif /* TL_GROUP_H */
