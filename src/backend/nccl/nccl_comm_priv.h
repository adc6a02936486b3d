/* nccl_comm_priv.h - private to the NCCL communicator's two halves: nccl_comm.c (the run
 * half: collectives, point-to-point, barrier, waits and aborting, destroy, the runtime side
 * for backend/run.c) and nccl_comm_init.c (the init half: the cliques made, their streams
 * and events, every connection set up before a rank thread starts). What they share: the
 * communicator's state and the few calls creation needs from the run half. Built only with
 * HAVE_NCCL; nccl_comm.h is the door for the rest of the backend. */
#ifndef COLLVIZ_BACKEND_NCCL_NCCL_COMM_PRIV_H
#define COLLVIZ_BACKEND_NCCL_NCCL_COMM_PRIV_H

#ifdef HAVE_NCCL

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "backend/comm.h"

#define NCCL_DRAIN_S 5.0
/* Events recorded after run()'s collectives, so a wait for many queued ones (a timed loop)
 * has its deadline per collective, not for the whole batch. */
#define NCCL_PROGRESS_EVENTS 64

enum clique { CL_COLL, CL_UP0, CL_UP1, CL_DOWN0, CL_DOWN1, CL_COUNT };

struct stage_buf {
    float *p;
    size_t cap;       /* floats */
    cudaEvent_t done; /* recorded after the ncclSend that reads it */
    bool used;        /* has carried a send (done is meaningful) */
};

struct work_buf {
    float *p;
    size_t bytes;
};

/* (tag, count) of the messages of one ordered pair, sent but not yet received. */
struct meta_q {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int *tag;
    size_t *count;
    size_t head, n, cap;
};

struct nccl_rank {
    bool live;       /* a rank this process runs */
    struct dev *dev; /* NULL when the communicator made its own stream */
    int gpu;
    cudaStream_t compute; /* the device's stream, or the communicator's own */
    bool own_compute;     /* compute was made here (destroyed with the communicator) */
    ncclComm_t comm[CL_COUNT];
    bool aborted_own;  /* this rank's communicators were aborted */
    bool wedged;       /* its streams did not drain after the abort */
    cudaStream_t side; /* the async lane's stream (NULL: collectives run on compute) */
    cudaStream_t send_up, send_down, recv_up, recv_down; /* p2p roles */
    cudaEvent_t ev_copy;                                 /* staging copy done */
    struct stage_buf *stage;
    size_t nstage;
    size_t stage_bytes;
    cudaEvent_t prog[NCCL_PROGRESS_EVENTS]; /* after run()'s collectives, in a ring */
    unsigned long prog_issued, prog_done;
    struct work_buf *work; /* working buffers of buf_alloc held now */
    size_t nwork;
    struct comm_stats stats[2];
};

struct nccl_comm {
    struct comm pub;
    struct comm_ops ops;   /* the table below, rank_noun saying "emulated GPU" where so */
    bool coll, async, p2p; /* the cliques made: COLL, the async lane's stream, UP/DOWN */
    bool mp;               /* ranks are processes (pub.self is this one's) */
    struct nccl_rank rk[CV_MAX_RANKS];
    struct meta_q *mq; /* [src * nranks + dst] */
    /* host barrier */
    pthread_mutex_t bar_mu;
    pthread_cond_t bar_cv;
    int bar_arrived;
    unsigned bar_gen;
    atomic_int aborted;
    pthread_mutex_t err_mu;
    char err[256];
};

/* Set once a rank's streams did not drain after an abort: kernels that never finish hold
 * that GPU, so no communicator is made again in this process (nccl_comm.c). */
extern atomic_int gpus_wedged;

/* nccl_comm.c: the stream the rank's collectives are queued on. */
cudaStream_t coll_stream(const struct nccl_rank *rk);
/* nccl_comm.c: abort rank's own communicators and drain its streams (called only by the
 * rank's own thread, or at creation and destroy, when no rank thread runs). */
void abort_own(struct nccl_comm *nc, int rank);
/* nccl_comm.c: the communicator's destroy (comm.h), also what a failed creation calls. */
void nc_destroy(struct comm *c);
/* nccl_comm.c: the ops tables, every rank a thread of this process (and, with MPI, every
 * rank a process). */
extern const struct comm_ops nccl_comm_ops;
#ifdef HAVE_MPI
extern const struct comm_ops nccl_comm_ops_mp;
#endif

#endif /* HAVE_NCCL */
#endif
