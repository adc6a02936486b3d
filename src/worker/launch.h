/* launch.h - `collviz --mpi "LAUNCH"`: the UI starts `LAUNCH collviz serve ...` as a child
 * (e.g. LAUNCH = "mpirun -np 4", "srun -n 8"), waits until the job listens on a Unix socket
 * in the private directory, and connects. The child runs in a process group of its own
 * with its output in a private log file (the UI owns the terminal); ending it kills that
 * group and every process descended from the child, so none is left behind. */
#ifndef COLLVIZ_WORKER_LAUNCH_H
#define COLLVIZ_WORKER_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct launch;

/* Start the job: sh -c 'exec LAUNCH "$@"' with this program's `serve --backend BACKEND
 * --socket PATH --once`, then wait up to timeout_s for it to listen. CV_OK with *fd connected
 * (blocking) and *out set; else one line in err (the job's last words when it ended
 * first) and nothing left running. */
int launch_start(const char *cmd, const char *backend, double timeout_s, struct launch **out,
                 int *fd, char *err, size_t errlen);
/* The launcher's process id (the group's leader). */
pid_t launch_pid(const struct launch *l);
/* Wait up to s seconds for the launcher to end (after a loss it reports the rank that
 * died as it ends). True when it has. */
bool launch_wait(struct launch *l, double s);
/* After the job is lost: which rank the job's output blames - first a rank the others
 * named as stalled ("rank 2 stalled", as the MPI communicator says it; *stalled is then
 * true), else the rank the launcher names ("process rank 2" as mpirun says it, "task 2"
 * as srun does) - or -1; in last the line that says so (else the last non-empty line). */
int launch_blame(const struct launch *l, char *last, size_t n, bool *stalled);
/* N when s says "rank N" followed by `then` (" stalled"), else -1. */
int launch_rank_named(const char *s, const char *then);
/* End the job: wait up to grace_s for it to end by itself (after a shutdown message), then
 * SIGTERM to its group and every process below this one, SIGKILL to what is left 2 s later;
 * reap them all, remove the socket and log. NULL is fine. */
void launch_stop(struct launch *l, double grace_s);

#endif
