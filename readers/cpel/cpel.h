/*
** cpel.h: VPP CPEL (Cisco Performance Event Log) reader.
**
** Format: "CPEL Performance Event Log Files", fd.io VPP wiki (2016), as
** written by VPP's c2cpel/perftool and read by cpeldump and g2.
**
** On disk (all multi-byte fields in the file's byte order: big-endian
** unless bit 0x80 of the first byte is set, then little-endian):
**
**   struct cpel_file_header {            8 bytes
**     u8  endian_version;                bit 0x80 little-endian; low 7 bits: version (1)
**     u8  pad;
**     u16 nsections;
**     u32 file_date;                     Unix time
**   };
**   nsections x {
**     u32 section_type;                  1 STRTAB 2 SYMTAB 3 EVTDEF 4 TRACKDEF 5 EVENTS
**     u32 data_length;                   bytes of data, not counting these 8
**     u8  data[data_length];
**   };
**
**   STRTAB:   NUL-terminated strings; the first is the table's name.
**   SYMTAB:   char strtab[64]; u32 n; n x { u32 value; u32 name_offset; }
**   EVTDEF:   char strtab[64]; u32 n; n x { u32 code; u32 event_fmt; u32 datum_fmt; }
**   TRACKDEF: char strtab[64]; u32 n; n x { u32 track; u32 track_fmt; }
**   EVENTS:   char strtab[64]; u32 n; u32 clock; n x {
**               u32 time[2];             high word first
**               u32 track; u32 code; u32 datum; }          20 bytes
**
** The wiki calls the EVENTS clock field clock_ticks_per_microsecond; VPP's
** own tools write and read ticks per second (1000000000 for ns clocks). A
** value below 1000000 is read as ticks per microsecond, anything else as
** ticks per second; the option cpel_clock=per_us|per_second decides
** explicitly.
*/
#ifndef TL_CPEL_H
#define TL_CPEL_H

#include "reader.h"

extern const TlReaderDef tl_cpel_reader;

/*
** Render a CPEL format string with one value, as the CPEL tools do: every
** conversion (%d %i %u %x %X %o %c with flags, width and precision) takes
** the same value; %s inserts a string (zStr, may be NULL: nothing), %k a
** symbol name + offset (zSym: the caller's rendering, or NULL for hex).
** Exposed for the tests.
*/
void tl_cpel_format(TlStr *pOut, const char *zFmt, uint32_t v, const char *zStr,
                    const char *zSym);

#endif /* TL_CPEL_H */
