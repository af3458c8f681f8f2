/*
** formats.c: the registry of trace formats. Adding a format means adding
** its reader under readers/ and one line here.
*/
#include "reader.h"

extern const TlReaderDef tl_cpel_reader;
extern const TlReaderDef tl_ctf_reader;
extern const TlReaderDef tl_perf_reader;
extern const TlReaderDef tl_xray_reader;


const TlReaderDef *const tl_readers[] = {
  &tl_perf_reader,
  &tl_cpel_reader,
  &tl_xray_reader,
  &tl_ctf_reader,
  0
};
