/*
** model_unwind.h: the user frames of a stack, unwound from a copy of the
** stack and the registers at the sample, as the model computes them with
** elfutils' libdw (src/model/unwind.c).
**
** Input, format-neutral: the registers in DWARF's x86_64 order (rax, rdx,
** rcx, rbx, rsi, rdi, rbp, rsp, r8..r15, rip), which of them are known,
** the bytes copied from the stack from rsp on, and the process, thread
** and time (the maps of the symbols model say which file each address is
** in). The files are the symbols model's (symfs=, buildid_dir=, build ids
** checked); their CFI (.eh_frame, .debug_frame) is read by libdw, once per
** file and process (one Dwfl per process, kept across samples).
**
** Output: the frames innermost first, as perf script prints the frames of
** a --call-graph dwarf sample: the sample's pc, then each caller's return
** address minus 1 (the call instruction, as dwfl_frame_pc's activation
** rule says). A frame whose address no usable file holds is the last:
** perf stops there too. Each cause of a stop that the trace could fix (a
** file not found, a build id that differs, a file libdw cannot read) is a
** warning of the trace, once per cause and file.
**
** Work per sample is bounded: at most TL_UNWIND_MAX_FRAMES frames and
** TL_UNWIND_MAX_READS reads of memory, whatever the stack, registers and
** CFI say.
**
** A TlUnwind is used by one thread at a time (one per scan); the symbols
** model it reads is shared.
*/
#ifndef TL_MODEL_UNWIND_H
#define TL_MODEL_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "model_symbols.h"

#define TL_UNWIND_NREG 17             /* DWARF registers 0..16 (16: rip) */
#define TL_UNWIND_REG_SP 7            /* rsp */
#define TL_UNWIND_REG_IP 16           /* rip */
#define TL_UNWIND_MAX_FRAMES 127      /* perf's default max stack depth */
#define TL_UNWIND_MAX_READS 4096      /* memory words read per sample */
#define TL_UNWIND_MAX_PROCS 16        /* processes whose files stay loaded */

typedef struct TlUnwind TlUnwind;

/* One sample's user state. */
typedef struct TlUnwindIn TlUnwindIn;
struct TlUnwindIn {
  int64_t pid, tid;               /* the process (its maps) and thread */
  int64_t ts;                     /* the time, or TL_SYMBOLS_NO_TS */
  uint64_t aReg[TL_UNWIND_NREG];  /* registers, DWARF order */
  uint32_t mReg;                  /* bit i: aReg[i] is known */
  const uint8_t *aStack;          /* the stack's bytes from aReg[TL_UNWIND_REG_SP] on */
  size_t nStack;                  /* (little-endian words) */
};

/* A new unwinder over the maps and files of pSyms; NULL when out of memory. */
TlUnwind *tl_unwind_new(TlSymbols *pSyms);
void tl_unwind_free(TlUnwind*);      /* NULL-safe */

/*
** The frames of one sample into aIp[0..nMax) (nMax at most
** TL_UNWIND_MAX_FRAMES is used), innermost first; returns how many (0 when
** rip or rsp is unknown). pTrace: its lock and warnings.
*/
int tl_unwind_frames(TlUnwind*, TlTrace *pTrace, const TlUnwindIn*, uint64_t *aIp, int nMax);

/*
** Source lines and inlined functions of addresses (src/model/srcline.c):
** what perf script -F srcline and --inline show for a frame, from the
** DWARF of the file mapped there (the symbols model's file), kept per
** (file, address).
*/
typedef struct TlSrclines TlSrclines;
typedef struct TlSrcFrame TlSrcFrame;
struct TlSrcFrame {
  const char *zFunc;              /* an inlined function's name; NULL: the frame itself */
  const char *zSrcline;           /* "FILE:LINE" (base name), NULL when unknown */
};

TlSrclines *tl_srclines_new(TlSymbols *pSyms);   /* NULL when out of memory */
void tl_srclines_free(TlSrclines*);               /* NULL-safe */

/*
** The frames at user address ip of process pid at time ts, innermost
** first: the functions holding it as perf 6.1 lists them (srcline.c,
** frames_at), each with its source line: the inlined ones (zFunc) and the
** frame itself (zFunc NULL), usually the last, but it may be the first or
** missing. *paOut is good until the next call.
** Returns their number, 0 when no readable file is mapped at ip.
*/
int tl_srclines_at(TlSrclines*, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                   const TlSrcFrame **paOut);

/*
** What babeltrace2's debug-info filter (flt.lttng-utils.debug-info) gives
** for user address ip of process pid at time ts, from the DWARF of the
** file mapped there:
**   func   the DW_AT_name of the compile unit's top-level subprogram
**          holding ip, and ip's offset from its low pc;
**   src    "BASENAME:LINE": where the first inlined subroutine holding ip
**          is called (DW_AT_call_file:DW_AT_call_line; an LTTng-UST
**          tracepoint is one), else the line-table row that starts exactly
**          at ip (an address inside a row has none); none when that
**          subprogram has no children (babeltrace2 2.0's walk fails there).
** 1 when the file has DWARF (*pOut set, members NULL where unknown; the
** strings good until the next call), 0 when no readable file with DWARF
** is mapped at ip (babeltrace2 then names func from the ELF symbols).
*/
typedef struct TlBt2Info TlBt2Info;
struct TlBt2Info {
  const char *zFunc;              /* NULL: none */
  uint64_t funcOff;
  const char *zSrc;               /* NULL: none */
};
int tl_srclines_bt2_at(TlSrclines*, TlTrace *pTrace, int64_t pid, int64_t ts, uint64_t ip,
                       TlBt2Info *pOut);

#endif /* TL_MODEL_UNWIND_H */
