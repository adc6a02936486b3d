/* present_slide.c - a slide's text laid out for the presenter (see present_slide.h). */
#include "ui/present/present_slide.h"

#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/util.h"
#include "core/vec.h"
#include "handout/paper_text.h"
#include "lesson/glossary.h"
#include "ui/kit/keys.h"
#include "ui/screens/screens.h"

/* The rows of the screen slide s's scene is on (KEYS_ON_*; 0 without a scene). */
static unsigned slide_keys_on(const struct lesson_slide *s)
{
    if (!s->has_scene) return 0;
    const struct screen_ops *o = screen_ops_of(s->scene.screen);
    return o ? o->keys_on : 0;
}

/* The slide's narration is written for the player: a key it names in `backticks` that
 * does that here by another key is shown as that key (the presenter's o is its overview;
 * the operation is *). */
static void retarget_keys(struct quiz *q, const struct lesson_slide *s, bool utf8)
{
    unsigned on = slide_keys_on(s);
    if (!on) return;
    quiz_own_slide(q);
    for (size_t i = 0; i < q->nslide; i++) {
        struct lesson_block *b = &q->v[i];
        for (size_t j = 0; j < b->nspans; j++) {
            struct lesson_span *sp = &b->spans[j];
            if (!(sp->style & LSPAN_CODE) || strlen(sp->text) != 1) continue;
            char in[8], out[64];
            snprintf(in, sizeof in, "`%s`", sp->text);
            keys_retarget_text(in, SURFACE_PLAYER, SURFACE_PRESENTER, on, utf8, out,
                               sizeof out);
            if (strcmp(in, out) == 0) continue;
            /* "`*`" or "`b` (in the player)": the key stays code, the words do not fit in
             * one span's style, so they follow as plain text in the key's span */
            char *end = strchr(out + 1, '`');
            if (!end) continue;
            *end = '\0';
            char key[80];
            snprintf(key, sizeof key, "%s%s", out + 1, end[1] ? end + 1 : "");
            free(sp->text);
            sp->text = xstrdup(key);
        }
    }
}

/* The room does not press keys: a sentence of the narration that asks for one ("Press `m` to
 * measure now.") is the speaker's (present_slide_keys sends it to the notes terminal), left
 * out by the handouts' rule (handout/paper_text.h), which reads the text, not a list. */
static void room_text(struct quiz *q)
{
    quiz_own_slide(q);
    size_t k = 0;
    for (size_t i = 0; i < q->n; i++) {
        struct lesson_block b = q->v[i], kept;
        if (i >= q->nslide) {
            q->v[k++] = b;
            continue;
        }
        bool any = paper_text_block(&b, &kept);
        paper_text_block_free(&b);
        if (any) q->v[k++] = kept;
    }
    q->nslide -= q->n - k;
    for (size_t j = 0; j < q->nex; j++) {
        q->ex_block[j] -= q->n - k;
        if (q->ans_block[j]) q->ans_block[j] -= q->n - k;
    }
    q->n = k;
}

void present_slide_keys(const struct lesson_slide *s, bool utf8, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nblocks && o + 1 < n; i++) {
        const struct lesson_block *b = &s->blocks[i];
        if (b->kind == LBLOCK_CODE || b->kind == LBLOCK_RULE) continue;
        struct paper_piece *pc = xcalloc(b->nspans + 1, sizeof *pc);
        size_t total = 0;
        for (size_t j = 0; j < b->nspans; j++) {
            pc[j] =
                (struct paper_piece){b->spans[j].text, strlen(b->spans[j].text),
                                     b->spans[j].style & LSPAN_CODE ? PAPER_CODE : PAPER_TEXT};
            total += pc[j].n;
        }
        bool *keep = xcalloc(total + 1, 1);
        paper_text_keep(pc, b->nspans, keep);
        /* the dropped bytes, code spans in backticks, runs joined by a space */
        size_t off = 0;
        bool in = false;
        for (size_t j = 0; j < b->nspans && o + 8 < n; j++) {
            bool code = pc[j].kind == PAPER_CODE, open = false;
            for (size_t c = 0; c < pc[j].n && o + 8 < n; c++, off++) {
                if (keep[off]) {
                    in = false;
                    continue;
                }
                if (!in && o) buf[o++] = ' ';
                in = true;
                if (code && !open) buf[o++] = '`', open = true;
                buf[o++] = pc[j].s[c];
            }
            if (open) buf[o++] = '`';
        }
        buf[o] = '\0';
        free(keep);
        free(pc);
    }
    /* written for the player: the presenter's keys where they differ */
    char *t = xstrdup(buf);
    keys_retarget_text(t, SURFACE_PLAYER, SURFACE_PRESENTER, slide_keys_on(s), utf8, buf, n);
    free(t);
}

/* ps->narr (and its blank lines) laid out airy (an empty line between blocks) or tight. */
static void slide_narr(struct present_slide *ps, bool tight)
{
    if (ps->narr.l || ps->narr.n) narr_free(&ps->narr);
    free(ps->blank);
    free(ps->starts);
    free(ps->ex_ask);
    free(ps->ex_ans);
    narr_layout(ps->quiz.v, ps->quiz.n, ps->narr_w, !tight, ps->utf8, &ps->narr);
    ps->blank = xcalloc((size_t)ps->narr.n + 1, sizeof *ps->blank);
    ps->starts = xcalloc((size_t)ps->narr.n + 1, sizeof *ps->starts);
    ps->ask = 0;
    for (int i = 0; i < ps->narr.n; i++) {
        ps->blank[i] = ps->narr.l[i].width == 0 && !ps->narr.l[i].with_next;
        ps->starts[i] = ps->narr.l[i].starts;
        if (!ps->ask && ps->narr.l[i].block >= (int)ps->quiz.nslide && ps->narr.l[i].width > 0)
            ps->ask = i; /* the first line of the quiz's questions (none at line 0) */
    }
    ps->ex_ask = xcalloc(ps->quiz.nex + 1, sizeof *ps->ex_ask);
    for (size_t k = 0; k <= ps->quiz.nex; k++) {
        int i = 0;
        while (k < ps->quiz.nex && i < ps->narr.n &&
               (ps->narr.l[i].block < (int)ps->quiz.ex_block[k] || ps->narr.l[i].width == 0))
            i++;
        ps->ex_ask[k] = k < ps->quiz.nex ? i : ps->narr.n;
    }
    ps->ex_ans = xcalloc(ps->quiz.nex + 1, sizeof *ps->ex_ans);
    for (size_t k = 0; k < ps->quiz.nex; k++) {
        int i = ps->ex_ask[k], end = ps->ex_ask[k + 1];
        size_t b = ps->quiz.ans_block[k];
        while (b && i < end && (ps->narr.l[i].block < (int)b || ps->narr.l[i].width == 0))
            i++;
        ps->ex_ans[k] = b ? i : end;
    }
    ps->tight = tight;
}

/* Each glossary term underlined at its first use in the slide's own narration (not in the
 * quiz's lines): spans cut at the term's edges only, so the lines break where they would. */
static void terms_marked(struct quiz *q)
{
    quiz_own_slide(q);
    bool seen[GLOSSARY_MAX_TERMS] = {false};
    for (size_t i = 0; i < q->nslide; i++)
        glossary_mark_block(&q->v[i], seen);
}

void present_slide_text(const struct lesson_slide *s, size_t nrevealed, int cols, bool utf8,
                        struct present_slide *out)
{
    memset(out, 0, sizeof *out);
    int nw = present_layout_narr_width(cols);
    quiz_build_room(s, nrevealed, &out->quiz);
    room_text(&out->quiz);
    retarget_keys(&out->quiz, s, utf8);
    terms_marked(&out->quiz);
    out->utf8 = utf8;
    out->narr_w = nw;
    slide_narr(out, false);
    out->ntitle = text_wrap(s->title ? s->title : "", nw, out->title, PRES_TITLE_MAX, utf8);
    if (out->ntitle < 1) out->title[0][0] = '\0', out->ntitle = 1;
}

void present_slide_tighten(struct present_slide *ps)
{
    if (!ps->tight) slide_narr(ps, true);
}

void present_slide_free(struct present_slide *ps)
{
    if (ps->narr.l || ps->narr.n) narr_free(&ps->narr);
    quiz_free(&ps->quiz);
    free(ps->blank);
    free(ps->starts);
    free(ps->ex_ask);
    free(ps->ex_ans);
    memset(ps, 0, sizeof *ps);
}

/* The lines of text (blank lines aside) on the page the slide opens on. */
static int entry_lines(const struct present_slide *ps, const struct present_layout *lay)
{
    if (lay->npages < 1) return 0;
    const struct present_layout_page *pg = &lay->page[lay->entry];
    int k = 0;
    for (int i = pg->from; i < pg->to; i++)
        k += !ps->blank[i];
    for (int i = pg->ask_from; i < pg->ask_to; i++)
        k += !ps->blank[i];
    return k;
}

struct present_layout_ask present_slide_ask(const struct present_slide *ps)
{
    struct present_layout_ask q = {0};
    if (!ps->ask || !ps->quiz.nex) return q;
    size_t k = ps->asking < ps->quiz.nex ? ps->asking : ps->quiz.nex - 1;
    q = (struct present_layout_ask){ps->ask, ps->ex_ask[k], ps->ex_ask[k + 1]};
    if (k == ps->asking && k > 0 && ps->ex_ans[k - 1] < ps->ex_ask[k]) {
        q.from = ps->ex_ans[k - 1]; /* the answer r revealed last, then the next question */
        if (ps->answer_only) q.to = ps->ex_ask[k];
    } else if (k != ps->asking && ps->answer_only) {
        q.from = ps->ex_ans[k]; /* all revealed: the last one's answer */
    }
    while (q.to > q.from && ps->blank[q.to - 1])
        q.to--;
    return q;
}

/* Its pages with its narration as it is now laid out (airy or tight). */
static void slide_pages(struct present_slide *ps, int rows, int cols, int scene_rows,
                        struct present_layout *out)
{
    struct present_layout_ask q = present_slide_ask(ps);
    present_layout_compute(rows, cols, scene_rows, ps->ntitle, ps->narr.n, ps->blank,
                           ps->starts, &q, out);
}

/* Its pages for a scene of scene_rows (present_slide_pages without the short panel). */
static void slide_pages_at(struct present_slide *ps, int rows, int cols, int scene_rows,
                           struct present_layout *out)
{
    if (ps->tight) slide_narr(ps, false);
    slide_pages(ps, rows, cols, scene_rows, out);
    if (out->npages < 2) return;
    int airy = out->npages, airy_lead = entry_lines(ps, out);
    struct present_layout_ask q = present_slide_ask(ps);
    bool airy_asks = present_layout_asks(out, &q, ps->narr.n);
    slide_narr(ps, true);
    slide_pages(ps, rows, cols, scene_rows, out);
    /* tight where that shows the question beside the scene, saves a page or shows more */
    q = present_slide_ask(ps);
    bool asks = present_layout_asks(out, &q, ps->narr.n);
    if (asks != airy_asks     ? asks
        : out->npages != airy ? out->npages < airy
                              : entry_lines(ps, out) > airy_lead)
        return;
    slide_narr(ps, false);
    slide_pages(ps, rows, cols, scene_rows, out);
}

/* present_slide_pages with the ask as it is (whole, or the answer alone). */
static bool slide_pages_ask(struct present_slide *ps, int rows, int cols, int scene_rows,
                            int scene_short, struct present_layout *out)
{
    slide_pages_at(ps, rows, cols, scene_rows, out);
    struct present_layout_ask q = present_slide_ask(ps);
    if (scene_short <= 0 || scene_short >= scene_rows || !q.narr_end ||
        present_layout_asks(out, &q, ps->narr.n))
        return false;
    /* the question does not fit beside the scene: the measured panel gives way to it */
    slide_pages_at(ps, rows, cols, scene_short, out);
    q = present_slide_ask(ps);
    if (present_layout_asks(out, &q, ps->narr.n)) return true;
    slide_pages_at(ps, rows, cols, scene_rows, out);
    return false;
}

/* Is an answer revealed that present_slide_ask shows before (or as) the question asked? */
static bool slide_answer_shown(const struct present_slide *ps)
{
    if (!ps->quiz.nex || !ps->ask) return false;
    size_t k = ps->asking < ps->quiz.nex ? ps->asking : ps->quiz.nex - 1;
    if (k != ps->asking) return ps->ex_ans[k] < ps->ex_ask[k + 1];
    return k > 0 && ps->ex_ans[k - 1] < ps->ex_ask[k];
}

bool present_slide_pages(struct present_slide *ps, int rows, int cols, int scene_rows,
                         int scene_short, struct present_layout *out)
{
    ps->answer_only = false;
    bool brief = slide_pages_ask(ps, rows, cols, scene_rows, scene_short, out);
    struct present_layout_ask q = present_slide_ask(ps);
    if (!slide_answer_shown(ps) || present_layout_asks(out, &q, ps->narr.n)) return brief;
    /* the answer and the next question do not fit beside the scene: the answer alone */
    ps->answer_only = true;
    present_layout_free(out);
    brief = slide_pages_ask(ps, rows, cols, scene_rows, scene_short, out);
    q = present_slide_ask(ps);
    if (present_layout_asks(out, &q, ps->narr.n)) return brief;
    ps->answer_only = false; /* on a text page either way: the question with it */
    present_layout_free(out);
    return slide_pages_ask(ps, rows, cols, scene_rows, scene_short, out);
}

void present_slide_unshown(const struct present_slide *ps, const struct present_layout_page *pg,
                           char *buf, size_t n)
{
    size_t o = 0;
    int block = -1;
    if (n) buf[0] = '\0';
    for (int i = 0; i < ps->narr.n && o + 1 < n; i++) {
        if ((i >= pg->from && i < pg->to) || (i >= pg->ask_from && i < pg->ask_to)) continue;
        char t[1024];
        narr_line_text(&ps->narr.l[i], t, sizeof t);
        const char *w = t + strspn(t, " ");
        if (!*w) continue;
        const char *sep = o == 0 ? "" : ps->narr.l[i].block != block ? "\n\n" : " ";
        block = ps->narr.l[i].block;
        int k = snprintf(buf + o, n - o, "%s%s", sep, w);
        if (k < 0 || (size_t)k >= n - o) {
            buf[o + cv_utf8_cut(buf + o, n - o - 1)] = '\0'; /* never half a character */
            break;
        }
        o += (size_t)k;
    }
}
