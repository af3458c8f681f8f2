/*
** group.c: grouped output (group.h). The rows of the table's ordinary scan
** collapse, by the values of the used columns, into the entries of a hash
** table; the entries are given one row each, standing for their rows.
**
** An entry's key is its values written one after the other, each as a tag
** byte and its bytes:
**
**   'n'                      NULL
**   'i' int64                an integer (host order)
**   'r' double               a real
**   't' uint64 n, n bytes    text      'b' likewise: a blob
**
** in column order, the tag's high bit (KEY_GROUP) set on the GROUP BY
** columns: two keys compare by those alone when the entries are ordered
** so that the rows of a group come together.
**
** Parts: a part is the rows whose GROUP BY values' hash has the low d
** bits equal to v (so that a GROUP BY value's entries are in one part).
** The scan starts with the one part of all rows (d 0). A part whose
** entries outgrow the memory cap is dropped before any of its rows is
** given and split into eight (d+3 bits), each scanned again in turn.
*/
#include "group.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "group_key.h"
#include "group_vary.h"
#include "progress.h"

#define GROUP_FULL 1                /* group_scan: the part outgrew the cap */
#define GROUP_RUNNING 3             /* group_scan: a tally runs, its first key's
                                    ** rows may come early (early_next()) */
#define GROUP_SPLIT_BITS 3          /* a full part splits into 1<<3 */
#define GROUP_MAX_PARTS 64          /* parts waiting at most */
#define GROUP_SLOTS_MIN 64
#define TALLY_HELPERS 2             /* threads a tally runs on at most */
#define TALLY_MEMO 4096             /* slots of a tally's memo (a power of two) */
#define TALLY_MEMO_COLS 8           /* key columns the memo knows at most */
#define TALLY_JOBS 16               /* packets with no stream: runs per helper */
#define GROUP_KEEP_MIN 64           /* a row standing for this many: its text
                                    ** interned (given to SQLite uncopied) */

typedef struct GroupEntry GroupEntry;
struct GroupEntry {
  uint64_t h;                       /* the key's hash */
  size_t iKey;                      /* the key: aKey + iKey ... */
  size_t nKey;                      /* ... its bytes */
  uint64_t n;                       /* rows it stands for */
  uint64_t nEarly;                  /* of them, given before the part was whole */
  const uint8_t *z;                 /* the key, while the entries are sorted */
  size_t iVary;                     /* its list of varying values + 1, 0 none */
};

typedef struct GroupPart GroupPart;
struct GroupPart {
  int d;                            /* low hash bits that choose the part */
  uint64_t v;                       /* their value */
};

struct TlGroup {
  TlTrace *pTrace;
  int iTable, nCol;
  TlFilter f;                       /* the inner scan's filter */
  TlFilterCols cols;
  uint64_t mKey;                    /* the columns collapsed on */
  uint64_t mGroupBy;                /* those among them that are grouped */
  uint64_t nMem;                    /* bytes one part may hold */
  GroupPart aPart[GROUP_MAX_PARTS]; /* parts still to scan (a stack) */
  int nPart;
  int nSplit;                       /* parts split so far */
  GroupPart cur;                    /* the part being given */
  GroupEntry *aEntry;               /* its entries */
  size_t nEntry, nEntryAlloc;
  uint32_t *aSlot;                  /* hash table: entry+1, 0 empty */
  size_t nSlot;
  uint8_t *aKey;                    /* the entries' keys */
  size_t nKey, nKeyAlloc;
  uint8_t *aProbe;                  /* the key of the row at hand */
  size_t nProbe, nProbeAlloc;
  size_t aGroupAt[2*TL_MAX_NCOL];   /* its GROUP BY values: [start, end) in aProbe */
  int nGroupAt;                     /* entries used in aGroupAt */
  size_t iLast;                     /* 1 + the entry the last row went to, 0 none */
  int bMerge;                       /* adding a helper's entries: in the part */
  size_t iOut;                      /* next entry to give */
  size_t iCur;                      /* the entry given last */
  int64_t *aRowid;                  /* rowids of the part's rows, by entry, */
  uint64_t *aRowidAt;               /* from aRowidAt[entry], when asked */
  uint64_t *aRowidN;                /* (rowids found so far per entry) */
  TlVal aVal[TL_MAX_NCOL];
  int bNoTally;                     /* the reader cannot tally this scan */
  struct TallyRun *pRun;            /* a tally still running (GROUP_RUNNING) */
  uint8_t *aEarly;                  /* the key whose rows came early, or NULL */
  size_t nEarly;
  uint64_t nEarlyGiven;             /* its rows given so far */
  int bCurEarly;                    /* the current row is such early rows */
  uint64_t nCurBase;                /* the current row's first repeat among
                                    ** its entry's rows */
  int bTallied;                     /* a tally made entries (tests) */
  int nOrd;                         /* tl_group_set_order(): its terms, */
  int aOrdIdx[TL_MAX_NCOL];         /* each a value's index in the keys */
  int aOrdDesc[TL_MAX_NCOL];        /* and its direction */
  TlGroupVary v;                    /* columns varying within an entry */
  TlErr err;
};

/* The error of scan q (or rc) as the group's; returns the recorded code. */
static int query_fail(TlGroup *g, TlQuery *q, int rc){
  const TlErr *e = q ? tl_query_err(q) : 0;
  if( g->err.rc==0 ){
    if( e && e->rc ) g->err = *e;
    else tl_err_set(&g->err, rc, TL_NO_OFFSET, "a scan failed");
  }
  return g->err.rc;
}

/* ---- keys ---------------------------------------------------------------- */

/* Room for n more bytes in the probe key. */
static int probe_room(TlGroup *g, size_t n){
  if( n > g->nProbeAlloc - g->nProbe ){
    size_t nNew = (g->nProbeAlloc ? g->nProbeAlloc*2 : 256) + n;
    uint8_t *aNew = realloc(g->aProbe, nNew);
    if( aNew==0 ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    g->aProbe = aNew;
    g->nProbeAlloc = nNew;
  }
  return TL_OK;
}

/* Append n bytes at p to the probe key. */
static int probe_put(TlGroup *g, const void *p, size_t n){
  int rc = probe_room(g, n);
  if( rc ) return rc;
  if( n ) memcpy(g->aProbe + g->nProbe, p, n);
  g->nProbe += n;
  return TL_OK;
}

/* Append value v of column iCol to the probe key (one size check; the
** fixed-size parts copied inline, not by a call each). */
static int probe_val(TlGroup *g, int iCol, const TlVal *v){
  uint8_t bGroup = (g->mGroupBy>>iCol & 1) ? KEY_GROUP : 0;
  int bText = v->t==TL_TEXT || v->t==TL_BLOB;
  uint64_t n = bText ? v->n : 0;
  uint8_t *a;
  int rc = probe_room(g, 1 + 8 + (size_t)n);
  if( rc ) return rc;
  a = g->aProbe + g->nProbe;
  switch( v->t ){
    case TL_INT:
      a[0] = 'i' | bGroup;
      memcpy(a+1, &v->i, 8);
      g->nProbe += 9;
      break;
    case TL_REAL:
      a[0] = 'r' | bGroup;
      memcpy(a+1, &v->r, 8);
      g->nProbe += 9;
      break;
    case TL_TEXT: case TL_BLOB:
      a[0] = (v->t==TL_TEXT ? 't' : 'b') | bGroup;
      memcpy(a+1, &n, 8);
      if( n ) memcpy(a+9, v->z, (size_t)n);
      g->nProbe += 9 + (size_t)n;
      break;
    default:
      a[0] = 'n' | bGroup;
      g->nProbe += 1;
      break;
  }
  return TL_OK;
}

/*
** The key of repeat k of row r (of scan q) into the probe: the used
** columns, asking the scan for those it left lazy. With no scan (a tally),
** the values of a: none lazy or varying.
*/
static int probe_vals(TlGroup *g, TlQuery *q, const TlVal *a, const TlRow *r, int64_t k);
static int vary_note(TlGroup *g, size_t e, uint64_t n);
static int vary_tally_rowids(TlGroup *g);
static int vary_next(TlGroup *g, TlRow *pRow);

static int probe_row(TlGroup *g, TlQuery *q, const TlRow *r, int64_t k){
  return probe_vals(g, q, r->a, r, k);
}

static int probe_vals(TlGroup *g, TlQuery *q, const TlVal *a, const TlRow *r, int64_t k){
  int c, rc;
  g->nProbe = 0;
  g->nGroupAt = 0;
  g->v.bRow = 0;
  for(c=0; c<g->nCol; c++){
    size_t iStart = g->nProbe;
    TlVal v;
    if( !(g->mKey>>c & 1) ) continue;
    if( r ){
      rc = tl_query_row_value(q, r, k, c, &v);
      if( rc<0 ) return query_fail(g, q, rc);
    }else{
      v = a[c];
    }
    if( v.t==TL_LAZY ) tl_val_null(&v);
    /* (a varying integer: its tag alone, the value in the tuple) */
    rc = tl_gvary_val(&g->v, c, &v) ? probe_put(g, "v", 1) : probe_val(g, c, &v);
    if( rc ) return rc;
    if( g->mGroupBy>>c & 1 ){
      g->aGroupAt[g->nGroupAt++] = iStart;
      g->aGroupAt[g->nGroupAt++] = g->nProbe;
    }
  }
  return TL_OK;
}

/* The hash of the probe's GROUP BY values (which part its row is in). */
static uint64_t probe_part_hash(const TlGroup *g){
  uint64_t h = 0xcbf29ce484222325ULL;
  int i;
  for(i=0; i<g->nGroupAt; i+=2){
    h = hash_add(h, g->aProbe + g->aGroupAt[i], g->aGroupAt[i+1] - g->aGroupAt[i]);
  }
  return tl_mix64(h);
}

/* Does every repeat of row r have the same key (nothing lazy or varying)? */
static int row_is_uniform(const TlGroup *g, const TlRow *r){
  int c;
  for(c=0; c<g->nCol; c++){
    if( !(g->mKey>>c & 1) ) continue;
    if( r->a[c].t==TL_LAZY || (r->aVary && c==r->iVary) ) return 0;
  }
  return 1;
}

/* ---- the hash table -------------------------------------------------------- */

static size_t group_bytes(const TlGroup *g){
  return g->nEntryAlloc*sizeof(GroupEntry) + g->nSlot*sizeof(uint32_t) + g->nKeyAlloc;
}

/* The slot of key a[0..n) with hash h: its entry's, or the empty one. */
static size_t slot_find(const TlGroup *g, uint64_t h, const uint8_t *a, size_t n){
  size_t mask = g->nSlot - 1;
  size_t i = (size_t)(h >> 24) & mask;
  for(;;){
    uint32_t e = g->aSlot[i];
    if( e==0 ) return i;
    {
      const GroupEntry *p = &g->aEntry[e-1];
      if( p->h==h && p->nKey==n && memcmp(g->aKey + p->iKey, a, n)==0 ) return i;
    }
    i = (i+1) & mask;
  }
}

/* Put every entry into a table of nSlot slots (a power of two). */
static int slots_rebuild(TlGroup *g, size_t nSlot){
  size_t e;
  uint32_t *aNew = calloc(nSlot, sizeof(uint32_t));
  if( aNew==0 ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  free(g->aSlot);
  g->aSlot = aNew;
  g->nSlot = nSlot;
  for(e=0; e<g->nEntry; e++){
    const GroupEntry *p = &g->aEntry[e];
    g->aSlot[slot_find(g, p->h, g->aKey + p->iKey, p->nKey)] = (uint32_t)(e+1);
  }
  return TL_OK;
}

/* A new entry for the probe key at slot i. */
static int entry_new(TlGroup *g, size_t i, uint64_t h, uint64_t n){
  GroupEntry *p;
  if( g->nEntry==g->nEntryAlloc ){
    size_t nNew = g->nEntryAlloc ? g->nEntryAlloc*2 : 64;
    GroupEntry *aNew = realloc(g->aEntry, nNew*sizeof(GroupEntry));
    if( aNew==0 ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    if( nNew>=UINT32_MAX ){
      g->aEntry = aNew;
      return tl_err_set(&g->err, TL_ELIMIT, TL_NO_OFFSET, "GROUP BY: too many groups");
    }
    g->aEntry = aNew;
    g->nEntryAlloc = nNew;
  }
  if( g->nKey + g->nProbe > g->nKeyAlloc ){
    size_t nNew = (g->nKeyAlloc ? g->nKeyAlloc*2 : 1024) + g->nProbe;
    uint8_t *aNew = realloc(g->aKey, nNew);
    if( aNew==0 ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
    g->aKey = aNew;
    g->nKeyAlloc = nNew;
  }
  p = &g->aEntry[g->nEntry];
  p->h = h;
  p->iKey = g->nKey;
  p->nKey = g->nProbe;
  p->n = n;
  p->nEarly = 0;
  p->iVary = 0;
  memcpy(g->aKey + g->nKey, g->aProbe, g->nProbe);
  g->nKey += g->nProbe;
  g->aSlot[i] = (uint32_t)(++g->nEntry);
  if( g->nEntry*2 >= g->nSlot ) return slots_rebuild(g, g->nSlot*2);
  return TL_OK;
}

/* Is GROUP BY hash h in the current part? */
static int in_part(const TlGroup *g, uint64_t h){
  uint64_t mask = g->cur.d>=64 ? ~(uint64_t)0 : (((uint64_t)1<<g->cur.d) - 1);
  return (h & mask)==g->cur.v;
}

/* Is the probe's row in the current part? (Every row is while the part
** is the whole, d 0: no hash needed.) */
static int probe_in_part(const TlGroup *g){
  return g->cur.d==0 || in_part(g, probe_part_hash(g));
}

/*
** n more rows of the probe key: TL_OK, GROUP_FULL or < 0; *pe (when not
** NULL) its entry + 1, or 0 when the key is in another part.
*/
static int group_add_key(TlGroup *g, uint64_t n, uint32_t *pe){
  uint64_t h;
  size_t i;
  int rc;
  if( pe ) *pe = 0;
  if( g->iLast ){
    /* rows in a run often share their values: the last row's entry first
    ** (its key is in the part, so is an equal one) */
    GroupEntry *p = &g->aEntry[g->iLast-1];
    if( p->nKey==g->nProbe && memcmp(g->aKey + p->iKey, g->aProbe, g->nProbe)==0 ){
      p->n += n;
      if( pe ) *pe = g->iLast;
      return TL_OK;
    }
  }
  if( !g->bMerge && !probe_in_part(g) ) return TL_OK;
  h = key_hash(g->aProbe, g->nProbe);
  i = slot_find(g, h, g->aProbe, g->nProbe);
  if( g->aSlot[i] ){
    g->iLast = g->aSlot[i];
    g->aEntry[g->iLast-1].n += n;
    if( pe ) *pe = g->iLast;
    return TL_OK;
  }
  rc = entry_new(g, i, h, n);
  if( rc ) return rc;
  g->iLast = (uint32_t)g->nEntry;
  if( pe ) *pe = (uint32_t)g->nEntry;
  return group_bytes(g) > g->nMem ? GROUP_FULL : TL_OK;
}

/* group_add_key(), and the probe's varying values onto its entry's list. */
static int group_add_at(TlGroup *g, uint64_t n, uint32_t *pe){
  uint32_t e = 0;
  int rc = group_add_key(g, n, &e);
  if( pe ) *pe = e;
  if( rc>=0 && e && g->v.bRow && !g->bMerge ){
    int rc2 = vary_note(g, e-1, n);
    if( rc2 ) return rc2;
  }
  return rc;
}

static int group_add(TlGroup *g, uint64_t n){
  return group_add_at(g, n, 0);
}

/* Rowid iRowid as the next of the probe key's entry (rowid pass; the key
** is in the part). */
static int rowid_put(TlGroup *g, int64_t iRowid){
  uint64_t h = key_hash(g->aProbe, g->nProbe);
  uint32_t e = g->aSlot[slot_find(g, h, g->aProbe, g->nProbe)];
  if( e==0 || g->aRowidN[e-1] >= g->aEntry[e-1].n ){
    return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET,
                      "the rows changed between two scans of one query");
  }
  g->aRowid[g->aRowidAt[e-1] + g->aRowidN[e-1]++] = iRowid;
  return TL_OK;
}

/* The rowid of repeat k of row r, found among the entries (rowid pass). */
static int group_note_rowid(TlGroup *g, TlQuery *q, const TlRow *r, int64_t k){
  int64_t iRowid;
  int rc;
  if( !probe_in_part(g) ) return TL_OK;
  rc = tl_query_rowid(q, r, k, &iRowid);
  if( rc<0 ) return query_fail(g, q, rc);
  return rowid_put(g, iRowid);
}

/* Under accel=off, is row r a plain one (as vtab_util.c checks)? */
static int row_plain(const TlGroup *g, const TlRow *r){
  int c;
  if( r->nRepeat>1 || r->iRowid==TL_ROWID_LAZY ) return 0;
  for(c=0; c<g->nCol; c++) if( r->a[c].t==TL_LAZY ) return 0;
  return 1;
}

/* ---- tallies ------------------------------------------------------------- */

/*
** A tally (reader.h: xTallyPacket) fills a table of its own, a TlGroup
** that only counts, on its own thread; the tables are added into the
** scan's when every packet is done. The memo recognises a key by the raw
** words of its values (integers, and text by its address, which the
** reader keeps still): most rows skip the key's bytes and their hash.
*/
typedef struct TallyRun TallyRun;

struct TlTally {
  TlGroup *g;                       /* the table it counts into */
  uint64_t *aMemo;                  /* TALLY_MEMO slots of nMemoWords + 1 words:
                                    ** per key column its type, value or address,
                                    ** length; then the entry + 1 (0 empty,
                                    ** UINT32_MAX in another part). NULL: more key
                                    ** columns than it knows */
  int nMemoWords;                   /* words of a memo key */
  int aKeyCol[TALLY_MEMO_COLS];     /* the key columns */
  int bFull;                        /* its table outgrew its share of the cap */
  int bRowids;                      /* the rowid pass (tl_tally_row()) */
};

typedef struct TallyHelper TallyHelper;
struct TallyHelper {
  TallyRun *pRun;
  TlTally t;
  void *pState;                     /* the reader's */
  int rc;
  TlErr err;
  int bThread;                      /* runs on thread th */
  pthread_t th;
};

struct TallyRun {
  TlGroup *g;                       /* the scan's */
  TlFilter f;                       /* its filter as the reader sees it */
  pthread_mutex_t mu;               /* guards nRunning */
  pthread_cond_t cv;                /* a helper finished */
  int nRunning;
  int bStop;                        /* (atomic) helpers stop at their next packet */
  uint64_t nBytes;                  /* (atomic) bytes of the packets threads tallied */
  uint64_t nNoted;                  /* of them, passed on to the progress line */
  TallyHelper aHelper[TALLY_HELPERS];
  int nHelper;
  size_t *aPkt;                     /* the packets, job by job, */
  size_t *aJob;                     /* job k: aPkt[aJob[k] .. aJob[k+1]) */
  size_t nJob;
  int bShared;                      /* helpers take the jobs in turn (else
                                    ** job k is helper k's) */
  size_t iJob;                      /* (atomic) the next job a helper takes */
  TlProgress prog;                  /* the scan's progress report, when bProg */
  TlProgress *pPrev;
  int bProg;
  /* early rows (GROUP_RUNNING): the first key the first helper made, and
  ** each helper's count of it after its last packet */
  int bEarlyOk;                     /* the run may give them */
  int bEarlySet;                    /* (atomic, release) aEarly is set */
  uint8_t *aEarly;
  size_t nEarly;
  uint64_t hEarly;                  /* key_hash() of it */
  uint64_t aEarlyN[TALLY_HELPERS];  /* (atomic) */
};

/* The raw words of the key columns of aRow into a. */
static void memo_words(const TlTally *t, const TlVal *aRow, uint64_t *a){
  int k;
  for(k=0; k<t->nMemoWords; k+=3){
    const TlVal *v = &aRow[t->aKeyCol[k/3]];
    a[k] = v->t;
    a[k+2] = 0;
    switch( v->t ){
      case TL_INT:                  /* (a varying one: by its type alone) */
        a[k+1] = (t->g->v.mVary>>t->aKeyCol[k/3] & 1) ? 0 : (uint64_t)v->i;
        break;
      case TL_REAL: memcpy(&a[k+1], &v->r, 8); break;
      case TL_TEXT: case TL_BLOB: a[k+1] = (uint64_t)(uintptr_t)v->z; a[k+2] = v->n; break;
      default: a[k] = TL_NULL; a[k+1] = 0; break;
    }
  }
}

int tl_tally_add(TlTally *t, const TlVal *aRow, uint64_t n){
  TlGroup *g = t->g;
  uint64_t a[3*TALLY_MEMO_COLS];
  uint64_t *m = 0;
  uint32_t e = 0;
  int rc;
  if( n==0 ) return TL_OK;
  if( t->bRowids ){
    return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "a tally gave a row without its rowid");
  }
  if( t->aMemo ){
    int nw = t->nMemoWords;
    memo_words(t, aRow, a);
    m = &t->aMemo[(memo_hash(a, nw) & (TALLY_MEMO-1)) * (size_t)(nw + 1)];
    if( m[nw] && memo_same(m, a, nw) ){
      if( m[nw]==UINT32_MAX ) return TL_OK;
      g->aEntry[m[nw]-1].n += n;
      if( g->v.mVary ){
        tl_gvary_row(&g->v, aRow);
        if( g->v.bRow ) return vary_note(g, m[nw]-1, n);
      }
      return TL_OK;
    }
  }
  rc = probe_vals(g, 0, aRow, 0, 0);
  if( rc==TL_OK ) rc = group_add_at(g, n, &e);
  if( rc==GROUP_FULL ){
    t->bFull = 1;
    return tl_err_set(&g->err, TL_ELIMIT, TL_NO_OFFSET, "GROUP BY: a tally outgrew its memory");
  }
  if( rc<0 ) return rc;
  if( m ){
    memcpy(m, a, (size_t)t->nMemoWords*8);
    m[t->nMemoWords] = e ? e : UINT32_MAX;
  }
  return TL_OK;
}

/* A table like g's (its columns, its part), for a helper: 1/n of the cap. */
static TlGroup *group_clone(const TlGroup *g, int n){
  TlGroup *c = 0;
  TlErr err;
  tl_err_clear(&err);
  if( tl_group_open(g->pTrace, g->iTable, g->nCol, &g->f, &g->cols, g->mGroupBy, &c, &err) ){
    return 0;
  }
  c->nMem = g->nMem / (uint64_t)n;
  c->cur = g->cur;
  tl_group_set_vary(c, g->v.mVary);
  c->v.nCap = (g->v.nCap ? g->v.nCap : g->nMem/16) / (uint64_t)n;
  return c;
}

/* Does the reader tally this scan (its hooks, the table, the columns)? */
static int tally_allowed(const TlGroup *g){
  const TlReaderDef *r = g->pTrace->pReader;
  const TlFilter *f = &g->f;
  if( g->bNoTally || f->bPlain || f->bRowid || f->bKey ) return 0;
  if( !r->xTallyCols || !r->xTallyOpen || !r->xTallyPacket || !r->xTallyClose ) return 0;
  if( g->iTable<0 || g->iTable>=32 || !((r->mTally>>g->iTable) & 1) ) return 0;
  return (g->mKey & ~r->xTallyCols(g->pTrace, g->iTable, f))==0;
}

/* The xStop of a helper thread's TlPoll: the run asked it to stop. */
static int tally_stopped(void *pArg){
  TallyRun *run = pArg;
  return __atomic_load_n(&run->bStop, __ATOMIC_RELAXED);
}

/*
** After a packet of helper h: the first helper's first key becomes the run's
** early key; each helper publishes how many rows of it it has counted.
*/
static void tally_note_early(TallyHelper *h){
  TallyRun *run = h->pRun;
  const TlGroup *c = h->t.g;
  uint32_t e;
  if( !__atomic_load_n(&run->bEarlySet, __ATOMIC_ACQUIRE) ){
    const GroupEntry *p = c->aEntry;
    if( h!=&run->aHelper[0] || c->nEntry==0 ) return;
    run->aEarly = malloc(p->nKey ? p->nKey : 1);
    if( run->aEarly==0 ) return;
    memcpy(run->aEarly, c->aKey + p->iKey, p->nKey);
    run->nEarly = p->nKey;
    run->hEarly = p->h;
    __atomic_store_n(&run->bEarlySet, 1, __ATOMIC_RELEASE);
  }
  e = c->aSlot[slot_find(c, run->hEarly, run->aEarly, run->nEarly)];
  if( e ) __atomic_store_n(&run->aEarlyN[h - run->aHelper], c->aEntry[e-1].n, __ATOMIC_RELAXED);
}

/*
** One helper's packets, on its thread or the caller's: its own job, or
** shared jobs one after the other, each taken when the one before is done
** (so a helper slowed down, by a model loaded on first use for example,
** takes fewer).
*/
static void *tally_main(void *pArg){
  TallyHelper *h = pArg;
  TallyRun *run = h->pRun;
  const TlIndex *x = &run->g->pTrace->index;
  const TlReaderDef *r = run->g->pTrace->pReader;
  TlPoll poll, *pPrev = 0;
  size_t j, k;
  int rc = TL_OK;
  if( h->bThread ){
    /* (this thread's window reads stop when the run does) */
    memset(&poll, 0, sizeof(poll));
    poll.xStop = tally_stopped;
    poll.pArg = run;
    pPrev = tl_poll_swap(&poll);
  }
  j = run->bShared ? __atomic_fetch_add(&run->iJob, 1, __ATOMIC_RELAXED)
                   : (size_t)(h - run->aHelper);
  while( rc>=0 && j < run->nJob ){
    for(k=run->aJob[j]; k<run->aJob[j+1] && rc>=0; k++){
      if( tally_stopped(run) ) break;
      rc = r->xTallyPacket(h->pState, run->aPkt[k], &h->t, &h->err);
      if( h->bThread ) __atomic_add_fetch(&run->nBytes, x->a[run->aPkt[k]].nSize, __ATOMIC_RELAXED);
      if( rc>=0 && run->bEarlyOk ) tally_note_early(h);
    }
    if( tally_stopped(run) || !run->bShared ) break;
    j = __atomic_fetch_add(&run->iJob, 1, __ATOMIC_RELAXED);
  }
  if( rc>=0 && r->xTallyEnd && !tally_stopped(run) ){
    rc = r->xTallyEnd(h->pState, &h->t, &h->err);
    if( rc>=0 && run->bEarlyOk ) tally_note_early(h);
  }
  if( rc<0 ){
    if( h->t.g->err.rc && !h->t.bFull ) h->err = h->t.g->err;
    if( h->err.rc==0 ) tl_err_set(&h->err, rc, TL_NO_OFFSET, "a tally failed");
    __atomic_store_n(&run->bStop, 1, __ATOMIC_RELAXED);
  }
  h->rc = rc<0 ? rc : TL_OK;
  if( h->bThread ) tl_poll_swap(pPrev);
  pthread_mutex_lock(&run->mu);
  run->nRunning--;
  pthread_cond_broadcast(&run->cv);
  pthread_mutex_unlock(&run->mu);
  return 0;
}

typedef struct TallyStream TallyStream;
struct TallyStream { int64_t iStream; uint64_t nBytes; int iHelper; };

static int stream_cmp_bytes(const void *a, const void *b){
  const TallyStream *x = a, *y = b;
  if( x->nBytes!=y->nBytes ) return x->nBytes > y->nBytes ? -1 : 1;
  return x->iStream < y->iStream ? -1 : x->iStream > y->iStream;
}

static int stream_cmp_id(const void *a, const void *b){
  const TallyStream *x = a, *y = b;
  return x->iStream < y->iStream ? -1 : x->iStream > y->iStream;
}

/*
** The helper of each of the n packets aPkt into aSide, when every packet
** has a stream: the streams to the helper with fewer bytes so far, largest
** first. TL_OK or TL_ENOMEM.
*/
static int tally_sides(const TlIndex *x, const size_t *aPkt, size_t n, int nHelper,
                       uint8_t *aSide){
  TallyStream *a = malloc((n ? n : 1)*sizeof(*a));
  uint64_t aLoad[TALLY_HELPERS] = {0};
  size_t i, nStream = 0;
  if( a==0 ) return TL_ENOMEM;
  for(i=0; i<n; i++){
    a[i].iStream = x->a[aPkt[i]].iStream;
    a[i].nBytes = x->a[aPkt[i]].nSize;
  }
  qsort(a, n, sizeof(*a), stream_cmp_id);
  for(i=0; i<n; i++){
    if( nStream>0 && a[nStream-1].iStream==a[i].iStream ) a[nStream-1].nBytes += a[i].nBytes;
    else a[nStream++] = a[i];
  }
  qsort(a, nStream, sizeof(*a), stream_cmp_bytes);
  for(i=0; i<nStream; i++){
    int k, best = 0;
    for(k=1; k<nHelper; k++) if( aLoad[k]<aLoad[best] ) best = k;
    a[i].iHelper = best;
    aLoad[best] += a[i].nBytes;
  }
  qsort(a, nStream, sizeof(*a), stream_cmp_id);
  for(i=0; i<n; i++){
    TallyStream key, *p;
    key.iStream = x->a[aPkt[i]].iStream;
    p = bsearch(&key, a, nStream, sizeof(*a), stream_cmp_id);
    aSide[i] = (uint8_t)(p ? p->iHelper : 0);
  }
  free(a);
  return TL_OK;
}

/*
** The run's jobs from the n packets aPkt (ascending; taken over). When
** every packet has a stream, job k is helper k's alone: whole streams
** (tally_sides()), in index order. Else the packets are cut into runs of
** about 1/TALLY_JOBS of a helper's share of the bytes, which the helpers
** take in index order, each when done with its last (bShared). TL_OK or
** TL_ENOMEM.
*/
static int tally_jobs(TallyRun *run, const TlIndex *x, size_t *aPkt, size_t n){
  uint64_t nAll = 0, nSum = 0, nJobBytes;
  size_t i, j;
  uint8_t *aSide;
  size_t *aOrder;
  int k;
  run->aPkt = aPkt;
  run->aJob = malloc((n + TALLY_HELPERS + 1)*sizeof(size_t));
  if( run->aJob==0 ) return TL_ENOMEM;
  run->aJob[0] = 0;
  for(i=0; i<n && x->a[aPkt[i]].iStream>=0; i++){}
  if( i<n ){
    for(i=0; i<n; i++) nAll += x->a[aPkt[i]].nSize;
    nJobBytes = nAll / ((uint64_t)run->nHelper * TALLY_JOBS) + 1;
    for(i=0; i<n; i++){
      nSum += x->a[aPkt[i]].nSize;
      if( nSum>=nJobBytes || i+1==n ){
        run->aJob[++run->nJob] = i + 1;
        nSum = 0;
      }
    }
    run->bShared = 1;
    return TL_OK;
  }
  aSide = malloc(n ? n : 1);
  aOrder = malloc((n ? n : 1)*sizeof(size_t));
  if( aSide==0 || aOrder==0 || tally_sides(x, aPkt, n, run->nHelper, aSide) ){
    free(aSide);
    free(aOrder);
    return TL_ENOMEM;
  }
  for(k=0, j=0; k<run->nHelper; k++){
    for(i=0; i<n; i++) if( aSide[i]==k ) aOrder[j++] = aPkt[i];
    run->aJob[++run->nJob] = j;
  }
  memcpy(aPkt, aOrder, n*sizeof(size_t));
  free(aSide);
  free(aOrder);
  return TL_OK;
}

/* Free the helpers' states, tables and packet lists. */
static void tally_free(TallyRun *run){
  const TlReaderDef *r = run->g->pTrace->pReader;
  int i;
  for(i=0; i<run->nHelper; i++){
    TallyHelper *h = &run->aHelper[i];
    if( h->pState ) r->xTallyClose(h->pState);
    tl_group_close(h->t.g);
    free(h->t.aMemo);
  }
  free(run->aPkt);
  free(run->aJob);
  pthread_mutex_destroy(&run->mu);
  pthread_cond_destroy(&run->cv);
}

/*
** Set up the run's helpers: the packets that may match, as jobs the
** helpers take (tally_jobs()), a state and a table each. TL_OK, TL_DONE when the
** reader does not tally this scan, or < 0 with the error in g's.
*/
static int tally_setup(TallyRun *run){
  TlGroup *g = run->g;
  const TlIndex *x = &g->pTrace->index;
  const TlReaderDef *r = g->pTrace->pReader;
  const TlFilter *f = &run->f;
  size_t *aPkt = malloc((x->n ? x->n : 1)*sizeof(size_t));
  size_t i, n = 0;
  int k, rc = TL_OK, nKey = 0, aKeyCol[TALLY_MEMO_COLS];
  for(k=0; k<g->nCol; k++){
    if( !(g->mKey>>k & 1) ) continue;
    if( nKey<TALLY_MEMO_COLS ) aKeyCol[nKey] = k;
    nKey++;
  }
  if( aPkt==0 ) rc = TL_ENOMEM;
  for(i=0; rc==TL_OK && i<x->n; i++){
    if( tl_packet_may_match(&x->a[i], f->tsLo, f->tsHi, f->aCpu, f->nCpu) ) aPkt[n++] = i;
  }
  run->nHelper = n>1 ? TALLY_HELPERS : 1;
  if( rc==TL_OK ) rc = tally_jobs(run, x, aPkt, n);
  else free(aPkt);
  for(k=0; rc==TL_OK && k<run->nHelper; k++){
    TallyHelper *h = &run->aHelper[k];
    h->pRun = run;
    tl_err_clear(&h->err);
    h->t.g = group_clone(g, run->nHelper);
    if( nKey<=TALLY_MEMO_COLS ){
      h->t.aMemo = calloc(TALLY_MEMO*(size_t)(3*nKey + 1), sizeof(uint64_t));
      h->t.nMemoWords = 3*nKey;
      memcpy(h->t.aKeyCol, aKeyCol, sizeof(aKeyCol));
    }
    if( h->t.g==0 || (nKey<=TALLY_MEMO_COLS && h->t.aMemo==0) ){
      rc = TL_ENOMEM;
      break;
    }
    rc = r->xTallyOpen(g->pTrace, g->iTable, &run->f, &h->pState, &g->err);
  }
  if( rc==TL_ENOMEM ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  if( rc==TL_DONE ) g->bNoTally = 1;
  return rc;
}


/* xTallyValues's callback: value v's key, kept when it comes first so far. */
static int tally_first_value(void *pArg, const TlVal *v){
  TallyRun *run = pArg;
  TlGroup *g = run->g;
  TlVal aRow[TL_MAX_NCOL];
  int c, rc;
  for(c=0; c<g->nCol; c++) aRow[c].t = TL_NULL;
  for(c=0; c<g->nCol && !(g->mKey>>c & 1); c++){}
  aRow[c] = *v;
  rc = probe_vals(g, 0, aRow, 0, 0);
  if( rc ) return rc;
  if( run->aEarly ){
    int cmp = val_cmp(g->aProbe, run->aEarly);
    if( (g->aOrdDesc[0] ? -cmp : cmp) >= 0 ) return TL_OK;
  }
  free(run->aEarly);
  run->aEarly = malloc(g->nProbe);
  if( run->aEarly==0 ) return TL_ENOMEM;
  memcpy(run->aEarly, g->aProbe, g->nProbe);
  run->nEarly = g->nProbe;
  return TL_OK;
}

/*
** A GROUP BY on one column whose groups come in the order of an ORDER BY
** on it: the early key is the value first in that order of all the values
** the reader says its rows can have (xTallyValues), whether it has rows or
** not (the groups before it would have none). TL_OK when set, else not.
*/
static int tally_first_key(TallyRun *run){
  TlGroup *g = run->g;
  const TlReaderDef *r = g->pTrace->pReader;
  int c, rc;
  if( r->xTallyValues==0 || __builtin_popcountll(g->mKey)!=1 || g->aOrdIdx[0]!=0 ) return TL_DONE;
  for(c=0; c<g->nCol && !(g->mKey>>c & 1); c++){}
  rc = r->xTallyValues(g->pTrace, g->iTable, c, tally_first_value, run);
  if( rc || run->aEarly==0 ){
    free(run->aEarly);
    run->aEarly = 0;
    return TL_DONE;
  }
  run->hEarly = key_hash(run->aEarly, run->nEarly);
  __atomic_store_n(&run->bEarlySet, 1, __ATOMIC_RELEASE);
  return TL_OK;
}

/*
** Wait for the run's helpers (or, nEarlyGiven not UINT64_MAX, until they
** have counted more rows of the early key than that), polling for an
** interruption (tl_poll) every TL_POLL_MS: then the helpers stop too,
** and it waits for their end. Passes their bytes on to this thread's
** progress line. TL_OK, or TL_EINTR in g's error.
*/
/* The rows of the early key the helpers have counted so far (0: none yet). */
static uint64_t tally_early_count(TallyRun *run){
  uint64_t n = 0;
  int i;
  if( !__atomic_load_n(&run->bEarlySet, __ATOMIC_ACQUIRE) ) return 0;
  for(i=0; i<run->nHelper; i++) n += __atomic_load_n(&run->aEarlyN[i], __ATOMIC_RELAXED);
  return n;
}

static int tally_wait(TallyRun *run, uint64_t nEarlyGiven){
  uint64_t nBytes;
  int rc = TL_OK;
  pthread_mutex_lock(&run->mu);
  while( run->nRunning>0 ){
    if( nEarlyGiven!=UINT64_MAX && tally_early_count(run)>nEarlyGiven ) break;
    tl_cond_wait_poll(&run->cv, &run->mu);
    pthread_mutex_unlock(&run->mu);
    nBytes = __atomic_load_n(&run->nBytes, __ATOMIC_RELAXED);
    tl_progress_add(nBytes - run->nNoted);
    run->nNoted = nBytes;
    if( tl_poll(&run->g->err) ){
      __atomic_store_n(&run->bStop, 1, __ATOMIC_RELAXED);
      rc = TL_EINTR;
      nEarlyGiven = UINT64_MAX;     /* (now only the helpers' end) */
    }
    pthread_mutex_lock(&run->mu);
  }
  pthread_mutex_unlock(&run->mu);
  nBytes = __atomic_load_n(&run->nBytes, __ATOMIC_RELAXED);
  tl_progress_add(nBytes - run->nNoted);
  run->nNoted = nBytes;
  return rc;
}

/*
** The outcome of the helpers: the first error of one (an interruption
** only when nothing else failed), GROUP_FULL when a table outgrew its
** share, else their tables added into g's (which may be GROUP_FULL too).
*/
static int tally_merge(TallyRun *run){
  TlGroup *g = run->g;
  int i, bFull = 0, bIntr = 0;
  size_t e;
  for(i=0; i<run->nHelper; i++){
    TallyHelper *h = &run->aHelper[i];
    if( h->t.bFull ){ bFull = 1; continue; }
    if( h->rc<0 && h->err.rc==TL_EINTR ){ bIntr = 1; continue; }
    if( h->rc<0 ){
      g->err = h->err;
      return g->err.rc;
    }
  }
  if( bFull ) return GROUP_FULL;
  if( bIntr ){
    if( g->err.rc==0 ) tl_err_set(&g->err, TL_EINTR, TL_NO_OFFSET, "interrupted");
    return g->err.rc;
  }
  for(i=0; i<run->nHelper; i++){
    const TlGroup *c = run->aHelper[i].t.g;
    for(e=0; e<c->nEntry; e++){
      const GroupEntry *p = &c->aEntry[e];
      int rc;
      uint32_t eTo = 0;
      g->nProbe = 0;
      g->v.bRow = 0;
      rc = probe_put(g, c->aKey + p->iKey, p->nKey);
      g->bMerge = 1;                      /* (in the part, as c's entries are) */
      if( rc==TL_OK ) rc = group_add_at(g, p->n, &eTo);
      g->bMerge = 0;
      if( rc==TL_OK && p->iVary && eTo ){
        rc = tl_gvary_merge(&g->v, &g->aEntry[eTo-1].iVary, &run->aHelper[i].t.g->v, p->iVary, &g->err);
      }
      if( rc ) return rc;
    }
  }
  return TL_OK;
}

/*
** End the run: wait for its helpers (tally_wait()), join them and add
** their tables into g's (tally_merge()); frees the run. TL_OK, GROUP_FULL
** or < 0.
*/
static int tally_finish(TlGroup *g, TallyRun *run){
  int i, rc;
  if( run->bProg ) tl_progress_swap(&run->prog);
  rc = tally_wait(run, UINT64_MAX);
  for(i=0; i<run->nHelper; i++){
    if( run->aHelper[i].bThread ) pthread_join(run->aHelper[i].th, 0);
  }
  if( rc==TL_OK ) rc = tally_merge(run);
  if( rc==TL_OK ) g->bTallied = 1;
  tally_free(run);
  if( run->bProg ) tl_progress_end(&run->prog, run->pPrev);
  free(run->aEarly);
  free(run);
  if( g->pRun==run ) g->pRun = 0;
  return rc;
}

/*
** The current part's entries from the reader's tallies (xTallyPacket) on
** helper threads: TL_OK, GROUP_FULL, TL_DONE when the reader does not
** tally this scan (then the rows are scanned), GROUP_RUNNING when the
** helpers run on while the first key's rows are given (g->pRun: see
** early_next()), or < 0.
*/
static int group_tally(TlGroup *g){
  TallyRun *run;
  int i, rc, nThread = 0;
  if( !tally_allowed(g) ) return TL_DONE;
  run = calloc(1, sizeof(*run));
  if( run==0 ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  run->g = g;
  run->f = g->f;
  tl_trace_reader_filter(g->pTrace, &run->f);
  if( g->f.eProgress!=TL_PROGRESS_OFF ){
    /* (as tl_query_open reports a scan: the packets read, of all) */
    uint64_t nTotal = 0;
    size_t k;
    for(k=0; k<g->pTrace->index.n; k++) nTotal += g->pTrace->index.a[k].nSize;
    run->pPrev = tl_progress_begin(&run->prog, g->f.eProgress, "scanning", g->pTrace->zPath, nTotal);
    run->bProg = 1;
  }
  pthread_mutex_init(&run->mu, 0);
  pthread_cond_init(&run->cv, 0);
  rc = tally_setup(run);
  if( rc ){
    tally_free(run);
    if( run->bProg ) tl_progress_end(&run->prog, run->pPrev);
    free(run);
    return rc;
  }
  /* the first key's rows may come while the helpers count, when the
  ** whole is one part so far and every used column is grouped on (a
  ** GROUP BY value is then one entry); in the order asked, only the key
  ** first of all the values the reader says can come */
  run->bEarlyOk = run->nHelper>1 && g->mKey==g->mGroupBy && g->cur.d==0 && g->aEarly==0
                && (g->nOrd==0 || tally_first_key(run)==TL_OK);
  run->nRunning = run->nHelper;
  for(i=0; i<run->nHelper && run->nHelper>1; i++){
    TallyHelper *h = &run->aHelper[i];
    h->bThread = 1;
    if( pthread_create(&h->th, 0, tally_main, h)!=0 ) h->bThread = 0;
    nThread += h->bThread;
  }
  if( nThread<run->nHelper ) run->bEarlyOk = 0;
  for(i=0; i<run->nHelper; i++){
    if( !run->aHelper[i].bThread ) tally_main(&run->aHelper[i]);
  }
  if( run->bEarlyOk ){
    if( run->bProg ) tl_progress_swap(run->pPrev);   /* (current again in early_next) */
    g->pRun = run;
    return GROUP_RUNNING;
  }
  return tally_finish(g, run);
}

/* ---- scans ------------------------------------------------------------------ */

/*
** One scan of the current part: its entries (bRowids 0), or the rowids of
** its rows (bRowids 1, entries already made). TL_OK, GROUP_FULL or < 0.
*/
static int group_scan(TlGroup *g, int bRowids){
  TlQuery *q = 0;
  TlRow row;
  int rc = bRowids ? TL_DONE : group_tally(g);
  if( rc!=TL_DONE ) return rc;
  rc = tl_query_open(g->pTrace, g->iTable, &g->f, &q, &g->err);
  memset(&row, 0, sizeof(row));
  while( rc==TL_OK && (row.nRepeat = 0, rc = tl_query_next(q, &row))==TL_ROW ){
    /* (row.nRepeat: the built-in tables do not set it) */
    int64_t n = row.nRepeat>1 ? row.nRepeat : 1, k;
    rc = TL_OK;
    if( g->f.bPlain && !row_plain(g, &row) ){
      rc = tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET,
          "the %s reader gave an accelerated row under accel=off", g->pTrace->pReader->zName);
      break;
    }
    if( !tl_filter_match(&g->f, &g->cols, &row) ) continue;
    if( !bRowids && row_is_uniform(g, &row) ){
      rc = probe_row(g, q, &row, 0);
      if( rc==TL_OK ) rc = group_add(g, (uint64_t)n);
      continue;
    }
    for(k=0; k<n && rc==TL_OK; k++){
      rc = probe_row(g, q, &row, k);
      if( rc==TL_OK ) rc = bRowids ? group_note_rowid(g, q, &row, k) : group_add(g, 1);
    }
  }
  if( rc==TL_DONE ) rc = TL_OK;
  if( rc<0 ) rc = query_fail(g, q, rc);
  tl_query_close(q);
  return rc;
}

/* The group whose entries are being sorted (qsort passes no context). */
static _Thread_local const TlGroup *tlSorting;

static int entry_cmp(const void *pa, const void *pb){
  const GroupEntry *a = pa, *b = pb;
  const TlGroup *g = tlSorting;
  int i;
  for(i=0; g && i<g->nOrd; i++){
    const uint8_t *va = key_val(a->z, a->nKey, g->aOrdIdx[i]);
    const uint8_t *vb = key_val(b->z, b->nKey, g->aOrdIdx[i]);
    int c = (va && vb) ? val_cmp(va, vb) : 0;
    if( c ) return g->aOrdDesc[i] ? -c : c;
  }
  return key_cmp(a->z, a->nKey, b->z, b->nKey);
}

/* Empty the part's entries and rowids. */
static void part_reset(TlGroup *g){
  tl_gvary_reset(&g->v);
  g->nEntry = 0;
  g->iLast = 0;
  g->nKey = 0;
  g->iOut = 0;
  g->iCur = SIZE_MAX;
  if( g->aSlot ) memset(g->aSlot, 0, g->nSlot*sizeof(uint32_t));
  free(g->aRowid); g->aRowid = 0;
  free(g->aRowidAt); g->aRowidAt = 0;
  free(g->aRowidN); g->aRowidN = 0;
}

/*
** Make the next part's entries: TL_ROW when there is a part with entries,
** TL_DONE when none is left, or < 0.
*/
/*
** The current part outgrew the cap: drop its entries and push its eight
** parts. TL_OK or < 0 (too many parts; or rows of its early key given).
*/
static int part_split(TlGroup *g){
  int rc, i;
  /* (what the full part grew is given back: each part starts small) */
  tl_gvary_reset(&g->v);
  g->nEntry = 0;
  g->iLast = 0;
  g->nKey = 0;
  free(g->aEntry); g->aEntry = 0; g->nEntryAlloc = 0;
  free(g->aKey); g->aKey = 0; g->nKeyAlloc = 0;
  rc = slots_rebuild(g, GROUP_SLOTS_MIN);     /* (no entries: all empty) */
  if( rc ) return rc;
  if( g->nOrd>0 ){
    /* parts by hash would give each part's groups in order, not all */
    return tl_err_set(&g->err, TL_ELIMIT, TL_NO_OFFSET,
        "GROUP BY: more distinct groups than max_memory=%llu MiB holds in order "
        "(raise max_memory=, or accel=off to group in SQLite)",
        (unsigned long long)(g->nMem>>20));
  }
  if( g->aEarly || g->cur.d + GROUP_SPLIT_BITS > 60
   || g->nPart + (1<<GROUP_SPLIT_BITS) > GROUP_MAX_PARTS ){
    return tl_err_set(&g->err, TL_ELIMIT, TL_NO_OFFSET,
        "GROUP BY: too many distinct groups for max_memory=%llu MiB",
        (unsigned long long)(g->nMem>>20));
  }
  g->nSplit++;
  for(i=(1<<GROUP_SPLIT_BITS)-1; i>=0; i--){
    GroupPart *p = &g->aPart[g->nPart++];
    p->d = g->cur.d + GROUP_SPLIT_BITS;
    p->v = g->cur.v | ((uint64_t)i << g->cur.d);
  }
  return TL_OK;
}

/*
** The part's entries made: sort them by the GROUP BY values (a value's
** entries together, the values in SQLite's order, as its own grouping gives
** them, within a part); the early key's entry first, with the rows given
** early noted (nEarly). TL_OK or < 0.
*/
static int part_ready(TlGroup *g){
  size_t e;
  int rc;
  g->iLast = 0;                     /* (the entries move) */
  if( g->nEntry>1 ){
    for(e=0; e<g->nEntry; e++) g->aEntry[e].z = g->aKey + g->aEntry[e].iKey;
    tlSorting = g;
    qsort(g->aEntry, g->nEntry, sizeof(GroupEntry), entry_cmp);
    tlSorting = 0;
  }
  for(e=0; g->aEarly && e<g->nEntry; e++){
    GroupEntry *p = &g->aEntry[e];
    if( p->nKey==g->nEarly && memcmp(g->aKey + p->iKey, g->aEarly, g->nEarly)==0 ){
      GroupEntry t = *p;
      if( t.n < g->nEarlyGiven ){
        return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "GROUP BY: a tally's counts shrank");
      }
      t.nEarly = g->nEarlyGiven;
      memmove(&g->aEntry[1], &g->aEntry[0], e*sizeof(GroupEntry));
      g->aEntry[0] = t;
      break;
    }
  }
  rc = g->nEntry>1 || g->aEarly ? slots_rebuild(g, g->nSlot) : TL_OK;
  g->iOut = 0;
  return rc;
}

/*
** Make the next part's entries: TL_ROW when there is a part with entries,
** GROUP_RUNNING when a tally runs on (g->pRun), TL_DONE when no part is
** left, or < 0.
*/
static int group_fill(TlGroup *g){
  while( g->nPart>0 ){
    int rc;
    g->cur = g->aPart[--g->nPart];
    part_reset(g);
    rc = group_scan(g, 0);
    if( rc<0 || rc==GROUP_RUNNING ) return rc;
    if( rc==GROUP_FULL ){
      rc = part_split(g);
      if( rc ) return rc;
      continue;
    }
    if( g->nEntry==0 ) continue;
    rc = part_ready(g);
    return rc ? rc : TL_ROW;
  }
  return TL_DONE;
}

/*
** Key a[0..nKey) as the values of pRow (a row standing for n rows of its
** entry). The text of a row standing for many is interned (tl_val_text_kept):
** SQLite takes it without a copy per repeat.
*/
static void group_row(TlGroup *g, const uint8_t *a, size_t nKey, uint64_t n, TlRow *pRow){
  size_t i = 0;
  int c;
  for(c=0; c<g->nCol; c++){
    TlVal *v = &g->aVal[c];
    uint64_t nz;
    tl_val_null(v);
    if( !(g->mKey>>c & 1) || i>=nKey ) continue;
    switch( a[i++] & ~KEY_GROUP ){
      case 'i': v->t = TL_INT; memcpy(&v->i, a+i, 8); i += 8; break;
      case 'r': v->t = TL_REAL; memcpy(&v->r, a+i, 8); i += 8; break;
      case 'v': v->t = TL_INT; v->i = 0; break;   /* (varying: vary_next()) */
      case 't': case 'b':
        memcpy(&nz, a+i, 8);
        i += 8;
        if( (a[i-9] & ~KEY_GROUP)!='t' ){ v->t = TL_BLOB; v->z = (const char*)a+i; v->n = nz; }
        else if( n>=GROUP_KEEP_MIN ) tl_val_text_kept(v, (const char*)a+i, nz);
        else tl_val_text(v, (const char*)a+i, nz);
        i += nz;
        break;
      default: break;
    }
  }
  pRow->a = g->aVal;
  pRow->iRowid = TL_ROWID_LAZY;
  pRow->aVary = 0;
}

/*
** While a tally runs (g->pRun): the early key's rows the helpers have
** counted since the last (TL_ROW, one row standing for them), or, once the
** helpers are done, the part's entries made (TL_OK; the early key's entry
** first, its rows given early left out), or < 0.
*/
static int early_next(TlGroup *g, TlRow *pRow){
  TallyRun *run = g->pRun;
  uint64_t n;
  int rc;
  if( run->bProg ) tl_progress_swap(&run->prog);
  rc = tally_wait(run, g->nEarlyGiven);
  if( run->bProg ) tl_progress_swap(run->pPrev);
  n = rc==TL_OK ? tally_early_count(run) : 0;
  if( n>g->nEarlyGiven ){
    if( g->aEarly==0 ){
      g->aEarly = malloc(run->nEarly ? run->nEarly : 1);
      if( g->aEarly==0 ) return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
      memcpy(g->aEarly, run->aEarly, run->nEarly);
      g->nEarly = run->nEarly;
    }
    group_row(g, g->aEarly, g->nEarly, n - g->nEarlyGiven, pRow);
    pRow->nRepeat = (int64_t)(n - g->nEarlyGiven);
    g->nCurBase = g->nEarlyGiven;
    g->nEarlyGiven = n;
    g->bCurEarly = 1;
    return TL_ROW;
  }
  rc = tally_finish(g, run);
  if( rc==GROUP_FULL ) return part_split(g);
  if( rc<0 ) return g->err.rc ? g->err.rc : rc;
  return part_ready(g);
}

/* ---- the interface ------------------------------------------------------- */

int tl_group_open(TlTrace *pTrace, int iTable, int nCol, const TlFilter *f,
                  const TlFilterCols *pCols, uint64_t mGroupBy, TlGroup **ppGroup,
                  TlErr *pErr){
  TlGroup *g = calloc(1, sizeof(*g));
  uint64_t mVisible = nCol>=64 ? ~(uint64_t)0 : (((uint64_t)1<<nCol) - 1);
  *ppGroup = 0;
  if( g==0 ) return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  g->pTrace = pTrace;
  g->iTable = iTable;
  g->nCol = nCol>TL_MAX_NCOL ? TL_MAX_NCOL : nCol;
  g->f = *f;
  g->f.bOrdered = 0;
  g->cols = *pCols;
  g->mKey = f->mCols & mVisible;
  g->mGroupBy = mGroupBy & g->mKey;
  g->nMem = tl_trace_max_memory(pTrace);
  g->aSlot = calloc(GROUP_SLOTS_MIN, sizeof(uint32_t));
  g->nSlot = GROUP_SLOTS_MIN;
  g->nPart = 1;                    /* aPart[0]: every row */
  tl_gvary_init(&g->v);
  g->iCur = SIZE_MAX;
  tl_err_clear(&g->err);
  if( g->aSlot==0 ){
    free(g);
    return tl_err_set(pErr, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  *ppGroup = g;
  return TL_OK;
}

int tl_group_next(TlGroup *g, TlRow *pRow){
  const GroupEntry *p;
  int rc;
  if( g->err.rc ) return g->err.rc;
  g->bCurEarly = 0;
  for(;;){
    if( g->v.bOut ){
      rc = vary_next(g, pRow);
      if( rc!=TL_DONE ) return rc;
    }
    if( g->pRun ){
      rc = early_next(g, pRow);
      if( rc ) return rc<0 ? (g->err.rc ? g->err.rc : rc) : rc;
    }
    while( g->iOut<g->nEntry && g->aEntry[g->iOut].n==g->aEntry[g->iOut].nEarly ) g->iOut++;
    if( g->iOut<g->nEntry ) break;
    rc = group_fill(g);
    if( rc==GROUP_RUNNING ) continue;
    if( rc!=TL_ROW ) return rc<0 ? g->err.rc ? g->err.rc : rc : rc;
  }
  g->iCur = g->iOut++;
  p = &g->aEntry[g->iCur];
  if( p->iVary ){
    /* (its rows a run of tuples at a time) */
    tl_gvary_begin(&g->v, p->iVary);
    rc = vary_next(g, pRow);
    return rc==TL_DONE ? tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET,
                                    "GROUP BY: an entry lost its values") : rc;
  }
  group_row(g, g->aKey + p->iKey, p->nKey, p->n - p->nEarly, pRow);
  pRow->nRepeat = (int64_t)(p->n - p->nEarly);
  g->nCurBase = p->nEarly;
  return TL_ROW;
}

/* The rowids of the current part's rows, by entry (one more scan). */
static int group_rowids(TlGroup *g){
  uint64_t nAll = 0;
  size_t e;
  int rc;
  for(e=0; e<g->nEntry; e++) nAll += g->aEntry[e].n;
  if( nAll > g->nMem/sizeof(int64_t) ){
    return tl_err_set(&g->err, TL_ELIMIT, TL_NO_OFFSET,
        "GROUP BY: the rowids of %llu grouped rows exceed max_memory=%llu MiB",
        (unsigned long long)nAll, (unsigned long long)(g->nMem>>20));
  }
  g->aRowid = malloc((size_t)(nAll ? nAll : 1)*sizeof(int64_t));
  g->aRowidAt = malloc(g->nEntry*sizeof(uint64_t));
  g->aRowidN = calloc(g->nEntry, sizeof(uint64_t));
  if( g->aRowid==0 || g->aRowidAt==0 || g->aRowidN==0 ){
    return tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  for(e=0, nAll=0; e<g->nEntry; e++){ g->aRowidAt[e] = nAll; nAll += g->aEntry[e].n; }
  /* (varying values are in the order their rows came: tallied, the rowids
  ** come from the same tallies again) */
  rc = g->v.mVary && g->bTallied ? vary_tally_rowids(g) : group_scan(g, 1);
  if( rc==TL_OK ){
    for(e=0; e<g->nEntry; e++){
      if( g->aRowidN[e]!=g->aEntry[e].n ){
        return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET,
                          "the rows changed between two scans of one query");
      }
    }
  }
  return rc;
}

int tl_group_rowid(TlGroup *g, int64_t iRepeat, int64_t *piRowid){
  const GroupEntry *p;
  uint64_t k;
  if( g->err.rc ) return g->err.rc;
  if( g->bCurEarly ){
    /* early rows: their entry is the first once the tally is whole */
    if( g->pRun ){
      int rc = tally_finish(g, g->pRun);
      if( rc==GROUP_FULL ) rc = part_split(g);
      if( rc==TL_OK ) rc = part_ready(g);
      if( rc ) return g->err.rc ? g->err.rc : rc;
    }
    g->iCur = 0;
  }
  if( g->iCur>=g->nEntry ) return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "no grouped row");
  p = &g->aEntry[g->iCur];
  k = g->nCurBase + (uint64_t)iRepeat;
  if( iRepeat<0 || k>=p->n ){
    return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "no grouped row %lld", (long long)iRepeat);
  }
  if( g->aRowid==0 ){
    int rc = group_rowids(g);
    if( rc ) return g->err.rc ? g->err.rc : rc;
  }
  *piRowid = g->aRowid[g->aRowidAt[g->iCur] + k];
  return TL_OK;
}

void tl_group_set_order(TlGroup *g, int n, const int *aCol, const int *aDesc){
  int i;
  g->nOrd = 0;
  for(i=0; i<n && i<TL_MAX_NCOL; i++){
    uint64_t mBelow;
    if( aCol[i]<0 || aCol[i]>=g->nCol || !(g->mKey>>aCol[i] & 1) ) continue;
    mBelow = g->mKey & (((uint64_t)1<<aCol[i]) - 1);
    g->aOrdIdx[g->nOrd] = __builtin_popcountll(mBelow);
    g->aOrdDesc[g->nOrd] = aDesc[i]!=0;
    g->nOrd++;
  }
}

void tl_group_set_cap(TlGroup *g, uint64_t nBytes){
  g->nMem = nBytes;
}

int tl_group_splits(const TlGroup *g){
  return g->nSplit;
}

int tl_group_tallied(const TlGroup *g){
  return g->bTallied;
}

const TlErr *tl_group_err(TlGroup *g){
  return &g->err;
}

void tl_group_close(TlGroup *g){
  if( g==0 ) return;
  if( g->pRun ){
    __atomic_store_n(&g->pRun->bStop, 1, __ATOMIC_RELAXED);
    tally_finish(g, g->pRun);
  }
  free(g->aEarly);
  part_reset(g);
  tl_gvary_free(&g->v);
  free(g->aEntry);
  free(g->aSlot);
  free(g->aKey);
  free(g->aProbe);
  free(g);
}


/* ---- varying columns ------------------------------------------------------ */

/* (group_vary.h: the key says 'v' for a varying integer, the entry keeps
** its rows' tuples in order; their rowids come from a scan in that order) */

void tl_group_set_vary(TlGroup *g, uint64_t mVary){
  tl_gvary_set(&g->v, mVary & g->mKey & ~g->mGroupBy, g->nCol);
}

/* n more rows of the probe's tuple onto entry e's list. */
static int vary_note(TlGroup *g, size_t e, uint64_t n){
  return tl_gvary_note(&g->v, &g->aEntry[e].iVary, n, g->nMem/16, &g->err);
}

/* The next rows of the current entry's tuples: TL_ROW, TL_DONE or < 0. */
static int vary_next(TlGroup *g, TlRow *pRow){
  const GroupEntry *p = &g->aEntry[g->iCur];
  group_row(g, g->aKey + p->iKey, p->nKey, p->n, pRow);
  return tl_gvary_next(&g->v, g->aVal, g->nCol, pRow, p->n, &g->nCurBase, &g->err);
}

int tl_tally_row(TlTally *t, const TlVal *aRow, int64_t iRowid){
  TlGroup *g = t->g;
  int rc;
  if( !t->bRowids ) return tl_tally_add(t, aRow, 1);
  rc = probe_vals(g, 0, aRow, 0, 0);
  if( rc ) return rc;
  return probe_in_part(g) ? rowid_put(g, iRowid) : TL_OK;
}

/* The rowids of a part tallies made: the same tallies again, each helper's
** packets (the same split) in turn here, each row with its rowid. */
static int vary_tally_rowids(TlGroup *g){
  const TlIndex *x = &g->pTrace->index;
  const TlReaderDef *r = g->pTrace->pReader;
  TlFilter f = g->f;
  size_t *aPkt = malloc((x->n ? x->n : 1)*sizeof(size_t));
  uint8_t *aSide = malloc(x->n ? x->n : 1);
  size_t i, n = 0;
  int k, nHelper, rc = TL_OK;
  tl_trace_reader_filter(g->pTrace, &f);
  if( aPkt==0 || aSide==0 ) rc = tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  for(i=0; rc==TL_OK && i<x->n; i++){
    if( tl_packet_may_match(&x->a[i], f.tsLo, f.tsHi, f.aCpu, f.nCpu) ) aPkt[n++] = i;
  }
  nHelper = n>1 ? TALLY_HELPERS : 1;
  if( rc==TL_OK && tally_sides(x, aPkt, n, nHelper, aSide) ){
    rc = tl_err_set(&g->err, TL_ENOMEM, TL_NO_OFFSET, "out of memory");
  }
  for(k=0; rc==TL_OK && k<nHelper; k++){
    TlTally t;
    void *pState = 0;
    memset(&t, 0, sizeof(t));
    t.g = g;
    t.bRowids = 1;
    rc = r->xTallyOpen(g->pTrace, g->iTable, &f, &pState, &g->err);
    if( rc==TL_DONE ){
      rc = tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "the rows changed between two scans of one query");
    }
    for(i=0; rc==TL_OK && i<n; i++){
      if( aSide[i]==k ) rc = r->xTallyPacket(pState, aPkt[i], &t, &g->err);
      if( rc==TL_OK && tl_poll(&g->err) ) rc = TL_EINTR;
    }
    if( rc==TL_OK && r->xTallyEnd ) rc = r->xTallyEnd(pState, &t, &g->err);
    if( pState ) r->xTallyClose(pState);
  }
  free(aPkt);
  free(aSide);
  if( rc<0 && g->err.rc==0 ) tl_err_set(&g->err, rc, TL_NO_OFFSET, "a tally failed");
  return rc<0 ? g->err.rc : TL_OK;
}

void tl_group_set_vary_cap(TlGroup *g, uint64_t nBytes){
  g->v.nCap = nBytes;
}

uint64_t tl_group_spilled(const TlGroup *g){
  return tl_gvary_spilled(&g->v);
}
