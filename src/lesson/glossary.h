/* glossary.h - the words the lessons use, each with a short definition in our own words:
 * the player's glossary page (G) and the terms a slide's narration uses, found by whole
 * word. Pure C, no terminal. */
#ifndef COLLVIZ_LESSON_GLOSSARY_H
#define COLLVIZ_LESSON_GLOSSARY_H

#include <stdbool.h>
#include <stddef.h>

struct glossary_term {
    const char *term;       /* as the page heads it: "busbw" */
    const char *match[4];   /* the spellings found in a narration, NULL-ended */
    const char *definition; /* a few sentences */
};

/* The terms, in the page's order; *n how many. */
const struct glossary_term *glossary_terms(size_t *n);

/* The glossary's terms that text uses (a spelling as a whole word, case kept for short
 * all-capital words, else any case), in the order of their first use: their indices into
 * out[cap]; returns how many. */
size_t glossary_used(const char *text, size_t *out, size_t cap);

/* The terms a slide uses: in its title, then its narration. */
struct lesson_slide;
size_t glossary_slide_terms(const struct lesson_slide *s, size_t *out, size_t cap);

/* Terms linked from the narration: the first use on a slide of each term not yet in
 * seen[GLOSSARY_MAX_TERMS] (false: not met yet) becomes a span of its own whose style adds
 * LSPAN_TERM, and seen says it was met. Only span boundaries move, at the term's own
 * whole-word edges: the block's bytes, words and their order stay as they were, so a layout
 * that breaks lines at spaces breaks them where it did (tests/unit/test_glossary.c). Code
 * blocks are left as they are. b's spans are replaced and the old ones freed (b must own
 * them: glossary_copy_blocks, or a quiz's own copies). */
#define GLOSSARY_MAX_TERMS 64
struct lesson_block;
void glossary_mark_block(struct lesson_block *b, bool *seen);
/* A deep copy of blocks[0, n) with each term's first use marked (seen starts empty);
 * free with glossary_free_blocks. */
struct lesson_block *glossary_marked_copy(const struct lesson_block *blocks, size_t n);
void glossary_free_blocks(struct lesson_block *b, size_t n);
/* The glossary as narration: a paragraph a term, its name in bold then its definition; the
 * terms of first[0, nfirst) (a slide's, in the order of use) first, then every other one.
 * *nblocks: how many; free with glossary_free_blocks. */
struct lesson_block *glossary_page_blocks(const size_t *first, size_t nfirst, size_t *nblocks);

#endif
