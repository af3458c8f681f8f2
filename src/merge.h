/*
** merge.h: the ts-order merge, the engine's side (src/merge.c).
**
** When a scan must come in ascending ts and the reader splits it into
** streams (readers/reader.h: xStreams), the engine opens one reader scan
** per stream that may match, each in ascending ts, and merges their rows
** with one heap: the least ts first (NULL ts before any), a tie to the
** lower stream.
*/
#ifndef TL_MERGE_H
#define TL_MERGE_H

#include "reader.h"

typedef struct TlMerge TlMerge;

/*
** Start the merged scan of table iTable (nCol columns, the ts in column
** iTsCol) with filter f when it is ordered and the reader gives streams
** for it: TL_OK with *ppMerge, TL_DONE when it is not merged here
** (*ppMerge NULL), or an error in *pErr.
*/
int tl_merge_open(TlTrace*, int iTable, int nCol, int iTsCol, const TlFilter *f,
                  TlMerge **ppMerge, TlErr *pErr);

/* The next row into pRow: TL_ROW, TL_DONE, or < 0. */
int tl_merge_next(TlMerge*, TlRow *pRow);

/* The rowid and a lazy column of the current row's iRepeat-th repeat. */
int tl_merge_rowid(TlMerge*, int64_t iRepeat, int64_t *piRowid);
int tl_merge_value(TlMerge*, int64_t iRepeat, int iCol, TlVal *pOut);

/* The error after a call returned < 0. */
const TlErr *tl_merge_err(TlMerge*);

void tl_merge_close(TlMerge*);     /* NULL-safe */

#endif /* TL_MERGE_H */
