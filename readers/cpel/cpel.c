/*
** cpel.c: VPP CPEL reader (layout in cpel.h).
**
** xOpen walks the sections once, keeps the string tables' positions, the
** event and track definitions and the symbols, and reads every event's
** time and track once to learn whether each event section is sorted, its
** time range and the per-track counts. Scans then read events straight
** from the file: a ts window binary-searches sorted sections, rowid (the
** file offset of the event) seeks directly, and a scan of one section
** (TlFilter.bStream) is what the engine merges when the query asks for
** ts order.
**
** Damage: a section that runs past the end of the file, or a count that
** its section cannot hold, ends the walk with a warning; every complete
** event before that point is still read.
*/
#include "cpel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "map.h"

#define CPEL_HDR          8         /* file header bytes */
#define CPEL_SEC_HDR      8         /* section header bytes */
#define CPEL_NAME        64         /* string table name field */
#define CPEL_EVENT       20         /* one event entry */
#define CPEL_EV_HDR      72         /* event section header: name, count, clock */
#define CPEL_EV_CHUNK    (CPEL_EVENT*52428)  /* events read at once at open (~1 MiB) */
#define CPEL_MAX_TRACKS (1u<<20)    /* distinct tracks counted */
#define CPEL_FMT_WIDTH  256         /* widest field a format may ask for */

enum { CPEL_STRTAB = 1, CPEL_SYMTAB = 2, CPEL_EVTDEF = 3, CPEL_TRACKDEF = 4,
       CPEL_EVENTS = 5 };

enum { CPEL_CLOCK_AUTO, CPEL_CLOCK_PER_US, CPEL_CLOCK_PER_SECOND };

typedef struct CpelStrtab CpelStrtab;
struct CpelStrtab {
  char zName[CPEL_NAME+1];        /* first string of the table */
  uint64_t iOff;                  /* file offset of the table's data */
  uint32_t n;                     /* bytes of data */
};

typedef struct CpelDef CpelDef;
struct CpelDef {
  uint32_t code;                  /* event code */
  char *zName;                    /* event format rendered with the code */
  char *zEventFmt;                /* event format ("E%d" when offset 0) */
  char *zDatumFmt;                /* datum format ("" when offset 0) */
};

typedef struct CpelTrack CpelTrack;
struct CpelTrack {
  uint32_t code;                  /* track id */
  int bDefined;                   /* has a TRACKDEF entry */
  char *zName;                    /* track format rendered with the id */
  char *zFmt;                     /* the track format */
  uint64_t nEvents;               /* events on the track */
  int64_t tsFirst, tsLast;        /* first and last event time (ns) */
  int bHaveTs;                    /* tsFirst/tsLast are set */
};

typedef struct CpelSym CpelSym;
struct CpelSym {
  uint32_t value;                 /* address */
  char *zName;                    /* symbol name */
  int iTable;                     /* which SYMTAB section (0-based) */
};

typedef struct CpelSection CpelSection;
struct CpelSection {
  uint64_t iOff;                  /* file offset of the first event */
  uint64_t n;                     /* complete events */
  uint32_t clock;                 /* the clock field as stored */
  uint64_t tickNum, tickDen;      /* ns = ticks * tickNum / tickDen; tickDen 0: no clock */
  int iStrtab;                    /* string table for %s datums, or -1 */
  int bSorted;                    /* times never decrease */
};

typedef struct CpelData CpelData;
struct CpelData {
  int bo;                         /* TL_BE or TL_LE */
  int nVersion;                   /* low 7 bits of byte 0 */
  uint32_t fileDate;              /* Unix time */
  CpelStrtab *aStr; int nStr;     /* string tables */
  CpelDef *aDef; int nDef;        /* event definitions, sorted by code */
  CpelTrack *aTrack; size_t nTrack; /* tracks, sorted by code */
  CpelSym *aSym; size_t nSym;     /* symbols, sorted by value */
  CpelSection *aSec; int nSec;    /* event sections */
};

/* ---- formatting ---------------------------------------------------------- */

void tl_cpel_format(TlStr *pOut, const char *zFmt, uint32_t v, const char *zStr,
                    const char *zSym){
  const char *z = zFmt;
  while( *z ){
    const char *zStart;
    char zSpec[32];
    int nSpec = 0;
    int bLeft = 0;
    long nWidth = -1, nPrec = -1;
    char c;
    if( *z!='%' ){
      const char *zNext = strchr(z, '%');
      size_t n = zNext ? (size_t)(zNext - z) : strlen(z);
      tl_str_append(pOut, z, n);
      z += n;
      continue;
    }
    zStart = z++;
    if( *z=='%' ){ tl_str_appendc(pOut, '%'); z++; continue; }
    zSpec[nSpec++] = '%';
    while( *z && strchr("-+ #0", *z) ){
      if( *z=='-' ) bLeft = 1;
      if( nSpec<8 ) zSpec[nSpec++] = *z;
      z++;
    }
    if( *z>='0' && *z<='9' ){
      nWidth = 0;
      while( *z>='0' && *z<='9' ){
        if( nWidth<=CPEL_FMT_WIDTH ) nWidth = nWidth*10 + (*z - '0');
        z++;
      }
      if( nWidth>CPEL_FMT_WIDTH ) nWidth = CPEL_FMT_WIDTH;
    }
    if( *z=='.' ){
      z++;
      nPrec = 0;
      while( *z>='0' && *z<='9' ){
        if( nPrec<=CPEL_FMT_WIDTH ) nPrec = nPrec*10 + (*z - '0');
        z++;
      }
      if( nPrec>CPEL_FMT_WIDTH ) nPrec = CPEL_FMT_WIDTH;
    }
    while( *z && strchr("hlLqjzt", *z) ) z++;   /* length modifiers: all 32-bit here */
    c = *z;
    if( c==0 ){                                 /* a lone '%' at the end */
      tl_str_appendz(pOut, zStart);
      break;
    }
    z++;
    if( nWidth>=0 ) nSpec += snprintf(zSpec+nSpec, sizeof(zSpec)-(size_t)nSpec, "%ld", nWidth);
    if( nPrec>=0 ) nSpec += snprintf(zSpec+nSpec, sizeof(zSpec)-(size_t)nSpec, ".%ld", nPrec);
    switch( c ){
      case 'd': case 'i':
        zSpec[nSpec++] = 'd'; zSpec[nSpec] = 0;
        tl_str_appendf(pOut, zSpec, (int)(int32_t)v);
        break;
      case 'u': case 'x': case 'X': case 'o':
        zSpec[nSpec++] = c; zSpec[nSpec] = 0;
        tl_str_appendf(pOut, zSpec, (unsigned)v);
        break;
      case 'c':
        zSpec[nSpec++] = 'c'; zSpec[nSpec] = 0;
        tl_str_appendf(pOut, zSpec, (int)(unsigned char)v);
        break;
      case 's': case 'k': {
        const char *zArg = c=='s' ? zStr : zSym;
        char zHex[16];
        size_t n;
        if( c=='k' && zArg==0 ){
          snprintf(zHex, sizeof(zHex), "0x%x", (unsigned)v);
          zArg = zHex;
        }
        if( zArg==0 ) zArg = "";
        n = strlen(zArg);
        if( nPrec>=0 && (size_t)nPrec<n ) n = (size_t)nPrec;
        if( !bLeft && nWidth>0 && (size_t)nWidth>n ){
          size_t k;
          for(k=n; k<(size_t)nWidth; k++) tl_str_appendc(pOut, ' ');
        }
        tl_str_append(pOut, zArg, n);
        if( bLeft && nWidth>0 && (size_t)nWidth>n ){
          size_t k;
          for(k=n; k<(size_t)nWidth; k++) tl_str_appendc(pOut, ' ');
        }
        break;
      }
      default:                                  /* not a conversion: as is */
        tl_str_append(pOut, zStart, (size_t)(z - zStart));
        break;
    }
  }
}

/* Does the format take a string-table reference (a %s conversion)? */
static int fmt_has_conv(const char *zFmt, char cWant){
  const char *z;
  for(z=zFmt; *z; z++){
    if( *z!='%' ) continue;
    z++;
    if( *z=='%' ) continue;
    while( *z && strchr("-+ #0123456789.hlLqjzt", *z) ) z++;
    if( *z==cWant ) return 1;
    if( *z==0 ) break;
  }
  return 0;
}

/* ---- open -------------------------------------------------------------- */

static char *render(const char *zFmt, uint32_t v){
  TlStr s;
  tl_str_init(&s);
  tl_str_append(&s, "", 0);
  tl_cpel_format(&s, zFmt, v, 0, 0);
  if( s.bErr ){ tl_str_free(&s); return 0; }
  return s.z;
}

/* The string table whose name is the 64-byte field at a; -1 if none. The
** last table of a name wins, as in cpeldump. */
static int find_strtab(const CpelData *p, const uint8_t *a){
  char zName[CPEL_NAME+1];
  int i;
  memcpy(zName, a, CPEL_NAME);
  zName[CPEL_NAME] = 0;
  for(i=p->nStr-1; i>=0; i--){
    if( strcmp(p->aStr[i].zName, zName)==0 ) return i;
  }
  return -1;
}

/*
** The NUL-terminated string at offset iStr of string table iTab, copied
** into malloc'd memory; "" (malloc'd) when the offset is outside the table.
** A string that runs to the end of its table without a NUL ends there.
** NULL when it cannot be read (the error in pErr: sticky, so the caller's
** "out of memory" after it keeps it) or copied.
*/
static char *strtab_get(TlTrace *pTrace, TlWin *pWin, const CpelData *p,
                        int iTab, uint32_t iStr, TlErr *pErr){
  const CpelStrtab *t;
  TlBytes b;
  const uint8_t *z;
  size_t n;
  if( iTab<0 || iTab>=p->nStr ) return tl_strndup("", 0);
  t = &p->aStr[iTab];
  if( iStr>=t->n ) return tl_strndup("", 0);
  /* Most strings are short: look in the first 4 KiB before the rest. */
  if( tl_win_get(pWin, t->iOff + iStr, t->n - iStr < 4096 ? t->n - iStr : 4096,
                 p->bo, &b, pErr) ) return 0;
  z = memchr(b.a, 0, b.n);
  if( z==0 && t->n - iStr > 4096 ){
    if( tl_win_get(pWin, t->iOff + iStr, t->n - iStr, p->bo, &b, pErr) ) return 0;
    z = memchr(b.a, 0, b.n);
  }
  n = z ? (size_t)(z - b.a) : b.n;
  (void)pTrace;
  return tl_strndup((const char*)b.a, n);
}

static int cmp_def(const void *a, const void *b){
  uint32_t x = ((const CpelDef*)a)->code, y = ((const CpelDef*)b)->code;
  return x<y ? -1 : x>y;
}
static int cmp_track(const void *a, const void *b){
  uint32_t x = ((const CpelTrack*)a)->code, y = ((const CpelTrack*)b)->code;
  return x<y ? -1 : x>y;
}
static int cmp_sym(const void *a, const void *b){
  const CpelSym *x = a, *y = b;
  if( x->value!=y->value ) return x->value<y->value ? -1 : 1;
  return x->iTable - y->iTable;
}

static const CpelDef *find_def(const CpelData *p, uint32_t code){
  int lo = 0, hi = p->nDef;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( p->aDef[mid].code<code ) lo = mid+1; else hi = mid;
  }
  return (lo<p->nDef && p->aDef[lo].code==code) ? &p->aDef[lo] : 0;
}

/* Nearest symbol at or below v, or NULL. */
static const CpelSym *find_sym(const CpelData *p, uint32_t v){
  size_t lo = 0, hi = p->nSym;
  while( lo<hi ){
    size_t mid = (lo+hi)/2;
    if( p->aSym[mid].value<=v ) lo = mid+1; else hi = mid;
  }
  return lo>0 ? &p->aSym[lo-1] : 0;
}

static void cpel_free(CpelData *p){
  int i;
  size_t k;
  if( p==0 ) return;
  for(i=0; i<p->nDef; i++){
    free(p->aDef[i].zName); free(p->aDef[i].zEventFmt); free(p->aDef[i].zDatumFmt);
  }
  for(k=0; k<p->nTrack; k++){ free(p->aTrack[k].zName); free(p->aTrack[k].zFmt); }
  for(k=0; k<p->nSym; k++) free(p->aSym[k].zName);
  free(p->aStr); free(p->aDef); free(p->aTrack); free(p->aSym); free(p->aSec);
  free(p);
}

static void cpelClose(void *pData){
  cpel_free((CpelData*)pData);
}

/* Grow *pa (element size sz) so that it holds at least n+1 elements. */
static int grow(void **pa, size_t *pnAlloc, size_t n, size_t sz){
  if( n<*pnAlloc ) return TL_OK;
  {
    size_t nNew = *pnAlloc ? *pnAlloc*2 : 16;
    void *aNew;
    if( nNew > SIZE_MAX/sz ) return TL_ENOMEM;
    aNew = realloc(*pa, nNew*sz);
    if( aNew==0 ) return TL_ENOMEM;
    *pa = aNew;
    *pnAlloc = nNew;
  }
  return TL_OK;
}

/* ns from ticks for section s; 0 if there is no usable clock or it overflows. */
static int ticks_to_ns(const CpelSection *s, uint64_t ticks, int64_t *pNs){
  unsigned __int128 x;
  if( s->tickDen==0 ) return 0;
  x = (unsigned __int128)ticks * s->tickNum / s->tickDen;
  if( x > (unsigned __int128)INT64_MAX ) return 0;
  *pNs = (int64_t)x;
  return 1;
}

/* Decode an event from its record window (CPEL_EVENT bytes). */
typedef struct CpelEvent CpelEvent;
struct CpelEvent {
  uint64_t ticks;                 /* time[0]<<32 | time[1] */
  uint32_t track, code, datum;
};

static void decode_event(const TlRec *r, CpelEvent *e){
  uint64_t hi = tl_rec_u32(r, 0);
  uint64_t lo = tl_rec_u32(r, 4);
  e->ticks = (hi<<32) | lo;
  e->track = tl_rec_u32(r, 8);
  e->code = tl_rec_u32(r, 12);
  e->datum = tl_rec_u32(r, 16);
}

typedef struct OpenCtx OpenCtx;
struct OpenCtx {
  TlTrace *pTrace;
  CpelData *p;
  TlWin win;
  TlWin winStr;                   /* strings, read while win holds a section */
  size_t nDefAlloc, nTrackAlloc, nSymAlloc, nSecAlloc, nStrAlloc;
  TlMap map;                      /* track id -> index in aTrack */
  TlMap defs;                     /* event codes defined so far */
  int bTrackCap;                  /* stopped adding tracks at the cap */
};

/* The track entry for code, added if new; NULL at the cap or on OOM. */
static CpelTrack *track_get(OpenCtx *c, uint32_t code, int *pRc){
  CpelData *p = c->p;
  uint32_t iTrack;
  CpelTrack *t;
  if( tl_map_get(&c->map, code, &iTrack) ) return &p->aTrack[iTrack];
  if( p->nTrack>=CPEL_MAX_TRACKS ){
    if( !c->bTrackCap ){
      tl_trace_warn(c->pTrace, 0, TL_NO_OFFSET,
          "more than %u distinct tracks: tracks lists the first %u",
          CPEL_MAX_TRACKS, CPEL_MAX_TRACKS);
      c->bTrackCap = 1;
    }
    return 0;
  }
  if( grow((void**)&p->aTrack, &c->nTrackAlloc, p->nTrack, sizeof(CpelTrack)) ){
    *pRc = TL_ENOMEM;
    return 0;
  }
  t = &p->aTrack[p->nTrack];
  memset(t, 0, sizeof(*t));
  t->code = code;
  if( tl_map_put(&c->map, code, (uint32_t)p->nTrack) ){ *pRc = TL_ENOMEM; return 0; }
  p->nTrack++;
  return t;
}

/* Parse the STRTAB section whose data is at iOff (n bytes). */
static int parse_strtab(OpenCtx *c, uint64_t iOff, uint32_t n, TlErr *pErr){
  CpelData *p = c->p;
  CpelStrtab *t;
  TlBytes b;
  const uint8_t *z;
  size_t nName;
  int rc;
  rc = tl_win_get(&c->win, iOff, n, p->bo, &b, pErr);
  if( rc ) return rc;
  if( grow((void**)&p->aStr, &c->nStrAlloc, (size_t)p->nStr, sizeof(CpelStrtab)) ){
    return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
  }
  t = &p->aStr[p->nStr];
  z = b.n ? memchr(b.a, 0, b.n) : 0;
  nName = z ? (size_t)(z - b.a) : b.n;
  if( nName>CPEL_NAME ) nName = CPEL_NAME;
  if( nName ) memcpy(t->zName, b.a, nName);
  t->zName[nName] = 0;
  t->iOff = iOff;
  t->n = n;
  p->nStr++;
  return TL_OK;
}

/*
** Read the 64-byte string table name and the count of a definition
** section; *pb is left at the first entry and *piTab names the string table
** (-1, with a warning, when there is none of that name). Entries that do
** not fit in the section are dropped with a warning (*pnOut gets the
** complete ones).
*/
static int def_header(OpenCtx *c, uint64_t iOff, uint32_t n, size_t szEntry,
                      const char *zWhat, TlBytes *pb, int *piTab,
                      uint32_t *pnOut, TlErr *pErr){
  uint8_t aName[CPEL_NAME];
  uint32_t nDecl;
  int rc = tl_win_get(&c->win, iOff, n, c->p->bo, pb, pErr);
  *piTab = -1;
  if( rc ) return rc;
  if( tl_bytes_copy(pb, aName, CPEL_NAME) || tl_bytes_u32e(pb, &nDecl) ){
    tl_trace_warn(c->pTrace, 0, iOff,
        "%s section of %u bytes is too short for its 68-byte header; skipped",
        zWhat, n);
    *pnOut = 0;
    return TL_OK;
  }
  if( nDecl > tl_bytes_left(pb)/szEntry ){
    tl_trace_warn(c->pTrace, 0, iOff + CPEL_NAME,
        "%s section declares %u entries but its %u bytes hold %zu",
        zWhat, nDecl, n, tl_bytes_left(pb)/szEntry);
    nDecl = (uint32_t)(tl_bytes_left(pb)/szEntry);
  }
  *piTab = find_strtab(c->p, aName);
  if( *piTab<0 && nDecl>0 ){
    tl_trace_warn(c->pTrace, 0, iOff, "%s section names a missing string table", zWhat);
  }
  *pnOut = nDecl;
  return TL_OK;
}

/*
** An entry could not be read. def_header() counts only the entries that
** fit in the section, so this is a guard: the section's other entries are
** skipped with a warning.
*/
static int def_cut(OpenCtx *c, uint64_t iOff, const char *zWhat, uint32_t i, uint32_t nEnt){
  tl_trace_warn(c->pTrace, 0, iOff, "%s section: entry %u of %u could not be read; "
                "the rest of the section is skipped", zWhat, i+1, nEnt);
  return TL_OK;
}

/* A format string from a table, or the default when the offset is 0. */
static char *fmt_get(OpenCtx *c, int iTab, uint32_t iStr, const char *zDefault,
                     TlErr *pErr){
  if( iStr==0 ) return tl_strndup(zDefault, strlen(zDefault));
  return strtab_get(c->pTrace, &c->winStr, c->p, iTab, iStr, pErr);
}

/* Definition sections are parsed after every STRTAB has been seen. */
static int parse_evtdef(OpenCtx *c, uint64_t iOff, uint32_t n, TlErr *pErr){
  CpelData *p = c->p;
  TlBytes b;
  uint32_t nEnt, i;
  int iTab;
  int rc = def_header(c, iOff, n, 12, "event definition", &b, &iTab, &nEnt, pErr);
  if( rc ) return rc;
  for(i=0; i<nEnt; i++){
    uint32_t code, fe, fd, iDef;
    CpelDef *d;
    if( tl_bytes_u32e(&b, &code) || tl_bytes_u32e(&b, &fe) || tl_bytes_u32e(&b, &fd) ){
      return def_cut(c, iOff, "event definition", i, nEnt);
    }
    if( tl_map_get(&c->defs, code, &iDef) ) continue;  /* the first definition is kept */
    if( tl_map_put(&c->defs, code, (uint32_t)p->nDef) ){
      return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
    }
    if( grow((void**)&p->aDef, &c->nDefAlloc, (size_t)p->nDef, sizeof(CpelDef)) ){
      return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
    }
    d = &p->aDef[p->nDef];
    memset(d, 0, sizeof(*d));
    d->code = code;
    d->zEventFmt = fmt_get(c, iTab, fe, "E%d", pErr);
    d->zDatumFmt = fmt_get(c, iTab, fd, "", pErr);
    if( d->zEventFmt ) d->zName = render(d->zEventFmt, code);
    p->nDef++;
    if( d->zEventFmt==0 || d->zDatumFmt==0 || d->zName==0 ){
      return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
    }
  }
  return TL_OK;
}

static int parse_trackdef(OpenCtx *c, uint64_t iOff, uint32_t n, TlErr *pErr){
  TlBytes b;
  uint32_t nEnt, i;
  int iTab;
  int rc = def_header(c, iOff, n, 8, "track definition", &b, &iTab, &nEnt, pErr);
  if( rc ) return rc;
  for(i=0; i<nEnt; i++){
    uint32_t code, ff;
    CpelTrack *t;
    if( tl_bytes_u32e(&b, &code) || tl_bytes_u32e(&b, &ff) ){
      return def_cut(c, iOff, "track definition", i, nEnt);
    }
    t = track_get(c, code, &rc);
    if( rc ) return tl_err_set(pErr, rc, iOff, "out of memory");
    if( t==0 || t->bDefined ) continue;  /* the first definition is kept */
    t->bDefined = 1;
    t->zFmt = fmt_get(c, iTab, ff, "%d", pErr);
    if( t->zFmt==0 ) return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
  }
  return TL_OK;
}

static int parse_symtab(OpenCtx *c, uint64_t iOff, uint32_t n, int iSymtab,
                        TlErr *pErr){
  CpelData *p = c->p;
  TlBytes b;
  uint32_t nEnt, i;
  int iTab;
  int rc = def_header(c, iOff, n, 8, "symbol table", &b, &iTab, &nEnt, pErr);
  if( rc ) return rc;
  for(i=0; i<nEnt; i++){
    uint32_t value, iStr;
    CpelSym *s;
    if( tl_bytes_u32e(&b, &value) || tl_bytes_u32e(&b, &iStr) ){
      return def_cut(c, iOff, "symbol table", i, nEnt);
    }
    if( grow((void**)&p->aSym, &c->nSymAlloc, p->nSym, sizeof(CpelSym)) ){
      return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
    }
    s = &p->aSym[p->nSym];
    s->value = value;
    s->iTable = iSymtab;
    s->zName = strtab_get(c->pTrace, &c->winStr, p, iTab, iStr, pErr);
    if( s->zName==0 ) return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
    p->nSym++;
  }
  return TL_OK;
}

/* Set the section's tick conversion from its clock field and the option. */
static void set_clock(OpenCtx *c, CpelSection *s, uint64_t iOff){
  const char *zOpt = tl_opts_get(&c->pTrace->opts, "cpel_clock");
  int mode = CPEL_CLOCK_AUTO;
  if( zOpt && strcmp(zOpt, "per_us")==0 ) mode = CPEL_CLOCK_PER_US;
  if( zOpt && strcmp(zOpt, "per_second")==0 ) mode = CPEL_CLOCK_PER_SECOND;
  if( mode==CPEL_CLOCK_AUTO ){
    mode = s->clock<1000000 ? CPEL_CLOCK_PER_US : CPEL_CLOCK_PER_SECOND;
  }
  if( s->clock==0 ){
    s->tickNum = 1; s->tickDen = 0;
    tl_trace_warn(c->pTrace, 0, iOff,
        "event section clock rate is 0: ts is NULL, ts_raw has the ticks");
    return;
  }
  if( mode==CPEL_CLOCK_PER_US ){
    s->tickNum = 1000; s->tickDen = s->clock;
  }else{
    s->tickNum = 1000000000; s->tickDen = s->clock;
  }
}

/*
** Parse an EVENTS section: its header now, its events in a pass that finds
** the time range, the order and the per-track counts.
*/
static int parse_events(OpenCtx *c, uint64_t iOff, uint32_t n, TlErr *pErr){
  CpelData *p = c->p;
  uint8_t aName[CPEL_NAME];
  TlBytes b;
  uint32_t nDecl;
  uint64_t nHave, i;
  CpelSection *s;
  TlPacket pkt;
  uint64_t ticksPrev = 0;
  int rc;
  CpelTrack *pLast = 0;
  uint32_t lastCode = 0;

  uint64_t nSec;                  /* the section's bytes the file holds */
  TlBytes ev;                     /* a chunk of its events */

  rc = tl_win_get(&c->win, iOff, n < CPEL_EV_HDR ? n : CPEL_EV_HDR, p->bo, &b, pErr);
  if( rc ) return rc;
  nSec = c->pTrace->pSrc->nSize - iOff;
  if( nSec > n ) nSec = n;
  if( tl_bytes_copy(&b, aName, CPEL_NAME) || tl_bytes_u32e(&b, &nDecl) ){
    tl_trace_warn(c->pTrace, 0, iOff,
        "event section of %u bytes is too short for its 72-byte header; skipped", n);
    return TL_OK;
  }
  if( grow((void**)&p->aSec, &c->nSecAlloc, (size_t)p->nSec, sizeof(CpelSection)) ){
    return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
  }
  s = &p->aSec[p->nSec];
  memset(s, 0, sizeof(*s));
  if( tl_bytes_u32e(&b, &s->clock) ){
    tl_trace_warn(c->pTrace, 0, iOff,
        "event section of %u bytes is too short for its 72-byte header; skipped", n);
    return TL_OK;
  }
  s->iStrtab = find_strtab(p, aName);
  s->iOff = iOff + b.i;
  nHave = (nSec - b.i)/CPEL_EVENT;
  if( nDecl<nHave ) nHave = nDecl;
  if( nDecl>nHave ){
    tl_trace_warn(c->pTrace, 0, s->iOff + nHave*CPEL_EVENT,
        "event section declares %u events but only %llu are complete",
        nDecl, (unsigned long long)nHave);
  }
  s->n = nHave;
  s->bSorted = 1;
  set_clock(c, s, iOff + CPEL_NAME + 4);

  memset(&pkt, 0, sizeof(pkt));
  pkt.iOff = s->iOff;
  pkt.nSize = nHave*CPEL_EVENT;
  pkt.nContent = pkt.nSize;
  pkt.tsBegin = TL_TS_MAX;
  pkt.tsEnd = TL_TS_MIN;
  pkt.iStream = -1;
  pkt.iCpu = -1;
  pkt.nEvents = nHave;
  pkt.nDiscarded = TL_UNKNOWN;
  pkt.iSeq = -1;
  pkt.iAux = (uint64_t)p->nSec;

  ev = tl_bytes(0, 0, p->bo);
  for(i=0; i<nHave; i++){
    TlRec r;
    CpelEvent e;
    int64_t ts;
    int bTs;
    if( tl_bytes_left(&ev) < CPEL_EVENT ){
      uint64_t nLeft = (nHave - i)*CPEL_EVENT;
      rc = tl_win_get(&c->win, s->iOff + i*CPEL_EVENT,
                      nLeft < CPEL_EV_CHUNK ? (size_t)nLeft : CPEL_EV_CHUNK, p->bo, &ev, pErr);
      if( rc ) return rc;
    }
    if( tl_bytes_rec(&ev, CPEL_EVENT, &r) ){
      /* a guard: nHave counts only the events that fit in the section */
      return tl_err_set(pErr, TL_ECORRUPT, s->iOff + i*CPEL_EVENT,
                        "expected a 20-byte event in its section");
    }
    decode_event(&r, &e);
    bTs = ticks_to_ns(s, e.ticks, &ts);
    if( e.ticks < ticksPrev ) s->bSorted = 0;
    ticksPrev = e.ticks;
    if( bTs ){
      if( ts<pkt.tsBegin ) pkt.tsBegin = ts;
      if( ts>pkt.tsEnd ) pkt.tsEnd = ts;
    }
    if( pLast==0 || e.track!=lastCode ){
      pLast = track_get(c, e.track, &rc);
      if( rc ) return tl_err_set(pErr, rc, iOff, "out of memory");
      lastCode = e.track;
    }
    if( pLast ){
      pLast->nEvents++;
      if( bTs ){
        if( !pLast->bHaveTs || ts<pLast->tsFirst ) pLast->tsFirst = ts;
        if( !pLast->bHaveTs || ts>pLast->tsLast ) pLast->tsLast = ts;
        pLast->bHaveTs = 1;
      }
    }
  }
  if( pkt.tsBegin>pkt.tsEnd ){               /* no event had a time */
    pkt.tsBegin = TL_TS_MIN;
    pkt.tsEnd = TL_TS_MAX;
    if( nHave==0 ){ pkt.tsBegin = TL_TS_MAX; pkt.tsEnd = TL_TS_MIN; }
  }
  p->nSec++;
  if( tl_index_add(&c->pTrace->index, &pkt) ){
    return tl_err_set(pErr, TL_ENOMEM, iOff, "out of memory");
  }
  if( !s->bSorted ){
    tl_trace_warn(c->pTrace, 0, iOff,
        "event section is not in time order: ts windows scan the whole section");
  }
  return TL_OK;
}

static int cpelProbe(const uint8_t *a, size_t n, const char *zPath, int bDir){
  TlBytes b;
  uint8_t v, pad;
  uint16_t nSec;
  uint32_t type, len;
  int bo;
  (void)zPath;
  if( bDir || n<16 ) return 0;
  b = tl_bytes(a, n, TL_BE);
  if( tl_bytes_u8(&b, &v) || tl_bytes_u8(&b, &pad) ) return 0;
  bo = (v & 0x80) ? TL_LE : TL_BE;
  if( (v & 0x7F)!=1 ) return 0;           /* version 1 is the only one */
  if( tl_bytes_u16(&b, bo, &nSec) ) return 0;
  if( nSec==0 ) return 0;
  if( tl_bytes_skip(&b, 4) || tl_bytes_u32(&b, bo, &type) || tl_bytes_u32(&b, bo, &len) ) return 0;
  if( type<CPEL_STRTAB || type>CPEL_EVENTS ) return 0;
  if( len>0x7FFFFFFF ) return 0;
  return pad==0 ? 60 : 40;
}

static int cpelOpen(TlTrace *pTrace, TlErr *pErr){
  OpenCtx c;
  CpelData *p;
  TlBytes b;
  uint8_t v, pad;
  uint16_t nSec;
  uint64_t iOff;
  uint64_t nSize;
  int i, pass, rc = TL_OK, nSymtab = 0;
  size_t k;
  const char *zClock = tl_opts_get(&pTrace->opts, "cpel_clock");

  if( pTrace->pSrc==0 ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET, "a CPEL trace is a file, not a directory");
  }
  if( zClock && strcmp(zClock, "per_us") && strcmp(zClock, "per_second") ){
    return tl_err_set(pErr, TL_EMISUSE, TL_NO_OFFSET,
        "option cpel_clock must be per_us or per_second, not \"%s\"", zClock);
  }
  memset(&c, 0, sizeof(c));
  p = calloc(1, sizeof(*p));
  if( p==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  c.pTrace = pTrace;
  c.p = p;
  tl_win_init(&c.win, pTrace->pSrc);
  tl_win_init(&c.winStr, pTrace->pSrc);
  nSize = pTrace->pSrc->nSize;

  rc = tl_win_get(&c.win, 0, CPEL_HDR, TL_BE, &b, pErr);
  if( rc ) goto open_done;
  if( tl_bytes_u8(&b, &v) || tl_bytes_u8(&b, &pad) ){
    rc = tl_err_set(pErr, TL_ECORRUPT, 0, "expected an 8-byte CPEL file header");
    goto open_done;
  }
  p->bo = (v & 0x80) ? TL_LE : TL_BE;
  p->nVersion = v & 0x7F;
  if( p->nVersion!=1 ){
    rc = tl_err_set(pErr, TL_EUNSUPPORTED, 0,
        "CPEL file version %d is not supported (expected 1)", p->nVersion);
    goto open_done;
  }
  if( tl_bytes_u16(&b, p->bo, &nSec) || tl_bytes_u32(&b, p->bo, &p->fileDate) ){
    rc = tl_err_set(pErr, TL_ECORRUPT, 0, "expected an 8-byte CPEL file header");
    goto open_done;
  }

  /*
  ** Pass 0 finds the string tables, pass 1 the rest: definitions may name
  ** tables that come later in the file.
  */
  for(pass=0; pass<2 && rc==TL_OK; pass++){
    iOff = CPEL_HDR;
    for(i=0; i<nSec; i++){
      uint32_t type, len;
      int bCut;
      if( nSize - iOff < CPEL_SEC_HDR ){
        if( pass==0 ){
          tl_trace_warn(pTrace, 0, iOff,
              "file ends before section %d of %u: expected an 8-byte section header",
              i+1, (unsigned)nSec);
        }
        break;
      }
      rc = tl_win_get(&c.win, iOff, CPEL_SEC_HDR, p->bo, &b, pErr);
      if( rc ) break;
      if( tl_bytes_u32e(&b, &type) || tl_bytes_u32e(&b, &len) ){
        /* a guard: the window holds the 8 bytes checked above */
        rc = tl_err_set(pErr, TL_ECORRUPT, iOff, "expected an 8-byte section header");
        break;
      }
      iOff += CPEL_SEC_HDR;
      bCut = len > nSize - iOff;
      if( bCut ){
        /* Cut short: use what is there (complete entries), then stop. */
        if( pass==0 ){
          tl_trace_warn(pTrace, 0, iOff - CPEL_SEC_HDR,
              "section %d (type %u) declares %u bytes but the file has %llu left: "
              "reading what is there", i+1, type, len,
              (unsigned long long)(nSize - iOff));
        }
        len = (uint32_t)(nSize - iOff);
      }
      if( pass==0 ){
        if( type==CPEL_STRTAB ) rc = parse_strtab(&c, iOff, len, pErr);
      }else{
        switch( type ){
          case CPEL_STRTAB:   break;
          case CPEL_SYMTAB:   rc = parse_symtab(&c, iOff, len, nSymtab++, pErr); break;
          case CPEL_EVTDEF:   rc = parse_evtdef(&c, iOff, len, pErr); break;
          case CPEL_TRACKDEF: rc = parse_trackdef(&c, iOff, len, pErr); break;
          case CPEL_EVENTS:   rc = parse_events(&c, iOff, len, pErr); break;
          default:            break;     /* unknown sections are skipped */
        }
      }
      if( bCut ) break;
      if( rc ) break;
      iOff += len;
    }
    if( pass==1 && rc==TL_OK && i==nSec && iOff<nSize ){
      tl_trace_warn(pTrace, 0, iOff,
          "%llu bytes after the last of %u sections were ignored",
          (unsigned long long)(nSize - iOff), (unsigned)nSec);
    }
  }
  if( rc ) goto open_done;

  /* Sort and finish the lookup tables. */
  if( p->nDef>1 ) qsort(p->aDef, (size_t)p->nDef, sizeof(CpelDef), cmp_def);
  if( p->nTrack>1 ) qsort(p->aTrack, p->nTrack, sizeof(CpelTrack), cmp_track);
  if( p->nSym>1 ) qsort(p->aSym, p->nSym, sizeof(CpelSym), cmp_sym);
  for(k=0; k<p->nTrack; k++){
    CpelTrack *t = &p->aTrack[k];
    if( t->zFmt==0 ){
      t->zFmt = tl_strndup("%d", 2);
      if( t->zFmt==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto open_done; }
    }
    t->zName = render(t->zFmt, t->code);
    if( t->zName==0 ){ rc = tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory"); goto open_done; }
  }
  for(i=0; i<p->nSec; i++){
    if( !p->aSec[i].bSorted ) pTrace->mOrdered &= ~(1u<<TL_TAB_EVENTS);
  }
  pTrace->nEventsHint = tl_index_events(&pTrace->index);

open_done:
  tl_win_free(&c.win);
  tl_win_free(&c.winStr);
  tl_map_free(&c.map);
  tl_map_free(&c.defs);
  if( rc ){
    cpel_free(p);
    return rc;
  }
  pTrace->pData = p;
  return TL_OK;
}

/* ---- scans ------------------------------------------------------------- */

typedef struct CpelCursor CpelCursor;     /* position in one event section */
struct CpelCursor {
  uint64_t i;                     /* next event */
  uint64_t iEnd;                  /* one past the last event to read */
  int bHave;                      /* ev/ts hold the next event */
  CpelEvent ev;                   /* the next event, when bHave */
  int64_t ts;                     /* its time */
  int bTs;                        /* ts is set */
};

struct TlScan {
  TlTrace *pTrace;
  const CpelData *p;
  int iTable;
  TlFilter f;                     /* copy (aCpu is not used by CPEL) */
  TlWin win;                      /* file window for events */
  TlWin winStr;                   /* file window for string tables */
  TlErr err;
  size_t iRow;                    /* next row of a metadata table */
  int iSec;                       /* current section (file-order scans) */
  CpelCursor *aCur;               /* one per section */
  TlStr text, args, tmp;          /* column buffers */
  char zNum[32];                  /* scratch for E%d names */
  char *zName;                    /* rendered name of an undefined code */
};

static const TlErr *cpelScanErr(TlScan *s){ return &s->err; }

/* Read event i of section iSec into *e; returns TL_OK or an error. */
static int read_event(TlScan *s, int iSec, uint64_t i, CpelEvent *e){
  const CpelSection *sec = &s->p->aSec[iSec];
  TlBytes b;
  TlRec r;
  int rc = tl_win_get(&s->win, sec->iOff + i*CPEL_EVENT, CPEL_EVENT, s->p->bo, &b, &s->err);
  if( rc ) return rc;
  if( tl_bytes_rec(&b, CPEL_EVENT, &r) ){
    return tl_err_set(&s->err, TL_EIO, sec->iOff + i*CPEL_EVENT,
                      "file shrank while being read: expected a 20-byte event");
  }
  decode_event(&r, e);
  return TL_OK;
}

/*
** First event of sorted section iSec whose ts >= tsLo (binary search over
** the fixed-size entries). Events without a usable time sort first.
*/
static int lower_bound(TlScan *s, int iSec, int64_t tsLo, uint64_t *pOut){
  const CpelSection *sec = &s->p->aSec[iSec];
  uint64_t lo = 0, hi = sec->n;
  while( lo<hi ){
    uint64_t mid = lo + (hi-lo)/2;
    CpelEvent e;
    int64_t ts;
    int rc = read_event(s, iSec, mid, &e);
    if( rc ) return rc;
    if( !ticks_to_ns(sec, e.ticks, &ts) ){
      /* No clock: nothing has a ts. Overflow: the time is past any window. */
      if( sec->tickDen==0 ) lo = mid+1; else hi = mid;
    }else if( ts<tsLo ){
      lo = mid+1;
    }else{
      hi = mid;
    }
  }
  *pOut = lo;
  return TL_OK;
}

/* Position every section's cursor for the filter. */
static int position_cursors(TlScan *s){
  const CpelData *p = s->p;
  int i;
  for(i=0; i<p->nSec; i++){
    const CpelSection *sec = &p->aSec[i];
    const TlPacket *pkt = &s->pTrace->index.a[i];
    CpelCursor *c = &s->aCur[i];
    c->i = 0;
    c->iEnd = sec->n;
    if( s->f.bStream && s->f.iStream!=i ){
      c->iEnd = 0;                  /* a scan of another section */
      continue;
    }
    if( s->f.bRowid ){
      uint64_t r = (uint64_t)s->f.iRowid;
      if( s->f.iRowid<0 || r<sec->iOff || (r - sec->iOff)%CPEL_EVENT
       || (r - sec->iOff)/CPEL_EVENT >= sec->n ){
        c->iEnd = 0;
      }else{
        c->i = (r - sec->iOff)/CPEL_EVENT;
        c->iEnd = c->i + 1;
      }
      continue;
    }
    if( !tl_packet_may_match(pkt, s->f.tsLo, s->f.tsHi, 0, -1) ){
      c->iEnd = 0;
      continue;
    }
    if( sec->bSorted && s->f.tsLo!=TL_TS_MIN ){
      int rc = lower_bound(s, i, s->f.tsLo, &c->i);
      if( rc ) return rc;
    }
  }
  for(i=0; i<p->nSec && s->iTable==TL_TAB_EVENTS; i++){
    if( s->aCur[i].i < s->aCur[i].iEnd ) tl_packet_note_read(&s->pTrace->index.a[i]);
  }
  return TL_OK;
}

static int cpelScanOpen(TlTrace *pTrace, int iTable, const TlFilter *pFilter,
                        TlScan **ppScan, TlErr *pErr){
  const CpelData *p = pTrace->pData;
  TlScan *s;
  int rc;
  *ppScan = 0;
  switch( iTable ){
    case TL_TAB_EVENTS: case TL_TAB_TRACKS: case TL_TAB_SYMBOLS:
    case TL_TAB_EVENT_TYPES:
      break;
    default:
      return TL_DONE;
  }
  s = calloc(1, sizeof(*s));
  if( s==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  s->pTrace = pTrace;
  s->p = p;
  s->iTable = iTable;
  s->f = *pFilter;
  s->f.aCpu = 0;
  /* f.bPlain (accel=off) changes nothing: every scan here is a plain one,
  ** a row per event, no counts, no repeats, no helper thread (a ts window
  ** only starts a sorted section at its first event in the window) */
  tl_win_init(&s->win, pTrace->pSrc);
  tl_win_init(&s->winStr, pTrace->pSrc);
  tl_err_clear(&s->err);
  tl_str_init(&s->text);
  tl_str_init(&s->args);
  tl_str_init(&s->tmp);
  if( iTable==TL_TAB_EVENTS && p->nSec>0 ){
    s->aCur = calloc((size_t)p->nSec, sizeof(CpelCursor));
    if( s->aCur==0 ){
      free(s);
      return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
    rc = position_cursors(s);
    if( rc ){
      *pErr = s->err;
      free(s->aCur);
      tl_win_free(&s->win);
      tl_win_free(&s->winStr);
      free(s);
      return rc;
    }
  }
  *ppScan = s;
  return TL_OK;
}

static void cpelScanClose(TlScan *s){
  if( s==0 ) return;
  tl_win_free(&s->win);
  tl_win_free(&s->winStr);
  tl_str_free(&s->text);
  tl_str_free(&s->args);
  tl_str_free(&s->tmp);
  free(s->zName);
  free(s->aCur);
  free(s);
}

/* Fill the events row for event e of section iSec at index i. */
static int fill_event(TlScan *s, int iSec, uint64_t i, const CpelEvent *e,
                      int bTs, int64_t ts, TlRow *pRow){
  const CpelData *p = s->p;
  const CpelSection *sec = &p->aSec[iSec];
  const CpelDef *d = find_def(p, e->code);
  TlVal *a = pRow->a;
  pRow->iRowid = (int64_t)(sec->iOff + i*CPEL_EVENT);
  if( bTs ) tl_val_int(&a[TL_EV_TS], ts);
  if( e->ticks<=(uint64_t)INT64_MAX ) tl_val_int(&a[TL_EV_TS_RAW], (int64_t)e->ticks);
  else tl_val_real(&a[TL_EV_TS_RAW], (double)e->ticks);
  tl_val_int(&a[TL_EV_TRACK], e->track);
  tl_val_text(&a[TL_EV_TYPE], "event", 5);
  tl_val_int(&a[TL_EV_VALUE], e->datum);
  if( tl_col_used(&s->f, TL_EV_NAME) ){
    if( d ){
      tl_val_textz(&a[TL_EV_NAME], d->zName);
    }else{
      snprintf(s->zNum, sizeof(s->zNum), "E%d", (int)(int32_t)e->code);
      tl_val_textz(&a[TL_EV_NAME], s->zNum);
    }
  }
  if( tl_col_used(&s->f, TL_EV_TEXT) && d && d->zDatumFmt[0] ){
    char *zStr = 0;
    const char *zSym = 0;
    tl_str_reset(&s->text);
    tl_str_append(&s->text, "", 0);
    if( fmt_has_conv(d->zDatumFmt, 's') ){
      zStr = strtab_get(s->pTrace, &s->winStr, p, sec->iStrtab, e->datum, &s->err);
      if( zStr==0 ) return tl_err_set(&s->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    }
    if( fmt_has_conv(d->zDatumFmt, 'k') ){
      const CpelSym *sym = find_sym(p, e->datum);
      if( sym ){
        tl_str_reset(&s->tmp);
        if( e->datum==sym->value ) tl_str_appendz(&s->tmp, sym->zName);
        else tl_str_appendf(&s->tmp, "%s+0x%x", sym->zName, (unsigned)(e->datum - sym->value));
        zSym = s->tmp.bErr ? 0 : s->tmp.z;
      }
    }
    tl_cpel_format(&s->text, d->zDatumFmt, e->datum, zStr, zSym);
    free(zStr);
    tl_val_str(&a[TL_EV_TEXT], &s->text);
  }
  if( tl_col_used(&s->f, TL_EV_ARGS) ){
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    tl_json_key(&s->args, "code"); tl_json_uint(&s->args, e->code);
    tl_json_key(&s->args, "datum"); tl_json_uint(&s->args, e->datum);
    tl_json_key(&s->args, "track"); tl_json_uint(&s->args, e->track);
    tl_json_obj_end(&s->args);
    tl_val_str(&a[TL_EV_ARGS], &s->args);
  }
  return TL_ROW;
}

/* Load the next event of cursor iSec into it; bHave=0 at its end. */
static int cursor_load(TlScan *s, int iSec){
  CpelCursor *c = &s->aCur[iSec];
  const CpelSection *sec = &s->p->aSec[iSec];
  c->bHave = 0;
  if( c->i >= c->iEnd ) return TL_OK;
  if( read_event(s, iSec, c->i, &c->ev) ) return s->err.rc;
  c->bTs = ticks_to_ns(sec, c->ev.ticks, &c->ts);
  /* In a sorted section, past the window means done. */
  if( sec->bSorted && c->bTs && c->ts > s->f.tsHi ){
    c->iEnd = c->i;
    return TL_OK;
  }
  c->bHave = 1;
  return TL_OK;
}

/*
** Events in file order: section by section (bStream: one section, in ts
** order when sorted; an ordered scan is the engine's merge of them).
*/
static int next_event(TlScan *s, TlRow *pRow){
  const CpelData *p = s->p;
  int rc;
  if( s->err.rc ) return s->err.rc;
  while( s->iSec < p->nSec ){
    rc = cursor_load(s, s->iSec);
    if( rc ) return rc;
    if( s->aCur[s->iSec].bHave ){
      CpelCursor *c = &s->aCur[s->iSec];
      uint64_t i = c->i++;
      return fill_event(s, s->iSec, i, &c->ev, c->bTs, c->ts, pRow);
    }
    s->iSec++;
  }
  return TL_DONE;
}

static int next_track(TlScan *s, TlRow *pRow){
  const CpelData *p = s->p;
  const CpelTrack *t;
  TlVal *a = pRow->a;
  if( s->iRow >= p->nTrack ) return TL_DONE;
  t = &p->aTrack[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&a[TL_TR_ID], t->code);
  tl_val_text(&a[TL_TR_KIND], "track", 5);
  tl_val_textz(&a[TL_TR_NAME], t->zName);
  if( t->bHaveTs ){
    tl_val_int(&a[TL_TR_FIRST_TS], t->tsFirst);
    tl_val_int(&a[TL_TR_LAST_TS], t->tsLast);
  }
  tl_val_int(&a[TL_TR_EVENTS], (int64_t)t->nEvents);
  if( tl_col_used(&s->f, TL_TR_ARGS) ){
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    tl_json_key(&s->args, "format"); tl_json_strz(&s->args, t->zFmt);
    tl_json_key(&s->args, "defined"); tl_json_bool(&s->args, t->bDefined);
    tl_json_obj_end(&s->args);
    tl_val_str(&a[TL_TR_ARGS], &s->args);
  }
  return TL_ROW;
}

static int next_symbol(TlScan *s, TlRow *pRow){
  const CpelData *p = s->p;
  const CpelSym *y;
  TlVal *a = pRow->a;
  if( s->iRow >= p->nSym ) return TL_DONE;
  y = &p->aSym[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  tl_val_int(&a[TL_SY_ID], (int64_t)s->iRow);
  tl_val_int(&a[TL_SY_ADDR], y->value);
  if( s->iRow+1 < p->nSym && p->aSym[s->iRow+1].value > y->value ){
    tl_val_int(&a[TL_SY_SIZE], p->aSym[s->iRow+1].value - y->value);
  }
  tl_val_textz(&a[TL_SY_NAME], y->zName);
  tl_val_text(&a[TL_SY_KIND], "symbol", 6);
  s->iRow++;
  return TL_ROW;
}

static int next_event_type(TlScan *s, TlRow *pRow){
  const CpelData *p = s->p;
  const CpelDef *d;
  TlVal *a = pRow->a;
  if( s->iRow >= (size_t)p->nDef ) return TL_DONE;
  d = &p->aDef[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&a[TL_ET_ID], d->code);
  tl_val_textz(&a[TL_ET_NAME], d->zName);
  tl_val_text(&a[TL_ET_KIND], "event", 5);
  tl_val_textz(&a[TL_ET_FORMAT], d->zEventFmt);
  if( tl_col_used(&s->f, TL_ET_ARGS) ){
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    tl_json_key(&s->args, "datum_format"); tl_json_strz(&s->args, d->zDatumFmt);
    tl_json_obj_end(&s->args);
    tl_val_str(&a[TL_ET_ARGS], &s->args);
  }
  return TL_ROW;
}

static int cpelScanNext(TlScan *s, TlRow *pRow){
  switch( s->iTable ){
    case TL_TAB_EVENTS:      return next_event(s, pRow);
    case TL_TAB_TRACKS:      return next_track(s, pRow);
    case TL_TAB_SYMBOLS:     return next_symbol(s, pRow);
    case TL_TAB_EVENT_TYPES: return next_event_type(s, pRow);
    default:                 return TL_DONE;
  }
}

/*
** trace_info: the file header (CPEL version, file date: Unix time, as UTC
** ISO 8601 under the shared key "date") and each event section's clock
** field (ticks per second or per microsecond, cpel_clock=).
*/
static int cpelInfo(TlTrace *pTrace, TlInfoFn xRow, void *pCtx, TlErr *pErr){
  const CpelData *p = pTrace->pData;
  time_t t = (time_t)p->fileDate;
  struct tm tm;
  char zDate[40];
  int i, rc;
  (void)pErr;
  rc = tl_info_text(xRow, pCtx, 0, "tracer", "cpel", "file header");
  if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, 0, "format_version", p->nVersion, "file header.version");
  if( rc==TL_OK && gmtime_r(&t, &tm) && strftime(zDate, sizeof(zDate), "%Y-%m-%dT%H:%M:%SZ", &tm) ){
    rc = tl_info_text(xRow, pCtx, 0, "date", zDate, "file header.file_date");
  }
  if( rc==TL_OK ) rc = tl_info_int(xRow, pCtx, 0, "date_unix", p->fileDate, "file header.file_date");
  for(i=0; i<p->nSec && rc==TL_OK; i++){
    rc = tl_info_int(xRow, pCtx, 0, "clock_ticks", p->aSec[i].clock, "event section.clock");
  }
  return rc;
}

/* An ordered events scan: the engine merges the sections (all sorted). */
static int cpelStreams(const TlTrace *pTrace, int iTable, const TlFilter *f){
  const CpelData *p = pTrace->pData;
  (void)f;
  return iTable==TL_TAB_EVENTS ? p->nSec : 0;
}

static const char *const cpelOptions[] = { "cpel_clock", 0 };

const TlReaderDef tl_cpel_reader = {
  .zName      = "cpel",
  .azOptions  = cpelOptions,
  .mOrdered   = 1u<<TL_TAB_EVENTS,
  .xProbe     = cpelProbe,
  .xOpen      = cpelOpen,
  .xClose     = cpelClose,
  .xScanOpen  = cpelScanOpen,
  .xScanNext  = cpelScanNext,
  .xScanClose = cpelScanClose,
  .xScanErr   = cpelScanErr,
  .xInfo      = cpelInfo,
  .xStreams   = cpelStreams,
};
