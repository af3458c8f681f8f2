/*
** stackstats.h: function calls summed per thread and call stack
** (stackstats.c), as `llvm-xray stack -all-stacks` sums them: the
** call_stacks table's rows, from the calls rows of any format, in one
** pass.
*/
#ifndef TL_MODEL_STACKSTATS_H
#define TL_MODEL_STACKSTATS_H

#include <stddef.h>
#include <stdint.h>

/* Thread and stack pairs kept at most; a call of one more is an error
** (TL_ELIMIT). */
#define TL_STACKSTATS_MAX_GROUPS (1u<<24)

typedef struct TlStackStats TlStackStats;

/* One thread's calls at one stack. */
typedef struct TlStackStat TlStackStat;
struct TlStackStat {
  int bTid; int64_t tid;          /* the thread (bTid 0: none) */
  const char *zStack; size_t nStack;   /* the stack's text; NULL: none */
  int bFunc; int64_t funcId;      /* the innermost function, as first met */
  const char *zName; size_t nName;     /* its name, or NULL */
  int bDepth; int64_t depth;
  uint64_t nCalls;                /* the calls (finished or not) */
  uint64_t nDone;                 /* of them, finished: those with a duration */
  int64_t total, min, max;        /* of their durations (nDone > 0); the
                                  ** total held at the int64 range */
};

/* A new sum holding at most nMaxBytes in all (a call that would need
** more: TL_ELIMIT); NULL when out of memory. */
TlStackStats *tl_stackstats_new(uint64_t nMaxBytes);
void tl_stackstats_free(TlStackStats*);       /* NULL-safe */

/*
** Count call c (its thread, stack text, innermost function, name and
** depth as the calls row gives them; the duration when bDur). TL_OK,
** TL_ENOMEM, or TL_ELIMIT (the sum then left as it was).
*/
int tl_stackstats_add(TlStackStats*, const TlStackStat *c, int bDur, int64_t dur);

/*
** The next thread and stack's sums into *pOut, by thread (none first)
** then stack text (bytewise; none first): 1, or 0 after the last, or -1
** out of memory. Only once no call is added any more.
*/
int tl_stackstats_next(TlStackStats*, TlStackStat *pOut);

uint64_t tl_stackstats_bytes(const TlStackStats*);

#endif /* TL_MODEL_STACKSTATS_H */
