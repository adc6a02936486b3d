/* playout.c - the presenter's geometry (see playout.h). */
#include "playout.h"

#include <string.h>

int playout_narr_width(int cols)
{
    int w = cols - 8;
    if (w > PLAYOUT_TEXT_MAX) w = PLAYOUT_TEXT_MAX;
    return w < 20 ? 20 : w;
}

void playout_compute(int rows, int cols, bool has_scene, int narr_lines, struct playout *out)
{
    memset(out, 0, sizeof *out);
    if (rows < PLAYOUT_MIN_ROWS || cols < PLAYOUT_MIN_COLS) {
        out->too_small = true;
        return;
    }
    int nw = playout_narr_width(cols);
    int nx = (cols - nw) / 2;
    out->title = (struct rect){0, nx, 1, nw};
    out->footer = (struct rect){rows - 1, 0, 1, cols};
    int top = 2, bottom = rows - 1; /* rows [top, bottom) hold narration and scene */
    if (narr_lines < 0) narr_lines = 0;
    if (!has_scene) {
        int h = bottom - top;
        int n = narr_lines < h ? narr_lines : h;
        /* Vertically centred, but never above the row under the title. */
        int y = top + (h - n) / 3;
        out->narr = (struct rect){y, nx, n, nw};
        return;
    }
    int avail = bottom - top;
    int scene_h = avail - narr_lines - 1; /* a blank row between narration and scene */
    if (scene_h < LAYOUT_MIN_ROWS) scene_h = LAYOUT_MIN_ROWS;
    int narr_h = avail - scene_h - 1;
    if (narr_h > narr_lines) narr_h = narr_lines;
    if (narr_h < 0) narr_h = 0;
    out->narr = (struct rect){top, nx, narr_h, nw};
    out->scene = (struct rect){bottom - scene_h, 0, scene_h, cols};
}
