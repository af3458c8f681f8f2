/*
** ctf_rows.c: the rows of the event_types table (event classes with their
** field schema as JSON) and of the tracks table (stream files).
*/
#include <stdint.h>

#include "ctf/ctf_int.h"

/* JSON of a field class (event_types.args "fields"), depth-bounded. */
static void ctf_schema_json(TlStr *s, const TlCtfField *f, int nDepth){
  static const char *const azKind[] = {
    0, "integer", "enum", "float", "string", "struct", "variant", "array", "sequence"
  };
  int i;
  if( f==0 ){ tl_json_null(s); return; }
  if( nDepth > 80 ){ tl_json_strz(s, "..."); return; }
  tl_json_obj_begin(s);
  tl_json_key(s, "type");
  tl_json_strz(s, f->eKind>=1 && f->eKind<=8 ? azKind[f->eKind] : "?");
  switch( f->eKind ){
    case TL_CTF_INT: case TL_CTF_ENUM: case TL_CTF_FLOAT:
      tl_json_key(s, "size"); tl_json_int(s, f->nBits);
      tl_json_key(s, "align"); tl_json_int(s, f->nAlign);
      if( f->eKind!=TL_CTF_FLOAT ){
        tl_json_key(s, "signed"); tl_json_bool(s, f->bSigned);
        tl_json_key(s, "base"); tl_json_int(s, f->nBase);
      }
      tl_json_key(s, "byte_order"); tl_json_strz(s, f->bo==TL_BE ? "be" : "le");
      if( f->eKind==TL_CTF_ENUM ){
        tl_json_key(s, "mappings");
        tl_json_arr_begin(s);
        for(i=0; i<f->nRange; i++){
          tl_json_arr_begin(s);
          tl_json_strz(s, f->aRange[i].zLabel);
          if( f->bSigned ){
            tl_json_int(s, (int64_t)f->aRange[i].lo); tl_json_int(s, (int64_t)f->aRange[i].hi);
          }else{
            tl_json_uint(s, f->aRange[i].lo); tl_json_uint(s, f->aRange[i].hi);
          }
          tl_json_arr_end(s);
        }
        tl_json_arr_end(s);
      }
      break;
    case TL_CTF_STRUCT: case TL_CTF_VARIANT:
      tl_json_key(s, f->eKind==TL_CTF_STRUCT ? "members" : "options");
      tl_json_arr_begin(s);
      for(i=0; i<f->nMember; i++){
        tl_json_arr_begin(s);
        tl_json_strz(s, f->aMember[i].zName);
        ctf_schema_json(s, f->aMember[i].pType, nDepth+1);
        tl_json_arr_end(s);
      }
      tl_json_arr_end(s);
      break;
    case TL_CTF_ARRAY: case TL_CTF_SEQUENCE:
      if( f->eKind==TL_CTF_ARRAY ){ tl_json_key(s, "length"); tl_json_uint(s, f->nLen); }
      if( f->bText ){ tl_json_key(s, "text"); tl_json_bool(s, 1); }
      tl_json_key(s, "element");
      ctf_schema_json(s, f->pElem, nDepth+1);
      break;
    default:
      break;
  }
  tl_json_obj_end(s);
}

/* event_types: one row per event class of each stream class of each trace. */
int tl_ctf_event_types_next(CtfScan *pScan, TlRow *pRow){
  CtfData *p = pScan->p;
  TlVal *a = pScan->aCol;
  /* iNext: trace; iNext2: running index over (stream class, event class). */
  while( pScan->iNext < p->nTr ){
    const CtfTr *pTr = &p->aTr[pScan->iNext];
    int i, k = pScan->iNext2;
    for(i=0; i<pTr->m.nStream; i++){
      const TlCtfStreamClass *sc = &pTr->m.aStream[i];
      if( k < sc->nEvent ){
        const TlCtfEventClass *ec = &sc->aEvent[k];
        int j;
        for(j=0; j<TL_ET_NCOL; j++) tl_val_null(&a[j]);
        tl_val_int(&a[TL_ET_ID], (int64_t)ec->id);
        tl_val_textz(&a[TL_ET_NAME], ec->zName);
        tl_val_int(&a[TL_ET_STREAM], (int64_t)sc->id);
        tl_val_textz(&a[TL_ET_KIND], "event");
        if( tl_col_used(&pScan->f, TL_ET_ARGS) ){
          TlStr *s = &pScan->sArgs;
          tl_str_reset(s);
          tl_json_obj_begin(s);
          tl_json_key(s, "trace"); tl_json_strz(s, pTr->zRel);
          if( ec->logLevel!=INT64_MIN ){ tl_json_key(s, "loglevel"); tl_json_int(s, ec->logLevel); }
          if( ec->zEmfUri ){ tl_json_key(s, "emf_uri"); tl_json_strz(s, ec->zEmfUri); }
          if( ec->zUserAttrs ){ tl_json_key(s, "user_attributes"); tl_str_appendz(s, ec->zUserAttrs); }
          tl_json_key(s, "context"); ctf_schema_json(s, ec->pContext, 0);
          tl_json_key(s, "fields"); ctf_schema_json(s, ec->pPayload, 0);
          tl_json_obj_end(s);
          tl_val_str(&a[TL_ET_ARGS], s);
        }
        pRow->iRowid = ((int64_t)pScan->iNext << 32) + pScan->iNext2;
        pRow->a = a;
        pScan->iNext2++;
        return TL_ROW;
      }
      k -= sc->nEvent;
    }
    pScan->iNext++;
    pScan->iNext2 = 0;
  }
  return TL_DONE;
}

/* tracks: one row per stream file. */
int tl_ctf_tracks_next(CtfScan *pScan, TlRow *pRow){
  CtfData *p = pScan->p;
  TlTrace *t = pScan->pTrace;
  TlVal *a = pScan->aCol;
  const CtfStm *s;
  int j;
  size_t k;
  int64_t tsFirst = TL_TS_MAX, tsLast = TL_TS_MIN;
  if( pScan->iNext >= p->nStm ) return TL_DONE;
  s = &p->aStm[pScan->iNext];
  for(j=0; j<TL_TR_NCOL; j++) tl_val_null(&a[j]);
  tl_val_int(&a[TL_TR_ID], pScan->iNext);
  tl_val_textz(&a[TL_TR_KIND], "stream");
  tl_val_textz(&a[TL_TR_NAME], t->index.azFile[s->iFile]);
  if( s->iCpu>=0 ) tl_val_int(&a[TL_TR_CPU], s->iCpu);
  for(k=s->iPkt0; k<s->iPkt0+s->nPkt; k++){
    const TlPacket *tp = &t->index.a[k];
    if( tp->tsBegin!=TL_TS_MIN && tp->tsBegin < tsFirst ) tsFirst = tp->tsBegin;
    if( tp->tsEnd!=TL_TS_MAX && tp->tsEnd > tsLast ) tsLast = tp->tsEnd;
  }
  if( tsFirst!=TL_TS_MAX ) tl_val_int(&a[TL_TR_FIRST_TS], tsFirst);
  if( tsLast!=TL_TS_MIN ) tl_val_int(&a[TL_TR_LAST_TS], tsLast);
  if( tl_col_used(&pScan->f, TL_TR_ARGS) ){
    TlStr *js = &pScan->sArgs;
    tl_str_reset(js);
    tl_json_obj_begin(js);
    tl_json_key(js, "trace"); tl_json_strz(js, p->aTr[s->iTr].zRel);
    if( s->pSC ){ tl_json_key(js, "stream_class_id"); tl_json_uint(js, s->pSC->id); }
    if( s->iInstance>=0 ){ tl_json_key(js, "stream_instance_id"); tl_json_int(js, s->iInstance); }
    tl_json_key(js, "packets"); tl_json_uint(js, s->nPkt);
    tl_json_key(js, "discarded_events"); tl_json_uint(js, s->nDiscarded);
    tl_json_key(js, "lost_packets"); tl_json_uint(js, s->nLostPkt);
    tl_json_obj_end(js);
    tl_val_str(&a[TL_TR_ARGS], js);
  }
  pRow->iRowid = pScan->iNext;
  pRow->a = a;
  pScan->iNext++;
  return TL_ROW;
}


int tl_ctf_has_class(const CtfData *p, int (*xTest)(const char*, void*), void *pCtx){
  int t, s, e;
  for(t=0; t<p->nTr; t++){
    const TlCtfModel *m = &p->aTr[t].m;
    if( !p->aTr[t].bModel ) continue;
    for(s=0; s<m->nStream; s++){
      for(e=0; e<m->aStream[s].nEvent; e++){
        const char *zName = m->aStream[s].aEvent[e].zName;
        if( zName && xTest(zName, pCtx) ) return 1;
      }
    }
  }
  return 0;
}
