/* recfit.h - the α-β model fitted to a record's nccl-tests rows: the measured time of each
 * row (out-of-place or in-place) against the plan's steps and port bytes at that size, by
 * core/model.h's model_fit_sizes, the very path `collviz model --fit` takes with its own
 * sweep. The fit is a model of the measured rows (labelled so wherever it is shown): NCCL
 * chose its own algorithm per size (ring, tree, NVLS, ...), the model counts the
 * collective's default plan (the ring for all-reduce) on the record's ranks. */
#ifndef COLLVIZ_RECORDS_RECFIT_H
#define COLLVIZ_RECORDS_RECFIT_H

#include <stdbool.h>

#include "core/coll.h"
#include "core/model.h"
#include "records/records.h"

struct rec_fit {
    bool ok;       /* a fit was made (f holds it; f.physical may still be false) */
    char why[256]; /* !ok: why not ("sendrecv: not a collective the model plans") */
    enum coll coll;
    enum algo algo;
    int nranks;
    int nrows;   /* rows fitted */
    int skipped; /* rows left out: below one float per piece, or no time */
    struct model_fit f;
};

/* The ranks of an nccl-tests job its launcher started ("mpirun -np 2 ./all_reduce_perf -g
 * 1": -np times -g times -t), when the rows prove it: every row's busbw/algbw is the
 * collective's busbw factor at that size of job and at no size next to it (nccl-tests
 * built without MPI runs one single-rank job a process instead). -1 otherwise. */
int rec_launch_ranks(const struct rec_log *L);
/* The record's world size for its tests: nranks, else the launcher's proven by the rows,
 * else the highest rank named + 1; 0 none. */
int rec_test_ranks(const struct rec_log *L);

/* Fit test t's rows (in-place times when inplace, else out-of-place) on the record's ranks. */
void rec_fit_test(const struct rec_log *L, const struct rec_test *t, bool inplace,
                  struct rec_fit *out);

/* The fitted model's busbw (GB/s) at size S (bytes) for that fit; 0 when the model refuses
 * the size or the fit is not physical. */
double rec_fit_busbw(const struct rec_fit *fit, double size);

#endif
