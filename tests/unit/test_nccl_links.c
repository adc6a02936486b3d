/* test_nccl_links.c - the link type read from NCCL's INFO log (backend/nccl/nccl_links.h).
 * The parser on logs in NCCL 2.2x's formats (hostname:pid:tid [dev] NCCL INFO ...): GPU peer
 * access through cuMem and through CUDA IPC, with and without the topology search's path
 * type, host shared memory (with and without the connection index older NCCL leaves out),
 * InfiniBand (send and receive lines, GPUDirect RDMA, a proxy rank), sockets, the host
 * emulation's SHM/fakegpu, a node with both GPU peers and a network, and garbage that must
 * not count. Then the log file: where it is put, what the variables say, that it is read
 * back, removed at the last close, and left alone when the user set NCCL_DEBUG. Expected
 * strings are literal. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/nccl/nccl_links.h"
#include "records/reclinks.h"

static int parse(const char *log, char *buf, size_t n)
{
    return rec_links_summary(log, strlen(log), buf, n);
}

/* Eight H100s on NVSwitch, NCCL 2.21: the graph's path NVL, eight ring channels (each also
 * with connection index 1 for send/recv), the ring order lines (no "via": not
 * connections), NVLS available. */
static void test_p2p_cumem(void **state)
{
    (void)state;
    char log[8192], buf[256];
    size_t o = 0;
    o += (size_t)snprintf(log + o, sizeof log - o,
                          "node1:4711:4711 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>\n"
                          "node1:4711:4711 [0] NCCL INFO cudaDriverVersion 12040\n"
                          "NCCL version 2.21.5+cuda12.4\n"
                          "node1:4711:4790 [0] NCCL INFO Setting affinity for GPU 0 to ffff\n"
                          "node1:4711:4790 [0] NCCL INFO NVLS multicast support is available "
                          "on dev 0\n"
                          "node1:4711:4790 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 8, "
                          "bw 40.000000/40.000000, type NVL/PIX, sameChannels 1\n"
                          "node1:4711:4790 [0] NCCL INFO Channel 00/08 :    0   1   2   3   4"
                          "   5   6   7\n");
    for (int c = 0; c < 8; c++)
        for (int ci = 0; ci < 2; ci++)
            o +=
                (size_t)snprintf(log + o, sizeof log - o,
                                 "node1:4711:4790 [0] NCCL INFO Channel %02d/%d : 0[0] -> 1[1] "
                                 "via P2P/CUMEM/read\n",
                                 c, ci);
    snprintf(log + o, sizeof log - o, "node1:4711:4790 [0] NCCL INFO Connected all rings\n");
    assert_int_equal(parse(log, buf, sizeof buf), 16);
    assert_string_equal(buf, "P2P/CUMEM (GPU peer access over NVLink, path NVL), 8 channels; "
                             "NVLS multicast available");
}

/* CUDA IPC (cuMem off), no GRAPH line: NVLink or PCIe cannot be told. */
static void test_p2p_ipc(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(parse("h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC/read\n"
                           "h:1:2 [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/IPC/read\n"
                           "h:1:2 [1] NCCL INFO Channel 00/1 : 1[1] -> 0[0] via P2P/IPC\n",
                           buf, sizeof buf),
                     3);
    assert_string_equal(buf, "P2P/IPC (NVLink or PCIe peer access), 2 channels");
    /* "P2P/direct pointer": the word after "via" ends at the space. */
    assert_int_equal(parse("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct "
                           "pointer/read\n"
                           "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw "
                           "12.000000/12.000000, type PHB/PIX, sameChannels 1\n",
                           buf, sizeof buf),
                     1);
    assert_string_equal(
        buf, "P2P/direct (GPU peer access over PCIe through the CPU, path PHB), 1 channel");
}

/* Host shared memory: newer NCCL omits the connection index on SHM lines. */
static void test_shm(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(parse("gpu7:900:950 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via "
                           "SHM/direct/direct\n"
                           "gpu7:900:950 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via "
                           "SHM/direct/direct\n"
                           "gpu7:900:951 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via "
                           "SHM/CE/direct\n",
                           buf, sizeof buf),
                     3);
    assert_string_equal(buf, "SHM/direct (through host shared memory), 2 channels; SHM/CE "
                             "(through host shared memory), 1 channel");
    /* The host emulation's line (tests/fakegpu). */
    assert_int_equal(
        parse("box:12:13 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/fakegpu\n", buf,
              sizeof buf),
        1);
    assert_string_equal(buf, "SHM/fakegpu (through host shared memory), 1 channel");
}

/* Across nodes on InfiniBand: a send and a receive line per channel count once, the proxy
 * form "NET/IB/3(0)" and the older bus-id form "0[1b000]" too. */
static void test_net_ib(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(
        parse(
            "n1:5:6 [0] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
            "n1:5:6 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
            "n1:5:6 [0] NCCL INFO Channel 01/0 : 7[7] -> 8[0] [send] via NET/IB/3(0)/GDRDMA\n"
            "n1:5:6 [0] NCCL INFO Channel 02 : 0[1b000] -> 1[1c000] [send] via NET/IB/1\n",
            buf, sizeof buf),
        4);
    assert_string_equal(buf, "NET/IB (InfiniBand verbs, GPUDirect RDMA), 3 channels");
    assert_int_equal(parse("a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via "
                           "NET/IB/0\n",
                           buf, sizeof buf),
                     1);
    assert_string_equal(buf, "NET/IB (InfiniBand verbs), 1 channel");
}

static void test_net_socket(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(parse("pc:77:78 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via "
                           "NET/Socket/0\r\n"
                           "pc:77:78 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via "
                           "NET/Socket/1\r\n",
                           buf, sizeof buf),
                     2);
    assert_string_equal(buf, "NET/Socket (TCP sockets), 2 channels");
}

/* Two nodes of GPUs on PCIe: peers inside the node, InfiniBand between; two graphs with
 * different path types name both. */
static void test_mixed(void **state)
{
    (void)state;
    char buf[256];
    const char *log =
        "n1:5:6 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 24.000000/12.000000, "
        "type PIX/PIX, sameChannels 1\n"
        "n1:5:6 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
        "n1:5:6 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
        "n1:5:6 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0\n"
        "n1:5:6 [1] NCCL INFO Channel 01/0 : 1[1] -> 2[0] [send] via NET/IB/1\n";
    assert_int_equal(parse(log, buf, sizeof buf), 4);
    assert_string_equal(buf, "P2P/CUMEM (GPU peer access over PCIe through one switch, path "
                             "PIX), 2 channels; NET/IB (InfiniBand verbs), 2 channels");
    char log2[1024];
    snprintf(log2, sizeof log2,
             "%sn1:5:6 [0] NCCL INFO Pattern 3, crossNic 0, nChannels 1, bw 10.0/10.0, type "
             "SYS/PIX, sameChannels 0\n",
             log);
    assert_int_equal(parse(log2, buf, sizeof buf), 4);
    assert_string_equal(buf, "P2P/CUMEM (GPU peer access, paths PIX/SYS), 2 channels; NET/IB "
                             "(InfiniBand verbs), 2 channels");
}

/* Nothing that is not a connection line of NCCL INFO counts. */
static void test_garbage(void **state)
{
    (void)state;
    char buf[64] = "x";
    static const char *const bad[] = {
        "",
        "\n\n\n",
        "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n", /* not an NCCL INFO line */
        "h:1:1 [0] NCCL WARN Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n",
        "h:1:1 [0] NCCL INFO Channel 00/08 :    0   1   2   3\n", /* ring order */
        "h:1:1 [0] NCCL INFO Channel xx/0 : 0[0] -> 1[1] via P2P/CUMEM\n",
        "h:1:1 [0] NCCL INFO Channel 00/ : 0[0] -> 1[1] via P2P/CUMEM\n",
        "h:1:1 [0] NCCL INFO Channel 12345 : 0[0] -> 1[1] via P2P/CUMEM\n",
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via\n",
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/\n",
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via p2p/cumem\n",
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via CUMEM\n",
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] 1[1] via P2P/CUMEM\n", /* no arrow */
        "h:1:1 [0] NCCL INFO Channel 00/0 : via P2P/CUMEM -> 1\n",      /* via before -> */
        "h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, type NVL/PIX\n",    /* a path alone */
        "h:1:1 [0] NCCL INFO Connected all rings\n",
        "\x01\x02\xff NCCL INFO \xfe via \x80/\x81\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(bad[i], buf, sizeof buf), 0);
        assert_string_equal(buf, "");
    }
    assert_int_equal(rec_links_summary(NULL, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    /* A connection line cut at the end of the text (no newline) still counts; a NUL inside
     * the given length is just a byte. */
    const char cut[] =
        "junk\0more\nh:1:1 [0] NCCL INFO Channel 03/0 : 0[0] -> 1[1] via SHM/direct";
    assert_int_equal(rec_links_summary(cut, sizeof cut - 1, buf, sizeof buf), 1);
    assert_string_equal(buf, "SHM/direct (through host shared memory), 1 channel");
    /* A small buffer is cut, never overrun. */
    char small[12];
    assert_int_equal(parse("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n",
                           small, sizeof small),
                     1);
    assert_string_equal(small, "P2P/CUMEM (");
    /* More transports than it keeps: the first eight are named and counted. */
    char many[4096];
    size_t o = 0;
    for (int k = 0; k < 10; k++)
        o += (size_t)snprintf(many + o, sizeof many - o,
                              "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/X%d/0\n",
                              k);
    char big[1024];
    assert_int_equal(parse(many, big, sizeof big), 8);
    assert_non_null(strstr(big, "NET/X7 (a network plugin), 1 channel"));
    assert_null(strstr(big, "NET/X8"));
}

static char tmpdir[] = "/tmp/test_nccl_links-XXXXXX";

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Run body in a child (the log decision is the process's) and expect it to return true. */
static void in_child(bool (*body)(void))
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(body() ? 0 : 1);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* NCCL_DEBUG set by the user: nothing is set, nothing read. */
static bool log_user(void)
{
    setenv("NCCL_DEBUG", "WARN", 1);
    unsetenv("NCCL_DEBUG_FILE");
    nccl_links_log_begin();
    char buf[200];
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    char *text = (char *)"x", src[200];
    size_t len = 1;
    bool ok = strcmp(buf, "not read (NCCL_DEBUG is set by you)") == 0 &&
              strcmp(getenv("NCCL_DEBUG"), "WARN") == 0 && !getenv("NCCL_DEBUG_FILE") &&
              !getenv("NCCL_DEBUG_SUBSYS");
    /* the whole log for the records parser: not read either */
    ok = ok && nccl_links_log_read(&text, &len, src, sizeof src) == -1 && !text && len == 0 &&
         strcmp(src, "no NCCL log: not read (NCCL_DEBUG is set by you: the log is yours)") == 0;
    nccl_links_log_end();
    return ok;
}

static void test_log_user(void **state)
{
    (void)state;
    in_child(log_user);
}

/* Not set by the user: a private file under $XDG_RUNTIME_DIR that NCCL writes (here, as
 * NCCL does: fopen "w" on the path), read back, removed at the last close and still read
 * after it; one never written is removed with the variables, and the next open makes another.
 */
static void test_log_private(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(tmpdir));
    setenv("XDG_RUNTIME_DIR", tmpdir, 1);
    unsetenv("NCCL_DEBUG");
    unsetenv("NCCL_DEBUG_FILE");
    unsetenv("NCCL_DEBUG_SUBSYS");
    char buf[256];
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    assert_string_equal(buf, ""); /* before any open */
    char *text, src[200];
    size_t len;
    assert_int_equal(nccl_links_log_read(&text, &len, src, sizeof src), -1);
    assert_null(text);
    assert_string_equal(src, "no NCCL log: NCCL has not been opened");

    /* Opened and closed before NCCL wrote anything: all gone, variables too. */
    nccl_links_log_begin();
    char first[512];
    snprintf(first, sizeof first, "%s", getenv("NCCL_DEBUG_FILE"));
    assert_true(exists(first));
    nccl_links_log_end();
    assert_false(exists(first));
    assert_null(getenv("NCCL_DEBUG"));
    assert_null(getenv("NCCL_DEBUG_FILE"));

    nccl_links_log_begin();
    nccl_links_log_begin(); /* a second backend open at once */
    assert_string_equal(getenv("NCCL_DEBUG"), "INFO");
    assert_string_equal(getenv("NCCL_DEBUG_SUBSYS"), "INIT,GRAPH");
    const char *path = getenv("NCCL_DEBUG_FILE");
    assert_non_null(path);
    assert_int_equal(strncmp(path, tmpdir, strlen(tmpdir)), 0);
    assert_null(strchr(path, '%'));
    assert_string_equal(getenv("COLLVIZ_NCCL_DEBUG_FILE"), path);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    assert_string_equal(buf, "no connections in NCCL's INFO log yet");
    nccl_links_log_text(1, rec_links_summary, buf,
                        sizeof buf); /* one rank: none to make, none awaited */
    assert_string_equal(buf, "none: one rank connects to nobody");
    assert_int_equal(nccl_links_log_read(&text, &len, src, sizeof src), -1); /* empty */
    assert_null(text);
    assert_string_equal(src,
                        "no NCCL log yet: NCCL writes it at its first collective (m measures)");

    FILE *f = fopen(path, "w");
    assert_non_null(f);
    setlinebuf(f);
    fprintf(f, "h:1:2 [0] NCCL INFO NCCL_DEBUG_FILE set\n"
               "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    assert_string_equal(buf,
                        "P2P/CUMEM (NVLink or PCIe peer access), 1 channel (NCCL INFO log)");
    /* the whole text, as NCCL wrote it, for the records parser */
    static const char want[] = "h:1:2 [0] NCCL INFO NCCL_DEBUG_FILE set\n"
                               "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via "
                               "P2P/CUMEM/read\n";
    assert_int_equal(nccl_links_log_read(&text, &len, src, sizeof src), 0);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(text, want, len);
    assert_string_equal(src, "this machine's NCCL INFO log (this run)");
    free(text);

    nccl_links_log_end();
    assert_true(exists(path)); /* one backend still open */
    nccl_links_log_end();
    assert_false(exists(path));
    assert_false(exists(dir));
    assert_null(getenv("NCCL_DEBUG_FILE"));
    /* NCCL keeps its file open; what it writes is still read. */
    fprintf(f, "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    assert_string_equal(buf,
                        "P2P/CUMEM (NVLink or PCIe peer access), 2 channels (NCCL INFO log)");
    /* Open again: the same log. */
    nccl_links_log_begin();
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    assert_string_equal(buf,
                        "P2P/CUMEM (NVLink or PCIe peer access), 2 channels (NCCL INFO log)");
    nccl_links_log_end();
    fclose(f);
    assert_int_equal(rmdir(tmpdir), 0); /* nothing left behind */
}

/* Variables a collviz parent set (COLLVIZ_NCCL_DEBUG_FILE names the same file) are not the
 * user's: the child gets a log of its own. */
static bool log_inherited(void)
{
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_FILE", "/nonexistent/parent.log", 1);
    setenv("COLLVIZ_NCCL_DEBUG_FILE", "/nonexistent/parent.log", 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 1);
    nccl_links_log_begin();
    const char *p = getenv("NCCL_DEBUG_FILE");
    bool ok = p && strncmp(p, "/tmp/collviz-nccl-", 18) == 0 && exists(p);
    char buf[200];
    nccl_links_log_text(2, rec_links_summary, buf, sizeof buf);
    ok = ok && strcmp(buf, "no connections in NCCL's INFO log yet") == 0;
    nccl_links_log_end();
    return ok;
}

static void test_log_inherited(void **state)
{
    (void)state;
    in_child(log_inherited);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_cumem),     cmocka_unit_test(test_p2p_ipc),
        cmocka_unit_test(test_shm),           cmocka_unit_test(test_net_ib),
        cmocka_unit_test(test_net_socket),    cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_garbage),       cmocka_unit_test(test_log_user),
        cmocka_unit_test(test_log_inherited), cmocka_unit_test(test_log_private),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
