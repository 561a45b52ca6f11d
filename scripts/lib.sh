# SPDX-License-Identifier: GPL-2.0
# Shared settings for the skl-uncore scripts. Source it; do not run it.

set -euo pipefail

# Everything downloaded or built lives here, outside the work tree.
SKL_CACHE=${SKL_UNCORE_CACHE:-$HOME/.cache/skl-uncore}
SKL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Versions we pin. The kernel comes from Debian's linux-source package.
KERNEL_SERIES_CANDIDATES="7.3 7.2"
BINDGEN_VERSION=0.73.2
LLVM_VERSION=19

export PATH="$HOME/.cargo/bin:$PATH"
export LIBCLANG_PATH=/usr/lib/llvm-$LLVM_VERSION/lib

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

mkdir -p "$SKL_CACHE"

# Holds an exclusive lock on the cache entry NAME until the script exits: builds started from
# several checkouts at once (or make -j) wait for each other instead of sharing a half-built tree.
cache_lock() {
	local fd
	exec {fd}>"$SKL_CACHE/$1.lock"
	flock "$fd"
}

# apt_install PACKAGE...: from the system's own suites (never another), by the caller that holds
# the host lock. A first attempt on a fresh machine has been seen to fail in dpkg; a second one
# finishes.
apt_install() {
	local sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@" >/dev/null ||
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@" >/dev/null
}
# host_install PACKAGE...: those not installed yet, under setup-host's lock, held only for the
# install (a subshell closes it): builds that start side by side (scripts/check's prebuild)
# would otherwise meet in dpkg's lock.
host_install() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	log "installing ${missing[*]}"
	(cache_lock host && apt_install "${missing[@]}")
}

# The VM's CPU: Skylake-Client (family 6, model 0x5E) without the six features TCG does not
# emulate (PCID, TSC deadline, HLE, INVPCID, RTM, XSAVEC). TCG would drop them anyway, with one
# "TCG doesn't support requested feature" warning each: the guest sees the same CPUID.
SKL_VM_CPU=Skylake-Client,-pcid,-tsc-deadline,-hle,-invpcid,-rtm,-xsavec

# checkout_key NAME: the cache entry NAME of this checkout (NAME-<hash of its path>): several
# work trees build at once, each into its own entries.
checkout_key() {
	printf '%s-%s\n' "$1" "$(printf %s "$SKL_TOP" | sha256sum | cut -c1-8)"
}

# A private apt configuration in the cache (its own sources, lists and status), for
# downloading Debian's kernel packages with `apt-get download` from suites the system does not
# name: the system's apt sources are never touched. Sets the array APT_PRIVATE; the lists are
# updated once a day at most (apt_private_update).
apt_private() {
	local dir=$SKL_CACHE/apt
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/etc/preferences.d" \
		"$dir/etc/sources.list.d"
	# A file of this process's own: two scripts starting at once (two vm-runs) each compare
	# and rename their own copy.
	local new=$dir/etc/sources.list.new.$$
	cat > "$new" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
SRC
	# A changed list of suites makes the lists stale.
	if ! cmp -s "$new" "$dir/etc/sources.list"; then
		mv "$new" "$dir/etc/sources.list"
		rm -f "$dir/lists/.updated"
	else
		rm -f "$new"
	fi
	touch "$dir/status"
	APT_PRIVATE=(
		-o "Dir::Etc::sourcelist=$dir/etc/sources.list"
		-o "Dir::Etc::sourceparts=$dir/etc/sources.list.d"
		-o "Dir::Etc::preferencesparts=$dir/etc/preferences.d"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir/cache"
		-o "Dir::State::status=$dir/status"
		-o "Debug::NoLocking=1"
		-o "APT::Sandbox::User=root"
		-o "APT::Get::List-Cleanup=0"
	)
}
# One update at a time (a subshell holds the lock): APT_PRIVATE turns apt's own locking off.
apt_private_update() (
	local stamp=$SKL_CACHE/apt/lists/.updated
	cache_lock apt-update
	[ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ] && exit 0
	log "updating the private apt lists (trixie, trixie-backports)"
	apt-get "${APT_PRIVATE[@]}" update -q >/dev/null
	touch "$stamp"
)
# apt_private_download DIR PACKAGE[=VERSION]...: the .debs into DIR (kept: a second call
# downloads nothing).
apt_private_download() {
	local dir=$1 p missing=()
	shift
	mkdir -p "$dir"
	for p in "$@"; do
		compgen -G "$dir/${p%%=*}_*.deb" >/dev/null || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	apt_private_update
	log "downloading ${missing[*]}"
	(cd "$dir" && apt-get "${APT_PRIVATE[@]}" download -q "${missing[@]}" >/dev/null)
}

# Debian's stock Rust-enabled kernels in the test matrix (vm-run --kernel FLAVOUR): flavour,
# kernel release, Debian package version. Fetched (scripts/fetch-stock), never built.
STOCK_KERNELS="stock:7.3.4+deb13-amd64:7.3.4-1~bpo13+1 stock-7.2:7.2.12+deb13-amd64:7.2.12-1~bpo13+1"
# stock_kernel FLAVOUR: sets STOCK_KREL and STOCK_PKGVER, or fails.
stock_kernel() {
	local k
	for k in $STOCK_KERNELS; do
		if [ "${k%%:*}" = "$1" ]; then
			k=${k#*:}
			STOCK_KREL=${k%%:*} STOCK_PKGVER=${k#*:}
			return 0
		fi
	done
	return 1
}
