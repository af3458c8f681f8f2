/*
** percentile.h: the aggregates median(Y), percentile(Y,P),
** percentile_cont(Y,P) and percentile_disc(Y,P) (src/percentile.c).
*/
#ifndef TL_PERCENTILE_H
#define TL_PERCENTILE_H

typedef struct sqlite3 sqlite3;

/* Register the four where the connection does not have them already
** (SQLite built with its percentile extension, or another extension's). */
int tl_percentile_register(sqlite3 *db);

#endif /* TL_PERCENTILE_H */
