/* recfile.c - read a record file from disk into a rec_log (see recfile.h). */
#include "records/recfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "sys/rfile.h"

int rec_read_file(struct rec_log *L, const char *path, char *err, size_t errlen)
{
    int fd = rfile_open(path, err, errlen);
    if (fd < 0) return -1;
    /* read one byte past the limit to tell a file that is too large */
    size_t cap = REC_MAX_BYTES + 1, got = 0, have = 1 << 16;
    char *buf = xmalloc(have);
    for (;;) {
        if (got == have) {
            have = have * 2 > cap ? cap : have * 2;
            buf = xrealloc(buf, have);
        }
        if (got == cap) break;
        ssize_t r = read(fd, buf + got, have - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            snprintf(err, errlen, "cannot read: %s", strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    int n = rec_parse(L, path, buf, got);
    free(buf);
    return n;
}
