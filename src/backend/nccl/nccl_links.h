/* nccl_links.h - the link type NCCL reports between GPUs, read from its own INFO log.
 *
 * NCCL says how it connects each pair of ranks only in its debug log: with NCCL_DEBUG=INFO
 * every connection it sets up is one line, "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via
 * P2P/CUMEM/read" (or via P2P/IPC, SHM/direct/direct, NET/IB/0/GDRDMA, NET/Socket/0, ...),
 * and the topology search (subsystem GRAPH) prints the path type it chose, "Pattern 4,
 * crossNic 0, nChannels 8, bw ..., type NVL/PIX, ...". NCCL connects lazily, at the first
 * collective on a communicator, so the lines are there only after the first measurement.
 *
 * This is the log half: it points NCCL_DEBUG_FILE at a private file before the first NCCL
 * call (unless the user set NCCL_DEBUG or NCCL_DEBUG_FILE: then their log is theirs and
 * nothing is read), so NCCL's INFO never reaches the terminal, and reads it back. The
 * summary half, pure (log text in, one line out), is records/reclinks.h's
 * rec_links_summary, above the backends; it is passed in. Uses no NCCL itself, so this
 * module is built with or without it. */
#ifndef COLLVIZ_BACKEND_NCCL_NCCL_LINKS_H
#define COLLVIZ_BACKEND_NCCL_NCCL_LINKS_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"

/* The NCCL backend's open: before its first NCCL call, unless the user set NCCL_DEBUG or
 * NCCL_DEBUG_FILE, set NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,GRAPH and NCCL_DEBUG_FILE to
 * a new file in a private directory (under $XDG_RUNTIME_DIR, else $TMPDIR or /tmp).
 * Counted: every begin has its end. Thread-safe. */
void nccl_links_log_begin(void);
/* The backend's close: the last one removes the file and its directory (the log stays
 * readable through the descriptor kept open, as NCCL keeps writing to it). */
void nccl_links_log_end(void);

/* For the screens, before any backend opens: NCCL writes its log on stdout unless
 * NCCL_DEBUG_FILE names a file. When the user set NCCL_DEBUG without NCCL_DEBUG_FILE, set
 * NCCL_DEBUG_FILE to a file in a new private directory under $TMPDIR (or /tmp; one where
 * NCCL expands no '%'), its path in path[n], and return true; false when nothing was set
 * (no NCCL_DEBUG, the user's own file, or no directory could be made). The log is the
 * user's: the directory stays. */
bool nccl_links_user_log_to_file(char *path, size_t n);

/* What NCCL reported so far for a communicator of nranks ranks, as the value of a "link: "
 * line: "<summary> (NCCL INFO log)", the summary made by `summarise` (rec_links_summary); "not
 * read (NCCL_DEBUG is set by you)" (or NCCL_DEBUG_FILE); "no connections in NCCL's INFO log
 * yet"; "none: one rank connects to nobody" (nranks 1); or why there is no log. "" before any
 * begin. */
void nccl_links_log_text(int nranks, backend_log_summary_fn summarise, char *buf, size_t n);

/* NCCL's INFO log as written so far (its first 8 MiB), for the records parser: the text on
 * the heap in *text (*len bytes, the caller frees) and what it is in src: 0. -1 with why
 * not in src: the user's own log (NCCL_DEBUG set by them), no private log, none written
 * yet. Test builds (CV_TEST_HOOKS) only: COLLVIZ_TEST_NCCL_LOG=FILE supplies FILE in its
 * place, and src says so, for tests of the plumbing on emulated devices. */
int nccl_links_log_read(char **text, size_t *len, char *src, size_t n);

#endif
