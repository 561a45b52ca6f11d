# SPDX-License-Identifier: GPL-2.0
obj-$(CONFIG_PERF_EVENTS_INTEL_SKL_UNCORE)	+= skl_uncore.o
obj-$(CONFIG_PERF_EVENTS_INTEL_SKL_UNCORE_SIM)	+= skl_uncore_sim.o

# The simulator's crate compiles the simulator-only parts of the shared files.
RUSTFLAGS_skl_uncore_sim.o := --cfg skl_sim
