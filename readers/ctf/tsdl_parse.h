/*
** tsdl_parse.h: the TSDL parser, TSDL text to the trace model.
*/
#ifndef TL_CTF_TSDL_PARSE_H
#define TL_CTF_TSDL_PARSE_H

#include <stddef.h>

#include "ctf/ctf_model.h"
#include "ctf/tsdl.h"
#include "err.h"

/*
** Parse TSDL text z[0..n) into *pModel. On error the model is left empty
** and pErr names the offset in the text and the metadata line.
*/
int tl_tsdl_parse(const char *z, size_t n, TlCtfModel *pModel, TlErr *pErr);

/* Free what a model owns (NULL-safe fields); the struct itself is the caller's. */
void tl_ctf_model_free(TlCtfModel*);

/* Free a field class tree. NULL-safe. */
void tl_ctf_field_free(TlCtfField*);

#endif
