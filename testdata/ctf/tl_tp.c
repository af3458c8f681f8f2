/* tl_tp.c: instantiates the "tl" tracepoint provider (tl_tp.h). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tl_tp.h"
