/*
** test_ctf_parse.c: the TSDL parser (TSDL text to the trace model).
** Expected values follow from the CTF 1.8 specification's rules.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "ctf/ctf_stream.h"
#include "ctf/tsdl_parse.h"

static const char zMeta[] =
  "/* CTF 1.8 */\r\n"
  "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\r\n"
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
  "typealias integer { size = 5; signed = true; byte_order = be; base = x; aa = bb; } := s5;\n"
  "trace {\n major = 1; minor = 8; byte_order = be; test3 = +1234;\n"
  " uuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
  " packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; };\n"
  "};\n"
  "env { hostname = \"box\"; tracer_major = +2; neg = -3; };\n"
  "clock { name = monotonic; freq = 1000000; offset_s = 1700000000; offset = 250;\n"
  "  absolute = TRUE; description = \"mono\"; };\n"
  "typealias integer { size = 27; align = 1; map = clock.monotonic.value; } := ts27;\n"
  "struct ev_hdr { uint8_t id; ts27 timestamp; } align(8);\n"
  "stream { id = 3;\n"
  " event.header := struct ev_hdr;\n"
  " packet.context := struct { uint32_t content_size, packet_size; uint8_t cpu_id; };\n"
  " unknown_scope := struct { uint8_t x; };\n"
  "};\n"
  "callsite { name = \"x\"; func = \"f\"; ip = 0x1; file = \"a.c\"; line = 3; };\n"
  "event { name = \"my:ev\"; id = 7; stream_id = 3; loglevel = 13;\n"
  " fields := struct {\n"
  "   enum : uint8_t { A, B = 5, \"C D\" = 10 ... 20, E } e;\n"
  "   floating_point { exp_dig = 8; mant_dig = 24; byte_order = native; } f;\n"
  "   string s; s5 bits[4];\n"
  " };\n"
  "};\n";

static void parse_full_metadata(void **state){
  TlCtfModel m;
  TlErr e;
  const TlCtfField *f, *h;
  const TlCtfStreamClass *s;
  const TlCtfEventClass *ev;
  (void)state;
  tl_err_clear(&e);
  if( tl_tsdl_parse(zMeta, strlen(zMeta), &m, &e)!=TL_OK ) fail_msg("%s", e.zMsg);
  assert_int_equal(m.major, 1);
  assert_int_equal(m.minor, 8);
  assert_int_equal(m.bo, TL_BE);
  /* packet.header */
  h = m.pPktHeader;
  assert_non_null(h);
  assert_int_equal(h->eKind, TL_CTF_STRUCT);
  assert_int_equal(h->nMember, 3);
  assert_string_equal(h->aMember[1].zName, "uuid");
  assert_int_equal(h->aMember[1].pType->eKind, TL_CTF_ARRAY);
  assert_true(h->aMember[1].pType->nLen==16);
  assert_int_equal(h->aMember[1].pType->pElem->nBits, 8);
  /* Aliases declared before the trace block default to its byte order. */
  assert_int_equal(h->aMember[0].pType->nBits, 32);
  assert_int_equal(h->aMember[0].pType->bo, TL_BE);
  assert_int_equal(h->aMember[0].pType->nAlign, 8);
  /* env */
  assert_int_equal(m.nEnv, 3);
  assert_string_equal(m.azEnvKey[0], "hostname");
  assert_string_equal(m.azEnvVal[0], "box");
  assert_string_equal(m.azEnvVal[1], "2");
  assert_string_equal(m.azEnvVal[2], "-3");
  /* clock */
  assert_int_equal(m.nClock, 1);
  assert_string_equal(m.aClock[0].zName, "monotonic");
  assert_true(m.aClock[0].freq==1000000);
  assert_true(m.aClock[0].offsetS==1700000000);
  assert_true(m.aClock[0].offset==250);
  assert_int_equal(m.aClock[0].bAbsolute, 1);
  /* stream */
  assert_int_equal(m.nStream, 1);
  s = &m.aStream[0];
  assert_true(s->id==3);
  assert_int_equal(s->pEvHeader->nAlign, 8);
  f = s->pEvHeader->aMember[1].pType;
  assert_int_equal(f->nBits, 27);
  assert_int_equal(f->nAlign, 1);
  assert_int_equal(f->iClock, 0);
  assert_int_equal(s->pPktContext->nMember, 3);
  assert_string_equal(s->pPktContext->aMember[1].zName, "packet_size");
  assert_true(s->pEvContext==0);
  /* event */
  assert_int_equal(s->nEvent, 1);
  ev = &s->aEvent[0];
  assert_true(ev->id==7);
  assert_string_equal(ev->zName, "my:ev");
  assert_true(ev->logLevel==13);
  f = ev->pPayload;
  assert_int_equal(f->nMember, 4);
  /* enum: unnamed entries follow the previous range's end. */
  h = f->aMember[0].pType;
  assert_int_equal(h->eKind, TL_CTF_ENUM);
  assert_int_equal(h->nRange, 4);
  assert_string_equal(h->aRange[0].zLabel, "A");
  assert_true(h->aRange[0].lo==0 && h->aRange[0].hi==0);
  assert_true(h->aRange[1].lo==5 && h->aRange[1].hi==5);
  assert_string_equal(h->aRange[2].zLabel, "C D");
  assert_true(h->aRange[2].lo==10 && h->aRange[2].hi==20);
  assert_true(h->aRange[3].lo==21 && h->aRange[3].hi==21);
  /* float: native = the trace's byte order (be). */
  h = f->aMember[1].pType;
  assert_int_equal(h->eKind, TL_CTF_FLOAT);
  assert_int_equal(h->nBits, 32);
  assert_int_equal(h->bo, TL_BE);
  assert_int_equal(f->aMember[2].pType->eKind, TL_CTF_STRING);
  /* s5 bits[4]: array of 4 five-bit signed integers. */
  h = f->aMember[3].pType;
  assert_int_equal(h->eKind, TL_CTF_ARRAY);
  assert_true(h->nLen==4);
  h = h->pElem;
  assert_int_equal(h->nBits, 5);
  assert_int_equal(h->bSigned, 1);
  assert_int_equal(h->bo, TL_BE);
  assert_int_equal(h->nBase, 16);
  assert_int_equal(h->nAlign, 1);
  tl_ctf_model_free(&m);
}

/* LTTng-style headers: a variant on an enum id, and sequences. */
static const char zVar[] =
  "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
  "typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n"
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
  "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
  "trace { major = 1; minor = 8; byte_order = le; };\n"
  "struct event_header_compact {\n"
  "  enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
  "  variant <id> {\n"
  "    struct { uint27_t timestamp; } compact;\n"
  "    struct { uint32_t id; uint64_t timestamp; } extended;\n"
  "  } v;\n"
  "} align(8);\n"
  "stream { packet.context := struct { uint32_t cnt; uint32_t other; };\n"
  "  event.header := struct event_header_compact; };\n"
  "event { name = e; fields := struct {\n"
  "  uint32_t n; struct { uint32_t m; string s[m]; } in; uint64_t a[n];\n"
  "  uint64_t b[event.fields.in.m]; uint32_t c[stream.packet.context.other];\n"
  "}; };\n";

static void parse_variants_and_sequences(void **state){
  TlCtfModel m;
  TlErr e;
  const TlCtfField *h, *v, *f, *q;
  (void)state;
  tl_err_clear(&e);
  if( tl_tsdl_parse(zVar, strlen(zVar), &m, &e)!=TL_OK ) fail_msg("%s", e.zMsg);
  h = m.aStream[0].pEvHeader;
  assert_int_equal(h->nAlign, 8);
  v = h->aMember[1].pType;
  assert_int_equal(v->eKind, TL_CTF_VARIANT);
  assert_int_equal(v->nMember, 2);
  assert_string_equal(v->aMember[1].zName, "extended");
  /* The tag is member 0 of the event header scope. */
  assert_int_equal(v->ref.iScope, TL_CTF_SCOPE_EV_HEADER);
  assert_int_equal(v->ref.nPath, 1);
  assert_int_equal(v->ref.aPath[0], 0);
  f = m.aStream[0].aEvent[0].pPayload;
  /* in.s[m]: m is member 0 of member 1 ("in") of the payload. */
  q = f->aMember[1].pType->aMember[1].pType;
  assert_int_equal(q->eKind, TL_CTF_SEQUENCE);
  assert_int_equal(q->pElem->eKind, TL_CTF_STRING);
  assert_int_equal(q->ref.iScope, TL_CTF_SCOPE_EV_PAYLOAD);
  assert_int_equal(q->ref.nPath, 2);
  assert_int_equal(q->ref.aPath[0], 1);
  assert_int_equal(q->ref.aPath[1], 0);
  /* a[n]: n is member 0 of the payload. */
  q = f->aMember[2].pType;
  assert_int_equal(q->eKind, TL_CTF_SEQUENCE);
  assert_int_equal(q->ref.nPath, 1);
  assert_int_equal(q->ref.aPath[0], 0);
  /* b[event.fields.in.m]: absolute, same target as in.s[m]. */
  q = f->aMember[3].pType;
  assert_int_equal(q->ref.nPath, 2);
  assert_int_equal(q->ref.aPath[0], 1);
  assert_int_equal(q->ref.aPath[1], 0);
  /* c[stream.packet.context.other]: member 1 of the packet context. */
  q = f->aMember[4].pType;
  assert_int_equal(q->eKind, TL_CTF_SEQUENCE);
  assert_int_equal(q->ref.iScope, TL_CTF_SCOPE_PKT_CONTEXT);
  assert_int_equal(q->ref.nPath, 1);
  assert_int_equal(q->ref.aPath[0], 1);
  tl_ctf_model_free(&m);
}

static void parse_multiword_alias_names(void **state){
  static const char z[] =
    "typealias integer { size = 64; signed = false; } := unsigned long;\n"
    "typealias integer { size = 16; signed = true; } := short;\n"
    "event { fields := struct { unsigned long a; short b; unsigned long c[2]; }; };\n";
  TlCtfModel m;
  TlErr e;
  const TlCtfField *f;
  (void)state;
  tl_err_clear(&e);
  if( tl_tsdl_parse(z, strlen(z), &m, &e)!=TL_OK ) fail_msg("%s", e.zMsg);
  f = m.aStream[0].aEvent[0].pPayload;
  assert_int_equal(f->nMember, 3);
  assert_string_equal(f->aMember[0].zName, "a");
  assert_int_equal(f->aMember[0].pType->nBits, 64);
  assert_string_equal(f->aMember[1].zName, "b");
  assert_int_equal(f->aMember[1].pType->bSigned, 1);
  assert_string_equal(f->aMember[2].zName, "c");
  assert_int_equal(f->aMember[2].pType->pElem->nBits, 64);
  tl_ctf_model_free(&m);
}

static void parse_errors(void **state){
  static const struct { const char *z; int rc; const char *zMsg; } a[] = {
    { "trace { major = 1; ", TL_ECORRUPT, "expected an attribute name" },
    { "typealias integer { size = 65; } := x;", TL_ECORRUPT, "size must be 1..64" },
    { "typealias integer { size = 8; map = clock.nope.value; } := x;", TL_ECORRUPT, "undefined clock 'nope'" },
    { "event { fields := struct { foo x; }; };", TL_ECORRUPT, "unknown type 'foo'" },
    { "clock { freq = 0; name = c; };", TL_ECORRUPT, "freq is 0" },
    { "bogus;", TL_ECORRUPT, "top-level block" },
    { "stream { event.header := struct nope; };", TL_ECORRUPT, "undeclared struct 'nope'" },
    { "event { fields := struct { string a; }; }; event { fields := struct { string b; }; };",
      TL_ECORRUPT, "defined twice" },
    { "event { fields := string; };", TL_ECORRUPT, "must be a struct" },
    { "event { fields := struct { variant <t> { string a; } v; }; };", TL_ECORRUPT, "names no earlier field" },
    { "event { fields := struct { string t; variant <t> { string a; } v; }; };", TL_ECORRUPT, "must be an enum" },
    { "event { fields := struct { string t; string a[t]; }; };", TL_ECORRUPT, "must be an integer" },
    { "event { fields := struct { string a[stream.packet.context.n]; }; };", TL_ECORRUPT, "names no earlier field" },
  };
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    TlCtfModel m;
    TlErr e;
    tl_err_clear(&e);
    assert_int_equal(tl_tsdl_parse(a[k].z, strlen(a[k].z), &m, &e), a[k].rc);
    if( strstr(e.zMsg, a[k].zMsg)==0 ) fail_msg("case %d: %s", (int)k, e.zMsg);
    assert_int_equal(m.nStream, 0);
  }
}

/*
** References that would point at themselves: a sequence whose length is
** the sequence, a variant tagged by itself, a typedef or struct naming
** itself. Each is refused when met (TSDL names must be defined before
** use), so no cycle reaches the decoder. An alias chain that redefines a
** name resolves once, when written, and ends at the integer.
*/
static void parse_self_references_are_rejected(void **state){
  static const struct { const char *z; const char *zMsg; } a[] = {
    { "event { fields := struct { integer { size = 8; } a[a]; }; };", "names no earlier field" },
    { "event { fields := struct { variant <v> { string x; } v; }; };", "names no earlier field" },
    { "typedef b a; event { fields := struct { a f; }; };", "unknown type 'b'" },
    { "struct s { struct s x; }; event { fields := struct s; };", "undeclared struct 's'" },
  };
  static const char zChain[] =
    "typealias integer { size = 8; } := a; typealias a := b; typealias b := a;\n"
    "event { fields := struct { a f; b g; }; };\n";
  TlCtfModel m;
  TlErr e;
  const TlCtfField *f;
  size_t k;
  (void)state;
  for(k=0; k<sizeof(a)/sizeof(a[0]); k++){
    tl_err_clear(&e);
    assert_int_equal(tl_tsdl_parse(a[k].z, strlen(a[k].z), &m, &e), TL_ECORRUPT);
    if( strstr(e.zMsg, a[k].zMsg)==0 ) fail_msg("case %d: %s", (int)k, e.zMsg);
  }
  tl_err_clear(&e);
  if( tl_tsdl_parse(zChain, strlen(zChain), &m, &e)!=TL_OK ) fail_msg("%s", e.zMsg);
  f = m.aStream[0].aEvent[0].pPayload;
  assert_int_equal(f->nMember, 2);
  assert_int_equal(f->aMember[0].pType->eKind, TL_CTF_INT);
  assert_int_equal(f->aMember[0].pType->nBits, 8);
  assert_int_equal(f->aMember[1].pType->eKind, TL_CTF_INT);
  assert_int_equal(f->aMember[1].pType->nBits, 8);
  tl_ctf_model_free(&m);
}

static void parse_deep_nesting_is_an_error(void **state){
  TlCtfModel m;
  TlErr e;
  size_t i, n = 0;
  int nDeep = 100000;
  char *z = malloc((size_t)nDeep*12 + 64);
  (void)state;
  assert_non_null(z);
  n += (size_t)sprintf(z+n, "event { fields := ");
  for(i=0; i<(size_t)nDeep; i++) n += (size_t)sprintf(z+n, "struct { ");
  z[n] = 0;
  tl_err_clear(&e);
  assert_int_equal(tl_tsdl_parse(z, n, &m, &e), TL_ECORRUPT);
  assert_non_null(strstr(e.zMsg, "nested deeper"));
  free(z);
}

/*
** Every prefix of the metadata, and the metadata with each byte replaced,
** either parses or fails with a message; run under ASan this checks that
** no input reads out of bounds or leaks.
*/
static void parse_prefixes_and_mutations_fail_cleanly(void **state){
  static const char *const azSrc[] = { zMeta, zVar };
  static const char aRepl[] = { '{', '}', ';', '[', '<', '0', 'x', ' ' };
  size_t k, i, r;
  (void)state;
  for(k=0; k<2; k++){
    size_t n = strlen(azSrc[k]);
    char *z = malloc(n+1);
    assert_non_null(z);
    for(i=0; i<=n; i++){
      TlCtfModel m;
      TlErr e;
      int rc;
      tl_err_clear(&e);
      rc = tl_tsdl_parse(azSrc[k], i, &m, &e);
      if( rc==TL_OK ) tl_ctf_model_free(&m);
      else assert_true(rc<0 && e.zMsg[0]!=0);
    }
    for(i=0; i<n; i++){
      for(r=0; r<sizeof(aRepl); r++){
        TlCtfModel m;
        TlErr e;
        int rc;
        memcpy(z, azSrc[k], n+1);
        z[i] = aRepl[r];
        tl_err_clear(&e);
        rc = tl_tsdl_parse(z, n, &m, &e);
        if( rc==TL_OK ) tl_ctf_model_free(&m);
        else assert_true(rc<0 && e.zMsg[0]!=0);
      }
    }
    free(z);
  }
}

/*
** typedef (with an array declarator), named enums declared then used,
** an enum without a container (an int, CTF 1.8 section 4.1.8), and C's
** order of array dimensions: a[2][3] is 2 arrays of 3. babeltrace2 2.0.4
** prints a[2][3] over the bytes 1..6 as
**   a = [ [0] = [ [0] = 1, [1] = 2, [2] = 3 ], [1] = [ [0] = 4, ... ] ]
*/
static void parse_typedef_named_enum_dimensions(void **state){
  static const char zText[] =
    "/* CTF 1.8 */\n"
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "typedef integer { size = 16; align = 8; } u16;\n"
    "typedef u16 pair[2];\n"
    "enum color : u16 { RED, GREEN = 4 };\n"
    "event { name = e; fields := struct {\n"
    "  pair p; enum color c; enum { X, Y } plain; u16 a[2][3];\n"
    "}; };\n";
  TlCtfModel m;
  TlErr e;
  const TlCtfField *f, *x;
  (void)state;
  tl_err_clear(&e);
  if( tl_tsdl_parse(zText, strlen(zText), &m, &e)!=TL_OK ) fail_msg("%s", e.zMsg);
  assert_int_equal(m.nStream, 1);
  f = m.aStream[0].aEvent[0].pPayload;
  assert_int_equal(f->nMember, 4);
  x = f->aMember[0].pType;                     /* pair: 2 x u16 */
  assert_int_equal(x->eKind, TL_CTF_ARRAY);
  assert_true(x->nLen==2);
  assert_int_equal(x->pElem->nBits, 16);
  x = f->aMember[1].pType;                     /* enum color */
  assert_int_equal(x->eKind, TL_CTF_ENUM);
  assert_int_equal(x->nBits, 16);
  assert_int_equal(x->nRange, 2);
  assert_string_equal(x->aRange[1].zLabel, "GREEN");
  assert_true(x->aRange[1].lo==4);
  x = f->aMember[2].pType;                     /* container: int */
  assert_int_equal(x->eKind, TL_CTF_ENUM);
  assert_int_equal(x->nBits, 32);
  assert_int_equal(x->bSigned, 1);
  x = f->aMember[3].pType;                     /* 2 arrays of 3 */
  assert_int_equal(x->eKind, TL_CTF_ARRAY);
  assert_true(x->nLen==2);
  assert_int_equal(x->pElem->eKind, TL_CTF_ARRAY);
  assert_true(x->pElem->nLen==3);
  tl_ctf_model_free(&m);
  /* using an enum never declared is an error naming it */
  tl_err_clear(&e);
  {
    static const char zBad[] = "/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };"
                               " event { name = e; fields := struct { enum nope x; }; };";
    assert_int_not_equal(tl_tsdl_parse(zBad, strlen(zBad), &m, &e), TL_OK);
  }
  assert_non_null(strstr(e.zMsg, "undeclared enum 'nope'"));
}

/*
** Skip and header plans on an LTTng-style compact header (a 5-bit id
** selecting a 27-bit timestamp, or 31 = extended: a 32-bit id and a 64-bit
** timestamp, byte-aligned): the id, the clock and the cursor after each
** event equal what the full decoder gives; a class with a sequence does
** not compile; a cut event fails with the cursor unchanged.
*/
static const char zPlanMeta[] =
  "clock { name = c; freq = 1000000000; };\n"
  "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
  "typealias integer { size = 27; align = 1; signed = false; map = clock.c.value; } := u27c;\n"
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
  "typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := u64c;\n"
  "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
  "typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
  "trace { major = 1; minor = 8; byte_order = le; };\n"
  "stream { event.header := struct {\n"
  "  enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
  "  variant <id> { struct { u27c timestamp; } compact;\n"
  "                 struct { uint32_t id; u64c timestamp; } extended; } v; } align(8); };\n"
  "event { name = a; id = 1; fields := struct { int16_t x; string s; uint8_t t[3]; }; };\n"
  "event { name = b; id = 40; fields := struct { uint8_t n; uint8_t q[n]; }; };\n";

static void plans_equal_full_decode(void **state){
  static const uint8_t aEv[] = {
    /* a: compact, id 1, ts 100; x = -2, s = "hi", t = 7 8 9 */
    0x81, 0x0C, 0x00, 0x00,  0xFE, 0xFF,  'h', 'i', 0,  7, 8, 9,
    /* b: extended, id 40, ts 5000; n = 2, q = 1 2 */
    0x1F,  0x28, 0, 0, 0,  0x88, 0x13, 0, 0, 0, 0, 0, 0,  2, 1, 2,
  };
  TlCtfModel m;
  TlErr e;
  TlCtfField *h;
  TlCtfHdrPlan hp;
  TlCtfSkip sk[2];
  TlCtfDec d;
  const TlCtfField *a[3];
  uint64_t id = 0, clock = 0, iEnd;
  int bId = 0, bClock = 0, j;
  (void)state;
  tl_err_clear(&e);
  if( tl_tsdl_parse(zPlanMeta, strlen(zPlanMeta), &m, &e)!=TL_OK ) fail_msg("%s", e.zMsg);
  assert_int_equal(m.nStream, 1);
  assert_int_equal(m.aStream[0].nEvent, 2);
  /* the roles the CTF reader gives these header fields */
  h = m.aStream[0].pEvHeader;
  h->aMember[0].pType->eRole = TL_CTF_ROLE_ID;
  h->aMember[1].pType->aMember[0].pType->aMember[0].pType->eRole = TL_CTF_ROLE_CLOCK;
  h->aMember[1].pType->aMember[1].pType->aMember[0].pType->eRole = TL_CTF_ROLE_ID;
  h->aMember[1].pType->aMember[1].pType->aMember[1].pType->eRole = TL_CTF_ROLE_CLOCK;
  assert_int_equal(tl_ctf_hdr_compile(&hp, h), TL_OK);
  assert_true(hp.bOk);
  for(j=0; j<2; j++){
    a[0] = m.aStream[0].pEvContext;
    a[1] = m.aStream[0].aEvent[j].pContext;
    a[2] = m.aStream[0].aEvent[j].pPayload;
    assert_int_equal(tl_ctf_skip_compile(&sk[j], a, 3), TL_OK);
  }
  assert_true(sk[0].bOk);
  assert_false(sk[1].bOk);               /* a sequence: the full decoder reads it */

  /* event a through the plans, then through the full decoder */
  tl_ctf_dec_init(&d);
  tl_ctf_bits_init(&d.bits, aEv, sizeof(aEv), sizeof(aEv)*8);
  assert_int_equal(tl_ctf_hdr_run(&hp, &d, &id, &bId, &clock, &bClock), 0);
  assert_true(bId && id==1 && bClock && clock==100);
  assert_true(d.bits.iBit==32);
  assert_int_equal(tl_ctf_skip_run(&sk[0], &d), 0);
  iEnd = d.bits.iBit;
  assert_true(iEnd==12*8);
  d.bits.iBit = 0;
  assert_int_equal(tl_ctf_dec_scope(&d, TL_CTF_SCOPE_EV_HEADER, h, &e), TL_OK);
  assert_int_equal(tl_ctf_dec_scope(&d, TL_CTF_SCOPE_EV_PAYLOAD, a[2] = m.aStream[0].aEvent[0].pPayload, &e), TL_OK);
  assert_true(d.bits.iBit==iEnd);
  /* event b: the header plan, then the full decoder for the payload */
  tl_ctf_dec_truncate(&d, 0);
  bId = 0;
  assert_int_equal(tl_ctf_hdr_run(&hp, &d, &id, &bId, &clock, &bClock), 0);
  assert_true(bId && id==40 && clock==5000);
  assert_true(d.bits.iBit==iEnd + 13*8);
  assert_int_equal(tl_ctf_dec_scope(&d, TL_CTF_SCOPE_EV_PAYLOAD, m.aStream[0].aEvent[1].pPayload, &e), TL_OK);
  assert_true(d.bits.iBit==sizeof(aEv)*8);
  /* cut inside event b's timestamp, then inside event a's string */
  tl_ctf_bits_init(&d.bits, aEv, sizeof(aEv), (12 + 8)*8);
  d.bits.iBit = iEnd;
  assert_int_equal(tl_ctf_hdr_run(&hp, &d, &id, &bId, &clock, &bClock), -1);
  assert_true(d.bits.iBit==iEnd && clock==5000);
  tl_ctf_bits_init(&d.bits, aEv, sizeof(aEv), 8*8);
  d.bits.iBit = 32;
  assert_int_equal(tl_ctf_skip_run(&sk[0], &d), -1);
  assert_true(d.bits.iBit==32);
  tl_ctf_dec_free(&d);
  tl_ctf_skip_free(&sk[0]);
  tl_ctf_skip_free(&sk[1]);
  tl_ctf_hdr_free(&hp);
  tl_ctf_model_free(&m);
}

TL_DEFINE_GROUP(ctf_parse,
  cmocka_unit_test(plans_equal_full_decode),
  cmocka_unit_test(parse_typedef_named_enum_dimensions),
  cmocka_unit_test(parse_full_metadata),
  cmocka_unit_test(parse_variants_and_sequences),
  cmocka_unit_test(parse_multiword_alias_names),
  cmocka_unit_test(parse_errors),
  cmocka_unit_test(parse_deep_nesting_is_an_error),
  cmocka_unit_test(parse_self_references_are_rejected),
  cmocka_unit_test(parse_prefixes_and_mutations_fail_cleanly),
);
