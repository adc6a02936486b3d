/* topology.c - the topology screen (see topology.h): its state, keys and drawing. What it
 * shows comes from the record (its state's, topo_record) through topotext.h; nothing here is
 * measured. */
#include "ui/screens/topology/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "worker/worker.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "core/text.h"
#include "ui/overlays/overlays.h"
#include "ui/screens/topology/topotests.h"
#include "ui/screens/topology/topostrip.h"
#include "ui/screens/topology/topotext.h"
#include "records/recfit.h"
#include "records/recsay.h"
#include "records/recview.h"

struct topo_state {
    struct topo_screen pub;
    /* a real cluster's NCCL record (--nccl-log, or the NCCL backend's log); NULL none */
    struct rec_log *rec;
    char rec_source[200];  /* what the record is: the --nccl-log files, or the NCCL backend's
                            * log ("this machine's NCCL INFO log (this run)") */
    bool rec_from_backend; /* rec is the NCCL backend's log: t reads it again */
    uint64_t liblog_id;    /* the JOB_LIBLOG asked for by t, 0 none */
    bool liblog_post;      /* t asked for it: posted once the screen is entered (entering
                            * cancels the jobs before) */
    char rec_why[200];     /* no record: why ("no NCCL log: not a GPU run (backend cpu)") */
    struct topo_group *groups; /* the shown ranks by host, made on first use */
    int ngroups;
    int nhosts; /* the shown hosts: more than groups holds past TOPO_MAX_GROUPS - 1 */
    /* a record with several communicators is shown one at a time (c cycles them) */
    int comm;
    struct rec_view view; /* the record as communicator comm */
    bool viewing;         /* view made */
    /* a large one: its nodes as a strip, one opened (topostrip.h) */
    bool strip_on;
    bool strip_made;
    struct topo_strip strip;
    int node; /* the open node */
};

#define TOPO(a) ((const struct topo_state *)(a)->screen_state[SCREEN_TOPOLOGY])

static int topo_chans(const struct app *a, int *out);
static void topo_free(struct app *a);

/* What the screen shows of the record: the communicator chosen when it has several (never
 * two in one picture), else the record. */
static const struct rec_log *topo_shown(const struct app *a)
{
    const struct topo_state *t = TOPO(a);
    if (!t || !t->rec) return NULL;
    return t->viewing ? &t->view.v : t->rec;
}

/* Forget what was made of the shown record (its view, groups, strip). */
static void topo_unmake(struct topo_state *t)
{
    free(t->groups);
    t->groups = NULL;
    t->ngroups = t->nhosts = 0;
    if (t->viewing) rec_view_free(&t->view);
    t->viewing = false;
    if (t->strip_made) topo_strip_free(&t->strip);
    t->strip_made = t->strip_on = false;
    t->node = 0;
}

static struct topo_state *topo_st(struct app *a)
{
    if (!a->screen_state[SCREEN_TOPOLOGY])
        a->screen_state[SCREEN_TOPOLOGY] = xcalloc(1, sizeof(struct topo_state));
    struct topo_state *t = a->screen_state[SCREEN_TOPOLOGY];
    if (t->rec && !t->groups) {
        if (t->rec->ncomms > 1) {
            if (t->comm >= t->rec->ncomms) t->comm = 0;
            rec_view_make(t->rec, t->comm, &t->view);
            t->viewing = true;
        }
        const struct rec_log *L = topo_shown(a);
        t->groups = xcalloc(TOPO_MAX_GROUPS, sizeof *t->groups);
        t->ngroups = topo_groups(L, t->groups, TOPO_MAX_GROUPS);
        t->nhosts = rec_hosts(L, NULL, 0);
        t->strip_on = topo_strip_wanted(L);
        if (t->strip_on) {
            topo_strip_make(L, &t->strip);
            t->strip_made = true;
        }
        /* nccl-tests output alone (no rings, no trees): open on its rows. */
        int ch[REC_MAX_CHANNELS];
        if (topo_chans(a, ch) == 0 && t->rec->ntests > 0) t->pub.test = 1;
    }
    return t;
}

const struct rec_log *topo_record(const struct app *a)
{
    return TOPO(a) ? TOPO(a)->rec : NULL;
}

/* The communicator shown (the hierarchy ladder counts its links), -1 none. */
static int topo_record_comm(const struct app *a)
{
    const struct topo_state *t = TOPO(a);
    return t && t->rec && t->comm < t->rec->ncomms ? t->comm : -1;
}

void topo_adopt_record(struct app *a, struct rec_log *L, const char *source)
{
    struct topo_state *t = topo_st(a);
    topo_unmake(t);
    rec_free(t->rec);
    t->rec = L;
    t->comm = 0;
    t->rec_from_backend = false;
    snprintf(t->rec_source, sizeof t->rec_source, "%s", source);
    topo_st(a); /* its hosts and groups */
}

/* The step to enter the screen at: the channel it showed last (0 the first time). */
static long topo_entry_step(const struct app *a)
{
    const struct topo_state *t = a->screen_state[SCREEN_TOPOLOGY];
    return t ? t->pub.last_step : 0;
}

/* The channels the screen steps through: those with a ring, else those with a tree. */
static int topo_chans(const struct app *a, int *out)
{
    const struct rec_log *L = topo_shown(a);
    if (!L) return 0;
    int n = topo_channels(L, out, REC_MAX_CHANNELS);
    if (n > 0) return n;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        if (L->trees[c].n > 0) out[n++] = c;
    return n;
}

static int topo_cur_chan(const struct app *a, int *k, int *n)
{
    int ch[REC_MAX_CHANNELS];
    *n = topo_chans(a, ch);
    if (*n == 0) return -1;
    size_t s = app_step(a);
    *k = s < (size_t)*n ? (int)s : *n - 1;
    return ch[*k];
}

/* t without --nccl-log: ask the worker for the NCCL backend's INFO log (JOB_LIBLOG), which
 * becomes topo_record(a) when it comes; or say in topo_st(a)->rec_why why there is none (not a
 * GPU run, a job elsewhere). */
static void topo_request_log(struct app *a)
{
    topo_st(a)->liblog_id = 0;
    topo_st(a)->liblog_post = false;
    if (!a->w) {
        snprintf(topo_st(a)->rec_why, sizeof topo_st(a)->rec_why,
                 "no NCCL log: not a GPU run (no backend)");
    } else if (!(worker_facts(a->w)->caps & BACKEND_CAP_GPU)) {
        snprintf(topo_st(a)->rec_why, sizeof topo_st(a)->rec_why,
                 "no NCCL log: not a GPU run (backend %s)", worker_backend_name(a->w));
    } else {
        topo_st(a)->liblog_post = true; /* topo_apply posts it */
        snprintf(topo_st(a)->rec_why, sizeof topo_st(a)->rec_why, "%s",
                 worker_remote(a->w) ? "reading the job's NCCL INFO log (its rank 0's)..."
                                     : "reading this machine's NCCL INFO log...");
    }
}

/* Entered with t: no record given, the NCCL backend's own log, read again each time (NCCL
 * connects at its first collective), or the screen says why there is none; the channel
 * shown when it was left. */
static void topo_enter(struct app *a, struct scene *next)
{
    if (!topo_record(a) || topo_st(a)->rec_from_backend) topo_request_log(a);
    next->step = topo_entry_step(a);
}

/* The NCCL backend's log, read into the record the screen shows (the one before it, also
 * the backend's, gives way); a log with no NCCL line in it yet says so. */
static bool topo_result(struct app *a, const struct result *r)
{
    if (r->kind != JOB_LIBLOG || !topo_st(a)->liblog_id || r->job_id != topo_st(a)->liblog_id)
        return false;
    topo_st(a)->liblog_id = 0;
    struct rec_log *L = NULL;
    if (r->status == CV_OK && r->liblog.text) {
        L = rec_new();
        rec_parse(L, "NCCL INFO log", r->liblog.text, r->liblog.len);
        rec_finish(L);
        if (topo_nranks(L) == 0) {
            snprintf(topo_st(a)->rec_why, sizeof topo_st(a)->rec_why,
                     "no ranks in %.120s yet: NCCL writes them at its first collective (m "
                     "measures)",
                     r->liblog.src);
            rec_free(L);
            L = NULL;
        }
    } else {
        snprintf(topo_st(a)->rec_why, sizeof topo_st(a)->rec_why, "%s", r->err);
    }
    if (!L && !topo_st(a)->rec_from_backend) return true; /* a --nccl-log record stays */
    struct topo_state *t = topo_st(a);
    topo_unmake(t);
    rec_free(t->rec);
    t->rec = L;
    t->comm = 0;
    t->rec_from_backend = L != NULL;
    /* A job's log was read on its host: "this machine" there is not this one. */
    if (L && a->w && worker_remote(a->w))
        snprintf(t->rec_source, sizeof t->rec_source, "the job's rank 0: %.180s",
                 strncmp(r->liblog.src, "this machine's ", 15) ? r->liblog.src
                                                               : r->liblog.src + 15);
    else if (L)
        snprintf(t->rec_source, sizeof t->rec_source, "%s", r->liblog.src);
    t->pub = (struct topo_screen){0}; /* where the record before stood */
    return true;
}

static void topo_cancelled(struct app *a)
{
    if (!topo_st(a)->liblog_id) return;
    topo_st(a)->liblog_id = 0;
    snprintf(topo_st(a)->rec_why, sizeof topo_st(a)->rec_why,
             "reading NCCL's log was cancelled (t reads it)");
}

static void topo_apply(struct app *a, unsigned changed)
{
    (void)changed;
    if (topo_st(a)->liblog_post && a->w) {
        struct job j = {.kind = JOB_LIBLOG};
        topo_st(a)->liblog_id = worker_post(a->w, &j);
    }
    topo_st(a)->liblog_post = false;
    topo_st(a);
}

static size_t topo_nsteps(const struct app *a)
{
    int ch[REC_MAX_CHANNELS];
    int n = topo_chans(a, ch);
    return n > 0 ? (size_t)n - 1 : 0;
}

/* Enter: the collectives screen's ring all-reduce in this channel's order. */
static bool topo_run(struct app *a, struct scene *next)
{
    int k, n, ch = topo_cur_chan(a, &k, &n);
    const struct rec_ring *g = ch >= 0 ? &topo_shown(a)->rings[ch] : NULL;
    if (!g || !g->order) {
        snprintf(a->msg, sizeof a->msg, "no ring line for this channel: nothing to step");
        return true;
    }
    if (g->n > TOPO_MAX_DRAWN) {
        snprintf(a->msg, sizeof a->msg,
                 "%d ranks: the collectives screen steps at most %d; this ring stays a list",
                 g->n, TOPO_MAX_DRAWN);
        return true;
    }
    bool seen[TOPO_MAX_DRAWN] = {false};
    for (int i = 0; i < g->n; i++) {
        if (g->order[i] < 0 || g->order[i] >= g->n || seen[g->order[i]]) {
            snprintf(a->msg, sizeof a->msg,
                     "channel %d's ring is not a permutation of 0..%d: nothing to step", ch,
                     g->n - 1);
            return true;
        }
        seen[g->order[i]] = true;
    }
    topo_st(a)->pub.last_step = (long)app_step(a);
    next->screen = SCREEN_COLLECTIVES;
    next->coll = COLL_ALL_REDUCE;
    next->algo = ALGO_RING;
    next->nranks = g->n;
    memcpy(next->ring, g->order, (size_t)g->n * sizeof next->ring[0]);
    next->ring_n = g->n;
    next->count = 0;
    next->root = 0;
    next->step = 0;
    next->hl = HL_NONE;
    next->slice_view = false;
    snprintf(a->msg, sizeof a->msg, "ring all-reduce in channel %d's order, NCCL's (t: back)",
             ch);
    return true;
}

/* c: the next communicator of a record with several (its first channel). */
static void topo_next_comm(struct app *a, struct scene *next)
{
    struct topo_state *t = topo_st(a);
    if (!t->rec || t->rec->ncomms < 2) {
        snprintf(a->msg, sizeof a->msg, "the record has %s communicator",
                 t->rec && t->rec->ncomms == 1 ? "one" : "no named");
        return;
    }
    int comm = (t->comm + 1) % t->rec->ncomms;
    topo_unmake(t);
    t->comm = comm;
    t->pub.tree = false;
    topo_st(a);
    next->step = 0;
}

/* ( and ): open the previous or next node of the strip. */
static void topo_move_node(struct app *a, int by)
{
    struct topo_state *t = topo_st(a);
    if (!t->strip_on) {
        snprintf(a->msg, sizeof a->msg,
                 "every node is drawn (the node strip is for more than %d nodes)",
                 TOPO_STRIP_NODES);
        return;
    }
    int n = t->node + by;
    if (n < 0 || n >= t->strip.nnodes)
        snprintf(a->msg, sizeof a->msg, "that was the %s node", n < 0 ? "first" : "last");
    else
        t->node = n;
}

static bool topo_action(struct app *a, enum ui_action act, struct scene *next)
{
    struct topo_state *t = topo_st(a);
    switch (act) {
    case ACT_CHAN_NEXT:
    case ACT_CHAN_PREV: {
        long s = (long)app_step(a) + (act == ACT_CHAN_NEXT ? 1 : -1);
        if (s < 0 || s > (long)topo_nsteps(a))
            snprintf(a->msg, sizeof a->msg, "that was the %s channel",
                     s < 0 ? "first" : "last");
        else
            next->step = s;
        return true;
    }
    case ACT_TOPO_TREE:
        t->pub.tree = !t->pub.tree;
        return true;
    case ACT_TOPO_TESTS:
        if (!topo_record(a) || topo_record(a)->ntests == 0) {
            snprintf(a->msg, sizeof a->msg, "the record has no nccl-tests rows");
        } else {
            /* Around the tests and back to the ring; a record with no ring nor tree has
             * only its tests to show. */
            int ch[REC_MAX_CHANNELS];
            t->pub.test = (t->pub.test + 1) % (topo_record(a)->ntests + 1);
            if (t->pub.test == 0 && topo_chans(a, ch) == 0) t->pub.test = 1;
        }
        return true;
    case ACT_TOPO_RUN:
        return topo_run(a, next);
    case ACT_TOPO_COMM:
        topo_next_comm(a, next);
        return true;
    case ACT_NODE_NEXT:
    case ACT_NODE_PREV:
        topo_move_node(a, act == ACT_NODE_NEXT ? 1 : -1);
        return true;
    case ACT_TOPOLOGY:
        t->pub.last_step = (long)app_step(a);
        next->screen = SCREEN_COLLECTIVES;
        next->step = 0;
        return true;
    case ACT_RANKS_UP:
    case ACT_RANKS_DOWN:
        snprintf(a->msg, sizeof a->msg, "the record sets the ranks (Enter steps its ring)");
        return true;
    default:
        return false;
    }
}

/* The colour of a link class. */
static attr_t topo_class_attr(const struct app *a, enum rec_class c)
{
    const struct theme *th = &a->th;
    switch (c) {
    case REC_NVLINK:
        return th->role[TH_OK];
    case REC_PCIE:
        return th->role[TH_PLOT];
    case REC_SHM:
        return th->role[TH_LABEL];
    case REC_IB:
    case REC_ROCE:
    case REC_NET_PLUGIN:
    case REC_NET:
        return th->role[TH_WARN] | A_BOLD;
    case REC_SOCKET:
        return th->role[TH_BAD] | A_BOLD;
    default:
        return th->role[TH_DIM];
    }
}

static void topo_title(const struct app *a, struct rect r)
{
    attr_t t = a->th.role[TH_TITLE];
    draw_fill(r, t);
    const struct rec_log *L = topo_record(a), *S = topo_shown(a);
    char ver[128] = "no record", size[96] = "";
    if (L) {
        snprintf(ver, sizeof ver, "%s %s", L->library[0] ? L->library : "library not named",
                 L->version[0] ? L->version : "(version unknown)");
        /* the size and nodes the text and the JSON state (records/recsay.h) */
        char said[80]; /* "at least 16384 ranks on at least 2048 nodes" */
        if (rec_say_size(S, said, sizeof said))
            snprintf(size, sizeof size, "%s%s", a->g->sep, said);
    }
    /* whose record it is (this machine's, the emulation's, a job's) is never dropped: a
     * title too wide ends after a whole word with an ellipsis, the file's name going first */
    char line[512];
    snprintf(line, sizeof line, " collviz%stopology%s%s%s%s%s", a->g->sep, a->g->sep, ver, size,
             L && TOPO(a)->rec_source[0] ? a->g->sep : "", L ? TOPO(a)->rec_source : "");
    draw_words(r.y, r.x, r.w, 1, t, line);
}

/* One host's frame with its GPU boxes; returns the rows used (0: it does not fit). */
static int topo_group_boxes(const struct app *a, const struct topo_group *g, struct rect r,
                            int box_w)
{
    int per = topo_boxes_per_line(r.w - 2, box_w);
    int lines = (g->n + per - 1) / per, h = 2 + 3 * lines;
    if (h > r.h) return 0;
    char title[160];
    if (g->host[0])
        snprintf(title, sizeof title, "%s%s%s", g->host, g->gpu[0] ? a->g->sep : "", g->gpu);
    else
        snprintf(title, sizeof title, "host not in the record");
    draw_frame((struct rect){r.y, r.x, h, r.w}, a->th.role[TH_BORDER], title, A_BOLD);
    for (int i = 0; i < g->n; i++) {
        struct rect b = {r.y + 1 + 3 * (i / per), r.x + 1 + (box_w + 1) * (i % per), 3, box_w};
        char label[32];
        topo_gpu_label(topo_shown(a), g->ranks[i], label, sizeof label);
        draw_frame(b, a->th.role[TH_BORDER_HOT], NULL, 0);
        draw_put(b.y + 1, b.x + 1, box_w - 2, a->th.rank[g->ranks[i] % CV_MAX_RANKS], label);
    }
    return h;
}

/* The nodes: frames with GPU boxes where the ranks and rows allow, else a line a host.
 * Returns the rows used. */
static int topo_nodes(struct app *a, struct rect r, int keep)
{
    struct topo_state *t = topo_st(a);
    int n = topo_nranks(topo_shown(a)), box_w = 4;
    char label[32];
    for (int i = 0; i < n; i++) {
        topo_gpu_label(topo_shown(a), i, label, sizeof label);
        if ((int)strlen(label) + 2 > box_w) box_w = (int)strlen(label) + 2;
    }
    int need = 0;
    for (int i = 0; i < t->ngroups; i++) {
        int per = topo_boxes_per_line(r.w - 2, box_w);
        need += 2 + 3 * ((t->groups[i].n + per - 1) / per);
    }
    if (n <= TOPO_MAX_DRAWN && need <= r.h - keep) {
        int y = r.y;
        for (int i = 0; i < t->ngroups; i++)
            y += topo_group_boxes(a, &t->groups[i], (struct rect){y, r.x, r.y + r.h - y, r.w},
                                  box_w);
        return y - r.y;
    }
    int rows = 0, room = r.h - keep < 2 ? 2 : r.h - keep;
    for (int i = 0; i < t->ngroups && rows < room; i++) {
        const struct topo_group *g = &t->groups[i];
        if (rows == room - 1 && i < t->ngroups - 1) {
            /* past TOPO_MAX_GROUPS - 1 hosts the groups hold the rest together: count them */
            int more = t->nhosts > t->ngroups ? t->nhosts - i : t->ngroups - i;
            draw_putf(r.y + rows++, r.x, r.w, a->th.role[TH_DIM], "... %d more hosts (of %d)",
                      more, t->nhosts > t->ngroups ? t->nhosts : t->ngroups);
            break;
        }
        int x = r.x + draw_putf(r.y + rows, r.x, r.w, A_BOLD,
                                "%s%s%s%s: ", g->host[0] ? g->host : "host not in the record",
                                g->gpu[0] ? " (" : "", g->gpu, g->gpu[0] ? ")" : "");
        for (int k = 0; k < g->n && x < r.x + r.w; k++) {
            /* a rank whole or not at all: "+N" says how many more the row had no room for */
            char num[24], more[24];
            int nw = snprintf(num, sizeof num, "%s%d", k ? " " : "", g->ranks[k]);
            int mw = k + 1 < g->n ? snprintf(more, sizeof more, " +%d", g->n - k - 1) : 0;
            if (x + nw + mw > r.x + r.w) {
                snprintf(more, sizeof more, " +%d", g->n - k);
                draw_put(r.y + rows, x, r.x + r.w - x, a->th.role[TH_DIM], more);
                break;
            }
            x += draw_put(r.y + rows, x, r.x + r.w - x, a->th.rank[g->ranks[k] % CV_MAX_RANKS],
                          num);
        }
        rows++;
    }
    return rows;
}

/* The ring's hops as a flow of "-class-> rank", wrapped; returns the rows used. */
static int topo_flow(const struct app *a, struct rect r, const struct topo_hop *h, int n)
{
    int y = r.y, x = r.x;
    x += draw_putf(y, x, r.w, a->th.rank[h[0].from % CV_MAX_RANKS] | A_BOLD, "%d", h[0].from);
    for (int i = 0; i < n; i++) {
        char text[48];
        int w = topo_hop_text(&h[i], text, sizeof text) + 1;
        if (x + w > r.x + r.w) {
            if (++y >= r.y + r.h) return y - r.y;
            x = r.x + 2;
        }
        attr_t at = topo_class_attr(a, h[i].cls) | (h[i].cross == 1 ? A_UNDERLINE : 0);
        x += draw_put(y, x, r.x + r.w - x, at, " ");
        x += draw_put(y, x, r.x + r.w - x, at, text);
    }
    return y - r.y + 1;
}

static void topo_ring(const struct app *a, struct rect r, int ch)
{
    const struct rec_ring *g = &topo_shown(a)->rings[ch];
    if (!g->order || r.h < 1) return;
    struct topo_hop *h = xcalloc((size_t)g->n, sizeof *h);
    int n = topo_ring_hops(topo_shown(a), ch, h, g->n), y = r.y, nolink = 0;
    for (int i = 0; i < n; i++)
        nolink += !h[i].have_link;
    draw_putf(y++, r.x, r.w, A_BOLD, "channel %d's ring, NCCL's order (%d ranks%s%s):", ch,
              g->n, g->n > TOPO_MAX_DRAWN ? ", drawn as a ring list" : "",
              nolink ? "; ?: no link line names the hop" : "");
    int keep = r.h > 6 ? 3 : 1;
    y += topo_flow(a, (struct rect){y, r.x, r.y + r.h - y - keep, r.w}, h, n);
    int c = topo_crossings(h, n);
    if (y < r.y + r.h) {
        if (c >= 0)
            draw_putf(y++, r.x, r.w, a->th.role[TH_MEASURED] | A_BOLD,
                      "node crossings: %d (underlined hops leave a node)", c);
        else
            draw_putf(y++, r.x, r.w, a->th.role[TH_DIM],
                      "node crossings: unknown (a rank's host is not in the record)");
    }
    struct styled_lines p = {.n = 0};
    styled_wrapped_max(&p, a->th.role[TH_DIM], r.w, topo_why_few, 3);
    styled_draw(&p, 0, (struct rect){y, r.x, r.y + r.h - y, r.w});
    free(h);
}

/* Channel ch's tree and its other half, side by side when they fit. */
static void topo_tree(const struct app *a, struct rect r, int ch)
{
    char(*lines)[80] = xcalloc(2 * 64, sizeof *lines);
    const struct topo_state *t = TOPO(a);
    /* a large record's: from the open node's first rank */
    int from = t->strip_on && t->node < t->strip.nnodes ? t->strip.first[t->node] : 0;
    int other = topo_tree_partner(topo_shown(a), ch);
    int n0 = topo_tree_lines(topo_shown(a), ch, from, lines, 64);
    int n1 = other >= 0 ? topo_tree_lines(topo_shown(a), other, from, lines + 64, 64) : 0;
    int y = r.y;
    if (n0 == 0) {
        draw_putf(y, r.x, r.w, a->th.role[TH_DIM], "channel %d: the record has no tree", ch);
        free(lines);
        return;
    }
    struct styled_lines p = {.n = 0};
    char caption[200]; /* what is drawn: chains, mirrored halves, ... (topotext.h) */
    styled_wrapped_max(&p, a->th.role[TH_DIM], r.w,
                       topo_tree_caption(topo_shown(a), ch, other, caption, sizeof caption), 2);
    y += styled_draw(&p, 0, (struct rect){y, r.x, 2, r.w});
    int half = r.w / 2, cols = other >= 0 && half >= 30 ? 2 : 1;
    int cw = cols == 2 ? half - 1 : r.w, rows = r.y + r.h - y - 1;
    if (from > 0)
        draw_putf(y, r.x, cw, A_BOLD, "channel %d's tree, from r%d:", ch, from);
    else
        draw_putf(y, r.x, cw, A_BOLD, "channel %d's tree:", ch);
    if (other >= 0)
        draw_putf(cols == 2 ? y : y + 1 + (n0 < rows / 2 ? n0 : rows / 2),
                  r.x + (cols - 1) * half, cw, A_BOLD, "the other half, channel %d:", other);
    for (int i = 0; i < n0 && i < (cols == 2 ? rows : rows / 2); i++)
        draw_put(y + 1 + i, r.x, cw, A_NORMAL, lines[i]);
    int y1 = cols == 2 ? y + 1 : y + 2 + (n0 < rows / 2 ? n0 : rows / 2);
    for (int i = 0; i < n1 && y1 + i < r.y + r.h; i++)
        draw_put(y1 + i, r.x + (cols - 1) * half, cw, A_NORMAL, lines[64 + i]);
    free(lines);
}

/* The strip's channel is ch's (its crossings and links counted once a channel). */
static struct topo_strip *topo_strip_at(const struct app *a, int ch)
{
    struct topo_state *t = a->screen_state[SCREEN_TOPOLOGY];
    if (t->strip.chan != ch) topo_strip_channel(topo_shown(a), &t->strip, ch);
    return &t->strip;
}

/* The open node's ranks as a group (its GPU boxes). */
static void topo_strip_group(const struct app *a, const struct topo_strip *s, int node,
                             struct topo_group *g)
{
    const struct rec_log *L = topo_shown(a);
    memset(g, 0, sizeof *g);
    snprintf(g->host, sizeof g->host, "%s", rec_host_name(L, s->host[node]));
    for (int r = s->first[node]; r < s->nranks && g->n + g->more < s->size[node]; r++)
        if (s->node_of[r] == node) {
            if (g->n < TOPO_MAX_DRAWN)
                g->ranks[g->n++] = r;
            else
                g->more++;
        }
}

/* A large record's nodes: a strip of cells (a node each: how many of channel ch's ring hops
 * leave it), a window of it around the open node, and the open node's GPUs. What it draws
 * is bounded by the area, whatever the nodes. Returns the rows used. */
static int topo_strip_nodes(struct app *a, struct rect r, int ch)
{
    const struct topo_state *t = TOPO(a);
    const struct topo_strip *s = topo_strip_at(a, ch);
    if (s->nnodes == 0 || r.h < 6) {
        draw_putf(r.y, r.x, r.w, a->th.role[TH_DIM], "%d ranks, no host named", s->nranks);
        return 1;
    }
    int y = r.y, node = t->node < s->nnodes ? t->node : 0;
    char kp[16] = "", kn[16] = "";
    bool hint = app_key_hint(a, ACT_NODE_PREV, kp, sizeof kp) &&
                app_key_hint(a, ACT_NODE_NEXT, kn, sizeof kn);
    char head[200];
    snprintf(head, sizeof head, "%d nodes%s; a cell a node: hops leaving it%s%s%s%s%s",
             s->nnodes, s->unplaced ? " and ranks not placed" : "", hint ? "; " : "", kp,
             hint ? " and " : "", kn, hint ? " open another" : "");
    y += draw_words(y, r.x, r.w, 1, A_BOLD, head);
    /* "  12 |..11[1]11..| 81" : the window's first and last node */
    char lo[16], hi[16];
    int digits = snprintf(lo, sizeof lo, "%d", s->nnodes - 1);
    int w = r.w - 2 * digits - 4;
    if (w > s->nnodes) w = s->nnodes;
    int first = topo_strip_window(s, node, w);
    snprintf(lo, sizeof lo, "%*d", digits, first);
    snprintf(hi, sizeof hi, "%d", first + w - 1);
    int x = r.x + draw_putf(y, r.x, r.w, a->th.role[TH_DIM], "%s |", lo);
    for (int i = 0; i < w; i++) {
        char c[2] = {topo_strip_cell(s, first + i), 0};
        attr_t at = first + i == node ? A_REVERSE | A_BOLD : a->th.role[TH_MEASURED];
        x += draw_put(y, x, 1, at, c);
    }
    draw_putf(y++, x, r.x + r.w - x, a->th.role[TH_DIM], "| %s", hi);
    struct topo_group *g = xmalloc(sizeof *g); /* 16 KiB: not on the stack */
    topo_strip_group(a, s, node, g);
    char label[32];
    int box_w = 4;
    for (int i = 0; i < g->n; i++) {
        topo_gpu_label(topo_shown(a), g->ranks[i], label, sizeof label);
        if ((int)strlen(label) + 2 > box_w) box_w = (int)strlen(label) + 2;
    }
    draw_putf(y++, r.x, r.w, A_NORMAL, "node %d of %d: %d rank%s%s", node, s->nnodes,
              s->size[node], s->size[node] == 1 ? "" : "s",
              g->more ? " (the first drawn)" : "");
    int used = topo_group_boxes(a, g, (struct rect){y, r.x, r.y + r.h - y - 3, r.w}, box_w);
    if (used == 0) { /* no room for the boxes: the ranks on a line */
        x = r.x + draw_putf(y, r.x, r.w, A_BOLD, "%s: ", g->host);
        for (int k = 0; k < g->n && x < r.x + r.w; k++) {
            char num[16];
            int l = snprintf(num, sizeof num, "%s%d", k ? " " : "", g->ranks[k]);
            if (x + l > r.x + r.w) break; /* never half a number */
            x += draw_put(y, x, l, a->th.rank[g->ranks[k] % CV_MAX_RANKS], num);
        }
        used = 1;
    }
    free(g);
    return y + used - r.y;
}

/* Channel ch's ring through the open node: each pass (the hop in, the hops inside, the hop
 * out) as a flow, and the ring's node crossings. */
static void topo_strip_ring(struct app *a, struct rect r, int ch)
{
    const struct topo_state *t = TOPO(a);
    const struct topo_strip *s = topo_strip_at(a, ch);
    if (r.h < 2 || s->nnodes == 0) return;
    struct topo_hop h[64];
    int passes = 0, n = topo_strip_passes(topo_shown(a), s, t->node, h, 64, &passes);
    int y = r.y, keep = r.h > 6 ? 3 : 1;
    draw_putf(y++, r.x, r.w, A_BOLD, "channel %d's ring (%d ranks) through node %d: %d pass%s",
              ch, s->ring_n, t->node, passes, passes == 1 ? "" : "es");
    for (int i = 0; i < n && y < r.y + r.h - keep;) {
        int j = i + 1; /* a pass ends with its hop out */
        while (j < n && !(h[j - 1].cross == 1 && s->node_of[h[j - 1].from] == t->node))
            j++;
        y += topo_flow(a, (struct rect){y, r.x, r.y + r.h - keep - y, r.w}, &h[i], j - i);
        i = j;
    }
    if (y < r.y + r.h) {
        if (s->crossings >= 0)
            draw_putf(y++, r.x, r.w, a->th.role[TH_MEASURED] | A_BOLD,
                      "node crossings: %d of %d hops (underlined hops leave a node)",
                      s->crossings, s->ring_n);
        else
            draw_putf(y++, r.x, r.w, a->th.role[TH_DIM],
                      "node crossings: unknown (a rank's host is not in the record)");
    }
    struct styled_lines p = {.n = 0};
    styled_wrapped_max(&p, a->th.role[TH_DIM], r.w, topo_why_few, 3);
    styled_draw(&p, 0, (struct rect){y, r.x, r.y + r.h - y, r.w});
}

/* Communicator c's role in the job as recsay.h groups them: "TP group" when the job's
 * framework names it, else where its ranks are. */
static const char *topo_comm_role(const struct rec_log *L, int c)
{
    const struct rec_facts *f = &L->comms[c];
    enum rec_span sp = f->nnodes == 1                            ? REC_SPAN_ONE
                       : f->nnodes > 1 && f->nnodes == f->nranks ? REC_SPAN_ACROSS
                       : f->nnodes > 1                           ? REC_SPAN_SEVERAL
                                                                 : REC_SPAN_UNKNOWN;
    struct rec_jobsay J;
    rec_say_job(L, &J);
    for (int i = 0; i < J.ngroups; i++)
        if (J.groups[i].role && J.groups[i].nranks == f->nranks && J.groups[i].span == sp)
            return strcmp(J.groups[i].role, "TP") == 0   ? "TP group"
                   : strcmp(J.groups[i].role, "PP") == 0 ? "PP group"
                                                         : "DP group";
    return sp == REC_SPAN_ONE       ? "one node"
           : sp == REC_SPAN_ACROSS  ? "one rank a node"
           : sp == REC_SPAN_SEVERAL ? "several nodes"
                                    : "nodes not printed";
}

/* "comm 2/4: 8 ranks on 1 node, TP group (0xc9d8...) (u: next)" above a record with several
 * communicators; returns the rows used. Parts that do not fit are left out whole. */
static int topo_comm_line(const struct app *a, struct rect r)
{
    const struct topo_state *t = TOPO(a);
    if (!t->rec || t->rec->ncomms < 2 || r.h < 4) return 0;
    const struct rec_facts *f = &t->rec->comms[t->comm];
    char parts[4][96];
    int np = 0;
    snprintf(parts[np++], 96, "comm %d/%d", t->comm + 1, t->rec->ncomms);
    if (f->nranks > 0 && f->nnodes > 0)
        snprintf(parts[np++], 96, ": %d ranks on %d node%s", f->nranks, f->nnodes,
                 f->nnodes == 1 ? "" : "s");
    else if (f->nranks > 0)
        snprintf(parts[np++], 96, ": %d ranks", f->nranks);
    else
        snprintf(parts[np++], 96, ": size not printed");
    snprintf(parts[np++], 96, ", %s", topo_comm_role(t->rec, t->comm));
    if (f->id[0]) snprintf(parts[np++], 96, " (%s)", f->id);
    char line[400] = "", ks[16];
    size_t o = 0;
    for (int i = 0; i < np; i++)
        if (o + strlen(parts[i]) + 12 <= (size_t)r.w)
            o = cv_cat(line, sizeof line, o, "%s", parts[i]);
    if (app_key_hint(a, ACT_TOPO_COMM, ks, sizeof ks) && o + strlen(ks) + 9 <= (size_t)r.w)
        cv_cat(line, sizeof line, o, " (%s: next)", ks);
    draw_put(r.y, r.x, r.w, a->th.role[TH_STEP] | A_BOLD, line);
    return 1;
}

static void topo_status(const struct app *a, struct rect r, int ch, int k, int n)
{
    if (a->msg[0]) {
        draw_words(r.y, r.x, r.w, 1, a->th.role[TH_WARN], a->msg);
        return;
    }
    if (!topo_record(a)) return;
    const struct topo_state *t = a->screen_state[SCREEN_TOPOLOGY];
    if (t && t->pub.test > 0) {
        char ks[16];
        bool hint = app_key_hint(a, ACT_TOPO_TESTS, ks, sizeof ks);
        const char *then = t->pub.test < topo_record(a)->ntests ? ": next test)"
                           : ch >= 0                            ? ": back to the ring)"
                                                                : ": the first test)";
        char s[160];
        snprintf(s, sizeof s, "nccl-tests: test %d of %d%s%s%s", t->pub.test,
                 topo_record(a)->ntests, hint ? " (" : "", hint ? ks : "", hint ? then : "");
        draw_words(r.y, r.x, r.w, 1, a->th.role[TH_STEP], s);
        return;
    }
    if (ch < 0) {
        draw_put(r.y, r.x, r.w, a->th.role[TH_WARN], "the record has no rings nor trees");
        return;
    }
    int x = r.x + draw_putf(r.y, r.x, r.w, a->th.role[TH_STEP], "channel %d (%d of %d)%s", ch,
                            k + 1, n, topo_record(a)->nwarnings ? "   record: " : "");
    if (topo_record(a)->nwarnings) /* as much as fits, ending at a word */
        draw_words(r.y, x, r.x + r.w - x, 1, a->th.role[TH_DIM], topo_record(a)->warnings[0]);
}

static void topo_draw(struct app *a, struct rect area)
{
    int bar = a->embedded ? 0 : 1;
    if (area.h + (a->bar_row_free ? 1 : 0) < LAYOUT_MIN_ROWS || area.w < LAYOUT_MIN_COLS) {
        a->nbar = 0;
        overlay_too_small(a, area, LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS);
        return;
    }
    struct topo_state *t = topo_st(a);
    t->pub.last_step = (long)app_step(a);
    topo_title(a, (struct rect){area.y, area.x, 1, area.w});
    int k = 0, n = 0, ch = topo_cur_chan(a, &k, &n);
    topo_status(a, (struct rect){area.y + 1, area.x + 1, 1, area.w - 2}, ch, k, n);
    struct rect body = {area.y + 2, area.x + 1, area.h - 2 - bar, area.w - 2};
    if (!topo_record(a)) {
        draw_put(body.y, body.x, body.w,
                 topo_st(a)->liblog_id ? A_BOLD : a->th.role[TH_WARN] | A_BOLD,
                 topo_st(a)->rec_why[0] ? topo_st(a)->rec_why : "no NCCL record read");
        struct styled_lines p = {.n = 0};
        styled_wrapped_max(
            &p, a->th.role[TH_DIM], body.w,
            "collviz --nccl-log FILE... reads a real cluster's record (NCCL INFO "
            "logs, nccl-tests output); on a GPU run t reads NCCL's own log of this "
            "run.",
            3);
        styled_draw(&p, 0, (struct rect){body.y + 2, body.x, body.h - 2, body.w});
    } else if (t->pub.test > 0 && t->pub.test <= topo_record(a)->ntests) {
        topo_tests_draw(a, body, t->pub.test - 1);
    } else {
        int top = topo_comm_line(a, body);
        body.y += top;
        body.h -= top;
        int used = t->strip_on ? topo_strip_nodes(a, body, ch) : topo_nodes(a, body, 9);
        struct rect rest = {body.y + used, body.x, body.h - used, body.w};
        bool tree = t->pub.tree || (ch >= 0 && !topo_shown(a)->rings[ch].order);
        if (ch >= 0 && tree)
            topo_tree(a, rest, ch);
        else if (ch >= 0 && t->strip_on)
            topo_strip_ring(a, rest, ch);
        else if (ch >= 0)
            topo_ring(a, rest, ch);
    }
    if (bar) frame_bar(a, (struct rect){area.y + area.h - 1, area.x, 1, area.w}, KEYS_ON_TOPO);
}

static void topo_help(const struct app *a, struct styled_lines *p, int width)
{
    static const enum rec_class cls[] = {REC_NVLINK,     REC_PCIE,   REC_SHM,
                                         REC_IB,         REC_ROCE,   REC_NET,
                                         REC_NET_PLUGIN, REC_SOCKET, REC_UNKNOWN};
    struct styled_line *l = styled_new(p);
    styled_add(l, A_BOLD, "links    ");
    for (size_t i = 0; i < ARRAY_LEN(cls); i++)
        styled_add(l, topo_class_attr(a, cls[i]), "%s ", rec_class_name(cls[i]));
    styled_wrapped_max(
        p, A_NORMAL, width,
        "Each hop's class is what NCCL's own link line says; underlined hops leave "
        "a node. Steps are the record's channels.",
        3);
    styled_wrapped_max(
        p, A_NORMAL, width,
        "T: the record's nccl-tests rows, busbw vs size as measured (from the file), "
        "and the alpha-beta model fitted to them as model --fit does.",
        3);
}

static void topo_free(struct app *a)
{
    struct topo_state *t = a->screen_state[SCREEN_TOPOLOGY];
    if (!t) return;
    topo_unmake(t);
    rec_free(t->rec);
    free(t);
    a->screen_state[SCREEN_TOPOLOGY] = NULL;
}

const struct screen_ops screen_topology = {
    .name = "topology",
    .kind = SCREEN_TOPOLOGY,
    .scene_fields = SF_STEP,
    .keys_on = KEYS_ON_TOPO,
    .min_ranks = 1,
    .max_ranks = CV_MAX_RANKS,
    .apply = topo_apply,
    .nsteps = topo_nsteps,
    .action = topo_action,
    .draw = topo_draw,
    .help = topo_help,
    .free_state = topo_free,
    .record = topo_record,
    .record_comm = topo_record_comm,
    .result = topo_result,
    .cancelled = topo_cancelled,
    .enter = topo_enter,
};
