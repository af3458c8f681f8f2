/*
** ctf_value.h: decoded CTF field values, as a flat pre-order tree.
**
** The stream decoder (ctf_stream.c) decodes a scope (a packet header, an
** event payload, ...) into consecutive TlCtfVal nodes: a compound node is
** followed by its children, and nSub tells how many nodes its subtree
** holds, so a reader can skip a child in O(1). The renderers
** (ctf_render.c) turn the nodes into babeltrace2-style text and JSON.
**
** Nodes borrow from the packet bytes (strings) and from the model (field
** classes, names): they are valid until the next packet is decoded.
*/
#ifndef TL_CTF_VALUE_H
#define TL_CTF_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf_model.h"
#include "str.h"

typedef struct TlCtfVal TlCtfVal;
struct TlCtfVal {
  const TlCtfField *pField;       /* its class (eKind says what the node is) */
  const char *zName;              /* member or option name; NULL for array
                                  ** elements and scope roots */
  uint32_t nSub;                  /* nodes in the subtree, itself included */
  uint32_t iOpt;                  /* TL_CTF_VARIANT: index of the chosen option */
  union {
    uint64_t u;                   /* TL_CTF_INT/ENUM unsigned, and the element
                                  ** count of an ARRAY/SEQUENCE */
    int64_t i;                    /* TL_CTF_INT/ENUM when pField->bSigned */
    double d;                     /* TL_CTF_FLOAT */
  } v;
  const char *z;                  /* TL_CTF_STRING, and ARRAY/SEQUENCE of 8-bit
                                  ** integers with bText: the bytes up to the
                                  ** first NUL (then the node has no children) */
  size_t n;                       /* bytes at z */
};

/*
** One event's decoded scopes: aRoot[s] is the index in aVal of the root
** node of scope s (TL_CTF_SCOPE_...), or -1 when the scope is absent.
** Scope roots are TL_CTF_STRUCT nodes in every trace seen so far, but a
** renderer must accept any kind.
*/
typedef struct TlCtfScopes TlCtfScopes;
struct TlCtfScopes {
  const TlCtfVal *aVal;
  int aRoot[TL_CTF_NSCOPE];
};

/*
** Append the event as babeltrace2's pretty sink prints it after
** "<event name>: ", e.g.
**   { cpu_id = 2 }, { vtid = 3214, vpid = 3208 }, { msg = "heartbeat" }
** (packet context without the fields babeltrace2 takes as packet
** properties, then the stream event context, the event context, the
** payload; each present, non-empty scope in braces, joined by ", ").
*/
void tl_ctf_render_text(const TlCtfScopes*, TlStr *pOut);

/*
** Append the event's fields as one JSON object: payload members first,
** then the event context, then the stream event context (a context member
** whose name is taken is keyed "event.context.NAME" or
** "stream.event.context.NAME"). Integers exact (unsigned above INT64_MAX as a
** decimal string), enums as {"label": ..., "value": ...}, floats exact,
** arrays and sequences as arrays, text arrays as strings, variants as the
** chosen option's value.
*/
void tl_ctf_render_args(const TlCtfScopes*, TlStr *pOut);

#endif
