/*
** ctf_walk.c: walks of the events in a plain scan's order (the streams one
** after the other, each read through) beside an accelerated scan. They
** give what the accelerated paths cannot know without one: the first
** error a plain scan meets, which an accelerated path that fails reports
** instead of the one its own order met first.
*/
#include <string.h>

#include "ctf/ctf_cur.h"

void tl_ctf_walk_free(CtfWalk *w){
  if( w->bCur ) tl_ctf_cur_free(&w->cur);
  w->bCur = 0;
  w->iStm = 0;
}

/*
** The next event of walk w: TL_ROW with it in w->cur, TL_DONE after the
** last stream, or an error in *pErr (with the file named).
*/
static int ctf_walk_next(CtfScan *pScan, CtfWalk *w, TlErr *pErr){
  const CtfData *p = pScan->p;
  for(;;){
    int rc;
    if( !w->bCur ){
      while( w->iStm < p->nStm && p->aStm[w->iStm].nPkt==0 ) w->iStm++;
      if( w->iStm >= p->nStm ) return TL_DONE;
      memset(&w->cur, 0, sizeof(w->cur));
      tl_ctf_cur_start(pScan, &w->cur, w->iStm);
      w->bCur = 1;
    }
    rc = ctf_cur_read(pScan, &w->cur, pErr);
    if( rc!=TL_DONE ) return rc;
    tl_ctf_cur_free(&w->cur);
    w->bCur = 0;
    w->iStm++;
  }
}

int tl_ctf_plain_error(CtfScan *pScan){
  CtfWalk w;
  TlErr err;
  int rc;
  memset(&w, 0, sizeof(w));
  tl_err_clear(&err);
  while( (rc = ctf_walk_next(pScan, &w, &err))==TL_ROW ){}
  tl_ctf_walk_free(&w);
  if( rc>=0 ) return TL_OK;
  pScan->err = err;
  return rc;
}
