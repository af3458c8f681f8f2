/*
** str.h: a growable string with a size cap, and a small JSON builder on it.
**
** The builder is used for the args and callchain columns. Out of memory,
** over the size cap or nesting deeper than TL_JSON_MAXDEPTH sets bErr;
** later appends do nothing, so callers check once at the end.
*/
#ifndef TL_STR_H
#define TL_STR_H

#include <stddef.h>
#include <stdint.h>

#define TL_STR_MAX (64u<<20)      /* largest text one column may build */
#define TL_JSON_MAXDEPTH 256      /* deeper JSON sets bErr */

typedef struct TlStr TlStr;
struct TlStr {
  char *z;                        /* NUL-terminated text (NULL until used) */
  size_t n;                       /* bytes used, without the NUL */
  size_t nAlloc;                  /* bytes allocated at z */
  int bErr;                       /* set when an append failed */
  int nDepth;                     /* JSON: open containers */
  uint64_t aFirst[TL_JSON_MAXDEPTH/64]; /* JSON: bit d set = container d is empty so far */
};

/* A malloc'd NUL-terminated copy of the n bytes at z; NULL on OOM. */
char *tl_strndup(const char *z, size_t n);

/* Code point c (at most 0x10FFFF) as UTF-8 into z[0..4); the bytes written. */
size_t tl_utf8_put(char *z, uint32_t c);

void tl_str_init(TlStr*);
void tl_str_reset(TlStr*);        /* empty it, keep the buffer */
void tl_str_free(TlStr*);
void tl_str_append(TlStr*, const char *z, size_t n);
void tl_str_appendz(TlStr*, const char *z);
void tl_str_appendf(TlStr*, const char *zFmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
void tl_str_appendc(TlStr*, char c);

/* Text (any bytes) as a JSON string literal, escaped; invalid UTF-8 -> U+FFFD */
void tl_json_string(TlStr*, const char *z, size_t n);

/*
** JSON structure. Calls nest: obj_begin, then key+value pairs, obj_end.
** tl_json_key writes the separator and "key": ; value writers write the
** separator themselves when inside an array.
*/
void tl_json_obj_begin(TlStr*);
void tl_json_obj_end(TlStr*);
void tl_json_arr_begin(TlStr*);
void tl_json_arr_end(TlStr*);
void tl_json_key(TlStr*, const char *zKey);
void tl_json_int(TlStr*, int64_t);
void tl_json_uint(TlStr*, uint64_t);
void tl_json_double(TlStr*, double);   /* shortest exact form; NaN/Inf as strings */
void tl_json_str(TlStr*, const char *z, size_t n);
void tl_json_strz(TlStr*, const char *z);
void tl_json_bool(TlStr*, int);
void tl_json_null(TlStr*);
void tl_json_hex(TlStr*, const uint8_t *a, size_t n);  /* bytes as "0a1b.." */
void tl_json_raw(TlStr*, const char *z, size_t n);     /* already JSON */

#endif /* TL_STR_H */
