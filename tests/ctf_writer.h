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

/*
** The LTTng-style metadata of trace A (tests/test_ctf.c) up to its event
** classes: packet header and context, compact/extended event headers with
** a 27-bit timestamp, vtid/vpid context. The fuzz target for CTF streams
** uses it too, so the test trace is a seed for it.
*/
#define CTF_META_A_STREAM \
  "/* CTF 1.8 */\n" \
  "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n" \
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n" \
  "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n" \
  "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n" \
  "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n" \
  "trace { major = 1; minor = 8; byte_order = le;\n" \
  "  packet.header := struct { uint32_t magic; uint32_t stream_id; };\n" \
  "};\n" \
  "clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1000; offset = 0; };\n" \
  "typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_t;\n" \
  "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n" \
  "stream { id = 0;\n" \
  "  packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;\n" \
  "    uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n" \
  "    uint64_t events_discarded; uint32_t cpu_id; };\n" \
  "  event.header := struct {\n" \
  "    enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n" \
  "    variant <id> {\n" \
  "      struct { uint27_clock_t timestamp; } compact;\n" \
  "      struct { uint32_t id; uint64_clock_t timestamp; } extended;\n" \
  "    } v;\n" \
  "  } align(8);\n" \
  "  event.context := struct { int32_t _vtid; int32_t _vpid; };\n" \
  "};\n"

/* Trace A (tests/test_ctf.c), written once into the test directory: its path. */
const char *tl_test_ctf_dir_a(void);
/* Trace A's shape with packets of about 200 KiB (tests/test_ctf.c), likewise. */
const char *tl_test_ctf_dir_big(void);

/* Trace A's event classes. */
#define CTF_META_A_EVENTS \
  "event { name = \"tick\"; id = 0; stream_id = 0; fields := struct { uint32_t seq; string msg; }; };\n" \
  "event { name = \"big\"; id = 40; stream_id = 0; fields := struct { uint64_t value; }; };\n"

#endif
