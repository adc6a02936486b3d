/* glossary.h - the words the lessons use, each with a short definition in our own words:
 * the player's glossary page (G) and the terms a slide's narration uses, found by whole
 * word. Pure C, no terminal. */
#ifndef COLLVIZ_LESSON_GLOSSARY_H
#define COLLVIZ_LESSON_GLOSSARY_H

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

#endif
