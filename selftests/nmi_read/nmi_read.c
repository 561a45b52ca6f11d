// SPDX-License-Identifier: GPL-2.0
/*
 * nmi_read: a test-only module that reads perf events in NMI context, as BPF programs run
 * from a perf NMI handler do (bpf_perf_event_read_value -> perf_event_read_local).
 *
 * A TCG guest has no vPMU, so no perf sampling NMI ever fires there. This module makes its
 * own: it registers an NMI_LOCAL handler and sends NMI IPIs to a chosen CPU; the handler
 * checks it runs in NMI on that CPU and calls perf_event_read_local() on every event it
 * opened. With PERF_EV_CAP_READ_SCOPE (package scope), that calls the PMU's read on any CPU
 * of the event's package, and refuses (-EINVAL) on another package.
 *
 * perf_event_read_local() is not exported: the test script passes its address from
 * /proc/kallsyms (parameter read_local). The module logs nothing; it reports through
 * debugfs, /sys/kernel/debug/nmi_read/:
 *   ctl (write)   "open CPU TYPE CONFIG": a kernel counter (perf_event_create_kernel_counter)
 *                 "read CPU": one NMI on CPU reads every event; its results go to `results`
 *                 "loop MS": for MS ms, NMI reads of every event on every online CPU, in turn
 *                 (the loop's figures add up over loops, from the first open after a close)
 *                 "close": reads each event's final count (perf_event_read_value) and
 *                 releases every event
 *   results (read) one line per "read", per event: "read CPU ev I err E value V enabled N
 *                 running R nmi 0|1 on C"; then "loop rounds R timeouts T not_nmi N
 *                 wrong_cpu W"; per event "loop ev I ok_cpus MASK einval_cpus MASK
 *                 other_err N backwards B last V"; after close "final ev I value V enabled N
 *                 running R".
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#define MAX_EV 16
#define MAX_RECS 512

static unsigned long read_local;
module_param(read_local, ulong, 0400);
MODULE_PARM_DESC(read_local, "Address of perf_event_read_local (from /proc/kallsyms)");

typedef int (*read_local_fn)(struct perf_event *, u64 *, u64 *, u64 *);

/* What one NMI found, per event. */
struct nmi_res {
	int err;
	u64 value, enabled, running;
};

/* One CPU's request: set by the requester, cleared by the handler when done. */
struct slot {
	atomic_t req;
	int in_nmi;
	int cpu;
	struct nmi_res res[MAX_EV];
};

struct rec {
	int cpu, ev, in_nmi, ran_on;
	struct nmi_res r;
};

struct loop_ev {
	u64 ok_cpus, einval_cpus, other_err, backwards, last;
};

static DEFINE_MUTEX(lock);
static struct perf_event *evs[MAX_EV];
static int nev;
static struct slot *slots;
static struct rec *recs;
static int nrecs;
static struct loop_ev loop_ev[MAX_EV];
static u64 loop_rounds, loop_timeouts, loop_not_nmi, loop_wrong_cpu;
static bool loop_done;
static struct nmi_res final[MAX_EV];
static int nfinal;
static struct dentry *dir;

static int nmi_read_handler(unsigned int type, struct pt_regs *regs)
{
	struct slot *s = &slots[smp_processor_id()];
	read_local_fn fn = (read_local_fn)read_local;
	int i;

	if (!atomic_read_acquire(&s->req))
		return NMI_DONE;
	s->in_nmi = !!in_nmi();
	s->cpu = smp_processor_id();
	for (i = 0; i < nev; i++) {
		struct nmi_res *r = &s->res[i];

		r->value = r->enabled = r->running = 0;
		r->err = fn(evs[i], &r->value, &r->enabled, &r->running);
	}
	atomic_set_release(&s->req, 0);
	return NMI_HANDLED;
}

/* One NMI on @cpu reads every event; false if it was not handled within a second. */
static bool nmi_read_on(int cpu)
{
	struct slot *s = &slots[cpu];
	u64 end = ktime_get_ns() + NSEC_PER_SEC;

	atomic_set_release(&s->req, 1);
	__apic_send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
	while (atomic_read_acquire(&s->req)) {
		if (ktime_get_ns() > end) {
			/* Withdraw it; a late NMI then finds nothing to do. */
			atomic_set(&s->req, 0);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static int cmd_open(int cpu, u32 type, u64 config)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
	};
	struct perf_event *ev;

	if (nev == MAX_EV || cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	if (!nev) {
		memset(loop_ev, 0, sizeof(loop_ev));
		loop_rounds = loop_timeouts = loop_not_nmi = loop_wrong_cpu = 0;
		loop_done = false;
	}
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	evs[nev++] = ev;
	return 0;
}

static int cmd_read(int cpu)
{
	struct slot *s;
	int i;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu) || nrecs + nev > MAX_RECS)
		return -EINVAL;
	if (!nmi_read_on(cpu))
		return -ETIMEDOUT;
	s = &slots[cpu];
	for (i = 0; i < nev; i++)
		recs[nrecs++] = (struct rec){ .cpu = cpu, .ev = i, .in_nmi = s->in_nmi,
					      .ran_on = s->cpu, .r = s->res[i] };
	return 0;
}

static int cmd_loop(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;
	int cpu, i;

	loop_done = true;
	while (ktime_get_ns() < end) {
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			struct slot *s = &slots[cpu];

			if (!nmi_read_on(cpu)) {
				loop_timeouts++;
				continue;
			}
			loop_not_nmi += !s->in_nmi;
			loop_wrong_cpu += s->cpu != cpu;
			for (i = 0; i < nev; i++) {
				struct nmi_res *r = &s->res[i];
				struct loop_ev *l = &loop_ev[i];

				if (r->err == -EINVAL) {
					l->einval_cpus |= BIT_ULL(cpu % 64);
				} else if (r->err) {
					l->other_err++;
				} else {
					l->ok_cpus |= BIT_ULL(cpu % 64);
					/* Reads are serialised here: a count never goes back. */
					l->backwards += r->value < l->last;
					l->last = max(l->last, r->value);
				}
			}
		}
		cpus_read_unlock();
		loop_rounds++;
		cond_resched();
	}
	return 0;
}

static void cmd_close(void)
{
	int i;

	for (i = 0; i < nev; i++) {
		struct nmi_res *f = &final[i];

		f->value = perf_event_read_value(evs[i], &f->enabled, &f->running);
		perf_event_release_kernel(evs[i]);
		evs[i] = NULL;
	}
	nfinal = nev;
	nev = 0;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[96];
	int cpu, ret;
	u32 type;
	u64 config;
	unsigned int ms;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	mutex_lock(&lock);
	if (sscanf(buf, "open %d %u %llx", &cpu, &type, &config) == 3)
		ret = cmd_open(cpu, type, config);
	else if (sscanf(buf, "read %d", &cpu) == 1)
		ret = cmd_read(cpu);
	else if (sscanf(buf, "loop %u", &ms) == 1 && ms <= 60000)
		ret = cmd_loop(ms);
	else if (!strcmp(buf, "close\n") || !strcmp(buf, "close"))
		ret = (cmd_close(), 0);
	else
		ret = -EINVAL;
	mutex_unlock(&lock);
	return ret ? ret : len;
}

static int results_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&lock);
	for (i = 0; i < nrecs; i++) {
		struct rec *r = &recs[i];

		seq_printf(m, "read %d ev %d err %d value %llu enabled %llu running %llu nmi %d on %d\n",
			   r->cpu, r->ev, r->r.err, r->r.value, r->r.enabled, r->r.running,
			   r->in_nmi, r->ran_on);
	}
	if (loop_done) {
		seq_printf(m, "loop rounds %llu timeouts %llu not_nmi %llu wrong_cpu %llu\n",
			   loop_rounds, loop_timeouts, loop_not_nmi, loop_wrong_cpu);
		for (i = 0; i < MAX_EV; i++) {
			struct loop_ev *l = &loop_ev[i];

			if (l->ok_cpus | l->einval_cpus | l->other_err)
				seq_printf(m, "loop ev %d ok_cpus %#llx einval_cpus %#llx other_err %llu backwards %llu last %llu\n",
					   i, l->ok_cpus, l->einval_cpus, l->other_err,
					   l->backwards, l->last);
		}
	}
	for (i = 0; i < nfinal; i++)
		seq_printf(m, "final ev %d value %llu enabled %llu running %llu\n", i,
			   final[i].value, final[i].enabled, final[i].running);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(results);

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static int __init nmi_read_init(void)
{
	int ret;

	if (!read_local)
		return -EINVAL;
	slots = kcalloc(nr_cpu_ids, sizeof(*slots), GFP_KERNEL);
	recs = kcalloc(MAX_RECS, sizeof(*recs), GFP_KERNEL);
	if (!slots || !recs) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = register_nmi_handler(NMI_LOCAL, nmi_read_handler, 0, "nmi_read");
	if (ret)
		goto fail;
	dir = debugfs_create_dir("nmi_read", NULL);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("results", 0400, dir, NULL, &results_fops);
	return 0;
fail:
	kfree(slots);
	kfree(recs);
	return ret;
}

static void __exit nmi_read_exit(void)
{
	debugfs_remove(dir);
	mutex_lock(&lock);
	cmd_close();
	mutex_unlock(&lock);
	unregister_nmi_handler(NMI_LOCAL, "nmi_read");
	kfree(slots);
	kfree(recs);
}

module_init(nmi_read_init);
module_exit(nmi_read_exit);
MODULE_DESCRIPTION("Test-only: reads perf events in NMI context");
MODULE_LICENSE("GPL");
