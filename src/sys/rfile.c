/* rfile.c - non-blocking open of a regular file (rfile.h). */
#include "sys/rfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rfile_open(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: the open of a FIFO returns at once (with no writer) instead of waiting */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (err && errlen) snprintf(err, errlen, "cannot open: %s", strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    bool known = fstat(fd, &st) == 0;
    if (!known || !S_ISREG(st.st_mode)) {
        bool dir = known && S_ISDIR(st.st_mode);
        close(fd);
        if (err && errlen)
            snprintf(err, errlen, "%snot a regular file", dir ? "a directory, " : "");
        errno = EINVAL;
        return -1;
    }
    /* a regular file never blocks; reads go on as usual */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
