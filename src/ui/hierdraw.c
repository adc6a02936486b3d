/* hierdraw.c - the hierarchy's styled lines drawn with the theme (see hierdraw.h). */
#include "ui/hierdraw.h"

#include "core/text.h"
#include "ui/app.h"
#include "ui/kit/draw.h"

static attr_t hier_attr(const struct app *a, enum hier_style s)
{
    const struct theme *th = &a->th;
    switch (s) {
    case HS_TITLE:
        return A_BOLD;
    case HS_TIER:
        return th->role[TH_LABEL] | A_BOLD;
    case HS_LECTURE:
        return A_BOLD;
    case HS_MODEL:
        return th->role[TH_PLOT];
    case HS_MEASURED:
        return th->role[TH_MEASURED] | A_BOLD;
    case HS_DIM:
        return th->role[TH_DIM];
    case HS_WARN:
        return th->role[TH_WARN];
    case HS_FIELD:
        return A_UNDERLINE;
    case HS_FIELD_SEL:
        return A_REVERSE | A_BOLD;
    case HS_TEXT:
        break;
    }
    return A_NORMAL;
}

int hier_lines_draw(const struct app *a, const struct hier_lines *p, struct rect r)
{
    int y = 0;
    for (; y < p->n && y < r.h; y++) {
        const struct hier_line *l = &p->l[y];
        int total = 0;
        for (int k = 0; k < l->n; k++)
            total += text_width(l->seg[k].text);
        /* a line wider than the screen ends in an ellipsis: it is cut, and says so */
        int room = total > r.w && r.w > 1 ? r.w - 1 : r.w, x = 0;
        for (int k = 0; k < l->n && x < room; k++)
            x += draw_put_masked(r.y + y, r.x + x, room - x, hier_attr(a, l->seg[k].style),
                                 l->seg[k].text);
        if (room < r.w) draw_put(r.y + y, r.x + room, 1, a->th.role[TH_DIM], a->g->ell);
    }
    return y;
}
