/*
** model_threads.h: the threads of a trace and their names, as the model
** computes them from format-neutral inputs (the reader-facing part of
** src/model/threads.c).
**
** A reader hands over, in time order (records at one time in the order the
** trace has them), what its records say about threads:
**
**   record  a record of thread tid (of process pid) at ts: it counts in
**           the thread's events (and samples) and time range
**   comm    thread tid is named zName from ts on (bExec: by an exec)
**   fork    process/thread ppid/ptid made thread pid/tid at ts
**   exit    thread pid/tid ended at ts
**
** A time may be TL_THREADS_NO_TS (the record has none).
**
** The rules (perf's, as perf script and perf report show threads):
**
**   - A tid the kernel reuses names several threads: a fork of tid T at
**     ts, after an exit of T's latest thread whose records all came before
**     ts, starts a new thread of T, whose id is T + k * 2^32 for the k-th
**     reuse (the first thread's id is T).
**   - An input belongs to the thread of its tid that started last at or
**     before its time (inputs without a time: to the tid's first thread).
**   - A thread made by a fork has its parent's name (the name in force for
**     ptid at the fork's time) until a comm of its own: a thread that was
**     already named before the fork keeps its name.
**   - The name of a thread at a time is the last name given at or before
**     it (a name given without a time is in force from the start); before
**     its first name a thread has none (perf prints ":tid").
**
** Inputs come while one thread reads the trace; the questions may come
** once the inputs have ended, from any thread: the model no longer changes.
*/
#ifndef TL_MODEL_THREADS_H
#define TL_MODEL_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct TlThreads TlThreads;

#define TL_THREADS_NO_TS INT64_MIN    /* an input or a question without a time */
#define TL_THREADS_MAX (1u<<20)       /* threads kept; later ones are dropped */

/* A new, empty model, or NULL when out of memory. */
TlThreads *tl_threads_new(void);
void tl_threads_free(TlThreads*);     /* NULL-safe */

/*
** The inputs. Each returns TL_OK, TL_ENOMEM, or TL_DONE when it needed a
** thread past the model's cap, the first time only (the input is not
** kept, nor are later ones that need a new thread: the caller may warn
** once). pid < 0: not known.
*/
int tl_threads_record(TlThreads*, int64_t ts, int64_t pid, int64_t tid, int bSample);
int tl_threads_comm(TlThreads*, int64_t ts, int64_t pid, int64_t tid,
                    const char *zName, size_t nName, int bExec);
int tl_threads_fork(TlThreads*, int64_t ts, int64_t ppid, int64_t ptid, int64_t pid, int64_t tid);
int tl_threads_exit(TlThreads*, int64_t ts, int64_t pid, int64_t tid);

/* One thread, as the questions below give it. Strings last as long as the
** model; NULL when the thread has no name. */
typedef struct TlThread TlThread;
struct TlThread {
  int64_t id;                     /* tid + iReuse * 2^32 */
  int64_t tid, pid;               /* pid: -1 when no record said it */
  uint32_t iReuse;                /* 0 for the tid's first thread */
  const char *zName;              /* its last name */
  const char *zNameFirst;         /* its first name (inherited or its own) */
  int bTs;                        /* a record had a time: tsFirst, tsLast */
  int64_t tsFirst, tsLast;        /* time range of its records */
  uint64_t nEvents, nSamples;     /* its records, those with bSample */
};

/* The threads, in the order they were first met: k in [0, count). */
size_t tl_threads_count(const TlThreads*);
void tl_threads_get(const TlThreads*, size_t k, TlThread *pOut);

/* Does some tid name more than one thread? (If not, every id is its tid.) */
int tl_threads_reused(const TlThreads*);

/* The id of the thread a record of tid at ts belongs to (tid if none). */
int64_t tl_threads_id(const TlThreads*, int64_t tid, int64_t ts);

/* The name of thread tid at ts (NULL if it has none then). */
const char *tl_threads_name_at(const TlThreads*, int64_t tid, int64_t ts);

#endif /* TL_MODEL_THREADS_H */
