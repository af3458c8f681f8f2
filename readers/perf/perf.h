/*
** perf.h: Linux perf.data reader.
**
** Format: tools/perf/Documentation/perf.data-file-format.txt (Linux; the
** project's seeds 002 and 003), include/uapi/linux/perf_event.h for the
** records, as written by perf record 3.2 .. 6.x.
**
** File mode (all fields in the recording machine's byte order; the magic
** tells which):
**
**   struct perf_file_header {                 104 bytes
**     char magic[8];                          "PERFILE2"
**     u64  size;                              of this header
**     u64  attr_size;                         of one attrs[] entry
**     struct { u64 offset, size; } attrs, data, event_types;
**     u64  adds_features[4];                  bit f: feature section f present
**   };
**   attrs:  { struct perf_event_attr (attr_size-16 bytes); u64 ids_offset, ids_size; }[]
**   data:   records (below)
**   after data: { u64 offset, size; } per feature bit set, in bit order
**
** Pipe mode: { char magic[8]; u64 size = 16; } then records only; the
** attributes, tracing data, build ids and features arrive as records
** (HEADER_ATTR 64, HEADER_TRACING_DATA 66, HEADER_BUILD_ID 67,
** HEADER_FEATURE 80).
**
**   struct perf_event_header { u32 type; u16 misc; u16 size; };   then size-8 bytes
**
** HEADER_TRACING_DATA and AUXTRACE are followed by payload bytes that
** header.size does not count (u32 size, padded to 8; u64 size).
** COMPRESSED (81: zstd data to header.size) and COMPRESSED2 (83: u64
** data_size, then data) hold zstd frames whose output is more records; a
** record may continue in the next container's output.
*/
#ifndef TL_PERF_H
#define TL_PERF_H

#include "reader.h"

extern const TlReaderDef tl_perf_reader;

/* perf report --stats's name of a record type ("SAMPLE", "MMAP2", ...), or NULL. */
const char *tl_perf_type_name(uint32_t type);

#endif /* TL_PERF_H */
