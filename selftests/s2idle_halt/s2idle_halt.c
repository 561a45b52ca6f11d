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
 * This driver offers such a state: its ->enter_s2idle halts until an interrupt (a wakeup
 * source) and returns with interrupts off, as ->enter_s2idle must.
 *
 * States: 0 "HALT" (ordinary idle), 1 "S2IDLE" (the same halt, with ->enter_s2idle and a
 * non-zero exit latency: cpuidle looks for s2idle states from index 1 upward, deeper than 0).
 * Loads only where no other idle driver is registered (else cpuidle says -EBUSY).
 */
#include <linux/cpuidle.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/thread_info.h>

/* Halts until an interrupt, which stays pending: returns with interrupts disabled. */
static __always_inline void halt_irqs_off(void)
{
	/* A wakeup already asked for must not wait for the next interrupt. */
	if (tif_need_resched())
		return;
	raw_safe_halt();	/* sti; hlt: an interrupt ends the halt */
	raw_local_irq_disable();
}

static __cpuidle int s2idle_halt_enter(struct cpuidle_device *dev, struct cpuidle_driver *drv,
				       int index)
{
	halt_irqs_off();
	return index;
}

/* Runs with the tick (and, on the last CPU in, timekeeping) frozen: never enable interrupts. */
static __cpuidle int s2idle_halt_enter_s2idle(struct cpuidle_device *dev,
					      struct cpuidle_driver *drv, int index)
{
	halt_irqs_off();
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
			.desc = "HLT, s2idle with tick frozen",
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
