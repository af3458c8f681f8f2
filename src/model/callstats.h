/*
** callstats.h: function calls summed per function (callstats.c), as
** `llvm-xray account` sums them: the call_stats table's rows, from the
** calls rows of any format, in one pass.
*/
#ifndef TL_MODEL_CALLSTATS_H
#define TL_MODEL_CALLSTATS_H

#include <stddef.h>
#include <stdint.h>

/* Functions kept at most; a call of one more is an error (TL_ELIMIT). */
#define TL_CALLSTATS_MAX_FUNCS (1u<<24)

typedef struct TlCallStats TlCallStats;

/* One function's sums. Durations in ns; the percentiles are the values
** at index floor(n * p) of the function's sorted durations (n / 2 for
** the median), as llvm-xray account takes them. */
typedef struct TlCallStat TlCallStat;
struct TlCallStat {
  int64_t funcId;
  const char *zName;              /* the first name its calls gave, or NULL */
  uint64_t nCalls;
  int64_t total;                  /* held at the int64 range */
  int64_t min, med, p90, p99, max;
};

/*
** A new sum, holding at most nMaxBytes in all (its functions and their
** distinct durations; a call that would need more: TL_ELIMIT); NULL when
** out of memory.
*/
TlCallStats *tl_callstats_new(uint64_t nMaxBytes);
void tl_callstats_free(TlCallStats*);         /* NULL-safe */

/*
** Count a finished call of function funcId (named z, n bytes, or z NULL)
** that lasted dur ns. TL_OK, TL_ENOMEM, or TL_ELIMIT (past nMaxBytes or
** TL_CALLSTATS_MAX_FUNCS; the sum is then left as it was).
*/
int tl_callstats_add(TlCallStats*, int64_t funcId, const char *z, size_t n, int64_t dur);

/*
** The next function's sums into *pOut, in ascending funcId: 1, or 0 after
** the last. Only once no call is added any more; the first call sorts the
** durations (TL_ENOMEM as -1 if that fails).
*/
int tl_callstats_next(TlCallStats*, TlCallStat *pOut);

/* Bytes the sum holds (for tests and limits). */
uint64_t tl_callstats_bytes(const TlCallStats*);

#endif /* TL_MODEL_CALLSTATS_H */
