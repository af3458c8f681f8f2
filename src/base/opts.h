/*
** opts.h: the options string.
**
** Grammar:   options := [ pair { sep pair } ]
**            pair    := key [ws] '=' [ws] value
**            sep     := ',' | ';' | whitespace
**            value   := bare | 'single quoted' | "double quoted"
** A bare value runs to the next separator; quoted values may hold any
** character, with the quote doubled to include it. Keys are letters, digits
** and '_'. The same keys are accepted as the arguments of CREATE VIRTUAL
** TABLE ... USING events(path='x', binary='y').
*/
#ifndef TL_OPTS_H
#define TL_OPTS_H

#include <stdint.h>

#include "err.h"

#define TL_OPTS_MAX 16

typedef struct TlOpts TlOpts;
struct TlOpts {
  int n;                          /* pairs used */
  char *azKey[TL_OPTS_MAX];       /* malloc'd keys */
  char *azVal[TL_OPTS_MAX];       /* malloc'd values */
};

void tl_opts_init(TlOpts*);
void tl_opts_free(TlOpts*);

/*
** Parse z (may be NULL or empty) and add its pairs to *p. A key given twice
** keeps the last value. Returns TL_OK or TL_EMISUSE with a message naming
** the character position.
*/
int tl_opts_parse(TlOpts*, const char *z, TlErr *pErr);

/* Add one pair, replacing an earlier value of the same key. */
int tl_opts_set(TlOpts*, const char *zKey, const char *zVal);

/* The value of zKey or NULL. */
const char *tl_opts_get(const TlOpts*, const char *zKey);

/*
** The on/off value of zKey: *pbOn is bDefault when the key is absent, 1 for
** "on", 0 for "off". Returns TL_OK, or TL_EMISUSE for any other value.
*/
int tl_opts_onoff(const TlOpts*, const char *zKey, int bDefault, int *pbOn);

/*
** The whole number of zKey, digits only, in *pv: nDefault when the key is
** absent. Returns TL_OK, or TL_EMISUSE (and *pv nDefault) for an empty
** value, a sign, any other character, or a number outside nMin..nMax.
*/
int tl_opts_uint(const TlOpts*, const char *zKey, uint64_t nMin, uint64_t nMax,
                 uint64_t nDefault, uint64_t *pv);

/* clock= (tl_opts_clock) */
#define TL_CLOCK_TRACE     0      /* absent: each format's own ts */
#define TL_CLOCK_MONOTONIC 1      /* clock=monotonic: CLOCK_MONOTONIC ns */
#define TL_CLOCK_REALTIME  2      /* clock=realtime: CLOCK_REALTIME ns (epoch) */

/*
** The clock= option in *peClock: TL_CLOCK_TRACE when absent,
** TL_CLOCK_MONOTONIC for "monotonic", TL_CLOCK_REALTIME for "realtime".
** Returns TL_OK, or TL_EMISUSE (and TL_CLOCK_TRACE) for any other value.
*/
int tl_opts_clock(const TlOpts*, int *peClock);

/*
** Canonical text of the options (keys sorted, values quoted) in a malloc'd
** string; used as part of the trace cache key. NULL on OOM.
*/
char *tl_opts_canonical(const TlOpts*);

#endif /* TL_OPTS_H */
