/* test_print.c - the paper pictures (handout/paper.h) and the handout's rules
 * (handout/handout.h, handout/paper_text.h): the WCAG contrast formula against known
 * values, every text colour pair the drawing reports for both themes at >= 4.5:1 in colour
 * and printed in grey, rank fills side by side >= 3:1 in grey, every parallelism scheme's
 * picture with its elements, every shipped lesson's picture at >= 8.5 pt and never saying
 * a number exercise's answer, the picture of a slide never past the step a holds exercise
 * asks (and of its solution, at it), captions in words, the option parsers, the answer
 * lines, sentences that name a key left out, numbers at paper's precision. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "handout/handout.h"
#include "handout/paper.h"
#include "handout/paper_text.h"
#include "lesson/exercise.h"

static void test_contrast_formula(void **state)
{
    (void)state;
    /* WCAG 2: black on white is 21:1, a colour on itself 1:1, #777777 on white 4.48:1
     * (the classic grey that just fails AA), #767676 4.54:1 (the one that passes). */
    assert_true(fabs(print_contrast(0x000000, 0xffffff) - 21.0) < 1e-9);
    assert_true(fabs(print_contrast(0xffffff, 0x000000) - 21.0) < 1e-9);
    assert_true(fabs(print_contrast(0x3a7bd5, 0x3a7bd5) - 1.0) < 1e-9);
    assert_true(fabs(print_contrast(0x777777, 0xffffff) - 4.48) < 0.01);
    assert_true(fabs(print_contrast(0x767676, 0xffffff) - 4.54) < 0.01);
}

static void check_pairs(const char *text, bool dark)
{
    struct scene sc;
    scene_default(&sc);
    char err[300];
    assert_int_equal(scene_parse(&sc, text, err, sizeof err), CV_OK);
    struct print_opts o;
    print_opts_default(&o);
    o.dark = dark;
    struct print_pic p;
    assert_int_equal(print_pic_build(&p, &sc, &o, err, sizeof err), CV_OK);
    assert_true(p.npairs >= 3);
    assert_true(p.w > 50 && p.h > 50);
    const struct print_theme *th = print_theme_get(dark);
    bool page = false;
    for (size_t i = 0; i < p.npairs; i++) {
        double r = print_contrast(p.pair[i].fg, p.pair[i].bg);
        double g = print_contrast_grey(p.pair[i].fg, p.pair[i].bg);
        if (r < 4.5 || g < 4.5)
            fail_msg("%s (%s): #%06x on #%06x is %.2f:1, %.2f:1 in grey", text, th->name,
                     (unsigned)p.pair[i].fg, (unsigned)p.pair[i].bg, r, g);
        page |= p.pair[i].bg == th->bg;
    }
    assert_true(page); /* the header is drawn on the theme's background */
    print_pic_free(&p);
}

static void test_every_pair_passes_aa(void **state)
{
    (void)state;
    static const char *const scenes[] = {
        "collective=all_reduce algo=ring ranks=8 step=3 highlight=rank:2",
        "collective=all_reduce algo=tree ranks=16 step=2 highlight=chunk:0",
        "collective=reduce_scatter algo=ring ranks=4 step=3",
        "collective=all_to_all algo=direct ranks=8 step=1 highlight=transfer:1",
        "collective=broadcast algo=tree ranks=8 step=0",
        "screen=parallel scheme=pp ranks=4",
        "screen=parallel scheme=ddp ranks=4 step=13 highlight=rank:2",
        "screen=parallel scheme=tp ranks=3 step=5",
        "screen=parallel scheme=zero2 ranks=4 step=9",
        "screen=parallel scheme=moe ranks=4 step=1",
        "screen=hierarchy",
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        check_pairs(scenes[i], false);
        check_pairs(scenes[i], true);
    }
    /* The theme tables themselves: every rank's ink on the page, cell ink on every fill. */
    for (int dark = 0; dark < 2; dark++) {
        const struct print_theme *t = print_theme_get(dark);
        for (int r = 0; r < PRINT_RANK_COLOURS; r++) {
            assert_true(print_contrast(t->rank_ink[r], t->bg) >= 4.5);
            assert_true(print_contrast_grey(t->rank_ink[r], t->bg) >= 4.5);
            assert_true(print_contrast(t->rank_text[r], t->rank_fill[r]) >= 4.5);
            assert_true(print_contrast_grey(t->rank_text[r], t->rank_fill[r]) >= 4.5);
            assert_true(print_contrast(t->rank_text[r], t->rank_hatch[r]) >= 4.5);
            assert_true(print_contrast_grey(t->rank_text[r], t->rank_hatch[r]) >= 4.5);
        }
        assert_true(print_contrast(t->cell_ink, t->partial) >= 4.5);
        assert_true(print_contrast(t->cell_ink, t->complete) >= 4.5);
        assert_true(print_contrast(t->dim, t->empty) >= 4.5);
        assert_true(print_contrast(t->accent, t->bg) >= 4.5);
    }
}

/* A slide whose scene is at the end, with a holds exercise asking about step 3: the picture
 * stops at step 3; the solution's picture is at step 3 too. */
static void test_never_past_the_asked_step(void **state)
{
    (void)state;
    struct lesson_slide s;
    memset(&s, 0, sizeof s);
    s.has_scene = true;
    scene_default(&s.scene);
    char err[300];
    assert_int_equal(scene_parse(&s.scene,
                                 "collective=all_reduce algo=ring ranks=4 count=4 "
                                 "init=seq step=end",
                                 err, sizeof err),
                     CV_OK);
    struct lesson_exercise ex;
    memset(&ex, 0, sizeof ex);
    snprintf(ex.id, sizeof ex.id, "t");
    ex.type = LEX_HOLDS;
    ex.rank = 1;
    ex.step = 3;
    ex.scene = s.scene;
    struct print_pic p;
    /* without the exercise: the slide's own step, the last of 6 */
    assert_int_equal(handout_slide_pic(&s, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 6);
    assert_int_equal(p.nsteps, 6);
    print_pic_free(&p);
    s.ex = &ex;
    s.nex = 1;
    assert_int_equal(handout_slide_pic(&s, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 3);
    print_pic_free(&p);
    /* a slide before the asked step keeps its own */
    s.scene.step = 2;
    assert_int_equal(handout_slide_pic(&s, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 2);
    print_pic_free(&p);
    assert_int_equal(handout_reveal_pic(&ex, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 3);
    print_pic_free(&p);
    char ans[200];
    handout_answer_text(&ex, ans, sizeof ans);
    assert_string_equal(ans, "10 64 46 16"); /* lessons/05's worked frame */
}

/* The grey a colour prints as: 0.30 R + 0.59 G + 0.11 B (pdftoppm -gray, most printer
 * drivers); and the reason for the themes' two luminances: the pastel blue and orange of
 * ranks 0 and 1 that the handouts once used are 1.02:1 apart in grey (one light grey),
 * while every two ranks side by side are now >= 3:1 (WCAG 2.1 SC 1.4.11, graphical
 * objects) in both themes. */
static void test_ranks_in_grey(void **state)
{
    (void)state;
    assert_int_equal(print_grey(0xffffff), 0xffffff);
    assert_int_equal(print_grey(0x000000), 0x000000);
    assert_int_equal(print_grey(0xff0000), 0x4d4d4d); /* 0.30 x 255 = 76.5 -> 77 */
    assert_int_equal(print_grey(0x00ff00), 0x969696); /* 0.59 x 255 = 150.45 */
    assert_true(print_contrast_grey(0xd6e4fa, 0xfcdcc4) < 1.05);
    for (int dark = 0; dark < 2; dark++) {
        const struct print_theme *t = print_theme_get(dark);
        for (int r = 0; r < PRINT_RANK_COLOURS; r++) {
            int n = (r + 1) % PRINT_RANK_COLOURS;
            double c = print_contrast_grey(t->rank_fill[r], t->rank_fill[n]);
            if (c < 3.0) fail_msg("%s: ranks %d and %d are %.2f:1 in grey", t->name, r, n, c);
        }
        /* the highlight is heavier than any frame and its colour stands out on the page */
        assert_true(print_contrast_grey(t->accent, t->bg) >= 3.0);
    }
}

struct said {
    char text[16384];
    size_t n;
};

/* Every text the picture draws but the values in its cells ("83", "-7", "?"): what it says
 * in words and figures. */
static void said_add(void *ctx, const char *t)
{
    struct said *s = ctx;
    if (strspn(t, "-0123456789.?\u00b7") == strlen(t)) return;
    int w = snprintf(s->text + s->n, sizeof s->text - s->n, "%s\n", t);
    if (w > 0 && s->n + (size_t)w < sizeof s->text) s->n += (size_t)w;
}

static void build(const char *text, struct print_pic *p, struct said *said)
{
    struct scene sc;
    scene_default(&sc);
    char err[300];
    assert_int_equal(scene_parse(&sc, text, err, sizeof err), CV_OK);
    struct print_opts o;
    print_opts_default(&o);
    if (said) {
        said->n = 0;
        said->text[0] = '\0';
        o.on_text = said_add;
        o.text_ctx = said;
    }
    if (print_pic_build(p, &sc, &o, err, sizeof err) != CV_OK) fail_msg("%s: %s", text, err);
}

/* Every scheme's picture: the rank boxes with their labels (0-based, as the screen's), a
 * legend, and its own elements: the Gantt chart and the bubble (pp), what each rank keeps
 * (zero), the tokens and the blocks (moe), numbered arrows and their list (a collective's
 * step); nothing smaller than 8.5 points; a caption in words. */
static void test_parallel_pictures(void **state)
{
    (void)state;
    static const struct {
        const char *scene;
        unsigned want;
        const char *words[3];
    } c[] = {
        {"screen=parallel scheme=ddp ranks=4 step=13",
         PE_ARROWS | PE_XFER_LIST | PE_MATRICES,
         {"rank 0 \u00b7 rows 0-1", "rank 3 \u00b7 rows 6-7", "r3 \u2192 r0 chunk 1"}},
        {"screen=parallel scheme=tp ranks=4 step=5",
         PE_ARROWS | PE_MATRICES,
         {"rank 0 \u00b7 column 0", "x1 \u2713", "all-gather x1 3/3"}},
        {"screen=parallel scheme=pp ranks=4 step=5",
         PE_GANTT | PE_BUBBLE | PE_ARROWS,
         {"idle (bubble)", "F0", "= 3/7 \u2248 0.43"}},
        {"screen=parallel scheme=pp ranks=2 schedule=1f1b step=4",
         PE_GANTT | PE_BUBBLE,
         {"ideal schedule (model), 1F1B", "other schedule: GPipe", "= 1/5 \u2248 0.20"}},
        {"screen=parallel scheme=zero1 ranks=4 step=10",
         PE_KEEPS,
         {"weights", "whole", "shard 0 of 4"}},
        {"screen=parallel scheme=zero3 ranks=4 step=4",
         PE_KEEPS | PE_ARROWS,
         {"shard 3 of 4 + 1 layer", "AdamW state", "all-gather W0 3/3"}},
        {"screen=parallel scheme=moe ranks=4",
         PE_MOE_TOKENS | PE_MOE_BLOCKS,
         {"tokens per expert, layer 1", "from r0", "receives"}},
    };
    struct said said;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct print_pic p;
        build(c[i].scene, &p, &said);
        unsigned all = c[i].want | PE_RANK_BOXES | PE_LEGEND | PE_VALUES;
        if ((p.elems & all) != all)
            fail_msg("%s: elements %#x, wanted %#x", c[i].scene, p.elems, all);
        assert_true(p.min_pt >= 8.5);
        assert_true(p.caption[0] != '\0');
        assert_null(strstr(p.caption, "="));
        for (int k = 0; k < 3; k++)
            if (!strstr(said.text, c[i].words[k]))
                fail_msg("%s: the picture does not say '%s'", c[i].scene, c[i].words[k]);
        /* 0-based: no rank (or stage, or shard) numbered W */
        int W =
            c[i].scene[strlen(c[i].scene) - 1] == '4' || strstr(c[i].scene, "ranks=4") ? 4 : 2;
        char bad[32];
        snprintf(bad, sizeof bad, "rank %d", W);
        assert_null(strstr(said.text, bad));
        snprintf(bad, sizeof bad, "shard %d of", W);
        assert_null(strstr(said.text, bad));
        print_pic_free(&p);
    }
}

/* A collectives picture's caption, the transfers numbered as their arrows, the highlight
 * marked. */
static void test_collectives_picture(void **state)
{
    (void)state;
    struct print_pic p;
    struct said said;
    build("collective=all_reduce algo=ring ranks=4 count=4 init=seq step=3 highlight=rank:1",
          &p, &said);
    assert_string_equal(p.caption,
                        "all-reduce, ring, 4 ranks, after step 3 of 6, rank 1 highlighted");
    assert_non_null(strstr(said.text, "1  rank 0 \u2192 rank 1: chunk 1, reduced into it"));
    assert_non_null(strstr(said.text, "4  rank 3 \u2192 rank 0: chunk 0, reduced into it"));
    assert_non_null(strstr(said.text, "\u2605 rank 1"));
    unsigned want = PE_ARROWS | PE_XFER_LIST | PE_HIGHLIGHT | PE_LEGEND | PE_RANK_BOXES;
    assert_int_equal(p.elems & want, want);
    print_pic_free(&p);
    build("collective=broadcast algo=tree ranks=8 root=2 op=max step=0", &p, NULL);
    assert_string_equal(p.caption, "broadcast, tree, 8 ranks, root 2, before the first of 3 "
                                   "steps");
    print_pic_free(&p);
    build("collective=reduce_scatter algo=ring ranks=4 op=avg step=end", &p, NULL);
    assert_string_equal(p.caption, "reduce-scatter (avg), ring, 4 ranks, after step 4 of 4");
    print_pic_free(&p);
}

/* Only what a picture computes for the reader ("bubble ... = 3/7 ≈ 0.43", "capacity ... =
 * 2"): a text with its result after "=" or "≈". */
static void said_figures(void *ctx, const char *t)
{
    if (strchr(t, '=') || strstr(t, "\u2248")) said_add(ctx, t);
}

/* Every picture of every shipped lesson: it builds, no text under 8.5 pt, every text pair
 * >= 4.5:1 in colour and in grey, and no figure it computes is the answer of a number
 * exercise on its slide (the bubble slide's chart of 4 stages and 4 micro-batches counts
 * 3/7 idle and leaves the fraction to the reader; its exercise asks for 8 micro-batches). */
static void test_lesson_pictures(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    size_t n = 0, par = 0;
    struct said said;
    for (size_t k = 0; k < set.n; k++)
        for (size_t i = 0; i < set.v[k].nslides; i++) {
            const struct lesson_slide *s = &set.v[k].slides[i];
            if (!s->has_scene) continue;
            struct print_opts o;
            handout_slide_opts(s, false, &o);
            said.n = 0;
            said.text[0] = '\0';
            o.on_text = said_figures;
            o.text_ctx = &said;
            struct print_pic p;
            char err[300];
            struct scene sc = s->scene;
            if (print_pic_build(&p, &sc, &o, err, sizeof err) != CV_OK)
                fail_msg("%s slide %zu: %s", set.v[k].path, i + 1, err);
            n++;
            par += sc.screen == SCREEN_PARALLEL;
            if (p.min_pt < 8.5)
                fail_msg("%s slide %zu: %.1f pt", set.v[k].path, i + 1, p.min_pt);
            for (size_t j = 0; j < p.npairs; j++)
                if (print_contrast(p.pair[j].fg, p.pair[j].bg) < 4.5 ||
                    print_contrast_grey(p.pair[j].fg, p.pair[j].bg) < 4.5)
                    fail_msg("%s slide %zu: #%06x on #%06x", set.v[k].path, i + 1,
                             (unsigned)p.pair[j].fg, (unsigned)p.pair[j].bg);
            for (size_t e = 0; e < s->nex; e++) {
                char found[200];
                if (s->ex[e].type == LEX_NUMBER &&
                    ex_answer_in_text(&s->ex[e], said.text, found, sizeof found))
                    fail_msg("%s slide %zu: the picture says %s's answer: '%s'", set.v[k].path,
                             i + 1, s->ex[e].id, found);
            }
            print_pic_free(&p);
        }
    assert_true(n >= 60 && par >= 25);
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

/* Paper has no keys: a sentence that names one goes, a parenthesis alone when the rest
 * still says something, the sentence about "the key" after it too; other sentences stay. */
static void test_keys_left_out(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } c[] = {
        {"Press `a` to switch algorithm. The last frame is `6 10 14 18`.",
         "The last frame is `6 10 14 18`."},
        {"Read the boxes. Press o to cycle the operation and watch.", "Read the boxes. "},
        {"The size is 64 MiB here (`[` and `]` halve and double it; `s` sweeps). It is big.",
         "The size is 64 MiB here. It is big."},
        {"Press `a` now. (The key also reaches a fourth plan.) Then read.", "Then read."},
        {"Press `a` now. It stays. (The key also reaches owner.)", "It stays. "},
        {"Step on with \u2192 and the gather is marked. Good.", "Good."},
        {"The step keys move to the second layer, `m` measures again.", ""},
        {"Rank 0 holds `0 1 2 3`, the others show `\u00b7`.",
         "Rank 0 holds `0 1 2 3`, the others show `\u00b7`."},
        {"busbw \u2192 2\u00b7S/t as W grows. The key idea is bandwidth.",
         "busbw \u2192 2\u00b7S/t as W grows. The key idea is bandwidth."},
        {"Pressure is high; expressed as 2.5 ms.", "Pressure is high; expressed as 2.5 ms."},
        {"After pressing `Enter` the answer shows.", ""},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        /* as the PDF reads it: code spans separate */
        struct paper_piece p[32];
        size_t np = 0, total = 0;
        const char *s = c[i].in;
        while (*s && np < 32) {
            bool code = *s == '`';
            const char *e = code ? strchr(s + 1, '`') : strchr(s, '`');
            if (code) {
                p[np++] = (struct paper_piece){s + 1, (size_t)(e - s - 1), PAPER_CODE};
                s = e + 1;
            } else {
                size_t n = e ? (size_t)(e - s) : strlen(s);
                p[np++] = (struct paper_piece){s, n, PAPER_TEXT};
                s += n;
            }
        }
        for (size_t k = 0; k < np; k++)
            total += p[k].n;
        bool keep[512];
        paper_text_keep(p, np, keep);
        char out[512];
        size_t o = 0, off = 0;
        for (size_t k = 0; k < np; k++) {
            bool any = false;
            for (size_t j = 0; j < p[k].n; j++)
                any |= keep[off + j];
            if (p[k].kind == PAPER_CODE && any) out[o++] = '`';
            for (size_t j = 0; j < p[k].n; j++)
                if (keep[off + j]) out[o++] = p[k].s[j];
            if (p[k].kind == PAPER_CODE && any) out[o++] = '`';
            off += p[k].n;
        }
        out[o] = '\0';
        assert_int_equal(off, total);
        if (strcmp(out, c[i].out) != 0)
            fail_msg("'%s'\n  gave '%s'\n  wanted '%s'", c[i].in, out, c[i].out);
    }
    /* the HTML of a slide: the same rule; a paragraph left empty goes; <pre> stays */
    char *h = paper_text_html("<p>Press <code>m</code> to measure.</p>\n<p>Read it.</p>\n"
                              "<pre><code>press x\n</code></pre>\n");
    assert_string_equal(h, "<p>Read it.</p>\n<pre><code>press x\n</code></pre>\n");
    free(h);
}

static void test_numbers_for_paper(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *want;
    } c[] = {
        {3.0 / 7.0, "3/7 \u2248 0.429"},
        {1000.0 / 12.0, "83.3"},
        {0.5, "0.5"},
        {1.0 / 3.0, "1/3 \u2248 0.333"},
        {524288, "524288"},
        {419.43, "419"},
        {67.108864, "67.1"},
        {0.0412345, "0.0412"},
        {2.5, "2.5"},
        {10.0 / 3.0, "10/3 \u2248 3.33"},
        {-1.25, "-1.25"},
        {1.5e-5, "1.5e-05"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char b[64];
        paper_text_number(c[i].x, b, sizeof b);
        if (strcmp(b, c[i].want) != 0) fail_msg("%g: '%s', wanted '%s'", c[i].x, b, c[i].want);
    }
}

static void test_option_values(void **state)
{
    (void)state;
    enum handout_paper pp;
    enum handout_solutions so;
    char err[200];
    assert_int_equal(handout_parse_paper("A4", &pp, err, sizeof err), CV_OK);
    assert_int_equal(pp, PAPER_A4);
    assert_int_equal(handout_parse_paper("letter", &pp, err, sizeof err), CV_OK);
    assert_int_equal(pp, PAPER_LETTER);
    assert_int_equal(handout_parse_paper("a5", &pp, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "'a5'"));
    assert_int_equal(handout_parse_solutions("inline", &so, err, sizeof err), CV_OK);
    assert_int_equal(so, SOL_INLINE);
    assert_int_equal(handout_parse_solutions("End", &so, err, sizeof err), CV_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contrast_formula),
        cmocka_unit_test(test_every_pair_passes_aa),
        cmocka_unit_test(test_never_past_the_asked_step),
        cmocka_unit_test(test_option_values),
        cmocka_unit_test(test_ranks_in_grey),
        cmocka_unit_test(test_parallel_pictures),
        cmocka_unit_test(test_collectives_picture),
        cmocka_unit_test(test_lesson_pictures),
        cmocka_unit_test(test_keys_left_out),
        cmocka_unit_test(test_numbers_for_paper),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    print_release_fonts(); /* the font caches, so the leak checker sees only real leaks */
    return rc;
}
