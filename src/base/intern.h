/*
** intern.h: text that outlives every trace and cursor, for results that
** SQLite may keep without a copy (SQLITE_STATIC).
**
** A grouped row gives the same name for millions of repeats; handing SQLite
** the name without a copy saves a copy per repeat. SQLite may then keep the
** pointer past the cursor (min(name) keeps its best value as is), so the
** bytes must not belong to the trace, which a later query may close. Each
** distinct text is kept once, until the library is unloaded: that happens
** only when no connection has it loaded, so no statement holds a pointer.
** At most TL_INTERN_MAX bytes are kept in all: past that, NULL (the caller
** copies as before).
*/
#ifndef TL_INTERN_H
#define TL_INTERN_H

#include <stddef.h>

#define TL_INTERN_MAX (1u<<20)

/* The kept copy of the n bytes at z (NUL-terminated), or NULL. Threadsafe. */
const char *tl_intern(const char *z, size_t n);

#endif
