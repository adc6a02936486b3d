/* test_lesson.c - the lesson parser: a complete example (front matter, slides, titles,
 * narration spans, notes kept out of the narration and the Markdown, scene fields,
 * exercises), every error kind at its line (a table of malformed snippets), the limits,
 * and sets of lessons (folder order, README skipped, ids unique across files). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"

static const char example[] =
    "---\n"                                                      /* 1 */
    "lesson: allreduce   # the id\n"                             /* 2 */
    "title: All-reduce, step by step\n"                          /* 3 */
    "minutes: 12\n"                                              /* 4 */
    "---\n"                                                      /* 5 */
    "\n"                                                         /* 6 */
    "# Why all-reduce\n"                                         /* 7 */
    "\n"                                                         /* 8 */
    "Each rank has **its own** gradients and *all* of them\n"    /* 9 */
    "need the `sum`.\n"                                          /* 10 */
    "\n"                                                         /* 11 */
    "<!-- note: ask who has seen\n"                              /* 12 */
    "a ring before -->\n"                                        /* 13 */
    "\n"                                                         /* 14 */
    "- one\n"                                                    /* 15 */
    "- two\n"                                                    /* 16 */
    "\n"                                                         /* 17 */
    "> quoted <!-- a plain comment -->\n"                        /* 18 */
    "\n"                                                         /* 19 */
    "```scene\n"                                                 /* 20 */
    "collective: all_reduce\n"                                   /* 21 */
    "# a comment line\n"                                         /* 22 */
    "algo: ring\n"                                               /* 23 */
    "ranks: 8\n"                                                 /* 24 */
    "step: end\n"                                                /* 25 */
    "size: 64M\n"                                                /* 26 */
    "highlight: rank:2\n"                                        /* 27 */
    "```\n"                                                      /* 28 */
    "\n"                                                         /* 29 */
    "---\n"                                                      /* 30 */
    "\n"                                                         /* 31 */
    "## Bandwidth\n"                                             /* 32 */
    "\n"                                                         /* 33 */
    "A ---\n"                                                    /* 34 */
    "```text\n"                                                  /* 35 */
    "\n"                                                         /* 36 */
    "---\n"                                                      /* 37: in a fence */
    "```\n"                                                      /* 38 */
    "\n"                                                         /* 39 */
    "```exercise\n"                                              /* 40 */
    "id: effective-bandwidth\n"                                  /* 41 */
    "type: number\n"                                             /* 42 */
    "prompt: {elements} elements on {ranks} ranks in {ms} ms:\n" /* 43 */
    "prompt: what bus bandwidth?\n"                              /* 44 */
    "param: elements = 209715200 range 1048576..1073741824\n"    /* 45 */
    "param: ranks = 8 range 2..64\n"                             /* 46 */
    "param: ms = 3.5 range 0.5..20\n"                            /* 47 */
    "answer: elements*4*2*(ranks-1)/(ranks*ms/1000)/1e9\n"       /* 48 */
    "units: GB/s\n"                                              /* 49 */
    "tolerance: 2%\n"                                            /* 50 */
    "hint: bytes first\n"                                        /* 51 */
    "hint: then the factor\n"                                    /* 52 */
    "solution: line one\n"                                       /* 53 */
    "solution: line two\n"                                       /* 54 */
    "```\n"                                                      /* 55 */
    "\n"                                                         /* 56 */
    "<!-- note: second slide's note -->\n"                       /* 57 */
    "\n"                                                         /* 58 */
    "---\n"                                                      /* 59 */
    "\n"                                                         /* 60 */
    "# Choices and holds\n"                                      /* 61 */
    "\n"                                                         /* 62 */
    "```exercise\n"                                              /* 63 */
    "id: rs-then-ag\n"                                           /* 64 */
    "type: holds\n"                                              /* 65 */
    "prompt: what does rank 1 hold?\n"                           /* 66 */
    "rank: 1\n"                                                  /* 67 */
    "step: 3\n"                                                  /* 68 */
    "```\n"                                                      /* 69 */
    "\n"                                                         /* 70 */
    "```scene\n"                                                 /* 71 */
    "collective: all_reduce\n"                                   /* 72 */
    "init: seq\n"                                                /* 73 */
    "count: 4\n"                                                 /* 74 */
    "```\n"                                                      /* 75 */
    "\n"                                                         /* 76 */
    "```exercise\n"                                              /* 77 */
    "id: which-phase\n"                                          /* 78 */
    "type: choice\n"                                             /* 79 */
    "prompt: which phase comes first?\n"                         /* 80 */
    "option: all-gather\n"                                       /* 81 */
    "option: reduce-scatter\n"                                   /* 82 */
    "correct: 2\n"                                               /* 83 */
    "```\n";                                                     /* 84 */

static void parse_ok(const char *text, struct lesson *L)
{
    struct lesson_errors e = {0};
    int rc = lesson_parse("t.md", text, strlen(text), L, &e);
    for (size_t i = 0; i < e.n; i++)
        fprintf(stderr, "unexpected: %s\n", e.msg[i]);
    assert_int_equal(e.n, 0);
    assert_int_equal(rc, CV_OK);
    lesson_errors_free(&e);
}

/* All of a block's span texts joined. */
static void block_text(const struct lesson_block *b, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t i = 0; i < b->nspans; i++)
        strncat(out, b->spans[i].text, n - strlen(out) - 1);
}

static void test_example_structure(void **state)
{
    (void)state;
    struct lesson L;
    parse_ok(example, &L);
    assert_string_equal(L.id, "allreduce");
    assert_string_equal(L.title, "All-reduce, step by step");
    assert_int_equal(L.minutes, 12);
    assert_string_equal(L.path, "t.md");
    assert_int_equal(L.nslides, 3);
    assert_string_equal(L.slides[0].title, "Why all-reduce");
    assert_int_equal(L.slides[0].title_line, 7);
    assert_string_equal(L.slides[1].title, "Bandwidth");
    assert_int_equal(L.slides[1].title_line, 32);
    assert_string_equal(L.slides[2].title, "Choices and holds");
    assert_int_equal(L.slides[2].line, 60);
    lesson_free(&L);
}

static void test_example_narration(void **state)
{
    (void)state;
    struct lesson L;
    parse_ok(example, &L);
    const struct lesson_slide *S = &L.slides[0];
    /* paragraph, two items, a quote: the notes and the scene are not narration */
    assert_int_equal(S->nblocks, 4);
    const struct lesson_block *p = &S->blocks[0];
    assert_int_equal(p->kind, LBLOCK_PARAGRAPH);
    assert_int_equal(p->line, 9);
    assert_int_equal(p->nspans, 7);
    static const struct {
        const char *text;
        unsigned style;
    } want[] = {
        {"Each rank has ", 0},
        {"its own", LSPAN_BOLD},
        {" gradients and ", 0},
        {"all", LSPAN_ITALIC},
        {" of them need the ", 0},
        {"sum", LSPAN_CODE},
        {".", 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        assert_string_equal(p->spans[i].text, want[i].text);
        assert_int_equal(p->spans[i].style, want[i].style);
    }
    assert_int_equal(S->blocks[1].kind, LBLOCK_ITEM);
    assert_int_equal(S->blocks[1].depth, 1);
    assert_true(S->blocks[1].first);
    assert_string_equal(S->blocks[1].spans[0].text, "one");
    assert_int_equal(S->blocks[1].line, 15);
    assert_string_equal(S->blocks[2].spans[0].text, "two");
    assert_int_equal(S->blocks[3].kind, LBLOCK_QUOTE);
    char t[200];
    block_text(&S->blocks[3], t, sizeof t);
    assert_string_equal(t, "quoted "); /* the plain comment is dropped */
    /* notes: kept apart, never in the narration or the Markdown */
    assert_non_null(S->notes);
    assert_string_equal(S->notes, "ask who has seen\na ring before");
    assert_int_equal(S->notes_line, 12);
    for (size_t b = 0; b < S->nblocks; b++) {
        block_text(&S->blocks[b], t, sizeof t);
        assert_null(strstr(t, "ask who"));
    }
    assert_null(strstr(S->markdown, "ask who"));
    assert_null(strstr(S->markdown, "collective"));
    assert_null(strstr(S->markdown, "Why all-reduce"));
    assert_string_equal(S->markdown, "Each rank has **its own** gradients and *all* of them\n"
                                     "need the `sum`.\n\n- one\n- two\n\n"
                                     "> quoted"); /* every comment is cut */
    assert_string_equal(L.slides[1].notes, "second slide's note");
    assert_null(L.slides[2].notes);
    /* a "---" after a non-blank line and one inside a fence do not split slides */
    const struct lesson_slide *S1 = &L.slides[1];
    assert_int_equal(S1->nblocks, 2);
    assert_int_equal(S1->blocks[1].kind, LBLOCK_CODE);
    assert_int_equal(S1->blocks[1].nspans, 2);
    assert_string_equal(S1->blocks[1].spans[0].text, "");
    assert_string_equal(S1->blocks[1].spans[1].text, "---");
    assert_true(S1->blocks[1].spans[1].hard_break);
    lesson_free(&L);
}

static void test_example_scene(void **state)
{
    (void)state;
    struct lesson L;
    parse_ok(example, &L);
    const struct lesson_slide *S = &L.slides[0];
    assert_true(S->has_scene);
    assert_int_equal(S->scene_line, 20);
    assert_int_equal(S->scene.coll, COLL_ALL_REDUCE);
    assert_int_equal(S->scene.algo, ALGO_RING);
    assert_int_equal(S->scene.nranks, 8);
    assert_int_equal(S->scene.step, SCENE_STEP_END);
    assert_int_equal(S->scene.meas_bytes, (size_t)64 << 20);
    assert_int_equal(S->scene.hl, HL_RANK);
    assert_int_equal(S->scene.hl_index, 2);
    /* fields not given come from the default scene, not from the previous slide */
    assert_false(L.slides[1].has_scene);
    const struct lesson_slide *S2 = &L.slides[2];
    assert_true(S2->has_scene);
    assert_int_equal(S2->scene.nranks, 4);
    assert_int_equal(S2->scene.init, INIT_SEQ);
    assert_int_equal(S2->scene.count, 4);
    assert_int_equal(S2->scene.step, 0);
    assert_int_equal(S2->scene.hl, HL_NONE);
    lesson_free(&L);
}

static void test_example_exercises(void **state)
{
    (void)state;
    struct lesson L;
    parse_ok(example, &L);
    assert_int_equal(L.slides[0].nex, 0);
    assert_int_equal(L.slides[1].nex, 1);
    const struct lesson_exercise *e = &L.slides[1].ex[0];
    assert_string_equal(e->id, "effective-bandwidth");
    assert_int_equal(e->type, LEX_NUMBER);
    assert_int_equal(e->line, 40);
    assert_int_equal(e->answer_line, 48);
    assert_int_equal(e->slide, 1);
    assert_string_equal(e->prompt,
                        "{elements} elements on {ranks} ranks in {ms} ms: what bus bandwidth?");
    assert_int_equal(e->nparams, 3);
    assert_string_equal(e->params[0].name, "elements");
    assert_true(e->params[0].value == 209715200.0);
    assert_true(e->params[0].lo == 1048576.0 && e->params[0].hi == 1073741824.0);
    assert_true(e->params[0].integer && e->params[0].ranged);
    assert_false(e->params[2].integer);
    assert_true(e->params[2].value == 3.5);
    assert_string_equal(e->units, "GB/s");
    assert_true(e->tolerance == 0.02);
    assert_int_equal(e->nhints, 2);
    assert_string_equal(e->hints[1], "then the factor");
    assert_string_equal(e->solution, "line one\nline two");
    /* 209715200 elements * 4 B = 838860800 B; * 2 * 7/8 = 1468006400 B per rank;
     * / 0.0035 s = 419430400000 B/s = 419.4304 GB/s */
    assert_true(fabs(e->answer - 419.4304) < 1e-9);
    const struct lesson_slide *S2 = &L.slides[2];
    assert_int_equal(S2->nex, 2);
    const struct lesson_exercise *h = &S2->ex[0];
    assert_int_equal(h->type, LEX_HOLDS);
    assert_int_equal(h->rank, 1);
    assert_int_equal(h->step, 3);
    /* the holds exercise carries the slide's scene, which came after it on the slide */
    assert_int_equal(h->scene.init, INIT_SEQ);
    assert_int_equal(h->scene.count, 4);
    const struct lesson_exercise *c = &S2->ex[1];
    assert_int_equal(c->type, LEX_CHOICE);
    assert_int_equal(c->noptions, 2);
    assert_string_equal(c->options[1], "reduce-scatter");
    assert_int_equal(c->correct, 2);
    assert_null(c->solution);
    lesson_free(&L);
}

static void test_defaults_without_front_matter(void **state)
{
    (void)state;
    struct lesson L;
    struct lesson_errors e = {0};
    const char *t = "# Only slide\n\nText.\n";
    assert_int_equal(lesson_parse("lessons/07-ring-basics.md", t, strlen(t), &L, &e), CV_OK);
    assert_string_equal(L.id, "ring-basics"); /* the slug */
    assert_string_equal(L.title, "Only slide");
    assert_int_equal(L.minutes, 0);
    assert_int_equal(L.nslides, 1);
    lesson_free(&L);
    lesson_errors_free(&e);
}

/* A file with CRLF line ends reads exactly like the same file with LF. */
static void test_crlf(void **state)
{
    (void)state;
    char *crlf = xmalloc(2 * sizeof example);
    size_t n = 0;
    for (const char *p = example; *p; p++) {
        if (*p == '\n') crlf[n++] = '\r';
        crlf[n++] = *p;
    }
    crlf[n] = '\0';
    struct lesson A, B;
    parse_ok(example, &A);
    parse_ok(crlf, &B);
    assert_int_equal(A.nslides, B.nslides);
    for (size_t s = 0; s < A.nslides; s++) {
        const struct lesson_slide *a = &A.slides[s], *b = &B.slides[s];
        assert_string_equal(a->title, b->title);
        assert_int_equal(a->title_line, b->title_line);
        assert_string_equal(a->markdown, b->markdown);
        if (a->notes) assert_string_equal(a->notes, b->notes);
        assert_int_equal(a->nblocks, b->nblocks);
        for (size_t k = 0; k < a->nblocks; k++) {
            char ta[300], tb[300];
            block_text(&a->blocks[k], ta, sizeof ta);
            block_text(&b->blocks[k], tb, sizeof tb);
            assert_string_equal(ta, tb);
            assert_int_equal(a->blocks[k].line, b->blocks[k].line);
        }
        assert_int_equal(a->nex, b->nex);
        for (size_t e = 0; e < a->nex; e++) {
            assert_string_equal(a->ex[e].id, b->ex[e].id);
            assert_int_equal(a->ex[e].line, b->ex[e].line);
            assert_true(a->ex[e].answer == b->ex[e].answer);
            if (a->ex[e].prompt) assert_string_equal(a->ex[e].prompt, b->ex[e].prompt);
        }
        char sa[512], sb[512];
        scene_format(&a->scene, sa, sizeof sa);
        scene_format(&b->scene, sb, sizeof sb);
        assert_string_equal(sa, sb);
        assert_int_equal(a->has_scene, b->has_scene);
    }
    lesson_free(&A);
    lesson_free(&B);
    free(crlf);
}

/* ---- errors at their lines -------------------------------------------------------------- */

#define EX_HEAD "```exercise\nid: q\ntype: number\nprompt: p\n"
static const struct {
    const char *text;
    const char *want; /* the error, exactly */
} bad[] = {
    {"", "t.md:1: empty file (a lesson needs at least one slide)"},
    {"\n  \n", "t.md:1: empty file (a lesson needs at least one slide)"},
    {"---\nlesson: a\ncolor: red\n---\n# T\n",
     "t.md:3: front matter: unknown key 'color' (keys: lesson, title, short, minutes, "
     "summary)"},
    {"---\ntitle: a\ntitle: b\n---\n# T\n",
     "t.md:3: front matter: key 'title' given twice (first at line 2)"},
    {"---\nminutes: 0\n---\n# T\n", "t.md:2: front matter: bad minutes '0' (1..240)"},
    {"---\nlesson: Big\n---\n# T\n",
     "t.md:2: front matter: bad lesson id 'Big' (letters a-z, digits, '-')"},
    {"---\nlesson: a\n# T\n", "t.md:1: front matter: no closing '---' line"},
    {"# A\n\n---\n\nno heading\n",
     "t.md:5: slide 2 has no title (its first heading, e.g. '# Title')"},
    {"# A\n\n---\n\n---\n\n# C\n", "t.md:4: slide 2 is empty"}, /* after the separator */
    {"# A\n\n```scene\nranks: 4\nfoo: 1\n```\n", "t.md:5: scene: unknown key 'foo'"},
    {"# A\n\n```scene\nranks: 4\nalgo: ring\nranks: 2\n```\n",
     "t.md:6: scene: key 'ranks' given twice (first at line 4)"},
    {"# A\n\n```scene\n\ncollective: all_reduce\nranks: 99\n```\n",
     "t.md:6: scene: bad ranks '99' (1..16)"},
    {"# A\n\n```scene\nstep: soon\n```\n", "t.md:4: scene: bad step 'soon' (a number or end)"},
    {"# A\n\n```scene\nranks: 4\ncollective: broadcast\nroot: 6\n```\n",
     "t.md:6: scene: root 6 out of range (0..3)"},
    {"# A\n\n```scene\nranks 4\n```\n", "t.md:4: scene: expected 'key: value'"},
    {"# A\n\n```scene\nranks: 4\n```\n\n```scene\nranks: 2\n```\n",
     "t.md:7: a slide has at most one scene (the first is at line 3)"},
    {"# A\n\n```scene\nranks: 4\n", "t.md:3: ```scene block is never closed"},
    {"# A\n\n```exercise\ntype: number\nprompt: p\nanswer: 1\nunits: ms\n```\n",
     "t.md:3: exercise: missing 'id:'"},
    {"# A\n\n```exercise\nid: q\nprompt: p\n```\n", "t.md:3: exercise: missing 'type:'"},
    {"# A\n\n```exercise\nid: q\ntype: number\nanswer: 1\nunits: ms\n```\n",
     "t.md:3: exercise: missing 'prompt:'"},
    {"# A\n\n" EX_HEAD "units: ms\n```\n", "t.md:3: exercise: missing 'answer:'"},
    {"# A\n\n" EX_HEAD "answer: 1\n```\n", "t.md:3: exercise: missing 'units:'"},
    {"# A\n\n" EX_HEAD "answer: 1\nunits: ms\nanswer: 2\n```\n",
     "t.md:9: exercise: key 'answer' given twice (first at line 7)"},
    {"# A\n\n" EX_HEAD "answer: 1\nunits: ms\ncolour: red\n```\n",
     "t.md:9: exercise: unknown key 'colour'"},
    {"# A\n\n```exercise\nid: q\ntype: essay\nprompt: p\n```\n",
     "t.md:5: exercise: bad type 'essay' (number, choice or holds)"},
    {"# A\n\n```exercise\nid: Q!\ntype: choice\nprompt: p\noption: a\noption: b\ncorrect: "
     "1\n```\n",
     "t.md:4: exercise: bad id 'Q!' (letters a-z, digits, '-')"},
    {"# A\n\n" EX_HEAD "answer: 1/x\nunits: ms\nparam: x = 0\n```\n",
     "t.md:7: answer: not a finite number (inf) at x=0"},
    {"# A\n\n" EX_HEAD "answer: 1/(x-2)\nunits: ms\nparam: x = 5 range 2..9\n```\n",
     "t.md:7: answer: not a finite number (inf) at x=2"},
    {"# A\n\n" EX_HEAD "answer: sqrt(x)\nunits: ms\nparam: x = 4 range 1..9\nparam: y = 1 "
     "range -5..5\n```\n",
     NULL}, /* y unused, sqrt of x only: fine */
    {"# A\n\n" EX_HEAD "answer: y + 1\nunits: ms\n```\n",
     "t.md:7: answer: Unexpected token \"y\" found at position 0."},
    {"# A\n\n" EX_HEAD "answer: x = 2\nunits: ms\nparam: x = 1\n```\n",
     "t.md:7: answer: character '=' is not allowed in a formula"},
    {"# A\n\n" EX_HEAD "answer: 1\nunits: furlongs\n```\n",
     "t.md:8: units: unknown unit 'furlongs' (GB/s GiB/s MB/s MiB/s TB/s Gb/s, s ms us ns, B "
     "KB MB GB TB KiB MiB GiB TiB, x)"},
    {"# A\n\n" EX_HEAD "answer: 1\nunits: ms\ntolerance: 0.01\n```\n",
     "t.md:9: tolerance: bad value '0.01' (a percentage, e.g. 1%)"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 10 range 1..5\n```\n",
     "t.md:9: param x: value 10 is not within its range 1..5"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 0x10\n```\n",
     "t.md:9: param x: bad value '0x10' (a plain number)"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 1\nparam: x = 2\n```\n",
     "t.md:10: param x given twice (first at line 9)"},
    /* constraints, where:, integer:, wrong:, templates (issue 18) */
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3 choices: 2, 4, 8\n```\n",
     "t.md:9: param x: value 3 is not one of its choices"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3 choices: 2\n```\n",
     "t.md:9: param x: choices: needs at least two values"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3 range 1..9 step 2.5\n```\n",
     "t.md:9: param x: value and range ends must be LO + k*step (step 2.5)"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3 step 2\n```\n",
     "t.md:9: param x: step needs a range"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 1.5 range 1..9 integer\n```\n",
     "t.md:9: param x: declared integer but its value, range, step or choices are not"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3 range 1..9 odd\n```\n",
     "t.md:9: param x: unknown 'odd' (range LO..HI, step S, integer, choices: A,B)"},
    {"# A\n\n" EX_HEAD "answer: x / 2\nunits:\ninteger: yes\nparam: x = 3\n```\n",
     "t.md:7: answer: 1.5 at the defaults, but the exercise says integer: yes"},
    {"# A\n\n" EX_HEAD "answer: x\nunits:\ninteger: maybe\nparam: x = 3\n```\n",
     "t.md:9: integer: bad value 'maybe' (yes or no)"},
    {"# A\n\n" EX_HEAD
     "answer: x\nunits: ms\nparam: x = 3 range 1..9\nwhere: x % 2 == 0\n```\n",
     "t.md:3: exercise: the defaults break a where: condition"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3\nwhere: x = 3\n```\n",
     "t.md:10: where: character '=' is not allowed in a condition"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3\nwrong: x * 2\n```\n",
     "t.md:10: wrong: expected 'VALUE | message' (VALUE: a formula over the params, in the "
     "exercise's units)"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3\nwrong: x / 0 | oops\n```\n",
     "t.md:10: wrong: not a finite number at the defaults"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3\nhint: {= x +} ms\n```\n",
     "t.md:10: hint 1: template {= x +}: Unexpected end of expression at position 5"},
    {"# A\n\n" EX_HEAD "answer: x\nunits: ms\nparam: x = 3\nsolution: {= y}\n```\n",
     "t.md:10: solution: template {= y}: Unexpected token \"y\" found at position 1."},
    {"# A\n\n" EX_HEAD "answer: 1\nunits: ms\noption: a\n```\n",
     "t.md:9: exercise: 'option' is not a key of a number exercise"},
    {"# A\n\n```exercise\nid: q\ntype: choice\nprompt: p\noption: a\ncorrect: 1\n```\n",
     "t.md:3: exercise: a choice needs 2..8 'option:' lines (has 1)"},
    {"# A\n\n```exercise\nid: q\ntype: choice\nprompt: p\noption: a\noption: b\ncorrect: "
     "3\n```\n",
     "t.md:9: correct: 3 but there are 2 options"},
    {"# A\n\n```exercise\nid: q\ntype: holds\nprompt: p\nrank: 1\nstep: end\n```\n",
     "t.md:3: holds: the slide has no ```scene block to ask about"},
    {"# A\n\n```scene\nranks: 2\n```\n\n```exercise\nid: q\ntype: holds\nprompt: p\nrank: "
     "3\nstep: end\n```\n",
     "t.md:7: holds: rank 3 but the scene has 2 ranks (0..1)"},
    {"# A\n\n```scene\nranks: 4\n```\n\n```exercise\nid: q\ntype: holds\nprompt: p\nrank: "
     "1\nstep: 7\n```\n",
     "t.md:7: holds: step 7 but the scene's plan has 6 steps"},
    {"# A\n\n```scene\nscreen: parallel\nscheme: tp\n```\n\n```exercise\nid: q\ntype: "
     "holds\nprompt: p\nrank: 1\nstep: 1\n```\n",
     "t.md:8: holds: the slide's scene is not a collectives scene"},
    {"# A\n\n```exercise\nid: q\ntype: choice\nprompt: p\noption: a\noption: b\ncorrect: "
     "1\n```\n\n---\n\n# B\n\n```exercise\nid: q\ntype: choice\nprompt: p\noption: a\noption: "
     "b\ncorrect: 1\n```\n",
     "t.md:16: exercise id 'q' is also used at line 3"},
    {"# A\n\nok line\nbad \xff byte\n", "t.md:4: invalid UTF-8 (byte 0xff at column 5)"},
    {"# A\n\n\xed\xa0\x80 surrogate\n", "t.md:3: invalid UTF-8 (byte 0xed at column 1)"},
    {"# A\n\nab\xc3\n", "t.md:3: invalid UTF-8 (byte 0xc3 at column 3)"},
};

static void test_errors_at_their_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct lesson L;
        struct lesson_errors e = {0};
        int rc = lesson_parse("t.md", bad[i].text, strlen(bad[i].text), &L, &e);
        if (!bad[i].want) {
            if (e.n) fprintf(stderr, "case %zu: unexpected %s\n", i, e.msg[0]);
            assert_int_equal(rc, CV_OK);
            lesson_free(&L);
            continue;
        }
        bool found = false;
        for (size_t k = 0; k < e.n; k++)
            found |= strcmp(e.msg[k], bad[i].want) == 0;
        if (!found) {
            fprintf(stderr, "case %zu: wanted: %s\n", i, bad[i].want);
            for (size_t k = 0; k < e.n; k++)
                fprintf(stderr, "   got: %s\n", e.msg[k]);
        }
        assert_true(found);
        assert_int_equal(rc, CV_EINVAL);
        assert_int_equal(L.nslides, 0); /* nothing half-built is handed out */
        lesson_errors_free(&e);
    }
}

/* Every error is collected, not only the first. */
static void test_all_errors_collected(void **state)
{
    (void)state;
    const char *t = "---\nfoo: 1\n---\n# A\n\n```scene\nbar: 1\n```\n\n---\n\nno title\n";
    struct lesson L;
    struct lesson_errors e = {0};
    assert_int_equal(lesson_parse("t.md", t, strlen(t), &L, &e), CV_EINVAL);
    assert_int_equal(e.n, 3);
    assert_string_equal(e.msg[0], "t.md:2: front matter: unknown key 'foo' (keys: lesson, "
                                  "title, short, minutes, summary)");
    assert_string_equal(e.msg[1], "t.md:7: scene: unknown key 'bar'");
    assert_string_equal(e.msg[2],
                        "t.md:12: slide 2 has no title (its first heading, e.g. '# Title')");
    lesson_errors_free(&e);
}

/* The short title (front matter short:): given, or the title where it is at most 28 columns,
 * or the lesson's id; a short title over 28 columns, or a title and an id both over it
 * without one, is an error. */
static void test_short_title(void **state)
{
    (void)state;
    static const struct {
        const char *front, *want, *err;
    } c[] = {
        {"title: Ring\n", "Ring", NULL},
        {"title: Twenty-eight columns exactly\n", "Twenty-eight columns exactly", NULL},
        {"title: A title over twenty-eight columns\n", "ring", NULL},
        {"title: A title much longer than the rows hold\nshort: A short one\n", "A short one",
         NULL},
        {"short: twenty-nine columns, one too long\n", NULL,
         "t.md:3: front matter: short title 'twenty-nine columns, one too long' is 33 columns "
         "(1..28)"},
        {"lesson: an-id-that-is-much-longer-than-28\ntitle: And a title longer than 28 "
         "columns\n",
         NULL,
         "t.md:1: the title is over 28 columns and so is the lesson's id: give a short title "
         "(front matter short:) for the rows that hold no whole title"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char t[600];
        snprintf(t, sizeof t, "---\n%s%s---\n# A\n\ntext\n",
                 strncmp(c[i].front, "lesson:", 7) ? "lesson: ring\n" : "", c[i].front);
        struct lesson L;
        struct lesson_errors e = {0};
        int rc = lesson_parse("t.md", t, strlen(t), &L, &e);
        if (c[i].want) {
            assert_int_equal(rc, CV_OK);
            assert_string_equal(lesson_short_title(&L), c[i].want);
            lesson_free(&L);
        } else {
            assert_int_equal(rc, CV_EINVAL);
            assert_int_equal(e.n, 1);
            assert_string_equal(e.msg[0], c[i].err);
        }
        lesson_errors_free(&e);
    }
}

static void test_nul_and_limits(void **state)
{
    (void)state;
    struct lesson L;
    struct lesson_errors e = {0};
    const char nul[] = "# A\n\nx\0y\n";
    assert_int_equal(lesson_parse("t.md", nul, sizeof nul - 1, &L, &e), CV_EINVAL);
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "t.md:3: NUL byte in the file (column 2)");
    lesson_errors_free(&e);

    /* a line of 1001 bytes */
    char *longl = xmalloc(2000);
    strcpy(longl, "# A\n\n");
    memset(longl + 5, 'a', 1001);
    strcpy(longl + 1006, "\n");
    assert_int_equal(lesson_parse("t.md", longl, strlen(longl), &L, &e), CV_EINVAL);
    assert_string_equal(e.msg[0], "t.md:3: line too long (1001 bytes; at most 1000)");
    lesson_errors_free(&e);
    longl[1005] = '\n'; /* 1000 bytes: fine */
    longl[1006] = '\0';
    assert_int_equal(lesson_parse("t.md", longl, strlen(longl), &L, &e), CV_OK);
    lesson_free(&L);
    free(longl);

    /* 201 slides */
    size_t cap = 201 * 16 + 1, n = 0;
    char *many = xmalloc(cap);
    for (int s = 0; s < 201; s++)
        n += (size_t)snprintf(many + n, cap - n, "# S\n\n---\n\n");
    assert_int_equal(lesson_parse("t.md", many, n, &L, &e), CV_EINVAL);
    assert_int_equal(e.n, 1);
    /* 4 lines a slide; slide 201 starts after the separator on line 3 + 4 * 199 */
    assert_string_equal(e.msg[0], "t.md:800: too many slides (at most 200)");
    lesson_errors_free(&e);
    free(many);

    /* over 256 KiB */
    size_t big = LESSON_MAX_FILE_BYTES + 1;
    char *huge = xmalloc(big);
    memset(huge, '\n', big);
    huge[0] = '#';
    assert_int_equal(lesson_parse("t.md", huge, big, &L, &e), CV_EINVAL);
    assert_string_equal(e.msg[0], "t.md: file too large (262145 bytes; at most 262144)");
    lesson_errors_free(&e);
    free(huge);

    /* a formula of 257 characters; 17 params; 33 exercises on a slide */
    char f[600];
    snprintf(f, sizeof f, "# A\n\n" EX_HEAD "units: ms\nanswer: 1");
    for (int i = 0; i < 128; i++)
        strcat(f, "+1");
    strcat(f, "\n```\n");
    assert_int_equal(lesson_parse("t.md", f, strlen(f), &L, &e), CV_EINVAL);
    assert_string_equal(e.msg[0],
                        "t.md:8: answer: formula too long (257 characters; at most 256)");
    lesson_errors_free(&e);

    char p[2000];
    snprintf(p, sizeof p, "# A\n\n" EX_HEAD "units: ms\nanswer: 1\n");
    for (int i = 0; i < 17; i++) {
        size_t l = strlen(p);
        snprintf(p + l, sizeof p - l, "param: p%d = 1\n", i);
    }
    strcat(p, "```\n");
    assert_int_equal(lesson_parse("t.md", p, strlen(p), &L, &e), CV_EINVAL);
    assert_string_equal(e.msg[0], "t.md:25: exercise: too many params (at most 16)");
    lesson_errors_free(&e);

    size_t xc = 40000, xn = 0;
    char *x = xmalloc(xc);
    xn += (size_t)snprintf(x, xc, "# A\n\n");
    for (int i = 0; i < 33; i++)
        xn += (size_t)snprintf(
            x + xn, xc - xn,
            "```exercise\nid: e%d\ntype: choice\nprompt: p\noption: a\noption: "
            "b\ncorrect: 1\n```\n",
            i);
    assert_int_equal(lesson_parse("t.md", x, xn, &L, &e), CV_EINVAL);
    assert_int_equal(e.n, 1);
    assert_string_equal(e.msg[0], "t.md:259: too many exercises on one slide (at most 32)");
    lesson_errors_free(&e);
    free(x);
}

/* Raw HTML other than comments is text, never interpreted; an entity is decoded. */
static void test_html_is_text(void **state)
{
    (void)state;
    struct lesson L;
    parse_ok("# A\n\nsee <b>this</b> &amp; that\n\n<script>alert(1)</script>\n", &L);
    char t[200];
    assert_int_equal(L.slides[0].nblocks, 2);
    block_text(&L.slides[0].blocks[0], t, sizeof t);
    assert_string_equal(t, "see <b>this</b> & that");
    block_text(&L.slides[0].blocks[1], t, sizeof t);
    assert_string_equal(t, "<script>alert(1)</script>");
    lesson_free(&L);
}

/* ---- sets ------------------------------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_set_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_lesson_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "02-second.md", "# Two\n");
    write_file(dir, "01-first.md",
               "# One\n\n```exercise\nid: shared\ntype: choice\nprompt: p\noption: a\noption: "
               "b\ncorrect: 1\n```\n");
    write_file(dir, "README.md", "not a lesson at all\n");
    write_file(dir, "notes.md", "neither\n");
    struct lesson_set set;
    lesson_set_init(&set);
    struct lesson_errors e = {0};
    assert_int_equal(lesson_set_add(&set, dir, &e), CV_OK);
    assert_int_equal(e.n, 0);
    assert_int_equal(set.n, 2);
    assert_string_equal(set.v[0].id, "first");
    assert_string_equal(set.v[1].id, "second");
    assert_non_null(lesson_set_find(&set, "second"));
    /* by its number, as `collviz lesson 02` names it */
    assert_ptr_equal(lesson_set_find(&set, "02"), &set.v[1]);
    assert_ptr_equal(lesson_set_find(&set, "2"), &set.v[1]);
    assert_ptr_equal(lesson_set_find(&set, "01"), &set.v[0]);
    assert_null(lesson_set_find(&set, "03"));
    assert_null(lesson_set_find(&set, "002"));
    const struct lesson *in = NULL;
    const struct lesson_exercise *x = lesson_set_find_exercise(&set, "shared", &in);
    assert_non_null(x);
    assert_ptr_equal(in, &set.v[0]);
    assert_null(lesson_set_find_exercise(&set, "nope", NULL));

    /* a third file reusing a lesson id and an exercise id is refused */
    char other[600];
    snprintf(other, sizeof other, "%s/03-dup.md", dir);
    write_file(dir, "03-dup.md",
               "---\nlesson: first\n---\n# D\n\n```exercise\nid: shared\ntype: choice\nprompt: "
               "p\noption: a\noption: b\ncorrect: 1\n```\n");
    assert_int_equal(lesson_set_add(&set, other, &e), CV_EINVAL);
    assert_int_equal(e.n, 2);
    char want[1400];
    snprintf(want, sizeof want, "%s:1: lesson id 'first' is also the id of %s/01-first.md",
             other, dir);
    assert_string_equal(e.msg[0], want);
    snprintf(want, sizeof want, "%s:6: exercise id 'shared' is also used at %s/01-first.md:3",
             other, dir);
    assert_string_equal(e.msg[1], want);
    assert_int_equal(set.n, 2);
    lesson_errors_free(&e);
    lesson_set_free(&set);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_lesson_names(void **state)
{
    (void)state;
    assert_true(lesson_is_lesson_name("01-intro.md"));
    assert_true(lesson_is_lesson_name("99-x.md"));
    assert_false(lesson_is_lesson_name("README.md"));
    assert_false(lesson_is_lesson_name("1-intro.md"));
    assert_false(lesson_is_lesson_name("01-intro.txt"));
    assert_false(lesson_is_lesson_name("01-.md"));
}

/* A note indented four spaces would be a code block (shown to the room): it is taken as a
 * note, its line recorded for lesson check's warning; inside a fence it stays code. */
static void test_indented_note(void **state)
{
    (void)state;
    const char *t = "# Indented\n"                                /* 1 */
                    "\n"                                          /* 2 */
                    "For the room.\n"                             /* 3 */
                    "\n"                                          /* 4 */
                    "    <!-- note: SECRET for the speaker -->\n" /* 5 */
                    "\n"                                          /* 6 */
                    "```\n"                                       /* 7 */
                    "    <!-- note: shown as code -->\n"          /* 8 */
                    "```\n";                                      /* 9 */
    struct lesson L;
    parse_ok(t, &L);
    const struct lesson_slide *S = &L.slides[0];
    assert_non_null(S->notes);
    assert_string_equal(S->notes, "SECRET for the speaker");
    assert_int_equal(S->indented_note_line, 5);
    char all[2000] = "";
    for (size_t i = 0; i < S->nblocks; i++) {
        char b[500];
        block_text(&S->blocks[i], b, sizeof b);
        strncat(all, b, sizeof all - strlen(all) - 1);
    }
    assert_null(strstr(all, "SECRET"));
    assert_null(strstr(S->markdown, "SECRET"));
    assert_non_null(strstr(all, "shown as code"));
    lesson_free(&L);
}

/* summary: its lines joined with single spaces (none after a word hyphenated at a line's end);
 * none is NULL; too long is an error. */
static void test_summary(void **state)
{
    (void)state;
    struct lesson L;
    parse_ok("---\nsummary: The ring sends\nsummary: small pieces.   # a comment\n---\n# A\n",
             &L);
    assert_string_equal(L.summary, "The ring sends small pieces.");
    lesson_free(&L);
    /* a word hyphenated at a line's end is one word; a dash between words keeps its spaces */
    parse_ok("---\nsummary: slower and wider-\nsummary: reaching. A ring -\nsummary: or a "
             "tree -\nsummary: 2\n---\n# A\n",
             &L);
    assert_string_equal(L.summary, "slower and wider-reaching. A ring - or a tree - 2");
    lesson_free(&L);
    parse_ok("# A\n", &L);
    assert_null(L.summary);
    lesson_free(&L);
    char big[4000] = "---\n";
    for (int i = 0; i < 20; i++)
        strcat(
            big,
            "summary: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
    strcat(big, "---\n# A\n");
    struct lesson_errors e = {0};
    assert_int_equal(lesson_parse("t.md", big, strlen(big), &L, &e), CV_EINVAL);
    assert_non_null(strstr(e.msg[0], "summary longer than 1200 bytes"));
    lesson_errors_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indented_note),
        cmocka_unit_test(test_example_structure),
        cmocka_unit_test(test_example_narration),
        cmocka_unit_test(test_example_scene),
        cmocka_unit_test(test_example_exercises),
        cmocka_unit_test(test_defaults_without_front_matter),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_errors_at_their_lines),
        cmocka_unit_test(test_all_errors_collected),
        cmocka_unit_test(test_short_title),
        cmocka_unit_test(test_nul_and_limits),
        cmocka_unit_test(test_html_is_text),
        cmocka_unit_test(test_set_folder),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_lesson_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
