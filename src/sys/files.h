/* files.h - where collviz keeps its own files and how it writes them: the XDG base
 * directories with their fallbacks under $HOME, and the one atomic save (a private
 * temporary file, mode 0600, written whole and synced, then renamed over the old one, the
 * folder synced), so a crash leaves the old file or the new one, never half of one. */
#ifndef COLLVIZ_SYS_FILES_H
#define COLLVIZ_SYS_FILES_H

#include <stddef.h>

/* "$XDG/collviz<sub>" where the variable xdg ("XDG_STATE_HOME") holds an absolute path,
 * else "$HOME/<fallback>/collviz<sub>" (fallback ".local/state"), into buf[n]. CV_OK, or
 * CV_EINVAL with "neither XDG_STATE_HOME nor HOME is set" / "XDG_STATE_HOME: path too
 * long" in err. */
int files_xdg_path(const char *xdg, const char *fallback, const char *sub, char *buf, size_t n,
                   char *err, size_t errlen);

/* Replace path with len bytes of data, atomically, the file mode 0600 (the folder must
 * exist). CV_OK, or CV_EINVAL with "cannot write PATH.tmp-PID: why" or "cannot replace
 * PATH: why" in err, the temporary file removed. */
int files_save(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
