/*
** perf_rows.c: the args JSON of perf.data records, and the rows of the
** metadata tables: symbols, tracks, event_types, perf_features.
*/
#include "perf_scan.h"

#include <stdlib.h>
#include <string.h>

/* JSON of the fields of side-band records. */
void perf_side_args(const TlScan *s, TlStr *o){
  const PerfRec *r = &s->r;
  TlBytes b = r->body;
  uint32_t u32a, u32b;
  uint64_t u64a, u64b, u64c;
  const char *z;
  size_t n;
  switch( r->type ){
    case PERF_MMAP:
      if( tl_bytes_skip(&b, 8) || tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b)
       || tl_bytes_u64e(&b, &u64c) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "addr"); tl_json_uint(o, u64a);
      tl_json_key(o, "len"); tl_json_uint(o, u64b);
      tl_json_key(o, "pgoff"); tl_json_uint(o, u64c);
      tl_json_key(o, "filename"); tl_json_str(o, z, n);
      break;
    case PERF_MMAP2: {
      uint32_t prot, flags;
      if( tl_bytes_skip(&b, 8) || tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b)
       || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "addr"); tl_json_uint(o, u64a);
      tl_json_key(o, "len"); tl_json_uint(o, u64b);
      tl_json_key(o, "pgoff"); tl_json_uint(o, u64c);
      if( r->misc & (1u<<14) ){          /* PERF_RECORD_MISC_MMAP_BUILD_ID */
        uint8_t nId;
        const uint8_t *aId;
        if( tl_bytes_u8(&b, &nId) || tl_bytes_skip(&b, 3) || tl_bytes_ptr(&b, 20, &aId) ) break;
        tl_json_key(o, "build_id"); tl_json_hex(o, aId, nId<=20 ? nId : 20);
      }else{
        uint64_t ino, gen;
        if( tl_bytes_u32e(&b, &u32a) || tl_bytes_u32e(&b, &u32b)
         || tl_bytes_u64e(&b, &ino) || tl_bytes_u64e(&b, &gen) ) break;
        tl_json_key(o, "maj"); tl_json_uint(o, u32a);
        tl_json_key(o, "min"); tl_json_uint(o, u32b);
        tl_json_key(o, "ino"); tl_json_uint(o, ino);
        tl_json_key(o, "ino_generation"); tl_json_uint(o, gen);
      }
      if( tl_bytes_u32e(&b, &prot) || tl_bytes_u32e(&b, &flags) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "prot"); tl_json_uint(o, prot);
      tl_json_key(o, "flags"); tl_json_uint(o, flags);
      tl_json_key(o, "filename"); tl_json_str(o, z, n);
      break;
    }
    case PERF_COMM:
      if( tl_bytes_skip(&b, 8) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "comm"); tl_json_str(o, z, n);
      tl_json_key(o, "exec"); tl_json_bool(o, (r->misc & (1u<<13))!=0);
      break;
    case PERF_FORK: case PERF_EXIT: {
      uint32_t pid, ppid, tid, ptid;
      if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &ppid) || tl_bytes_u32e(&b, &tid)
       || tl_bytes_u32e(&b, &ptid) || tl_bytes_u64e(&b, &u64a) ) break;
      tl_json_key(o, "pid"); tl_json_int(o, (int32_t)pid);
      tl_json_key(o, "tid"); tl_json_int(o, (int32_t)tid);
      tl_json_key(o, "ppid"); tl_json_int(o, (int32_t)ppid);
      tl_json_key(o, "ptid"); tl_json_int(o, (int32_t)ptid);
      tl_json_key(o, "time"); tl_json_uint(o, u64a);
      break;
    }
    case PERF_LOST:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) ) break;
      tl_json_key(o, "id"); tl_json_uint(o, u64a);
      tl_json_key(o, "lost"); tl_json_uint(o, u64b);
      break;
    case PERF_LOST_SAMPLES:
      if( tl_bytes_u64e(&b, &u64a) ) break;
      tl_json_key(o, "lost"); tl_json_uint(o, u64a);
      break;
    case PERF_THROTTLE: case PERF_UNTHROTTLE:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "time"); tl_json_uint(o, u64a);
      tl_json_key(o, "id"); tl_json_uint(o, u64b);
      tl_json_key(o, "stream_id"); tl_json_uint(o, u64c);
      break;
    case PERF_SWITCH:
      tl_json_key(o, "out"); tl_json_bool(o, (r->misc & (1u<<13))!=0);
      tl_json_key(o, "preempt"); tl_json_bool(o, (r->misc & (1u<<14))!=0);
      break;
    case PERF_SWITCH_CPU_WIDE:
      if( tl_bytes_u32e(&b, &u32a) || tl_bytes_u32e(&b, &u32b) ) break;
      tl_json_key(o, "out"); tl_json_bool(o, (r->misc & (1u<<13))!=0);
      tl_json_key(o, "preempt"); tl_json_bool(o, (r->misc & (1u<<14))!=0);
      tl_json_key(o, "next_prev_pid"); tl_json_int(o, (int32_t)u32a);
      tl_json_key(o, "next_prev_tid"); tl_json_int(o, (int32_t)u32b);
      break;
    case PERF_KSYMBOL: {
      uint16_t kt, kf;
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u32e(&b, &u32a) || tl_bytes_u16e(&b, &kt)
       || tl_bytes_u16e(&b, &kf) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "addr"); tl_json_uint(o, u64a);
      tl_json_key(o, "len"); tl_json_uint(o, u32a);
      tl_json_key(o, "ksym_type"); tl_json_uint(o, kt);
      tl_json_key(o, "flags"); tl_json_uint(o, kf);
      tl_json_key(o, "name"); tl_json_str(o, z, n);
      break;
    }
    case PERF_CGROUP:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_cstr(&b, &z, &n) ) break;
      tl_json_key(o, "id"); tl_json_uint(o, u64a);
      tl_json_key(o, "path"); tl_json_str(o, z, n);
      break;
    case PERF_AUX:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "aux_offset"); tl_json_uint(o, u64a);
      tl_json_key(o, "aux_size"); tl_json_uint(o, u64b);
      tl_json_key(o, "flags"); tl_json_uint(o, u64c);
      break;
    case PERF_AUXTRACE:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) ) break;
      tl_json_key(o, "size"); tl_json_uint(o, u64a);
      tl_json_key(o, "offset"); tl_json_uint(o, u64b);
      break;
    case PERF_TIME_CONV:
      if( tl_bytes_u64e(&b, &u64a) || tl_bytes_u64e(&b, &u64b) || tl_bytes_u64e(&b, &u64c) ) break;
      tl_json_key(o, "time_shift"); tl_json_uint(o, u64a);
      tl_json_key(o, "time_mult"); tl_json_uint(o, u64b);
      tl_json_key(o, "time_zero"); tl_json_uint(o, u64c);
      break;
    case PERF_HEADER_FEATURE:
      if( tl_bytes_u64e(&b, &u64a) ) break;
      tl_json_key(o, "feature"); tl_json_uint(o, u64a);
      if( perf_feature_name((int)u64a) ){ tl_json_key(o, "name"); tl_json_strz(o, perf_feature_name((int)u64a)); }
      break;
    default:
      (void)perf_more_args(s->p, r, o);   /* perf_args.c */
      break;
  }
}

/*
** Does tracepoint t have a field named z? Its fields are named in args as
** the format names them, so a sample field of the same name (raw_syscalls'
** `id` against PERF_SAMPLE_ID) is left out rather than given twice.
*/
static int tp_has_field(const PerfTp *t, const char *z){
  int i;
  for(i=0; t && i<t->nField; i++){
    if( strcmp(t->aField[i].zName, z)==0 ) return 1;
  }
  return 0;
}

/* JSON of a sample's fields that have no column of their own. */
void perf_sample_args(const TlScan *s, TlStr *o){
  const PerfSample *x = &s->ri.s;
  uint64_t st = x->mHave;
  const PerfTp *t = 0;
  if( st & PS_RAW ){
    const PerfAttr *pAttr = &s->p->aAttr[s->ri.iAttr];
    if( pAttr->type==2 ) t = perf_tp_find(s->p, pAttr->config);
  }
  if( (st & (PS_ID|PS_IDENTIFIER)) && !tp_has_field(t, "id") ){
    tl_json_key(o, "id"); tl_json_uint(o, x->id);
  }
  if( (st & PS_STREAM_ID) && !tp_has_field(t, "stream_id") ){
    tl_json_key(o, "stream_id"); tl_json_uint(o, x->stream_id);
  }
  if( (st & PS_ADDR) && !tp_has_field(t, "addr") ){
    tl_json_key(o, "addr"); tl_json_int(o, (int64_t)x->addr);
  }
  if( (st & PS_PERIOD) && !tp_has_field(t, "period") ){
    tl_json_key(o, "period"); tl_json_uint(o, x->period);
  }
  if( st & PS_READ ){
    TlBytes b = x->read;
    uint64_t v;
    tl_json_key(o, "read");
    tl_json_arr_begin(o);
    while( tl_bytes_u64e(&b, &v)==0 ) tl_json_uint(o, v);
    tl_json_arr_end(o);
  }
  if( st & PS_RAW ){
    if( t ) perf_tp_decode(t, x->aRaw, x->nRaw, s->p->bo, o, 0);
    else{ tl_json_key(o, "raw"); tl_json_hex(o, x->aRaw, x->nRaw); }
  }
  if( st & PS_BRANCH_STACK ){
    uint64_t k;
    if( x->bHwIdx ){ tl_json_key(o, "branch_hw_index"); tl_json_int(o, (int64_t)x->hwIdx); }
    tl_json_key(o, "branches");
    tl_json_arr_begin(o);
    for(k=0; k<x->nBranch; k++){
      const uint8_t *e = x->aBranch + k*24;
      tl_json_obj_begin(o);
      tl_json_key(o, "from"); tl_json_int(o, (int64_t)tl_load_u64_unchecked(e, s->p->bo));
      tl_json_key(o, "to"); tl_json_int(o, (int64_t)tl_load_u64_unchecked(e+8, s->p->bo));
      tl_json_key(o, "flags"); tl_json_uint(o, tl_load_u64_unchecked(e+16, s->p->bo));
      tl_json_obj_end(o);
    }
    tl_json_arr_end(o);
  }
  if( st & PS_REGS_USER ){
    uint64_t k;
    tl_json_key(o, "regs_user_abi"); tl_json_uint(o, x->regsUserAbi);
    tl_json_key(o, "regs_user");
    tl_json_arr_begin(o);
    for(k=0; k<x->nRegsUser; k++) tl_json_int(o, (int64_t)tl_load_u64_unchecked(x->aRegsUser + 8*k, s->p->bo));
    tl_json_arr_end(o);
  }
  if( st & PS_STACK_USER ){
    tl_json_key(o, "stack_user_size"); tl_json_uint(o, x->stackSize);
    tl_json_key(o, "stack_user_dyn_size"); tl_json_uint(o, x->stackDyn);
  }
  if( st & (PS_WEIGHT|PS_WEIGHT_STRUCT) ){ tl_json_key(o, "weight"); tl_json_uint(o, x->weight); }
  if( st & PS_DATA_SRC ){ tl_json_key(o, "data_src"); tl_json_uint(o, x->data_src); }
  if( st & PS_TRANSACTION ){ tl_json_key(o, "transaction"); tl_json_uint(o, x->transaction); }
  if( st & PS_REGS_INTR ){
    uint64_t k;
    tl_json_key(o, "regs_intr_abi"); tl_json_uint(o, x->regsIntrAbi);
    tl_json_key(o, "regs_intr");
    tl_json_arr_begin(o);
    for(k=0; k<x->nRegsIntr; k++) tl_json_int(o, (int64_t)tl_load_u64_unchecked(x->aRegsIntr + 8*k, s->p->bo));
    tl_json_arr_end(o);
  }
  if( st & PS_PHYS_ADDR ){ tl_json_key(o, "phys_addr"); tl_json_uint(o, x->phys_addr); }
  if( st & PS_CGROUP ){ tl_json_key(o, "cgroup"); tl_json_uint(o, x->cgroup); }
  if( st & PS_DATA_PAGE_SIZE ){ tl_json_key(o, "data_page_size"); tl_json_uint(o, x->data_page_size); }
  if( st & PS_CODE_PAGE_SIZE ){ tl_json_key(o, "code_page_size"); tl_json_uint(o, x->code_page_size); }
  if( st & PS_AUX ){ tl_json_key(o, "aux_size"); tl_json_uint(o, x->auxSize); }
}

/* symbols: the ELF symbols of every mapped file that could be read, then
** the kernel's from kallsyms=. */
int perf_next_symbol(TlScan *s, TlRow *pRow){
  return perf_symbols_next(s->pTrace, s->p, &s->iRow, &s->iSym, pRow);
}

int perf_next_track(TlScan *s, TlRow *pRow){
  TlThread t;
  TlVal *v = pRow->a;
  if( s->p->pThreads==0 || s->iRow >= tl_threads_count(s->p->pThreads) ) return TL_DONE;
  tl_threads_get(s->p->pThreads, s->iRow, &t);
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&v[TL_TR_ID], t.id);
  tl_val_text(&v[TL_TR_KIND], "thread", 6);
  tl_val_textz(&v[TL_TR_NAME], t.zName);
  if( t.pid>=0 ) tl_val_int(&v[TL_TR_PID], t.pid);
  tl_val_int(&v[TL_TR_TID], t.tid);
  if( t.bTs ){
    tl_val_int(&v[TL_TR_FIRST_TS], t.tsFirst);
    tl_val_int(&v[TL_TR_LAST_TS], t.tsLast);
  }
  tl_val_int(&v[TL_TR_EVENTS], (int64_t)t.nEvents);
  if( tl_col_used(&s->f, TL_TR_ARGS) ){
    tl_str_reset(&s->args);
    tl_json_obj_begin(&s->args);
    tl_json_key(&s->args, "samples"); tl_json_uint(&s->args, t.nSamples);
    if( t.zNameFirst ){ tl_json_key(&s->args, "comm_first"); tl_json_strz(&s->args, t.zNameFirst); }
    tl_json_obj_end(&s->args);
    tl_val_str(&v[TL_TR_ARGS], &s->args);
  }
  return TL_ROW;
}

/* A sample time on the clock the ts columns show (clock=: the engine
** shifts those; args are this reader's), held at the int64 range. */
static int64_t ts_shifted(const TlTrace *pTrace, int64_t ts){
  int64_t d = pTrace->tsShift;
  if( d>0 && ts>INT64_MAX-d ) return INT64_MAX;
  if( d<0 && ts<INT64_MIN-d ) return INT64_MIN;
  return ts + d;
}

int perf_next_event_type(TlScan *s, TlRow *pRow){
  const PerfAttr *a;
  TlVal *v = pRow->a;
  size_t k;
  int bFirst = 1;
  if( s->iRow >= (size_t)s->p->nAttr ) return TL_DONE;
  a = &s->p->aAttr[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  tl_val_int(&v[TL_ET_ID], (int64_t)s->iRow);
  tl_val_textz(&v[TL_ET_NAME], a->zName);
  tl_val_text(&v[TL_ET_KIND], "attr", 4);
  tl_str_reset(&s->tmp);
  tl_str_append(&s->tmp, "", 0);
  perf_sample_type_text(a->sample_type, &s->tmp);
  tl_val_str(&v[TL_ET_FORMAT], &s->tmp);
  if( tl_col_used(&s->f, TL_ET_ARGS) ){
    TlStr *o = &s->args;
    tl_str_reset(o);
    tl_json_obj_begin(o);
    tl_json_key(o, "type"); tl_json_uint(o, a->type);
    tl_json_key(o, "config"); tl_json_uint(o, a->config);
    tl_json_key(o, (a->flags & PA_FREQ) ? "sample_freq" : "sample_period"); tl_json_uint(o, a->period);
    tl_json_key(o, "sample_type"); tl_json_uint(o, a->sample_type);
    tl_json_key(o, "read_format");
    {
      TlStr rf;
      tl_str_init(&rf);
      tl_str_append(&rf, "", 0);
      perf_read_format_text(a->read_format, &rf);
      tl_json_str(o, rf.z ? rf.z : "", rf.n);
      tl_str_free(&rf);
    }
    tl_json_key(o, "flags"); tl_json_uint(o, a->flags);
    tl_json_key(o, "sample_id_all"); tl_json_bool(o, (a->flags & PA_SAMPLE_ID_ALL)!=0);
    tl_json_key(o, "samples"); tl_json_uint(o, a->nSamples);
    if( a->bTs ){
      tl_json_key(o, "first_ts"); tl_json_int(o, ts_shifted(s->pTrace, a->tsFirst));
      tl_json_key(o, "last_ts"); tl_json_int(o, ts_shifted(s->pTrace, a->tsLast));
    }
    tl_json_key(o, "ids");
    tl_json_arr_begin(o);
    for(k=0; k<s->p->nId; k++){
      if( s->p->aId[k].iAttr==(int)s->iRow ){ tl_json_uint(o, s->p->aId[k].id); bFirst = 0; }
    }
    tl_json_arr_end(o);
    tl_json_obj_end(o);
    tl_val_str(&v[TL_ET_ARGS], o);
  }
  (void)bFirst;
  s->iRow++;
  return TL_ROW;
}

int perf_next_feature(TlScan *s, TlRow *pRow){
  const PerfFeat *f;
  TlVal *v = pRow->a;
  int rc;
  if( s->iRow >= (size_t)s->p->nFeat ) return TL_DONE;
  f = &s->p->aFeat[s->iRow];
  pRow->iRowid = (int64_t)s->iRow;
  s->iRow++;
  tl_val_int(&v[TL_PF_ID], f->id);
  if( perf_feature_name(f->id) ) tl_val_textz(&v[TL_PF_NAME], perf_feature_name(f->id));
  tl_val_int(&v[TL_PF_SIZE], (int64_t)f->n);
  if( tl_col_used(&s->f, TL_PF_VALUE) ){
    tl_str_reset(&s->tmp);
    rc = perf_feature_value(s->pTrace, s->p, f, &s->tmp, &s->err);
    if( rc ) return rc;
    if( s->tmp.n ) tl_val_str(&v[TL_PF_VALUE], &s->tmp);
  }
  return TL_ROW;
}
