/*
** xray.h: LLVM XRay log reader (basic and FDR modes).
**
** Format: LLVM XRay FDR format document (the project's seed 004, version 1)
** and what compiler-rt's XRay runtime writes today (FDR version 5, basic
** version 3), as read by llvm-xray. Fields are in the byte order of the
** machine that wrote the log: little-endian from x86-64 and AArch64, big-
** endian from big-endian producers (PowerPC64, MIPS). Nothing in the file
** names the order: the reader takes the one in which the header's version
** and type make sense. A big-endian producer also numbers bitfields from
** the top of their unit (see fdr_is_meta() and its neighbours).
**
**   struct file_header {                  32 bytes
**     u16 version;                        basic 1-3, FDR 1-5
**     u16 type;                           0 basic ("naive"), 1 FDR
**     u32 bits;                           bit 0 constant TSC, bit 1 nonstop TSC
**     u64 cycle_frequency;                TSC ticks per second
**     u8  free_form[16];
**   };
**
** Basic mode: 32-byte records after the header:
**   u16 record_type (0 function, 1 argument payload); u8 cpu; u8 type
**   (0 enter, 1 exit, 2 tail exit, 3 enter with args); i32 func_id; u64 tsc;
**   u32 tid; u32 pid (version 3); padding. A payload record (u16 1, pad,
**   i32 func_id, u32 tid, u32 pid, u64 arg) adds an argument to the record
**   before it.
**
** FDR mode: buffers of records. Metadata records are 16 bytes, first byte
** (kind << 1) | 1: 0 NewBuffer (i32 tid), 1 EndOfBuffer, 2 NewCPUId (u16
** cpu, u64 tsc), 3 TSCWrap (u64 tsc), 4 WallClockTime (u64 s, u32 us of CLOCK_MONOTONIC),
** 5 CustomEventMarker (i32 size, u64 tsc [v5: i32 delta]; size payload
** bytes follow), 6 CallArgument (u64), 7 BufferExtents (u64 bytes of the
** buffer after this record), 8 TypedEventMarker (i32 size, i32 delta, u16
** type; payload follows), 9 Pid (i32). Function records are 8 bytes: a u32
** with bit 0 clear, bits 1-3 the type, bits 4-31 the function id, then a
** u32 TSC delta from the previous record of the buffer.
*/
#ifndef TL_XRAY_H
#define TL_XRAY_H

#include "reader.h"

extern const TlReaderDef tl_xray_reader;

#endif /* TL_XRAY_H */
