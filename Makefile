# SPDX-License-Identifier: GPL-2.0
#
#   make          build skl_uncore.ko and skl_uncore_sim.ko (sets up the toolchain and the test
#                 kernel first if needed)
#   make run      from a fresh machine: kernel, modules, VM, and a real perf stat
#   make check    every test: host unit tests, then the VM selftests on both test kernels
#                 (lockdep; KASAN+KFENCE); ends "N passed, N failed"
#   make stress   the long stress runs (fuzzing, load cycles, hotplug, wrap soak), ~30 min
#   make bench    hardware accesses per perf operation beside Linux's, read latency, timer
#                 wakeups, footprint (figures, not tests)
#   make install  build against the running kernel, install skl_uncore.ko into its module tree
#                 (autoloaded at boot) and /etc/modprobe.d/skl-uncore.conf (blacklists
#                 intel_uncore); honours DESTDIR, INSTALL_MOD_PATH, MODPROBE_D, RUNNING_KDIR
#   make uninstall  remove both
#   make load     load skl_uncore.ko into the running kernel, after checking it can work
#   make clippy   build with clippy;  make fmt / fmt-check   rustfmt with the kernel's config
#   make clean    remove what the builds left in the tree
#   make host     install the build and VM packages (scripts/setup-host; the targets that
#                 need the test kernel or the VM do it themselves)
#
# make clean, fmt, fmt-check, install and load build no kernel and install no package.
# make KDIR=/your/kernel/tree builds against that tree and installs nothing either.

# The test kernel's tree, built in the cache on first use (scripts/build-kernel sets up the
# host first). Recursively expanded: only the targets that build modules pay for it.
KDIR ?= $(or $(shell scripts/build-kernel),$(error scripts/build-kernel failed, see above))
SKL_MAKE = $(MAKE) -C $(KDIR) M=$(CURDIR)

all: modules

host:
	@scripts/setup-host

modules:
	$(SKL_MAKE) modules

clippy:
	$(SKL_MAKE) CLIPPY=1 modules

# What Kbuild, cargo and the selftest helpers leave (the patterns of .gitignore), removed
# without asking Kbuild: cleaning must not need a kernel tree.
clean:
	find . -name .git -prune -o -type f \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '*.cmd' -o -name '*.d' -o -name '*.rmeta' \
		-o -name '*_generated.rs' \) -exec rm -f {} +
	rm -f Module.symvers modules.order rust-project.json
	rm -rf rust/uncore/target
	$(MAKE) -C selftests clean

# .rustfmt.toml is the kernel's, copied (scripts/check-hygiene compares it with the tree's).
RUST_SOURCES = $(shell git ls-files 'rust/*.rs' 'rust/**/*.rs')
fmt:
	rustfmt --edition 2021 --config-path .rustfmt.toml $(RUST_SOURCES)
fmt-check:
	rustfmt --check --edition 2021 --config-path .rustfmt.toml $(RUST_SOURCES)

# The running kernel's build tree (it must have been built with CONFIG_RUST=y).
RUNNING_KDIR ?= /lib/modules/$(shell uname -r)/build
# Its release: where the module goes under lib/modules/.
KREL ?= $(shell cat $(RUNNING_KDIR)/include/config/kernel.release 2>/dev/null || uname -r)
# Both honour DESTDIR, so a packager or a test can install into a staging tree.
INSTALL_MOD_PATH ?= $(DESTDIR)
MODPROBE_D ?= $(DESTDIR)/etc/modprobe.d
MODDIR = $(INSTALL_MOD_PATH)/lib/modules/$(KREL)/updates
SKL_CONF = $(MODPROBE_D)/skl-uncore.conf

# depmod for $(KREL) in $(INSTALL_MOD_PATH): the autoload aliases (x86cpu table) go to
# modules.alias. depmod -b needs an absolute base directory.
SKL_DEPMOD = depmod -b $(abspath $(or $(INSTALL_MOD_PATH),/)) $(KREL)

install:
	@test -d $(RUNNING_KDIR)/rust || { echo "install: $(RUNNING_KDIR) is not the build tree of \
a Rust-enabled kernel (no rust/ in it): set RUNNING_KDIR=/path/to/your/kernel/build"; exit 1; }
	$(MAKE) -C $(RUNNING_KDIR) M=$(CURDIR) modules
	$(MAKE) -C $(RUNNING_KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH)) modules_install
	@# The simulator is a test module: it stays in the work tree.
	rm -f $(MODDIR)/skl_uncore_sim.ko*
	mkdir -p $(MODPROBE_D)
	printf '%s\n' \
		'# Written by skl-uncore'"'"'s make install; make uninstall removes it.' \
		'# skl_uncore registers the uncore_* perf PMUs that Linux'"'"'s intel_uncore registers too:' \
		'# keep intel_uncore from autoloading at boot so that skl_uncore gets them. (While' \
		'# skl_uncore is loaded, loading intel_uncore by hand fails with EBUSY.) If intel_uncore' \
		'# is built into the kernel, this file cannot stop it: boot with' \
		'# initcall_blacklist=intel_uncore_init instead.' \
		'blacklist intel_uncore' > $(SKL_CONF)
	$(SKL_DEPMOD)
	@echo "install: installed $(MODDIR)/skl_uncore.ko; udev loads it at boot on Skylake-client CPUs"
	@echo "install: wrote $(SKL_CONF): 'blacklist intel_uncore' keeps Linux's intel_uncore"
	@echo "install: from autoloading and taking the uncore_* PMU names (make uninstall removes it)"

uninstall:
	rm -f $(MODDIR)/skl_uncore.ko* $(MODDIR)/skl_uncore_sim.ko* $(SKL_CONF)
	$(SKL_DEPMOD)
	@echo "uninstall: removed $(MODDIR)/skl_uncore.ko and $(SKL_CONF) (intel_uncore may autoload again)"

load:
	scripts/load

run: modules
	scripts/run-demo

check: modules
	scripts/check

stress: modules
	scripts/stress

bench: modules
	scripts/bench

.PHONY: all host modules clippy clean fmt fmt-check run check stress bench install uninstall load
