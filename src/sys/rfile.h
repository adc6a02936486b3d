/* rfile.h - opening a file named from outside (a lesson, a progress file, an NCCL log) for
 * reading without ever blocking: open(2) of a FIFO waits for a writer forever and a device
 * can stall or never end, so the file is opened non-blocking and refused unless it is a
 * regular file. One rule for every reader. */
#ifndef COLLVIZ_SYS_RFILE_H
#define COLLVIZ_SYS_RFILE_H

#include <stddef.h>

/* The file descriptor (O_RDONLY, close-on-exec, blocking again once it is known to be a
 * regular file), or -1 with err saying why: "cannot open: <strerror>", "a directory, not a
 * regular file" or "not a regular file" (a FIFO, a device, a socket); errno is open(2)'s error
 * (ENOENT: no such file), or EINVAL when the file is not a regular one. */
int rfile_open(const char *path, char *err, size_t errlen);

#endif
