/* hw.h - what the hardware is, for the backends overlay (key b) and the measured panel:
 * the machine (CPU model, cores, memory from /proc), every backend compiled in with its
 * status (in use / built but not in use / unavailable and why / not built), and for NCCL
 * the GPUs, the peer-access matrix, the NCCL and CUDA versions and the NCCL_ALGO /
 * NCCL_PROTO settings (the backend's hardware report, backend_hardware in backend.h).
 *
 * Everything is recorded once on the main thread at startup, before the worker thread
 * takes the backend: the NCCL text is copied then, so drawing never calls into a backend
 * the worker owns. No curses here: the text is built by plain functions, unit-tested in
 * tests/unit/test_hw.c; draw.c puts it on the screen. */
#ifndef COLLVIZ_UI_OVERLAYS_HW_H
#define COLLVIZ_UI_OVERLAYS_HW_H

#include <stdbool.h>
#include <stddef.h>

#include "worker/worker.h"

struct backend;

#define HW_LIB_TEXT_MAX 4096

struct hw_info {
    /* the machine */
    char cpu_model[128]; /* "AMD EPYC 7763 64-Core Processor"; "" if /proc says nothing */
    int cpus_online;     /* sysconf(_SC_NPROCESSORS_ONLN) */
    int cores_physical;  /* distinct (physical id, core id) in /proc/cpuinfo; 0 = unknown */
    size_t mem_total;    /* MemTotal of /proc/meminfo in bytes; 0 = unknown */

    /* the backends as the UI opened them */
    char requested[16];  /* --backend: auto, cpu, nccl */
    char in_use[16];     /* the opened backend's name; "" = none */
    char nccl_why[240];  /* why NCCL is not in use: backend_open's why_not; "" if it is */
    bool have_nccl_info; /* nccl in use: the fields below come from its open */
    char nccl_text[HW_LIB_TEXT_MAX];    /* nccl_backend_info(): GPUs, peers, versions */
    char nccl_algo[64], nccl_proto[64]; /* NCCL_ALGO / NCCL_PROTO as NCCL read them (or
                                         * the environment at startup); "" = unset */
};

/* Read /proc/cpuinfo, /proc/meminfo, sysconf and the NCCL_* environment into h. */
void hw_probe_machine(struct hw_info *h);

/* Record how the UI opened its backend: `requested` is --backend, f the worker's facts of
 * the opened backend (NULL if none), why_not the reason NCCL was passed over ("" / NULL if
 * it was not). Copies the NCCL information out of f. */
void hw_record_backend(struct hw_info *h, const char *requested, const struct worker_facts *f,
                       const char *why_not);

/* Parsers, exposed for the unit test. The CPU model from /proc/cpuinfo text (x86's "model
 * name", else "Model", "Hardware", "cpu model", "cpu", "uarch"; "" if none) and the number
 * of physical cores (0 if the text has no physical/core ids). */
void hw_parse_cpuinfo(const char *text, char *model, size_t n, int *cores_physical);
/* MemTotal in bytes from /proc/meminfo text, 0 if absent. */
size_t hw_parse_meminfo(const char *text);

/* The reason alone from backend_open's words: "nccl: unavailable - no usable GPU: X (Y)"
 * -> "no usable GPU: X (Y)"; short drops a closing parenthesis: "no usable GPU: X". */
void hw_reason(const char *why, bool shorten, char *out, size_t n);

/* One line for the measured panel when NCCL was wanted but is not in use, e.g.
 * "nccl: unavailable — no usable GPU: cudaErrorInsufficientDriver"; "" when there is
 * nothing to say (NCCL in use, or --backend cpu asked for the CPU). */
void hw_panel_note(const struct hw_info *h, bool utf8, char *out, size_t n);

/* "NCCL_ALGO=Ring (user-set)  NCCL_PROTO=LL128 (user-set)", only the ones set; "" if none. */
void hw_nccl_env_text(const struct hw_info *h, char *out, size_t n);

enum hw_style {
    HW_HEAD_OK,   /* a backend in use */
    HW_HEAD,      /* a backend built but not in use */
    HW_HEAD_WARN, /* unavailable / not built */
    HW_TEXT,
    HW_DIM,
};

struct hw_line {
    enum hw_style style;
    char text[256];
};

/* The overlay's lines, wrapped to `width` columns (continuations indented): each backend
 * of backend_names() in order, then NCCL if it was not built. cpu_desc is the in-use
 * backend's describe() for the current world size (what app.h calls backend_desc).
 * Returns the number of lines (at most max). */
int hw_lines(const struct hw_info *h, const char *cpu_desc, bool utf8, int width,
             struct hw_line *out, int max);

#endif
