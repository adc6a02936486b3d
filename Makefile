# collviz - plain Makefile. `make` builds build/collviz; `make run`, `make test`,
# `make test-loaded`, `make bench`, `make screenshots`, `make gpu-test`,
# `make install PREFIX=...`.
# `make run` and `make test` first run `make deps` (tools/deps.sh: installs the missing
# Debian packages, or says which command to run), then build in a fresh make so pkg-config
# sees what was just installed.
#
# Backends: the CPU ranks are always built. The NCCL backend and kernels/ are built when
# $(NVCC) and $(CUDA_HOME)/include/nccl.h exist (HAVE_NCCL); `make HAVE_NCCL=` forces it off.
# The build prints one line saying which backends it built.

CC        ?= cc
CFLAGS    ?= -O2 -g
PREFIX    ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
NVCC_GENCODE ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                -gencode arch=compute_90,code=compute_90
BUILD     ?= build

PKG_CONFIG ?= pkg-config
NCURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
NCURSES_LIBS   := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
BLAS_CFLAGS    := $(shell $(PKG_CONFIG) --cflags openblas 2>/dev/null)
BLAS_LIBS      := $(shell $(PKG_CONFIG) --libs openblas 2>/dev/null)
HAVE_OPENBLAS  ?= $(if $(BLAS_LIBS),1,)
# cJSON: the CLI's JSON writer (src/cli/json.c).
CJSON_CFLAGS   := $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
# (its -lcjson is in LESSON_LIBS below)
HAVE_NCCL      ?= $(shell test -x $(NVCC) && test -f $(CUDA_HOME)/include/nccl.h && echo 1)
# MPI (the mpi backend, src/backend/mpi): built when mpicc answers --showme (Open MPI) or
# pkg-config knows ompi-c, like nccl-tests' MPI=1; `make HAVE_MPI=` forces it off.
MPICC          ?= mpicc
MPI_CFLAGS     := $(shell $(MPICC) --showme:compile 2>/dev/null || $(PKG_CONFIG) --cflags ompi-c 2>/dev/null)
MPI_LIBS       := $(shell $(MPICC) --showme:link 2>/dev/null || $(PKG_CONFIG) --libs ompi-c 2>/dev/null)
HAVE_MPI       ?= $(if $(MPI_LIBS),1,)
# Lessons (src/lesson): md4c reads Markdown, muParser evaluates answer formulas (C++ inside,
# hence -lstdc++), cJSON writes `collviz lesson ... --format json` and `collviz model`'s
# JSON. Required.
LESSON_CFLAGS  := $(shell $(PKG_CONFIG) --cflags md4c muparser 2>/dev/null)
LESSON_LIBS    := $(shell $(PKG_CONFIG) --libs md4c 2>/dev/null || echo -lmd4c) \
                  $(shell $(PKG_CONFIG) --libs muparser 2>/dev/null || echo -lmuparser) \
                  $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson) -lstdc++

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# WERROR=1 (CI, .ci/run): every warning fails the build.
WARN     += $(if $(filter 1,$(WERROR)),-Werror)
CPPFLAGS += -D_GNU_SOURCE -Isrc -I. $(NCURSES_CFLAGS) $(LESSON_CFLAGS) $(CJSON_CFLAGS)
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -pthread -MMD -MP
LDLIBS   := $(NCURSES_LIBS) $(LESSON_LIBS) -lpthread -lm

SRC_LIB := $(wildcard src/core/*.c) $(wildcard src/sys/*.c) $(wildcard src/scene/*.c) src/backend/backend.c src/backend/run.c src/backend/launcher.c $(wildcard src/backend/cpu/*.c) \
           src/backend/nccl/nccl_links.c $(wildcard src/records/*.c) \
           $(wildcard src/worker/*.c) $(wildcard src/ui/*.c) $(wildcard src/ui/*/*.c) \
           $(wildcard src/ui/screens/*/*.c) $(wildcard src/cli/*.c) \
           $(wildcard src/device/*.c) $(wildcard src/parallel/*.c) $(wildcard src/lesson/*.c) \
           $(wildcard src/lesson/types/*.c)
# Presenter mode, speaker notes and handouts (src/present); md4c-html renders the handout's
# narration.
SRC_LIB += $(wildcard src/present/*.c) $(wildcard src/handout/*.c)
LDLIBS  += -lmd4c-html
# cairo + pango: the handouts' paper pictures and PDF (src/handout/). Required.
PRINT_CFLAGS := $(shell $(PKG_CONFIG) --cflags pangocairo cairo-pdf cairo-svg fontconfig 2>/dev/null)
PRINT_LIBS   := $(shell $(PKG_CONFIG) --libs pangocairo cairo-pdf cairo-svg fontconfig 2>/dev/null || \
                  echo -lpangocairo-1.0 -lpango-1.0 -lgobject-2.0 -lglib-2.0 -lcairo -lfontconfig)
CPPFLAGS += $(PRINT_CFLAGS)
LDLIBS   += $(PRINT_LIBS)
CU_SRC  :=
ifeq ($(HAVE_OPENBLAS),1)
  CPPFLAGS += -DHAVE_OPENBLAS $(BLAS_CFLAGS)
  LDLIBS   += $(BLAS_LIBS)
endif
# FAKEGPU=1 (tests only, see tests/fakegpu/fakegpu.h): the GPU host code built against the
# toolkit's headers but linked with a host emulation of CUDA, NCCL and cuBLAS instead of
# the libraries, so CI runs it without a GPU. Never installed, never shown as a GPU: it is
# built only into a folder with a "fakegpu" component (BUILD defaults to build/fakegpu then;
# any other BUILD is refused), and `make install` refuses a binary that carries it.
FAKEGPU_OK := $(shell test -f $(CUDA_HOME)/include/nccl.h && \
                test -f $(CUDA_HOME)/include/cublas_v2.h && echo 1)
ifeq ($(FAKEGPU),1)
  ifeq ($(origin BUILD),file)
    BUILD := build/fakegpu
  endif
  ifeq ($(filter fakegpu,$(subst /, ,$(BUILD))),)
    $(error FAKEGPU=1 builds the test-only GPU emulation, which lives only in a folder named fakegpu: BUILD=$(BUILD) refused (use BUILD=build/fakegpu))
  endif
  HAVE_NCCL := 1
endif
ifeq ($(HAVE_NCCL),1)
  CPPFLAGS += -DHAVE_NCCL -isystem $(CUDA_HOME)/include
  # (nccl_links.c, NCCL's log parser, uses no NCCL: it is in every build, above)
  SRC_LIB  += $(filter-out src/backend/nccl/nccl_links.c,$(wildcard src/backend/nccl/*.c))
  ifeq ($(FAKEGPU),1)
    SRC_LIB  += $(wildcard tests/fakegpu/*.c)
    BACKENDS := cpu nccl (on fakegpu, the host emulation: not a GPU)
  else
    CU_SRC   := $(wildcard kernels/*.cu)
    # cuBLAS is opened when a GPU device is made (src/device/dev_cuda.c), not linked:
    # loading it costs every start of the program half a second of CPU.
    CPPFLAGS += -DCV_CUBLAS_DLOPEN
    LDLIBS   += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnccl -lcudart -ldl -lstdc++
    BACKENDS := cpu nccl
  endif
else
  BACKENDS := cpu
endif
ifeq ($(HAVE_MPI),1)
  CPPFLAGS += -DHAVE_MPI $(MPI_CFLAGS)
  SRC_LIB  += $(wildcard src/backend/mpi/*.c)
  LDLIBS   += $(MPI_LIBS)
  BACKENDS += mpi
endif

OBJ_LIB := $(SRC_LIB:%.c=$(BUILD)/obj/%.o) $(CU_SRC:%.cu=$(BUILD)/obj/%.o)
LIB     := $(BUILD)/libcollviz.a
BIN     := $(BUILD)/collviz
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# GPU checks (tests/gpu/run.sh): test programs that link the library but not cmocka.
GPU_TEST_BIN := $(patsubst tests/gpu/%.c,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/*.c))

# The configuration this build folder was built with. $(CONFIG) is rewritten only when the
# text changes, and every object and program depends on it, so `make HAVE_NCCL=` after a
# NCCL build (or a new CFLAGS) recompiles and relinks: the "built backends" line printed
# below is then always what the binary holds.
CONFIG := $(BUILD)/config.mk
define CONFIG_TEXT
# collviz build configuration (written by the Makefile; do not edit)
CC = $(CC)
CFLAGS = $(CFLAGS)
CPPFLAGS = $(CPPFLAGS)
LDLIBS = $(LDLIBS)
NVCC = $(if $(CU_SRC),$(NVCC) $(NVCC_GENCODE))
WARN = $(WARN)
HAVE_NCCL = $(HAVE_NCCL)
HAVE_MPI = $(HAVE_MPI)
HAVE_OPENBLAS = $(HAVE_OPENBLAS)
FAKEGPU = $(FAKEGPU)
BACKENDS = $(BACKENDS)
endef
ifneq ($(filter-out clean deps format format-check,$(or $(MAKECMDGOALS),all)),)
  ifneq ($(file <$(CONFIG)),$(CONFIG_TEXT))
    $(shell mkdir -p $(BUILD))
    $(file >$(CONFIG),$(CONFIG_TEXT))
  endif
endif

# Quiet by default, as kernel and git builds are: one "CC src/x.c" line per file (with the
# build folder in brackets when it is not build/); `make V=1` prints the full commands.
# Sub-makes (the ASan and fakegpu builds of `make test`) inherit V.
ifeq ($(V),1)
  Q   :=
  say := @:
else
  Q   := @
  say := @printf '  %-5s %s\n'
endif
BTAG := $(if $(filter build,$(BUILD)),,[$(BUILD)] )

.PHONY: compile_commands.json lint test-build-start test-build-asan test-build-fakegpu test-build-fuzz format-check all deps run run-built test test-built test-loaded unit-test asan-build fakegpu-build bench screenshots gpu-test install clean format backends \
        fuzz fuzz-build fuzz-programs man docs
# The man page: docs/collviz.1.scd rendered by scdoc (in tools/deps.sh's list). Without
# scdoc the program still builds; `make man` then says what is missing.
SCDOC ?= scdoc
MAN   := $(if $(shell command -v $(SCDOC) 2>/dev/null),$(BUILD)/collviz.1)
all: $(BIN) backends $(MAN)

man: $(BUILD)/collviz.1
$(BUILD)/collviz.1: docs/collviz.1.scd
	@mkdir -p $(dir $@)
	@command -v $(SCDOC) >/dev/null || { echo "collviz: scdoc is missing (make deps installs it): no man page" >&2; exit 2; }
	$(say) SCDOC "$(BTAG)$@"
	$(Q)$(SCDOC) <$< >$@

backends:
	@echo "collviz: built backends: $(BACKENDS)$(if $(HAVE_NCCL),, (nccl skipped: HAVE_NCCL off; it needs $(NVCC) and $(CUDA_HOME)/include/nccl.h))$(if $(HAVE_MPI),, (mpi skipped: HAVE_MPI off; it needs $(MPICC) or pkg-config ompi-c: libopenmpi-dev))$(if $(HAVE_OPENBLAS),, (no OpenBLAS: training uses plain C matmul))"

$(CONFIG):
	@mkdir -p $(dir $@)
	$(file >$(CONFIG),$(CONFIG_TEXT))

# Where the program looks for the lessons (lesson_default_dir): the source tree, PREFIX.
$(BUILD)/obj/src/lesson/lesson.o: CPPFLAGS += -DCOLLVIZ_SOURCE_DIR='"$(CURDIR)"' \
    -DCOLLVIZ_SHARE_DIR='"$(PREFIX)/share/collviz"'

$(BUILD)/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(dir $@)
	$(say) CC "$(BTAG)$<"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(CONFIG)
	@mkdir -p $(dir $@)
	$(say) NVCC "$(BTAG)$<"
	$(Q)$(NVCC) -O2 $(NVCC_GENCODE) -Isrc -I. -MMD -MP -c $< -o $@

$(LIB): $(OBJ_LIB)
	@rm -f $@
	$(say) AR "$@"
	$(Q)ar rcs $@ $^

$(BIN): $(BUILD)/obj/src/main.o $(LIB) $(CONFIG)
	$(say) LD "$@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(BUILD)/obj/src/main.o $(LIB) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(CONFIG)
	@mkdir -p $(dir $@)
	$(say) LD "$@"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIB) -lcmocka $(LDLIBS)

deps:
	@bash tools/deps.sh

run: deps
	@$(MAKE) --no-print-directory run-built

run-built: $(BIN) backends
	./$(BIN)

# The whole test suite: unit tests (cmocka), the same under ASan+UBSan, CLI tests and
# screen tests in tmux. tests/run.sh prints the closing "N passed, N failed, N skipped" line.
# -DCV_TEST_HOOKS: the test-only hooks (e.g. CV_TEST_CORRUPT in src/backend/run.c), in
# these test builds only; `make install` refuses a binary that has them.
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=undefined -DCV_TEST_HOOKS
test: deps
	@$(MAKE) --no-print-directory test-built

# The test builds (ASan+UBSan, the GPU emulation, the fuzz targets) are three make runs in
# their own folders, started together so that they share the -j slots; tests/run.sh's
# summary prints the seconds from their start (after the main build) to its end.
test-built: test-build-asan test-build-fakegpu test-build-fuzz
	TEST_BUILD_START=$$(cat $(BUILD)/.test-start) BUILD=$(BUILD) bash tests/run.sh

test-build-start: $(BIN) $(TEST_BIN)
	@date +%s.%N >$(BUILD)/.test-start

test-build-asan: test-build-start
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan HAVE_NCCL= CFLAGS="$(ASAN_CFLAGS)" \
	    asan-build

test-build-fakegpu: test-build-start
ifeq ($(FAKEGPU_OK),1)
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/fakegpu FAKEGPU=1 CFLAGS="$(ASAN_CFLAGS)" \
	    fakegpu-build $(BUILD)/fakegpu/p2p/tests/gpu/test_nccl
else
	@echo "collviz: no $(CUDA_HOME)/include/nccl.h and cublas_v2.h: the fakegpu tests are skipped"
endif

# (without clang, or when it cannot link a fuzzer, tests/fuzz/run.sh says so: a skip)
test-build-fuzz: test-build-start
	@if command -v $(FUZZ_CC) >/dev/null; then $(MAKE) --no-print-directory fuzz-build || \
	    echo "collviz: the fuzz build failed (tests/fuzz/run.sh says why)"; fi

asan-build: $(BIN) $(TEST_BIN)

# The timing-sensitive tests, LOADED_RUNS (10) times each beside two busy loops per core
# (tests/loaded.sh); slow, and not part of `make test`.
test-loaded: $(BIN) $(TEST_BIN)
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan HAVE_NCCL= CFLAGS="$(ASAN_CFLAGS)" \
	    asan-build
	BUILD=$(BUILD) bash tests/loaded.sh

fakegpu-build: $(BIN) $(GPU_TEST_BIN)

unit-test: $(TEST_BIN)
	@for t in $(TEST_BIN); do $$t || exit 1; done

bench: $(BIN)
	bash bench/run.sh $(BIN)

screenshots: $(BIN)
	bash tests/screen/screenshots.sh $(BIN) screenshots

$(BUILD)/tests/gpu/%: tests/gpu/%.c $(LIB) $(CONFIG)
	@mkdir -p $(dir $@)
	$(say) LD "$@"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# test_nccl once more with the NCCL backend's scatter/gather/all-to-all forced onto grouped
# ncclSend/ncclRecv (-DNCCL_BACKEND_FORCE_P2P), in $(BUILD)/p2p: only the files that name
# the macro (P2P_SRC) are compiled again; the rest is this build's library, so make test's
# emulated run needs one more object, not a second library. A header naming it would
# change other objects too: refused.
P2P_SRC := $(if $(HAVE_NCCL),$(shell grep -rlw NCCL_BACKEND_FORCE_P2P src))
ifneq ($(filter %.h,$(P2P_SRC)),)
  $(error NCCL_BACKEND_FORCE_P2P is named in a header ($(filter %.h,$(P2P_SRC))): the P2P test build compiles only the .c files that name it)
endif
P2P_OBJ := $(P2P_SRC:%.c=$(BUILD)/p2p/obj/%.o)
$(BUILD)/p2p/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(dir $@)
	$(say) CC "$(BTAG)$< (P2P)"
	$(Q)$(CC) $(CPPFLAGS) -DNCCL_BACKEND_FORCE_P2P $(ALL_CFLAGS) -c $< -o $@

# (the objects given before the library replace its members of the same name)
$(BUILD)/p2p/tests/gpu/test_nccl: tests/gpu/test_nccl.c $(P2P_OBJ) $(LIB) $(CONFIG)
	@mkdir -p $(dir $@)
	$(say) LD "$@"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(P2P_OBJ) $(LIB) $(LDLIBS)

gpu-test: $(BIN) $(if $(HAVE_NCCL),$(GPU_TEST_BIN))
	BUILD=$(BUILD) bash tests/gpu/run.sh $(BIN)

# libFuzzer on the lesson parser and formulas (tests/fuzz/fuzz_lesson.c), on the job
# protocol's decoder (tests/fuzz/fuzz_proto.c) and on the reader of NCCL's records
# (tests/fuzz/fuzz_records.c): the library is built again with clang and
# -fsanitize=fuzzer-no-link,address,undefined in $(BUILD)/fuzz. `make fuzz` runs each for
# FUZZ_SECONDS (default 600) on a copy of its corpus (tests/fuzz/corpus, corpus_proto,
# tests/records); tests/fuzz/run.sh (part of `make test`) runs them briefly.
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 600
# The fuzz targets reach only the layers below the screens and the command line, so their
# library leaves ui/, cli/, present/ and handout/ out: half the objects of a full library,
# compiled with clang for the fuzz build alone. (A fuzz target that starts to need one of
# them fails to link, naming the symbol.)
FUZZ_LIB := $(BUILD)/libcollviz-fuzz.a
FUZZ_OBJ := $(filter-out $(addprefix $(BUILD)/obj/src/,ui/% cli/% present/% handout/%),$(OBJ_LIB))
$(FUZZ_LIB): $(FUZZ_OBJ)
	@rm -f $@
	$(say) AR "$@"
	$(Q)ar rcs $@ $^

fuzz-build:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/fuzz HAVE_NCCL= CC=$(FUZZ_CC) \
	    CFLAGS="$(FUZZ_CFLAGS)" fuzz-programs

fuzz-programs: $(BUILD)/fuzz_lesson $(BUILD)/fuzz_proto $(BUILD)/fuzz_records

$(BUILD)/fuzz_lesson: tests/fuzz/fuzz_lesson.c $(FUZZ_LIB) $(CONFIG)
	$(say) LD "$@"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDLIBS)

# The reader of NCCL's records (src/records/), seeded with the real records in tests/records.
$(BUILD)/fuzz_records: tests/fuzz/fuzz_records.c $(FUZZ_LIB) $(CONFIG)
	$(say) LD "$@"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDLIBS)

# The job protocol's decoder (src/worker/proto.c), seeded with tests/fuzz/corpus_proto.
$(BUILD)/fuzz_proto: tests/fuzz/fuzz_proto.c $(FUZZ_LIB) $(CONFIG)
	$(say) LD "$@"
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDLIBS)

fuzz: fuzz-build
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus_proto
	cp -n tests/fuzz/corpus/* $(BUILD)/fuzz/corpus/ 2>/dev/null || true
	cp -n tests/fuzz/corpus_proto/* $(BUILD)/fuzz/corpus_proto/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_lesson -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
	    -rss_limit_mb=2048 $(BUILD)/fuzz/corpus
	$(BUILD)/fuzz/fuzz_proto -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 $(BUILD)/fuzz/corpus_proto
	@mkdir -p $(BUILD)/fuzz/corpus_records
	cp -n tests/records/*.log tests/hostile-records/*.log tests/fuzz/corpus_records/*.log \
	    $(BUILD)/fuzz/corpus_records/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_records -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 $(BUILD)/fuzz/corpus_records

# The emulation's marker (tests/fakegpu/fake_cuda.c) and the test hooks' (CV_TEST_HOOKS)
# must not be in an installed program.
install: $(BIN)
	@if grep -aq 'collviz-fakegpu:''host-emulation' $(BIN); then \
	    echo "collviz: $(BIN) carries the GPU emulation (tests/fakegpu): refusing to install it" >&2; \
	    exit 2; fi
	@if grep -aq 'collviz-test-hooks:''built-in' $(BIN); then \
	    echo "collviz: $(BIN) has the test hooks (CV_TEST_HOOKS): refusing to install it" >&2; \
	    exit 2; fi
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/collviz
	@$(MAKE) --no-print-directory man
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(BUILD)/collviz.1 $(DESTDIR)$(PREFIX)/share/man/man1/collviz.1
	if [ -n "$$(ls -A lessons 2>/dev/null)" ]; then \
	    install -d $(DESTDIR)$(PREFIX)/share/collviz/lessons && \
	    cp -r lessons/. $(DESTDIR)$(PREFIX)/share/collviz/lessons/; fi

# docs/guide.md's key table, rewritten from src/ui/kit/keys.h (tests/unit/test_keydoc.c).
docs: $(BUILD)/tests/test_keydoc
	KEYDOC_WRITE=1 $(BUILD)/tests/test_keydoc

# compile_commands.json (for clangd, clang-tidy and `make lint`): every C file this
# configuration builds, with the very flags the build uses, written by make itself (nothing
# is compiled; `bear -- make` would record the same commands, but only by building).
CCJ_SRC   := src/main.c $(SRC_LIB) $(TEST_SRC) $(wildcard tests/gpu/*.c) $(wildcard tests/fuzz/*.c)
comma     := ,
json_str   = "$(subst ",\",$(subst \,\\,$(1)))"
ccj_obj    = $(if $(filter src/%,$(1)),$(BUILD)/obj/$(1:.c=.o),$(BUILD)/$(patsubst tests/fuzz/%,fuzz/%,$(patsubst tests/unit/%,tests/%,$(1:.c=))))
ccj_extra  = $(if $(filter tests/unit/%,$(1)),-Itests/unit)
ccj_entry  = {"directory": $(call json_str,$(CURDIR)), "file": $(call json_str,$(1)), \
              "command": $(call json_str,$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(ccj_extra) -c $(1) -o $(ccj_obj))}
compile_commands.json: $(CONFIG) Makefile
	$(file >$@.tmp,[)
	$(file >>$@.tmp,$(call ccj_entry,$(firstword $(CCJ_SRC))))
	$(foreach f,$(wordlist 2,$(words $(CCJ_SRC)),$(CCJ_SRC)),$(file >>$@.tmp,$(comma)$(call ccj_entry,$(f))))
	$(file >>$@.tmp,])
	$(say) GEN "$@ ($(words $(CCJ_SRC)) files)"
	$(Q)mv $@.tmp $@

# Static analysis: cppcheck (Debian's, in tools/deps.sh) over src/, in the configuration
# with every backend (HAVE_NCCL, HAVE_MPI, HAVE_OPENBLAS); clean, i.e. any finding fails.
# A false positive is suppressed where it is, with its reason:
# "/* cppcheck-suppress ID ; why */" on the line before. Results are kept per file in
# $(BUILD)/cppcheck, so a second run reads only what changed.
CPPCHECK ?= cppcheck
CPPCHECK_FLAGS := -q --std=c11 --enable=warning,performance,portability --inline-suppr \
                  --error-exitcode=1 --cppcheck-build-dir=$(BUILD)/cppcheck \
                  -D_GNU_SOURCE -DHAVE_NCCL -DHAVE_MPI -DHAVE_OPENBLAS -Isrc -I. \
                  --template='{file}:{line}: {severity} ({id}): {message}'
lint:
	@command -v $(CPPCHECK) >/dev/null || { echo "collviz: $(CPPCHECK) is missing (make deps installs it)" >&2; exit 2; }
	@mkdir -p $(BUILD)/cppcheck
	$(say) CPPCHECK src/
	$(Q)$(CPPCHECK) $(CPPCHECK_FLAGS) src
	@echo "collviz: cppcheck found nothing in src/"

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

# Fails naming every C/CUDA file that .clang-format would change (run by tests/run.sh).
# One clang-format run over every file (a run costs ~0.15 s of CPU to start, 366 of them
# took a minute); only when it fails, one run a file to name the bad ones.
format-check:
	@files=""; for f in $$(git ls-files '*.c' '*.h' '*.cu'); do \
	    [ -f "$$f" ] && files="$$files $$f"; done; \
	[ -z "$$files" ] || clang-format --dry-run --Werror $$files >/dev/null 2>&1 || { \
	    bad=""; for f in $$files; do \
	        clang-format --dry-run --Werror "$$f" >/dev/null 2>&1 || bad="$$bad $$f"; done; \
	    [ -n "$$bad" ] || bad=" (clang-format failed on the files together, on none alone)"; \
	    echo "collviz: not clang-formatted (run make format):$$bad" >&2; exit 1; }; \
	echo "collviz: every C/CUDA file is clang-formatted"

clean:
	rm -rf $(BUILD)

# The test programs' too: a change to a header they alone read (tests/oracle/) rebuilds them.
-include $(shell find $(BUILD)/obj $(BUILD)/p2p/obj $(BUILD)/tests -name '*.d' 2>/dev/null)
