/*
** elf.h: reading ELF files (System V gABI), 32 or 64 bits, either byte
** order: section headers, PT_LOAD program headers, string tables and
** symbol tables. Every read goes through the bounds-checked cursor; a
** section or segment that points outside the file reads as empty.
*/
#ifndef TL_ELF_H
#define TL_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "err.h"
#include "source.h"

#define TL_ELF_SHT_SYMTAB  2
#define TL_ELF_SHT_DYNSYM  11
#define TL_ELF_SHT_RELA    4
#define TL_ELF_SHT_REL     9
#define TL_ELF_STT_OBJECT  1
#define TL_ELF_STT_FUNC    2
#define TL_ELF_STB_LOCAL   0
#define TL_ELF_STB_GLOBAL  1
#define TL_ELF_STB_WEAK    2

typedef struct TlElfSec TlElfSec;
struct TlElfSec {
  uint32_t name, type, link;
  uint64_t addr, off, size, entsize;
};

typedef struct TlElfSeg TlElfSeg;   /* a PT_LOAD segment */
struct TlElfSeg {
  uint64_t off, vaddr, filesz;
};

typedef struct TlElf TlElf;
struct TlElf {
  TlBytes b;                      /* the whole file (borrowed) */
  int b64;                        /* ELFCLASS64 */
  uint16_t machine;               /* e_machine */
  uint16_t etype;                 /* e_type: 2 EXEC, 3 DYN */
  TlElfSec *aSec; uint32_t nSec;
  uint32_t iShstr;                /* section of the section names */
  TlElfSeg *aSeg; uint32_t nSeg;
};

/* One symbol table entry. */
typedef struct TlElfSym TlElfSym;
struct TlElfSym {
  uint32_t nameOff;
  uint8_t info;                   /* type in the low 4 bits */
  uint16_t shndx;
  uint64_t value, size;
};

/*
** Parse the headers of the ELF file a[0..n) (borrowed: it must outlive e).
** Errors name zWhat and the offset: not ELF (TL_EMISUSE), damaged headers.
*/
int tl_elf_parse(TlElf *e, const uint8_t *a, size_t n, const char *zWhat, TlErr *pErr);
void tl_elf_free(TlElf *e);

/* A native-width word (4 or 8 bytes) from b; *pbErr set past the end. */
uint64_t tl_elf_word(TlBytes *b, int b64, int *pbErr);

/* Bytes of section k (empty for NOBITS or out of range). */
TlBytes tl_elf_sec(const TlElf *e, uint32_t k);

/* NUL-terminated string at offset i of string section k, or NULL. */
const char *tl_elf_str(const TlElf *e, uint32_t k, uint64_t i);

/* The first section named zName, or UINT32_MAX. */
uint32_t tl_elf_find_sec(const TlElf *e, const char *zName);

/* The next entry of a symbol table's bytes b; 0, or -1 at its end. */
int tl_elf_sym_next(const TlElf *e, TlBytes *b, TlElfSym *pSym);

/* Entry i of symbol table section k; 0, or -1 past its end. */
int tl_elf_sym_at(const TlElf *e, uint32_t k, uint64_t i, TlElfSym *pSym);

/*
** Read ELF file p (a regular file source, before it is shared) into memory
** it owns, as tl_source_load() but only the parts symbols, build ids and
** unwinding use: the headers, every section but the DWARF ones
** (.debug_*, .zdebug_*; .debug_frame is read) and every PT_LOAD segment.
** The rest reads as zeros and costs no memory (pages never written). At
** most nMax bytes are read, else TL_ELIMIT; a file that changes while it
** is read is TL_EIO ("changed while it was read"). Not ELF, damaged
** headers, or over TL_ELF_MAX_VSIZE bytes: read whole by tl_source_load().
*/
int tl_elf_load(TlSource *p, uint64_t nMax, TlErr *pErr);
#define TL_ELF_MAX_VSIZE ((uint64_t)16<<30)

/*
** The lazy-binding PLT of a dynamically linked file: the .plt section, the
** relocations of its slots (.rela.plt, else .rel.plt) and the dynamic
** symbol table they index. Slot i's stub is at addr + hdrsize + entsize*i
** and calls the function of the symbol of relocation i. The sizes are the
** psABI's where they are fixed (ARM, AArch64, SPARC), else .plt's entry
** size for both (x86: a 16-byte header, then 16-byte stubs).
*/
typedef struct TlElfPlt TlElfPlt;
struct TlElfPlt {
  uint64_t addr;                  /* .plt's address */
  uint64_t hdrsize, entsize;      /* its header's size, a stub's size */
  TlBytes rel;                    /* the relocations left to read */
  int bRela;                      /* SHT_RELA (else SHT_REL) */
  uint32_t iDynsym;               /* the symbol table they index */
};

/* *pPlt for e; 0, or -1 when e has no such PLT (or a damaged one). */
int tl_elf_plt(const TlElf *e, TlElfPlt *pPlt);

/* The symbol index of the next PLT relocation; 0, or -1 at the end. */
int tl_elf_plt_next(const TlElf *e, TlElfPlt *pPlt, uint32_t *piSym);

/*
** The virtual address of file offset off, through the PT_LOAD segment
** holding it; 0 on success, -1 when no segment holds it.
*/
int tl_elf_off_to_vaddr(const TlElf *e, uint64_t off, uint64_t *pVaddr);

#endif
