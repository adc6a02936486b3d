/* run.h - measure a collective and run it at display scale, written once on every
 * backend's communicator (comm.h): the same loop, timing, check and cancel whatever the
 * ranks are (CPU threads, MPI processes, GPUs). The worker, `collviz bench` and `collviz
 * trace` call these, never a backend's own loop.
 *
 * Ranks that are threads of this process (comm.self < 0) run on threads run.c starts for
 * the call; where ranks are processes (comm.self >= 0) the calling thread is this
 * process's rank. The communicator is made with the backend's comm_create once per world
 * size and kept until the backend closes. */
#ifndef COLLVIZ_BACKEND_RUN_H
#define COLLVIZ_BACKEND_RUN_H

#include <stddef.h>

#include "backend/backend.h"

/* Measure one size (struct bench_params in backend.h). `cancel` is polled while it runs;
 * set means stop with CV_ECANCELLED. Refuses sizes that would not fit in memory
 * (CV_ENOMEM) before allocating anything. */
int backend_measure(struct backend *b, const struct bench_params *p, struct bench_result *r,
                    volatile int *cancel, char *err, size_t errlen);
/* What backend_measure refuses before it runs, without running: ranks the backend cannot
 * run, a size of less than a float per rank, buffers past the memory (mem_check). For a
 * sweep, its largest size is judged before the first runs. */
int backend_check_measure(struct backend *b, const struct bench_params *p, char *err,
                          size_t errlen);
/* Display-scale run of plan p on the given send buffers; fills recv[r]
 * (coll_recv_count elements each) for every rank (processes: every rank's, gathered). */
int backend_run_small(struct backend *b, const struct plan *p, float *const *send, float **recv,
                      char *err, size_t errlen);
/* Bytes of working memory the backend's runtime holds now (freed by backend_close). */
size_t backend_held_bytes(struct backend *b);
/* Test seam: rank `rank` sleeps `seconds` before its next timed run (-1 = none), so the
 * tests can see a stalled rank named and the caller not hang. */
void backend_test_stall(struct backend *b, int rank, double seconds);
/* Called by backend_close: the runtime's communicator and caches go. */
void backend_run_release(struct backend *b);

#endif
