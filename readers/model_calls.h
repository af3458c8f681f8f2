/*
** model_calls.h: calls from function entry and exit records (the model
** layer's call matching, src/model/calls.c), for readers.
**
** Format-neutral: a reader turns its records into entries and exits of
** function ids at times in its own clock and keeps one TlCallStack per
** thread; the stack says which calls each exit ends, with their depth and
** parent. The rules are llvm-xray's (account, stack):
**
**   - an entry opens a call on top of the thread's stack (up to
**     TL_CALLS_MAX_DEPTH open calls; deeper ones are not matched);
**   - an exit (or a tail exit: the same) of the function on top ends that
**     call; an exit of a function deeper in the stack also ends the calls
**     above it, whose exits were not recorded (as account
**     -deduce-sibling-calls does); an exit of a function not on the stack
**     is ignored;
**   - calls still open at the end are calls with no end (outermost first).
**
** Call paths (TlCallPaths), when the reader asks for them: each call's path
** of function ids from the thread's outermost open call, as a node of a
** tree shared by all threads (one node per distinct path), and its text,
** the functions' names outermost first joined by ';' as `llvm-xray stack
** -stack-format=flame` names a stack, built once per node.
**
** The per-record steps are static inline: a reader's hot loop calls them
** once per record.
*/
#ifndef TL_MODEL_CALLS_H
#define TL_MODEL_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "map.h"
#include "str.h"

#define TL_CALLS_MAX_DEPTH 4096
#define TL_CALLS_TOO_DEEP  1      /* tl_calls_enter(): not opened */

typedef struct TlCallFrame TlCallFrame;  /* an open call */
struct TlCallFrame {
  int64_t id;                     /* the reader's id of its entry record */
  int32_t funcId;
  uint64_t ts;                    /* entry time, in the reader's clock */
  uint32_t cpu;
  uint32_t iPath;                 /* its path (TlCallPaths), or 0 */
};

typedef struct TlCallStack TlCallStack;  /* the open calls of one thread */
struct TlCallStack {
  TlCallFrame *a;                 /* outermost first */
  size_t n, nAlloc;
};

typedef struct TlCall TlCall;     /* a call ended by an exit, or open at the end */
struct TlCall {
  TlCallFrame fr;                 /* its entry */
  size_t depth;                   /* open calls around it */
  int64_t parent;                 /* the id of the call around it, if bParent */
  int bParent;
  int bDone;                      /* ended by an exit, at tsEnd */
  uint64_t tsEnd;
};

/* Room for one more frame: TL_OK or TL_ENOMEM (calls.c). */
int tl_calls_grow(TlCallStack*);
void tl_calls_free(TlCallStack*);  /* frees the frames; the stack is empty */

/* An entry: TL_OK, TL_CALLS_TOO_DEEP (not opened: the stack is full) or
** TL_ENOMEM. */
static inline int tl_calls_enter(TlCallStack *st, int64_t id, int32_t funcId,
                                 uint64_t ts, uint32_t cpu){
  TlCallFrame *f;
  if( st->n>=TL_CALLS_MAX_DEPTH ) return TL_CALLS_TOO_DEEP;
  if( st->n==st->nAlloc ){
    int rc = tl_calls_grow(st);
    if( rc ) return rc;
  }
  f = &st->a[st->n++];
  f->id = id;
  f->funcId = funcId;
  f->ts = ts;
  f->cpu = cpu;
  f->iPath = 0;
  return TL_OK;
}

/*
** An exit or tail exit of funcId: how many calls it ends, from the top (0:
** funcId is not open, the exit is ignored). tl_calls_pop() takes each.
*/
static inline size_t tl_calls_exit(const TlCallStack *st, int32_t funcId){
  size_t k = st->n;
  while( k>0 && st->a[k-1].funcId!=funcId ) k--;
  return k ? st->n - k + 1 : 0;
}

/* Call k of the stack (0 outermost) as a call ended at tsEnd (bDone) or open. */
static inline void tl_calls_get(const TlCallStack *st, size_t k, int bDone,
                                uint64_t tsEnd, TlCall *pOut){
  pOut->fr = st->a[k];
  pOut->depth = k;
  pOut->bParent = k>0;
  pOut->parent = k>0 ? st->a[k-1].id : 0;
  pOut->bDone = bDone;
  pOut->tsEnd = tsEnd;
}

/* End the top call at tsEnd: it, into *pOut (the stack is not empty). */
static inline void tl_calls_pop(TlCallStack *st, uint64_t tsEnd, TlCall *pOut){
  tl_calls_get(st, st->n-1, 1, tsEnd, pOut);
  st->n--;
}

/* ---- call paths ---------------------------------------------------------- */

#define TL_CALLS_PATHS_TEXT_MAX ((size_t)64 << 20)  /* bytes of path texts kept */

typedef struct TlCallPath TlCallPath;
struct TlCallPath {
  uint32_t parent;                /* the path without its last function (0: none) */
  int32_t funcId;                 /* its last function */
  char *zText;                    /* its text, once built and kept, or NULL */
};

typedef struct TlCallPaths TlCallPaths;  /* node 0: the empty path */
struct TlCallPaths {
  TlCallPath *a; size_t n, nAlloc;
  TlMap kids;                     /* parent<<32 | funcId -> node */
  size_t nText;                   /* bytes of the texts kept */
  int32_t *aChain; size_t nChainAlloc;  /* a path's functions, while its text is built */
  TlStr text, name;               /* a text not kept; a name made by the reader */
};

/* A function's name for a path's text: a name, or one made in *pScratch. */
typedef const char *(*TlCallName)(const void *pCtx, int32_t funcId, TlStr *pScratch);

void tl_paths_init(TlCallPaths*);
void tl_paths_free(TlCallPaths*);

/* The path of st's top (newest) call: its caller's path and its function,
** set as the frame's iPath. TL_OK or TL_ENOMEM. */
int tl_calls_path(TlCallStack *st, TlCallPaths*);

/* The text of path iPath ("" for 0), names from xName; kept while the texts
** kept stay under TL_CALLS_PATHS_TEXT_MAX, else valid until the next call.
** NULL when out of memory. */
const char *tl_paths_text(TlCallPaths*, uint32_t iPath, TlCallName xName, const void *pCtx);

#endif /* TL_MODEL_CALLS_H */
