/*
** count.h: counted scans, the engine's side (src/count.c).
**
** When a reader offers the counting hooks (readers/reader.h: xCountCols,
** xCountOpen, xPacketCount, xPacketValue, xCountClose) and a scan uses only
** columns counted rows can give (count(*), count(*) with a ts window, a CPU
** set or a type), the scan walks the packet index: one row per packet that
** may match, repeated as many times as the reader counts rows of it that
** pass the filter. Rowids and lazy values come from the reader on demand.
*/
#ifndef TL_COUNT_H
#define TL_COUNT_H

#include "reader.h"

typedef struct TlCount TlCount;

/*
** Start a counted scan of table iTable (nCol columns) with filter f when
** the reader and the filter allow one: TL_OK with *ppCount, TL_DONE when
** the scan is not counted (*ppCount NULL), or an error in *pErr.
*/
int tl_count_open(TlTrace*, int iTable, int nCol, const TlFilter *f, TlCount **ppCount,
                  TlErr *pErr);

/* The next counted row into pRow (pRow->a: nCol values): TL_ROW, TL_DONE, or < 0. */
int tl_count_next(TlCount*, TlRow *pRow);

/* The rowid of the current row's iRepeat-th repeat. */
int tl_count_rowid(TlCount*, int64_t iRepeat, int64_t *piRowid);

/* Column iCol of the current row's iRepeat-th repeat. */
int tl_count_value(TlCount*, int64_t iRepeat, int iCol, TlVal *pOut);

/* The error after a call returned < 0. */
const TlErr *tl_count_err(TlCount*);

void tl_count_close(TlCount*);     /* NULL-safe */

/*
** A counted scan counts ahead on a helper thread from its start when the
** packets that may match need tl_count_ahead_bytes or more read to count
** them (1 MiB: a millisecond or more of decoding; reader.h,
** xPacketCountBytes), else once it has spent tl_count_ahead_after_ns
** nanoseconds counting alone, the time SQLite spends on its rows not
** counted (10 ms; tests set 0 to count ahead from the second packet on).
*/
extern uint64_t tl_count_ahead_bytes;
extern int64_t tl_count_ahead_after_ns;

/* Helper threads counted scans have started in this process (tests read it). */
extern uint64_t tl_count_helpers;

#endif /* TL_COUNT_H */
