/* ui.h - the interactive program (ncurses). Runs on the main thread; owns the terminal.
 * Its options are read in cli/visualizer.c, which fills struct ui_opts and starts it. */
#ifndef COLLVIZ_UI_UI_H
#define COLLVIZ_UI_UI_H

#include <stdbool.h>

struct scene;

struct ui_opts {
    const char *backend;
    bool no_color, ascii, no_measure;
    const char *mpi;     /* --mpi "LAUNCH": start `LAUNCH collviz serve` and use it */
    const char *connect; /* --connect ADDRESS: a job started elsewhere */
    const char *token;   /* --token: what a TCP job printed */
    bool backend_set;
#define UI_MAX_LOGS 64
    const char *logs[UI_MAX_LOGS]; /* --nccl-log FILE...: the topology screen's record */
    int nlogs;
    char words[2048]; /* the scene options' words, applied once the parse is done */
};
/* The visualizer from the scene `start` (the options' scene; --nccl-log's files read first,
 * onto the topology screen). Returns the exit status. */
int ui_start(const struct ui_opts *o, struct scene *start);

/* The interactive lesson player: the list of lessons (target NULL), or one lesson at its
 * saved slide. Returns the exit status. */
int ui_lesson_start(const struct ui_opts *o, const char *target);

#endif
