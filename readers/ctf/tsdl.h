/*
** tsdl.h: CTF 1.8 metadata (TSDL) text access: unpacking packetized
** metadata and splitting the text into tokens.
**
** The TSDL parser builds the format-neutral trace model from these tokens;
** a CTF 2 JSON metadata parser would build the same model from JSON, so
** nothing here knows about field classes or streams.
*/
#ifndef TL_CTF_TSDL_H
#define TL_CTF_TSDL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "str.h"

/* Magic number at the start of each packet of packetized metadata. */
#define TL_CTF_META_MAGIC 0x75D11D57u

/* Size in bytes of a metadata packet header. */
#define TL_CTF_META_HDR 37

/* Token kinds (TlTsdlTok.eKind). */
#define TL_TSDL_EOF    0          /* end of text */
#define TL_TSDL_IDENT  1          /* identifier or keyword */
#define TL_TSDL_INT    2          /* integer literal; value in iVal, bNeg */
#define TL_TSDL_STRING 3          /* "..." literal; z/n without the quotes */
#define TL_TSDL_PUNCT  4          /* punctuator: z/n, e.g. "{", ":=", "..." */
#define TL_TSDL_CHAR   5          /* '.' literal; z/n without the quotes */

typedef struct TlTsdlTok TlTsdlTok;
struct TlTsdlTok {
  int eKind;                      /* TL_TSDL_... */
  const char *z;                  /* token text (borrowed from the lexer) */
  size_t n;                       /* bytes at z */
  uint64_t iVal;                  /* TL_TSDL_INT: magnitude */
  size_t iOff;                    /* offset of the token in the text */
  int iLine;                      /* 1-based line of the token */
};

typedef struct TlTsdlLex TlTsdlLex;
struct TlTsdlLex {
  const char *z;                  /* the text */
  size_t n;                       /* its length */
  size_t i;                       /* next unread byte */
  int iLine;                      /* line of byte i */
};

/*
** Is a[0..n) the start of CTF metadata? Returns 2 for packetized metadata
** (magic in either byte order), 1 for plain text that opens with the
** "/" "* CTF 1.8" signature, 0 otherwise.
*/
int tl_tsdl_sniff(const uint8_t *a, size_t n);

/*
** Metadata bytes a[0..n) to TSDL text in *pOut (appended). Packetized
** metadata is unpacked (each packet's text up to its content_size);
** plain text is copied as is. Corrupt packets give TL_ECORRUPT with the
** byte offset of the bad header.
*/
int tl_tsdl_text(const uint8_t *a, size_t n, TlStr *pOut, TlErr *pErr);

/* Start lexing z[0..n) (borrowed for the lexer's lifetime). */
void tl_tsdl_lex_init(TlTsdlLex*, const char *z, size_t n);

/*
** The next token into *pTok. Comments and white space (including CR) are
** skipped. Returns TL_OK, or TL_ECORRUPT for an unterminated comment or
** literal, an integer that does not fit 64 bits, or a stray byte.
*/
int tl_tsdl_lex_next(TlTsdlLex*, TlTsdlTok *pTok, TlErr *pErr);

/* Does the token have kind eKind and exactly the text z? */
int tl_tsdl_tok_is(const TlTsdlTok*, int eKind, const char *z);

#endif
