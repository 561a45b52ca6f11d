// SPDX-License-Identifier: GPL-2.0
/* See kabi/kglue.h. */
#include <linux/cpuhotplug.h>
#include <linux/io.h>
#include <linux/namei.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/cpumask.h>
#include <linux/sysfs.h>
#include <linux/topology.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/topology.h>

#include "kabi/kglue.h"

int skl_glue_rdmsr(u32 msr, u64 *val)
{
	return rdmsrq_safe(msr, val) ? -EIO : 0;
}

int skl_glue_wrmsr(u32 msr, u64 val)
{
	return wrmsrq_safe(msr, val) ? -EIO : 0;
}

u32 skl_glue_cpu_vfm(void)
{
	return boot_cpu_data.x86_vfm;
}

bool skl_glue_cpu_is_intel(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_INTEL;
}

bool skl_glue_cpu_has_hypervisor(void)
{
	return boot_cpu_has(X86_FEATURE_HYPERVISOR);
}

int skl_glue_cpu_package(unsigned int cpu)
{
	return topology_logical_package_id(cpu);
}

unsigned int skl_glue_max_packages(void)
{
	return topology_max_packages();
}

unsigned int skl_glue_cores_per_package(void)
{
	return topology_num_cores_per_package();
}

int skl_glue_other_online_cpu_in_package(unsigned int cpu)
{
	unsigned int other;

	for_each_online_cpu(other) {
		if (other != cpu &&
		    topology_logical_package_id(other) == topology_logical_package_id(cpu))
			return other;
	}
	return -1;
}

int skl_glue_cpuhp_setup(const char *name, int (*online)(unsigned int cpu, struct hlist_node *node),
			 int (*offline)(unsigned int cpu, struct hlist_node *node))
{
	return cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, name, online, offline);
}

int skl_glue_cpuhp_add_instance(int state, struct hlist_node *node)
{
	return cpuhp_state_add_instance(state, node);
}

void skl_glue_cpuhp_remove(int state, struct hlist_node *node)
{
	cpuhp_state_remove_instance_nocalls(state, node);
	cpuhp_remove_multi_state(state);
}

int skl_glue_wrmsr_on_cpu(unsigned int cpu, u32 msr, u64 val)
{
	return wrmsrq_safe_on_cpu(cpu, msr, val);
}

int skl_glue_host_bridge_read(u16 *vendor, u16 *device, u16 offset, u32 *val)
{
	struct pci_dev *pdev = pci_get_domain_bus_and_slot(0, 0, PCI_DEVFN(0, 0));
	int ret;

	if (!pdev)
		return -ENODEV;
	*vendor = pdev->vendor;
	*device = pdev->device;
	ret = pci_read_config_dword(pdev, offset, val);
	pci_dev_put(pdev);
	return ret ? -EIO : 0;
}

void __iomem *skl_glue_ioremap(u64 phys, size_t size)
{
	return ioremap(phys, size);
}

void skl_glue_iounmap(void __iomem *addr)
{
	iounmap(addr);
}

u32 skl_glue_readl(const void __iomem *base, u32 offset)
{
	return readl(base + offset);
}

bool skl_glue_pmu_name_taken(const char *name)
{
	char *p = kasprintf(GFP_KERNEL, "/sys/bus/event_source/devices/%s", name);
	struct path path;
	bool taken;

	if (!p)
		return false;
	taken = !kern_path(p, 0, &path);
	if (taken)
		path_put(&path);
	kfree(p);
	return taken;
}

ssize_t skl_glue_emit_cpumask(char *buf, const struct cpumask *mask)
{
	return sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(mask));
}

#ifdef SKL_GLUE_SIM
static DEFINE_RAW_SPINLOCK(skl_sim_lock);

unsigned long skl_glue_sim_lock(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&skl_sim_lock, flags);
	return flags;
}

void skl_glue_sim_unlock(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&skl_sim_lock, flags);
}
#endif
