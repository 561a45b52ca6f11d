// SPDX-License-Identifier: GPL-2.0

#include <linux/topology.h>

#ifdef CONFIG_X86

__rust_helper unsigned int rust_helper_topology_logical_package_id(unsigned int cpu)
{
	return topology_logical_package_id(cpu);
}

__rust_helper unsigned int rust_helper_topology_max_packages(void)
{
	return topology_max_packages();
}

__rust_helper unsigned int rust_helper_topology_num_cores_per_package(void)
{
	return topology_num_cores_per_package();
}

#endif /* CONFIG_X86 */
