/*
** progress.h: progress reports on stderr for long index builds and scans.
**
** The progress= option (every format) picks the mode:
**   auto  (default) report only when stderr is a terminal, and only once
**         the work has taken a second; the line is redrawn in place
**   on    report whatever stderr is: a line when the work starts to count
**         bytes, one per second after that, and a last line when it ends
**   off   never
** A line says what is done, the bytes done out of the total, the share and
** the rate:
**     tracelite: indexing big.data: 96.0 of 400.0 MiB (24%), 95.1 MiB/s
**
** The shared layer drives it: tl_index_add() reports the bytes an index
** build has reached, tl_packet_note_read() the packets a scan decodes, so
** readers need nothing. Reports go to the TlProgress the calling thread
** made current (a thread-local pointer): work on other threads and other
** queries keeps its own.
*/
#ifndef TL_PROGRESS_H
#define TL_PROGRESS_H

#include <stdint.h>

#define TL_PROGRESS_AUTO 0
#define TL_PROGRESS_ON   1
#define TL_PROGRESS_OFF  2

typedef struct TlProgress TlProgress;
struct TlProgress {
  int eMode;                      /* TL_PROGRESS_*; OFF once nothing will be shown */
  int bTty;                       /* stderr is a terminal: redraw one line */
  const char *zWhat;              /* "indexing", "scanning" (static) */
  char zName[64];                 /* the trace's file name, shortened */
  uint64_t nTotal;                /* bytes expected, 0 if unknown */
  uint64_t nDone;                 /* bytes done */
  uint32_t iFile;                 /* index builds: the file being indexed */
  uint64_t nBase;                 /* index builds: bytes of the files before it */
  uint64_t nFileEnd;              /* index builds: furthest byte reached in it */
  double tStart;                  /* monotonic seconds at begin */
  double tLast;                   /* when the last line was shown, 0: none */
};

/*
** Parse a progress= value (NULL: the default, auto) into *peMode. Returns 0,
** or -1 when the value is not auto, on or off.
*/
int tl_progress_mode(const char *zVal, int *peMode);

/*
** Start reporting work on zPath (its last path component is shown) that is
** nTotal bytes, and make p the calling thread's current report. Returns
** the report that was current before, for tl_progress_end().
*/
TlProgress *tl_progress_begin(TlProgress *p, int eMode, const char *zWhat,
                              const char *zPath, uint64_t nTotal);

/* Make p (may be NULL) the calling thread's current report; returns the previous. */
TlProgress *tl_progress_swap(TlProgress *p);

/*
** The work is over: show the last line if any was shown (or the mode is
** on), stop reporting p and make pPrev current again.
*/
void tl_progress_end(TlProgress *p, TlProgress *pPrev);

/* The current report's work advanced by n bytes (scans). */
void tl_progress_add(uint64_t n);

/* An index build reached byte iEnd of its file iFile. */
void tl_progress_reach(uint32_t iFile, uint64_t iEnd);

/*
** Bytes of the regular file zPath, or of the regular files beneath the
** directory zPath (16 levels and 131072 entries at most, links inside not
** followed, cut short when the caller asks to stop: see tl_poll()); 0 when
** it cannot be read.
*/
uint64_t tl_path_size(const char *zPath);

#endif /* TL_PROGRESS_H */
