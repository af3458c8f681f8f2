/*
** json.h: a small, strict JSON reader (RFC 8259) for metadata that
** arrives as JSON (CTF 2).
**
** The text is parsed into a tree of nodes held in one arena, freed at
** once. Parsing is iterative over containers' members and recursive only
** in nesting, which is capped (TL_JV_MAX_DEPTH), as is the number of
** nodes (TL_JV_MAX_NODES): hostile input gets an error, not a crash or
** unbounded memory. Strings are decoded to UTF-8 (escapes, surrogate
** pairs) and NUL-terminated; invalid UTF-8 or escapes are errors.
*/
#ifndef TL_JSON_H
#define TL_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "str.h"

#define TL_JV_MAX_DEPTH 128
#define TL_JV_MAX_NODES (1u<<21)

/* TlJv.eType */
#define TL_JV_NULL   0
#define TL_JV_FALSE  1
#define TL_JV_TRUE   2
#define TL_JV_NUMBER 3
#define TL_JV_STRING 4
#define TL_JV_ARRAY  5
#define TL_JV_OBJECT 6

typedef struct TlJv TlJv;
struct TlJv {
  int eType;
  const char *zKey;               /* member name, when inside an object */
  const char *z;                  /* TL_JV_STRING: UTF-8, NUL-terminated */
  size_t n;                       /* its bytes (it may hold NULs) */
  /* TL_JV_NUMBER */
  int bInt;                       /* no fraction or exponent, and in range */
  int bNeg;                       /* negative: use i; else u */
  int64_t i;
  uint64_t u;
  double d;                       /* the value as a double, always */
  /* TL_JV_ARRAY, TL_JV_OBJECT */
  TlJv *pFirst;                 /* first element or member */
  TlJv *pNext;                  /* next sibling */
  uint32_t nChild;
  uint64_t iOff;                  /* byte offset in the parsed text */
};

typedef struct TlJvDoc TlJvDoc;
struct TlJvDoc {
  TlJv *pRoot;
  void *pArena;                   /* chunks, freed by tl_jv_free */
  uint32_t nNode;
};

/*
** Parse the JSON value that is all of z[0..n) (surrounding white space
** allowed). Errors name the offset iBase + position and what was
** expected. On error the document holds nothing to free.
*/
int tl_jv_parse(TlJvDoc*, const char *z, size_t n, uint64_t iBase, TlErr*);
void tl_jv_free(TlJvDoc*);

/* Member zKey of object p, or NULL (also when p is not an object). */
const TlJv *tl_jv_get(const TlJv *p, const char *zKey);

/* Integer value of p that fits int64_t, into *pV; 0 on success. */
int tl_jv_int(const TlJv *p, int64_t *pV);
/* Non-negative integer value of p, into *pV; 0 on success. */
int tl_jv_uint(const TlJv *p, uint64_t *pV);
/* Append p as compact JSON text to pOut (nesting beyond 64 levels as null). */
void tl_jv_write(TlStr *pOut, const TlJv *p);

/* p is a string equal to z. */
int tl_jv_is(const TlJv *p, const char *z);

#endif
