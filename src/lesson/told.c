/* told.c - predict first in words: a choice exercise whose right option the narration
 * above it restates (ex_choice_told), and text a student reads with a doubled full stop
 * (ex_double_stop). Pure C, no I/O. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/types/types.h"

#define TOLD_WORD 32 /* bytes of one word, stemmed */
#define TOLD_WORDS 64

/* Words that say nothing about which option is meant. */
static const char *const stopwords[] = {
    "a",     "an",      "the",   "and",   "or",      "but",    "of",      "to",      "in",
    "on",    "at",      "by",    "for",   "with",    "from",   "as",      "is",      "are",
    "was",   "were",    "be",    "been",  "being",   "it",     "its",     "this",    "that",
    "these", "those",   "each",  "every", "all",     "any",    "some",    "no",      "not",
    "none",  "only",    "just",  "also",  "than",    "then",   "so",      "such",    "which",
    "what",  "who",     "whom",  "whose", "when",    "where",  "why",     "how",     "one",
    "two",   "three",   "four",  "five",  "more",    "most",   "less",    "least",   "much",
    "many",  "few",     "same",  "other", "another", "own",    "both",    "either",  "neither",
    "do",    "does",    "did",   "done",  "has",     "have",   "had",     "can",     "could",
    "may",   "might",   "must",  "shall", "should",  "will",   "would",   "there",   "here",
    "their", "them",    "they",  "he",    "she",     "we",     "you",     "your",    "our",
    "into",  "onto",    "over",  "under", "after",   "before", "between", "through", "during",
    "about", "above",   "below", "up",    "down",    "out",    "off",     "again",   "further",
    "once",  "because", "while", "until", "if",      "else",   "very",    "too",     "yes",
};

static bool stopword(const char *w)
{
    for (size_t i = 0; i < ARRAY_LEN(stopwords); i++)
        if (strcmp(w, stopwords[i]) == 0) return true;
    return false;
}

static bool word_byte(unsigned char c, bool first)
{
    return isalnum(c) || (!first && (c == '/' || c == '-' || c == '\''));
}

/* w (lower case, len bytes) stemmed in place, so that a word and its forms meet: "ranks"
 * and "rank's" are "rank", "copies" "copy", "averaged" and "average" "averag", "avg" too.
 * A stopword stays as it is. */
static void stem(char *w, size_t len)
{
    if (stopword(w)) return;
    if (strcmp(w, "avg") == 0) snprintf(w, TOLD_WORD, "average");
    len = strlen(w);
    if (len > 2 && strcmp(w + len - 2, "'s") == 0) w[len -= 2] = '\0';
    if (len > 4 && strcmp(w + len - 3, "ies") == 0)
        snprintf(w + (len -= 2) - 1, 2, "y");
    else if (len > 3 && strcmp(w + len - 2, "es") == 0 && strchr("sxzh", w[len - 3]))
        w[len -= 2] = '\0';
    else if (len > 3 && w[len - 1] == 's' && w[len - 2] != 's')
        w[--len] = '\0';
    bool cut = false;
    if (len > 5 && strcmp(w + len - 3, "ing") == 0)
        w[len -= 3] = '\0', cut = true;
    else if (len > 4 && strcmp(w + len - 2, "ed") == 0)
        w[len -= 2] = '\0', cut = true;
    /* "plugged" and "plugs", "running" and "runs" meet: a doubled consonant is one */
    if (cut && len > 3 && w[len - 1] == w[len - 2] && !strchr("aeioulsz", w[len - 1]))
        w[--len] = '\0';
    if (len > 3 && w[len - 1] == 'e') w[--len] = '\0';
}

/* The words of text, lower case, stemmed: at most cap. */
static size_t told_words(const char *text, char (*out)[TOLD_WORD], size_t cap)
{
    size_t k = 0;
    for (const char *p = text; *p && k < cap;) {
        if (!word_byte((unsigned char)*p, true)) {
            p++;
            continue;
        }
        const char *b = p;
        /* a number's thousands stay one word: "419,430,400" is not "400" */
        while (*p && (word_byte((unsigned char)*p, false) ||
                      (*p == ',' && isdigit((unsigned char)p[-1]) &&
                       isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
                       isdigit((unsigned char)p[3]) && !isdigit((unsigned char)p[4]))))
            p++;
        size_t len = (size_t)(p - b);
        while (len && strchr("/-'", b[len - 1]))
            len--;
        if (len >= TOLD_WORD) continue;
        char *w = out[k++];
        for (size_t i = 0; i < len; i++)
            w[i] = (char)tolower((unsigned char)b[i]);
        w[len] = '\0';
        stem(w, len);
    }
    return k;
}

/* A set of words (no repeats). */
struct told_set {
    char w[TOLD_WORDS][TOLD_WORD];
    size_t n;
};

static bool set_has(const struct told_set *s, const char *w)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->w[i], w) == 0) return true;
    return false;
}

static void set_add(struct told_set *s, const char *w)
{
    if (s->n < TOLD_WORDS && !set_has(s, w)) snprintf(s->w[s->n++], TOLD_WORD, "%s", w);
}

/* The words of text; with content, only those that name something (not a stopword; three
 * letters or more, or a number of two characters or more: "1/W", "400"). */
static void set_of(const char *text, bool content, struct told_set *s)
{
    char(*w)[TOLD_WORD] = xcalloc(TOLD_WORDS * 4, TOLD_WORD);
    size_t n = told_words(text, w, TOLD_WORDS * 4);
    s->n = 0;
    for (size_t i = 0; i < n; i++) {
        bool num = isdigit((unsigned char)w[i][0]);
        if (content && (stopword(w[i]) || strlen(w[i]) < (num ? 2 : 3))) continue;
        set_add(s, w[i]);
    }
    free(w);
}

/* |a ∩ b| / |a| (0 for an empty a). */
static double share(const struct told_set *a, const struct told_set *b)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++)
        k += set_has(b, a->w[i]);
    return a->n ? (double)k / (double)a->n : 0;
}

static size_t common(const struct told_set *a, const struct told_set *b)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++)
        k += set_has(b, a->w[i]);
    return k;
}

/* a without the words of b */
static void set_minus(const struct told_set *a, const struct told_set *b, struct told_set *out)
{
    out->n = 0;
    for (size_t i = 0; i < a->n; i++)
        if (!set_has(b, a->w[i])) set_add(out, a->w[i]);
}

/* An option's words: all of them (C), and those no other option has (D: for the right
 * option, none of the wrong options' words; for a wrong one, none of the right one's). */
struct told_opt {
    struct told_set c, d;
};

/* How much of option o sentence s restates: the share of its words there plus the share of
 * its distinctive words. */
static double told_score(const struct told_opt *o, const struct told_set *s)
{
    return share(&o->c, s) + share(&o->d, s);
}

/* Does one sentence restate the right option r (of opts, n of them)? It must hold one of
 * r's distinctive words, at least two and half of r's words, and restate r more than any
 * wrong option. */
static bool sentence_tells(const struct told_opt *opts, size_t n, size_t r,
                           const struct told_set *s)
{
    const struct told_opt *o = &opts[r];
    size_t m = common(&o->c, s);
    if (!common(&o->d, s) || m < 2 || 2 * m < o->c.n) return false;
    double mine = told_score(o, s);
    for (size_t k = 0; k < n; k++)
        if (k != r && told_score(&opts[k], s) >= mine) return false;
    return true;
}

static void told_options(const struct lesson_exercise *ex, struct told_opt *opts)
{
    size_t r = (size_t)ex->correct - 1;
    struct told_set *all = xcalloc(ex->noptions, sizeof *all), wrong = {.n = 0};
    for (size_t k = 0; k < ex->noptions; k++) {
        set_of(ex->options[k], true, &opts[k].c);
        set_of(ex->options[k], false, &all[k]);
        for (size_t i = 0; k != r && i < all[k].n; i++)
            set_add(&wrong, all[k].w[i]);
    }
    for (size_t k = 0; k < ex->noptions; k++)
        set_minus(&opts[k].c, k == r ? &wrong : &all[r], &opts[k].d);
    free(all);
}

/* Words that only join others (articles, "of", "is"): a phrase is matched without them.
 * Words of quantity ("one", "more", "same", "not") stay: they carry an option's meaning. */
static const char *const joiners[] = {
    "a",  "an",   "the",  "and",   "or",    "but",  "of",    "to",   "in",    "on",
    "at", "by",   "for",  "with",  "from",  "as",   "is",    "are",  "was",   "were",
    "be", "been", "it",   "its",   "this",  "that", "so",    "do",   "does",  "then",
    "if", "into", "onto", "there", "their", "they", "which", "what", "where", "why",
};

/* The words of text in order, stemmed, without joiners, numbers and letters alone (a
 * formula's "2(W−1)/(W·duration)" is no phrase): at most cap. */
static size_t phrase_of(const char *text, char (*w)[TOLD_WORD], size_t cap)
{
    size_t n = told_words(text, w, cap), k = 0;
    for (size_t i = 0; i < n; i++) {
        bool j = strlen(w[i]) < 3 || isdigit((unsigned char)w[i][0]);
        for (size_t q = 0; q < ARRAY_LEN(joiners) && !j; q++)
            j = strcmp(w[i], joiners[q]) == 0;
        if (!j) memmove(w[k++], w[i], TOLD_WORD);
    }
    return k;
}

/* The longest run of a's words that b has in the same order, gaps allowed. */
static size_t in_order(char (*a)[TOLD_WORD], size_t na, char (*b)[TOLD_WORD], size_t nb)
{
    size_t *row = xcalloc((nb + 1) * 2, sizeof *row), best;
    size_t *prev = row, *cur = row + nb + 1;
    for (size_t i = 1; i <= na; i++) {
        for (size_t j = 1; j <= nb; j++)
            cur[j] = strcmp(a[i - 1], b[j - 1]) == 0 ? prev[j - 1] + 1
                     : prev[j] > cur[j - 1]          ? prev[j]
                                                     : cur[j - 1];
        size_t *t = prev;
        prev = cur;
        cur = t;
    }
    best = prev[nb];
    free(row);
    return best;
}

/* A choice's words for the told-check: the right option's and every option's (for a
 * phrase, in order), the prompt's. */
struct told_ex {
    struct told_opt *opts;
    size_t nopts, r;
    char (*ph)[TOLD_WORD]; /* option k's phrase: ph + k * TOLD_WORDS */
    size_t *nph;
    struct told_set prompt;
};

static void told_ex_init(const struct lesson_exercise *ex, struct told_ex *T)
{
    T->nopts = ex->noptions;
    T->r = (size_t)ex->correct - 1;
    T->opts = xcalloc(ex->noptions, sizeof *T->opts);
    told_options(ex, T->opts);
    T->ph = xcalloc(ex->noptions * TOLD_WORDS, TOLD_WORD);
    T->nph = xcalloc(ex->noptions, sizeof *T->nph);
    for (size_t k = 0; k < ex->noptions; k++)
        T->nph[k] = phrase_of(ex->options[k], T->ph + k * TOLD_WORDS, TOLD_WORDS);
    set_of(ex->prompt ? ex->prompt : "", true, &T->prompt);
}

static void told_ex_free(struct told_ex *T)
{
    free(T->opts);
    free(T->ph);
    free(T->nph);
}

/* The right option as a phrase: at least three of its words, half of them or more,
 * in its order ("one more layer of peak memory" for "One more gathered layer of memory"),
 * more of them than any wrong option's. */
static bool phrase_tells(const struct told_ex *T, const char *sent)
{
    char(*w)[TOLD_WORD] = xcalloc(TOLD_WORDS * 4, TOLD_WORD);
    size_t nw = phrase_of(sent, w, TOLD_WORDS * 4), r = T->r;
    size_t mine = in_order(T->ph + r * TOLD_WORDS, T->nph[r], w, nw);
    bool tells = mine >= 3 && 2 * mine >= T->nph[r];
    for (size_t k = 0; tells && k < T->nopts; k++)
        if (k != r) tells = in_order(T->ph + k * TOLD_WORDS, T->nph[k], w, nw) < mine;
    free(w);
    return tells;
}

/* The question's case with its answer: a sentence that shares words with the prompt (two;
 * a title one) and holds words of the right option no wrong option has (a title half of
 * them; narration, with the prompt's, four words or more) ("Training
 * starts ... rank 0 loaded ... Which collective?" told by "one rank loads the initial
 * weights and broadcasts them"); in narration, it holds more of the right option's own
 * words than of any wrong one's (a title may name both: "Backward: the all-gather turns
 * into a reduce-scatter" is the slide's claim). */
static bool case_tells(const struct told_ex *T, const struct told_set *s, bool title)
{
    size_t asked = common(&T->prompt, s);
    if (asked < (title ? 1u : 2u)) return false;
    /* an option's own words, the prompt's left out ("the lecture's notes" says nothing
     * of its own by "lecture" where the prompt asks about the lecture's formula) */
    struct told_set d;
    set_minus(&T->opts[T->r].d, &T->prompt, &d);
    size_t named = common(&d, s);
    /* a title names half the option's own words; narration four words of the case and the
     * option together */
    if (!d.n || !named || (title ? 2 * named < d.n : asked + named < 4)) return false;
    double mine = share(&d, s);
    for (size_t k = 0; !title && k < T->nopts; k++) {
        if (k == T->r) continue;
        set_minus(&T->opts[k].d, &T->prompt, &d);
        if (share(&d, s) >= mine) return false;
    }
    return true;
}

/* Is e a ':' or ';' whose clause runs on for fewer than four words to the sentence's end
 * ("the tree wins: fewer steps.")? Such a tail belongs to the clause before it. */
static bool short_tail(const char *e)
{
    if (*e != ':' && *e != ';') return false;
    int words = 0;
    bool in = false;
    for (const char *p = e + 1; *p && !strchr(".!?:;", *p); p++) {
        bool w = isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80;
        if (w && !in) words++;
        in = w;
    }
    return words < 4;
}

bool ex_choice_told(const struct lesson_exercise *ex, const char *text, bool title, char *found,
                    size_t n)
{
    if (!text || ex_answer_form(ex) != EX_ANSWER_OPTION || ex->correct < 1 ||
        (size_t)ex->correct > ex->noptions)
        return false;
    struct told_ex T;
    told_ex_init(ex, &T);
    bool hit = false;
    struct told_set *s = xmalloc(sizeof *s);
    /* sentence by sentence: a '.', '!', '?', ':' or ';' and a blank end one; a title is
     * one ("Backward: the all-gather turns into a reduce-scatter") */
    for (const char *p = text; *p && !hit;) {
        const char *e = p;
        while (*e && !(!title && strchr(".!?:;", *e) &&
                       (e[1] == ' ' || e[1] == '\n' || !e[1]) && !short_tail(e)))
            e++;
        size_t len = (size_t)(e - p) + (*e ? 1 : 0);
        char *sent = xmalloc(len + 1);
        memcpy(sent, p, len);
        sent[len] = '\0';
        set_of(sent, false, s);
        /* a question asks the case; it does not tell its answer ("What becomes of a
         * dropped token's output?") */
        bool asks = *e == '?';
        hit = (T.opts[T.r].d.n && sentence_tells(T.opts, T.nopts, T.r, s)) ||
              phrase_tells(&T, sent) || (!asks && case_tells(&T, s, title));
        if (hit && found && n) {
            while (*p == ' ' || *p == '\n')
                p++;
            snprintf(found, n, "%.*s", (int)cv_utf8_cut(p, n > 61 ? 60 : n - 1), p);
        }
        free(sent);
        p = *e ? e + 1 : e;
    }
    free(s);
    told_ex_free(&T);
    return hit;
}

const char *ex_double_stop(const char *text)
{
    for (const char *p = text ? strstr(text, "..") : NULL; p; p = strstr(p + 1, "..")) {
        const char *b = p, *e = p + 2;
        while (b > text && b[-1] == '.')
            b--;
        while (*e == '.')
            e++;
        /* two stops ending a word and a sentence: not "...", not a range ("1..64", "10r ..
         * 10r+3", "A..B") */
        if (e - b == 2 && b > text && !isspace((unsigned char)b[-1]) &&
            (!*e || isspace((unsigned char)*e) || strchr("\"')]*_", *e)))
            return b;
        p = e - 1;
    }
    return NULL;
}

/* ---- numbers in words ------------------------------------------------------------------- */

static const struct {
    const char *w;
    double v;
} small_words[] =
    {
        {"zero", 0},     {"one", 1},      {"two", 2},        {"three", 3},     {"four", 4},
        {"five", 5},     {"six", 6},      {"seven", 7},      {"eight", 8},     {"nine", 9},
        {"ten", 10},     {"eleven", 11},  {"twelve", 12},    {"thirteen", 13}, {"fourteen", 14},
        {"fifteen", 15}, {"sixteen", 16}, {"seventeen", 17}, {"eighteen", 18}, {"nineteen", 19},
        {"twenty", 20},  {"thirty", 30},  {"forty", 40},     {"fifty", 50},    {"sixty", 60},
        {"seventy", 70}, {"eighty", 80},  {"ninety", 90},    {"a dozen", 12},  {"a", 1},
},
  scale_words[] = {
      {"hundred", 100}, {"thousand", 1e3},  {"million", 1e6},
      {"billion", 1e9}, {"trillion", 1e12},
};

/* The word w (of small_words or scale_words) at p, ending at a word's end: its length. */
static size_t word_at(const char *p, const char *w)
{
    size_t l = strlen(w);
    return strncasecmp(p, w, l) == 0 && !isalpha((unsigned char)p[l]) ? l : 0;
}

bool ex_number_words(const char *s, double *out, double *ulp, const char **end)
{
    const char *p = s;
    double x = -1, u = 1;
    for (size_t i = 0; i < ARRAY_LEN(small_words) && x < 0; i++) {
        size_t l = word_at(p, small_words[i].w);
        if (!l) continue;
        x = small_words[i].v;
        u = x >= 20 && x < 100 ? 10 : 1;
        p += l;
    }
    if (x < 0) return false;
    if (u == 10 && *p == '-') /* "eighty-three" */
        for (size_t i = 1; i < 10; i++) {
            size_t l = word_at(p + 1, small_words[i].w);
            if (!l) continue;
            x += small_words[i].v;
            u = 1;
            p += 1 + l;
            break;
        }
    for (size_t i = 0; *p == ' ' && i < ARRAY_LEN(scale_words); i++) {
        size_t l = word_at(p + 1, scale_words[i].w);
        if (!l) continue;
        x *= scale_words[i].v;
        u *= scale_words[i].v;
        p += 1 + l;
        break;
    }
    if (s[0] == 'a' && s[1] == ' ' && u == 1 && x == 1) return false; /* the article alone */
    *out = x;
    *ulp = u;
    *end = p;
    return true;
}

/* Hedges before a number, longest first where one ends another ("more than" before
 * "than"). */
static const struct {
    const char *w;
    enum ex_hedge h;
} hedges[] = {
    {"more than", EX_HEDGE_ABOVE},
    {"greater than", EX_HEDGE_ABOVE},
    {"at least", EX_HEDGE_ABOVE},
    {"well over", EX_HEDGE_ABOVE},
    {"just over", EX_HEDGE_ABOVE},
    {"over", EX_HEDGE_ABOVE},
    {"above", EX_HEDGE_ABOVE},
    {"less than", EX_HEDGE_BELOW},
    {"fewer than", EX_HEDGE_BELOW},
    {"at most", EX_HEDGE_BELOW},
    {"just under", EX_HEDGE_BELOW},
    {"under", EX_HEDGE_BELOW},
    {"below", EX_HEDGE_BELOW},
    {"nearly", EX_HEDGE_BELOW},
    {"almost", EX_HEDGE_BELOW},
    {"about", EX_HEDGE_ABOUT},
    {"around", EX_HEDGE_ABOUT},
    {"roughly", EX_HEDGE_ABOUT},
    {"approximately", EX_HEDGE_ABOUT},
    {"some", EX_HEDGE_ABOUT},
    {"close to", EX_HEDGE_ABOUT},
    {"\xe2\x89\x88", EX_HEDGE_ABOUT}, /* ≈ */
    {"~", EX_HEDGE_ABOUT},
};

enum ex_hedge ex_hedge_before(const char *text, const char *p)
{
    const char *e = p;
    while (e > text && e[-1] == ' ')
        e--;
    for (size_t i = 0; i < ARRAY_LEN(hedges); i++) {
        size_t l = strlen(hedges[i].w);
        if ((size_t)(e - text) < l || strncasecmp(e - l, hedges[i].w, l) != 0) continue;
        const char *b = e - l;
        if (isalpha((unsigned char)hedges[i].w[0]) && b > text && isalpha((unsigned char)b[-1]))
            continue; /* "moreover", "handover" */
        return hedges[i].h;
    }
    return EX_HEDGE_NONE;
}

double ex_number_ulp(const char *s, const char *end)
{
    const char *dot = NULL, *last = NULL; /* the last significant digit */
    for (const char *p = s; p < end; p++) {
        if (*p == '.') dot = p;
        if (isdigit((unsigned char)*p) && (*p != '0' || dot)) last = p;
        if (*p == 'e' || *p == 'E') break;
    }
    if (!last) return 1;
    if (dot && last > dot) {
        double u = 1;
        for (const char *p = dot + 1; p <= last; p++)
            u /= 10;
        return u;
    }
    double u = 1;
    for (const char *p = last + 1; p < end && (isdigit((unsigned char)*p) || *p == ','); p++)
        if (*p != ',') u *= 10;
    return u;
}

bool ex_hedged_match(enum ex_hedge h, double stated, double ulp, double answer)
{
    switch (h) {
    case EX_HEDGE_ABOVE:
        return answer >= stated && answer < stated + ulp;
    case EX_HEDGE_BELOW:
        return answer <= stated && answer > stated - ulp;
    case EX_HEDGE_ABOUT:
    case EX_HEDGE_NONE:
        break;
    }
    return fabs(answer - stated) <= ulp / 2;
}
