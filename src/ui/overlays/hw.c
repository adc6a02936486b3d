/* hw.c - the machine and the backends as text, for the backends overlay and the measured
 * panel (see hw.h). Read once at startup on the main thread; nothing here runs later but
 * string formatting.
 *
 * The NCCL figures come from the NCCL backend's own record of what it found when it opened
 * (backend_hardware: GPUs, peer access, versions), as the worker's facts carry them
 * (struct worker_facts), from this process or a remote job. When NCCL is not in use, the
 * reason is the one backend_open gave when the UI asked for "auto", and the NCCL / CUDA
 * versions shown are those the program was compiled against (the headers' version macros): a
 * student with no GPU still sees which NCCL and CUDA this build would use. */
#include "ui/overlays/hw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/util.h"
#include "core/vec.h"
#include "core/text.h"

#define HW_PROC_MAX ((size_t)8 << 20) /* /proc/cpuinfo of a very large machine */
#define HW_MAX_CORE_IDS 4096

/* ---- parsing /proc ------------------------------------------------------------------ */

/* The whole of a /proc file (its size reads as 0, so read until EOF); NULL if unreadable. */
static char *hw_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 16384, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            if (cap >= HW_PROC_MAX) break;
            VEC_GROW(buf, cap, cap + 1);
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        if (got == 0) break;
        len += got;
    }
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* The value of "key<spaces/tabs>: value" if line is that key; NULL otherwise. */
static const char *hw_field(const char *line, size_t linelen, const char *key, size_t *vlen)
{
    size_t kl = strlen(key);
    if (linelen < kl || strncmp(line, key, kl) != 0) return NULL;
    size_t i = kl;
    while (i < linelen && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i >= linelen || line[i] != ':') return NULL;
    i++;
    while (i < linelen && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t e = linelen;
    while (e > i && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r'))
        e--;
    *vlen = e - i;
    return line + i;
}

void hw_parse_cpuinfo(const char *text, char *model, size_t n, int *cores_physical)
{
    /* The first key of this list that occurs names the CPU: x86 has "model name"; ARM,
     * POWER, MIPS and RISC-V kernels use the others. */
    static const char *const keys[] = {"model name", "Model", "Hardware",
                                       "cpu model",  "cpu",   "uarch"};
    size_t best = sizeof keys / sizeof keys[0];
    if (n) model[0] = '\0';
    long *ids = xmalloc(HW_MAX_CORE_IDS * sizeof *ids);
    int nids = 0;
    long phys = -1, core = -1;
    const char *p = text ? text : "";
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        size_t vl;
        const char *v;
        for (size_t k = 0; k < best; k++)
            if ((v = hw_field(p, len, keys[k], &vl)) && vl > 0) {
                snprintf(model, n, "%.*s", (int)vl, v);
                best = k;
                break;
            }
        if ((v = hw_field(p, len, "physical id", &vl))) phys = strtol(v, NULL, 10);
        if ((v = hw_field(p, len, "core id", &vl))) core = strtol(v, NULL, 10);
        /* A blank line ends one processor's block. */
        if (len == 0 || !nl) {
            if (core >= 0) {
                long id = (phys < 0 ? 0 : phys) * 1000003L + core;
                bool seen = false;
                for (int i = 0; i < nids && !seen; i++)
                    seen = ids[i] == id;
                if (!seen && nids < HW_MAX_CORE_IDS) ids[nids++] = id;
            }
            phys = core = -1;
        }
        if (!nl) break;
        p = nl + 1;
    }
    free(ids);
    *cores_physical = nids;
}

size_t hw_parse_meminfo(const char *text)
{
    const char *p = text ? strstr(text, "MemTotal:") : NULL;
    if (!p || (p != text && p[-1] != '\n')) return 0;
    unsigned long long kb = strtoull(p + 9, NULL, 10);
    return (size_t)kb * 1024;
}

static void hw_env(const char *name, char *out, size_t n)
{
    const char *v = getenv(name);
    snprintf(out, n, "%s", v ? v : "");
}

void hw_probe_machine(struct hw_info *h)
{
    char *t = hw_slurp("/proc/cpuinfo");
    hw_parse_cpuinfo(t, h->cpu_model, sizeof h->cpu_model, &h->cores_physical);
    free(t);
    t = hw_slurp("/proc/meminfo");
    h->mem_total = hw_parse_meminfo(t);
    free(t);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus_online = n > 0 ? (int)n : 0;
    hw_env("NCCL_ALGO", h->nccl_algo, sizeof h->nccl_algo);
    hw_env("NCCL_PROTO", h->nccl_proto, sizeof h->nccl_proto);
}

void hw_record_backend(struct hw_info *h, const char *requested, const struct worker_facts *f,
                       const char *why_not)
{
    snprintf(h->requested, sizeof h->requested, "%s", requested ? requested : "auto");
    snprintf(h->in_use, sizeof h->in_use, "%s", f ? f->name : "");
    snprintf(h->nccl_why, sizeof h->nccl_why, "%s", why_not ? why_not : "");
    h->have_nccl_info = false;
    h->nccl_text[0] = '\0';
    if (f && f->have_nccl_info) {
        snprintf(h->nccl_text, sizeof h->nccl_text, "%s", f->nccl_text);
        snprintf(h->nccl_algo, sizeof h->nccl_algo, "%s", f->nccl_algo);
        snprintf(h->nccl_proto, sizeof h->nccl_proto, "%s", f->nccl_proto);
        h->have_nccl_info = true;
    }
}

/* ---- text --------------------------------------------------------------------------- */

void hw_reason(const char *why, bool shorten, char *out, size_t n)
{
    const char *r = why ? why : "";
    if (strncmp(r, "nccl: ", 6) == 0) r += 6;
    if (strncmp(r, "unavailable - ", 14) == 0) r += 14;
    snprintf(out, n, "%s", r);
    size_t len = strlen(out);
    if (shorten && len > 0 && out[len - 1] == ')') {
        char *open = strstr(out, " (");
        if (open && open != out) *open = '\0';
    }
}

static bool hw_why_unavailable(const char *why)
{
    return strstr(why, "unavailable") != NULL;
}

void hw_panel_note(const struct hw_info *h, bool utf8, char *out, size_t n)
{
    if (n) out[0] = '\0';
    if ((backend_caps_of(h->in_use) & BACKEND_CAP_GPU) || !h->nccl_why[0]) return;
    char r[240];
    /* Unavailable: the error's name is the point, its explanation is in the overlay. */
    hw_reason(h->nccl_why, hw_why_unavailable(h->nccl_why), r, sizeof r);
    const char *dash = utf8 ? "\u2014" : "-";
    if (hw_why_unavailable(h->nccl_why))
        snprintf(out, n, "nccl: unavailable %s %s", dash, r);
    else
        snprintf(out, n, "nccl: %s", r);
}

void hw_nccl_env_text(const struct hw_info *h, char *out, size_t n)
{
    size_t o = 0;
    if (n) out[0] = '\0';
    if (h->nccl_algo[0]) o += (size_t)snprintf(out, n, "NCCL_ALGO=%s (user-set)", h->nccl_algo);
    if (h->nccl_proto[0] && o < n)
        snprintf(out + o, n - o, "%sNCCL_PROTO=%s (user-set)", o ? "  " : "", h->nccl_proto);
}

struct hw_out {
    struct hw_line *l;
    int n, max, width;
    bool utf8;
};

/* One output line: `indent` spaces, then text cut (at a character boundary) to fit. */
static void hw_set(struct hw_line *l, enum hw_style st, int indent, const char *text)
{
    size_t cap = sizeof l->text - 1, o = 0;
    while ((int)o < indent && o < cap)
        l->text[o++] = ' ';
    size_t len = strlen(text);
    if (len > cap - o) {
        len = cap - o;
        while (len > 0 && ((unsigned char)text[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(l->text + o, text, len);
    l->text[o + len] = '\0';
    l->style = st;
}

/* One logical line: as it is when it fits (keeping its spacing: the peer matrix is
 * aligned), else word-wrapped with the continuation lines indented two more columns. */
static void hw_emit(struct hw_out *o, enum hw_style st, int indent, const char *text)
{
    if (o->n >= o->max) return;
    int w = o->width - indent;
    if (w < 8) w = 8;
    if (text_width(text) <= w) {
        hw_set(&o->l[o->n++], st, indent, text);
        return;
    }
    char lines[8][256];
    int got = text_wrap(text, w - 2, lines, 8, o->utf8);
    for (int i = 0; i < got && i < 8 && o->n < o->max; i++)
        hw_set(&o->l[o->n++], st, indent + (i ? 2 : 0), lines[i]);
}

static void hw_emitf(struct hw_out *o, enum hw_style st, int indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void hw_emitf(struct hw_out *o, enum hw_style st, int indent, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    hw_emit(o, st, indent, buf);
}

/* The CPU: model, cores, memory (what the CPU ranks run on, whichever backend is used). */
static void hw_machine_lines(const struct hw_info *h, struct hw_out *o)
{
    hw_emitf(o, HW_TEXT, 2, "CPU: %s",
             h->cpu_model[0] ? h->cpu_model : "model unknown (/proc/cpuinfo names none)");
    char mem[32], cores[64] = "";
    if (h->mem_total)
        format_size(h->mem_total, mem, sizeof mem);
    else
        snprintf(mem, sizeof mem, "unknown");
    if (h->cores_physical > 0)
        snprintf(cores, sizeof cores, " (%d physical)", h->cores_physical);
    hw_emitf(o, HW_TEXT, 2, "%d core%s online%s, %s memory", h->cpus_online,
             h->cpus_online == 1 ? "" : "s", cores, mem);
}

/* What this build was compiled against, when the running NCCL cannot be asked. */
static void hw_nccl_build_line(const char *name, struct hw_out *o)
{
    char line[200];
    backend_build_text((enum backend_kind)backend_kind_of(name), line, sizeof line);
    if (line[0]) hw_emit(o, HW_DIM, 2, line);
}

static void hw_nccl_lines(const struct hw_info *h, const char *name, const char *desc,
                          struct hw_out *o)
{
    const char *dash = o->utf8 ? "\u2014" : "-";
    if (backend_caps_of(h->in_use) & BACKEND_CAP_GPU) {
        hw_emitf(o, HW_HEAD_OK, 0, "nccl: in use %s NCCL runs the collectives on GPUs", dash);
        if (desc && desc[0]) hw_emit(o, HW_TEXT, 2, desc);
        /* nccl_backend_info's lines: versions, GPUs, the peer-access matrix, NCCL_*. */
        const char *p = h->nccl_text;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char line[256];
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            hw_emit(o, HW_TEXT, 2, line);
            p += len + (nl ? 1 : 0);
        }
        return;
    }
    char r[240];
    hw_reason(h->nccl_why, false, r, sizeof r);
    if (h->nccl_why[0] && hw_why_unavailable(h->nccl_why)) {
        hw_emitf(o, HW_HEAD_WARN, 0, "nccl: unavailable %s %s", dash, r);
        hw_nccl_build_line(name, o);
        hw_emit(o, HW_DIM, 2, "the CPU ranks run every collective instead");
    } else if (h->nccl_why[0]) {
        hw_emitf(o, HW_HEAD, 0, "nccl: built, not in use %s %s", dash, r);
        hw_nccl_build_line(name, o);
        hw_emit(o, HW_DIM, 2, "--backend nccl runs it on the GPUs there are");
    } else {
        if (backend_kind_of(h->requested) == BACKEND_CPU)
            hw_emitf(o, HW_HEAD, 0,
                     "nccl: built, not opened %s --backend cpu asked for the "
                     "CPU ranks",
                     dash);
        else
            hw_emit(o, HW_HEAD, 0, "nccl: built, not opened");
        hw_nccl_build_line(name, o);
        hw_emit(o, HW_DIM, 2, "--backend auto or nccl opens it");
    }
    if (h->nccl_algo[0] || h->nccl_proto[0]) {
        char env[160];
        hw_nccl_env_text(h, env, sizeof env);
        hw_emitf(o, HW_DIM, 2, "%s: read by NCCL when it runs", env);
    }
}

int hw_lines(const struct hw_info *h, const char *desc, bool utf8, int width,
             struct hw_line *out, int max)
{
    struct hw_out o = {.l = out, .n = 0, .max = max, .width = width, .utf8 = utf8};
    const char *dash = utf8 ? "\u2014" : "-";
    bool nccl_built = false;
    for (const char *const *name = backend_names(); *name; name++) {
        if (name != backend_names()) hw_emit(&o, HW_TEXT, 0, "");
        if (backend_caps_of(*name) & BACKEND_CAP_GPU) {
            nccl_built = true;
            hw_nccl_lines(h, *name, desc, &o);
            continue;
        }
        bool used = strcmp(*name, h->in_use) == 0;
        if (backend_kind_of(*name) == BACKEND_CPU) {
            if (used) {
                hw_emitf(&o, HW_HEAD_OK, 0, "cpu: in use %s rank threads in this process",
                         dash);
                if (desc && desc[0]) hw_emit(&o, HW_TEXT, 2, desc);
            } else if (h->in_use[0]) {
                hw_emitf(&o, HW_HEAD, 0, "cpu: built, not in use %s --backend cpu runs it",
                         dash);
            } else {
                hw_emit(&o, HW_HEAD_WARN, 0, "cpu: could not be opened (the panel says why)");
            }
            hw_machine_lines(h, &o);
            continue;
        }
        hw_emitf(&o, used ? HW_HEAD_OK : HW_HEAD, 0, "%s: %s", *name,
                 used ? "in use" : "built, not in use");
        if (used && desc && desc[0]) hw_emit(&o, HW_TEXT, 2, desc);
    }
    if (!nccl_built) {
        hw_emit(&o, HW_TEXT, 0, "");
        hw_emit(&o, HW_HEAD_WARN, 0, "nccl: not built (no CUDA toolkit at build time)");
        hw_emit(&o, HW_DIM, 2, "make finds it through $(CUDA_HOME)/bin/nvcc and nccl.h");
    }
    return o.n;
}
