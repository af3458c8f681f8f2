/*
** formats.c: the registry of trace formats. Adding a format means adding
** its reader under readers/ and one line here.
*/
#include "reader.h"


const TlReaderDef *const tl_readers[] = {
  0
};
