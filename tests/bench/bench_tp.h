/*
** bench_tp.h: LTTng-UST tracepoint provider "tlbench" of the CTF benchmark
** trace: four event types with a few integer and string fields.
*/
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tlbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

/* a request starts: its id and a short name */
LTTNG_UST_TRACEPOINT_EVENT(tlbench, req_begin,
    LTTNG_UST_TP_ARGS(uint64_t, id, const char *, what),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, id, id)
        lttng_ust_field_string(what, what)
    )
)

/* a request ends: its id, status and byte count */
LTTNG_UST_TRACEPOINT_EVENT(tlbench, req_end,
    LTTNG_UST_TP_ARGS(uint64_t, id, int, status, uint32_t, bytes),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, id, id)
        lttng_ust_field_integer(int32_t, status, status)
        lttng_ust_field_integer(uint32_t, bytes, bytes)
    )
)

/* a counter sample */
LTTNG_UST_TRACEPOINT_EVENT(tlbench, counter,
    LTTNG_UST_TP_ARGS(int, slot, int64_t, value),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int16_t, slot, slot)
        lttng_ust_field_integer(int64_t, value, value)
    )
)

/* a log line */
LTTNG_UST_TRACEPOINT_EVENT(tlbench, log,
    LTTNG_UST_TP_ARGS(int, level, const char *, msg),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint8_t, level, level)
        lttng_ust_field_string(msg, msg)
    )
)

#endif /* BENCH_TP_H */

#include <lttng/tracepoint-event.h>
