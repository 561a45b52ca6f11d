# SPDX-License-Identifier: GPL-2.0
#
#   make          build skl_uncore.ko and skl_uncore_sim.ko (sets up the toolchain and the test
#                 kernel first if needed)
#   make run      from a fresh machine: kernel, modules, VM, and a real perf stat
#   make check    every test: host unit tests, then the VM selftests on both test kernels
#                 (lockdep; KASAN+KFENCE); ends "N passed, N failed"
#   make stress   the long stress runs (fuzzing, load cycles, hotplug, wrap soak), ~30 min
#   make bench    hardware accesses per perf operation beside Linux's, read latency, timer
#                 wakeups, footprint, what PCP collection costs a host (figures, not tests)
#   make install  build against the running kernel, install skl_uncore.ko into its module tree
#                 (autoloaded at boot) and /etc/modprobe.d/skl-uncore.conf (modprobe.conf:
#                 skl_uncore in place of intel_uncore where it loads); honours DESTDIR,
#                 INSTALL_MOD_PATH, MODPROBE_D, RUNNING_KDIR
#                 (on distribution headers without Rust artifacts, prepares them once:
#                 scripts/rust-tree)
#   make uninstall  remove both
#   make deb      skl-uncore-dkms_*.deb (debhelper, dh-dkms): DKMS builds, signs and installs
#                 skl_uncore.ko for each Rust-enabled kernel with headers
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

# The running kernel's build tree or headers (a kernel built with CONFIG_RUST=y).
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

# scripts/rust-tree: RUNNING_KDIR itself when it can build Rust modules; for distribution
# headers without the Rust build artifacts (Debian's), a tree prepared once from the same
# version's source with the kernel's own toolchain, cached. Any missing piece stops it before
# the build, with one line saying what to install.
# Kbuild's modules_install signs with the kernel's key where the tree has it (a kernel built
# here) and skips signing otherwise (distribution headers have no private key: DKMS signs
# instead); its depmod needs a System.map that headers lack, and ours below does the job.
install:
	@set -- $$(scripts/rust-tree $(RUNNING_KDIR)) && [ $$# -gt 0 ] || exit 1; kdir=$$1; shift; \
	key=$$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$$/\1/p' $$kdir/.config); \
	nosign=; case "$$key" in ""|pkcs11:*) ;; /*) [ -f "$$key" ] || nosign=CONFIG_MODULE_SIG_ALL= ;; \
		*) [ -f "$$kdir/$$key" ] || nosign=CONFIG_MODULE_SIG_ALL= ;; esac; \
	echo "$(MAKE) -C $$kdir M=$(CURDIR) $$* modules modules_install $$nosign"; \
	$(MAKE) -C $$kdir M=$(CURDIR) "$$@" modules && \
	$(MAKE) -C $$kdir M=$(CURDIR) "$$@" INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH)) $$nosign \
		cmd_depmod=: modules_install
	@# The simulator is a test module: it stays in the work tree.
	rm -f $(MODDIR)/skl_uncore_sim.ko*
	mkdir -p $(MODPROBE_D)
	install -m 0644 modprobe.conf $(SKL_CONF)
	$(SKL_DEPMOD)
	@echo "install: installed $$(ls $(MODDIR)/skl_uncore.ko*); udev loads it at boot on Skylake-client CPUs"
	@echo "install: wrote $(SKL_CONF): a request for Linux's intel_uncore (udev's at boot) loads"
	@echo "install: skl_uncore, and intel_uncore only where skl_uncore is not built or refuses (make uninstall removes it)"
	@scripts/load --lockdown-note

# DKMS's build step (dkms.conf): the same Rust build tree as make install, cached where DKMS
# builds run as root, then both modules (DKMS installs and signs skl_uncore.ko). Never a
# download: a kernel's postinst hook may run offline (dkms.conf's check skips the kernel
# before this runs when the source is missing).
dkms-build:
	@set -- $$(SKL_NO_DOWNLOAD=1 SKL_UNCORE_CACHE=$${SKL_UNCORE_CACHE:-/var/cache/skl-uncore} \
		scripts/rust-tree $(RUNNING_KDIR)) && [ $$# -gt 0 ] || exit 1; kdir=$$1; shift; \
	$(MAKE) -C $$kdir M=$(CURDIR) "$$@" modules

# skl-uncore-dkms_VERSION_all.deb in this directory, built by debhelper and dh-dkms from a
# clean copy of the sources (debian/).
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "deb: needs debhelper and dh-dkms: apt install debhelper dh-dkms"; exit 1; }
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	mkdir "$$tmp/skl-uncore"; cp -a Kbuild Makefile dkms.conf modprobe.conf debian linux pcp rust scripts "$$tmp/skl-uncore/"; \
	cd "$$tmp/skl-uncore"; rm -rf rust/uncore/target; \
	find linux rust \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '*.cmd' \
		-o -name '*.d' -o -name '*.rmeta' -o -name '*_generated.rs' \) -delete; \
	dpkg-buildpackage -b -us -uc > ../build.log 2>&1 || { tail -n 30 ../build.log; exit 1; }; \
	cp ../skl-uncore-dkms_*.deb $(CURDIR)/; echo "deb: $$(cd .. && ls skl-uncore-dkms_*.deb)"

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

.PHONY: all host modules clippy clean fmt fmt-check run check stress bench install uninstall load \
	dkms-build deb
