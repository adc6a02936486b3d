/* serve.c - `collviz serve`'s loop (serve.h): one listening socket, at most one UI, a local
 * worker on the backend. The loop sleeps in ppoll() on the listener, the UI's socket, the
 * connections that have not said hello yet and the worker's wake pipe; jobs from the UI are
 * posted to the worker under the UI's ids, results go back as they come.
 *
 * Faults and strangers. Every read is non-blocking and keeps what has come of a frame, so
 * half a header stalls nothing. A new connection waits in one of SERVE_WAIT_MAX places (the
 * longest waiting is closed for a new one when they are full) until it says hello within
 * SERVE_HELLO_TIMEOUT_S; only a hello with the right token (any on a Unix socket, whose
 * mode is the check) takes the UI's place, so idle or garbage connections never lock the
 * UI out. A hello with a token, right or wrong, is answered SERVE_TOKEN_DELAY_S later
 * (the delay tells nothing, and a guesser gets few answers); lines about connections
 * without hello are limited to SERVE_LOG_PER_S a second. Anything that does not decode
 * closes that connection with a logged line; a client of another protocol version is told
 * both versions first. */
#include "worker/serve.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backend/launcher.h"

#include "backend/backend.h"
#include "sys/usock.h"
#include "core/util.h"
#include "worker/proto.h"
#include "worker/worker.h"

/* A new connection must say hello within this; until it does it holds only a waiting
 * place (SERVE_WAIT_MAX of them), never the UI's, and its hello may be SERVE_HELLO_MAX
 * bytes. A token, right or wrong, is answered SERVE_TOKEN_DELAY_S later. */
#define SERVE_HELLO_TIMEOUT_S 3.0
#define SERVE_WAIT_MAX 64
#define SERVE_HELLO_MAX 1024
#define SERVE_TOKEN_DELAY_S 1.0
#define SERVE_LOG_PER_S 5
#define SERVE_MSG_TIMEOUT_S 10.0 /* a message from the UI that stops half way */
#define SERVE_STALL_S 60.0       /* at least; twice a job's own timeout_s when longer */
#define SERVE_STOP_S 3.0         /* after a signal, the running job's time to stop */

static volatile sig_atomic_t serve_signal;

static void serve_on_signal(int sig)
{
    serve_signal = sig;
}

bool serve_token_equal(const char *expected, const char *presented)
{
    size_t n = strlen(expected);
    size_t m = strnlen(presented, PROTO_TOKEN_MAX);
    unsigned diff = (unsigned)(n ^ m);
    for (size_t i = 0; i < n; i++) {
        unsigned char p = i < m ? (unsigned char)presented[i] : 0;
        diff |= (unsigned)((unsigned char)expected[i] ^ p);
    }
    return diff == 0;
}

int serve_token_new(char *out, size_t n, char *err, size_t errlen)
{
    unsigned char raw[32];
    if (n < 2 * sizeof raw + 1)
        return cv_err(err, errlen, CV_EINVAL, "serve: token buffer too small");
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return cv_err(err, errlen, CV_EBACKEND, "serve: getrandom: %s", strerror(errno));
        got += (size_t)r;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return CV_OK;
}

/* "HOST:PORT" or "PORT" -> host (default 127.0.0.1) and port. */
static int serve_split_hostport(const char *s, char *host, size_t hn, char *port, size_t pn,
                                char *err, size_t errlen)
{
    const char *colon = strrchr(s, ':');
    const char *p = colon ? colon + 1 : s;
    size_t hl = colon ? (size_t)(colon - s) : 0;
    bool ok = *p && strlen(p) < pn && hl < hn;
    for (const char *q = p; ok && *q; q++)
        ok = *q >= '0' && *q <= '9';
    if (ok) ok = atol(p) <= 65535;
    if (!ok)
        return cv_err(err, errlen, CV_EINVAL, "bad address '%s' (want HOST:PORT or PORT)", s);
    snprintf(host, hn, "%.*s", (int)hl, hl ? s : "");
    if (!host[0]) snprintf(host, hn, "127.0.0.1");
    /* [::1]:PORT */
    size_t L = strlen(host);
    if (L >= 2 && host[0] == '[' && host[L - 1] == ']') {
        memmove(host, host + 1, L - 2);
        host[L - 2] = '\0';
    }
    snprintf(port, pn, "%s", p);
    return CV_OK;
}

static int serve_listen_tcp(const char *spec, int *out, char *shown, size_t sn, char *err,
                            size_t errlen)
{
    char host[256], port[16];
    int rc = serve_split_hostport(spec, host, sizeof host, port, sizeof port, err, errlen);
    if (rc != CV_OK) return rc;
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai;
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g != 0)
        return cv_err(err, errlen, CV_EINVAL, "serve: --tcp %s: %s", spec, gai_strerror(g));
    rc = cv_err(err, errlen, CV_EINVAL, "serve: --tcp %s: no address to listen on", spec);
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
            rc = cv_err(err, errlen, CV_EINVAL, "serve: --tcp %s: %s", spec, strerror(errno));
            close(fd);
            continue;
        }
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        char h[NI_MAXHOST], p[NI_MAXSERV];
        getsockname(fd, (struct sockaddr *)&ss, &sl);
        getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p,
                    NI_NUMERICHOST | NI_NUMERICSERV);
        snprintf(shown, sn, strchr(h, ':') ? "tcp:[%s]:%s" : "tcp:%s:%s", h, p);
        *out = fd;
        rc = CV_OK;
        break;
    }
    freeaddrinfo(ai);
    return rc;
}

int serve_dial(const char *address, int *fd, bool *is_tcp, char *err, size_t errlen)
{
    *fd = -1;
    *is_tcp = false;
    const char *a = address;
    if (strncmp(a, "unix:", 5) == 0 || (strchr(a, '/') && strncmp(a, "tcp:", 4) != 0)) {
        if (strncmp(a, "unix:", 5) == 0) a += 5;
        return usock_connect("connect", a, fd, err, errlen);
    }
    if (strncmp(a, "tcp:", 4) == 0) a += 4;
    *is_tcp = true;
    char host[256], port[16];
    int rc = serve_split_hostport(a, host, sizeof host, port, sizeof port, err, errlen);
    if (rc != CV_OK)
        return cv_err(err, errlen, CV_EINVAL,
                      "--connect: bad address '%s' (unix:PATH, PATH or tcp:HOST:PORT)",
                      address);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai;
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g != 0)
        return cv_err(err, errlen, CV_EUNAVAIL, "--connect %s: %s", address, gai_strerror(g));
    rc = cv_err(err, errlen, CV_EUNAVAIL, "--connect %s: nothing listens there", address);
    for (struct addrinfo *p = ai; p; p = p->ai_next) {
        int c = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, 0);
        if (c < 0) continue;
        if (connect(c, p->ai_addr, p->ai_addrlen) == 0) {
            int one = 1;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            *fd = c;
            rc = CV_OK;
            break;
        }
        rc = cv_err(err, errlen, CV_EUNAVAIL, "--connect %s: %s", address, strerror(errno));
        close(c);
    }
    freeaddrinfo(ai);
    return rc;
}

static inline void serve_log_line(const char *s)
{
    cv_eprintf("collviz serve: %s\n", s);
}

/* ---- the other processes of an MPI job ---------------------------------------------- */

/* Rank 0 listens to the UI; its worker thread hands every job that calls the backend to
 * the other ranks (a broadcast of the encoded job over MPI_COMM_WORLD: its length, then its
 * bytes), so all of them run it together, and a shutdown message when it ends. The other
 * ranks run the jobs on their main thread: every MPI call of a process is on one thread.
 * MEMCPY and TRAIN do not call the backend and run on rank 0 alone. */
static inline bool serve_fans_out_kind(enum job_kind k)
{
    return k == JOB_MEASURE || k == JOB_SWEEP || k == JOB_CHECK;
}

static inline bool serve_fans_out(const struct job *j)
{
    return serve_fans_out_kind(j->kind);
}

/* A broadcast of the job's words failed: the job cannot go on (the other ranks wait in
 * it, or heard half of it). Marked broken, so rank 0's loop tells the UI and ends the job,
 * and closing MPI ends it with MPI_Abort rather than wait for the others. */
static int serve_bcast_lost(int rank, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int serve_bcast_lost(int rank, char *err, size_t errlen, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    launcher_set_broken(rank, why);
    return cv_err(err, errlen, CV_EBACKEND, "%s", why);
}

static int serve_fanout(void *ctx, const struct job *j, char *err, size_t errlen)
{
    (void)ctx;
    if (j && !serve_fans_out(j)) return CV_OK;
    struct proto_msg *m = xcalloc(1, sizeof *m);
    m->type = j ? PROTO_JOB : PROTO_SHUTDOWN;
    if (j) m->job = *j;
    unsigned char *f = NULL;
    size_t n = 0;
    char perr[200];
    if (proto_encode(m, &f, &n, perr, sizeof perr) != CV_OK) {
        serve_log_line(perr); /* cannot happen for a job that decoded */
        m->type = PROTO_SHUTDOWN;
        proto_encode(m, &f, &n, NULL, 0);
    }
    /* its length, then its bytes: the same two broadcasts serve_follow waits in */
    unsigned long long len = n;
    int rc = launcher_bcast(&len, sizeof len, 0);
    if (rc == CV_OK) rc = launcher_bcast(f, n, 0);
    free(f);
    free(m);
    if (rc != CV_OK)
        return serve_bcast_lost(-1, err, errlen,
                                "serve: rank 0 could not broadcast the %s to the other ranks "
                                "(MPI_Bcast failed): the job cannot go on",
                                j ? "job" : "shutdown");
    return CV_OK;
}

/* Between two sizes of a sweep every process hears rank 0's word: stop (the UI cancelled)
 * or go on. Called on rank 0's worker thread and on the other ranks' main threads, at the
 * same point of the same job, after the job's own broadcast. A failed broadcast stops the
 * sweep and breaks the job. */
static bool serve_agree(void *ctx, bool stop)
{
    (void)ctx;
    int v = stop;
    if (launcher_bcast(&v, sizeof v, 0) != CV_OK) {
        serve_bcast_lost(-1, NULL, 0,
                         "serve: the ranks could not agree on a sweep's next size "
                         "(MPI_Bcast failed): the job cannot go on");
        return true;
    }
    return v != 0;
}

/* The next message from rank 0 in *m: CV_OK, or the job is lost (said on stderr). */
static int serve_follow_next(int me, struct proto_msg *m)
{
    unsigned long long len = 0;
    char err[240];
    if (launcher_bcast(&len, sizeof len, 0) != CV_OK) {
        serve_bcast_lost(me, err, sizeof err,
                         "serve: rank %d lost rank 0's jobs (MPI_Bcast of a length failed)",
                         me);
        cv_eprintf("collviz %s\n", err);
        return CV_EBACKEND;
    }
    if (len > PROTO_HDR + PROTO_PAYLOAD_MAX) {
        serve_bcast_lost(me, err, sizeof err,
                         "serve: rank %d lost rank 0's jobs (a job of %llu bytes)", me, len);
        cv_eprintf("collviz %s\n", err);
        return CV_EBACKEND;
    }
    unsigned char *f = xmalloc(len ? len : 1);
    if (launcher_bcast(f, len, 0) != CV_OK) {
        free(f);
        serve_bcast_lost(me, err, sizeof err,
                         "serve: rank %d lost rank 0's jobs (MPI_Bcast of a job failed)", me);
        cv_eprintf("collviz %s\n", err);
        return CV_EBACKEND;
    }
    int rc = proto_decode(f, len, m, err, sizeof err);
    free(f);
    if (rc != CV_OK) cv_eprintf("collviz serve: rank %d: %s\n", me, err);
    return rc;
}

int serve_follow(struct backend *b)
{
    if (!launcher_built()) {
        backend_close(b);
        cv_eprintf("collviz serve: this build has no MPI\n");
        return 2;
    }
    int me = backend_proc_rank(b);
    int status = 0;
    struct proto_msg *m = xmalloc(sizeof *m);
    for (;;) {
        int rc = serve_follow_next(me, m);
        if (rc == CV_EBACKEND) status = 1;
        if (rc != CV_OK || m->type != PROTO_JOB)
            break; /* a shutdown, rank 0's jobs no longer readable, or lost */
        char err[240];
        rc = worker_run_here(b, &m->job, serve_agree, NULL, err, sizeof err);
        /* A broken job is rank 0's to report (it tells the UI and ends the job), unless
         * rank 0 is the one that stalled: then no job of its will come, and the others say
         * why and end the job (the exit of a broken job aborts it, rank 0 with it), so the
         * UI hears of it at once instead of when, if ever, rank 0 wakes. */
        int blamed = -1;
        bool broken = rc != CV_OK && launcher_broken(&blamed, NULL, 0);
        if (rc != CV_OK && (!broken || blamed == 0))
            cv_eprintf("collviz serve: rank %d: %s\n", me, err);
        proto_msg_free(m);
        if (broken && blamed == 0) {
            status = 1;
            break;
        }
    }
    free(m);
    backend_close(b);
    return status;
}

/* ---- the loop --------------------------------------------------------------------- */

/* A connection and the frame it is in the middle of sending: read without blocking, as
 * much as has arrived, so one slow or silent peer never holds the loop. */
struct serve_conn {
    int fd;          /* -1: free */
    double since;    /* accepted at (the oldest waiting one goes first when full) */
    double deadline; /* waiting: hello by then; the UI: the current frame done by then */
    double release;  /* > 0: said hello with a token, answered at this time */
    bool admit;      /* the token was right: admitted (else refused) at release */
    unsigned char *buf;
    size_t have, need; /* bytes read; the whole frame's (0 until the header is in) */
};

struct serve {
    struct worker *w;
    int lfd;              /* listening */
    struct serve_conn ui; /* the UI, once it said hello with the token; fd -1: none */
    /* Connections that have not said hello yet. They never hold the UI's place: the first
     * to present the token (any token on a Unix socket) becomes the UI. */
    struct serve_conn wait[SERVE_WAIT_MAX];
    char token[PROTO_TOKEN_MAX]; /* "" on a Unix socket: the socket's mode is the check */
    double hello_timeout_s;
    bool served_one;
    char shown[300]; /* the address it listens on */
    /* Lines about connections that have not said hello: at most SERVE_LOG_PER_S a second,
     * the rest counted and named in the next line. */
    double log_window;
    int log_lines, log_hidden;
    /* Processes backends: a rank that stops answering leaves rank 0's worker waiting in
     * MPI for ever. The loop notices no result for stall_s while a backend job runs. */
    bool processes;
    double stall_s;
    bool stall_fixed; /* --stall: as given */
    double progress;  /* now_s() of the last result, or of a post onto an idle worker */
    int in_flight;    /* backend jobs posted and not finished */
    const char *path; /* the Unix socket to remove, or NULL */
};

static void serve_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void serve_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("collviz serve: ", stderr);
    cv_vfprintf_safe(stderr, false, fmt, ap); /* addresses, peers' words: made visible */
    fputc('\n', stderr);
    va_end(ap);
}

/* A line about a connection that has not said hello (anyone can cause one): limited. */
static void serve_log_stranger(struct serve *s, const char *what)
{
    double now = now_s();
    if (now - s->log_window >= 1.0) {
        s->log_window = now;
        s->log_lines = 0;
    }
    if (s->log_lines >= SERVE_LOG_PER_S) {
        s->log_hidden++;
        return;
    }
    s->log_lines++;
    if (s->log_hidden)
        serve_log("%s (and %d more such lines not shown)", what, s->log_hidden);
    else
        serve_log("%s", what);
    s->log_hidden = 0;
}

static void serve_refuse(int fd, const char *why)
{
    struct proto_msg m = {.type = PROTO_REFUSED};
    m.refused.rank = -1;
    snprintf(m.refused.why, sizeof m.refused.why, "%s", why);
    proto_send(fd, &m, NULL, 0);
}

static void conn_close(struct serve_conn *c)
{
    if (c->fd >= 0) close(c->fd);
    free(c->buf);
    *c = (struct serve_conn){.fd = -1};
}

/* Read what has arrived of c's next frame (payload at most max_payload bytes): 1 with the
 * whole frame in c->buf[0..have), 0 when it has not all come yet, -1 when the peer is gone,
 * -2 for a frame that cannot be one (err says why). Never blocks. */
static int conn_read(struct serve_conn *c, size_t max_payload, double msg_timeout_s, char *err,
                     size_t errlen)
{
    for (;;) {
        if (c->have >= PROTO_HDR && c->have == c->need) return 1;
        size_t want = c->have < PROTO_HDR ? PROTO_HDR : c->need;
        if (!c->buf) c->buf = xmalloc(PROTO_HDR);
        if (want > PROTO_HDR && c->have == PROTO_HDR) c->buf = xrealloc(c->buf, want);
        ssize_t n = recv(c->fd, c->buf + c->have, want - c->have, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) return -1;
        if (c->have == 0 && msg_timeout_s > 0) c->deadline = now_s() + msg_timeout_s;
        c->have += (size_t)n;
        if (c->have == PROTO_HDR && c->need == 0) {
            uint32_t len;
            if (proto_header(c->buf, &len, err, errlen) != CV_OK) return -2;
            if (len > max_payload) {
                cv_err(err, errlen, CV_EINVAL, "a %u-byte message before hello (at most %zu)",
                       (unsigned)len, max_payload);
                return -2;
            }
            c->need = PROTO_HDR + (size_t)len;
        }
    }
}

/* The frame read is used: the next one starts. */
static void conn_next(struct serve_conn *c)
{
    c->have = 0;
    c->need = 0;
    c->deadline = 0;
}

static void serve_drop(struct serve *s, const char *why)
{
    if (s->ui.fd < 0) return;
    serve_log("closed the connection: %s", why);
    conn_close(&s->ui);
    worker_cancel(s->w); /* what that UI asked is no one's now */
}

/* Take every connection waiting on the listener. When SERVE_WAIT_MAX have not said hello
 * yet, the one waiting longest is closed for the new one: silent connections can delay
 * the UI by no more than the time SERVE_WAIT_MAX newer ones take to come. */
static void serve_accept(struct serve *s)
{
    for (int k = 0; k < 4 * SERVE_WAIT_MAX; k++) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) return;
        int slot = -1, oldest = 0;
        for (int i = 0; i < SERVE_WAIT_MAX && slot < 0; i++) {
            if (s->wait[i].fd < 0)
                slot = i;
            else if (s->wait[i].since < s->wait[oldest].since)
                oldest = i;
        }
        if (slot < 0) {
            serve_log_stranger(s, "too many connections without hello: closed the oldest");
            conn_close(&s->wait[oldest]);
            slot = oldest;
        }
        double now = now_s();
        s->wait[slot] =
            (struct serve_conn){.fd = fd, .since = now, .deadline = now + s->hello_timeout_s};
    }
}

/* Connection c (waiting) said hello with the right token: it becomes the UI. */
static void serve_admit(struct serve *s, struct serve_conn *c)
{
    char err[240];
    if (s->ui.fd >= 0) {
        serve_refuse(c->fd, "another UI is connected to this job");
        serve_log("refused a second UI (one at a time)");
        conn_close(c);
        return;
    }
    s->ui = *c;
    *c = (struct serve_conn){.fd = -1};
    conn_next(&s->ui);
    s->ui.release = 0;
    s->ui.admit = false;
    s->served_one = true;
    struct proto_msg *f = xcalloc(1, sizeof *f);
    f->type = PROTO_FACTS;
    f->facts = *worker_facts(s->w);
    snprintf(f->facts.where, sizeof f->facts.where, "collviz serve on %.100s, pid %d", s->shown,
             (int)getpid());
    if (proto_send(s->ui.fd, f, err, sizeof err) != CV_OK) serve_drop(s, err);
    free(f);
}

/* What a waiting connection sent: a hello, or it is closed. */
static void serve_hello(struct serve *s, struct serve_conn *c)
{
    char err[240], line[300];
    int rc = conn_read(c, SERVE_HELLO_MAX, 0, err, sizeof err);
    if (rc == 0) return;
    if (rc == -1) {
        conn_close(c);
        return;
    }
    struct proto_msg *m = xmalloc(sizeof *m);
    if (rc == 1) rc = proto_decode(c->buf, c->have, m, err, sizeof err) == CV_OK ? 1 : -2;
    if (rc == -2) {
        int v = c->have >= PROTO_HDR ? proto_header_version(c->buf) : -1;
        if (v >= 0 && v != PROTO_VERSION) { /* a collviz of another version: say so */
            char why[200];
            snprintf(why, sizeof why,
                     "this serve speaks protocol version %d, the UI version %d: run the same "
                     "collviz version on both ends",
                     PROTO_VERSION, v);
            serve_refuse(c->fd, why);
        }
        snprintf(line, sizeof line, "closed the connection: %s", err);
        serve_log_stranger(s, line);
        conn_close(c);
    } else if (m->type != PROTO_HELLO) {
        snprintf(err, sizeof err, "a %s message before hello", proto_type_name(m->type));
        serve_refuse(c->fd, err);
        snprintf(line, sizeof line, "closed the connection: %s", err);
        serve_log_stranger(s, line);
        proto_msg_free(m);
        conn_close(c);
    } else if (s->token[0]) {
        /* Right or wrong, answered only after SERVE_TOKEN_DELAY_S: the time of the answer
         * tells nothing, and a guesser gets at most SERVE_WAIT_MAX answers a delay; it
         * still holds a waiting place, never the UI's. */
        c->admit = serve_token_equal(s->token, m->hello.token);
        c->release = now_s() + SERVE_TOKEN_DELAY_S;
    } else {
        serve_admit(s, c);
    }
    free(m);
}

/* Waiting connections past their time: no hello, or a wrong token's answer due. */
static void serve_wait_deadlines(struct serve *s)
{
    double now = now_s();
    for (int i = 0; i < SERVE_WAIT_MAX; i++) {
        struct serve_conn *c = &s->wait[i];
        if (c->fd < 0) continue;
        if (c->release > 0 && now >= c->release && c->admit) {
            serve_admit(s, c);
        } else if (c->release > 0 && now >= c->release) {
            serve_refuse(c->fd, "wrong token (serve printed the right one: --token)");
            serve_log_stranger(s, "closed the connection: wrong token");
            conn_close(c);
        } else if (c->release == 0 && now > c->deadline) {
            /* half a frame is no message to answer (as garbage is not) */
            if (c->have == 0) serve_refuse(c->fd, "no hello in time");
            serve_log_stranger(s, c->have
                                      ? "closed the connection: half a message, then nothing"
                                      : "closed the connection: no hello in time");
            conn_close(c);
        }
    }
}

/* One message from the UI. Returns false when the whole job should end (shutdown). */
static bool serve_ui_message(struct serve *s, struct proto_msg *m)
{
    char err[240];
    switch (m->type) {
    case PROTO_JOB:
        if (s->processes && serve_fans_out(&m->job)) {
            if (s->in_flight++ == 0) s->progress = now_s();
            double t = m->job.kind == JOB_MEASURE ? m->job.measure.params.timeout_s
                       : m->job.kind == JOB_SWEEP ? m->job.sweep.params.timeout_s
                                                  : 0;
            if (!s->stall_fixed && s->stall_s < 2 * t) s->stall_s = 2 * t;
        }
        worker_post_id(s->w, &m->job);
        return true;
    case PROTO_CANCEL:
        worker_cancel(s->w);
        return true;
    case PROTO_SHUTDOWN:
        serve_log("shutdown asked by the UI");
        return false;
    default:
        snprintf(err, sizeof err, "unexpected %s message from the UI",
                 proto_type_name(m->type));
        proto_msg_free(m);
        serve_drop(s, err);
        return true;
    }
}

/* What the UI sent: every whole message that has arrived (a few at most per turn, so
 * results keep going out). Returns false when the whole job should end (shutdown). */
static bool serve_read(struct serve *s)
{
    struct proto_msg *m = xmalloc(sizeof *m);
    char err[240];
    bool go_on = true;
    for (int k = 0; k < 16 && go_on && s->ui.fd >= 0; k++) {
        int rc = conn_read(&s->ui, PROTO_PAYLOAD_MAX, SERVE_MSG_TIMEOUT_S, err, sizeof err);
        if (rc == 0) break;
        if (rc == -1) {
            serve_drop(s, "the UI disconnected");
            break;
        }
        if (rc == 1 && proto_decode(s->ui.buf, s->ui.have, m, err, sizeof err) != CV_OK)
            rc = -2;
        if (rc == -2) {
            serve_drop(s, err);
            break;
        }
        conn_next(&s->ui);
        go_on = serve_ui_message(s, m);
    }
    if (s->ui.fd >= 0 && s->ui.have > 0 && now_s() > s->ui.deadline)
        serve_drop(s, "a message from the UI stopped half way");
    free(m);
    return go_on;
}

static void serve_results(struct serve *s)
{
    struct proto_msg *m = xcalloc(1, sizeof *m);
    m->type = PROTO_RESULT;
    while (worker_poll(s->w, &m->result)) {
        char err[240];
        s->progress = now_s();
        if (s->processes && m->result.last && serve_fans_out_kind(m->result.kind) &&
            s->in_flight > 0)
            s->in_flight--;
        if (s->ui.fd >= 0 && proto_send(s->ui.fd, m, err, sizeof err) != CV_OK)
            serve_drop(s, err);
        result_free(&m->result);
    }
    free(m);
}

/* Why serve's own watchdog, not a rank, noticed the stall: "" when nothing is known. */
static const char *serve_unnamed_why(void)
{
    if (!launcher_thread_multiple())
        return "; no MPI_THREAD_MULTIPLE: a rank that stalls while the others wait in MPI's "
               "own collective is not named";
    return "";
}

/* Listen: on TCP (o->tcp) with a new token, else on a Unix socket, o->socket or one in a
 * private directory named after this process (its path in path, "" on TCP). The address as
 * shown in shown. CV_OK, or the error in err. */
static int serve_listen(struct serve *s, const struct serve_opts *o, char *shown, size_t sn,
                        char *path, size_t pn, char *err, size_t errlen)
{
    int rc = CV_OK;
    if (o->tcp) {
        rc = serve_token_new(s->token, sizeof s->token, err, errlen);
        if (rc == CV_OK) rc = serve_listen_tcp(o->tcp, &s->lfd, shown, sn, err, errlen);
    } else {
        if (o->socket) {
            snprintf(path, pn, "%s", o->socket);
            char dir[256];
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash && slash != dir) *slash = '\0';
            if (!slash) snprintf(dir, sizeof dir, ".");
            rc = usock_dir_private("serve", dir, err, errlen);
        } else {
            char dir[200];
            rc = usock_dir("serve", true, dir, sizeof dir, err, errlen);
            if (rc == CV_OK) snprintf(path, pn, "%s/job-%d.sock", dir, (int)getpid());
        }
        if (rc == CV_OK) rc = usock_listen("serve", path, &s->lfd, NULL, err, errlen);
        snprintf(shown, sn, "unix:%s", path);
    }
    return rc;
}

/* SIGINT, SIGTERM and SIGHUP are blocked but inside the loop's ppoll (waitmask), where
 * serve_on_signal takes them; SIGPIPE is ignored. */
static void serve_signals(sigset_t *waitmask)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, waitmask);
    sigdelset(waitmask, SIGINT);
    sigdelset(waitmask, SIGTERM);
    sigdelset(waitmask, SIGHUP);
    struct sigaction sa = {.sa_handler = serve_on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* One turn of the loop: wait, at most a second or to the nearest deadline, for the
 * listener, the worker, the UI and the waiting connections, and answer what came. 1: go on,
 * 0: the UI's message ended serving, -1: end at once (poll failed, or a signal). */
static int serve_turn(struct serve *s, const sigset_t *waitmask)
{
    /* the listener, the worker, the UI, then the waiting connections not yet answered */
    struct pollfd fds[3 + SERVE_WAIT_MAX];
    int who[3 + SERVE_WAIT_MAX];
    int nfds = 0;
    fds[nfds++] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
    fds[nfds++] = (struct pollfd){.fd = worker_fd(s->w), .events = POLLIN};
    fds[nfds++] = (struct pollfd){.fd = s->ui.fd, .events = POLLIN}; /* -1: ignored */
    double next = now_s() + 1.0;
    if (s->ui.fd >= 0 && s->ui.have > 0 && s->ui.deadline < next) next = s->ui.deadline;
    for (int i = 0; i < SERVE_WAIT_MAX; i++) {
        const struct serve_conn *c = &s->wait[i];
        if (c->fd < 0) continue;
        double due = c->release > 0 ? c->release : c->deadline;
        if (due < next) next = due;
        if (c->release > 0) continue;
        who[nfds] = i;
        fds[nfds++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
    }
    double wait_s = next - now_s() + 1e-3;
    if (wait_s < 1e-3) wait_s = 1e-3;
    struct timespec ts = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
    int pr = ppoll(fds, (nfds_t)nfds, &ts, waitmask);
    if (pr < 0 && errno != EINTR) return -1;
    if (serve_signal) return -1;
    bool go_on = true;
    /* The UI's socket first: a UI that just left is gone before the next is admitted. */
    if (pr > 0 && s->ui.fd >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR)))
        go_on = serve_read(s);
    else if (s->ui.fd >= 0 && s->ui.have > 0 && now_s() > s->ui.deadline)
        serve_drop(s, "a message from the UI stopped half way");
    for (int k = 3; pr > 0 && k < nfds; k++)
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) serve_hello(s, &s->wait[who[k]]);
    if (pr > 0 && (fds[0].revents & POLLIN)) serve_accept(s);
    serve_wait_deadlines(s);
    serve_results(s);
    return go_on ? 1 : 0;
}

/* A rank stalled or the job's communicator was aborted (lost_rank, lost_why: what the
 * watchdog named, else nothing): tell the UI, and end this process. */
static void serve_lost(struct serve *s, const struct serve_opts *o, int lost_rank,
                       const char *lost_why, const char *path)
{
    /* The worker thread waits in MPI for a rank that does not answer, or the job's
     * communicator is broken: the job cannot go on. Say so, and end this process: the
     * launcher then ends the others. */
    char why[200];
    if (lost_why[0])
        snprintf(why, sizeof why, "%.199s", lost_why);
    else
        snprintf(why, sizeof why,
                 "rank lost: the job's ranks stopped answering (no result for %.0f s)%.90s",
                 s->stall_s, serve_unnamed_why());
    serve_log_line(why);
    if (s->ui.fd >= 0) {
        struct proto_msg lm = {.type = PROTO_LOST};
        lm.lost.rank = lost_rank;
        snprintf(lm.lost.why, sizeof lm.lost.why, "%s", why);
        proto_send(s->ui.fd, &lm, NULL, 0);
    }
    if (path[0] && !o->tcp) unlink(path);
    fflush(NULL);
    _exit(1);
}

int serve_run(struct backend *b, const struct serve_opts *o)
{
    char err[300];
    struct serve s = {.lfd = -1, .ui = {.fd = -1}};
    for (int i = 0; i < SERVE_WAIT_MAX; i++)
        s.wait[i].fd = -1;
    s.hello_timeout_s = o->hello_timeout_s > 0 ? o->hello_timeout_s : SERVE_HELLO_TIMEOUT_S;
    char shown[300], path[256] = "";
    int rc = serve_listen(&s, o, shown, sizeof shown, path, sizeof path, err, sizeof err);
    if (rc != CV_OK) {
        cv_eprintf("collviz %s\n", err);
        backend_close(b);
        return 2;
    }
    s.w = worker_start(b, err, sizeof err);
    if (!s.w) {
        cv_eprintf("collviz serve: %s\n", err);
        backend_close(b);
        close(s.lfd);
        if (path[0] && !o->tcp) unlink(path);
        return 2;
    }
    worker_report_dropped(s.w);
    if (worker_facts(s.w)->multiprocess) {
        worker_set_job_hook(s.w, serve_fanout, NULL);
        worker_set_agree(s.w, serve_agree, NULL);
        /* The loop below looks at launcher_broken() every second: a watchdog that names a
         * stalled rank while this process's worker is stuck in MPI leaves the telling to it. */
        launcher_set_watched(1.0);
    }

    sigset_t waitmask;
    serve_signals(&waitmask);

    snprintf(s.shown, sizeof s.shown, "%s", shown);
    cv_printf_safe("collviz serve: listening on %s (backend %s)\n", shown,
                   worker_backend_name(s.w));
    if (s.token[0]) printf("collviz serve: token %s\n", s.token);
    fflush(stdout);

    s.processes = worker_facts(s.w)->multiprocess;
    s.stall_s = o->stall_s > 0 ? o->stall_s : SERVE_STALL_S;
    s.stall_fixed = o->stall_s > 0;
    bool go_on = true, stalled = false;
    int lost_rank = -1;
    char lost_why[256] = "";
    while (go_on && !serve_signal) {
        int turn = serve_turn(&s, &waitmask);
        if (turn < 0) break;
        go_on = turn > 0;
        /* A rank stalled or the job's communicator was aborted: the job cannot go on. */
        if (s.processes && launcher_broken(&lost_rank, lost_why, sizeof lost_why)) {
            stalled = true;
            break;
        }
        if (s.processes && s.in_flight > 0 && now_s() - s.progress > s.stall_s) {
            stalled = true;
            break;
        }
        if (o->once && s.served_one && s.ui.fd < 0) break;
    }
    if (serve_signal) serve_log("ended by signal %d", (int)serve_signal);
    if (stalled) serve_lost(&s, o, lost_rank, lost_why, path);
    conn_close(&s.ui);
    for (int i = 0; i < SERVE_WAIT_MAX; i++)
        conn_close(&s.wait[i]);
    close(s.lfd);
    if (path[0] && !o->tcp) unlink(path);
    /* cancels what runs; closes the backend. A signal ends the process even when the
     * running job does not stop (a rank stuck in a library's call). */
    if (!worker_stop_within(s.w, serve_signal ? SERVE_STOP_S : 0)) {
        serve_log("the running job did not stop within %.0f s: ended without it", SERVE_STOP_S);
        fflush(NULL);
        _exit(1);
    }
    return 0;
}
