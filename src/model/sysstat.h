/*
** sysstat.h: the scheduling model's system call sums (sysstat.c), one per
** thread and kind of call, from the syscalls rows the model makes; the
** syscall_stats table's rows (model_sched.h, TlSysStat).
*/
#ifndef TL_MODEL_SYSSTAT_H
#define TL_MODEL_SYSSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "model_sched.h"

/* Threads and groups (a thread's calls of one kind) kept at most; the ones
** after them are left out and counted. */
#define TL_SYSSTAT_MAX_GROUPS (1u<<20)

typedef struct TlSysStats TlSysStats;

TlSysStats *tl_sysstats_new(void);             /* NULL when out of memory */
void tl_sysstats_free(TlSysStats*);            /* NULL-safe */

/*
** Sum the syscalls row o (a TL_SCHED_OUT_SYSCALL output of a known thread:
** tid, pid, zComm, bNr/nr, zSys/nSys, the times and the return value) into
** its thread's calls of its kind. TL_OK, or TL_ENOMEM; *pbLeft set when
** the row was left out (more groups than TL_SYSSTAT_MAX_GROUPS).
*/
int tl_sysstats_add(TlSysStats*, const TlSchedOut *o, int *pbLeft);

/*
** The next sum as a TL_SCHED_OUT_SYSSTAT output into *pOut: 1, or 0 after
** the last. Threads in the order of their first rows, a thread's kinds of
** call in the order of their first rows. Only once no row is added any
** more.
*/
int tl_sysstats_next(TlSysStats*, TlSchedOut *pOut);

#endif /* TL_MODEL_SYSSTAT_H */
