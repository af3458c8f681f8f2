/*
** flamegraph.c: the aggregate function flamegraph(stack, value [, title]).
**
**     SELECT flamegraph(stack, value, 'perf.data') FROM events('perf.data')
**     WHERE stack IS NOT NULL;
**
** Folds the rows' stacks (frames outermost first, separated by ';', as
** folded-stack files write them) into a tree, adding each row's value to
** every frame of its stack, and returns one self-contained interactive SVG
** drawn as flamegraph.pl draws it: the root "all" at the bottom, each
** frame as wide as its value (its total, callees included), children in
** name order, frames narrower than 0.1 px left out. The SVG's own script
** gives a tooltip and a details line on hover, zoom on click (the frame
** fills the width, its callers stay as full-width bars), "Reset Zoom", and
** "Search" (a regular expression: matching frames turn purple and the
** share of the total they cover is shown).
**
** Rows whose stack or value is NULL, or whose value is not above 0, are
** skipped; value may be an integer or a real. title defaults to "Flame
** Graph". Memory is the distinct frames (one node per distinct stack
** prefix), capped at FG_MAX_NODES.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "vtab_util.h"

#define FG_MAX_NODES  (1u<<22)      /* distinct frames kept */
#define FG_MAX_NAMES  ((size_t)256<<20) /* bytes of their names */
#define FG_WIDTH      1200          /* image width, px */
#define FG_PAD        10            /* left and right margin */
#define FG_FRAME      16            /* frame height */
#define FG_FONT       12            /* font size */
#define FG_MINWIDTH   0.1           /* narrowest frame drawn, px */

typedef struct FgNode FgNode;
struct FgNode {
  int iParent;                    /* -1 for the root */
  uint32_t iName, nName;          /* its name in Fg.names */
  double v;                       /* value, callees included */
};

typedef struct Fg Fg;
struct Fg {
  FgNode *a; uint32_t n, nAlloc;  /* nodes; a[0] is the root "all" */
  uint32_t *aHash; uint32_t nHash;/* (parent, name) -> node index + 1 */
  TlStr names;                    /* the frame names, back to back */
  char *zTitle;                   /* sqlite3_malloc'd, or NULL */
  int bErr;                       /* out of memory or a cap met: reported once */
  const char *zErr;               /* its message */
};

static uint32_t fg_hash(int iParent, const char *z, size_t n){
  uint32_t h = 2166136261u ^ (uint32_t)iParent;
  size_t i;
  for(i=0; i<n; i++){ h ^= (uint8_t)z[i]; h *= 16777619u; }
  return h;
}

/* Double the hash table (or make it), rehashing every node but the root. */
static int fg_rehash(Fg *p){
  uint32_t nNew = p->nHash ? p->nHash*2 : 1024, i;
  uint32_t *aNew = sqlite3_malloc64((sqlite3_uint64)nNew * sizeof(uint32_t));
  if( aNew==0 ) return 1;
  memset(aNew, 0, (size_t)nNew * sizeof(uint32_t));
  for(i=1; i<p->n; i++){
    const FgNode *x = &p->a[i];
    uint32_t h = fg_hash(x->iParent, p->names.z + x->iName, x->nName) & (nNew-1);
    while( aNew[h] ) h = (h+1) & (nNew-1);
    aNew[h] = i+1;
  }
  sqlite3_free(p->aHash);
  p->aHash = aNew;
  p->nHash = nNew;
  return 0;
}

/* The child named z[0..n) of node iParent, made if new; -1 on error. */
static int fg_child(Fg *p, int iParent, const char *z, size_t n){
  uint32_t h;
  FgNode *x;
  if( (p->n+1)*2 > p->nHash && fg_rehash(p) ) return -1;
  h = fg_hash(iParent, z, n) & (p->nHash-1);
  while( p->aHash[h] ){
    x = &p->a[p->aHash[h]-1];
    if( x->iParent==iParent && x->nName==n && memcmp(p->names.z + x->iName, z, n)==0 ){
      return (int)(p->aHash[h]-1);
    }
    h = (h+1) & (p->nHash-1);
  }
  if( p->n>=FG_MAX_NODES || p->names.n + n + 1 > FG_MAX_NAMES ){
    p->zErr = "flamegraph: more distinct frames than it keeps (4194304 frames, 256 MiB of names)";
    return -1;
  }
  if( p->n==p->nAlloc ){
    uint32_t nNew = p->nAlloc ? p->nAlloc*2 : 256;
    FgNode *aNew = sqlite3_realloc64(p->a, (sqlite3_uint64)nNew * sizeof(FgNode));
    if( aNew==0 ) return -1;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  x = &p->a[p->n];
  x->iParent = iParent;
  x->iName = (uint32_t)p->names.n;
  x->nName = (uint32_t)n;
  x->v = 0;
  tl_str_append(&p->names, z, n);
  if( p->names.bErr ) return -1;
  p->aHash[h] = p->n+1;
  return (int)p->n++;
}

/* xStep: add value to every frame of stack. */
static void fgStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Fg *p = sqlite3_aggregate_context(ctx, sizeof(Fg));
  const char *z, *zEnd;
  double v;
  int i;
  if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( p->bErr ) return;
  if( p->n==0 ){
    tl_str_init(&p->names);
    if( fg_rehash(p) || fg_child(p, -1, "all", 3)!=0 ){ p->bErr = 1; return; }
  }
  if( argc>2 && p->zTitle==0 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    p->zTitle = sqlite3_mprintf("%s", (const char*)sqlite3_value_text(argv[2]));
  }
  if( sqlite3_value_type(argv[0])==SQLITE_NULL || sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
  v = sqlite3_value_double(argv[1]);
  if( !(v>0) ) return;
  z = (const char*)sqlite3_value_text(argv[0]);
  if( z==0 ){ p->bErr = 1; return; }
  zEnd = z + sqlite3_value_bytes(argv[0]);
  p->a[0].v += v;
  i = 0;
  while( z<zEnd ){
    const char *zSemi = memchr(z, ';', (size_t)(zEnd - z));
    size_t n = zSemi ? (size_t)(zSemi - z) : (size_t)(zEnd - z);
    if( n>0 ){                    /* (empty frames, as a trailing ';', are skipped) */
      i = fg_child(p, i, z, n);
      if( i<0 ){ p->bErr = 1; return; }
      p->a[i].v += v;
    }
    z += n + (zSemi ? 1 : 0);
  }
}

/* ---- the picture ---------------------------------------------------------- */

/* A node's children sorted by name: the sort key. */
typedef struct FgKid FgKid;
struct FgKid {
  const char *z; uint32_t n;      /* name */
  uint32_t i;                     /* node */
};

static int fg_kid_cmp(const void *a, const void *b){
  const FgKid *x = a, *y = b;
  int c = memcmp(x->z, y->z, x->n<y->n ? x->n : y->n);
  if( c ) return c;
  return x->n<y->n ? -1 : x->n>y->n;
}

/* z[0..n) with the XML specials escaped. */
static void fg_xml(sqlite3_str *s, const char *z, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    switch( z[i] ){
      case '<': sqlite3_str_appendall(s, "&lt;"); break;
      case '>': sqlite3_str_appendall(s, "&gt;"); break;
      case '&': sqlite3_str_appendall(s, "&amp;"); break;
      case '"': sqlite3_str_appendall(s, "&quot;"); break;
      default:
        if( (unsigned char)z[i]<0x20 ) sqlite3_str_appendchar(s, 1, ' ');
        else sqlite3_str_appendchar(s, 1, z[i]);
        break;
    }
  }
}

/* The frame's fill: flamegraph.pl's "hot" palette, from a hash of the name. */
static void fg_color(const char *z, size_t n, int *pr, int *pg, int *pb){
  uint32_t h = fg_hash(0, z, n);
  double a = (double)(h & 0xffff)/65535.0, b = (double)(h>>16)/65535.0;
  *pr = 205 + (int)(50*b);
  *pg = (int)(230*a);
  *pb = (int)(55*b);
}

/* The value as text: an integer when it is one. */
static void fg_value(sqlite3_str *s, double v){
  if( v<9e15 && v==(double)(int64_t)v ) sqlite3_str_appendf(s, "%lld", (long long)v);
  else sqlite3_str_appendf(s, "%.6g", v);
}

/* One frame: <g><title/><rect/><text/></g>; y of its top. */
static void fg_frame(sqlite3_str *s, const Fg *p, uint32_t i, double x, double w, int y){
  const FgNode *f = &p->a[i];
  const char *zName = p->names.z + f->iName;
  int r, g, b;
  size_t nFit = (size_t)(w / (FG_FONT*0.59));
  fg_color(zName, f->nName, &r, &g, &b);
  sqlite3_str_appendall(s, "<g><title>");
  fg_xml(s, zName, f->nName);
  sqlite3_str_appendall(s, " (");
  fg_value(s, f->v);
  sqlite3_str_appendf(s, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\""
      " fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
      100.0*f->v/p->a[0].v, x, y, w, FG_FRAME-1, r, g, b, x+3, y+10.5);
  if( nFit>=3 ){
    if( f->nName<=nFit ) fg_xml(s, zName, f->nName);
    else{ fg_xml(s, zName, nFit-2); sqlite3_str_appendall(s, ".."); }
  }
  sqlite3_str_appendall(s, "</text></g>\n");
}

/* The script: hover details, zoom, search. */
static const char fgScript[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var W=" "%d" ",PAD=" "%d" ",FONT=" "%d" ",details,matched,unzoomBtn,frames,cur=null;\n"
"function init(){details=document.getElementById('details').firstChild;\n"
" matched=document.getElementById('matched').firstChild;\n"
" unzoomBtn=document.getElementById('unzoom');\n"
" frames=Array.prototype.slice.call(document.querySelectorAll('#frames > g'));\n"
" frames.forEach(function(g){var r=g.querySelector('rect');\n"
"  g.dataset.x=r.getAttribute('x');g.dataset.w=r.getAttribute('width');\n"
"  g.dataset.name=g.querySelector('title').textContent.replace(/ \\([^(]*\\)$/,'');});}\n"
"function fit(g){var r=g.querySelector('rect'),t=g.querySelector('text'),\n"
" w=+r.getAttribute('width'),n=Math.floor(w/(FONT*0.59)),s=g.dataset.name;\n"
" t.setAttribute('x',+r.getAttribute('x')+3);\n"
" t.textContent=n<3?'':(s.length<=n?s:s.substring(0,n-2)+'..');}\n"
"function place(g,x,w){var r=g.querySelector('rect');r.setAttribute('x',x.toFixed(2));\n"
" r.setAttribute('width',w.toFixed(2));fit(g);}\n"
"function zoom(z){var x0=+z.dataset.x,w0=+z.dataset.w,y0=+z.querySelector('rect').getAttribute('y'),\n"
" k=(W-2*PAD)/w0;cur=z;unzoomBtn.classList.remove('hide');\n"
" frames.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,\n"
"  y=+g.querySelector('rect').getAttribute('y'),in_=x>=x0-1e-6&&x+w<=x0+w0+1e-6;\n"
"  g.classList.remove('hide');g.classList.remove('parent');\n"
"  if(y>y0&&x<=x0+1e-6&&x+w>=x0+w0-1e-6){g.classList.add('parent');place(g,PAD,W-2*PAD);}\n"
"  else if(y<=y0&&in_){place(g,PAD+(x-x0)*k,w*k);}\n"
"  else g.classList.add('hide');});}\n"
"function unzoom(){cur=null;unzoomBtn.classList.add('hide');\n"
" frames.forEach(function(g){g.classList.remove('hide');g.classList.remove('parent');\n"
"  place(g,+g.dataset.x,+g.dataset.w);});}\n"
"function search(){var t=prompt('Search for (regular expression):','');\n"
" if(t===null)return;var re;try{re=new RegExp(t);}catch(e){alert(e);return;}\n"
" var iv=[];frames.forEach(function(g){var r=g.querySelector('rect');\n"
"  if(!g.dataset.fill)g.dataset.fill=r.getAttribute('fill');\n"
"  if(t!==''&&re.test(g.dataset.name)){r.setAttribute('fill','rgb(230,0,230)');\n"
"   iv.push([+g.dataset.x,+g.dataset.x+(+g.dataset.w)]);}\n"
"  else r.setAttribute('fill',g.dataset.fill);});\n"
" iv.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-1;\n"
" iv.forEach(function(v){if(v[0]>=end){sum+=v[1]-v[0];end=v[1];}\n"
"  else if(v[1]>end){sum+=v[1]-end;end=v[1];}});\n"
" matched.nodeValue=t===''?' ':'Matched: '+(100*sum/(W-2*PAD)).toFixed(1)+'%%';}\n"
"function group(e){while(e&&e.parentNode&&e.parentNode.id!=='frames')e=e.parentNode;\n"
" return e&&e.parentNode?e:null;}\n"
"window.addEventListener('load',init);\n"
"window.addEventListener('click',function(e){var g=group(e.target);\n"
" if(g)zoom(g);else if(e.target.id==='unzoom')unzoom();\n"
" else if(e.target.id==='search')search();});\n"
"window.addEventListener('mouseover',function(e){var g=group(e.target);\n"
" if(g)details.nodeValue=g.querySelector('title').textContent;});\n"
"window.addEventListener('mouseout',function(){details.nodeValue=' ';});\n"
"]]></script>\n";

/* Draw every frame, depth first from the root, children in name order. */
static int fg_draw(sqlite3_str *s, const Fg *p, int yBase){
  double scale = (FG_WIDTH - 2*FG_PAD) / p->a[0].v;
  FgKid *aKid = sqlite3_malloc64((sqlite3_uint64)p->n * sizeof(FgKid));
  uint32_t *aStart = sqlite3_malloc64(((sqlite3_uint64)p->n + 1) * sizeof(uint32_t));
  double *aX = sqlite3_malloc64((sqlite3_uint64)p->n * sizeof(double));
  int *aDepth = sqlite3_malloc64((sqlite3_uint64)p->n * sizeof(int));
  uint32_t *aStack = sqlite3_malloc64((sqlite3_uint64)p->n * sizeof(uint32_t));
  uint32_t i, nStack = 0;
  int rc = 1;
  if( !aKid || !aStart || !aX || !aDepth || !aStack ) goto draw_done;
  /* children grouped by parent (a counting sort), each group by name */
  memset(aStart, 0, ((size_t)p->n + 1) * sizeof(uint32_t));
  for(i=1; i<p->n; i++) aStart[p->a[i].iParent + 1]++;
  for(i=1; i<=p->n; i++) aStart[i] += aStart[i-1];
  for(i=1; i<p->n; i++){
    uint32_t k = aStart[p->a[i].iParent]++;
    aKid[k].z = p->names.z + p->a[i].iName;
    aKid[k].n = p->a[i].nName;
    aKid[k].i = i;
  }
  for(i=p->n; i>0; i--) aStart[i] = aStart[i-1];
  aStart[0] = 0;
  for(i=0; i<p->n; i++){
    if( aStart[i+1]>aStart[i] ) qsort(aKid+aStart[i], aStart[i+1]-aStart[i], sizeof(FgKid), fg_kid_cmp);
  }
  /* depth first from the root; a frame too narrow hides its callees too */
  aX[0] = 0; aDepth[0] = 0;
  aStack[nStack++] = 0;
  while( nStack>0 ){
    uint32_t k, j = aStack[--nStack];
    double x = aX[j];
    if( p->a[j].v*scale < FG_MINWIDTH ) continue;
    fg_frame(s, p, j, FG_PAD + x*scale, p->a[j].v*scale, yBase - aDepth[j]*FG_FRAME);
    /* push in reverse so that the first by name is drawn first */
    for(k=aStart[j]; k<aStart[j+1]; k++){
      uint32_t c = aKid[k].i;
      aX[c] = x;
      x += p->a[c].v;
      aDepth[c] = aDepth[j] + 1;
    }
    for(k=aStart[j+1]; k>aStart[j]; k--) aStack[nStack++] = aKid[k-1].i;
  }
  rc = 0;
draw_done:
  sqlite3_free(aKid); sqlite3_free(aStart); sqlite3_free(aX);
  sqlite3_free(aDepth); sqlite3_free(aStack);
  return rc;
}

/* The deepest frame's depth (the root is 0). */
static int fg_depth(const Fg *p){
  int *a = sqlite3_malloc64((sqlite3_uint64)p->n * sizeof(int));
  int nMax = 0;
  uint32_t i;
  if( a==0 ) return -1;
  a[0] = 0;
  for(i=1; i<p->n; i++){            /* a parent is always made before its children */
    a[i] = a[p->a[i].iParent] + 1;
    if( a[i]>nMax ) nMax = a[i];
  }
  sqlite3_free(a);
  return nMax;
}

/* xFinal: the SVG (NULL for no rows with a stack). */
static void fgFinal(sqlite3_context *ctx){
  Fg *p = sqlite3_aggregate_context(ctx, 0);
  sqlite3_str *s;
  int nDepth, nHeight, yBase;
  if( p==0 ){ sqlite3_result_null(ctx); return; }
  if( p->bErr ){
    if( p->zErr ) sqlite3_result_error(ctx, p->zErr, -1);
    else sqlite3_result_error_nomem(ctx);
    goto final_done;
  }
  if( p->n==0 || !(p->a[0].v>0) ){ sqlite3_result_null(ctx); goto final_done; }
  nDepth = fg_depth(p);
  if( nDepth<0 ){ sqlite3_result_error_nomem(ctx); goto final_done; }
  nHeight = (nDepth+1)*FG_FRAME + FG_FONT*3 + FG_FONT*2 + 10;
  yBase = FG_FONT*3 + nDepth*FG_FRAME;
  s = sqlite3_str_new(0);
  sqlite3_str_appendf(s,
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
      " xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<style type=\"text/css\">text{font-family:Verdana,sans-serif;font-size:%dpx;fill:rgb(0,0,0)}"
      " #frames text{pointer-events:none} #frames g:hover rect{stroke:black;stroke-width:0.5}"
      " .hide{display:none} .parent{opacity:0.5} #title{font-size:17px}"
      " #unzoom,#search{cursor:pointer}</style>\n",
      FG_WIDTH, nHeight, FG_WIDTH, nHeight, FG_FONT);
  sqlite3_str_appendf(s, fgScript, FG_WIDTH, FG_PAD, FG_FONT);
  sqlite3_str_appendf(s, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(250,250,238)\"/>\n"
      "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", FG_WIDTH, nHeight, FG_WIDTH/2);
  if( p->zTitle ) fg_xml(s, p->zTitle, strlen(p->zTitle));
  else sqlite3_str_appendall(s, "Flame Graph");
  sqlite3_str_appendf(s, "</text>\n"
      "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
      "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
      "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n"
      "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n<g id=\"frames\">\n",
      FG_PAD, FG_WIDTH - FG_PAD - 100, FG_WIDTH - FG_PAD - 100, nHeight - 17,
      FG_PAD, nHeight - 17);
  if( fg_draw(s, p, yBase) ){
    sqlite3_free(sqlite3_str_finish(s));
    sqlite3_result_error_nomem(ctx);
    goto final_done;
  }
  sqlite3_str_appendall(s, "</g>\n</svg>\n");
  if( sqlite3_str_errcode(s) ){
    sqlite3_free(sqlite3_str_finish(s));
    sqlite3_result_error_nomem(ctx);
    goto final_done;
  }
  sqlite3_result_text(ctx, sqlite3_str_finish(s), -1, sqlite3_free);
final_done:
  sqlite3_free(p->a);
  sqlite3_free(p->aHash);
  tl_str_free(&p->names);
  sqlite3_free(p->zTitle);
}

int flamegraph_register(sqlite3 *db){
  int rc = sqlite3_create_function(db, "flamegraph", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                   0, 0, fgStep, fgFinal);
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function(db, "flamegraph", 3, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 0, 0, fgStep, fgFinal);
  }
  return rc;
}
