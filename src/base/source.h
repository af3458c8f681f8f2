/*
** source.h: read-only access to a trace file.
**
** A TlSource is opened once per file and shared by every scan (it is
** immutable once shared). Regular files are read by pread(2) into bounded
** buffers owned by a TlWin, the per-scan window holder, so a file cut
** short or rewritten under a scan is an error, never a signal: each
** window read checks that the bytes it wanted were there, and every
** TL_WIN_CHECK bytes (and at the end of the file) that the file's size,
** modification and change times are those seen at open. Mapping the file
** (tl_source_map(), the option mmap=on) is an opt-in, as SQLite's
** mmap_size: faster on warm caches, but a file truncated under a mapped
** scan raises SIGBUS in the process. A FIFO or device
** (tl_source_open_stream() only) is read whole into memory at open.
*/
#ifndef TL_SOURCE_H
#define TL_SOURCE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "err.h"

#define TL_SOURCE_BIG 2                 /* TlSource.bMapped: memory of tl_big_alloc() */

typedef struct TlSource TlSource;
struct TlSource {
  int fd;                         /* open descriptor, -1 when from memory */
  uint64_t nSize;                 /* file size at open */
  const uint8_t *aMap;            /* whole-file mapping, or NULL */
  void *pOwn;                     /* what to munmap or free at close, or NULL */
  int bMapped;                    /* pOwn came from mmap (munmap at close), or
                                  ** TL_SOURCE_BIG: from tl_big_alloc() */
  char *zPath;                    /* path as opened (malloc'd) */
  int64_t mtimeSec, mtimeNsec;    /* modification time at open */
  int64_t ctimeSec, ctimeNsec;    /* status change time at open */
  int bRegular;                   /* a regular file (fd re-read by pread) */
  uint64_t dev, ino;              /* its device and inode at open */
  int bDropped;                   /* fd closed (tl_source_drop_fd()): windows
                                  ** open the file themselves */
};

/*
** Open zPath read-only: a regular file (binary=, symbol files, a CTF
** trace's files). Anything else is an error naming what it is (a FIFO, a
** device, a directory); opening never blocks. *ppSrc must be freed with
** tl_source_close().
*/
int tl_source_open(const char *zPath, TlSource **ppSrc, TlErr *pErr);

/*
** As tl_source_open(), but a FIFO or a device is accepted too and read
** whole into memory (up to TL_WIN_MAX bytes, else TL_ELIMIT): for a trace
** named by the user, which may come through a pipe. A FIFO that no writer
** opens within TL_FIFO_WAIT_MS is an error; one whose writer is there is
** read until the writer closes it.
*/
int tl_source_open_stream(const char *zPath, TlSource **ppSrc, TlErr *pErr);

/*
** The first nMax bytes (or all) of regular file zPath, read to its end
** rather than to the size it reports (/proc/kallsyms says 0), into a new
** NUL-terminated buffer *pz of *pn bytes (free() it). A FIFO, device or
** directory is an error naming what it is; opening never blocks.
*/
int tl_file_read(const char *zPath, size_t nMax, char **pz, size_t *pn, TlErr *pErr);

/*
** As tl_file_read, into memory of tl_big_alloc() of *pnAlloc bytes (give
** both to tl_big_free): for a file of megabytes read whole and kept.
*/
int tl_file_read_big(const char *zPath, size_t nMax, char **pz, size_t *pn, size_t *pnAlloc,
                     TlErr *pErr);

/*
** Memory for a large buffer (megabytes), anonymous pages mapped 2 MiB
** aligned and asked to be transparent huge pages (MADV_HUGEPAGE, where
** the kernel has them): the buffer's first touch then costs a page fault
** per 2 MiB rather than per 4 KiB, and pages never touched cost nothing.
** Not zeroed on growth beyond what the kernel gives (zeros). NULL when
** out of memory. tl_big_realloc keeps the bytes (its pages moved, not
** copied); tl_big_free takes the size last given (NULL-safe).
*/
void *tl_big_alloc(size_t n);
void *tl_big_realloc(void *p, size_t nOld, size_t nNew);
void tl_big_free(void *p, size_t n);

/*
** A source over n bytes of memory (fuzzers, tests). The bytes are copied
** when bCopy, else borrowed and must outlive the source.
*/
int tl_source_mem(const void *a, size_t n, int bCopy, TlSource **ppSrc);

/*
** A source over open regular file fd (owned from here on; closed on
** error), named zName in messages: a temporary file the reader wrote.
*/
int tl_source_fd(int fd, const char *zName, TlSource **ppSrc, TlErr *pErr);

/*
** A new temporary file in $TMPDIR (else the system's), already unlinked,
** open for reading and writing in *pFd; errors name zWhat, what it is for.
*/
int tl_tmpfile(const char *zWhat, int *pFd, TlErr *pErr);

/*
** Map regular file source p read-only (the opt-in mmap=on): windows are
** then borrowed from the mapping, and a file truncated under a scan kills
** the process with SIGBUS. Call before the source is shared. A failed
** mapping leaves p reading by pread. Returns whether p is now mapped.
*/
int tl_source_map(TlSource *p);

/*
** Read the whole of regular file source p into memory it owns, checking
** that the file still has the size it had at open, unless it is mapped
** already: for files parsed whole (ELF binaries, symbol files, maps). A
** file over nMax bytes is TL_ELIMIT, before any read. Call before the
** source is shared; windows then borrow from the copy.
*/
int tl_source_load(TlSource *p, uint64_t nMax, TlErr *pErr);

void tl_source_close(TlSource*);  /* NULL-safe */

/*
** Close regular file source p's descriptor (before the source is shared):
** each TlWin then opens the file when it reads, checking that it is the
** file opened (device, inode, size, times), and keeps it open while fewer
** than TL_WIN_FDS such descriptors are open in the process, else closes it
** after each read. For traces of many files (CTF streams): open files stay
** under a budget however many the trace has.
*/
void tl_source_drop_fd(TlSource *p);

/*
** Has the file changed (size, modification or status change time) since
** it was opened? TL_OK if not (or if it cannot be told: memory, FIFOs),
** else TL_EIO with a message naming the file: "changed while it was read".
** Scans check before they start and when they end; window reads check as
** they go.
*/
int tl_source_check(const TlSource*, TlErr *pErr);

typedef struct TlWin TlWin;
struct TlWin {
  const TlSource *pSrc;           /* the file */
  uint8_t *aBuf;                  /* pread buffer (unmapped sources only) */
  size_t nAlloc;                  /* bytes allocated at aBuf */
  uint64_t nUnchecked;            /* bytes read since the last fstat */
  int fdOwn;                      /* 1 + its own descriptor (dropped sources),
                                  ** 0: none (so a zeroed TlWin holds none) */
  uint64_t iBufOff;               /* file offset of the nBuf bytes at aBuf */
  size_t nBuf;                    /* bytes read into aBuf, 0: none */
  size_t nAhead;                  /* the least the next miss reads (0: TL_WIN_AHEAD) */
  size_t nHeld;                   /* bytes of aBuf counted in the read-ahead budget */
  size_t iBufAt;                  /* where in aBuf those nBuf bytes start */
  struct TlAhead *pAhead;         /* its helper thread (tl_win_walk()), or NULL */
  uint64_t iStop;                 /* a miss reads ahead no further than this
                                  ** offset (0: the file's end); tl_win_stop() */
};

void tl_win_init(TlWin*, const TlSource*);
void tl_win_free(TlWin*);

/*
** Read ahead no further than offset iStop (0: no bound) from now on: a
** walk of one region whose next region another thread reads (a chunk of
** a count or a tally) reads none of that one. Windows asked for past it
** are still given whole.
*/
static inline void tl_win_stop(TlWin *w, uint64_t iStop){ w->iStop = iStop; }

/*
** A window of n bytes at file offset iOff in *pOut (byte order bo). Near the
** end of the file the window is shorter; past it, empty. The bytes are
** borrowed until the next call on this TlWin. Returns TL_OK, or TL_EIO /
** TL_ELIMIT (n over the 256 MiB cap on unmapped sources) in pErr. TL_EIO
** too when the file changed since open (tl_source_check()): fewer bytes
** than it had, or a new size or time, seen every TL_WIN_CHECK bytes. A
** window inside the bytes read last costs no call. A miss reads at least
** TL_WIN_AHEAD bytes, and twice as many as the miss before when it comes
** at or just past the end of those (a walk onward through the file), up to
** TL_WIN_AHEAD_MAX: a walk of small regions one after the other (records,
** chunks, packets) costs one call per TL_WIN_AHEAD_MAX bytes. Windows hold
** bytes beyond TL_WIN_AHEAD only while all of them together hold less than
** TL_WIN_AHEAD_BUDGET such bytes.
*/
int tl_win_get(TlWin*, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
               TlErr *pErr);

/*
** Tell w that its caller walks onward through the file from iStart to iEnd
** by tl_win_get(), in windows of about nChunk bytes (0: TL_WIN_AHEAD_MAX),
** each call from at or just before the end of the bytes it got last (a
** record cut by a window's end is asked for again whole). When that is
** tl_win_walk_bytes or more of an unmapped regular file, and the
** read-ahead budget allows, a helper thread reads the chunks of nChunk
** bytes that follow a window (about 2 MiB of them, at least one) while
** the caller decodes it: the next call takes one, with no pread of its
** own, so that the copy out of the page cache and the decoding run side
** by side. The bytes, errors and checks are those of reads without it: a
** read the helper could not finish is made again by the caller, which
** reports it. Call after tl_win_init(), before the walk's first read or
** after it; tl_win_free() stops the helper. Returns whether a helper runs.
*/
int tl_win_walk(TlWin*, uint64_t iStart, uint64_t iEnd, size_t nChunk);
extern uint64_t tl_win_walk_bytes;    /* 8 MiB; tests set 0 */

/*
** As tl_win_get(), but the bytes are always copied into w's buffer from the
** file (when the source has one), never borrowed from the mapping: for a
** few bytes at each of many places far apart, where mapping the pages each
** one touches costs more than the copy (each fault maps its neighbours too,
** and the process unmaps them all at exit).
*/
int tl_win_read(TlWin*, uint64_t iOff, size_t n, int bo, TlBytes *pOut,
                TlErr *pErr);

/*
** As tl_win_read(), the n bytes at iOff copied into aDst (the caller's
** memory, where they are kept) by pread itself, through no buffer of w's:
** fewer bytes (the file ends before them) is an error.
*/
int tl_win_read_to(TlWin*, uint64_t iOff, size_t n, uint8_t *aDst, TlErr *pErr);

/*
** Interruption. The caller of a long operation (the engine, for
** sqlite3_interrupt()) makes a TlPoll current on its thread; every window
** read, and long loops that read no file (directory searches), call
** tl_poll(), which asks xStop at most every TL_POLL_MS milliseconds. Once
** xStop says so, tl_poll() and every later call return TL_EINTR. A thread
** with no current TlPoll is never stopped.
*/
typedef struct TlPoll TlPoll;
struct TlPoll {
  int (*xStop)(void*);            /* nonzero: stop */
  void *pArg;                     /* its argument */
  int64_t msNext;                 /* when to ask next (coarse monotonic ms) */
  int bStopped;                   /* xStop said so */
};
#define TL_POLL_MS 10

/* Make p (may be NULL) the calling thread's current TlPoll; returns the previous. */
TlPoll *tl_poll_swap(TlPoll *p);

/* TL_OK, or TL_EINTR (set in pErr) once the current TlPoll says stop. */
int tl_poll(TlErr *pErr);

/*
** Wait on pCond (pMutex held) at most TL_POLL_MS: a thread that waits for
** helpers this way still calls tl_poll() that often.
*/
void tl_cond_wait_poll(pthread_cond_t *pCond, pthread_mutex_t *pMutex);

#ifdef TL_TEST_HOOKS
/*
** Only in the test binary's copy of this file (make builds it with
** TL_TEST_HOOKS): called first by every tl_poll(), so before every window
** read, from the thread that polls. Tests change a file there, at a
** place of their choosing in an index build or a scan.
*/
extern void (*tl_test_poll_hook)(void);
#endif

#define TL_WIN_MAX ((size_t)256<<20)
#define TL_WIN_CHECK ((uint64_t)4<<20)  /* bytes read between two fstat()s */
#define TL_WIN_AHEAD ((size_t)64<<10)   /* the least tl_win_get() reads */
#define TL_WIN_AHEAD_MAX ((size_t)256<<10) /* the most it reads ahead of a walk */
#define TL_WIN_AHEAD_BUDGET ((size_t)64<<20) /* held beyond TL_WIN_AHEAD, all windows */
#define TL_WIN_FDS 256                  /* windows' own descriptors kept open */
#define TL_FIFO_WAIT_MS 3000      /* for a FIFO's first writer */

#endif /* TL_SOURCE_H */
