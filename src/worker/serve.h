/* serve.h - the job side of the UI's link (`collviz serve`): a worker on a backend that
 * obeys the jobs of one connected UI, through the messages of proto.h.
 *
 * It listens on a Unix socket in the private directory (sys/usock.h), mode 0600, by
 * default; on TCP only when asked (--tcp), bound to 127.0.0.1 unless a host is given, and
 * then only a client that presents the random token printed at start is served (compared
 * in constant time). One UI at a time, and only a connection that said hello (with the
 * token, on TCP) takes its place: silent, slow or garbage connections wait apart, bounded
 * and with a short deadline (serve.c). A malformed message closes that connection with a
 * logged reason and the job keeps serving. The dialing side (serve_dial) is here too. */
#ifndef COLLVIZ_WORKER_SERVE_H
#define COLLVIZ_WORKER_SERVE_H

#include <stdbool.h>
#include <stddef.h>

struct backend;

struct serve_opts {
    const char *socket;     /* Unix socket path; NULL: DIR/job-PID.sock in the private dir */
    const char *tcp;        /* "PORT" or "HOST:PORT": listen on TCP instead (with a token) */
    bool once;              /* end the job when its first UI disconnects (--mpi's child) */
    double hello_timeout_s; /* a client must say hello within this (0 = 3 s) */
    double stall_s; /* MPI: no result for this long while ranks run a job = a rank is lost
                     * (0 = 60 s, or twice the job's timeout_s when longer; given: as given) */
};

/* Serve jobs on backend b (taken: closed at the end) until a shutdown message, a signal
 * (SIGINT/SIGTERM) or, with once, the first UI's end. Prints "collviz serve: listening on
 * ADDRESS" (and the token for TCP) on stdout. Returns the exit status (0, or 2 with one
 * line on stderr). */
int serve_run(struct backend *b, const struct serve_opts *o);

/* The other processes of an MPI job (rank > 0 of backend b, taken): run the jobs rank 0's
 * serve_run hands them until it ends. Returns the exit status. */
int serve_follow(struct backend *b);

/* Connect to ADDRESS: "unix:PATH" or a PATH containing '/', or "tcp:HOST:PORT" /
 * "HOST:PORT". A Unix socket must be ours and private (usock_connect). CV_OK with a
 * blocking descriptor in *fd; CV_EINVAL (bad address, a socket not ours) or CV_EUNAVAIL
 * (nobody listens) with one line in err. *is_tcp says which it was. */
int serve_dial(const char *address, int *fd, bool *is_tcp, char *err, size_t errlen);

/* Constant-time comparison of a presented token with the expected one (the time depends
 * on the expected length only). */
bool serve_token_equal(const char *expected, const char *presented);

/* A new random token: 64 hex digits from getrandom(). CV_OK or CV_EBACKEND. */
int serve_token_new(char *out, size_t n, char *err, size_t errlen);

#endif
