/*
** ctf_model.h: the format-neutral CTF trace model.
**
** Both metadata front ends produce this model: the TSDL parser (CTF 1.8)
** and the JSON fragment parser (CTF 2, ctf2_meta.c). The stream decoder
** only reads the model, never TSDL text or JSON.
**
** Field classes form a tree. Each node is owned by exactly one parent (a
** typealias or typedef is copied where it is used), so freeing the tree is
** a plain recursive walk.
*/
#ifndef TL_CTF_MODEL_H
#define TL_CTF_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* TlCtfField.eKind */
#define TL_CTF_INT       1        /* integer (also the container of an enum) */
#define TL_CTF_ENUM      2        /* integer with labelled ranges */
#define TL_CTF_FLOAT     3        /* IEEE 754 binary32/binary64 */
#define TL_CTF_STRING    4        /* NUL-terminated bytes */
#define TL_CTF_STRUCT    5        /* named members in order */
#define TL_CTF_VARIANT   6        /* one option chosen by an enum tag */
#define TL_CTF_ARRAY     7        /* fixed length */
#define TL_CTF_SEQUENCE  8        /* length from an earlier integer field */
#define TL_CTF_VARINT    9        /* CTF 2: LEB128 integer (bSigned: signed LEB128) */
#define TL_CTF_BLOB      10       /* CTF 2: bytes, nLen of them or ref's value */
#define TL_CTF_OPTIONAL  11       /* CTF 2: pElem present when the selector says so */

/* Byte order of a field: TL_LE/TL_BE from bytes.h; native = the trace's. */

/* TlCtfField.eRole: what an event header field means to the decoder. */
#define TL_CTF_ROLE_NONE  0
#define TL_CTF_ROLE_ID    1       /* event class id (the last one decoded wins) */
#define TL_CTF_ROLE_CLOCK 2       /* updates the stream's clock */
/* Packet header and context roles (CTF 2 states them; CTF 1.8 names them). */
#define TL_CTF_ROLE_MAGIC      3  /* magic */
#define TL_CTF_ROLE_SC_ID      4  /* stream_id: the data stream class */
#define TL_CTF_ROLE_STREAM_ID  5  /* stream_instance_id */
#define TL_CTF_ROLE_PKT_SIZE   6  /* packet_size (bits) */
#define TL_CTF_ROLE_CONTENT    7  /* content_size (bits) */
#define TL_CTF_ROLE_TS_BEGIN   8  /* timestamp_begin */
#define TL_CTF_ROLE_TS_END     9  /* timestamp_end */
#define TL_CTF_ROLE_DISCARDED 10  /* events_discarded */
#define TL_CTF_ROLE_SEQ       11  /* packet_seq_num */
#define TL_CTF_ROLE_UUID      12  /* the trace's uuid (a blob or byte array) */

/* Dynamic scopes, the roots a field reference can start from. */
#define TL_CTF_SCOPE_PKT_HEADER    0
#define TL_CTF_SCOPE_PKT_CONTEXT   1
#define TL_CTF_SCOPE_EV_HEADER     2
#define TL_CTF_SCOPE_EV_SCONTEXT   3   /* stream event context */
#define TL_CTF_SCOPE_EV_CONTEXT    4
#define TL_CTF_SCOPE_EV_PAYLOAD    5
#define TL_CTF_NSCOPE              6

typedef struct TlCtfField TlCtfField;
typedef struct TlCtfMember TlCtfMember;
typedef struct TlCtfRange TlCtfRange;
typedef struct TlCtfRef TlCtfRef;

/*
** A resolved field reference (variant tag, sequence length): the scope and
** the path of member indexes from the scope's root struct. The TSDL parser
** resolves relative names to this form, so the decoder needs no lookups.
*/
struct TlCtfRef {
  int iScope;                     /* TL_CTF_SCOPE_... */
  int nPath;                      /* members in aPath */
  int *aPath;                     /* member index at each level */
};

/* One enum mapping: [lo, hi] (signed or unsigned as the container). */
struct TlCtfRange {
  char *zLabel;
  uint64_t lo, hi;                /* two's complement when signed */
};

/* A struct member or variant option. */
struct TlCtfMember {
  char *zName;
  TlCtfField *pType;
  int nRange;                     /* CTF 2 variant option: selector values */
  TlCtfRange *aRange;             /* that choose it (labels NULL) */
};

struct TlCtfField {
  int eKind;                      /* TL_CTF_... */
  int nAlign;                     /* alignment in bits (1 = none) */
  /* TL_CTF_INT, TL_CTF_ENUM (container), TL_CTF_FLOAT */
  int nBits;                      /* size (float: exp+mant bits) */
  int nExpDig, nMantDig;          /* TL_CTF_FLOAT */
  int bSigned;
  int bo;                         /* TL_LE or TL_BE, resolved */
  int nBase;                      /* 2, 8, 10, 16 (display only) */
  int bText;                      /* encoding = UTF8/ASCII on an int array */
  int iClock;                     /* map = clock.X.value: index, or -1 */
  int eRole;                      /* TL_CTF_ROLE_...: set by the reader */
  /* TL_CTF_ENUM */
  int nRange;
  TlCtfRange *aRange;
  /* TL_CTF_STRUCT, TL_CTF_VARIANT */
  int nMember;
  TlCtfMember *aMember;
  /* TL_CTF_VARIANT tag, TL_CTF_SEQUENCE length */
  TlCtfRef ref;
  /* TL_CTF_ARRAY, TL_CTF_SEQUENCE */
  uint64_t nLen;                  /* TL_CTF_ARRAY element count */
  TlCtfField *pElem;
  /* CTF 2 */
  int bBool;                      /* TL_CTF_INT: a boolean */
  int bFlags;                     /* TL_CTF_INT: a bit map (aRange: bit ranges by flag) */
  int bRevBits;                   /* bit order opposite to the byte order's */
  int nCharBytes;                 /* TL_CTF_STRING: 1 (UTF-8), 2 (UTF-16), 4 (UTF-32); bo */
  int eLength;                    /* TL_CTF_STRING/BLOB: 0 NUL-terminated, 1 nLen, 2 ref */
  int bSelRanges;                 /* VARIANT/OPTIONAL: chosen by integer ranges */
  int nSelRange;                  /* TL_CTF_OPTIONAL: selector values that enable it */
  TlCtfRange *aSelRange;
};

typedef struct TlCtfClock TlCtfClock;
struct TlCtfClock {
  char *zName;
  uint64_t freq;                  /* Hz, > 0 */
  int64_t offsetS;                /* offset_s */
  uint64_t offset;                /* offset, in cycles */
  int bAbsolute;
  uint8_t aUuid[16];
  int bUuid;
  int bRaw;                       /* clock=monotonic: ns without the offset (the
                                  ** clock's own value; ctf_info.c) */
};

typedef struct TlCtfEventClass TlCtfEventClass;
struct TlCtfEventClass {
  uint64_t id;
  char *zName;
  int64_t logLevel;               /* INT64_MIN if absent */
  char *zEmfUri;                  /* model.emf.uri, or NULL */
  char *zUserAttrs;               /* CTF 2 user attributes as JSON text, or NULL */
  TlCtfField *pContext;           /* event.context or NULL */
  TlCtfField *pPayload;           /* event.fields or NULL */
};

typedef struct TlCtfStreamClass TlCtfStreamClass;
struct TlCtfStreamClass {
  uint64_t id;
  TlCtfField *pPktContext;        /* packet.context or NULL */
  TlCtfField *pEvHeader;          /* event.header or NULL */
  TlCtfField *pEvContext;         /* event.context or NULL */
  int nEvent;
  TlCtfEventClass *aEvent;        /* sorted by id */
};

/* The index in s->aEvent of the event class with this id, or -1. */
static inline int tl_ctf_event_index(const TlCtfStreamClass *s, uint64_t id){
  int lo = 0, hi = s->nEvent - 1;
  /* ids are usually 0, 1, 2, ... in order: the id is the index */
  if( id < (uint64_t)s->nEvent && s->aEvent[id].id==id ) return (int)id;
  while( lo<=hi ){
    int mid = (lo+hi)/2;
    if( s->aEvent[mid].id==id ) return mid;
    if( s->aEvent[mid].id<id ) lo = mid+1; else hi = mid-1;
  }
  return -1;
}

/* The event class of stream class s with this id, or NULL. */
static inline const TlCtfEventClass *tl_ctf_event_class(const TlCtfStreamClass *s, uint64_t id){
  int i = tl_ctf_event_index(s, id);
  return i<0 ? 0 : &s->aEvent[i];
}

typedef struct TlCtfModel TlCtfModel;
struct TlCtfModel {
  int major, minor;               /* 1.8 for TSDL, 2.0 for JSON */
  int bo;                         /* trace byte order */
  uint8_t aUuid[16];
  int bUuid;
  TlCtfField *pPktHeader;         /* trace.packet.header or NULL */
  int nClock;
  TlCtfClock *aClock;
  int nStream;
  TlCtfStreamClass *aStream;      /* sorted by id */
  int nEnv;
  char **azEnvKey;                /* env entries, values as text */
  char **azEnvVal;
};

#endif
