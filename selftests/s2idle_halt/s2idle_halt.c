// SPDX-License-Identifier: GPL-2.0
/*
 * s2idle_halt: a test-only cpuidle driver that makes suspend-to-idle in a QEMU guest freeze
 * the clock, as it does on a laptop.
 *
 * A TCG guest has no idle driver (cpuidle's current_driver is "none": no MWAIT for intel_idle,
 * no _CST for acpi_idle), so the s2idle loop only halts in default_idle_call(): the tick keeps
 * running and CLOCK_MONOTONIC with it. Real machines enter s2idle through an idle state that
 * has ->enter_s2idle; cpuidle then calls tick_freeze() on every CPU, and the last one in
 * suspends timekeeping (CLOCK_MONOTONIC stops, CLOCK_BOOTTIME later gets the sleep added).
 *
 * This driver offers such a state. Its ->enter_s2idle must not enable interrupts, even for a
 * moment (an interrupt handled with timekeeping suspended calls ktime_get(), which warns): so
 * no HLT, which needs them enabled to wake (acpi_idle keeps halt-induced C1 out of s2idle for
 * the same reason), and TCG's MWAIT neither blocks nor takes MWAIT's break-on-interrupt hint.
 * It waits as MWAIT with that hint does on real parts: with interrupts off, until the local
 * APIC holds a requested interrupt (a wakeup source, an IPI), which cpuidle's caller takes
 * once the tick is unfrozen. The wait spins: a vCPU in it keeps a host thread busy.
 *
 * States: 0 "HALT" (ordinary idle, HLT); 1 "S2IDLE" (HLT in ordinary idle, the wait above in
 * s2idle, a non-zero exit latency: cpuidle looks for s2idle states from index 1 upward).
 * Loads only where no other idle driver is registered (else cpuidle says -EBUSY).
 */
#include <linux/cpuidle.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/thread_info.h>
#include <asm/apicdef.h>
#include <asm/fixmap.h>
#include <asm/msr.h>

/* Ordinary idle: halts until an interrupt, takes it, returns with interrupts disabled. */
static __cpuidle int s2idle_halt_enter(struct cpuidle_device *dev, struct cpuidle_driver *drv,
				       int index)
{
	/* A wakeup already asked for must not wait for the next interrupt. */
	if (!tif_need_resched()) {
		raw_safe_halt();	/* sti; hlt */
		raw_local_irq_disable();
	}
	return index;
}

/* IRR word @i (vectors 32 i .. 32 i + 31) of this CPU's local APIC, x2APIC or xAPIC. */
static __always_inline u32 lapic_irr(bool x2apic, unsigned int i)
{
	if (x2apic)
		return (u32)__rdmsr(APIC_BASE_MSR + ((APIC_IRR + i * 0x10) >> 4));
	return readl((void __iomem *)(APIC_BASE + APIC_IRR + i * 0x10));
}

/* Runs with the tick (and, on the last CPU in, timekeeping) frozen: never enable interrupts. */
static __cpuidle int s2idle_halt_enter_s2idle(struct cpuidle_device *dev,
					      struct cpuidle_driver *drv, int index)
{
	bool x2apic = __rdmsr(MSR_IA32_APICBASE) & X2APIC_ENABLE;
	unsigned int i;

	while (!tif_need_resched()) {
		for (i = 0; i < 8; i++)
			if (lapic_irr(x2apic, i))
				return 0;
		cpu_relax();
	}
	return 0;
}

static struct cpuidle_driver s2idle_halt_driver = {
	.name = "s2idle_halt",
	/*
	 * No .owner: cpuidle would hold a reference per CPU device and rmmod could never run
	 * the exit function that unregisters them.
	 */
	.states = {
		{
			.name = "HALT",
			.desc = "HLT",
			.exit_latency = 0,
			.target_residency = 0,
			.enter = s2idle_halt_enter,
		},
		{
			.name = "S2IDLE",
			.desc = "HLT; s2idle: wait, IRQs off",
			.exit_latency = 1,
			.target_residency = 2,
			.enter = s2idle_halt_enter,
			.enter_s2idle = s2idle_halt_enter_s2idle,
		},
	},
	.state_count = 2,
};

static int __init s2idle_halt_init(void)
{
	int ret = cpuidle_register(&s2idle_halt_driver, NULL);

	if (ret)
		pr_info("s2idle_halt: not registered (%d): another idle driver is in place or cpuidle is off\n",
			ret);
	return ret;
}

static void __exit s2idle_halt_exit(void)
{
	cpuidle_unregister(&s2idle_halt_driver);
}

module_init(s2idle_halt_init);
module_exit(s2idle_halt_exit);
MODULE_DESCRIPTION("Test-only cpuidle driver: suspend-to-idle freezes the tick in a VM");
MODULE_LICENSE("GPL");
