/* recline.c - launcher prefixes, suffixes and NCCL's header of one line (recline.h).
 *
 * Every form is matched whole or not at all: a prefix is cut only when all of it is there,
 * and a header is a header only from its host to "NCCL INFO ". What is left over is reported
 * (cut, spliced, unreadable), never guessed at. */
#include "records/recline.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "records/records.h"

static const char *const pfx_names[REC_PFX_N] = {
    "openmpi-tag", "mpi-rank",    "torchrun-rank",  "ray-worker",
    "ray-nested",  "pdsh-host",   "python-logging", "timestamp",
    "table-pipe",  "ansi-escape", "ansi-text",      "nccltests-hash-stripped",
    "slurm-task",  "docker-name",
};

const char *rec_prefix_name(int bit)
{
    return bit >= 0 && bit < REC_PFX_N ? pfx_names[bit] : "?";
}

const char *rec_launcher_name(enum rec_launcher l)
{
    static const char *const names[] = {NULL,  "openmpi", "mpi",   "torchrun",
                                        "ray", "pdsh",    "slurm", "docker"};
    return (unsigned)l <= REC_LAUNCH_DOCKER ? names[l] : NULL;
}

/* ---- marks ---------------------------------------------------------------------------- */

/* Does s start with the literal w? A byte at a time: s ends at its NUL, which no w holds. */
static bool begins(const char *s, const char *w)
{
    while (*w)
        if (*s++ != *w++) return false;
    return true;
}

/* The texts a line is marked for (recline.h's REC_MK_*), one row each. `digit`: a Python
 * logger's level word, a mark only with a digit after it. REC_MK_HDR's texts are counted
 * instead (two of them: REC_MK_HDR2). Everything else is derived from this table: the pairs
 * of first bytes rec_line_marks looks for and the rows marks_at reads at a place. */
static const struct mark_text {
    const char *text;
    unsigned mark;
    bool digit;
} mark_texts[] = {
    {"NCCL INFO", REC_MK_HDR, false},
    {"NCCL WARN", REC_MK_HDR, false},
    {"NCCL version ", REC_MK_VERSION, false},
    {"RCCL version ", REC_MK_VERSION, false},
    {"NVLS multicast support is available", REC_MK_NVLS_MC, false},
    {"comm 0x", REC_MK_COMM, false},
    {"Init START", REC_MK_START, false},
    {"Init COMPLETE", REC_MK_COMPLETE, false},
    {"INFO ", REC_MK_PYLOG, true},
    {"WARNING ", REC_MK_PYLOG, true},
    {"ERROR ", REC_MK_PYLOG, true},
    {"DEBUG ", REC_MK_PYLOG, true},
    {"init.cc:", REC_MK_INITCC, false},
    {"init.cu:", REC_MK_INITCC, false},
    /* texts only RCCL prints (its format strings, src/ of ROCm/rccl, less NVIDIA/nccl's of
     * 2.18-2.30): its SMI library, its net plugin's and its own library's file names
     * ("No plugin found (librccl-net.so)", "Librccl path :"), clique kernels, ROCr,
     * its RCCL_ variables ("Disabling clique-based kernels (did not find env var
     * RCCL_ENABLE_CLIQUE)") and its own lines ("RCCL enabled same node P2P") */
    {"rsmi", REC_MK_RCCL, false},
    {"rocm_smi", REC_MK_RCCL, false},
    {"ibrccl", REC_MK_RCCL, false},
    {"lique kernels", REC_MK_RCCL, false},
    {"lique-based kernels", REC_MK_RCCL, false},
    {"ROCr ", REC_MK_RCCL, false},
    {"RCCL_", REC_MK_RCCL, false},
    {"RCCL enabled ", REC_MK_RCCL, false},
    {"RCCL force ", REC_MK_RCCL, false},
    {"[rep", REC_MK_REPEAT, false},
    {"[receive]", REC_MK_RECEIVE, false},
    {"->", REC_MK_ARROW, false},
    {" nranks ", REC_MK_NRANKS, false},
    {" nRanks ", REC_MK_NRANKS, false},
    {" via ", REC_MK_VIA, false},
    {" set by environment to ", REC_MK_ENV, false},
};
#define MARK_TEXTS (sizeof mark_texts / sizeof *mark_texts)

/* Each text's first two bytes, a bit each in a table of every pair: one look a byte finds
 * the few places a text may start. The rows by their first byte: those of byte b are
 * mark_texts[mark_order[k]] for k from mark_start[b] to mark_start[b + 1]. */
static uint64_t pair_bits[1 << 10];
static unsigned char mark_order[MARK_TEXTS];
static unsigned char mark_start[257];
/* The bytes rec_line_clean looks at more closely: ESC, "ESC[" as text, Open MPI's "[1,0]",
 * and those not kept as they are. */
static unsigned char clean_special[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static unsigned pair_of(const char *p)
{
    return (unsigned char)p[0] | (unsigned)(unsigned char)p[1] << 8;
}

static void tables_init(void)
{
    unsigned char count[256] = {0};
    for (size_t i = 0; i < MARK_TEXTS; i++) {
        unsigned v = pair_of(mark_texts[i].text);
        pair_bits[v >> 6] |= 1ULL << (v & 63);
        count[(unsigned char)mark_texts[i].text[0]]++;
    }
    for (unsigned b = 0; b < 256; b++)
        mark_start[b + 1] = (unsigned char)(mark_start[b] + count[b]);
    unsigned char at[256];
    memcpy(at, mark_start, sizeof at);
    for (size_t i = 0; i < MARK_TEXTS; i++)
        mark_order[at[(unsigned char)mark_texts[i].text[0]]++] = (unsigned char)i;
    for (unsigned c = 0; c < 256; c++)
        clean_special[c] = c < 0x20 || c >= 0x7f || c == 0x1b || c == 'E' || c == '[';
}

static unsigned marks_ncclhdr(int ncclhdr)
{
    return (ncclhdr ? REC_MK_HDR : 0u) | (ncclhdr > 1 ? REC_MK_HDR2 : 0u);
}

/* The marks of the texts that start at p (a marked pair starts there); a header text
 * counted in *ncclhdr. */
static unsigned marks_at(const char *p, int *ncclhdr)
{
    unsigned m = 0, b = (unsigned char)p[0];
    for (unsigned k = mark_start[b]; k < mark_start[b + 1]; k++) {
        const struct mark_text *t = &mark_texts[mark_order[k]];
        if (!begins(p, t->text)) continue;
        if (t->digit && !isdigit((unsigned char)p[strlen(t->text)])) continue;
        if (t->mark == REC_MK_HDR)
            (*ncclhdr)++;
        else
            m |= t->mark;
    }
    return m;
}

/* The marks at p (line + off), added to *m; the first place of each new exact one noted. */
static void mark_at(const char *line, unsigned off, unsigned *m, int *ncclhdr,
                    struct rec_line *ln)
{
    unsigned b = marks_at(line + off, ncclhdr), fresh = b & ~*m & REC_MK_EXACT;
    for (; fresh; fresh &= fresh - 1)
        ln->first[__builtin_ctz(fresh)] = off;
    *m |= b;
}

unsigned rec_line_marks(const char *line, struct rec_line *ln)
{
    pthread_once(&tables_once, tables_init);
    unsigned m = 0;
    int ncclhdr = 0;
    for (const char *p = line; *p; p++) {
        unsigned v = pair_of(p); /* p[1] is there: p[0] is no NUL */
        if (pair_bits[v >> 6] >> (v & 63) & 1)
            mark_at(line, (unsigned)(p - line), &m, &ncclhdr, ln);
    }
    return m | marks_ncclhdr(ncclhdr);
}

/* ---- cleaning ------------------------------------------------------------------------- */

/* The special byte at p (clean_special): the last byte of what it starts and is cut (a
 * colour code, an Open MPI tag), or NULL: the byte is kept. */
static const char *clean_cut(const char *p, const char *e, struct rec_line *ln)
{
    if (*p == 0x1b) { /* ESC [ params letter */
        ln->prefixes |= REC_PFX_ANSI;
        if (p + 1 < e && p[1] == '[') {
            const char *q = p + 2;
            while (q < e && (isdigit((unsigned char)*q) || *q == ';' || *q == '?'))
                q++;
            if (q < e && isalpha((unsigned char)*q)) return q;
        }
        return p;
    }
    if (*p == 'E' && e - p >= 5 && memcmp(p, "ESC[", 4) == 0) { /* "ESC[36m" as text */
        const char *q = p + 4;
        while (q < e && (isdigit((unsigned char)*q) || *q == ';'))
            q++;
        if (q < e && *q == 'm') {
            ln->prefixes |= REC_PFX_ANSI_TEXT;
            return q;
        }
    }
    if (*p == '[') { /* Open MPI's [job,rank]<stdout>: or <stderr>:, wherever it is */
        const char *q = p + 1;
        while (q < e && isdigit((unsigned char)*q))
            q++;
        if (q > p + 1 && q < e && *q == ',') {
            const char *r = q + 1;
            while (r < e && isdigit((unsigned char)*r))
                r++;
            if (r > q + 1 && e - r >= 10 &&
                (memcmp(r, "]<stdout>:", 10) == 0 || memcmp(r, "]<stderr>:", 10) == 0)) {
                ln->prefixes |= REC_PFX_TAG_OUTPUT;
                if (!ln->launcher) ln->launcher = REC_LAUNCH_OPEN_RTE;
                return r + 9;
            }
        }
    }
    return NULL;
}

/* One pass: each byte copied (most as they are; a special one looked at by clean_cut), and
 * each place a marked text may start noted (its first two bytes, as kept, are a marked
 * pair); the marks are read at those places once the line is whole. */
void rec_line_clean(const char *b, const char *e, char *out, struct rec_line *ln)
{
    pthread_once(&tables_once, tables_init);
    size_t k = 0;
    unsigned prev = 0; /* the byte kept before, 0 none: no pair starts with it */
    unsigned at[48], nat = 0;
    bool many = false; /* more places than at[] holds: the marks from a scan of the line */
    for (const char *p = b; p < e; p++) {
        unsigned c = (unsigned char)*p;
        if (clean_special[c]) {
            const char *cut = clean_cut(p, e, ln);
            if (cut) {
                p = cut;
                continue;
            }
            if (c == '\r' && p + 1 == e) break;
            c = c == '\t' ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : c;
        }
        if (k >= REC_MAX_LINE) break;
        out[k] = (char)c;
        unsigned v = prev | c << 8;
        if (pair_bits[v >> 6] >> (v & 63) & 1) {
            if (nat < sizeof at / sizeof *at)
                at[nat++] = (unsigned)k - 1;
            else
                many = true;
        }
        prev = c;
        k++;
    }
    out[k] = '\0';
    ln->line = out;
    if (many) {
        ln->marks = rec_line_marks(out, ln);
        return;
    }
    int ncclhdr = 0;
    unsigned m = 0;
    for (unsigned i = 0; i < nat; i++) /* in order: the first of each is noted first */
        mark_at(out, at[i], &m, &ncclhdr, ln);
    ln->marks = m | marks_ncclhdr(ncclhdr);
}

/* ---- small matchers: each returns the end of its form, or NULL ------------------------ */

static const char *digits(const char *p, int min, int max)
{
    int n = 0;
    while (n < max && isdigit((unsigned char)p[n]))
        n++;
    return n >= min && !isdigit((unsigned char)p[n]) ? p + n : NULL;
}

static const char *lit(const char *p, const char *s)
{
    if (!p) return NULL;
    while (*s) /* a byte at a time: the literals are short, most lines differ at once */
        if (*p++ != *s++) return NULL;
    return p;
}

static long strtol_dec(const char *p)
{
    long v = 0;
    for (int n = 0; isdigit((unsigned char)*p) && n < 10; p++, n++)
        v = v * 10 + (*p - '0');
    return v;
}

static const char *skip_spaces(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

static bool host_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* "05:27:45": a time of day as ISO and syslog write it */
static const char *hms(const char *p)
{
    const char *q = digits(p, 2, 2);
    q = q ? lit(q, ":") : NULL;
    q = q ? digits(q, 2, 2) : NULL;
    q = q ? lit(q, ":") : NULL;
    return q ? digits(q, 2, 2) : NULL;
}

/* 2024-12-04T05:27:45.084Z, 2025-11-12 20:41:43,851, with an optional zone */
static const char *iso_time(const char *p)
{
    const char *q = digits(p, 4, 4);
    q = q ? lit(q, "-") : NULL;
    q = q ? digits(q, 2, 2) : NULL;
    q = q ? lit(q, "-") : NULL;
    q = q ? digits(q, 2, 2) : NULL;
    if (!q || (*q != 'T' && *q != ' ')) return NULL;
    q = hms(q + 1);
    if (!q) return NULL;
    if ((*q == '.' || *q == ',') && isdigit((unsigned char)q[1])) q = digits(q + 1, 1, 9);
    if (*q == 'Z')
        q++;
    else if ((*q == '+' || *q == '-') && digits(q + 1, 2, 2) && q[3] == ':' &&
             digits(q + 4, 2, 2))
        q += 6;
    return q;
}

static bool month(const char *p)
{
    static const char m[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    if (!isupper((unsigned char)p[0]) || p[3] != ' ') return false;
    for (int i = 0; i < 12; i++)
        if (strncmp(p, m + 3 * i, 3) == 0 && p[3] == ' ') return true;
    return false;
}

/* "Jul 18 15:41:05" (syslog), the day possibly space-padded */
static const char *mon_day_time(const char *p)
{
    if (!month(p)) return NULL;
    const char *q = p + 4;
    if (*q == ' ') q++;
    q = digits(q, 1, 2);
    q = q ? lit(q, " ") : NULL;
    return q ? hms(q) : NULL;
}

/* "Thu Jul 18 15:41:05 2024" (ctime, Open MPI's --timestamp-output) */
static const char *ctime_time(const char *p)
{
    static const char d[] = "MonTueWedThuFriSatSun";
    bool day = false;
    if (!isupper((unsigned char)p[0]) || p[3] != ' ') return NULL;
    for (int i = 0; i < 7 && !day; i++)
        day = strncmp(p, d + 3 * i, 3) == 0 && p[3] == ' ';
    if (!day) return NULL;
    const char *q = mon_day_time(p + 4);
    q = q ? lit(q, " ") : NULL;
    return q ? digits(q, 4, 4) : NULL;
}

/* "host:pid:tid [dev] " at p; fills ln; returns the end or NULL */
static const char *hdr_hpt(const char *p, struct rec_line *ln)
{
    const char *h = p;
    while (*h && *h != ':' && *h != ' ' && *h != '[' && *h != ']' && *h != '(' && *h != ')')
        h++;
    if (h == p || *h != ':' || h - p >= (long)sizeof ln->host) return NULL;
    const char *q = digits(h + 1, 1, 10);
    q = q ? lit(q, ":") : NULL;
    const char *t = q;
    q = q ? digits(q, 1, 10) : NULL;
    q = q ? lit(q, " [") : NULL;
    const char *d = q;
    q = q ? digits(q, 1, 5) : NULL;
    q = q ? lit(q, "] ") : NULL;
    if (!q) return NULL;
    memcpy(ln->host, p, (size_t)(h - p));
    ln->host[h - p] = '\0';
    if (ln->host[0] == '<' && h[-1] == '>') { /* a name put in for the host: no host's */
        ln->placeholder = true;
        ln->host[0] = '\0';
    }
    ln->pid = strtol_dec(h + 1);
    ln->tid = strtol_dec(t);
    ln->dev = (int)strtol_dec(d);
    return q;
}

/* "NCCL INFO " or "[file.cc:N ]NCCL WARN " at p */
static const char *hdr_nccl(const char *p, struct rec_line *ln)
{
    const char *q = p;
    if (strncmp(q, "NCCL ", 5) != 0) { /* a source location first: "misc/socket.cc:483 " */
        const char *s = strchr(q, ' ');
        const char *c = strchr(q, ':');
        if (!s || !c || c > s || !digits(c + 1, 1, 6) || digits(c + 1, 1, 6) != s) return NULL;
        q = s + 1;
    }
    if (strncmp(q, "NCCL INFO", 9) == 0 && (q[9] == ' ' || q[9] == '\0')) {
        ln->warn = false;
        return q[9] ? q + 10 : q + 9;
    }
    if (strncmp(q, "NCCL WARN", 9) == 0 && (q[9] == ' ' || q[9] == '\0')) {
        ln->warn = true;
        return q[9] ? q + 10 : q + 9;
    }
    return NULL;
}

/* The whole header at p: "host:pid:tid [dev] NCCL INFO " or " [dev] NCCL INFO ". */
static const char *header(const char *p, struct rec_line *ln)
{
    struct rec_line t = *ln;
    t.host[0] = '\0';
    t.pid = t.tid = -1;
    t.dev = -1;
    const char *q = hdr_hpt(p, &t);
    if (!q) { /* hostless (a reporter cut the host names): "[0] NCCL INFO", or the whole
               * header cut: "NCCL INFO" at the start */
        const char *s = p;
        while (*s == ' ')
            s++;
        const char *d = lit(s, "[");
        const char *e = d ? digits(d, 1, 5) : NULL;
        e = e ? lit(e, "] ") : NULL;
        if (e) {
            t.dev = (int)strtol_dec(d);
            q = e;
        } else if (strncmp(s, "NCCL ", 5) == 0) {
            q = s;
        } else {
            return NULL;
        }
    }
    const char *m = hdr_nccl(q, &t);
    if (!m) return NULL;
    *ln = t;
    ln->nccl = true;
    ln->msg = m;
    return m;
}

/* "INFO 04-20 16:48:04 [" (vLLM's logger) at p */
static bool pylog_record(const char *p)
{
    static const char *const lv[] = {"INFO ", "WARNING ", "ERROR ", "DEBUG "};
    if (!strchr("IWED", *p) || !*p) return false;
    for (size_t i = 0; i < sizeof lv / sizeof *lv; i++) {
        const char *q = lit(p, lv[i]);
        if (!q) continue;
        q = digits(q, 2, 2);
        q = q ? lit(q, "-") : NULL;
        q = q ? digits(q, 2, 2) : NULL;
        q = q ? lit(q, " ") : NULL;
        q = q ? digits(q, 2, 2) : NULL;
        q = q ? lit(q, ":") : NULL;
        if (q) return true;
    }
    return false;
}

/* A cut header: the line ends inside "host:pid:tid [dev] NCCL ". */
static bool header_prefix(const char *p)
{
    if (!*p) return false;
    const char *q = p;
    while (host_char(*q))
        q++;
    if (!*q) return q > p;
    if (*q++ != ':') return false;
    while (isdigit((unsigned char)*q))
        q++;
    if (!*q) return true;
    if (*q++ != ':') return false;
    while (isdigit((unsigned char)*q))
        q++;
    if (!*q) return true;
    const char *rest = " [";
    for (; *rest && *q; rest++, q++)
        if (*q != *rest) return false;
    if (!*q) return true;
    while (isdigit((unsigned char)*q))
        q++;
    if (!*q) return true;
    const char *tail = "] NCCL INFO";
    for (; *tail && *q; tail++, q++)
        if (*q != *tail) return false;
    return !*q;
}

/* ---- prefixes ------------------------------------------------------------------------- */

/* A line that starts with a time: ISO (or Python logging's "... - INFO - " after it), ctime,
 * or syslog's "Jul 18 15:41:05 host tag[pid]: ". The end of the prefix, or NULL. */
static const char *time_prefix(const char *t, struct rec_line *ln)
{
    const char *q;
    if ((q = iso_time(t)) != NULL) {
        const char *lv = lit(q, " - ");
        if (lv) { /* Python logging: "... - INFO - " */
            const char *w = lv;
            while (isupper((unsigned char)*w))
                w++;
            if (w > lv && (w = lit(w, " - ")) != NULL) {
                ln->prefixes |= REC_PFX_PYLOG;
                return w;
            }
        }
        ln->prefixes |= REC_PFX_TIME;
        return *q == ' ' ? q + 1 : q;
    }
    if ((q = ctime_time(t)) != NULL) {
        ln->prefixes |= REC_PFX_TIME;
        return *q == ' ' ? q + 1 : q;
    }
    if ((q = mon_day_time(t)) != NULL) { /* syslog: "Jul 18 15:41:05 host tag[pid]: " */
        ln->prefixes |= REC_PFX_TIME;
        q = lit(q, " ");
        if (!q) return t + 15;
        const char *h = q;
        while (host_char(*h))
            h++;
        if (*h == ' ' && h > q) {
            const char *g = h + 1;
            while (*g && *g != ' ' && *g != ':')
                g++;
            if (g[0] == ':' && g[1] == ' ') return g + 2;
        }
        return q;
    }
    return NULL;
}

static const char *one_prefix(const char *s, struct rec_line *ln, int *rays)
{
    const char *t = s, *q;
    while (*t == ' ')
        t++;
    if (*t == '[' && (q = digits(t + 1, 0, 3)) != NULL) { /* "[0m": a colour code's remnant */
        const char *m = q;
        while (*m == ';' || isdigit((unsigned char)*m))
            m++;
        if (*m == 'm' && m > t + 1) {
            ln->prefixes |= REC_PFX_ANSI;
            return m + 1;
        }
    }
    if (*t == '|') { /* CloudWatch: "  | 2024-12-04T05:27:45.084Z | " */
        const char *b = t + 1;
        while (*b == ' ')
            b++;
        const char *bar = strchr(b, '|');
        if (bar && bar - b < 64) {
            if (iso_time(b)) ln->prefixes |= REC_PFX_TIME;
            ln->prefixes |= REC_PFX_PIPE;
            q = bar + 1;
            return *q == ' ' ? q + 1 : q;
        }
    }
    if (*t == '(') { /* Ray: "(RayWorkerWrapper pid=627, ip=10.244.1.107) " */
        q = t + 1;
        while (isalnum((unsigned char)*q) || *q == '_' || *q == ':')
            q++;
        if (q > t + 1 && (q = lit(q, " pid=")) != NULL && (q = digits(q, 1, 10)) != NULL) {
            if (q[0] == ',' && q[1] == ' ') {
                q += 2;
                while (*q && *q != ')' && *q != ' ')
                    q++;
            }
            if (*q == ')') {
                (*rays)++;
                ln->prefixes |= REC_PFX_RAY;
                ln->launcher = REC_LAUNCH_RAY;
                q++;
                return *q == ' ' ? q + 1 : q;
            }
        }
    }
    if (*t == '[') {
        q = lit(t, "[rank");
        if (!q) q = lit(t, "[default");
        if (q && (q = digits(q, 1, 7)) != NULL && (q = lit(q, "]:")) != NULL) {
            ln->prefixes |= REC_PFX_TORCHRUN;
            ln->launcher = REC_LAUNCH_TORCHRUN;
            return *q == ' ' ? q + 1 : q;
        }
        q = digits(t + 1, 1, 7);
        if (q && q[0] == ']' && q[1] == ' ' && strncmp(q + 2, "NCCL ", 5) != 0) {
            ln->prefixes |= REC_PFX_RANK_TAG;
            if (!ln->launcher) ln->launcher = REC_LAUNCH_HYDRA;
            return q + 2;
        }
        const char *it = iso_time(t + 1); /* "[2026-03-03 12:35:26] " */
        if (it && *it == ']') {
            ln->prefixes |= REC_PFX_TIME;
            return it[1] == ' ' ? it + 2 : it + 1;
        }
    }
    if ((q = time_prefix(t, ln)) != NULL) return q;
    if ((q = lit(t, "<stdout>:")) != NULL || (q = lit(t, "<stderr>:")) != NULL) {
        ln->prefixes |= REC_PFX_TAG_OUTPUT;
        if (!ln->launcher) ln->launcher = REC_LAUNCH_OPEN_RTE;
        return q;
    }
    if ((q = digits(t, 1, 6)) != NULL && q[0] == ':' && q[1] == ' ') { /* srun -l: "3: " */
        ln->prefixes |= REC_PFX_SLURM;
        ln->launcher = REC_LAUNCH_SLURM;
        return q + 2;
    }
    q = t;
    while (host_char(*q))
        q++;
    if (q > t && q[0] == ':' && q[1] == ' ') { /* pdsh: "10.0.0.1: " before a header */
        struct rec_line tmp = *ln;
        if (header(q + 2, &tmp)) {
            ln->prefixes |= REC_PFX_PDSH;
            ln->launcher = REC_LAUNCH_PDSH;
            return q + 2;
        }
    }
    if (q > t && *q == ' ') { /* docker compose / kubectl: "name  | " */
        const char *b = q;
        while (*b == ' ')
            b++;
        struct rec_line tmp = *ln;
        if (b[0] == '|' && b[1] == ' ' && header(skip_spaces(b + 2), &tmp)) {
            ln->prefixes |= REC_PFX_DOCKER;
            ln->launcher = REC_LAUNCH_DOCKER;
            return skip_spaces(b + 2);
        }
    }
    return NULL;
}

/* Ray's " [repeated 15x across cluster]" (and what follows it), or its cut start. */
static void dedup_suffix(char *s, struct rec_line *ln)
{
    if (!(ln->marks & REC_MK_REPEAT)) return; /* both forms hold "[rep" */
    for (char *r = strstr(s, "[repeated "); r; r = strstr(r + 1, "[repeated ")) {
        const char *q = digits(r + 10, 1, 9);
        if (!q) continue;
        const char *want = "x across cluster]";
        size_t i = 0;
        while (want[i] && q[i] == want[i])
            i++;
        if (want[i] && q[i]) continue; /* something else */
        ln->dedup = true;
        if (want[i]) ln->cut = true;
        while (r > s && r[-1] == ' ')
            r--;
        *r = '\0';
        ln->marks = rec_line_marks(ln->line, ln); /* of the line as cut */
        return;
    }
    /* "[repeated 14x across clu" cut before the number is complete: "[repe" at the end */
    size_t n = strlen(s);
    const char *full = " [repeated ";
    for (size_t k = 4; k < 11 && k <= n; k++)
        if (strncmp(s + n - k, full, k) == 0 && k >= 5) {
            ln->dedup = ln->cut = true;
            s[n - k] = '\0';
            ln->marks = rec_line_marks(ln->line, ln);
            return;
        }
}

/* A spliced line whose first header's text is empty (the second header starts at its
 * message): that header is kept as the owner of a headerless next line. */
static void keep_owner(const char *m, struct rec_line *ln)
{
    struct rec_line t = *ln;
    if (ln->warn || ln->pid < 0 || !header(m, &t)) return;
    ln->owner = true;
    memcpy(ln->owner_host, ln->host, sizeof ln->owner_host);
    ln->owner_pid = ln->pid;
    ln->owner_tid = ln->tid;
    ln->owner_dev = ln->dev;
}

/* Whether [a, e) is blanks only (spaces and tabs): no text left unread. */
static bool blanks(const char *a, const char *e)
{
    for (; a < e; a++)
        if (*a != ' ' && *a != '\t') return false;
    return true;
}

void rec_line_split(char *line, struct rec_line *ln)
{
    ln->nccl = ln->warn = ln->placeholder = ln->owner = false;
    ln->host[0] = '\0';
    ln->pid = ln->tid = -1;
    ln->dev = -1;
    ln->msg = NULL;
    const char *s = line;
    int rays = 0, n = 0;
    unsigned before = ln->prefixes;
    for (const char *q; n < 8 && (q = one_prefix(s, ln, &rays)) != NULL; n++)
        s = q;
    if (rays >= 2) {
        ln->prefixes &= ~(unsigned)REC_PFX_RAY;
        ln->prefixes |= REC_PFX_RAY_NESTED;
    }
    bool prefixed = n > 0 || ln->prefixes != before || (ln->prefixes & (REC_PFX_TAG_OUTPUT));
    ln->body = s;
    dedup_suffix((char *)s, ln);
    if (header(s, ln)) {
        /* another line run into this one: a second header, or a Python logger's record
         * ("INFO 04-20 16:48:04 [parallel_state.py:957] ...", as vLLM prints) */
        const char *m = ln->msg;
        /* the header's own "NCCL INFO" is one: another needs two in the line */
        const char *f0 = ln->marks & REC_MK_HDR2 ? strstr(m, "NCCL ") : NULL;
        for (const char *f = f0; f; f = strstr(f + 1, "NCCL "))
            if (strncmp(f, "NCCL INFO", 9) == 0 || strncmp(f, "NCCL WARN", 9) == 0) {
                ln->spliced = true;
                keep_owner(m, ln);
                s = m; /* the last header in the rest is the line's data */
                break;
            }
        if (!ln->spliced) {
            for (const char *q = ln->marks & REC_MK_PYLOG ? m : ""; *q; q++)
                if (isupper((unsigned char)*q) && pylog_record(q)) {
                    ln->spliced = true;
                    break;
                }
            return;
        }
    }
    /* no header at the start: one later in the line is another process's (spliced) or
     * follows text that is no prefix this reader knows */
    const char *at = NULL;
    const char *f0 = ln->marks & REC_MK_HDR ? strstr(s, "NCCL ") : NULL;
    for (const char *f = f0; f; f = strstr(f + 1, "NCCL "))
        if (strncmp(f, "NCCL INFO", 9) == 0 || strncmp(f, "NCCL WARN", 9) == 0) at = f;
    if (!at) {
        if (prefixed && header_prefix(s)) ln->cut = true;
        return;
    }
    /* walk back over "host:pid:tid [dev] [file:line ]" to where this header starts */
    const char *e = at;
    if (e > s && e[-1] == ' ') e--;
    if (e > s && e[-1] != ']') { /* a WARN's source location */
        while (e > s && e[-1] != ' ')
            e--;
        if (e > s) e--;
    }
    if (e <= s || e[-1] != ']') goto none;
    e--;
    while (e > s && isdigit((unsigned char)e[-1]))
        e--;
    if (e <= s || e[-1] != '[') goto none;
    e--;
    if (e > s && e[-1] == ' ') e--;
    const char *hb = e;
    for (int part = 0; part < 2; part++) { /* tid, then pid */
        while (hb > s && isdigit((unsigned char)hb[-1]))
            hb--;
        if (hb <= s || hb[-1] != ':') goto hostless;
        hb--;
    }
    if (hb > s && hb[-1] == '>') { /* a placeholder put in for the host: "<cluster_name>" */
        const char *lt = hb - 1;
        while (lt > s && lt[-1] != '<' && lt[-1] != ' ')
            lt--;
        if (lt > s && lt[-1] == '<') hb = lt - 1;
    }
    while (hb > s && host_char(hb[-1]))
        hb--;
    {
        struct rec_line t = *ln;
        if (!header(hb, &t)) goto none;
        bool glued = hb > s && hb[-1] != ' ' && hb[-1] != '\t';
        bool other = false; /* does the text before hold another header's pieces? */
        for (const char *c = s; c < hb; c++)
            if ((c[0] == ':' && isdigit((unsigned char)c[1])) || strncmp(c, "NCCL", 4) == 0)
                other = true;
        *ln = t;
        ln->glued = glued;
        if (blanks(s, hb)) /* a known prefix's blank: nothing unread */
            (void)0;
        else if (other)
            ln->spliced = true;
        else
            ln->unreadable = true;
        return;
    }
hostless:
    (void)0;
    {
        struct rec_line t = *ln;
        if (header(e, &t)) {
            *ln = t;
            if (!blanks(s, e)) ln->unreadable = true;
        }
        return;
    }
none:
    ln->nccl = false; /* a header run into by another line is no data */
    return;
}
