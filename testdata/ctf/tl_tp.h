/*
** tl_tp.h: the LTTng-UST tracepoint provider "tl" of the CTF test traces:
** one event per field type LTTng-UST writes.
*/
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tl

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tl_tp.h"

#if !defined(TL_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TL_TP_H

#include <lttng/tracepoint.h>
#include <stddef.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_ENUM(tl, state,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("IDLE", 0)
        lttng_ust_field_enum_range("BUSY", 1, 9)
        lttng_ust_field_enum_value("DONE", 100)
    )
)

/* integers of every size and sign, hex and network byte order */
LTTNG_UST_TRACEPOINT_EVENT(tl, ints,
    LTTNG_UST_TP_ARGS(int, i, uint64_t, big),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int8_t, s8, -i)
        lttng_ust_field_integer(uint8_t, u8, i)
        lttng_ust_field_integer(int16_t, s16, -1000 * i)
        lttng_ust_field_integer(uint16_t, u16, 1000 * i)
        lttng_ust_field_integer(int32_t, s32, -100000 * i)
        lttng_ust_field_integer(uint32_t, u32, 100000u * (unsigned)i)
        lttng_ust_field_integer(int64_t, s64, -10000000000LL * i)
        lttng_ust_field_integer(uint64_t, u64, big)
        lttng_ust_field_integer_hex(uint32_t, hex32, 0xdead0000u + (unsigned)i)
        lttng_ust_field_integer_network(uint32_t, net32, 0x01020304u)
        lttng_ust_field_integer_network_hex(uint16_t, nethex16, 0xabcd)
    )
)

/* floats, strings, arrays, sequences (text and not), an enum */
LTTNG_UST_TRACEPOINT_EVENT(tl, mixed,
    LTTNG_UST_TP_ARGS(int, i, const char *, s, const char *, t, const int32_t *, arr, size_t, n,
                      size_t, nt),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_float(float, f32, (float)i + 0.5f)
        lttng_ust_field_float(double, f64, -1.0 / (i + 3))
        lttng_ust_field_string(str, s)
        lttng_ust_field_array(int32_t, arr3, arr, 3)
        lttng_ust_field_array_text(char, text4, t, 4)
        lttng_ust_field_sequence(int32_t, seq, arr, size_t, n)
        lttng_ust_field_sequence_text(char, seqtext, t, size_t, nt)
        lttng_ust_field_enum(tl, state, int, state, i)
    )
)

/* an event of another channel */
LTTNG_UST_TRACEPOINT_EVENT(tl, tick,
    LTTNG_UST_TP_ARGS(int, n),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int, n, n)
    )
)

#endif /* TL_TP_H */

#include <lttng/tracepoint-event.h>
