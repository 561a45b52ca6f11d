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
