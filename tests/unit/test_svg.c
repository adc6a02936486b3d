/* test_svg.c - the screen as SVG and text: colours resolved to RGB, runs of one style become
 * one <text>, backgrounds become rectangles, everything XML-escaped; exported files are
 * never overwritten. Drawn on an off-screen curses screen. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "ui/kit/svg.h"

static void test_rgb_escape(void **state)
{
    (void)state;
    assert_int_equal(svg_rgb(1, 0), 0xe05858);
    assert_int_equal(svg_rgb(16, 0), 0x000000);
    assert_int_equal(svg_rgb(21, 0), 0x0000ff);
    assert_int_equal(svg_rgb(208, 0), 0xff8700);
    assert_int_equal(svg_rgb(231, 0), 0xffffff);
    assert_int_equal(svg_rgb(232, 0), 0x080808);
    assert_int_equal(svg_rgb(-1, 0x123456), 0x123456);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    svg_xml_escape(f, "a<b>&\"'\x01z");
    fclose(f);
    assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;&#39; z");
    free(buf);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* A 20x3 screen: plain text with characters to escape, a bold red-on-blue run, a reversed
 * cell, a UTF-8 arrow. */
static void draw_sample(void)
{
    start_color();
    use_default_colors();
    init_pair(1, COLOR_RED, COLOR_BLUE);
    mvaddstr(0, 0, "hi <&> ok");
    attrset(COLOR_PAIR(1) | A_BOLD);
    mvaddstr(1, 2, "AB");
    attrset(A_NORMAL);
    mvaddstr(1, 5, "\u2500\u25b6 x");
    attrset(A_REVERSE);
    mvaddstr(2, 0, "r");
    attrset(A_NORMAL);
}

static void test_svg_cells(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C.UTF-8");
    struct svg_offscreen o;
    char err[200];
    assert_int_equal(svg_offscreen_open(&o, 20, 3, err, sizeof err), CV_OK);
    draw_sample();
    char *svg = NULL, *txt = NULL;
    size_t len = 0, tlen = 0;
    FILE *f = open_memstream(&svg, &len);
    svg_write(stdscr, f, "a <title>", true);
    fclose(f);
    f = open_memstream(&txt, &tlen);
    svg_write_text(stdscr, f);
    fclose(f);
    svg_offscreen_close(&o);

    assert_string_equal(txt, "hi <&> ok\n  AB \u2500\u25b6 x\nr\n");
    assert_non_null(strstr(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    assert_non_null(strstr(svg, "width=\"200\" height=\"60\" viewBox=\"0 0 200 60\""));
    assert_non_null(strstr(svg, "<title>a &lt;title&gt;</title>"));
    assert_non_null(strstr(svg, "<rect width=\"200\" height=\"60\" fill=\"#181a21\"/>"));
    /* Row 0: one run, spaces inside it kept, escaped. */
    assert_non_null(strstr(svg, "<text x=\"0\" y=\"16\" textLength=\"90\" "
                                "lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\" "
                                "fill=\"#dcdfe4\">hi &lt;&amp;&gt; ok</text>"));
    /* Row 1: blue background under AB, bold red brightened as terminals do. */
    assert_non_null(strstr(svg, "<rect x=\"20\" y=\"20\" width=\"20\" height=\"20\" "
                                "fill=\"#568ce6\"/>"));
    assert_non_null(strstr(svg, "<text x=\"20\" y=\"36\" textLength=\"20\" "
                                "lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\" "
                                "fill=\"#ff7878\" font-weight=\"bold\">AB</text>"));
    /* a box-drawing cell is drawn as lines from its centre to its edges (a font's glyph
     * rarely fills the cell: box sides broke between rows); the rest of the run is text */
    assert_non_null(strstr(svg, "<path data-col=\"5\" data-row=\"1\" data-ch=\"\u2500\" "
                                "fill=\"none\" stroke=\"#dcdfe4\" stroke-width=\"1.3\" "
                                "d=\"M50 30L55 30M55 30L60 30\"/>"));
    assert_non_null(strstr(svg, "<text x=\"60\" y=\"36\" textLength=\"30\" "
                                "lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\" "
                                "fill=\"#dcdfe4\">\u25b6 x</text>"));
    assert_null(strstr(svg, "\u2500</text>"));
    /* Row 2: reverse video swaps the default colours. */
    assert_non_null(strstr(svg, "<rect x=\"0\" y=\"40\" width=\"10\" height=\"20\" "
                                "fill=\"#dcdfe4\"/>"));
    assert_non_null(strstr(svg, "fill=\"#181a21\">r</text>"));
    assert_int_equal(count(svg, "<text"), 4);
    assert_int_equal(count(svg, "<rect"), 3);
    assert_non_null(strstr(svg, "</svg>\n"));
    free(svg);
    free(txt);
}

static void test_export_files(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C.UTF-8");
    char dir[] = "/tmp/test_svg_XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("COLLVIZ_EXPORT_DIR", dir, 1);
    struct svg_offscreen o;
    char err[300], n1[600], n2[600];
    assert_int_equal(svg_offscreen_open(&o, 20, 3, err, sizeof err), CV_OK);
    draw_sample();
    assert_int_equal(svg_export_files(stdscr, "collectives", n1, sizeof n1, err, sizeof err),
                     CV_OK);
    assert_int_equal(svg_export_files(stdscr, "collectives", n2, sizeof n2, err, sizeof err),
                     CV_OK);
    char prefix[100];
    snprintf(prefix, sizeof prefix, "%s/collviz-collectives-", dir);
    assert_int_equal(strncmp(n1, prefix, strlen(prefix)), 0);
    assert_string_not_equal(n1, n2); /* never overwritten */
    assert_int_equal(access(n1, R_OK), 0);
    assert_int_equal(access(n2, R_OK), 0);
    char txt[620];
    snprintf(txt, sizeof txt, "%.*s.txt", (int)strlen(n1) - 4, n1);
    FILE *f = fopen(txt, "r");
    assert_non_null(f);
    char got[200] = "";
    size_t k = fread(got, 1, sizeof got - 1, f);
    got[k] = '\0';
    fclose(f);
    assert_string_equal(got, "hi <&> ok\n  AB \u2500\u25b6 x\nr\n");

    setenv("COLLVIZ_EXPORT_DIR", "/nonexistent/dir", 1);
    assert_int_equal(svg_export_files(stdscr, "x", n1, sizeof n1, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "cannot create /nonexistent/dir/collviz-x-"));
    svg_offscreen_close(&o);
    unsetenv("COLLVIZ_EXPORT_DIR");
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rgb_escape),
        cmocka_unit_test(test_svg_cells),
        cmocka_unit_test(test_export_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
