/*
** xray_load.cc: many small instrumented calls on THREADS threads, for an
** XRay FDR log. Build with clang++ -fxray-instrument
** -fxray-instruction-threshold=1; run with XRAY_OPTIONS="patch_premain=true
** xray_mode=xray-fdr xray_logfile_base=...". FDR mode does not start by
** itself: main starts it (buffers from XRAY_FDR_CONFIG, or big enough for
** the whole run), then finalizes and flushes the log at the end.
** One op makes about 5.6 calls (11 records).
** usage: xray_load THREADS OPS_PER_THREAD
*/
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "xray/xray_log_interface.h"

static volatile uint64_t sink;
static long ops;

__attribute__((noinline)) uint64_t mix(uint64_t x) { return (x ^ (x >> 31)) * 0x94d049bb133111ebULL; }
__attribute__((noinline)) uint64_t decode(uint64_t x) { return mix(x) + 7; }
__attribute__((noinline)) uint64_t check(uint64_t x) { return (x % 3) ? x : mix(x); }
__attribute__((noinline)) uint64_t depth_sum(int n) { return n < 2 ? (uint64_t)n : depth_sum(n - 1) + 1; }
__attribute__((noinline)) uint64_t save(uint64_t x) { sink += x; return x; }

__attribute__((noinline)) uint64_t handle(uint64_t x)
{
    uint64_t v = decode(x);          /* 2 calls */
    v = check(v);                    /* 1 or 2 */
    if ((x & 3) == 0)
        v += depth_sum(3);           /* 3, a quarter of the time */
    return save(v);                  /* 1 */
}

__attribute__((noinline)) static void *worker(void *arg)
{
    uint64_t x = (uintptr_t)arg * 0x2545f4914f6cdd1dULL;
    for (long i = 0; i < ops; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        handle(x >> 7);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    pthread_t t[64];
    ops = argc > 2 ? atol(argv[2]) : 100000;
    if (n < 1 || n > 64)
        n = 4;
    /* keep every call (no minimum duration), and never run out of buffers */
    static char cfg[160];
    long bufs = 16 + n * ops * 12 * 16 / (4 << 20);
    snprintf(cfg, sizeof cfg,
             "buffer_size=4194304:buffer_max=%ld:func_duration_threshold_us=0", bufs);
    const char *env = getenv("XRAY_FDR_CONFIG");
    if (__xray_log_init_mode("xray-fdr", env ? env : cfg) != XRAY_LOG_INITIALIZED) {
        fprintf(stderr, "xray_load: FDR mode did not start\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    __xray_log_finalize();
    return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 1;
}
