/*
** cpel_writer.h: a small CPEL writer for the tests (real CPEL tools are not
** packaged for Debian). It writes exactly the layout of readers/cpel.h, in
** either byte order, so tests can build files with known contents.
*/
#ifndef TL_CPEL_WRITER_H
#define TL_CPEL_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct CpelW CpelW;
struct CpelW {
  uint8_t *a;                     /* the file so far */
  size_t n, nAlloc;
  int bLittle;                    /* write little-endian (endian bit set) */
  size_t iLen;                    /* offset of the open section's length field */
};

void cw_init(CpelW*, int bLittle, uint16_t nSections);
void cw_free(CpelW*);
void cw_u8(CpelW*, uint8_t);
void cw_u16(CpelW*, uint16_t);
void cw_u32(CpelW*, uint32_t);
void cw_bytes(CpelW*, const void*, size_t);
void cw_name(CpelW*, const char *zName);            /* 64-byte NUL-padded field */
void cw_sec_begin(CpelW*, uint32_t type);
void cw_sec_end(CpelW*);                            /* patches the length */

/*
** A STRTAB section of the strings az[0..n) (az[0] is the table's name),
** padded to 4 bytes; aOff[i] gets each string's offset.
*/
void cw_strtab(CpelW*, const char *const *az, int n, uint32_t *aOff);

/* One 20-byte event entry. */
void cw_event(CpelW*, uint64_t ticks, uint32_t track, uint32_t code, uint32_t datum);

/* Write the file; returns its path (static buffer per call site's name). */
const char *cw_save(CpelW*, const char *zName);

#endif
