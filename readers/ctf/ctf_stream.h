/*
** ctf_stream.h: decoding CTF field classes from packet bytes into value
** nodes (ctf_value.h).
**
** A TlCtfDec holds the nodes of one packet's header and context followed
** by the current event's scopes: after each event the caller truncates
** back to the packet's nodes, so field references from an event into the
** packet context keep working and memory does not grow with the packet.
*/
#ifndef TL_CTF_STREAM_H
#define TL_CTF_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf_decode.h"
#include "ctf/ctf_model.h"
#include "ctf/ctf_value.h"
#include "err.h"

/* Most value nodes one packet context plus one event may produce. */
#define TL_CTF_MAX_VALS (1u<<20)

typedef struct TlCtfDec TlCtfDec;
struct TlCtfDec {
  TlCtfBits bits;                 /* the packet being read */
  uint64_t iFileOff;              /* file offset of bits.a, for messages */
  TlCtfVal *aVal;                 /* decoded nodes */
  uint32_t nVal, nAlloc;
  int aRoot[TL_CTF_NSCOPE];       /* root node of each scope, or -1 */
  int bPastEnd;                   /* the last error was a read past the end */
  int boLast, bBoLast;            /* byte order of the last integer read */
  uint64_t *pnShared;             /* bytes of node arrays of all the decoders
                                  ** of one scan, or NULL for no budget */
  uint64_t nSharedMax;            /* ceiling for *pnShared */
};

void tl_ctf_dec_init(TlCtfDec*);
void tl_ctf_dec_free(TlCtfDec*);   /* gives its bytes back to *pnShared */

/* Drop every node from n on, and the scopes rooted there. */
void tl_ctf_dec_truncate(TlCtfDec*, uint32_t n);

/*
** Decode one scope of class f (NULL: the scope is absent) at the cursor,
** appending its nodes and setting aRoot[iScope]. Errors name the file
** offset; bPastEnd tells a read past the content end from other damage.
*/
int tl_ctf_dec_scope(TlCtfDec*, int iScope, const TlCtfField *f, TlErr*);

/*
** The node of member zName of the struct rooted at node iNode (only its
** direct members), or -1.
*/
int tl_ctf_dec_member(const TlCtfDec*, int iNode, const char *zName);

/* Integer value of an INT or ENUM node as unsigned (two's complement). */
static inline uint64_t tl_ctf_dec_u(const TlCtfDec *d, int i){
  return d->aVal[i].v.u;
}

/* Is node i an INT or ENUM? */
int tl_ctf_dec_is_int(const TlCtfDec*, int i);

#endif
