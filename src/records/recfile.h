/* recfile.h - the one reader of record files (NCCL INFO logs, nccl-tests output) from disk,
 * for `collviz nccl`, --ring-order-from and the topology screen's --nccl-log: a file (gzip
 * or plain, by its first bytes) streamed through the parser a block at a time (at most
 * REC_MAX_BYTES of text), or a folder: its regular files in name order, as one record.
 * records.h stays pure; this is its only I/O. */
#ifndef COLLVIZ_RECORDS_RECFILE_H
#define COLLVIZ_RECORDS_RECFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "records/records.h"

/* Read file `path` into L: the lines recognised (rec_parse's count), or -1 with why in err
 * ("cannot open: No such file or directory"). */
int rec_read_file(struct rec_log *L, const char *path, char *err, size_t errlen);
/* A file whose text (gunzipped where it is gzip) is one read into L before is not read again:
 * a warning says "FILE is the same record as EARLIER: read once", and 0 is returned. */

/* Whether regular files a and b hold one text (after gunzip): a copy, or its .gz. */
bool rec_same_text(const char *a, const char *b);

#endif
