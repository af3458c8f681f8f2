/*
** ctf_writer.h: a small CTF 1.8 stream writer for the tests: bit-exact
** fields in either byte order (CTF 1.8 section 4.1.5: little-endian fields
** fill each byte from its least significant bit, big-endian ones from its
** most significant bit), alignment, and patching of sizes written later.
** Tests use it for what the real tools cannot make: the other byte order,
** bitfields, clock wrap, corruption and truncation.
*/
#ifndef TL_CTF_WRITER_H
#define TL_CTF_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct CtfW CtfW;
struct CtfW {
  uint8_t *a;                     /* the stream so far */
  size_t nAlloc;
  uint64_t iBit;                  /* next bit to write */
  int bBig;                       /* big-endian fields */
};

void ctfw_init(CtfW*, int bBig);
void ctfw_free(CtfW*);
void ctfw_align(CtfW*, unsigned nAlign);                 /* zero bits up to a multiple */
void ctfw_uint(CtfW*, unsigned nAlign, unsigned nBits, uint64_t v);
void ctfw_string(CtfW*, const char *z);                  /* byte aligned, with its NUL */
void ctfw_patch(CtfW*, uint64_t iBitAt, unsigned nBits, uint64_t v);
size_t ctfw_bytes(const CtfW*);                         /* bytes written (rounded up) */

/* Write zText to DIR/NAME and the stream to DIR/STREAM (either may be NULL). */
int ctfw_save_text(const char *zDir, const char *zName, const char *zText);
int ctfw_save(const CtfW*, const char *zDir, const char *zName, size_t nBytes);

#endif
