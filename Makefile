# verbshim: build, test, install.
#
#   make                 lib/libverbshim.a, examples, verbshim-info
#   make check           the whole test suite (unit, sanitizers, valgrind,
#                        stubs, cross-version, then the SoftRoCE VM stage)
#   make check-unit      the host stages only
#   make check-rxe       the VM stage only
#   make demo            boot the VM and run the loopback example
#   make install PREFIX=/usr/local DESTDIR=
#
# Knobs: CC=gcc|clang, V=1 (full commands), RDMA_CORE_INCLUDE=DIR (another
# rdma-core header set), VISIBILITY=default (export ibv_* from shared objects
# that link the archive; see README), BUILD=DIR, SAN=asan|tsan (variant).

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
RDMA_CORE_INCLUDE ?=
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

VERSION := 0.1.0

CSTD     := -std=c11
WARN     := -Wall -Wextra -Werror
OPT      ?= -O2 -g
SAN_asan := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_tsan := -fsanitize=thread
SANFLAGS := $(SAN_$(SAN))

CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude -Ishim -I$(BUILD)/gen \
	$(if $(RDMA_CORE_INCLUDE),-isystem $(RDMA_CORE_INCLUDE))
CFLAGS_ALL   := $(CSTD) $(WARN) $(OPT) -fPIC $(SANFLAGS) $(CFLAGS)
LIB_CFLAGS   := $(CFLAGS_ALL) -fvisibility=$(VISIBILITY)
LDLIBS_SHIM  := -ldl -lpthread

# The archive: the shim (loader, tables, drop-ins) and the typed API.
ARCHIVE  := $(if $(filter build,$(BUILD)),lib/libverbshim.a,$(BUILD)/libverbshim.a)
LIB_SRCS := $(wildcard shim/*.c) $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)

# Programs: every examples/NAME.c is build/bin/NAME (verbshim-info too);
# examples/common/*.c is linked into each.
EXAMPLE_SRCS  := $(wildcard examples/*.c)
EXAMPLES      := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/bin/%)
EXCOMMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard examples/common/*.c))

# Tests: test/unit/*.c run on the host, test/rxe/*.c need a device;
# test/common/*.c is linked into each.
UNIT_TESTS   := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(wildcard test/unit/*.c))
RXE_TESTS    := $(patsubst test/rxe/%.c,$(BUILD)/test/rxe/%,$(wildcard test/rxe/*.c))
TCOMMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard test/common/*.c))
BENCHES      := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))

CONFIG_H := $(BUILD)/gen/vs_config.h

.PHONY: all lib examples tests benches check check-unit check-rxe demo \
	install uninstall clean
.DEFAULT_GOAL := all

all: lib examples
lib: $(ARCHIVE)
examples: $(EXAMPLES)
tests: $(UNIT_TESTS) $(RXE_TESTS)
benches: $(BENCHES)

# Which version nodes the rdma-core headers in use declare.  Re-probed when
# the compiler or the header set changes.
$(BUILD)/gen/config.id: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(RDMA_CORE_INCLUDE) $(SAN)' | cmp -s - $@ || echo '$(CC) $(RDMA_CORE_INCLUDE) $(SAN)' > $@
$(CONFIG_H): $(BUILD)/gen/config.id scripts/feature-config.sh $(wildcard shim/syms_*.h)
	$(call say,CONFIG,$@)
	$(Q)scripts/feature-config.sh '$(CC)' $(CPPFLAGS_ALL) $(CSTD) > $@.tmp && mv $@.tmp $@
FORCE:

$(BUILD)/obj/shim/%.o $(BUILD)/obj/lib/%.o: private CFLAGS_USE = $(LIB_CFLAGS)
$(BUILD)/obj/%.o: %.c $(CONFIG_H)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(or $(CFLAGS_USE),$(CFLAGS_ALL)) -MMD -MP -c -o $@ $<

$(ARCHIVE): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/examples/%.o $(EXCOMMON_OBJS) $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(EXCOMMON_OBJS) $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

$(BUILD)/test/%: $(BUILD)/obj/test/%.o $(TCOMMON_OBJS) $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(TCOMMON_OBJS) $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(ARCHIVE)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(ARCHIVE) $(LDLIBS_SHIM) $(LDFLAGS)

check: all tests
	$(Q)scripts/check.sh all

check-unit: all tests
	$(Q)scripts/check.sh unit

check-rxe: all tests
	$(Q)scripts/check.sh rxe

demo: all tests
	$(Q)scripts/demo.sh

# pkg-config: a static link needs -ldl and -lpthread after the archive.
$(BUILD)/verbshim.pc: Makefile
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' \
	  'libdir=$${prefix}/lib' '' 'Name: verbshim' \
	  'Description: portable, typed RDMA verbs without a link-time rdma-core dependency' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lverbshim -ldl -lpthread' > $@

install: all $(BUILD)/verbshim.pc
	install -d $(DESTDIR)$(PREFIX)/include/verbshim $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/*.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/verbshim/*.h $(DESTDIR)$(PREFIX)/include/verbshim/
	install -m 644 lib/libverbshim.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(BUILD)/verbshim.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 755 $(BUILD)/bin/verbshim-info $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/include/verbshim $(DESTDIR)$(PREFIX)/include/verbshim.h \
	  $(DESTDIR)$(PREFIX)/lib/libverbshim.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/verbshim.pc \
	  $(DESTDIR)$(PREFIX)/bin/verbshim-info

clean:
	rm -rf $(BUILD) lib/*.a

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
