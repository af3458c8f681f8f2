/*
** perf_args.c: the args JSON of the records perf stat and the kernel's
** newer side-band write, named as perf report -D and perf script name
** their fields (tools/lib/perf/include/perf/event.h, perf 6.1):
**
**   STAT         u64 id; u32 cpu, thread; u64 val, ena, run
**                -> id, event (the counter's name), cpu, thread, value,
**                   enabled, running
**   STAT_ROUND   u64 type (0 INTERVAL, 1 FINAL); u64 time -> type, time
**   STAT_CONFIG  u64 nr; {u64 tag, val}[nr], tags 0 aggr_mode, 1
**                interval, 2 scale, 3 aggr_level -> those names
**   THREAD_MAP   u64 nr; {u64 pid; char comm[16]}[nr] -> nr, threads
**   CPU_MAP      u16 type: 0 {u16 nr; u16 cpu[nr]}, 1 {u16 nr; u16
**                long_size; mask[nr] of long_size bytes}, 2 {u8 any_cpu,
**                pad; u16 start, end} -> cpus (-1: any CPU)
**   NAMESPACES   u32 pid, tid; u64 nr; {u64 dev, ino}[nr] -> pid, tid,
**                namespaces: per namespace (net, uts, ipc, pid, user, mnt,
**                cgroup, time) its dev and ino
**   BPF_EVENT    u16 type, flags; u32 id; u8 tag[8] -> type, flags, id, tag
**   TEXT_POKE    u64 addr; u16 old_len, new_len; u8 bytes[old+new] ->
**                addr, old_len, new_len, old, new
*/
#include "perf_scan.h"

#include <stdio.h>
#include <string.h>

#define PERF_ARGS_MAX_LIST 4096            /* entries listed of one map */

/* Key azName[k] (of nName), else zPrefix and k: "tag_7". */
static void args_key_nth(TlStr *o, const char *const *azName, size_t nName, uint64_t k, const char *zPrefix){
  char z[48];
  if( k<nName ){ tl_json_key(o, azName[k]); return; }
  snprintf(z, sizeof(z), "%s_%llu", zPrefix, (unsigned long long)k);
  tl_json_key(o, z);
}

static void args_stat(const PerfData *p, TlBytes b, TlStr *o){
  uint64_t id, val, ena, run;
  uint32_t cpu, thread;
  const PerfAttr *a;
  if( tl_bytes_u64e(&b, &id) || tl_bytes_u32e(&b, &cpu) || tl_bytes_u32e(&b, &thread)
   || tl_bytes_u64e(&b, &val) || tl_bytes_u64e(&b, &ena) || tl_bytes_u64e(&b, &run) ) return;
  a = perf_attr_for_id(p, id);
  tl_json_key(o, "id"); tl_json_uint(o, id);
  if( a && a->zName ){ tl_json_key(o, "event"); tl_json_strz(o, a->zName); }
  tl_json_key(o, "cpu"); tl_json_int(o, (int32_t)cpu);
  tl_json_key(o, "thread"); tl_json_int(o, (int32_t)thread);
  tl_json_key(o, "value"); tl_json_uint(o, val);
  tl_json_key(o, "enabled"); tl_json_uint(o, ena);
  tl_json_key(o, "running"); tl_json_uint(o, run);
}

static void args_stat_config(TlBytes b, TlStr *o){
  static const char *const azTag[] = { "aggr_mode", "interval", "scale", "aggr_level" };
  uint64_t nr, k;
  if( tl_bytes_u64e(&b, &nr) ) return;
  for(k=0; k<nr && k<PERF_ARGS_MAX_LIST; k++){
    uint64_t tag, val;
    if( tl_bytes_u64e(&b, &tag) || tl_bytes_u64e(&b, &val) ) return;
    args_key_nth(o, azTag, sizeof(azTag)/sizeof(azTag[0]), tag, "tag");
    tl_json_uint(o, val);
  }
}

static void args_thread_map(TlBytes b, TlStr *o){
  uint64_t nr, k;
  if( tl_bytes_u64e(&b, &nr) ) return;
  tl_json_key(o, "nr"); tl_json_uint(o, nr);
  tl_json_key(o, "threads");
  tl_json_arr_begin(o);
  for(k=0; k<nr && k<PERF_ARGS_MAX_LIST; k++){
    uint64_t pid;
    const uint8_t *aComm;
    size_t n;
    if( tl_bytes_u64e(&b, &pid) || tl_bytes_ptr(&b, 16, &aComm) ) break;
    for(n=0; n<16 && aComm[n]; n++){}
    tl_json_obj_begin(o);
    tl_json_key(o, "pid"); tl_json_int(o, (int32_t)pid);
    tl_json_key(o, "comm"); tl_json_str(o, (const char*)aComm, n);
    tl_json_obj_end(o);
  }
  tl_json_arr_end(o);
}

static void args_cpu_map(TlBytes b, TlStr *o){
  uint16_t type, nr, k;
  if( tl_bytes_u16e(&b, &type) ) return;
  tl_json_key(o, "cpus");
  tl_json_arr_begin(o);
  if( type==0 && tl_bytes_u16e(&b, &nr)==0 ){
    for(k=0; k<nr; k++){
      uint16_t cpu;
      if( tl_bytes_u16e(&b, &cpu) ) break;
      tl_json_int(o, (int16_t)cpu);            /* (u16)-1: any CPU */
    }
  }else if( type==1 ){
    uint16_t longSize;
    if( tl_bytes_u16e(&b, &nr)==0 && tl_bytes_u16e(&b, &longSize)==0 && (longSize==4 || longSize==8) ){
      for(k=0; k<nr; k++){
        uint64_t m = 0;
        uint32_t m32 = 0;
        int bit;
        if( longSize==8 ? tl_bytes_u64e(&b, &m) : tl_bytes_u32e(&b, &m32) ) break;
        if( longSize==4 ) m = m32;
        for(bit=0; bit<8*longSize; bit++) if( (m>>bit) & 1 ) tl_json_int(o, (int64_t)k*8*longSize + bit);
      }
    }
  }else if( type==2 ){
    uint8_t any, pad;
    uint16_t lo, hi, c;
    if( tl_bytes_u8(&b, &any)==0 && tl_bytes_u8(&b, &pad)==0 && tl_bytes_u16e(&b, &lo)==0
     && tl_bytes_u16e(&b, &hi)==0 ){
      if( any ) tl_json_int(o, -1);
      for(c=lo; c<=hi && c-lo<PERF_ARGS_MAX_LIST; c++){ tl_json_int(o, c); if( c==UINT16_MAX ) break; }
    }
  }
  tl_json_arr_end(o);
}

static void args_namespaces(TlBytes b, TlStr *o){
  static const char *const azNs[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup", "time" };
  uint32_t pid, tid;
  uint64_t nr, k;
  if( tl_bytes_u32e(&b, &pid) || tl_bytes_u32e(&b, &tid) || tl_bytes_u64e(&b, &nr) ) return;
  tl_json_key(o, "pid"); tl_json_int(o, (int32_t)pid);
  tl_json_key(o, "tid"); tl_json_int(o, (int32_t)tid);
  tl_json_key(o, "namespaces");
  tl_json_obj_begin(o);
  for(k=0; k<nr && k<PERF_ARGS_MAX_LIST; k++){
    uint64_t dev, ino;
    if( tl_bytes_u64e(&b, &dev) || tl_bytes_u64e(&b, &ino) ) break;
    args_key_nth(o, azNs, sizeof(azNs)/sizeof(azNs[0]), k, "ns");
    tl_json_obj_begin(o);
    tl_json_key(o, "dev"); tl_json_uint(o, dev);
    tl_json_key(o, "ino"); tl_json_uint(o, ino);
    tl_json_obj_end(o);
  }
  tl_json_obj_end(o);
}

int perf_more_args(const PerfData *p, const PerfRec *r, TlStr *o){
  TlBytes b = r->body;
  switch( r->type ){
    case PERF_STAT: args_stat(p, b, o); return 1;
    case PERF_STAT_ROUND: {
      uint64_t type, time;
      if( tl_bytes_u64e(&b, &type) || tl_bytes_u64e(&b, &time) ) return 1;
      tl_json_key(o, "time"); tl_json_uint(o, time);
      tl_json_key(o, "type"); tl_json_strz(o, type==1 ? "FINAL" : type==0 ? "INTERVAL" : "?");
      return 1;
    }
    case PERF_STAT_CONFIG: args_stat_config(b, o); return 1;
    case PERF_THREAD_MAP: args_thread_map(b, o); return 1;
    case PERF_CPU_MAP: args_cpu_map(b, o); return 1;
    case PERF_NAMESPACES: args_namespaces(b, o); return 1;
    case PERF_BPF_EVENT: {
      uint16_t type, flags;
      uint32_t id;
      const uint8_t *aTag;
      if( tl_bytes_u16e(&b, &type) || tl_bytes_u16e(&b, &flags) || tl_bytes_u32e(&b, &id)
       || tl_bytes_ptr(&b, 8, &aTag) ) return 1;
      tl_json_key(o, "type"); tl_json_uint(o, type);
      tl_json_key(o, "flags"); tl_json_uint(o, flags);
      tl_json_key(o, "id"); tl_json_uint(o, id);
      tl_json_key(o, "tag"); tl_json_hex(o, aTag, 8);
      return 1;
    }
    case PERF_TEXT_POKE: {
      uint64_t addr;
      uint16_t nOld, nNew;
      const uint8_t *aOld, *aNew;
      if( tl_bytes_u64e(&b, &addr) || tl_bytes_u16e(&b, &nOld) || tl_bytes_u16e(&b, &nNew)
       || tl_bytes_ptr(&b, nOld, &aOld) || tl_bytes_ptr(&b, nNew, &aNew) ) return 1;
      tl_json_key(o, "addr"); tl_json_uint(o, addr);
      tl_json_key(o, "old_len"); tl_json_uint(o, nOld);
      tl_json_key(o, "new_len"); tl_json_uint(o, nNew);
      tl_json_key(o, "old"); tl_json_hex(o, aOld, nOld);
      tl_json_key(o, "new"); tl_json_hex(o, aNew, nNew);
      return 1;
    }
    default:
      return 0;
  }
}
