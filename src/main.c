/* main.c - dispatch: `collviz` alone starts the interactive visualizer; a first argument
 * that names a subcommand runs it non-interactively. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/util.h"
#include "device/mlpmath.h"
#include "version.h"

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
};

static const struct subcommand subcommands[] = {
    {"trace", cli_trace_main, "print a collective's plan step by step, every rank's buffer"},
    {"bench", cli_bench_main, "measure collectives on a backend (nccl-tests columns)"},
    {"train", cli_train_main, "train the lecture's MLP: single, ddp, tp, pp, zero1-3 or moe"},
    {"lesson", cli_lesson_main,
     "lessons: the player; check, show, variant, grade, list, export"},
    {"svg", cli_svg_main, "draw a scene off-screen as SVG or text (pictures for slides)"},
    {"notes", cli_notes_main, "speaker notes of a running --present, on a second terminal"},
    {"model", cli_model_main, "the alpha-beta cost model of a collective; the tiers; a fit"},
    {"nccl", cli_nccl_main, "read a cluster's NCCL INFO logs and nccl-tests output"},
    {"serve", cli_serve_main, "run the measurements for a UI that connects (--connect, --mpi)"},
};

/* The visualizer's own options come from cli_visualizer_main's --help; this adds the
 * subcommands. */
static void usage_subcommands(FILE *f)
{
    fprintf(f, "\nusage: collviz SUBCOMMAND [options]   (SUBCOMMAND --help for its options)\n"
               "Subcommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(f, "  %-7s %s\n", subcommands[i].name, subcommands[i].help);
    fprintf(
        f,
        "  -V, --version  print the version\n"
        "\nusage: collviz --present PATH [options]   (a lesson file or folder, full screen;\n"
        "       --present x --help for its options and keys)\n");
}

int main(int argc, char **argv)
{
    mlp_blas_no_pool(argv);
    if (argc > 1 && argv[1][0] != '-') {
        for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
            if (strcmp(argv[1], subcommands[i].name) == 0)
                return subcommands[i].run(argc - 1, argv + 1);
        cv_eprintf("collviz: unknown subcommand '%s' (try --help)\n", argv[1]);
        return 2;
    }
    if (argc > 1 && argv[1][0] == '-' && cli_present_wanted(argc, argv))
        return cli_present_main(argc, argv);
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        int rc = cli_visualizer_main(argc, argv);
        usage_subcommands(stdout);
        return rc;
    }
    if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        printf("collviz %s\n", COLLVIZ_VERSION);
        return 0;
    }
    return cli_visualizer_main(argc, argv);
}
