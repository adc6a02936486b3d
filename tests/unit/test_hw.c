/* test_hw.c - the text of the backends overlay and the panel's nccl line (ui/hw.h): the
 * /proc parsers on captured samples (an x86 server with two sockets and hyperthreads, an
 * ARM board, nothing), the reason taken out of backend_open's words, the NCCL_* line, and
 * the overlay's lines for a CPU run with NCCL unavailable, a run on NCCL (built only with
 * the toolkit) and a build without NCCL, wrapped to the overlay's width. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/util.h"
#include "ui/overlays/hw.h"
#include "core/text.h"

/* Two sockets x 2 cores x 2 hyperthreads: 8 processors, 4 physical cores. */
static const char cpuinfo_x86[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6348 "
    "CPU @ 2.60GHz\nphysical id\t: 0\ncore id\t\t: 0\n\n"
    "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 0\ncore id\t\t: 1\n\n"
    "processor\t: 2\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 3\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 1\ncore id\t\t: 1\n\n"
    "processor\t: 4\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 0\ncore id\t\t: 0\n\n"
    "processor\t: 5\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 0\ncore id\t\t: 1\n\n"
    "processor\t: 6\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 7\nmodel name\t: Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz\n"
    "physical id\t: 1\ncore id\t\t: 1\n";

/* A Raspberry Pi: no model name and no core ids; "Model" names the board. */
static const char cpuinfo_arm[] =
    "processor\t: 0\nBogoMIPS\t: 108.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n\n"
    "processor\t: 1\nBogoMIPS\t: 108.00\nCPU part\t: 0xd08\n\n"
    "Hardware\t: BCM2835\nRevision\t: c03111\nModel\t\t: Raspberry Pi 4 Model B Rev 1.1\n";

static void test_parse_cpuinfo(void **state)
{
    (void)state;
    char model[128];
    int cores = -1;
    hw_parse_cpuinfo(cpuinfo_x86, model, sizeof model, &cores);
    assert_string_equal(model, "Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz");
    assert_int_equal(cores, 4);
    hw_parse_cpuinfo(cpuinfo_arm, model, sizeof model, &cores);
    /* "Model" ranks before "Hardware", wherever each appears. */
    assert_string_equal(model, "Raspberry Pi 4 Model B Rev 1.1");
    assert_int_equal(cores, 0);
    hw_parse_cpuinfo("", model, sizeof model, &cores);
    assert_string_equal(model, "");
    assert_int_equal(cores, 0);
    hw_parse_cpuinfo(NULL, model, sizeof model, &cores);
    assert_string_equal(model, "");
    /* "cpu MHz" is not "cpu": only the exact key counts. */
    hw_parse_cpuinfo("cpu MHz\t\t: 2600.000\ncpu\t\t: POWER9 (raw), altivec supported\n", model,
                     sizeof model, &cores);
    assert_string_equal(model, "POWER9 (raw), altivec supported");
}

static void test_parse_meminfo(void **state)
{
    (void)state;
    assert_int_equal(hw_parse_meminfo("MemTotal:       24683620 kB\nMemFree:  1 kB\n"),
                     (size_t)24683620 * 1024);
    assert_int_equal(hw_parse_meminfo("MemFree: 5 kB\nMemTotal: 1000 kB\n"), 1024000);
    assert_int_equal(hw_parse_meminfo("MemFree: 5 kB\n"), 0);
    assert_int_equal(hw_parse_meminfo("HighMemTotal: 5 kB\n"), 0);
    assert_int_equal(hw_parse_meminfo(NULL), 0);
}

static const char why_driver[] =
    "nccl: unavailable - no usable GPU: cudaErrorInsufficientDriver "
    "(CUDA driver version is insufficient for CUDA runtime version)";

static void test_reason(void **state)
{
    (void)state;
    char r[240];
    hw_reason(why_driver, false, r, sizeof r);
    assert_string_equal(r, "no usable GPU: cudaErrorInsufficientDriver (CUDA driver version is "
                           "insufficient for CUDA runtime version)");
    hw_reason(why_driver, true, r, sizeof r);
    assert_string_equal(r, "no usable GPU: cudaErrorInsufficientDriver");
    hw_reason("nccl: only 1 GPU usable (a collective needs 2)", false, r, sizeof r);
    assert_string_equal(r, "only 1 GPU usable (a collective needs 2)");
    /* A reason that is all parenthesis is kept whole. */
    hw_reason("nccl: (weird)", true, r, sizeof r);
    assert_string_equal(r, "(weird)");
}

static struct hw_info sample_cpu_run(const char *why)
{
    struct hw_info h;
    memset(&h, 0, sizeof h);
    snprintf(h.cpu_model, sizeof h.cpu_model, "Test CPU 9000");
    h.cpus_online = 8;
    h.cores_physical = 4;
    h.mem_total = (size_t)16 << 30;
    hw_record_backend(&h, "auto", NULL, why);
    snprintf(h.in_use, sizeof h.in_use, "cpu");
    return h;
}

static void test_panel_note(void **state)
{
    (void)state;
    struct hw_info h = sample_cpu_run(why_driver);
    char note[300];
    hw_panel_note(&h, true, note, sizeof note);
    assert_string_equal(note,
                        "nccl: unavailable \u2014 no usable GPU: cudaErrorInsufficientDriver");
    hw_panel_note(&h, false, note, sizeof note);
    assert_string_equal(note, "nccl: unavailable - no usable GPU: cudaErrorInsufficientDriver");
    h = sample_cpu_run("nccl: only 1 GPU usable (a collective needs 2)");
    hw_panel_note(&h, true, note, sizeof note);
    assert_string_equal(note, "nccl: only 1 GPU usable (a collective needs 2)");
    /* Nothing to say when the CPU was asked for, or NCCL runs. */
    h = sample_cpu_run("");
    hw_panel_note(&h, true, note, sizeof note);
    assert_string_equal(note, "");
    snprintf(h.in_use, sizeof h.in_use, "nccl");
    snprintf(h.nccl_why, sizeof h.nccl_why, "stale");
    hw_panel_note(&h, true, note, sizeof note);
    assert_string_equal(note, "");
}

static void test_env_text(void **state)
{
    (void)state;
    struct hw_info h;
    memset(&h, 0, sizeof h);
    char t[160];
    hw_nccl_env_text(&h, t, sizeof t);
    assert_string_equal(t, "");
    snprintf(h.nccl_proto, sizeof h.nccl_proto, "LL128");
    hw_nccl_env_text(&h, t, sizeof t);
    assert_string_equal(t, "NCCL_PROTO=LL128 (user-set)");
    snprintf(h.nccl_algo, sizeof h.nccl_algo, "Ring");
    hw_nccl_env_text(&h, t, sizeof t);
    assert_string_equal(t, "NCCL_ALGO=Ring (user-set)  NCCL_PROTO=LL128 (user-set)");
}

/* The index of the first line containing s, or -1. */
static int find_line(const struct hw_line *l, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strstr(l[i].text, s)) return i;
    return -1;
}

static bool nccl_built(void)
{
    for (const char *const *n = backend_names(); *n; n++)
        if (strcmp(*n, "nccl") == 0) return true;
    return false;
}

static void test_lines_cpu_run(void **state)
{
    (void)state;
    struct hw_info h = sample_cpu_run(why_driver);
    struct hw_line l[64];
    const int width = 60;
    int n = hw_lines(&h, "4 ranks = 4 CPU threads on 8 cores (pthreads, shared memory)", true,
                     width, l, 64);
    assert_true(n > 5);
    for (int i = 0; i < n; i++)
        if (text_width(l[i].text) > width)
            fail_msg("line %d is %d columns wide: '%s'", i, text_width(l[i].text), l[i].text);
    int cpu = find_line(l, n, "cpu: in use");
    assert_true(cpu == 0);
    assert_int_equal(l[cpu].style, HW_HEAD_OK);
    assert_true(find_line(l, n, "4 ranks = 4 CPU threads") > cpu);
    assert_true(find_line(l, n, "CPU: Test CPU 9000") > cpu);
    assert_true(find_line(l, n, "8 cores online (4 physical), 16 GiB memory") > cpu);
    if (nccl_built()) {
        int k = find_line(l, n, "nccl: unavailable \u2014 no usable GPU:");
        assert_true(k > cpu);
        assert_int_equal(l[k].style, HW_HEAD_WARN);
        /* The whole reason, wrapped at 60 columns, the continuations indented. */
        assert_int_equal(strncmp(l[k + 1].text, "  cudaErrorInsufficientDriver (CUDA", 35), 0);
        assert_int_equal(l[k + 1].style, HW_HEAD_WARN);
        assert_true(find_line(l, n, "runtime version)") > k + 1);
        assert_true(find_line(l, n, "compiled against NCCL ") > k);
    } else {
        int k = find_line(l, n, "nccl: not built (no CUDA toolkit at build time)");
        assert_true(k > cpu);
        assert_int_equal(l[k].style, HW_HEAD_WARN);
    }
    /* --backend cpu: NCCL was not tried, and the overlay does not call it unavailable. */
    h = sample_cpu_run("");
    snprintf(h.requested, sizeof h.requested, "cpu");
    n = hw_lines(&h, "x", false, 80, l, 64);
    if (nccl_built())
        assert_true(
            find_line(l, n, "nccl: built, not opened - --backend cpu asked for the CPU ranks") >
            0);
    assert_int_equal(find_line(l, n, "unavailable"), -1);
}

#ifdef HAVE_NCCL
static void test_lines_nccl_run(void **state)
{
    (void)state;
    struct hw_info h = sample_cpu_run("");
    snprintf(h.in_use, sizeof h.in_use, "nccl");
    snprintf(
        h.nccl_text, sizeof h.nccl_text,
        "NCCL 2.28.9 (built against 2.28.9), CUDA runtime 13.0, driver supports CUDA 13.0\n"
        "GPU 0: NVIDIA H200, 140 GiB, sm_90, PCI 0000:19:00.0\n"
        "GPU 1: NVIDIA H200, 140 GiB, sm_90, PCI 0000:3b:00.0\n"
        "peer access (row reads column directly):\n"
        "        0   1\n"
        "    0   - yes\n"
        "    1 yes   -\n"
        "NCCL_ALGO=Ring NCCL_PROTO=(unset: NCCL chooses)\n");
    h.have_nccl_info = true;
    struct hw_line l[64];
    int n = hw_lines(&h, "2 ranks = 2 \u00d7 NVIDIA H200 (NCCL 2.28.9, CUDA 13.0)", true, 100,
                     l, 64);
    int cpu = find_line(l, n, "cpu: built, not in use");
    int k = find_line(l, n, "nccl: in use");
    assert_true(cpu >= 0 && k > cpu);
    assert_int_equal(l[k].style, HW_HEAD_OK);
    assert_true(find_line(l, n, "2 ranks = 2 \u00d7 NVIDIA H200") > k);
    assert_true(find_line(l, n, "GPU 1: NVIDIA H200, 140 GiB, sm_90, PCI 0000:3b:00.0") > k);
    /* The matrix keeps its columns. */
    int m = find_line(l, n, "peer access");
    assert_true(m > k);
    assert_string_equal(l[m + 1].text, "          0   1");
    assert_string_equal(l[m + 2].text, "      0   - yes");
    assert_true(find_line(l, n, "NCCL_ALGO=Ring") > m);
    /* No note in the panel: NCCL is what runs. */
    char note[200];
    hw_panel_note(&h, true, note, sizeof note);
    assert_string_equal(note, "");
}
#endif

/* Recording a real opened backend: the CPU one carries no NCCL information. */
static void test_record_cpu_backend(void **state)
{
    (void)state;
    struct backend *b;
    char err[200];
    assert_int_equal(backend_open("cpu", &b, err, sizeof err, NULL, 0), CV_OK);
    struct hw_info h;
    memset(&h, 0, sizeof h);
    hw_probe_machine(&h);
    assert_true(h.cpus_online >= 1);
    assert_true(h.mem_total > 0); /* Linux: /proc/meminfo */
    struct worker_facts *f = xcalloc(1, sizeof *f);
    worker_facts_fill(b, f);
    hw_record_backend(&h, "auto", f, why_driver);
    free(f);
    assert_string_equal(h.in_use, "cpu");
    assert_string_equal(h.requested, "auto");
    assert_false(h.have_nccl_info);
    assert_string_equal(h.nccl_text, "");
    assert_string_equal(h.nccl_why, why_driver);
    backend_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_cpuinfo),
        cmocka_unit_test(test_parse_meminfo),
        cmocka_unit_test(test_reason),
        cmocka_unit_test(test_panel_note),
        cmocka_unit_test(test_env_text),
        cmocka_unit_test(test_lines_cpu_run),
#ifdef HAVE_NCCL
        cmocka_unit_test(test_lines_nccl_run),
#endif
        cmocka_unit_test(test_record_cpu_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
