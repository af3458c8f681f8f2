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

#include <stdlib.h>
#include <string.h>

#define KEY_GROUP 0x80              /* tag bit: a GROUP BY column */
#define GROUP_FULL 1                /* group_scan: the part outgrew the cap */
#define GROUP_SPLIT_BITS 3          /* a full part splits into 1<<3 */
#define GROUP_MAX_PARTS 64          /* parts waiting at most */
#define GROUP_SLOTS_MIN 64

typedef struct GroupEntry GroupEntry;
struct GroupEntry {
  uint64_t h;                       /* the key's hash */
  size_t iKey;                      /* the key: aKey + iKey ... */
  size_t nKey;                      /* ... its bytes */
  uint64_t n;                       /* rows it stands for */
  const uint8_t *z;                 /* the key, while the entries are sorted */
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
  size_t iOut;                      /* next entry to give */
  size_t iCur;                      /* the entry given last */
  int64_t *aRowid;                  /* rowids of the part's rows, by entry, */
  uint64_t *aRowidAt;               /* from aRowidAt[entry], when asked */
  uint64_t *aRowidN;                /* (rowids found so far per entry) */
  TlVal aVal[TL_MAX_NCOL];
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
** a[0..n) onto h, eight bytes a step (a byte a step cost more than the rest
** of a row's grouping; mix() below spreads the bits).
*/
static uint64_t hash_add(uint64_t h, const uint8_t *a, size_t n){
  uint64_t w;
  while( n>=8 ){
    memcpy(&w, a, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 32;
    a += 8;
    n -= 8;
  }
  w = 0;                            /* the tail (up to 7 bytes) and its length */
  if( n ) memcpy(&w, a, n);
  w = w << 8 | n;
  h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

/* A finalizer so that low and high bits both mix. */
static uint64_t mix(uint64_t h){
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

static uint64_t key_hash(const uint8_t *a, size_t n){
  return mix(hash_add(0xcbf29ce484222325ULL, a, n));
}

/*
** The key of repeat k of row r (of scan q) into the probe: the used
** columns, asking the scan for those it left lazy.
*/
static int probe_row(TlGroup *g, TlQuery *q, const TlRow *r, int64_t k){
  int c, rc;
  g->nProbe = 0;
  g->nGroupAt = 0;
  for(c=0; c<g->nCol; c++){
    size_t iStart = g->nProbe;
    TlVal v;
    if( !(g->mKey>>c & 1) ) continue;
    v = r->a[c];
    if( v.t==TL_LAZY ){
      rc = tl_query_value(q, k, c, &v);
      if( rc<0 ) return query_fail(g, q, rc);
      if( v.t==TL_LAZY ) tl_val_null(&v);
    }else if( r->aVary && c==r->iVary ){
      v.t = TL_INT;
      v.i = r->aVary[k];
    }
    rc = probe_val(g, c, &v);
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
  return mix(h);
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

/* n more rows of the probe key: TL_OK, GROUP_FULL or < 0. */
static int group_add(TlGroup *g, uint64_t n){
  uint64_t h;
  size_t i;
  int rc;
  if( g->iLast ){
    /* rows in a run often share their values: the last row's entry first
    ** (its key is in the part, so is an equal one) */
    GroupEntry *p = &g->aEntry[g->iLast-1];
    if( p->nKey==g->nProbe && memcmp(g->aKey + p->iKey, g->aProbe, g->nProbe)==0 ){
      p->n += n;
      return TL_OK;
    }
  }
  if( !in_part(g, probe_part_hash(g)) ) return TL_OK;
  h = key_hash(g->aProbe, g->nProbe);
  i = slot_find(g, h, g->aProbe, g->nProbe);
  if( g->aSlot[i] ){
    g->iLast = g->aSlot[i];
    g->aEntry[g->iLast-1].n += n;
    return TL_OK;
  }
  rc = entry_new(g, i, h, n);
  if( rc ) return rc;
  g->iLast = g->nEntry;
  return group_bytes(g) > g->nMem ? GROUP_FULL : TL_OK;
}

/* The rowid of repeat k of row r, found among the entries (rowid pass). */
static int group_note_rowid(TlGroup *g, TlQuery *q, const TlRow *r, int64_t k){
  uint64_t h = key_hash(g->aProbe, g->nProbe);
  int64_t iRowid;
  uint32_t e;
  int rc;
  if( !in_part(g, probe_part_hash(g)) ) return TL_OK;
  e = g->aSlot[slot_find(g, h, g->aProbe, g->nProbe)];
  if( e==0 || g->aRowidN[e-1] >= g->aEntry[e-1].n ){
    return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET,
                      "the rows changed between two scans of one query");
  }
  rc = tl_query_rowid(q, r, k, &iRowid);
  if( rc<0 ) return query_fail(g, q, rc);
  g->aRowid[g->aRowidAt[e-1] + g->aRowidN[e-1]++] = iRowid;
  return TL_OK;
}

/* Under accel=off, is row r a plain one (as vtab_util.c checks)? */
static int row_plain(const TlGroup *g, const TlRow *r){
  int c;
  if( r->nRepeat>1 || r->iRowid==TL_ROWID_LAZY ) return 0;
  for(c=0; c<g->nCol; c++) if( r->a[c].t==TL_LAZY ) return 0;
  return 1;
}

/* ---- scans ------------------------------------------------------------------ */

/*
** One scan of the current part: its entries (bRowids 0), or the rowids of
** its rows (bRowids 1, entries already made). TL_OK, GROUP_FULL or < 0.
*/
static int group_scan(TlGroup *g, int bRowids){
  TlQuery *q = 0;
  TlRow row;
  int rc = tl_query_open(g->pTrace, g->iTable, &g->f, &q, &g->err);
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

/* Compare the GROUP BY values of two keys (SQLite's order of types). */
static int key_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb){
  size_t i = 0, j = 0;
  while( i<na && j<nb ){
    uint8_t ta = a[i++], tb = b[j++];
    int bGroup = (ta & KEY_GROUP)!=0;
    uint64_t la = 0, lb = 0;
    int64_t xa = 0, xb = 0;
    double ra = 0, rb = 0;
    int c = 0;
    ta &= ~KEY_GROUP; tb &= ~KEY_GROUP;
    if( ta=='i' ){ memcpy(&xa, a+i, 8); ra = (double)xa; i += 8; }
    if( ta=='r' ){ memcpy(&ra, a+i, 8); i += 8; }
    if( ta=='t' || ta=='b' ){ memcpy(&la, a+i, 8); i += 8; }
    if( tb=='i' ){ memcpy(&xb, b+j, 8); rb = (double)xb; j += 8; }
    if( tb=='r' ){ memcpy(&rb, b+j, 8); j += 8; }
    if( tb=='t' || tb=='b' ){ memcpy(&lb, b+j, 8); j += 8; }
    if( bGroup ){
      static const char zRank[] = "nirtb";    /* i and r: one rank */
      int rka = (int)(strchr(zRank, ta) - zRank), rkb = (int)(strchr(zRank, tb) - zRank);
      if( rka==2 ) rka = 1;
      if( rkb==2 ) rkb = 1;
      if( rka!=rkb ) return rka<rkb ? -1 : 1;
      if( ta=='i' && tb=='i' ) c = xa<xb ? -1 : xa>xb;
      else if( rka==1 ) c = ra<rb ? -1 : ra>rb;
      else if( rka>=3 ){
        c = memcmp(a+i, b+j, la<lb ? la : lb);
        if( c==0 ) c = la<lb ? -1 : la>lb;
      }
      if( c ) return c;
    }
    i += la;
    j += lb;
  }
  return 0;
}

static int entry_cmp(const void *pa, const void *pb){
  const GroupEntry *a = pa, *b = pb;
  return key_cmp(a->z, a->nKey, b->z, b->nKey);
}

/* Empty the part's entries and rowids. */
static void part_reset(TlGroup *g){
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
static int group_fill(TlGroup *g){
  while( g->nPart>0 ){
    int rc, i;
    g->cur = g->aPart[--g->nPart];
    part_reset(g);
    rc = group_scan(g, 0);
    if( rc<0 ) return rc;
    if( rc==GROUP_FULL ){
      /* (what the full part grew is given back: each part starts small) */
      g->nEntry = 0;
      g->iLast = 0;
      g->nKey = 0;
      free(g->aEntry); g->aEntry = 0; g->nEntryAlloc = 0;
      free(g->aKey); g->aKey = 0; g->nKeyAlloc = 0;
      rc = slots_rebuild(g, GROUP_SLOTS_MIN);     /* (no entries: all empty) */
      if( rc ) return rc;
      if( g->cur.d + GROUP_SPLIT_BITS > 60 || g->nPart + (1<<GROUP_SPLIT_BITS) > GROUP_MAX_PARTS ){
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
      continue;
    }
    if( g->nEntry==0 ) continue;
    if( g->mKey!=g->mGroupBy ){
      size_t e;
      for(e=0; e<g->nEntry; e++) g->aEntry[e].z = g->aKey + g->aEntry[e].iKey;
      qsort(g->aEntry, g->nEntry, sizeof(GroupEntry), entry_cmp);
      rc = slots_rebuild(g, g->nSlot);
      if( rc ) return rc;
    }
    return TL_ROW;
  }
  return TL_DONE;
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
  g->f.bGroupName = 0;
  g->cols = *pCols;
  g->mKey = f->mCols & mVisible;
  g->mGroupBy = mGroupBy & g->mKey;
  g->nMem = tl_trace_max_memory(pTrace);
  g->aSlot = calloc(GROUP_SLOTS_MIN, sizeof(uint32_t));
  g->nSlot = GROUP_SLOTS_MIN;
  g->nPart = 1;                    /* aPart[0]: every row */
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
  const uint8_t *a;
  size_t i = 0;
  int c;
  if( g->err.rc ) return g->err.rc;
  if( g->iOut>=g->nEntry ){
    int rc = group_fill(g);
    if( rc!=TL_ROW ) return rc<0 ? g->err.rc ? g->err.rc : rc : rc;
  }
  g->iCur = g->iOut++;
  p = &g->aEntry[g->iCur];
  a = g->aKey + p->iKey;
  for(c=0; c<g->nCol; c++){
    TlVal *v = &g->aVal[c];
    uint64_t n;
    tl_val_null(v);
    if( !(g->mKey>>c & 1) || i>=p->nKey ) continue;
    switch( a[i++] & ~KEY_GROUP ){
      case 'i': v->t = TL_INT; memcpy(&v->i, a+i, 8); i += 8; break;
      case 'r': v->t = TL_REAL; memcpy(&v->r, a+i, 8); i += 8; break;
      case 't': case 'b':
        memcpy(&n, a+i, 8);
        i += 8;
        if( (a[i-9] & ~KEY_GROUP)=='t' ) tl_val_text(v, (const char*)a+i, n);
        else { v->t = TL_BLOB; v->z = (const char*)a+i; v->n = n; }
        i += n;
        break;
      default: break;
    }
  }
  pRow->a = g->aVal;
  pRow->nRepeat = (int64_t)p->n;
  pRow->iRowid = TL_ROWID_LAZY;
  pRow->aVary = 0;
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
  rc = group_scan(g, 1);
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
  if( g->err.rc ) return g->err.rc;
  if( g->iCur>=g->nEntry ) return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "no grouped row");
  p = &g->aEntry[g->iCur];
  if( iRepeat<0 || (uint64_t)iRepeat>=p->n ){
    return tl_err_set(&g->err, TL_EMISUSE, TL_NO_OFFSET, "no grouped row %lld", (long long)iRepeat);
  }
  if( g->aRowid==0 ){
    int rc = group_rowids(g);
    if( rc ) return g->err.rc ? g->err.rc : rc;
  }
  *piRowid = g->aRowid[g->aRowidAt[g->iCur] + (uint64_t)iRepeat];
  return TL_OK;
}

void tl_group_set_cap(TlGroup *g, uint64_t nBytes){
  g->nMem = nBytes;
}

int tl_group_splits(const TlGroup *g){
  return g->nSplit;
}

const TlErr *tl_group_err(TlGroup *g){
  return &g->err;
}

void tl_group_close(TlGroup *g){
  if( g==0 ) return;
  part_reset(g);
  free(g->aEntry);
  free(g->aSlot);
  free(g->aKey);
  free(g->aProbe);
  free(g);
}
