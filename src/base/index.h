/*
** index.h: the packet index.
**
** One TlPacket per packet (CTF), chunk (perf), buffer (XRay) or event
** section (CPEL): where it is, which stream and CPU it belongs to, and the
** time range of its events. Scans consult it to skip what cannot match a
** ts window or cpu filter. It is the only structure whose size grows with
** the trace: O(packets), never O(events).
*/
#ifndef TL_INDEX_H
#define TL_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define TL_TS_MIN INT64_MIN
#define TL_TS_MAX INT64_MAX
#define TL_UNKNOWN UINT64_MAX

typedef struct TlPacket TlPacket;
struct TlPacket {
  uint64_t iOff;                  /* byte offset of the packet in its file */
  uint64_t nSize;                 /* bytes of the packet, padding included */
  uint64_t nContent;              /* bytes of content (CTF content_size/8) */
  int64_t tsBegin;                /* ns of the first event (TL_TS_MIN if unknown) */
  int64_t tsEnd;                  /* ns of the last event (TL_TS_MAX if unknown) */
  int64_t iStream;                /* tracks.id of its stream, or -1 */
  int64_t iCpu;                   /* its CPU, or -1 when unknown or several */
  uint64_t mCpu;                  /* CPUs seen, bit c for c<63; bit 63 = other/unknown; 0 = use iCpu */
  uint64_t nEvents;               /* events in it, or TL_UNKNOWN */
  uint64_t nDiscarded;            /* events the producer discarded, or TL_UNKNOWN */
  int64_t iSeq;                   /* producer's sequence number, or -1 */
  uint32_t iFile;                 /* index of its file within the trace */
  uint32_t flags;                 /* reader-private bits */
  uint64_t iAux;                  /* reader-private value */
  uint64_t nReads;                /* times a scan decoded it (tl_packet_note_read) */
};

typedef struct TlIndex TlIndex;
struct TlIndex {
  TlPacket *a;                    /* packets, in the order the reader appended */
  size_t n;                       /* packets used */
  size_t nAlloc;                  /* packets allocated */
  char **azFile;                  /* file names relative to the trace (iFile), or NULL */
  size_t nFile;                   /* entries in azFile */
};

void tl_index_init(TlIndex*);
void tl_index_free(TlIndex*);

/*
** Append a copy of *p. Returns 0 or TL_ENOMEM. Reports the bytes reached
** to the calling thread's progress report (progress.h).
*/
int tl_index_add(TlIndex*, const TlPacket *p);

/* Append a file name; *piFile gets its index. Returns 0 or TL_ENOMEM. */
int tl_index_add_file(TlIndex*, const char *zName, uint32_t *piFile);

/* Total events over all packets, or TL_UNKNOWN if any packet does not know. */
uint64_t tl_index_events(const TlIndex*);

/*
** Does packet p possibly hold events in [tsLo, tsHi] on one of the nCpu
** CPUs in aCpu (nCpu<0: any CPU)? False only when it surely does not.
*/
int tl_packet_may_match(const TlPacket *p, int64_t tsLo, int64_t tsHi,
                        const int64_t *aCpu, int nCpu);

/*
** Count one decoding of packet p by a scan (thread-safe). The packets table
** shows the count as args.reads, which is how tests and users see what a
** filtered query had to read. The packet's bytes count as done in the
** calling thread's progress report (progress.h).
*/
void tl_packet_note_read(const TlPacket *p);

/* The count tl_packet_note_read() kept. */
uint64_t tl_packet_reads(const TlPacket *p);

/*
** Within a[0..n) sorted by tsEnd ascending (the packets of one stream),
** the first whose tsEnd >= ts, or n.
*/
size_t tl_packets_first_end_ge(const TlPacket *a, size_t n, int64_t ts);

#endif /* TL_INDEX_H */
