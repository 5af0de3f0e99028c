# verbshim: build, test, install.
#
#   make                 lib/libverbshim.a, examples, tools (verbshim-info, verbshim-selftest)
#   make check           the whole test suite (unit, sanitizers, valgrind,
#                        stubs, cross-version, then the SoftRoCE VM stage)
#   make check-unit      the host stages only
#   make check-rxe       the VM stage only
#   make check-siw       the VM stage on soft-iWARP only, kernels 6.1 and 6.12
#   make check-releases  the shipped binaries (make oldest) on all nine
#                        rdma-core releases 17.1 .. 65.0 (RELEASES="17.1 22.4"),
#                        each release's own examples and test suite stock
#                        and through verbshim
#   make check-trace     the host root's VM tests on rxe with the trace on
#                        (make check runs it on 6.1)
#   make soak            the long soak of a CM server on rxe (SOAK_ROUNDS=1000;
#                        make check runs its short version: docs/soak.md)
#   make demo            boot the VM and run the loopback example
#   make ARCH=arm64 ...  the same for arm64 (cross-built into build/arm64;
#                        make demo ARCH=arm64 boots the arm64 guest)
#   make check-arm64     the arm64 proof: unit tests under qemu-user, glibc
#                        floor, device tests in the arm64 guest, the drop-in
#                        (rdma-core's examples, perftest) against stock, the
#                        arm64 Debian packages (test/shell/deb_arm64.sh),
#                        rdma-core's own tests, a subset (make
#                        check-conformance ARCH=arm64: all of them)
#   make man             man pages of the documented functions (build/man/man3)
#   make install PREFIX=/usr/local DESTDIR=
#   make deb             Debian packages (debian/), built in the Debian 11
#                        build root: build/deb/*.deb (ARCH=arm64: cross-built,
#                        build/arm64/deb/*_arm64.deb); multiarch /usr/lib/TRIPLET
#   make check-deb       the whole package test (lintian, release roots, rxe)
#   make check-dlopen    systemd-analyze and dh-dlopenlibdeps read the ELF
#                        dlopen notes (a trixie root; docs/shipping.md)
#   make rpm             RPMs (scripts/rpm/verbshim.spec), built in the Debian 11 build
#                        root: build/rpm/RPMS/x86_64 (ARCH=arm64: aarch64,
#                        build/arm64/rpm/RPMS/aarch64); scripts/deps.sh --rpm
#   make check-rpm       the RPM test (rpmlint, rpm --root, rxe)
#   make check-reproducible  two builds of the commit, byte-identical
#                        archive, .debs and RPMs
#
# Knobs: CC=gcc|clang, CXX=g++|clang++ (the C++ layer's examples and tests),
# V=1 (full commands), RDMA_CORE_INCLUDE=DIR (another rdma-core header set
# than the pinned one, scripts/rdma-headers.pin; =system: the build
# machine's own), VISIBILITY=default (export ibv_* from shared objects
# that link the archive; see docs/dropin.md), BUILD=DIR, SAN=asan|tsan (variant).

PREFIX  ?= /usr/local
DESTDIR ?=
# Where the archive, verbshim.pc, the CMake package and the compat
# directory go: PREFIX/lib, or a multiarch directory (make deb:
# /usr/lib/x86_64-linux-gnu, /usr/lib/aarch64-linux-gnu, as Debian wants).
LIBDIR  ?= $(PREFIX)/lib

# The target architecture, in the kernel's spelling: x86_64 (this host's,
# the default) or arm64, cross-built with Debian's aarch64-linux-gnu
# toolchain (scripts/deps.sh --arm64) into build/arm64 (make check-arm64).
ARCH ?= x86_64
ifeq ($(ARCH),arm64)
CROSS_COMPILE ?= aarch64-linux-gnu-
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin CXX),default)
CXX := $(CROSS_COMPILE)g++
endif
ifeq ($(origin AR),default)
AR := $(CROSS_COMPILE)ar
endif
BUILD ?= build/arm64
# Programs run at build time (the stubs' gen_map) are the build machine's.
HOSTCC ?= gcc
else ifneq ($(ARCH),x86_64)
$(error ARCH=$(ARCH): x86_64 or arm64)
endif
BUILD   ?= build
# The rdma-core headers: by default the pinned newest set
# (scripts/rdma-headers.sh fetches it once into the cache), whatever the
# build machine has installed, so that every build compiles in every
# version node and make install gives programs the same API (docs/shipping.md).
RDMA_CORE_INCLUDE ?=
ifeq ($(RDMA_CORE_INCLUDE),)
ifneq ($(filter-out clean uninstall,$(or $(MAKECMDGOALS),all)),)
RDMA_CORE_INCLUDE := $(shell scripts/rdma-headers.sh)
ifeq ($(RDMA_CORE_INCLUDE),)
$(error the pinned rdma-core headers (scripts/rdma-headers.pin) are not there (see above); RDMA_CORE_INCLUDE=system builds against the machine's own)
endif
endif
else ifeq ($(RDMA_CORE_INCLUDE),system)
override RDMA_CORE_INCLUDE :=
endif
ifeq ($(ARCH),arm64)
# The pinned set is the same on every architecture.  With =system: the
# cross compiler does not look in /usr/include, where the machine's
# rdma-core headers are: a copy of them alone, so nothing else of the
# build machine's /usr/include leaks in.
ifeq ($(RDMA_CORE_INCLUDE),)
override RDMA_CORE_INCLUDE := $(BUILD)/rdma-include
endif
RDMA_STAGE := $(if $(filter $(BUILD)/rdma-include,$(RDMA_CORE_INCLUDE)),$(BUILD)/rdma-include/.stamp)
endif
# The set make install ships with the library: the pinned one (DIR/include
# beside its COPYING and VERSION), wherever it came from (build-root.sh
# passes it in); another set is the builder's own business.
RDMA_CORE_SET := $(patsubst %/include,%,$(filter %/include,$(RDMA_CORE_INCLUDE)))
RDMA_CORE_SET := $(if $(wildcard $(RDMA_CORE_SET)/COPYING),$(if $(wildcard $(RDMA_CORE_SET)/VERSION),$(RDMA_CORE_SET)))
VISIBILITY ?= hidden
SAN     ?=
V       ?= 0

ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-7s %s\n' $(1) $(2);
endif

# 1.0.0: the first version with install packages (CMake, .deb); the major
# changes only when the public API or ABI breaks (docs/shipping.md, CHANGES.md).
VERSION := 1.0.0

CSTD     := -std=c11
WARN     := -Wall -Wextra -Werror
OPT      ?= -O2 -g
SAN_asan := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_tsan := -fsanitize=thread
# the libFuzzer build (clang): coverage and compare tracing in every object
SAN_fuzz := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SANFLAGS := $(SAN_$(SAN))

CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude -Ishim -Itest/common -I$(BUILD)/gen \
	$(if $(RDMA_CORE_INCLUDE),-isystem $(RDMA_CORE_INCLUDE))
CFLAGS_ALL   := $(CSTD) $(WARN) $(OPT) -fPIC $(SANFLAGS) $(CFLAGS)
LIB_CFLAGS   := $(CFLAGS_ALL) -fvisibility=$(VISIBILITY)
LDLIBS_SHIM  := -ldl -lpthread
# C++ (include/verbshim.hpp, C++17): examples/*.cpp and test/unit/*.cpp, linked
# with libstdc++ inside, so that they run in release roots without one.
CXXSTD       := -std=c++17
CXXFLAGS_ALL := $(CXXSTD) $(WARN) $(OPT) -fPIC $(SANFLAGS) $(CXXFLAGS)
CXX_LDFLAGS  := -static-libstdc++ -static-libgcc
HAVE_CXX     := $(if $(shell command -v $(CXX) 2>/dev/null),1)

# The archive: the shim (loader, tables, drop-ins) and the typed API.
ARCHIVE  := $(if $(filter build,$(BUILD)),lib/libverbshim.a,$(BUILD)/libverbshim.a)
# The sources compiled once per row of VS_LIBRARIES (shim/loader/vs_shim.h),
# SRC_<lib>.o with -DVS_TABLE_OF_<lib>=1: a library's table (tables_<lib>.o)
# and the trace's rows and wrappers of it (trace_rows_<lib>.o,
# trace_wrap_<lib>.o, reached from the table's fill).  A program links
# them, and the table's ELF notes (shim/tables/vs_notes.h), only when it
# calls into that library.
PER_LIB_SRCS := shim/tables/tables.c shim/trace/trace_rows.c shim/trace/trace_wrap.c
LIB_SRCS := $(sort $(filter-out $(PER_LIB_SRCS),$(wildcard shim/*/*.c)) $(wildcard lib/*/*.c))
TABLE_ROW_SED := s/^[[:space:]]*L[(]\([a-z0-9_]*\),.*/\1/p
TABLE_LIBS := $(shell sed -n '$(TABLE_ROW_SED)' shim/loader/vs_shim.h)
TABLE_OBJS = $(foreach s,$(PER_LIB_SRCS),$(TABLE_LIBS:%=$(BUILD)/obj/$(1)$(s:.c=)_%.o))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(call TABLE_OBJS)

# Programs: every examples/NAME.c is build/bin/NAME; examples/common/*.c
# is linked into each.
EXAMPLE_SRCS  := $(wildcard examples/*.c)
EXAMPLES      := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/bin/%)
CXX_EXAMPLES  := $(if $(HAVE_CXX),$(patsubst examples/%.cpp,$(BUILD)/bin/%,$(wildcard examples/*.cpp)))
EXAMPLES      += $(CXX_EXAMPLES)
EXCOMMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard examples/common/*.c))

# Installed programs: every tools/NAME/ is build/bin/NAME, linked from all
# the .c files of its directory.
TOOL_NAMES := $(patsubst tools/%/,%,$(wildcard tools/*/))
TOOLS      := $(TOOL_NAMES:%=$(BUILD)/bin/%)
tool_objs   = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/$(1)/*.c))
# their manual pages (section 1), written by hand beside the sources
TOOL_MAN1  := $(wildcard tools/*/*.1)

# Tests: test/unit/*.c run on the host, test/device/*.c need a device (and
# their *.cpp, C++ tests, where a C++ compiler is);
# test/common/*.c is linked into each.  Where each runs, and what it
# needs built: test/tests.list (docs/tests.md).
UNIT_TESTS   := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(wildcard test/unit/*.c))
CXX_TESTS    := $(if $(HAVE_CXX),$(patsubst test/unit/%.cpp,$(BUILD)/test/unit/%,$(wildcard test/unit/*.cpp)))
UNIT_TESTS   += $(CXX_TESTS)
ifeq ($(HAVE_CXX),)
$(info note: no C++ compiler ($(CXX)): the C++ examples and tests are not built$(if $(filter arm64,$(ARCH)), (scripts/deps.sh --arm64 installs it)))
endif
DEVICE_TESTS := $(patsubst test/device/%.c,$(BUILD)/test/device/%,$(wildcard test/device/*.c))
CXX_DEVICE_TESTS := $(if $(HAVE_CXX),$(patsubst test/device/%.cpp,$(BUILD)/test/device/%,$(wildcard test/device/*.cpp)))
DEVICE_TESTS += $(CXX_DEVICE_TESTS)
TCOMMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard test/common/*.c))
BENCHES      := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# README.md's C example, built from the README itself (below)
README_EXAMPLE := $(BUILD)/test/readme/hello

CONFIG_H := $(BUILD)/gen/vs_config.h
# The FFI twins' prototypes and lib/core/ffi.c's renames, written from the
# public headers at each build (scripts/build/ffi-gen.sh), never stored; after
# vs_config.h, whose feature-config.sh says first what the headers lack.
FFI_GEN := $(BUILD)/gen/ffi.stamp
FFI_H := $(BUILD)/gen/verbshim/ffi_twins.h

# Stub rdma-core libraries for the loader tests (test/stubs/): one per
# emulated release, with that release's version nodes and provider ABI,
# plus one without any symbol versioning.
STUB_RELEASES := 17 28 34 44 65
STUB_ABI_17 := 17
STUB_ABI_28 := 28
STUB_ABI_34 := 34
STUB_ABI_44 := 34
STUB_ABI_65 := 65
STUB_OBJ = $(BUILD)/obj/test/stubs
STUB_LIBS := ibverbs rdmacm efa mlx5 mlx4 ibumad hns mana ionic
stub_soname = lib$(1).so.$(if $(filter ibumad,$(1)),3,1)
STUB_SONAMES := $(foreach l,$(STUB_LIBS),$(call stub_soname,$(l)))
# The emulated releases that have the library at all (its first node:
# EFA_1.0 24, MANA_1.0 41, HNS_1.0 51, IONIC_1.0 59); the others lack it.
STUB_RELEASES_efa := 28 34 44 65
STUB_RELEASES_mana := 44 65
STUB_RELEASES_hns := 65
STUB_RELEASES_ionic := 65
stub_releases = $(or $(STUB_RELEASES_$(1)),$(STUB_RELEASES))
STUBS := $(foreach l,$(STUB_LIBS),$(foreach r,$(call stub_releases,$(l)),$(BUILD)/stubs/v$(r)/$(call stub_soname,$(l)))) \
	 $(addprefix $(BUILD)/stubs/unversioned/,$(STUB_SONAMES)) \
	 $(foreach d,highbase sysvhash,$(foreach l,$(STUB_LIBS),$(if $(filter 44,$(call stub_releases,$(l))),$(BUILD)/stubs/$(d)/$(call stub_soname,$(l))))) \
	 $(BUILD)/stubs/reenter/libibverbs.so.1 \
	 $(BUILD)/stubs/fake/libibverbs.so.1 \
	 $(BUILD)/stubs/fake33/libibverbs.so.1 \
	 $(BUILD)/stubs/fake/libefa.so.1 \
	 $(BUILD)/stubs/broken/libefa.so.1
# Two plugins that each link the archive statically: several copies of the
# shim in one process, for test/unit/trace_copies.c.
SHIM_PLUGINS := $(BUILD)/stubs/plugins/libplugin_a.so $(BUILD)/stubs/plugins/libplugin_b.so
# highbase: rdma-core 44's nodes, linked above the user address space, so
# the dynamic loader maps it lower (a load bias that wraps, as dlopen
# allows).  sysvhash: rdma-core 44's nodes with no GNU hash table, so that
# the loader's lookup asks dlvsym() for every slot.  reenter: a libibverbs
# whose constructor calls back into ibv_*.
STUB_LDFLAGS_highbase := -Wl,-Ttext-segment=0xffffffff80000000
STUB_LDFLAGS_sysvhash := -Wl,--hash-style=sysv

# stubs: what the unit tests load besides themselves (a sanitizer variant
# builds the tests it runs and these, not the whole of tests).
.PHONY: all lib examples tools man tests stubs benches check check-unit check-rxe check-siw check-releases check-trace check-faults faults-asan check-arm64 check-conformance soak demo \
	install uninstall clean fuzz fuzzers deb rpm
.DEFAULT_GOAL := all
# Keep objects: they are inputs of several links (sanitizer variants, stubs).
.SECONDARY:

all: lib examples tools
lib: $(ARCHIVE)
examples: $(EXAMPLES)
tools: $(TOOLS)
tests: $(UNIT_TESTS) $(DEVICE_TESTS) $(STUBS) $(SHIM_PLUGINS) $(BUILD)/dropin/plain_verbs $(README_EXAMPLE)
stubs: $(STUBS) $(SHIM_PLUGINS)
benches: $(BENCHES)

# Which version nodes the rdma-core headers in use declare.  Re-probed when
# what it depends on changes: the compiler, the flags, or the content of any
# header the probe reads (config.id holds a digest of them: an installed or
# upgraded header set is noticed whatever its files' dates).  A failed probe
# leaves no configuration behind, so nothing is built on it.
PROBE_FLAGS = $(CPPFLAGS_ALL) $(CSTD) $(SANFLAGS)
$(BUILD)/gen/config.id: FORCE
	@mkdir -p $(@D)
	@scripts/build/feature-config.sh --id '$(CC)' $(PROBE_FLAGS) > $@.tmp && \
	  { cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }
$(CONFIG_H): $(BUILD)/gen/config.id scripts/build/feature-config.sh $(wildcard shim/loader/syms_*.h) shim/loader/vs_rdma_headers.h
	$(call say,CONFIG,$@)
	$(Q)scripts/build/feature-config.sh '$(CC)' $(PROBE_FLAGS) > $@.tmp && mv -f $@.tmp $@ || \
	  { rm -f $@.tmp $@; exit 1; }
$(FFI_GEN): $(CONFIG_H) scripts/build/ffi-gen.sh include/verbshim.h $(wildcard include/verbshim/*.h)
	$(call say,GEN,$(FFI_H))
	$(Q)CC='$(CC)' scripts/build/ffi-gen.sh $(BUILD)/gen $(filter-out -I$(BUILD)/gen,$(CPPFLAGS_ALL)) && touch $@
$(FFI_H) $(BUILD)/gen/ffi_names.h: $(FFI_GEN) ;
# Phony: under .SECONDARY a missing plain FORCE would not force anything.
.PHONY: FORCE

$(BUILD)/obj/shim/%.o $(BUILD)/obj/lib/%.o: private CFLAGS_USE = $(LIB_CFLAGS)
$(BUILD)/obj/%.o: %.c $(CONFIG_H) | $(FFI_GEN)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(or $(CFLAGS_USE),$(CFLAGS_ALL)) -MMD -MP -c -o $@ $<

# SRC_<lib>.o from SRC.c (PER_LIB_SRCS), for <lib> of TABLE_LIBS
define PER_LIB_RULE
$(filter %/$(notdir $(1:.c=))_$(2).o,$(call TABLE_OBJS) $(call TABLE_OBJS,default-vis/)): $(1) $$(CONFIG_H) | $$(FFI_GEN)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(CC) $$(CPPFLAGS_ALL) $$(or $$(CFLAGS_USE),$$(CFLAGS_ALL)) -DVS_TABLE_OF_$(2)=1 \
		-MMD -MP -c -o $$@ $$<
endef
$(foreach s,$(PER_LIB_SRCS),$(foreach l,$(TABLE_LIBS),$(eval $(call PER_LIB_RULE,$(s),$(l)))))

$(BUILD)/obj/%.o: %.cpp $(CONFIG_H) | $(FFI_GEN)
	@mkdir -p $(@D)
	$(call say,CXX,$@)
	$(Q)$(CXX) $(CPPFLAGS_ALL) $(CXXFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/obj/test/stubs/%.o: private CFLAGS_USE = $(CSTD) $(WARN) -O2 -g -fPIC

ifeq ($(ARCH),arm64)
$(BUILD)/stubs/gen_map: test/stubs/gen_map.c $(CONFIG_H)
	$(call say,HOSTCC,$@)
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(CPPFLAGS_ALL) $(CSTD) $(WARN) -O2 -o $@ $<

# rdma-core's own headers of the build machine (see RDMA_CORE_INCLUDE).
$(BUILD)/rdma-include/.stamp:
	$(call say,HEADERS,$(@D))
	$(Q)rm -rf $(@D) && mkdir -p $(@D)/rdma && cp -a /usr/include/infiniband $(@D)/ && \
	  cp -a $(wildcard /usr/include/rdma/rdma_cma*.h /usr/include/rdma/rdma_verbs.h /usr/include/rdma/rsocket.h) $(@D)/rdma/ && \
	  touch $@
$(BUILD)/gen/config.id: | $(RDMA_STAGE)
else
$(BUILD)/stubs/gen_map: $(STUB_OBJ)/gen_map.o
	$(call say,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -o $@ $<
endif

stub_objs = $(STUB_OBJ)/stub_$(1).o $(if $(filter ibverbs rdmacm,$(1)),$(STUB_OBJ)/stub_$(1)_special.o)
define stub_rules
$(BUILD)/stubs/v%/$(call stub_soname,$(1)): $(call stub_objs,$(1)) $(BUILD)/stubs/gen_map
	@mkdir -p $$(@D)
	$$(call say,STUB,$$@)
	$$(Q)$(BUILD)/stubs/gen_map $(1) $$* $$(if $$(filter ibverbs,$(1)),$$(STUB_ABI_$$*)) > $$@.map
	$$(Q)$$(CC) -shared -Wl,-soname,$(call stub_soname,$(1)) -Wl,--version-script=$$@.map -o $$@ $(call stub_objs,$(1))
$(BUILD)/stubs/unversioned/$(call stub_soname,$(1)): $(call stub_objs,$(1))
	@mkdir -p $$(@D)
	$$(call say,STUB,$$@)
	$$(Q)$$(CC) -shared -Wl,-soname,$(call stub_soname,$(1)) -o $$@ $(call stub_objs,$(1))
$(BUILD)/stubs/%/$(call stub_soname,$(1)): $(call stub_objs,$(1)) $(BUILD)/stubs/gen_map
	@mkdir -p $$(@D)
	$$(call say,STUB,$$@)
	$$(Q)$(BUILD)/stubs/gen_map $(1) 44 $$(if $$(filter ibverbs,$(1)),$$(STUB_ABI_44)) > $$@.map
	$$(Q)$$(CC) -shared -Wl,-soname,$(call stub_soname,$(1)) -Wl,--version-script=$$@.map $$(STUB_LDFLAGS_$$*) -o $$@ $(call stub_objs,$(1))
endef
$(foreach lib,$(STUB_LIBS),$(eval $(call stub_rules,$(lib))))
$(BUILD)/stubs/reenter/libibverbs.so.1: $(call stub_objs,ibverbs) $(STUB_OBJ)/stub_ctor.o $(BUILD)/stubs/gen_map
	@mkdir -p $(@D)
	$(call say,STUB,$@)
	$(Q)$(BUILD)/stubs/gen_map ibverbs 44 $(STUB_ABI_44) > $@.map
	$(Q)$(CC) -shared -Wl,-soname,libibverbs.so.1 -Wl,--version-script=$@.map -o $@ $(call stub_objs,ibverbs) $(STUB_OBJ)/stub_ctor.o

# A fake provider (rdma-core 44 nodes): one device whose objects work, for
# the misuse suite of the typed API (test/unit/typed_misuse.c).
FAKE_OBJS := $(STUB_OBJ)/stub_ibverbs.o $(STUB_OBJ)/stub_fake_ibverbs.o
$(BUILD)/stubs/fake/libibverbs.so.1: $(FAKE_OBJS) $(BUILD)/stubs/gen_map
	@mkdir -p $(@D)
	$(call say,STUB,$@)
	$(Q)$(BUILD)/stubs/gen_map ibverbs 44 34 > $@.map
	$(Q)$(CC) -shared -Wl,-soname,libibverbs.so.1 -Wl,--version-script=$@.map -o $@ $(FAKE_OBJS)
# The same fake as rdma-core 33 (its nodes end at IBVERBS_1.11): what a
# machine older than a verb answers (test/unit/dmabuf_fake.c).
$(BUILD)/stubs/fake33/libibverbs.so.1: $(FAKE_OBJS) $(BUILD)/stubs/gen_map
	@mkdir -p $(@D)
	$(call say,STUB,$@)
	$(Q)$(BUILD)/stubs/gen_map ibverbs 33 33 > $@.map
	$(Q)$(CC) -shared -Wl,-soname,libibverbs.so.1 -Wl,--version-script=$@.map -o $@ $(FAKE_OBJS)
# Its libefa (not an EFA data path): the SRD control path on the host
# (test/unit/srd_stub.c).
FAKE_EFA_OBJS := $(STUB_OBJ)/stub_efa.o $(STUB_OBJ)/stub_fake_efa.o
$(BUILD)/stubs/fake/libefa.so.1: $(FAKE_EFA_OBJS) $(BUILD)/stubs/gen_map
	@mkdir -p $(@D)
	$(call say,STUB,$@)
	$(Q)$(BUILD)/stubs/gen_map efa 44 > $@.map
	$(Q)$(CC) -shared -Wl,-soname,libefa.so.1 -Wl,--version-script=$@.map -o $@ $(FAKE_EFA_OBJS)

# The plugins (SHIM_PLUGINS, above): test/stubs/shim_plugin.c built twice
# on the archive.  No soname: two objects, whatever dlopen() sees.
$(SHIM_PLUGINS): test/stubs/shim_plugin.c $(ARCHIVE) $(CONFIG_H)
	@mkdir -p $(@D)
	$(call say,PLUGIN,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -shared -o $@ $< $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)
$(BUILD)/test/unit/trace_copies: | $(SHIM_PLUGINS)

# A libefa that is there but cannot load: it needs libvs_gone.so.0, which
# exists only while it is linked (test/unit/feature_stubs.c: "found but
# failed to load", not "not found").
$(BUILD)/stubs/broken/libefa.so.1: $(call stub_objs,efa) $(BUILD)/stubs/gen_map
	@mkdir -p $(@D) $(@D)/gone
	$(call say,STUB,$@)
	$(Q)$(CC) -shared -Wl,-soname,libvs_gone.so.0 -o $(@D)/gone/libvs_gone.so.0 -xc /dev/null
	$(Q)ln -sf libvs_gone.so.0 $(@D)/gone/libvs_gone.so
	$(Q)$(BUILD)/stubs/gen_map efa 44 > $@.map
	$(Q)$(CC) -shared -Wl,-soname,libefa.so.1 -Wl,--version-script=$@.map -Wl,--no-as-needed -o $@ $(call stub_objs,efa) -L$(@D)/gone -lvs_gone
	$(Q)rm -rf $(@D)/gone

$(ARCHIVE): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcsD $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/examples/%.o $(EXCOMMON_OBJS) $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(EXCOMMON_OBJS) $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

$(CXX_EXAMPLES): $(BUILD)/bin/%: $(BUILD)/obj/examples/%.o $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(CXXFLAGS_ALL) $(CXX_LDFLAGS) -o $@ $< $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

define tool_rule
$(BUILD)/bin/$(1): $(call tool_objs,$(1)) $(ARCHIVE)
	@mkdir -p $$(@D)
	$$(call say,LD,$$@)
	$$(Q)$$(CC) $$(CFLAGS_ALL) -o $$@ $(call tool_objs,$(1)) $$(ARCHIVE) $$(LDLIBS_SHIM) $$(LDFLAGS)
endef
$(foreach t,$(TOOL_NAMES),$(eval $(call tool_rule,$(t))))
# the version a report names (verbshim-selftest --json)
$(BUILD)/obj/tools/%.o: private CPPFLAGS_ALL += -DVERBSHIM_VERSION_STRING='"$(VERSION)"'

$(BUILD)/test/%: $(BUILD)/obj/test/%.o $(TCOMMON_OBJS) $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(TCOMMON_OBJS) $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS_TEST) $(LDFLAGS)

# The README's C example (its first ```c block) as a user builds it: only
# include/, the archive and -ldl -lpthread.  test/shell/readme.sh compiles
# it with gcc and clang, test/vm/readme.sh runs this build on the device.
$(BUILD)/obj/readme/hello.c: README.md
	@mkdir -p $(@D)
	$(Q)awk '/^```c$$/ { f = 1; next } f && /^```/ { exit } f' $< >$@.tmp && mv $@.tmp $@
$(README_EXAMPLE): $(BUILD)/obj/readme/hello.c $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CSTD) $(WARN) $(OPT) $(SANFLAGS) $(CFLAGS) -Iinclude \
		$(if $(RDMA_CORE_INCLUDE),-isystem $(RDMA_CORE_INCLUDE)) \
		-o $@ $< $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

# Tests that see and fail the library's allocations (test/common/vs_alloc_wrap.h).
ALLOC_WRAP_TESTS := unit/handle_reuse unit/alloc_fail device/cm_churn
$(ALLOC_WRAP_TESTS:%=$(BUILD)/test/%): private LDFLAGS_TEST = \
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=free

$(CXX_TESTS) $(CXX_DEVICE_TESTS): $(BUILD)/test/%: $(BUILD)/obj/test/%.o $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(CXXFLAGS_ALL) $(CXX_LDFLAGS) -o $@ $< $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

# The shim compiled as VISIBILITY=default builds it, for the test of a
# -rdynamic program whose exported drop-ins capture libibverbs' own calls.
SHIM_DEFAULT_OBJS := $(patsubst %.c,$(BUILD)/obj/default-vis/%.o,$(filter-out $(PER_LIB_SRCS),$(wildcard shim/*/*.c))) \
	$(call TABLE_OBJS,default-vis/)
$(call TABLE_OBJS,default-vis/): private CFLAGS_USE = $(CFLAGS_ALL) -fvisibility=default
$(BUILD)/obj/default-vis/shim/%.o: shim/%.c $(CONFIG_H)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fvisibility=default -MMD -MP -c -o $@ $<
$(BUILD)/test/unit/loader_rdynamic: $(BUILD)/obj/test/unit/loader_rdynamic.o $(SHIM_DEFAULT_OBJS)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -rdynamic -o $@ $^ $(LDLIBS_SHIM) $(LDFLAGS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

# A plain verbs program linked the way a user replacing -libverbs would.
$(BUILD)/dropin/plain_verbs: test/dropin/plain_verbs.c $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(WARN) $(OPT) $(SANFLAGS) $(if $(RDMA_CORE_INCLUDE),-isystem $(RDMA_CORE_INCLUDE)) \
		-o $@ $< -L$(dir $(ARCHIVE)) -lverbshim -ldl -lpthread

# libFuzzer targets (test/fuzz/*.c): clang, ASan+UBSan, the library built
# with coverage (SAN=fuzz), in build/fuzz.
#   make fuzz [FUZZ_RUNS=N]   builds them and runs each for N executions
#                             (default 10 M); test/shell/fuzz.sh runs a few
#                             thousand in make check.
FUZZ_RUNS ?= 10000000
FUZZERS := $(patsubst test/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard test/fuzz/*.c))
fuzzers: $(FUZZERS) $(BUILD)/stubs/fake/libibverbs.so.1 $(addprefix $(BUILD)/stubs/v65/,$(STUB_SONAMES))
$(BUILD)/fuzz/%: test/fuzz/%.c $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(ARCHIVE) $(LDLIBS_SHIM)

fuzz:
	$(MAKE) BUILD=build/fuzz CC=clang SAN=fuzz fuzzers
	@for f in build/fuzz/fuzz/*; do \
		echo "== $$f: $(FUZZ_RUNS) executions"; \
		mkdir -p build/fuzz/corpus/$${f##*/}; \
		$$f -runs=$(FUZZ_RUNS) -print_final_stats=1 build/fuzz/corpus/$${f##*/} 2>&1 | \
			grep -E 'Done|stat::number_of_executed_units|ERROR|SUMMARY|abort' || exit 1; \
	done

# The suite builds what its tests need (test/tests.list's NEEDS: the
# library, examples and tests, and the oldest distribution's build, make
# oldest, in its chroot) side by side, with every core (CHECK_JOBS),
# whatever -j make check was given: scripts/check/check.sh, which the targets
# below run.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_ENV = MAKE='$(MAKE)' CHECK_JOBS=$(CHECK_JOBS)
check:
	$(Q)$(CHECK_ENV) scripts/check/check.sh all

check-unit:
	$(Q)$(CHECK_ENV) scripts/check/check.sh unit

check-rxe:
	$(Q)$(CHECK_ENV) scripts/check/check.sh rxe

# The VM stage on soft-iWARP (siw0): the boots of test/boots.list that
# check-siw runs (kernel 6.1 with the host root and two guests, as in
# make check; 33.2 and 65.0 on 6.1, and kernel 6.12 with 56.1).
check-siw:
	$(Q)$(CHECK_ENV) VS_VM_CONFIGS=check-siw scripts/check/check.sh rxe

# Every rdma-core release in service (test/boots.list's group releases):
# the build/oldest binaries on each release root, on rxe (and siw from 28.0
# on; 17.1, 22.4 and 33.2 on kernel 5.10 too); in the boots of the releases
# built from their tags, each release's own examples stock and through
# verbshim (test/vm/release_examples.sh); then rdma-core's own test suite
# of each chosen release that has one (28.0 on), stock and through verbshim
# (scripts/conformance.sh: 17.1 and 22.4 skip, having none); and the host
# tests make check runs on six releases (cross_version, verbshim_info_binary,
# build_root: scripts/rdma-core-releases.sh check) on the chosen ones.
# RELEASES="17.1 22.4" runs only those releases (the groups release-V);
# not part of make check.
RELEASES ?=
check-releases: lib
	$(Q)s=0; $(CHECK_ENV) VS_VM_CONFIGS='$(if $(strip $(RELEASES)),$(addprefix release-,$(RELEASES)),releases)' scripts/check/check.sh rxe || s=1; \
	VS_RELEASES="$(if $(strip $(RELEASES)),$(strip $(RELEASES)),$$(scripts/rdma-core-releases.sh))" test/run.sh --stage releases-host \
		--timeout 3600 test/shell/cross_version.sh test/shell/verbshim_info_binary.sh test/shell/build_root.sh || s=1; \
	c=0; scripts/conformance.sh --release "$(if $(strip $(RELEASES)),$(strip $(RELEASES)),$$(scripts/rdma-core-releases.sh))" || c=$$?; \
	[ $$c -eq 0 ] || [ $$c -eq 77 ] || s=1; exit $$s

# rdma-core's own test suite, stock and through verbshim, compared
# (scripts/conformance.sh, docs/conformance.md); not part of make check.
# RELEASE=44.0 PROVIDER=rxe|siw choose one; ARCH=arm64: 44.0 in the arm64
# guest (scripts/conformance/arm64.sh).  NEWEST=1: 64.0's pyverbs, built on
# Debian 11 through verbshim only, on each release's runtime
# (scripts/conformance/newest.sh; RELEASE="33.2 44.0" chooses runtimes).
check-conformance: lib $(if $(NEWEST),$(BUILD)/bin/verbshim-info)
ifeq ($(ARCH),arm64)
	$(Q)scripts/conformance/arm64.sh $(if $(PROVIDER),--provider $(PROVIDER))
else
	$(Q)scripts/conformance$(if $(NEWEST),-newest).sh $(if $(RELEASE),--release "$(RELEASE)") $(if $(PROVIDER),--provider $(PROVIDER))
endif

# The host root's whole VM set on rxe again with VERBSHIM_TRACE=all
# VERBSHIM_STATS=1 to a file per test (the boot rxe-6.1-trace;
# docs/trace.md): the same verdicts as make check's rxe-6.1, and each
# device test's trace not empty.
check-trace:
	$(Q)$(CHECK_ENV) VS_VM_CONFIGS=check-trace scripts/check/check.sh rxe

# The fault sweep (scripts/check/faults.sh, docs/testing.md): each verbs
# call of every program we ship or show failed on purpose, under
# ASan+UBSan+LSan, in the VM on rxe and siw; the verdicts in
# build/faults/results.tsv.  make check runs a short version
# (test/vm/faults.sh).  FAULTS_ARGS: e.g. --provider rxe --only cm_echo.
check-faults:
	$(Q)MAKE='$(MAKE)' CHECK_JOBS=$(CHECK_JOBS) scripts/check/faults.sh $(FAULTS_ARGS)

# The ASan+UBSan programs make check's short sweep runs (build/asan): the
# examples, the tools and the README's program (test/tests.list: NEEDS
# faults-asan); make check-faults builds the device tests there too.
faults-asan:
	$(Q)$(MAKE) --no-print-directory SAN=asan BUILD=build/asan examples tools build/asan/test/readme/hello

# The second architecture (scripts/check/check-arm64.sh): the arm64 builds, the
# unit tests under qemu-user, the glibc floor, the arm64 guest's VM stage,
# the shell tests of WHERE check-arm64 (the drop-in on arm64).
check-arm64:
	$(Q)$(MAKE) -j$(CHECK_JOBS) ARCH=arm64 all tests
	$(Q)$(MAKE) ARCH=arm64 oldest
	$(Q)scripts/check/check-arm64.sh

demo: all tests
	$(Q)$(if $(filter arm64,$(ARCH)),VS_ARCH=arm64 )scripts/demo.sh

# The soak (test/tests.list's soak entries: test/device/cm_soak.c): a typed CM
# server and SOAK_ROUNDS client connections on rxe in the VM, its RSS and
# fds flat (docs/soak.md).  The VM stage runs it with its default, short
# round count.
SOAK_ROUNDS ?= 1000
soak:
	$(Q)$(MAKE) -s $$(scripts/check/tests.sh needs soak)
	$(Q)VS_SOAK_ROUNDS=$(SOAK_ROUNDS) scripts/vm-run.sh --timeout $$(( $(SOAK_ROUNDS) + 600 )) -- \
		bash -c 'for t; do echo "== $$t"; "$$t" || exit; done' soak $$(scripts/check/tests.sh list --build $(BUILD) soak)

# pkg-config: a static link needs -ldl and -lpthread after the archive;
# the shipped rdma-core headers come before the system's.
RDMA_CORE_CFLAG = $(if $(RDMA_CORE_SET),-I$${includedir}/verbshim/rdma-core )
$(BUILD)/verbshim.pc: Makefile FORCE
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' \
	  'libdir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))' '' 'Name: verbshim' \
	  'Description: portable, typed RDMA verbs without a link-time rdma-core dependency' \
	  'Version: $(VERSION)' 'Cflags: $(RDMA_CORE_CFLAG)-I$${includedir}' \
	  'Libs: -L$${libdir} -lverbshim -ldl -lpthread' > $@

# Man pages: one per public function with a kernel-doc comment in include/
# (scripts/build/kernel-doc-man.py; a malformed comment fails the build).  The
# directory is made afresh so that a removed comment leaves no stale page.
MAN_HEADERS := $(wildcard include/*.h include/verbshim/*.h)
MAN_STAMP   := $(BUILD)/man/man3/.stamp
man: $(MAN_STAMP)
$(MAN_STAMP): scripts/build/kernel-doc-man.py $(MAN_HEADERS)
	$(call say,MAN,$(@D))
	$(Q)rm -rf $(@D) && scripts/build/kernel-doc-man.py --version $(VERSION) --out $(@D) $(MAN_HEADERS) && touch $@

# LIBDIR below PREFIX, as the CMake package finds PREFIX from its own place
LIBDIR_REL = $(if $(filter $(PREFIX)/%,$(LIBDIR)),$(patsubst $(PREFIX)/%,%,$(LIBDIR)),$(error LIBDIR=$(LIBDIR) is not under PREFIX=$(PREFIX)))
install: all man $(BUILD)/verbshim.pc
	install -d $(DESTDIR)$(PREFIX)/include/verbshim/cxx $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/*.h include/*.hpp $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/verbshim/*.h $(FFI_H) $(DESTDIR)$(PREFIX)/include/verbshim/
	install -m 644 include/verbshim/cxx/*.hpp $(DESTDIR)$(PREFIX)/include/verbshim/cxx/
	$(if $(RDMA_CORE_SET),$(install_rdma_core))
	install -m 644 $(ARCHIVE) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(BUILD)/verbshim.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	scripts/build/cmake-package.sh $(VERSION) $(BUILD)/cmake-package $(LIBDIR_REL)
	install -d $(DESTDIR)$(LIBDIR)/cmake/verbshim
	install -m 644 $(BUILD)/cmake-package/verbshimConfig.cmake \
		$(BUILD)/cmake-package/verbshimConfigVersion.cmake $(DESTDIR)$(LIBDIR)/cmake/verbshim/
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(TOOL_MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	find $(BUILD)/man/man3 -name '*.3' -exec install -m 644 -t $(DESTDIR)$(PREFIX)/share/man/man3 {} +
	rm -rf $(BUILD)/compat-dir
	scripts/build/compat-dir.sh --libdir $(LIBDIR) $(PREFIX) $(CONFIG_H) $(BUILD)/compat-dir $(if $(RDMA_CORE_SET),rdma-core)
	install -d $(DESTDIR)$(COMPAT_DIR)
	cp -P $(BUILD)/compat-dir/* $(DESTDIR)$(COMPAT_DIR)/

# The pinned rdma-core headers, with their licence, under the project's
# own prefix: PREFIX/include/verbshim/rdma-core/{infiniband,rdma}, which
# verbshim.pc, the CMake package and the compat .pc files put ahead of
# /usr/include (never over the system's own).
RDMA_CORE_DEST = $(DESTDIR)$(PREFIX)/include/verbshim/rdma-core
define install_rdma_core
install -d $(RDMA_CORE_DEST)/infiniband $(RDMA_CORE_DEST)/rdma
	install -m 644 $(RDMA_CORE_SET)/include/infiniband/*.h $(RDMA_CORE_DEST)/infiniband/
	install -m 644 $(RDMA_CORE_SET)/include/rdma/*.h $(RDMA_CORE_DEST)/rdma/
	install -m 644 $(RDMA_CORE_SET)/COPYING $(RDMA_CORE_SET)/VERSION $(RDMA_CORE_DEST)/
endef

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/include/verbshim $(DESTDIR)$(PREFIX)/include/verbshim.h \
	  $(DESTDIR)$(PREFIX)/include/verbshim.hpp \
	  $(DESTDIR)$(LIBDIR)/libverbshim.a $(DESTDIR)$(LIBDIR)/pkgconfig/verbshim.pc \
	  $(DESTDIR)$(LIBDIR)/cmake/verbshim \
	  $(TOOL_NAMES:%=$(DESTDIR)$(PREFIX)/bin/%) $(DESTDIR)$(LIBDIR)/verbshim \
	  $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(TOOL_MAN1))) \
	  $(DESTDIR)$(PREFIX)/share/man/man3/vs_*.3

clean:
	rm -rf $(BUILD) lib/*.a

# ---- shipping: glibc floor, oldest-distro build, compat dir (docs/shipping.md)
# Every archive object gets shim/loader/glibc_floor.h forced in: the archive binds
# libc symbols to their oldest version nodes (test/shell/glibc_floor.sh).
LIB_CFLAGS += -include shim/loader/glibc_floor.h
$(LIB_OBJS): shim/loader/glibc_floor.h

# The oldest supported distribution's toolchain (scripts/build-root.sh:
# Debian 11, gcc 10, glibc 2.31; the pinned rdma-core headers, bound in,
# not the root's 33) builds the library,
# examples, tests and benches into build/oldest, chrooted (as root).  These are the
# binaries the release matrix runs in every rdma-core root, each on its own
# glibc; binaries meant to ship are built this way.
OLDEST_JOBS  ?= 2
.PHONY: oldest
ifeq ($(ARCH),arm64)
# ARCH=arm64: the same root with bullseye's aarch64 cross gcc 10 and arm64
# glibc 2.31 (scripts/build-root.sh --arch arm64), into build/arm64/oldest.
OLDEST_BUILD := build/arm64/oldest
oldest:
	$(call say,OLDEST,$(OLDEST_BUILD))
	$(Q)scripts/build-root.sh --arch arm64 -- make -j$(OLDEST_JOBS) ARCH=arm64 CC=aarch64-linux-gnu-gcc \
		CXX=aarch64-linux-gnu-g++ AR=aarch64-linux-gnu-ar HOSTCC=gcc BUILD=$(OLDEST_BUILD) V=$(V) all tests benches
	$(Q)scripts/build-root.sh --arch arm64 -- sh -c 'printf "%s; glibc %s (libc6-dev-arm64-cross)\n" "$$(aarch64-linux-gnu-gcc --version | head -n 1)" \
		"$$(dpkg-query -W -f "\$${Version}" libc6-dev-arm64-cross)"' >$(OLDEST_BUILD)/toolchain
else
OLDEST_BUILD := build/oldest
oldest:
	$(call say,OLDEST,$(OLDEST_BUILD))
	$(Q)scripts/build-root.sh -- make -j$(OLDEST_JOBS) BUILD=$(OLDEST_BUILD) V=$(V) all tests benches
	$(Q)scripts/build-root.sh -- sh -c 'printf "%s; %s\n" "$$(gcc --version | head -n 1)" "$$(/lib/x86_64-linux-gnu/libc.so.6 | head -n 1)"' >$(OLDEST_BUILD)/toolchain
endif

# Debian packages (debian/rules): dpkg-buildpackage -b in the build root,
# on a copy of the tree without build/ (DEB_DIR/verbshim-VERSION), so the
# packages never take this checkout's objects; the .debs land in DEB_DIR.
# ARCH=arm64: cross-built (dpkg-buildpackage -a arm64) in the build root
# with bullseye's aarch64 toolchain, into build/arm64/deb.  Both install
# under /usr/lib/TRIPLET (debian/rules: LIBDIR).
ifeq ($(ARCH),arm64)
DEB_DIR := build/arm64/deb
DEB_ROOT := scripts/build-root.sh --arch arm64
DEB_FLAGS := -a arm64
DEB_ENV := CC=aarch64-linux-gnu-gcc
else
DEB_DIR := build/deb
DEB_ROOT := scripts/build-root.sh
DEB_FLAGS :=
DEB_ENV :=
endif
deb:
	$(call say,DEB,$(DEB_DIR))
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/verbshim-$(VERSION)
	$(Q)$(call tree_copy,$(DEB_DIR)/verbshim-$(VERSION))
	$(Q)$(DEB_ROOT) -- sh -c 'umask 022 && cd $(DEB_DIR)/verbshim-$(VERSION) && $(DEB_ENV) $(PKG_ENV) \
		DEB_BUILD_OPTIONS=parallel=$(OLDEST_JOBS) dpkg-buildpackage -b -us -uc $(DEB_FLAGS)' >$(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	$(Q)ls $(DEB_DIR)/*.deb

# The whole package test (lintian, dpkg -i into copies of the four release
# roots, runs on rxe); make check runs its first part.
# The proof that one binary gets the newest API on every release
# (docs/newest-api.md, generated): build/oldest/test/device/newest_api on
# rxe under 33.2, 44.0, 56.1 and 65.0, and on siw under 65.0.  The VM
# stage runs the same test in each of its configurations.
.PHONY: newest-api-table
newest-api-table: oldest
	$(Q)scripts/build/newest-api-table.sh docs/newest-api.md

.PHONY: check-deb
check-deb:
	$(Q)$(MAKE) -s $$(scripts/check/tests.sh needs check-deb)
	$(Q)VS_DEB_FULL=1 test/run.sh --stage deb --timeout 3600 $$(scripts/check/tests.sh list check-deb)

# The real tools that read the ELF dlopen notes (docs/shipping.md,
# test/shell/dlopen_tools.sh): systemd-analyze dlopen-metadata on the
# oldest build's programs, and a user's Debian package built with
# debhelper and dh-dlopenlibdeps against the .deb, in a Debian trixie
# root (scripts/roots/packaging-root.sh; VS_PACKAGING_SUITE=sid for sid).
.PHONY: check-dlopen
check-dlopen:
	$(Q)$(MAKE) -s oldest deb
	$(Q)test/run.sh --stage dlopen --timeout 3600 $$(scripts/check/tests.sh list check-dlopen)

# make install's compat directory (scripts/build/compat-dir.sh): libibverbs.a,
# librdmacm.a, libefa.a, libmlx5.a, libmlx4.a, libibumad.a and their .pc
# files resolving to the shim, for build systems that say -libverbs, -lmlx5...
COMPAT_DIR = $(LIBDIR)/verbshim/compat

# ---- packages: RPMs, reproducible builds, tools installed on request
# (docs/shipping.md: "RPM packages", "Reproducible builds")
#
# Reproducible: the same commit gives the same libverbshim.a, .debs and
# RPMs byte for byte, whatever the directory, time and umask of the build
# (test/shell/reproducible.sh, make check-reproducible): no build path in
# any object (-ffile-prefix-map), archives without dates, owners or modes
# (ar D), members in a fixed order, packages dated by the commit
# (SOURCE_DATE_EPOCH) and built under umask 022.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
PREFIX_MAP := -ffile-prefix-map=$(CURDIR)=.$(if $(RDMA_CORE_INCLUDE), -ffile-prefix-map=$(abspath $(RDMA_CORE_INCLUDE))=rdma-core/include)
CFLAGS_ALL   += $(PREFIX_MAP)
LIB_CFLAGS   += $(PREFIX_MAP)
CXXFLAGS_ALL += $(PREFIX_MAP)
PKG_ENV = $(if $(SOURCE_DATE_EPOCH),SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH))
# The tree the packages are built from (no build/, .git, cache), as a tar
# stream with sorted names, no owners, normalised modes and the commit's date.
TREE_TAR = tar -c --sort=name --owner=0 --group=0 --numeric-owner --mode=u+rw,go-w,a+rX \
	$(if $(SOURCE_DATE_EPOCH),--mtime=@$(SOURCE_DATE_EPOCH)) \
	--exclude=./build --exclude=./.git --exclude=./.cache --exclude='./lib/*.a' $(1) .
tree_copy = $(call TREE_TAR,) | tar -x -C $(1)

# Tools scripts/deps.sh installs only on request: a target that needs one
# says which option installs it, before anything fails for want of it.
need_tool = command -v $(firstword $(1)) >/dev/null 2>&1 || \
	{ echo "make: $(firstword $(1)) not found: run scripts/deps.sh $(2) (as root), then make again" >&2; exit 1; }
.PHONY: need-cc
need-cc:
ifeq ($(ARCH),arm64)
	@$(call need_tool,$(CC),--arm64)
endif
$(BUILD)/gen/config.id: | need-cc

# RPMs (scripts/rpm/verbshim.spec): verbshim-devel (the archive, with Provides:
# verbshim-static, headers, pkg-config, CMake package, compat directory,
# man pages) and verbshim-tools, /usr/lib64 as Fedora and RHEL want.
# rpmbuild (Debian's rpm, scripts/deps.sh --rpm) runs on the host, its
# %build and %install in the Debian 11 build root (the spec's
# verbshim_build_root), as make deb's; ARCH=arm64: --target aarch64,
# cross-built there.  --nodeps: the build root is Debian, its packages
# are not in rpm's database.  The RPMs land in RPM_DIR/RPMS/ARCH.
RPM_ARCH := $(if $(filter arm64,$(ARCH)),aarch64,x86_64)
# the tarball's top directory: verbshim-VERSION, as %setup wants
RPM_TREE = --transform='s,^\.,verbshim-$(VERSION),'
RPM_DIR := $(if $(filter arm64,$(ARCH)),build/arm64/rpm,build/rpm)
RPM_DEFINES = --define '_topdir $(CURDIR)/$(RPM_DIR)' \
	--define 'verbshim_build_root $(CURDIR)/$(DEB_ROOT)' \
	--define '_buildhost verbshim' --define 'source_date_epoch_from_changelog 1' \
	--define 'use_source_date_epoch_as_buildtime 1' --define 'clamp_mtime_to_source_date_epoch 1' \
	--define '_smp_mflags -j$(OLDEST_JOBS)' \
	$(if $(filter arm64,$(ARCH)),--define '__strip aarch64-linux-gnu-strip' --define '__objdump aarch64-linux-gnu-objdump')
rpm:
	@$(call need_tool,rpmbuild,--rpm)
	$(if $(filter arm64,$(ARCH)),@$(call need_tool,aarch64-linux-gnu-strip,--arm64))
	$(call say,RPM,$(RPM_DIR))
	$(Q)rm -rf $(RPM_DIR) && mkdir -p $(RPM_DIR)/SOURCES
	$(Q)$(call TREE_TAR,$(RPM_TREE)) | gzip -9n >$(RPM_DIR)/SOURCES/verbshim-$(VERSION).tar.gz
	$(Q)umask 022 && $(PKG_ENV) rpmbuild -bb --nodeps --target $(RPM_ARCH) $(RPM_DEFINES) scripts/rpm/verbshim.spec \
		>$(RPM_DIR)/build.log 2>&1 || { tail -n 40 $(RPM_DIR)/build.log; exit 1; }
	$(Q)ls $(RPM_DIR)/RPMS/$(RPM_ARCH)/*.rpm

# The whole RPM test (test/shell/rpm.sh: both architectures, rpmlint,
# rpm --root, builds against the installed files, runs on rxe) and the
# reproducibility test (test/shell/reproducible.sh: two checkouts built
# apart); each takes minutes, so neither is part of make check.
.PHONY: check-rpm check-reproducible
check-rpm:
	$(Q)test/run.sh --stage rpm --timeout 3600 $$(scripts/check/tests.sh list check-rpm)
check-reproducible:
	$(Q)test/run.sh --stage reproducible --timeout 3600 $$(scripts/check/tests.sh list check-reproducible)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
