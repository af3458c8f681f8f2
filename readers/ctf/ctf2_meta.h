/*
** ctf2_meta.h: CTF 2 metadata (JSON text sequence) to the trace model.
*/
#ifndef TL_CTF2_META_H
#define TL_CTF2_META_H

#include <stddef.h>

#include "ctf/ctf_model.h"
#include "err.h"

/*
** Parse the JSON text sequence z[0..n) (fragments each preceded by 0x1E)
** into *pModel (major 2). On error the model is left empty and pErr names
** the offset in the metadata and what was expected.
*/
int tl_ctf2_parse(const char *z, size_t n, TlCtfModel *pModel, TlErr *pErr);

#endif
