# gpucensus build.
#
# Dependencies: an MPI (mpicc), the CUDA toolkit (nvcc + static runtime),
# libconfig, jansson, zlib, SQLite (the history database). Each can be given
# a prefix (see INSTALL):
#   MPI_PREFIX, CUDA_HOME, LIBCONFIG_PREFIX, JANSSON_PREFIX, ZLIB_PREFIX, SQLITE_PREFIX
# otherwise pkg-config is asked, otherwise the compiler's default paths.
#
#   make            build build/gpucensus
#   make check      build, then the unit and layout tests: no package step (minutes)
#   make test       install what is missing (root), build, run every test
#   make run        run configs/quick.cfg on this machine's GPUs
#   make demo       simulated cluster: 4 nodes x 4 GPUs, 16 ranks
#   make bench      performance benchmarks of the tool itself, then detection quality
#   make bench-detect  recall / false positives of `check` on simulated fleets (bench/bench_detect.py)
#   make soak       SOAK_JOBS (default 50) census jobs through the tests' private Slurm,
#                   some with a rank killed or stopped: crashes, lost items, time per job
#   make fuzz SECONDS=N
#   make kdesc-update  copy this build's SASS-counted validation kernel
#                   descriptions to configs/kernels/valid/ (needs cuobjdump)
#   make install PREFIX=/opt/gpucensus [DESTDIR=]
#                   the binary (PREFIX/bin), configs, schemas, slurm and nhc files
#                   (PREFIX/share/gpucensus) and an lmod modulefile
#                   (PREFIX/share/modulefiles/gpucensus.lua)

BUILD      ?= build
CUDA_HOME  ?= /usr/local/cuda
NVCC       ?= $(CUDA_HOME)/bin/nvcc
MPICC      ?= $(if $(MPI_PREFIX),$(MPI_PREFIX)/bin/mpicc,mpicc)
MPIRUN     ?= $(if $(MPI_PREFIX),$(MPI_PREFIX)/bin/mpirun,mpirun)
CUDA_ARCHS ?= 80 90
MULTIARCH  := $(shell $(CC) -dumpmachine 2>/dev/null)
SECONDS    ?= 60

pc = $(shell pkg-config $(1) $(2) 2>/dev/null)
# $(call dep_cflags,VAR,pkg) / $(call dep_libs,VAR,pkg,fallback-libs)
dep_cflags = $(if $($(1)_PREFIX),-I$($(1)_PREFIX)/include,$(call pc,--cflags,$(2)))
dep_libs = $(if $($(1)_PREFIX),$(foreach d,$($(1)_PREFIX)/lib $($(1)_PREFIX)/lib/$(MULTIARCH),-L$(d) -Wl,-rpath,$(d)) $(3),$(or $(call pc,--libs,$(2)),$(3)))

DEP_CFLAGS := $(call dep_cflags,LIBCONFIG,libconfig) $(call dep_cflags,JANSSON,jansson) \
              $(call dep_cflags,ZLIB,zlib) $(call dep_cflags,SQLITE,sqlite3)
DEP_LIBS   := $(call dep_libs,LIBCONFIG,libconfig,-lconfig) $(call dep_libs,JANSSON,jansson,-ljansson) \
              $(call dep_libs,ZLIB,zlib,-lz) $(call dep_libs,SQLITE,sqlite3,-lsqlite3)
# The CUDA runtime is linked statically so the binary starts on a machine
# without a GPU driver (and reports no GPU instead of failing to load).
CUDA_LIBS  := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64/stubs -lcudart_static -lstdc++ -ldl -lrt -lpthread

CFLAGS     ?= -O2 -g
CFLAGS     += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter -Isrc -Ikernels -I$(BUILD)/gen $(DEP_CFLAGS) $(SAN)
LDFLAGS    += $(SAN)
LDLIBS     := $(DEP_LIBS) $(CUDA_LIBS) -lm
NVFLAGS    ?= -O3 -std=c++17 -Xcompiler -Wall $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
              -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))

HOST_SRC   := $(filter-out src/main.c,$(wildcard src/*/*.c src/*/*/*.c))
HOST_OBJ   := $(HOST_SRC:%.c=$(BUILD)/%.o)
CU_SRC     := $(wildcard kernels/*.cu)
CU_OBJ     := $(CU_SRC:%.cu=$(BUILD)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC  := $(wildcard bench/bench_*.c)
BENCH_BIN  := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
GPU_TOOLS  := $(patsubst tests/gpu/%.c,$(BUILD)/tests/gpu/%,$(wildcard tests/gpu/*.c))
# probes the MPI tests run under mpirun (tests/mpi/t_*.sh)
MPI_TOOLS  := $(patsubst tests/mpi/%.c,$(BUILD)/tests/mpi/%,$(wildcard tests/mpi/*.c))

.PHONY: all check test run demo bench bench-detect soak fuzz deps deps-test clean tests kdesc-update install FORCE

all: $(BUILD)/gpucensus

$(BUILD)/gen/gen_version.h: FORCE
	@mkdir -p $(@D)
	@# Outside a git checkout (a copied tree) .gitcommit may say the commit;
	@# GIT_COMMIT=... overrides both (a copied tree can hold a stale .git).
	@c='$(GIT_COMMIT)'; [ -n "$$c" ] || { c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && \
	    { git diff --quiet HEAD || c=$$c-dirty; } || c=$$(cat .gitcommit 2>/dev/null || echo unknown); }; \
	 v='#define GC_GIT_COMMIT "'"$$c"'"'; \
	 [ -f $@ ] && [ "$$(cat $@)" = "$$v" ] || echo "$$v" > $@

$(BUILD)/%.o: %.c | $(BUILD)/gen/gen_version.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -MMD -MP -MT $@ -MT $(abspath $@) -c $< -o $@

# -MMD: each kernel object depends on every header it includes (kernels.h,
# bench_util.cuh, valid_table.h), listed in its .d file.
$(BUILD)/kernels/%.o: kernels/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Ikernels -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< -o $@

$(BUILD)/libgc.a: $(HOST_OBJ) $(BUILD)/gen/valid_desc.o
	rm -f $@ && ar rcs $@ $^

# --- validation kernels' descriptions (docs/kernel-description.md) ---
# valid.cu's ptxas -v goes to a log (registers, static smem); with cuobjdump
# tools/embed_desc.sh counts the descriptions from this build's SASS, else
# it embeds the committed ones (warning once when they are stale).
CUOBJDUMP ?= $(firstword $(wildcard $(CUDA_HOME)/bin/cuobjdump) $(shell command -v cuobjdump 2>/dev/null))

$(BUILD)/kernels/valid.o $(BUILD)/kernels/valid.ptxas.log &: kernels/valid.cu kernels/valid_table.h \
                                                    kernels/kernels.h kernels/bench_util.cuh
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Xptxas -v -Ikernels -MMD -MP -MF $(@D)/valid.d -MT $(@D)/valid.o -c $< -o $(@D)/valid.o 2> $(@D)/valid.ptxas.log \
	    || { cat $(@D)/valid.ptxas.log >&2; exit 1; }
	@grep -v '^ptxas info\|bytes stack frame' $(@D)/valid.ptxas.log >&2 || true

$(BUILD)/gen/valid_desc.c: kernels/valid.cu kernels/valid_table.h tools/kdesc.py tools/embed_desc.sh \
                           $(wildcard configs/kernels/valid/*.cfg) $(if $(CUOBJDUMP),$(BUILD)/kernels/valid.o $(BUILD)/kernels/valid.ptxas.log)
	tools/embed_desc.sh $(BUILD) "$(CUOBJDUMP)"

$(BUILD)/gen/valid_desc.o: $(BUILD)/gen/valid_desc.c
	$(MPICC) $(CFLAGS) -c $< -o $@

kdesc-update: $(BUILD)/gen/valid_desc.c
	@grep -q 'origin\[\] = "sass"' $< || { echo "kdesc-update: no cuobjdump here: nothing counted from SASS" >&2; exit 1; }
	rm -f configs/kernels/valid/*.cfg && mkdir -p configs/kernels/valid
	cp $(BUILD)/gen/kdesc/*.cfg configs/kernels/valid/

$(BUILD)/libgck.a: $(CU_OBJ)
	rm -f $@ && ar rcs $@ $^

# -rdynamic: a crash report's backtrace (src/util/crash.c) names our functions.
$(BUILD)/gpucensus: $(BUILD)/src/main.o $(BUILD)/libgc.a $(BUILD)/libgck.a
	$(MPICC) $(LDFLAGS) -rdynamic -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libgc.a $(BUILD)/libgck.a
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/gpu/%: tests/gpu/%.c $(BUILD)/libgc.a $(BUILD)/libgck.a
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/mpi/%: tests/mpi/%.c $(BUILD)/libgc.a $(BUILD)/libgck.a
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libgc.a $(BUILD)/libgck.a
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -O3 $(LDFLAGS) -o $@ $^ $(LDLIBS)

tests: all $(UNIT_BIN) $(GPU_TOOLS) $(MPI_TOOLS) $(BUILD)/bench/bench_verdicts

deps:
	@tools/deps.sh build

deps-test:
	@tools/deps.sh test

check:
	$(MAKE) -j$(shell nproc) tests
	tests/run.sh unit/ layout/

test: deps-test
	$(MAKE) -j$(shell nproc) tests
	tests/run.sh

run: deps
	$(MAKE) -j$(shell nproc) all
	tools/run-local.sh configs/quick.cfg

demo: deps
	$(MAKE) -j$(shell nproc) all
	tools/demo.sh

bench: deps
	$(MAKE) all $(BENCH_BIN)
	bench/run.sh
	bench/bench_detect.py --build $(BUILD)

bench-detect: deps
	$(MAKE) all $(BUILD)/bench/bench_merge $(BUILD)/bench/bench_verdicts
	bench/bench_detect.py --build $(BUILD)

soak: deps-test
	$(MAKE) all
	tests/slurm/soak.sh

# --- sanitizers and fuzzing (tests/san, tests/fuzz) ---
# make san: the host code again with AddressSanitizer + UBSan (gcc through
#   mpicc) in $(SAN_BUILD)/: gpucensus and every unit test. The CUDA objects
#   cannot be followed by the sanitizers: they are copied from $(BUILD)/kernels
#   (built there first if needed), so the kernels are never compiled twice.
# make fuzz-targets: every tests/fuzz/fuzz_*.c as a libFuzzer binary in
#   $(FUZZ_BUILD)/, linked with the host code compiled by clang with
#   -fsanitize=fuzzer-no-link,address,undefined (without the MPI/CUDA parts;
#   the archive only pulls in what a target uses).
# make fuzz SECONDS=N: build them and run each for N seconds (tests/fuzz/run.sh).
SAN_BUILD    ?= build-san
SAN_FLAGS    ?= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# make tsan: the host code with ThreadSanitizer in $(TSAN_BUILD)/: gpucensus
#   and the unit tests whose code runs threads (merge's workers, rank 0's
#   judgement beside its writing): tests/san/t_tsan.sh runs them.
TSAN_BUILD   ?= build-tsan
TSAN_FLAGS   ?= -fsanitize=thread -fno-omit-frame-pointer
TSAN_TESTS   := test_detect test_collect test_merge
FUZZ_BUILD   ?= $(BUILD)/fuzz
FUZZ_CC      ?= clang
FUZZ_FLAGS   ?= -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Isrc -Ikernels $(DEP_CFLAGS)
FUZZ_LIBSRC  := $(filter-out src/tree/cluster.c src/tree/tree.c src/tree/watch.c src/tree/watch_gather.c \
                src/run/run.c src/run/run_out.c src/run/confirm.c src/measure/cuda/%.c,$(HOST_SRC))
FUZZ_LIBOBJ  := $(FUZZ_LIBSRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_BUILD)/obj/$(BUILD)/gen/valid_desc.o
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: san tsan fuzz-targets

san:
	$(MAKE) $(BUILD)/libgck.a
	@mkdir -p $(SAN_BUILD)/kernels
	cp -pu $(BUILD)/kernels/*.o $(BUILD)/kernels/*.log $(SAN_BUILD)/kernels/
	$(MAKE) BUILD=$(SAN_BUILD) SAN="$(SAN_FLAGS)" $(SAN_BUILD)/gpucensus \
	    $(UNIT_SRC:tests/unit/%.c=$(SAN_BUILD)/tests/%)

tsan:
	$(MAKE) $(BUILD)/libgck.a
	@mkdir -p $(TSAN_BUILD)/kernels
	cp -pu $(BUILD)/kernels/*.o $(BUILD)/kernels/*.log $(TSAN_BUILD)/kernels/
	$(MAKE) BUILD=$(TSAN_BUILD) SAN="$(TSAN_FLAGS)" $(TSAN_BUILD)/gpucensus \
	    $(TSAN_TESTS:%=$(TSAN_BUILD)/tests/%)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_CFLAGS) -MMD -MP -MT $@ -MT $(abspath $@) -c $< -o $@

$(FUZZ_BUILD)/libgcfuzz.a: $(FUZZ_LIBOBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libgcfuzz.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(FUZZ_CFLAGS) -o $@ $^ $(DEP_LIBS) -lm

fuzz-targets: $(FUZZ_TARGETS)

fuzz: deps-test
	tests/fuzz/run.sh $(SECONDS)

-include $(FUZZ_LIBOBJ:.o=.d)
# --- end of sanitizers and fuzzing ---

# --- install: PREFIX/bin, PREFIX/share/gpucensus (GPUCENSUS_HOME), an lmod modulefile ---
PREFIX  ?= /usr/local
DESTDIR ?=
GC_SHARE = $(PREFIX)/share/gpucensus

install: $(BUILD)/gpucensus
	@case '$(PREFIX)' in /*) ;; *) echo "make install: PREFIX must be an absolute path" >&2; exit 2 ;; esac
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(GC_SHARE) $(DESTDIR)$(PREFIX)/share/modulefiles
	install -m 755 $(BUILD)/gpucensus $(DESTDIR)$(PREFIX)/bin/gpucensus
	rm -rf $(DESTDIR)$(GC_SHARE)/configs $(DESTDIR)$(GC_SHARE)/results-schema \
	    $(DESTDIR)$(GC_SHARE)/slurm $(DESTDIR)$(GC_SHARE)/nhc $(DESTDIR)$(GC_SHARE)/tools
	cp -R configs results-schema slurm nhc $(DESTDIR)$(GC_SHARE)/
	install -d $(DESTDIR)$(GC_SHARE)/tools
	install -m 755 tools/prolog-cost.sh $(DESTDIR)$(GC_SHARE)/tools/
	install -m 644 README.md INSTALL $(DESTDIR)$(GC_SHARE)/
	chmod -R u=rwX,go=rX $(DESTDIR)$(GC_SHARE)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e "s|@VERSION@|$$($(BUILD)/gpucensus version | cut -d' ' -f2)|" \
	    tools/gpucensus.lua.in > $(DESTDIR)$(PREFIX)/share/modulefiles/gpucensus.lua
	chmod 644 $(DESTDIR)$(PREFIX)/share/modulefiles/gpucensus.lua
	@echo "installed in $(DESTDIR)$(PREFIX): module use $(PREFIX)/share/modulefiles; module load gpucensus"

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) build-*/

-include $(HOST_OBJ:.o=.d) $(BUILD)/src/main.d $(CU_OBJ:.o=.d)
