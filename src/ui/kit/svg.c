/* svg.c - the screen as SVG and text (see svg.h). Cells are read back with win_wch and
 * getcchar, so the picture is exactly what the screen shows, colour pairs included. */
#include "ui/kit/svg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "core/text.h"
#include "core/util.h"
#include "ui/kit/term.h"

/* The first 16 match tests/screen/render_png.py, so an SVG and a PNG screenshot of the same
 * screen have the same colours. */
static const unsigned svg_base16[16] = {
    0x282a36, 0xe05858, 0x6abe6a, 0xd7ba5a, 0x568ce6, 0xc878dc, 0x50becd, 0xdcdfe4,
    0x6e727e, 0xff7878, 0x8ce18c, 0xf5d778, 0x78aaff, 0xe696f5, 0x78e1eb, 0xffffff,
};

unsigned svg_rgb(int c, unsigned deflt)
{
    if (c < 0 || c > 255) return deflt;
    if (c < 16) return svg_base16[c];
    if (c < 232) {
        static const unsigned lv[6] = {0, 95, 135, 175, 215, 255};
        int i = c - 16;
        return lv[i / 36] << 16 | lv[i / 6 % 6] << 8 | lv[i % 6];
    }
    unsigned g = 8 + 10 * (unsigned)(c - 232);
    return g << 16 | g << 8 | g;
}

/* One code point as UTF-8 (invalid ones as U+FFFD). */
static size_t svg_utf8(uint32_t cp, char *out)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

void svg_xml_escape(FILE *f, const char *s)
{
    text_xml_escape(f, s);
}

/* One cell as the picture needs it. */
struct svg_cell {
    char ch[8]; /* UTF-8, NUL-terminated; " " for blank */
    unsigned fg, bg;
    bool bold, underline;
};

/* The line-drawing set of A_ALTCHARSET cells, as Unicode. */
static uint32_t svg_acs(uint32_t c)
{
    switch (c) {
    case 'q':
        return 0x2500;
    case 'x':
        return 0x2502;
    case 'l':
        return 0x250C;
    case 'k':
        return 0x2510;
    case 'm':
        return 0x2514;
    case 'j':
        return 0x2518;
    case 't':
        return 0x251C;
    case 'u':
        return 0x2524;
    case 'n':
        return 0x253C;
    case 'a':
        return 0x2592;
    case '~':
        return 0x00B7;
    default:
        return c;
    }
}

/* The cell's character as UTF-8 in ch (struct svg_cell's), its attributes and pair. */
static void svg_cell_text(WINDOW *w, int y, int x, char *ch, size_t n, attr_t *attrs,
                          short *pair)
{
    cchar_t cc;
    wchar_t wch[CCHARW_MAX + 1] = {0};
    *attrs = 0;
    *pair = 0;
    if (mvwin_wch(w, y, x, &cc) == ERR || getcchar(&cc, wch, attrs, pair, NULL) == ERR) {
        wch[0] = L' ';
        *attrs = 0;
        *pair = 0;
    }
    size_t o = 0;
    for (int i = 0; i < CCHARW_MAX && wch[i] && o + 4 < n; i++) {
        uint32_t cp = (uint32_t)wch[i];
        if (*attrs & A_ALTCHARSET) cp = svg_acs(cp);
        if (cp < 0x20 || cp == 0x7f) cp = ' ';
        o += svg_utf8(cp, ch + o);
    }
    if (o == 0) ch[o++] = ' ';
    ch[o] = '\0';
}

static void svg_cell_at(WINDOW *w, int y, int x, struct svg_cell *c)
{
    attr_t attrs;
    short pair;
    memset(c, 0, sizeof *c);
    svg_cell_text(w, y, x, c->ch, sizeof c->ch, &attrs, &pair);
    if (pair == 0) pair = (short)PAIR_NUMBER(attrs);

    short f = -1, b = -1;
    if (pair > 0 && pair_content(pair, &f, &b) == ERR) f = b = -1;
    c->bold = (attrs & A_BOLD) != 0;
    /* As terminals (and render_png.py) do: bold brightens the eight basic colours. */
    if (c->bold && f >= 0 && f < 8) f = (short)(f + 8);
    c->fg = svg_rgb(f, SVG_DEFAULT_FG);
    c->bg = svg_rgb(b, SVG_DEFAULT_BG);
    if (attrs & A_REVERSE) {
        unsigned t = c->fg;
        c->fg = c->bg;
        c->bg = t;
    }
    if (attrs & A_DIM) { /* halfway to the background */
        unsigned r = ((c->fg >> 16 & 255) + (c->bg >> 16 & 255)) / 2;
        unsigned g = ((c->fg >> 8 & 255) + (c->bg >> 8 & 255)) / 2;
        unsigned bl = ((c->fg & 255) + (c->bg & 255)) / 2;
        c->fg = r << 16 | g << 8 | bl;
    }
    c->underline = (attrs & A_UNDERLINE) != 0;
}

/* Box drawing (U+2500..U+257F) as lines: a font's glyphs of it rarely fill the 20-pixel
 * cell, so drawn as text a box's sides broke between rows and its corners missed its edges.
 * The directions a cell's lines leave its centre: up, down, left, right bits; heavy and
 * rounded (a rounded corner: ╭ ╮ ╯ ╰). 0 for anything else. */
enum { BOX_U = 1, BOX_D = 2, BOX_L = 4, BOX_R = 8, BOX_HEAVY = 16, BOX_ROUND = 32 };

static unsigned svg_box(const char *ch)
{
    const unsigned char *u = (const unsigned char *)ch;
    if (u[0] != 0xe2 || (u[1] != 0x94 && u[1] != 0x95) || !u[2] || u[3]) return 0;
    uint32_t cp = 0x2500 + ((uint32_t)(u[1] - 0x94) << 6) + (uint32_t)(u[2] & 0x3f);
    switch (cp) {
    case 0x2500:
        return BOX_L | BOX_R; /* ─ */
    case 0x2501:
        return BOX_L | BOX_R | BOX_HEAVY; /* ━ */
    case 0x2502:
        return BOX_U | BOX_D; /* │ */
    case 0x2503:
        return BOX_U | BOX_D | BOX_HEAVY; /* ┃ */
    case 0x250C:
        return BOX_D | BOX_R; /* ┌ */
    case 0x2510:
        return BOX_D | BOX_L; /* ┐ */
    case 0x2514:
        return BOX_U | BOX_R; /* └ */
    case 0x2518:
        return BOX_U | BOX_L; /* ┘ */
    case 0x251C:
        return BOX_U | BOX_D | BOX_R; /* ├ */
    case 0x2524:
        return BOX_U | BOX_D | BOX_L; /* ┤ */
    case 0x252C:
        return BOX_D | BOX_L | BOX_R; /* ┬ */
    case 0x2534:
        return BOX_U | BOX_L | BOX_R; /* ┴ */
    case 0x253C:
        return BOX_U | BOX_D | BOX_L | BOX_R; /* ┼ */
    case 0x256D:
        return BOX_D | BOX_R | BOX_ROUND; /* ╭ */
    case 0x256E:
        return BOX_D | BOX_L | BOX_ROUND; /* ╮ */
    case 0x256F:
        return BOX_U | BOX_L | BOX_ROUND; /* ╯ */
    case 0x2570:
        return BOX_U | BOX_R | BOX_ROUND; /* ╰ */
    case 0x2574:
        return BOX_L; /* ╴ */
    case 0x2576:
        return BOX_R; /* ╶ */
    default:
        return 0;
    }
}

/* One box-drawing cell at column x, row y, as a path of its lines from the centre. */
static void svg_box_cell(FILE *f, int x, int y, const char *ch, unsigned box, unsigned fg)
{
    double x0 = x * SVG_CELL_W, y0 = y * SVG_CELL_H, cx = x0 + SVG_CELL_W / 2.0,
           cy = y0 + SVG_CELL_H / 2.0, r = SVG_CELL_W / 2.0;
    /* data-ch: the cell's character, for a reader of the picture (tests/tools/svg_text.py) */
    fprintf(f,
            "<path data-col=\"%d\" data-row=\"%d\" data-ch=\"%s\" fill=\"none\" "
            "stroke=\"#%06x\" stroke-width=\"%s\" d=\"",
            x, y, ch, fg, box & BOX_HEAVY ? "2.6" : "1.3");
    if (box & BOX_ROUND) { /* the two ends, joined by a quarter turn through the centre */
        double ex = box & BOX_L ? x0 : x0 + SVG_CELL_W, ey = box & BOX_U ? y0 : y0 + SVG_CELL_H;
        double sx = box & BOX_L ? cx - r : cx + r, sy = box & BOX_U ? cy - r : cy + r;
        fprintf(f, "M%g %gL%g %gQ%g %g %g %gL%g %g", cx, ey, cx, sy, cx, cy, sx, cy, ex, cy);
    } else {
        if (box & BOX_U) fprintf(f, "M%g %gL%g %g", cx, y0, cx, cy);
        if (box & BOX_D) fprintf(f, "M%g %gL%g %g", cx, cy, cx, y0 + SVG_CELL_H);
        if (box & BOX_L) fprintf(f, "M%g %gL%g %g", x0, cy, cx, cy);
        if (box & BOX_R) fprintf(f, "M%g %gL%g %g", cx, cy, x0 + SVG_CELL_W, cy);
    }
    fputs("\"/>\n", f);
}

static bool svg_same_style(const struct svg_cell *a, const struct svg_cell *b)
{
    return a->fg == b->fg && a->bold == b->bold && a->underline == b->underline;
}

void svg_write(WINDOW *w, FILE *f, const char *title, bool standalone)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    int W = cols * SVG_CELL_W, H = rows * SVG_CELL_H;
    if (standalone) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    /* Inline in HTML5 an <svg> needs no namespace (and the handout names no URL at all). */
    fprintf(f,
            "<svg%s width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, "
            "monospace\" font-size=\"%d\">\n",
            standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", W, H, W, H, SVG_FONT_PX);
    if (title) {
        fputs("<title>", f);
        svg_xml_escape(f, title);
        fputs("</title>\n", f);
    }
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#%06x\"/>\n", W, H, SVG_DEFAULT_BG);
    struct svg_cell *row = xcalloc((size_t)cols, sizeof *row);
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++)
            svg_cell_at(w, y, x, &row[x]);
        /* Backgrounds: runs of one colour other than the default. */
        for (int x = 0; x < cols;) {
            int e = x + 1;
            while (e < cols && row[e].bg == row[x].bg)
                e++;
            if (row[x].bg != SVG_DEFAULT_BG)
                fprintf(f,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"/>\n",
                        x * SVG_CELL_W, y * SVG_CELL_H, (e - x) * SVG_CELL_W, SVG_CELL_H,
                        row[x].bg);
            x = e;
        }
        /* Text: runs of one style, without leading/trailing blanks. */
        for (int x = 0; x < cols;) {
            if (strcmp(row[x].ch, " ") == 0) {
                x++;
                continue;
            }
            unsigned box = svg_box(row[x].ch);
            if (box) {
                svg_box_cell(f, x, y, row[x].ch, box, row[x].fg);
                x++;
                continue;
            }
            int e = x + 1;
            while (e < cols && svg_same_style(&row[e], &row[x]) && !svg_box(row[e].ch))
                e++;
            while (e > x + 1 && strcmp(row[e - 1].ch, " ") == 0)
                e--;
            /* The baseline sits about a quarter of the cell above its bottom edge. */
            fprintf(
                f,
                "<text x=\"%d\" y=\"%d\" textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\" "
                "xml:space=\"preserve\" fill=\"#%06x\"%s%s>",
                x * SVG_CELL_W, y * SVG_CELL_H + SVG_CELL_H * 3 / 4 + 1, (e - x) * SVG_CELL_W,
                row[x].fg, row[x].bold ? " font-weight=\"bold\"" : "",
                row[x].underline ? " text-decoration=\"underline\"" : "");
            for (int i = x; i < e; i++)
                svg_xml_escape(f, row[i].ch);
            fputs("</text>\n", f);
            x = e;
        }
    }
    free(row);
    fputs("</svg>\n", f);
}

void svg_write_text(WINDOW *w, FILE *f)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    char ch[sizeof(struct svg_cell){0}.ch];
    char *line = xmalloc((size_t)cols * sizeof ch + 2);
    for (int y = 0; y < rows; y++) {
        size_t len = 0, keep = 0;
        for (int x = 0; x < cols; x++) {
            attr_t attrs;
            short pair;
            svg_cell_text(w, y, x, ch, sizeof ch, &attrs, &pair);
            size_t k = strlen(ch);
            memcpy(line + len, ch, k);
            len += k;
            if (strcmp(ch, " ") != 0) keep = len;
        }
        line[keep++] = '\n';
        fwrite(line, 1, keep, f);
    }
    free(line);
}

/* Create path exclusively (never following or replacing anything). */
static FILE *svg_create(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) close(fd);
    return f;
}

int svg_export_files(WINDOW *w, const char *screen, char *name, size_t n, char *err,
                     size_t errlen)
{
    const char *dir = getenv("COLLVIZ_EXPORT_DIR");
    if (!dir || !dir[0]) dir = ".";
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char base[512], svgp[540], txtp[540];
    for (int i = 1; i < 100; i++) {
        if (i == 1)
            snprintf(base, sizeof base, "%s/collviz-%s-%s", dir, screen, stamp);
        else
            snprintf(base, sizeof base, "%s/collviz-%s-%s-%d", dir, screen, stamp, i);
        snprintf(svgp, sizeof svgp, "%s.svg", base);
        snprintf(txtp, sizeof txtp, "%s.txt", base);
        FILE *fs = svg_create(svgp);
        if (!fs) {
            if (errno == EEXIST) continue;
            return cv_err(err, errlen, CV_EINVAL, "export: cannot create %s: %s", svgp,
                          strerror(errno));
        }
        FILE *ft = svg_create(txtp);
        if (!ft) {
            int e = errno;
            fclose(fs);
            unlink(svgp);
            if (e == EEXIST) continue;
            return cv_err(err, errlen, CV_EINVAL, "export: cannot create %s: %s", txtp,
                          strerror(e));
        }
        char title[200];
        snprintf(title, sizeof title, "collviz: %s screen", screen);
        svg_write(w, fs, title, true);
        svg_write_text(w, ft);
        bool bad = ferror(fs) || ferror(ft);
        bad |= fclose(fs) != 0;
        bad |= fclose(ft) != 0;
        if (bad) {
            unlink(svgp);
            unlink(txtp);
            return cv_err(err, errlen, CV_EINVAL, "export: writing %s failed", svgp);
        }
        snprintf(name, n, "%s", svgp);
        return CV_OK;
    }
    return cv_err(err, errlen, CV_EINVAL, "export: too many exports named %s", base);
}

int svg_offscreen_open(struct svg_offscreen *o, int cols, int rows, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->out = fopen("/dev/null", "w");
    /* cppcheck-suppress incompatibleFileOpen ; /dev/null, read and written on purpose */
    o->in = fopen("/dev/null", "r");
    if (!o->out || !o->in) {
        if (o->out) fclose(o->out);
        if (o->in) fclose(o->in);
        return cv_err(err, errlen, CV_EUNAVAIL, "offscreen: cannot open /dev/null");
    }
    o->prev = set_term(NULL); /* the current screen (NULL when none); restored on close */
    if (o->prev) set_term(o->prev);
    static const char *const types[] = {"xterm-256color", "xterm", "ansi"};
    for (size_t i = 0; i < ARRAY_LEN(types) && !o->scr; i++)
        o->scr = newterm(types[i], o->out, o->in);
    if (!o->scr) {
        fclose(o->out);
        fclose(o->in);
        return cv_err(err, errlen, CV_EUNAVAIL,
                      "offscreen: no terminfo for xterm-256color, xterm or ansi");
    }
    set_term(o->scr);
    resizeterm(rows, cols);
    o->unseen_prev = term_set_unseen(o->scr);
    return CV_OK;
}

void svg_offscreen_close(struct svg_offscreen *o)
{
    if (!o->scr) return;
    term_set_unseen(o->unseen_prev);
    endwin();
    delscreen(o->scr);
    if (o->prev) set_term(o->prev);
    fclose(o->out);
    fclose(o->in);
    memset(o, 0, sizeof *o);
}
