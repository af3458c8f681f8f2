/*
** err.h: result codes and the error record.
**
** Codes: 0 OK, positive TL_ROW/TL_DONE, negative errors. A TlErr holds the
** first error of an operation (errors are sticky), the byte offset where it
** was found and a message. The message never allocates: it is a fixed
** buffer, long enough for a path of PATH_MAX bytes and its explanation; a
** longer message is cut and ends in "...".
**
** Message form, once the file name is prefixed by the table layer:
**     <file>: offset N: <what was expected>
*/
#ifndef TL_ERR_H
#define TL_ERR_H

#include <stdint.h>

#define TL_OK            0
#define TL_ROW           1        /* a row is ready */
#define TL_DONE          2        /* no more rows */
#define TL_ENOMEM       (-1)      /* an allocation failed (nothing else) */
#define TL_EIO          (-2)      /* the operating system failed a read */
#define TL_ECORRUPT     (-3)      /* the bytes break the format's rules */
#define TL_EUNSUPPORTED (-4)      /* valid, but a feature we do not read */
#define TL_EMISUSE      (-5)      /* bad option, wrong file kind, ... */
#define TL_ELIMIT       (-6)      /* over a cap: max_memory=, fields, sizes */
#define TL_EINTR        (-7)      /* the caller asked to stop (sqlite3_interrupt) */

#define TL_NO_OFFSET UINT64_MAX   /* the error is not about a byte offset */
#define TL_ERR_MSG 4608           /* PATH_MAX and 512 bytes more */

typedef struct TlErr TlErr;
struct TlErr {
  int rc;                         /* first error code; TL_OK if none */
  uint64_t iOff;                  /* byte offset of the problem or TL_NO_OFFSET */
  char zFile[128];                /* file within a multi-file trace, or "" */
  char zMsg[TL_ERR_MSG];          /* what was expected, NUL-terminated */
};

/* Clear to TL_OK. */
void tl_err_clear(TlErr*);

/*
** Record an error unless one is already recorded (sticky). Returns the code
** that is now recorded, so `return tl_err_set(...)` propagates the first.
*/
int tl_err_set(TlErr*, int rc, uint64_t iOff, const char *zFmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;

/* Name the file of a multi-file trace the error belongs to (optional). */
void tl_err_file(TlErr*, const char *zFile);

/*
** Format "<zPath>: offset N: <msg>" (or without the offset) into z[nz], cut
** to fit. Returns the length of the whole text (as snprintf), so that a
** call with nz 0 (z may then be NULL) sizes the buffer for a second call.
*/
int tl_err_format(const TlErr*, const char *zPath, char *z, int nz);

#endif /* TL_ERR_H */
