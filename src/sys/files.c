/* files.c - the XDG paths and the atomic save (see files.h). */
#include "sys/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

int files_xdg_path(const char *xdg, const char *fallback, const char *sub, char *buf, size_t n,
                   char *err, size_t errlen)
{
    const char *x = getenv(xdg), *home = getenv("HOME");
    int k;
    if (x && x[0] == '/')
        k = snprintf(buf, n, "%s/collviz%s", x, sub);
    else if (home && home[0])
        k = snprintf(buf, n, "%s/%s/collviz%s", home, fallback, sub);
    else
        return cv_err(err, errlen, CV_EINVAL, "neither %s nor HOME is set", xdg);
    if (k < 0 || (size_t)k >= n)
        return cv_err(err, errlen, CV_EINVAL, "%s: path too long", xdg);
    return CV_OK;
}

static bool files_write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

/* The rename itself reaches the disk with the folder. */
static void files_sync_dir(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = '\0';
    int dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

int files_save(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char tmp[4096 + 32];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cv_err(err, errlen, CV_EINVAL, "%s: path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return cv_err(err, errlen, CV_EINVAL, "cannot write %s: %s", tmp, strerror(errno));
    bool ok = files_write_all(fd, data, len) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        return cv_err(err, errlen, CV_EINVAL, "cannot write %s: %s", tmp, strerror(saved));
    }
    if (rename(tmp, path) != 0) {
        saved = errno;
        unlink(tmp);
        return cv_err(err, errlen, CV_EINVAL, "cannot replace %s: %s", path, strerror(saved));
    }
    files_sync_dir(path);
    return CV_OK;
}
