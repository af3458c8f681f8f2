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

/* An exit that names no function (it ends the newest call): how many
** calls it ends, 1 or 0 when no call is open. */
static inline size_t tl_calls_exit_top(const TlCallStack *st){
  return st->n ? 1 : 0;
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

/* ---- calls of many threads ----------------------------------------------- */

/*
** TlCallSet: the whole matching for a reader that gives entries and exits
** of many threads mixed in time order: one stack per thread (keyed by a
** 64-bit key of the reader's choice: a thread id, or a CPU where no thread
** is known), the functions' names by id, finished calls queued in the
** order their exits come, then the calls still open at the end, thread by
** thread, outermost first. Function ids are 1, 2, ... in the order the
** reader adds the functions (tl_callset_func); the reader keeps each
** function's id.
*/
typedef struct TlCallSet TlCallSet;

typedef struct TlCallOut TlCallOut;  /* one call of a TlCallSet */
struct TlCallOut {
  TlCall c;
  int64_t tid, pid;               /* its thread's ids, if bTid, bPid */
  int bTid, bPid;
};

/* A new set (bPaths: keep each call's path), or NULL when out of memory. */
TlCallSet *tl_callset_new(int bPaths);
void tl_callset_free(TlCallSet*);

/* Add a function named z[0..n): its id in *pId. TL_OK or TL_ENOMEM. */
int tl_callset_func(TlCallSet*, const char *z, size_t n, int32_t *pId);
/* The name of function id, or NULL. */
const char *tl_callset_name(const TlCallSet*, int32_t id);

/* The stack of thread key (made if new) as *piThread; its tid and pid when
** known (bTid, bPid). TL_OK or TL_ENOMEM. */
int tl_callset_thread(TlCallSet*, uint64_t key, int64_t tid, int bTid,
                      int64_t pid, int bPid, size_t *piThread);

/* An entry of funcId (record id, ts, cpu) on thread iThread: TL_OK,
** TL_CALLS_TOO_DEEP (not opened) or TL_ENOMEM. */
int tl_callset_enter(TlCallSet*, size_t iThread, int64_t id, int32_t funcId,
                     uint64_t ts, uint32_t cpu);
/* An exit of funcId (bAny: of whatever call is newest) at ts on thread
** iThread: the calls it ends are queued. TL_OK or TL_ENOMEM. */
int tl_callset_exit(TlCallSet*, size_t iThread, int32_t funcId, int bAny, uint64_t ts);
/* No more records: the calls still open are queued. TL_OK or TL_ENOMEM. */
int tl_callset_finish(TlCallSet*);
/* The next queued call: TL_ROW with *ppOut (valid until the next call of
** the set), or TL_DONE: none queued (after tl_callset_finish(): no more). */
int tl_callset_next(TlCallSet*, const TlCallOut **ppOut);
/* The text of a call's path (TlCall.fr.iPath) from the functions' names,
** or NULL when out of memory. */
const char *tl_callset_stack(TlCallSet*, uint32_t iPath);

#endif /* TL_MODEL_CALLS_H */
