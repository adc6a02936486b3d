/* keys.h - the one table of actions: each row names an action, the keys bound to it, its
 * help text and (optionally) its entry in the bottom bar. The key dispatch, the `?` help
 * overlay and the bar are all generated from UI_KEY_TABLE, so they cannot drift apart
 * (tig's request.h habit). Mouse clicks on the bar become the same actions. */
#ifndef COLLVIZ_UI_KIT_KEYS_H
#define COLLVIZ_UI_KIT_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"

/* X(id, screens, bar keys text or NULL, bar label or NULL, help text, key codes...).
 * "screens" says on which screens the row appears in the bar and the help (KEYS_ON_*).
 * Dispatch (keys_action_surface): on a scene screen every scene key works (an action that
 * does not apply there says so), a row of that screen winning over another screen's row
 * with the same key; a surface's own rows (the player's KEYS_ON_LESSON, the presenter's
 * KEYS_ON_PRESENT) win over both, and a scene action whose key they take keeps its other
 * key there (the player's n is the next slide, N the scheme). "bar keys text" is what the bar
 * prints before the label; "<-" and "->" become arrows in UTF-8 mode; NULL means the name
 * of the first key. Key codes are ncurses codes (KEY_*), which is why the table is
 * expanded in keys.c, where <curses.h> is included. */
#define KEYS_ON_COLL 1u     /* the collectives screen */
#define KEYS_ON_PAR 2u      /* the parallelism screen */
#define KEYS_ON_LESSON 4u   /* the lesson player and its list of lessons */
#define KEYS_ON_HIER 8u     /* the hierarchy screen */
#define KEYS_ON_PRESENT 16u /* the presenter's own keys (slides, blank, goto...) */
#define KEYS_ON_TOPO 32u    /* the topology screen (collviz --nccl-log) */
#define KEYS_ON_NOTES 64u   /* the speaker's notes terminal (collviz notes): its own keys */
#define KEYS_ON_ALL (KEYS_ON_COLL | KEYS_ON_PAR)
#define KEYS_ON_SCENES                                                                         \
    (KEYS_ON_COLL | KEYS_ON_PAR | KEYS_ON_HIER | KEYS_ON_TOPO) /* every screen a scene names   \
                                                                */
#define KEYS_ON_EVERY (KEYS_ON_SCENES | KEYS_ON_LESSON)
#define UI_KEY_TABLE(X)                                                                        \
    X(COLL_NEXT, KEYS_ON_COLL, NULL, "coll", "next collective", '\t')                          \
    X(PARALLEL, KEYS_ON_SCENES, NULL, "parallel", "parallelism screen on/off", 'p', 'P')       \
    X(HIERARCHY, KEYS_ON_PAR | KEYS_ON_HIER, NULL, NULL, "hierarchy screen on/off", 'y')       \
    X(TOPOLOGY, KEYS_ON_COLL | KEYS_ON_TOPO, NULL, NULL, "topology screen on/off", 't')        \
    X(CHAN_NEXT, KEYS_ON_TOPO, "{/}", "channel", "next channel", '}')                          \
    X(CHAN_PREV, KEYS_ON_TOPO, NULL, NULL, "previous channel", '{')                            \
    X(TOPO_TREE, KEYS_ON_TOPO, NULL, "tree", "the channel's trees on/off", 'd', 'D')           \
    X(TOPO_TESTS, KEYS_ON_TOPO, NULL, "tests", "nccl-tests: busbw vs size, fit (next test)",   \
      'T')                                                                                     \
    X(TOPO_RUN, KEYS_ON_TOPO, "Enter", "all-reduce", "all-reduce on this ring", '\r', '\n',    \
      KEY_ENTER)                                                                               \
    X(TOPO_COMM, KEYS_ON_TOPO, NULL, "comm", "next communicator (a record with several)", 'u', \
      'U')                                                                                     \
    X(NODE_NEXT, KEYS_ON_TOPO, "(/)", "node", "large records: open the next node", ')')        \
    X(NODE_PREV, KEYS_ON_TOPO, NULL, NULL, "large records: open the previous node", '(')       \
    X(SCHEME, KEYS_ON_PAR, NULL, "scheme", "next scheme: ddp, tp, pp, zero1-3, moe", 'n', 'N') \
    X(SLIDE_NEXT, KEYS_ON_LESSON, "n/p", "slide", "next slide", 'n')                           \
    X(SLIDE_PREV, KEYS_ON_LESSON, NULL, NULL, "previous slide", 'p')                           \
    X(SCENE_ALONE, KEYS_ON_LESSON, NULL, NULL, "the scene alone / the text (small terminals)", \
      'z')                                                                                     \
    X(SCENE_RESET, KEYS_ON_LESSON, NULL, NULL, "back to the slide's scene", '0',               \
      KEY_BACKSPACE, 127, 8)                                                                   \
    X(NEXT, KEYS_ON_EVERY, "<- ->", "step", "next step", KEY_RIGHT, 'l', KEY_NPAGE)            \
    X(PREV, KEYS_ON_EVERY, NULL, NULL, "previous step", KEY_LEFT, 'h', KEY_PPAGE)              \
    X(FIELD_NEXT, KEYS_ON_HIER, "up/dn", "field", "napkin math: next field", KEY_DOWN, 'j',    \
      'J')                                                                                     \
    X(FIELD_PREV, KEYS_ON_HIER, NULL, NULL, "napkin math: previous field", KEY_UP, 'k', 'K')   \
    X(VALUE_UP, KEYS_ON_HIER, "</>", "value", "napkin math: raise the value", '>', '.')        \
    X(VALUE_DOWN, KEYS_ON_HIER, NULL, NULL, "napkin math: lower the value", '<', ',')          \
    X(FIRST, KEYS_ON_EVERY, NULL, NULL, "first step", KEY_HOME)                                \
    X(LAST, KEYS_ON_EVERY, NULL, NULL, "last step", KEY_END)                                   \
    X(PLAY, KEYS_ON_ALL | KEYS_ON_LESSON, NULL, "play", "play / pause (one step a second)",    \
      ' ')                                                                                     \
    X(ANSWER, KEYS_ON_LESSON, "Enter", "answer", "answer (list: open the lesson)", '\r', '\n', \
      KEY_ENTER)                                                                               \
    X(EX_NEXT, KEYS_ON_LESSON, NULL, NULL, "next exercise on the slide", '\t')                 \
    X(HINT, KEYS_ON_LESSON, NULL, "hint", "next hint", 'H')                                    \
    X(VARIANT, KEYS_ON_LESSON, NULL, "variant", "new numbers (ranged exercises)", 'v')         \
    X(LECTURE, KEYS_ON_LESSON, NULL, NULL, "the lecture's numbers again (after v)", 'L')       \
    X(GLOSSARY, KEYS_ON_LESSON | KEYS_ON_PRESENT, NULL, NULL,                                  \
      "glossary: the slide's terms first (G: back)", 'G')                                      \
    X(SOLUTION, KEYS_ON_LESSON, NULL, "solution", "give up: answer and solution", 'S')         \
    X(SCROLL_DOWN, KEYS_ON_LESSON, NULL, NULL, "scroll text down (list: next)", KEY_DOWN, 'j') \
    X(SCROLL_UP, KEYS_ON_LESSON, NULL, NULL, "scroll text up (list: previous)", KEY_UP, 'k')   \
    X(ALGO, KEYS_ON_COLL, NULL, "algo", "next algorithm", 'a', 'A')                            \
    X(RANKS_UP, KEYS_ON_SCENES, "+/-", "ranks", "more ranks", '+', '=', 'w')                   \
    X(RANKS_DOWN, KEYS_ON_SCENES, NULL, NULL, "fewer ranks", '-', '_', 'W')                    \
    X(SCHEDULE, KEYS_ON_PAR, NULL, "sched", "pp schedule: GPipe / 1F1B", 'g', 'G', 'S')        \
    X(OVERLAP, KEYS_ON_PAR, NULL, "overlap", "ddp: overlap all-reduce; zero3: prefetch", 'O')  \
    X(OP, KEYS_ON_COLL, NULL, "op", "next reduction op", 'o', '*')                             \
    X(ROOT, KEYS_ON_COLL, NULL, "root", "next root (rooted collectives)", 'r')                 \
    X(COUNT_UP, KEYS_ON_COLL, "c/C", "count", "more elements", 'c')                            \
    X(COUNT_DOWN, KEYS_ON_COLL, NULL, NULL, "fewer elements", 'C')                             \
    X(INIT, KEYS_ON_COLL, NULL, "input", "next input pattern", 'i')                            \
    X(VIEW, KEYS_ON_COLL, NULL, NULL, "view: chunk, slices 2 4 8, 4x2 channels", 'v', 'V')     \
    X(MEASURE, KEYS_ON_EVERY, NULL, "measure", "measure now / train again", 'm')               \
    X(SWEEP, KEYS_ON_COLL, NULL, "sweep", "sweep sizes (busbw vs size)", 's')                  \
    X(CANCEL, KEYS_ON_EVERY, NULL, NULL, "cancel measurement/training", 'x')                   \
    X(SIZE_DOWN, KEYS_ON_COLL | KEYS_ON_HIER, NULL, NULL, "halve measurement size", '[')       \
    X(SIZE_UP, KEYS_ON_COLL | KEYS_ON_HIER, "[/]", "size", "double measurement size", ']')     \
    X(BACKENDS, KEYS_ON_EVERY, NULL, "backends", "backends, GPUs, NCCL", 'b')                  \
    X(EXPORT, KEYS_ON_EVERY, NULL, NULL, "screen to SVG and text", 'e')                        \
    X(HELP, KEYS_ON_EVERY, NULL, "help", "help on/off", '?', KEY_F(1))                         \
    X(CLOSE, KEYS_ON_EVERY, NULL, NULL, "close help / backends / a lesson", 27)                \
    X(QUIT, KEYS_ON_EVERY, NULL, "quit", "quit (a lesson of the list: back to the list)", 'q') \
    PRESENT_KEY_TABLE(X)

/* The presenter's own rows (its surface's keys win a clash; the scene action keeps its other
 * keys: algorithm A, op *, schedule G, ranks w / W since + and - zoom there). */
#define PRESENT_KEY_TABLE(X)                                                                   \
    X(PRES_NEXT, KEYS_ON_PRESENT, NULL, NULL, "the scene's next stop, then the next slide",    \
      KEY_NPAGE, KEY_DOWN, ' ')                                                                \
    X(PRES_PREV, KEYS_ON_PRESENT, NULL, NULL, "back a stop, the text pages, the slide before", \
      KEY_PPAGE, KEY_UP, KEY_BACKSPACE)                                                        \
    X(PRES_STEP_NEXT, KEYS_ON_PRESENT, NULL, NULL, "next step (every one), then slide",        \
      KEY_RIGHT)                                                                               \
    X(PRES_STEP_PREV, KEYS_ON_PRESENT, NULL, NULL, "previous step (every one)", KEY_LEFT)      \
    X(PRES_SKIP, KEYS_ON_PRESENT, NULL, NULL,                                                  \
      "the scene's end; there: next slide (a clicker's F5 / Esc)", KEY_F(5), 27, KEY_F(17))    \
    X(PRES_SLIDE_NEXT, KEYS_ON_PRESENT, NULL, NULL, "next slide", 'n')                         \
    X(PRES_SLIDE_PREV, KEYS_ON_PRESENT, NULL, NULL, "previous slide", 'p')                     \
    X(PRES_FIRST, KEYS_ON_PRESENT, NULL, NULL, "first slide", KEY_HOME)                        \
    X(PRES_LAST, KEYS_ON_PRESENT, NULL, NULL, "last slide", KEY_END)                           \
    X(PRES_GOTO, KEYS_ON_PRESENT, NULL, NULL, "go to slide: g N Enter", 'g')                   \
    X(PRES_OVERVIEW, KEYS_ON_PRESENT, NULL, NULL, "overview of every slide", 'o')              \
    X(PRES_SEARCH, KEYS_ON_PRESENT, NULL, NULL, "jump to a title: / words Enter", '/')         \
    X(PRES_REVEAL, KEYS_ON_PRESENT, NULL, NULL,                                                \
      "quiz: the next answer, one at a time; then the whole scene", 'r')                       \
    X(PRES_RESET, KEYS_ON_PRESENT, NULL, NULL, "the slide's own scene, at its step", '0')      \
    X(PRES_HIGHLIGHT, KEYS_ON_PRESENT, NULL, NULL, "point at a rank, chunk, transfer", 'f')    \
    X(PRES_BLANK, KEYS_ON_PRESENT, NULL, NULL, "blank (any key restores)", '.', 'b')           \
    X(PRES_DIGITS, KEYS_ON_PRESENT, NULL, NULL, "block digits on/off", 'd')                    \
    X(PRES_ZOOM_IN, KEYS_ON_PRESENT, NULL, NULL,                                               \
      "zoom in: fewer elements, bigger digits where they fit", '+', '=')                       \
    X(PRES_ZOOM_OUT, KEYS_ON_PRESENT, NULL, NULL, "zoom out", '-', '_')                        \
    X(PRES_AUTO, KEYS_ON_PRESENT, NULL, NULL, "resume --auto", 'a')                            \
    X(PRES_RESUME, KEYS_ON_PRESENT, NULL, NULL,                                                \
      "go where this deck was left last time (slide, step, clock)", 'R')                       \
    X(PRES_END, KEYS_ON_PRESENT, NULL, NULL, "the lesson's end page (E: back)", 'E')           \
    X(PRES_EXPORT, KEYS_ON_PRESENT, NULL, NULL, "screen to SVG and text (e twice)", 'e')       \
    X(PRES_QUIT, KEYS_ON_PRESENT, NULL, NULL, "quit", 'q')                                     \
    NOTES_KEY_TABLE(X)

/* The notes terminal's rows (`collviz notes`, ui/present/notes_view.c): read on that terminal
 * alone, never on the presenter's, whose keys (and a clicker's) they leave as they are. Their
 * bar items (keys_bar_where on KEYS_ON_NOTES) are on the page its `?` shows. */
#define NOTES_KEY_TABLE(X)                                                                     \
    X(NOTES_PAGE_DOWN, KEYS_ON_NOTES, "PgDn/Spc", "more",                                      \
      "the next page of a long note (marked \"more\")", KEY_NPAGE, ' ')                        \
    X(NOTES_PAGE_UP, KEYS_ON_NOTES, "PgUp", "back", "the page before", KEY_PPAGE)              \
    X(NOTES_LINE_DOWN, KEYS_ON_NOTES, "j/k", "line", "one line down", KEY_DOWN, 'j')           \
    X(NOTES_LINE_UP, KEYS_ON_NOTES, NULL, NULL, "one line up", KEY_UP, 'k')                    \
    X(NOTES_TOP, KEYS_ON_NOTES, "Home/g", "start", "the note's start", KEY_HOME, 'g')          \
    X(NOTES_END, KEYS_ON_NOTES, "End/G", "end", "the note's end", KEY_END, 'G')                \
    X(NOTES_PAUSE, KEYS_ON_NOTES, NULL, "pause", "pause / resume the countdown", 'p')          \
    X(NOTES_RESET, KEYS_ON_NOTES, NULL, "reset", "reset the countdown", 'r')                   \
    X(NOTES_KEYS, KEYS_ON_NOTES, NULL, "keys",                                                 \
      "every key of the presenter's and of this terminal (again: the note)", '?')              \
    X(NOTES_QUIT, KEYS_ON_NOTES, NULL, "quit", "quit", 'q', 'Q')

/* The number keys come from the collectives' table, not from rows written here: 1..9 select
 * the first nine collectives of COLL_LIST (core/coll.h) in its order, the lecture's, each
 * row's help the collective's title (core/coll.c). They are the table's first rows, filled
 * in keys.c, so a collective added there has its key, its help line and its row of
 * docs/guide.md with no line here. One after the ninth has no number key; the
 * next-collective key (COLL_NEXT, whose bar text names the range: "1-8") reaches every one. */
#define KEYS_COLL_NUMBERED (COLL_COUNT < 9 ? (int)COLL_COUNT : 9)

enum ui_action {
    ACT_NONE = -1,
    ACT_COLL_FIRST, /* ACT_COLL_FIRST + c selects collective c (enum coll), key '1' + c */
    ACT_COLL_LAST = ACT_COLL_FIRST + KEYS_COLL_NUMBERED - 1,
#define KEYS_X_ENUM(id, ...) ACT_##id,
    UI_KEY_TABLE(KEYS_X_ENUM)
#undef KEYS_X_ENUM
        ACT_COUNT
};

#define KEYS_MAX_PER_ACTION 4

struct key_row {
    enum ui_action action;
    unsigned screens; /* KEYS_ON_*: where the bar shows it */
    const char *bar_keys;
    const char *bar_label;
    const char *help;
    int keys[KEYS_MAX_PER_ACTION + 1]; /* 0-terminated */
};

/* The table, indexed by action (ACT_COUNT rows): the collectives' number keys, then
 * UI_KEY_TABLE's rows in its order. */
const struct key_row *keys_table(void);
/* The collective a number key's action selects, or -1 when act is not one. */
int keys_coll_of(enum ui_action act);

/* The action bound to ncurses key code ch on the scene screens, or ACT_NONE. */
enum ui_action keys_action(int ch);
/* The action of key ch where `on` (a KEYS_ON_* bit) is shown: its own rows first, then (on a
 * scene screen) any scene row; ACT_NONE when none. */
enum ui_action keys_action_on(int ch, unsigned on);

/* ---- surfaces: where keys are read -----------------------------------------------------
 * The same scene keys work on every surface that shows a scene (the explorer, the lesson
 * player, the presenter); a surface's own rows (KEYS_ON_LESSON, KEYS_ON_PRESENT) win where
 * a key clashes, and the scene action keeps its other keys there (n is the player's next
 * slide, N the parallelism scheme). Hints on a surface name only keys that reach their
 * action there (keys_key_on): a hint never names a key that does nothing. */
enum keys_surface { SURFACE_EXPLORER, SURFACE_PLAYER, SURFACE_PRESENTER };

/* The KEYS_ON_* bit of a surface's own rows (0 for the explorer: its screens' rows). */
unsigned keys_surface_bit(enum keys_surface s);
/* The action of key ch on surface s while a screen whose rows are screen_on (KEYS_ON_COLL,
 * _PAR or _HIER) shows the scene: the surface's own rows first, then the screen's, then any
 * scene row; ACT_NONE when none. */
enum ui_action keys_action_surface(int ch, enum keys_surface s, unsigned screen_on);
/* Text written for one surface (a slide's narration and notes, written for the player)
 * shown on another: every `K` code span of one key K whose action there is reached by
 * another key here becomes that key (the presenter's `*` for the player's `o`), and a key
 * whose action no key reaches here gets " (in the player)" after it. Into out (n bytes). */
void keys_retarget_text(const char *in, enum keys_surface from, enum keys_surface to,
                        unsigned screen_on, bool utf8, char *out, size_t n);
/* The first key of act's row that does act there, 0 when no key does. */
int keys_key_on(enum ui_action act, enum keys_surface s, unsigned screen_on);
/* The name of that key ("s", "→"), or NULL (buf untouched) when none: a hint that
 * names a key is shown only when this is not NULL. */
const char *keys_hint(enum ui_action act, enum keys_surface s, unsigned screen_on, bool utf8,
                      char *buf, int n);
/* keys_row_names limited to the keys that do the row's action there ("N" for the scheme in
 * the player); "" when none does. */
void keys_row_names_on(const struct key_row *row, enum keys_surface s, unsigned screen_on,
                       bool utf8, char *buf, int n);
/* Whether act is a scene action (a row of a scene screen, performed through the shown
 * screen, app.c's common actions and app_set_scene) rather than a program key (help, the
 * backends overlay, export, close, quit) or a surface's own key. */
bool keys_is_scene_action(enum ui_action act);
/* Whether act moves through the scene's steps: next, previous, first and last step, play. A
 * surface lets them through only where a scene with steps is shown. */
bool keys_is_step_action(enum ui_action act);

/* The key code a person's name of a key means, as a lesson's narration writes it: one
 * printable character ("o", "[", "O"), or Enter, Return, Esc, Escape, Tab, Space,
 * Backspace, Home, End, PgUp, PgDn, PageUp, PageDown, Up/Down/Left/Right or their arrows,
 * F1..F12 (case-insensitive for the words). name is len bytes. 0 when it names no key. */
int keys_parse_name(const char *name, size_t len);

/* A key's name as the help shows it: "→" / "Right", "PgDn", "Space", "Esc", "F1", "q". */
const char *keys_name(int ch, bool utf8, char *buf, int n);

/* All keys of a row joined for the help: "→ l PgDn". */
void keys_row_names(const struct key_row *row, bool utf8, char *buf, int n);

/* The bottom bar of the collectives screen laid out in `width` columns: the rows that have
 * a bar label, in table order, as many as fit. Each item is drawn at [x, x+w): its key text
 * then its label. */
struct bar_item {
    enum ui_action action;
    int x, w;
    char keys[24];
    const char *label;
};
int keys_bar(int width, bool utf8, struct bar_item *items, int max);
/* The same for one screen: only rows whose screens include `screen` (KEYS_ON_*);
 * keys_bar is keys_bar_for(..., KEYS_ON_COLL, ...). */
int keys_bar_for(int width, bool utf8, unsigned screen, struct bar_item *items, int max);

/* Whether act's bar item is shown where ctx is (a key that does nothing there is not); it may
 * set *label to another label ("lessons" for q in a lesson of the list). */
typedef bool (*keys_bar_fn)(const void *ctx, enum ui_action act, const char **label);
/* keys_bar_for with only the rows works (NULL: every row) lets through. */
int keys_bar_where(int width, bool utf8, unsigned screen, keys_bar_fn works, const void *ctx,
                   struct bar_item *items, int max);

/* The action under column x of the bar (a mouse click), or ACT_NONE. */
enum ui_action keys_bar_hit(const struct bar_item *items, int n, int x);

#endif
