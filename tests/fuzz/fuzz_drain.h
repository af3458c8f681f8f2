/*
** fuzz_drain.h: shared by the fuzz targets (fuzz_drain.c).
*/
#ifndef TL_FUZZ_DRAIN_H
#define TL_FUZZ_DRAIN_H

#include <stdint.h>

#include "trace.h"

/*
** Scan every table of the trace in the ways queries do, each way also as
** under accel=off, and abort() when the two give other rows; iRowid is
** tried as a rowid.
*/
void tl_fuzz_drain(TlTrace*, int64_t iRowid);

/* Print what the comparisons counted (nothing when no scan ran). */
void tl_fuzz_drain_report(void);

#endif
