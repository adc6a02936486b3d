/* facts.c - the backend's facts copied out as data (struct worker_facts, worker.h): what
 * the UI shows about the backend (describe() for every world size, rank labels, NCCL's
 * hardware text, through backend_hardware), so it never calls the backend itself and a remote
 * job can send them. (The links a measurement ran on are read after it, by backend_links,
 * and travel in its result.) */
#include <stdio.h>
#include <string.h>

#include "core/coll.h"
#include "worker/worker.h"

void worker_facts_fill(struct backend *b, struct worker_facts *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", b->ops->name);
    f->kind = (int)b->ops->kind;
    f->caps = b->ops->caps;
    f->multiprocess = backend_multiprocess(b);
    int m = b->ops->max_ranks ? b->ops->max_ranks(b) : CV_MAX_RANKS;
    f->max_ranks = m < 1 ? 1 : m > CV_MAX_RANKS ? CV_MAX_RANKS : m;
    for (int n = 1; n <= f->max_ranks && b->ops->describe; n++)
        b->ops->describe(b, n, f->desc[n], sizeof f->desc[n]);
    for (int r = 0; r < f->max_ranks && b->ops->rank_label; r++)
        b->ops->rank_label(b, r, f->label[r], sizeof f->label[r]);
    if (backend_hardware(b, f->nccl_text, sizeof f->nccl_text) >= 0) {
        backend_lib_env(b, f->nccl_algo, sizeof f->nccl_algo, f->nccl_proto,
                        sizeof f->nccl_proto);
        f->have_nccl_info = true;
    }
}
