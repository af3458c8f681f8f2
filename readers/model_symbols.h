/*
** model_symbols.h: symbols of addresses, as the model computes them from
** format-neutral inputs (the reader-facing part of src/model/symbols.c).
**
** What the model computes: for an address of a process at a time, the
** file mapped there and the symbol holding it. Its inputs, which a reader
** hands over while it first reads its trace:
**
**   maps      pid, time, start, length, file offset, file name: the file
**             is mapped at [start, start+len) from pgoff on, from ts on
**   build ids the build id a trace records for a file
**   parents   the parent of a process, whose maps a child inherits
**   paths     where the files are (symfs=), the build-id cache
**             (buildid_dir=) and the kernel's symbols (kallsyms=)
**
** The answer for (pid, ts, ip): of the maps of pid holding ip made at or
** before ts, the one added last (else the same in the parent's maps, up
** to 8 generations up). Its
** file is read as ELF when a question first needs it: ip becomes a file
** offset (ip - start + pgoff), then a virtual address through the PT_LOAD
** segment holding that offset, and the symbol is the one of .symtab (else
** .dynsym) holding that address, or a PLT stub. Names are perf 6.1's: C++
** (and Rust) names demangled as perf demangles them, without parameters;
** a PLT stub is "NAME@plt"; of the symbols at one address, the one perf
** chooses; a symbol without a size ends where the next one starts. All is
** computed when a file is read, once: a question is a binary search.
** Kernel addresses are looked up in the kallsyms file (names as they are),
** moved by the kernel's relocation when it differs from the recording's.
** What cannot be named is "[unknown]", as perf prints it.
**
** Inputs come while one thread reads the trace; tl_symbols_finish() ends
** them. The questions may then come from any thread: files are read once,
** on first use, under the trace's lock (tl_trace_lock); kallsyms under a
** lock of its own, so that files are read while it is.
*/
#ifndef TL_MODEL_SYMBOLS_H
#define TL_MODEL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

typedef struct TlSymbols TlSymbols;

#define TL_SYMBOLS_EVERY_PID (-1)     /* pid of a map every process has (the kernel's) */
#define TL_SYMBOLS_NO_TS INT64_MIN    /* a map or a question without a time */
#define TL_SYMBOLS_MAX_MAPS (1u<<20)  /* maps kept; later ones are dropped */

/*
** A new, empty model. zSymfs: root under which files are looked up by
** their mapped path (NULL: the path itself); zBuildidDir: the build-id cache (NULL:
** $HOME/.debug, or zSymfs/.debug as perf has it); zKallsyms: the kallsyms
** file (NULL: found as perf finds it: none under a symfs, else /proc/kallsyms when the trace's kernel build id is the
** running kernel's or the trace has none, else the build-id cache's
** [kernel.kallsyms]/<build id>/kallsyms, else none, with a warning). The
** strings are copied. NULL when out of memory.
*/
TlSymbols *tl_symbols_new(const char *zSymfs, const char *zBuildidDir, const char *zKallsyms);
void tl_symbols_free(TlSymbols*);     /* NULL-safe */

/*
** File zFile[0..nFile) is mapped in process pid (TL_SYMBOLS_EVERY_PID: in
** every one) at [start, start+len) from file offset pgoff, from time ts on
** (TL_SYMBOLS_NO_TS: always). TL_OK, TL_ENOMEM, or TL_DONE for the first
** map past the model's cap (it and later ones are not kept: the caller may
** warn once).
*/
int tl_symbols_add_map(TlSymbols*, int64_t pid, int64_t ts, uint64_t start, uint64_t len,
                       uint64_t pgoff, const char *zFile, size_t nFile);

/*
** As tl_symbols_add_map, for a map given by where the loader put the file
** (LTTng-UST's statedump and dlopen events: the base address, the size in
** memory): the file's virtual address vaddr is at start (0 for a
** position-independent file, start itself for one that is not), so ip is
** the file's address ip - start + vaddr, read through no PT_LOAD segment;
** the answer's dsooff is that address (babeltrace2's offset in the file).
** A map of file "" (nFile 0) hides the maps under it from ts on (a
** dlclose): questions find it, named "".
*/
int tl_symbols_add_map_vaddr(TlSymbols*, int64_t pid, int64_t ts, uint64_t start, uint64_t len,
                             uint64_t vaddr, const char *zFile, size_t nFile);

/*
** The trace recorded build id aId[0..nId) (nId <= 20) for file zFile: the
** file is then taken from the build-id cache, or at its path only if its
** own build id is this one. Files not named by an absolute path are not
** read. zFile "[kernel.kallsyms]": the build id of the kernel the trace
** was recorded on (which kallsyms to read). TL_OK or TL_ENOMEM.
*/
int tl_symbols_add_build_id(TlSymbols*, const char *zFile, size_t nFile,
                            const uint8_t *aId, size_t nId);

/*
** The trace recorded the debug link of file zFile (an LTTng-UST statedump's
** debug_link event): its separate debug file is named zLink[0..nLink), with
** GNU debuglink CRC-32 crc. It then stands for the file's own
** .gnu_debuglink section (TlMapAt.zDebugPath: how debug files are found).
** TL_OK or TL_ENOMEM.
*/
int tl_symbols_add_debug_link(TlSymbols*, const char *zFile, size_t nFile,
                              const char *zLink, size_t nLink, uint32_t crc);

/*
** The kernel's reference symbol zSym[0..nSym) (perf: "_text") was at addr
** when the trace was recorded: kallsyms's addresses are moved by the
** difference (a kernel relocated at each boot, KASLR), as perf does.
*/
void tl_symbols_set_kernel_ref(TlSymbols*, const char *zSym, size_t nSym, uint64_t addr);

/*
** Can a kernel address be named now without waiting: 1 when kallsyms is
** read (or there is none to read), reading it now when no thread does; 0
** while another thread reads it (a caller with other work may come back).
*/
int tl_symbols_kernel_try(TlSymbols*, TlTrace*);

/*
** A query that will name kernel addresses is coming: start reading the
** kallsyms file the inputs so far name, on a thread of its own, while the
** reader goes on with its inputs (the walk that builds the index). The
** first kernel address asked about then waits for that read, and takes it
** when the ended inputs still name that file; else it is dropped and the
** right file read then. Names are the same either way. A hint: nothing
** happens when no thread can be made or kallsyms is read already.
*/
void tl_symbols_kernel_prefetch(TlSymbols*);

/* Process pid is a child of ppid (inherits its maps). TL_OK or TL_ENOMEM. */
int tl_symbols_add_parent(TlSymbols*, int64_t pid, int64_t ppid);

/* No more inputs: the model is ready for questions. */
void tl_symbols_finish(TlSymbols*);

/* The answer about one address. Strings last as long as the model. */
typedef struct TlSymbolAt TlSymbolAt;
struct TlSymbolAt {
  const char *zSym;               /* the symbol, or "[unknown]" */
  const char *zDso;               /* its file ("[kernel.kallsyms]", a kernel
                                  ** module "[name]"), or "[unknown]" */
  uint64_t symoff;                /* ip - the symbol's start (0 if unknown) */
  uint64_t dsooff;                /* ip within its file: ip - start + pgoff
                                  ** (kernel: ip; 0 if no map holds it) */
};

/*
** What address ip of process pid at time ts is: bKernel says whether it is
** a kernel address (the caller knows: a callchain's context, the sample's
** mode). Reads files on first use (pTrace: its lock, and its warnings for
** files that cannot be used).
*/
void tl_symbols_at(TlSymbols*, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                   int bKernel, TlSymbolAt *pOut);

/* Why a mapped file is or is not read (TlMapAt.eWhy). */
#define TL_SYMFILE_NOT_READ 0         /* not asked for yet */
#define TL_SYMFILE_OPEN     1         /* open: zPath */
#define TL_SYMFILE_MISSING  2         /* not found (under symfs=, in the build-id cache) */
#define TL_SYMFILE_BUILD_ID 3         /* found, but its build id is not the trace's */
#define TL_SYMFILE_NOT_FILE 4         /* no file: [vdso], [heap], //anon, a relative name */

/* The map holding an address, and the file read for it. */
typedef struct TlMapAt TlMapAt;
struct TlMapAt {
  uint64_t start, len, pgoff;     /* the map: [start, start+len) from file offset pgoff */
  const char *zName;              /* the file as the trace names it */
  uint32_t iFile;                 /* the model's number of that file */
  int eWhy;                       /* TL_SYMFILE_* */
  const char *zPath;              /* TL_SYMFILE_OPEN: the file read for it */
  const char *zDebugPath;         /* its separate debug file, or NULL; looked
                                  ** for when the file has no .symtab or no
                                  ** .debug_info: by build id
                                  ** (SYMFS/usr/lib/debug/.build-id/xx/rest.debug),
                                  ** else by debug link (the trace's, else the
                                  ** file's .gnu_debuglink: NAME and CRC-32) as
                                  ** babeltrace2 and perf look: DIR/NAME,
                                  ** DIR/.debug/NAME, /usr/lib/debug/DIR/NAME,
                                  ** DIR the directory of SYMFS/path; its CRC
                                  ** must match */
  const uint8_t *aFile; size_t nFile; /* TL_SYMFILE_OPEN: its bytes (NULL: not mapped) */
  int bVaddr;                     /* pgoff is the virtual address at start
                                  ** (tl_symbols_add_map_vaddr), not a file offset */
};

/*
** The map of process pid holding ip at time ts (as tl_symbols_at finds it,
** through the parents), its file opened on first use. 1 with *pOut set, or
** 0 if no map holds ip. Strings and bytes last as long as the model.
*/
int tl_symbols_map_at(TlSymbols*, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                      TlMapAt *pOut);

/*
** JIT maps: a map of file "/tmp/perf-PID.map" (the name perf gives a
** process's anonymous executable memory) is named from that file, read
** under zSymfs on first use: one "START SIZE NAME" line per function
** (START and SIZE hex, "0x" allowed, one space or tab apart; NAME the rest
** of the line, 3 bytes or more as perf wants), at absolute addresses (dsooff is the address itself). A
** malformed line is skipped and counted in one warning.
**
** tl_symbols_jit_line parses one line z[0..n) (without its newline):
** 0 with its start, size and where its name starts, or -1 if malformed.
** tl_symbols_jit_check parses a whole map from memory (tests and fuzzing):
** *pnSym symbols, *pnBad malformed lines; TL_ECORRUPT if a symbol is not
** found at its own start (a bug), TL_ENOMEM, or TL_OK.
*/
int tl_symbols_jit_line(const char *z, size_t n, uint64_t *pStart, uint64_t *pSize, size_t *piName);
int tl_symbols_jit_check(const char *z, size_t n, size_t *pnSym, size_t *pnBad);

/*
** The next row of the symbols table (tables.h, TL_SY_*): the symbols of
** every mapped file that can be read (every alias, and the PLT stubs, by
** address), then kallsyms's. *piFile and *piSym
** (both 0 at the start) keep the position. TL_ROW with pRow's values and
** rowid set, or TL_DONE.
*/
int tl_symbols_next_row(TlSymbols*, TlTrace *pTrace, size_t *piFile, size_t *piSym, TlRow *pRow);

#endif /* TL_MODEL_SYMBOLS_H */
