/*
** derive.h: tables the engine derives from another table's rows with a
** model sum, in one pass when the query opens (derive.c): call_stats and
** call_stacks from the rows of calls.
*/
#ifndef TL_DERIVE_H
#define TL_DERIVE_H

#include "reader.h"

typedef struct TlDerive TlDerive;

/* Is table iTable (TL_TAB_*) derived from another one? */
int tl_derive_is(int iTable);

/*
** Read the rows table iTable derives from (with filter f's progress= and
** accel=) into the model's sums: TL_OK with *ppDerive, or an error.
*/
int tl_derive_open(TlTrace*, int iTable, const TlFilter *f, TlDerive **ppDerive, TlErr *pErr);

/* The next row into a (of the table's columns) and *piRowid: TL_ROW,
** TL_DONE, or < 0 (tl_derive_err). */
int tl_derive_next(TlDerive*, TlVal *a, int64_t *piRowid);

const TlErr *tl_derive_err(TlDerive*);
void tl_derive_close(TlDerive*);      /* NULL-safe */

#endif /* TL_DERIVE_H */
