/*
** dwlib.h: elfutils' libdw and libelf, loaded on first use.
**
** Only --call-graph dwarf stacks and source lines need them, and loading
** them (with libz, liblzma, libbz2) costs a millisecond of every process
** that loads the extension. So the extension does not link them: the first
** unwind or source-line lookup opens libdw.so.1 (which brings libelf.so.1)
** and takes the functions below from it. Callers call them through tl_dw
** (tl_dw.dwarf_attr(...)) after tl_dw_load() said yes.
*/
#ifndef TL_DWLIB_H
#define TL_DWLIB_H

#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#define TL_DW_FUNCS(X) \
  X(dwarf_addrdie) X(dwarf_attr) X(dwarf_attr_integrate) X(dwarf_begin_elf) \
  X(dwarf_cfi_addrframe) X(dwarf_child) X(dwarf_diename) X(dwarf_end) \
  X(dwarf_filesrc) X(dwarf_formref_die) X(dwarf_formstring) X(dwarf_formudata) \
  X(dwarf_frame_cfa) X(dwarf_frame_register) \
  X(dwarf_getscopes_die) X(dwarf_getsrc_die) X(dwarf_getsrcfiles) X(dwarf_haspc) \
  X(dwarf_lineaddr) X(dwarf_lineno) X(dwarf_linesrc) X(dwarf_lowpc) \
  X(dwarf_siblingof) X(dwarf_srclang) X(dwarf_tag) \
  X(dwfl_addrmodule) X(dwfl_attach_state) X(dwfl_begin) X(dwfl_end) \
  X(dwfl_errmsg) X(dwfl_frame_pc) X(dwfl_frame_reg) X(dwfl_getthread_frames) \
  X(dwfl_module_dwarf_cfi) X(dwfl_module_eh_cfi) X(dwfl_module_info) \
  X(dwfl_offline_section_address) X(dwfl_report_elf) X(dwfl_report_end) \
  X(dwfl_thread_state_registers) \
  X(elf_begin) X(elf_compress) X(elf_end) X(elf_getdata) X(elf_getphdrnum) \
  X(elf_nextscn) X(elf_version) X(gelf_getphdr) X(gelf_getshdr)

typedef struct TlDwLib TlDwLib;
struct TlDwLib {
#define TL_DW_MEMBER(f) __typeof__(f) *f;
  TL_DW_FUNCS(TL_DW_MEMBER)
#undef TL_DW_MEMBER
};

/* The functions; set once tl_dw_load() has returned 0, never changed after. */
extern TlDwLib tl_dw;

/* Loads the libraries on the first call (thread-safe; later calls are a
** check). Returns 0 when every function is there, else why not (a static
** message: the library or the function missing). */
const char *tl_dw_load(void);

#endif
