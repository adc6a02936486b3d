/* reclinks.h - which links NCCL set up, in one line: the "link:" value of a measurement
 * (the worker passes rec_links_summary to backend_links) and of `collviz nccl`.
 * Pure: log text in, one line out; unit-tested on real-looking logs. */
#ifndef COLLVIZ_RECORDS_RECLINKS_H
#define COLLVIZ_RECORDS_RECLINKS_H

#include <stddef.h>

/* Summarise the connections in NCCL INFO log text (len bytes, need not end in NUL) into buf:
 * each transport NCCL named, with what it is and on how many channels, transports joined by
 * "; ", e.g. "P2P/CUMEM (GPU peer access over NVLink, path NVL), 8 channels" or
 * "SHM/direct (through host shared memory), 2 channels; NET/IB (InfiniBand verbs, GPUDirect
 * RDMA), 2 channels". Lines that are not NCCL INFO lines are ignored. Returns the number of
 * connection lines recognised; 0 leaves buf empty. */
int rec_links_summary(const char *log, size_t len, char *buf, size_t n);

#endif
