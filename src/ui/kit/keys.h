/* keys.h - the one table of actions: each row names an action, the keys bound to it, its
 * help text and (optionally) its entry in the bottom bar. The key dispatch, the `?` help
 * overlay and the bar are all generated from UI_KEY_TABLE, so they cannot drift apart
 * (tig's request.h habit). Mouse clicks on the bar become the same actions. */
#ifndef COLLVIZ_UI_KEYS_H
#define COLLVIZ_UI_KEYS_H

#include <stdbool.h>

/* X(id, screens, bar keys text or NULL, bar label or NULL, help text, key codes...).
 * "screens" says on which screens the row appears in the bar (KEYS_ON_*); every key works
 * everywhere (an action that does not apply says so). "bar keys text" is what the bar
 * prints before the label; "<-" and "->" become arrows in UTF-8 mode; NULL means the name
 * of the first key. Key codes are ncurses codes (KEY_*), which is why the table is
 * expanded in keys.c, where <curses.h> is included. */
#define KEYS_ON_COLL 1u /* the collectives screen */
#define KEYS_ON_PAR 2u  /* the parallelism screen */
#define KEYS_ON_ALL (KEYS_ON_COLL | KEYS_ON_PAR)
#define UI_KEY_TABLE(X)                                                                        \
    X(COLL_1, KEYS_ON_COLL, NULL, NULL, "broadcast", '1')                                      \
    X(COLL_2, KEYS_ON_COLL, NULL, NULL, "scatter", '2')                                        \
    X(COLL_3, KEYS_ON_COLL, NULL, NULL, "gather", '3')                                         \
    X(COLL_4, KEYS_ON_COLL, NULL, NULL, "reduce", '4')                                         \
    X(COLL_5, KEYS_ON_COLL, NULL, NULL, "all-gather", '5')                                     \
    X(COLL_6, KEYS_ON_COLL, NULL, NULL, "reduce-scatter", '6')                                 \
    X(COLL_7, KEYS_ON_COLL, NULL, NULL, "all-reduce", '7')                                     \
    X(COLL_8, KEYS_ON_COLL, NULL, NULL, "all-to-all", '8')                                     \
    X(COLL_NEXT, KEYS_ON_COLL, "1-8", "coll", "next collective", '\t')                         \
    X(PARALLEL, KEYS_ON_ALL, NULL, "parallel", "parallelism screen on/off", 'p')               \
    X(SCHEME, KEYS_ON_PAR, NULL, "scheme", "next scheme: ddp, tp, pp", 'n')                    \
    X(NEXT, KEYS_ON_ALL, "<- ->", "step", "next step", KEY_RIGHT, 'l', KEY_NPAGE)              \
    X(PREV, KEYS_ON_ALL, NULL, NULL, "previous step", KEY_LEFT, 'h', KEY_PPAGE)                \
    X(FIRST, KEYS_ON_ALL, NULL, NULL, "first step", KEY_HOME)                                  \
    X(LAST, KEYS_ON_ALL, NULL, NULL, "last step", KEY_END)                                     \
    X(PLAY, KEYS_ON_ALL, NULL, "play", "play / pause (one step a second)", ' ')                \
    X(ALGO, KEYS_ON_COLL, NULL, "algo", "next algorithm", 'a')                                 \
    X(RANKS_UP, KEYS_ON_ALL, "+/-", "ranks", "more ranks", '+', '=')                           \
    X(RANKS_DOWN, KEYS_ON_ALL, NULL, NULL, "fewer ranks", '-', '_')                            \
    X(SCHEDULE, KEYS_ON_PAR, NULL, "sched", "pp schedule: GPipe / 1F1B", 'g')                  \
    X(OVERLAP, KEYS_ON_PAR, NULL, "overlap", "ddp: all-reduce during backward", 'O')           \
    X(OP, KEYS_ON_COLL, NULL, "op", "next reduction op", 'o')                                  \
    X(ROOT, KEYS_ON_COLL, NULL, "root", "next root (rooted collectives)", 'r')                 \
    X(COUNT_UP, KEYS_ON_COLL, "c/C", "count", "more elements", 'c')                            \
    X(COUNT_DOWN, KEYS_ON_COLL, NULL, NULL, "fewer elements", 'C')                             \
    X(INIT, KEYS_ON_COLL, NULL, "input", "next input pattern", 'i')                            \
    X(VIEW, KEYS_ON_COLL, NULL, NULL, "view: chunk, slices 2 4 8, 4x2 channels", 'v')          \
    X(MEASURE, KEYS_ON_ALL, NULL, "measure", "measure now / train again", 'm')                 \
    X(SWEEP, KEYS_ON_COLL, NULL, "sweep", "sweep sizes (busbw vs size)", 's')                  \
    X(CANCEL, KEYS_ON_ALL, NULL, NULL, "cancel measurement/training", 'x')                     \
    X(SIZE_DOWN, KEYS_ON_COLL, NULL, NULL, "halve measurement size", '[')                      \
    X(SIZE_UP, KEYS_ON_COLL, "[/]", "size", "double measurement size", ']')                    \
    X(BACKENDS, KEYS_ON_ALL, NULL, "backends", "backends, GPUs, NCCL", 'b')                    \
    X(HELP, KEYS_ON_ALL, NULL, "help", "help on/off", '?', KEY_F(1))                           \
    X(CLOSE, KEYS_ON_ALL, NULL, NULL, "close help / backends", 27)                             \
    X(QUIT, KEYS_ON_ALL, NULL, "quit", "quit", 'q')

enum ui_action {
    ACT_NONE = -1,
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

/* The table, in UI_KEY_TABLE order (ACT_COUNT rows). */
const struct key_row *keys_table(void);

/* The action bound to ncurses key code ch, or ACT_NONE. */
enum ui_action keys_action(int ch);

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

/* The action under column x of the bar (a mouse click), or ACT_NONE. */
enum ui_action keys_bar_hit(const struct bar_item *items, int n, int x);

#endif
