/*
 * Emulated Skylake client uncore PMU ("skl-uncore").
 *
 * A model of the uncore performance monitoring registers of the 6th
 * generation Intel Core processor, written from the Uncore Performance
 * Monitoring Reference Manual 334060-001 (Table 2-1 and sections 2.2-2.4,
 * 3.3) and shaped by part profiles ("sku") taken from probes of real parts,
 * so that unmodified uncore drivers run against it under TCG:
 *
 * - MSRs (Table 2-1): MSR_UNC_PERF_GLOBAL_CTRL 0xE01, _GLOBAL_STATUS 0xE02,
 *   MSR_UNC_PERF_FIXED_CTRL 0x394, _FIXED_CTR 0x395, MSR_UNC_CBO_CONFIG
 *   0x396 (read only), MSR_UNC_ARB_PERFCTR0/1 0x3B0/0x3B1,
 *   _PERFEVTSEL0/1 0x3B2/0x3B3, MSR_UNC_CBO_n_PERFEVTSELi 0x700 + 0x10n + i,
 *   MSR_UNC_CBO_n_PERFCTRi 0x706 + 0x10n + i (CBo 7 at 0xF70/0xF76, as on
 *   8-core Coffee Lake). Which of them exist, how many counters a CBo has
 *   and which bits fault on write is the profile's. Absent registers and
 *   reserved bits raise #GP. Generic counters are 44 bits, the fixed one
 *   48; they count only while GLOBAL_CTRL.EN and their own enable are set,
 *   wrap at their width and then set their GLOBAL_STATUS overflow bit.
 * - One register file per package (socket of -smp), chosen by the socket of
 *   the CPU that executes RDMSR/WRMSR.
 * - The host bridge 0:0.0 (i440FX or q35 MCH) shows a Skylake device ID to
 *   64-bit code (the OS) and its own ID to the 16/32-bit firmware (SeaBIOS
 *   recognises its chipset by that ID), and gains MCHBAR at config
 *   0x48/0x4C (MCHBAREN bit 0, base bits 38:15), programmed at reset. The
 *   window holds the five free-running 32-bit IMC counters (Table 3-3).
 * - Traffic, from QEMU_CLOCK_VIRTUAL: the fixed counter ticks at UCLK
 *   (optionally not while every vCPU of the package is halted), the IMC
 *   counters at their rates from seeded start values, CBo and ARB counters
 *   count background traffic at their rates. The backdoor (MSRs
 *   0x534b4c00..02, which no driver touches) injects events, presets and
 *   peeks counters, loses part of the state, changes the rates, and keeps
 *   per-counter tallies of what was counted between enable and disable.
 * - Per-register access counts (RDMSR, WRMSR, MMIO reads, config reads of
 *   0:0.0), read and zeroed through the backdoor.
 * - Every register returns to its power-on value on system reset, which on
 *   the pc machines includes the wakeup from S3.
 *
 * Usage: -device skl-uncore[,sku=NAME][,PROP=VALUE]... (see the properties
 * at the end of this file).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/qdev-core.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "hw/boards.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pci_host.h"
#include "migration/vmstate.h"
#include "system/reset.h"
#include "system/tcg.h"
#include "exec/address-spaces.h"
#include "exec/memory.h"
#include "hw/core/cpu.h"
#include "cpu.h"
#include "hw/i386/skl_uncore.h"

#define TYPE_SKL_UNCORE "skl-uncore"
OBJECT_DECLARE_SIMPLE_TYPE(SklUncoreState, SKL_UNCORE)

/* Table 2-1. */
#define MSR_UNC_PERF_GLOBAL_CTRL    0xE01
#define MSR_UNC_PERF_GLOBAL_STATUS  0xE02
#define MSR_UNC_PERF_FIXED_CTRL     0x394
#define MSR_UNC_PERF_FIXED_CTR      0x395
#define MSR_UNC_CBO_CONFIG          0x396
/*
 * Not in the manual; on the i7-6700K (VirtualBox's probe): 0x391..0x393 the
 * pre-Skylake uncore global control, status and overflow control (read 0;
 * 0x391 and 0x393 accept and ignore some bits, 0x392 is read only), 0x397 a
 * 4-bit register that keeps what is written.
 */
#define MSR_UNC_LEGACY_GLOBAL_CTRL  0x391
#define MSR_UNC_LEGACY_GLOBAL_STATUS 0x392
#define MSR_UNC_LEGACY_OVF_CTRL     0x393
#define MSR_UNC_UNK_397             0x397
#define LEGACY_GLOBAL_CTRL_IGNORED  0xfc8000070000000full
#define LEGACY_OVF_CTRL_IGNORED     0x3ull
#define UNK_397_VALID               0xFull
#define MSR_UNC_ARB_PERFCTR0        0x3B0
#define MSR_UNC_ARB_PERFEVTSEL0     0x3B2
#define MSR_UNC_CBO_0_PERFEVTSEL0   0x700
/* Linux's CFL_UNC_CBO_7_PERFEVTSEL0: 0x770 holds other MSRs there. */
#define MSR_UNC_CBO_7_PERFEVTSEL0   0xF70
#define CBO_AUX4_OFFSET             0x4
#define CBO_AUX5_OFFSET             0x5
#define CBO_PERFCTR_OFFSET          0x6
#define CBO_STRIDE                  0x10
/* CBo boxes with known MSR addresses: 0..6 at 0x700 + 0x10n, 7 at 0xF70. */
#define MAX_CBOS                    8
#define MAX_PACKAGES                8

/* Table 2-2: FRZ_ON_PMI 31, WAKE_ON_PMI 30, EN 29, PMI_SEL_CORE3..0 3:0. */
#define GLOBAL_CTRL_EN              (1u << 29)
/*
 * Table 2-3: FIXED_CTR_OVF 0, ARB_CTR_OVF 1, CBO_CTR_OVF printed at bit 31
 * inside "Reserved 63:4"; bit 3 is taken as the intended position.
 */
#define STATUS_FIXED_OVF            (1u << 0)
#define STATUS_ARB_OVF              (1u << 1)
#define STATUS_CBO_OVF              (1u << 3)
/* Table 2-4: CNT_EN 22, OVF_EN 20. */
#define FIXED_CTRL_CNT_EN           (1u << 22)
#define FIXED_CTRL_VALID            (FIXED_CTRL_CNT_EN | (1u << 20))
/*
 * Table 2-7: THR 28:24, INV 23, EN 22, OVF_EN 20, E 18, UMASK 15:8,
 * EVT_SEL 7:0.
 */
#define EVTSEL_EN                   (1u << 22)
#define EVTSEL_INV                  (1u << 23)
#define EVTSEL_E                    (1u << 18)
#define EVTSEL_VALID_MANUAL         0x1FD4FFFFull
/* The i7-6700K's #GP mask 0xffffffffe0230000: bit 19 too, not 17:16, 21. */
#define EVTSEL_VALID_PROBED         0x1FDCFFFFull
#define EVTSEL_THR(v)               (((v) >> 24) & 0x1f)
#define EVTSEL_UMASK(v)             (((v) >> 8) & 0xff)
#define EVTSEL_EVENT(v)             ((v) & 0xff)
/* The unnamed registers at +4 and +5 of a probed CBo block: 4 bits. */
#define AUX_VALID                   0xFull

#define GENERIC_WIDTH               44  /* Table 2-8 */
#define FIXED_WIDTH                 48  /* Table 2-5 */
#define IMC_WIDTH                   32  /* Table 1-2 */

/* MCHBAR: config 0x48 (low) and 0x4C (high); base bits 38:15, EN bit 0. */
#define PCI_MCHBAR                  0x48
#define MCHBAR_EN                   1ull
#define MCHBAR_BASE_MASK            0x7FFFFF8000ull
#define MCHBAR_SIZE                 0x8000
/* Table 3-3, indexed by the IMC event code - 1 as Linux and the sim do. */
static const uint32_t imc_offsets[5] = { 0x5050, 0x5054, 0x5040, 0x5044,
                                         0x5048 };

#define NR_GENERIC_BOXES            (MAX_CBOS + 1)
#define ARB_BOX                     MAX_CBOS
#define MAX_COUNTERS                4
#define ARB_COUNTERS                2

/* Sampling period of the vCPUs' halt state for uclk-idle-stop. */
#define IDLE_SAMPLE_NS              (1 * SCALE_MS)

/*
 * A part: what its uncore MSRs look like. Sources in qemu/README.md; the
 * strength of each (probe, tool, anecdote) is stated there.
 */
typedef struct SklProfile {
    const char *name;
    uint8_t slices;             /* CBo slices: MSR_UNC_CBO_CONFIG - 1 */
    uint8_t extra_blocks;       /* CBo blocks beyond the slices */
    uint8_t counters;           /* PERFEVTSEL/PERFCTR pairs per CBo */
    bool aux_regs;              /* 4-bit registers at +4 and +5, 0x391..0x393, 0x397 */
    uint64_t evtsel_valid;
    uint32_t global_ctrl_valid;
    uint32_t status_valid;
} SklProfile;

static const SklProfile skl_profiles[] = {
    /* VirtualBox's MSR probe of the real part (the default). */
    { "i7-6700K", 4, 1, 4, true, EVTSEL_VALID_PROBED, 0xE000001F, 0xF },
    /* Manual 334060-001 read strictly: Table 2-1, Table 2-2, Table 2-3. */
    { "manual", 4, 0, 2, false, EVTSEL_VALID_MANUAL, 0xE000000F,
      STATUS_FIXED_OVF | STATUS_ARB_OVF | STATUS_CBO_OVF },
    /* 2 cores: 0x396 = 3, three blocks (Broadwell i7-5600U probe). */
    { "2-core", 2, 1, 4, true, EVTSEL_VALID_PROBED, 0xE000001F, 0xF },
    /* Whiskey Lake: a write to 0x703 faulted (Intel PCM issue 337). */
    { "i7-8665U", 4, 1, 2, true, EVTSEL_VALID_PROBED, 0xE000001F, 0xF },
    /* 8-core Coffee Lake: CBo 7 at 0xF70 (Linux CFL_UNC_CBO_7_*). */
    { "i9-9900K", 8, 0, 4, true, EVTSEL_VALID_PROBED, 0xE000001F, 0xF },
    /* 10-core Comet Lake: 8 boxes with known addresses (Linux's cap). */
    { "i9-10900K", 10, 0, 4, true, EVTSEL_VALID_PROBED, 0xE000001F, 0xF },
};
#define DEFAULT_SKU "i7-6700K"

/* Backdoor commands (see backdoor_command). */
#define BD_MAGIC                    0x534b4c55u /* "SKLU" */
enum {
    BD_CMD_INFO = 1,
    BD_CMD_INJECT = 2,
    BD_CMD_PRESET = 3,
    BD_CMD_STATS_NEXT = 4,
    BD_CMD_STATS_RESET = 5,
    BD_CMD_PEEK = 6,
    BD_CMD_TALLY = 7,
    BD_CMD_TALLY_RESET = 8,
    BD_CMD_LOSE = 9,
    BD_CMD_RATE = 10,
    BD_CMD_FAULTS_NEXT = 11,
    BD_CMD_FAULTS_RESET = 12,
};
enum { UNIT_CBOX, UNIT_ARB, UNIT_CLOCK, UNIT_IMC };
enum { LOSE_CTRL = 1, LOSE_COUNTERS = 2, LOSE_GLOBAL = 3, LOSE_ALL = 4 };
enum { BD_OK = 0, BD_ENOCMD = 1, BD_ENOBOX = 2, BD_EBADEVENT = 3 };
#define BD_NR_ARGS                  8
#define BD_MSR_SEL                  0x534b4c00u
#define BD_MSR_ARG                  0x534b4c01u
#define BD_MSR_CMD                  0x534b4c02u

/* Access counts: MSRs below 0x1000, MCHBAR dwords, config dwords. */
#define NR_MSR_STATS                0x1000
#define NR_MMIO_STATS               (MCHBAR_SIZE / 4)
#define NR_CFG_STATS                64
enum { STAT_MSR = 1, STAT_MMIO = 2, STAT_CFG = 3 };

/*
 * Faults a test asks for with the "faults" property (see fault_parse): what
 * a part nobody here can touch might do. FAULT_EN: the register exists, but a
 * write with its enable bit set raises #GP (Intel PCM issue 337).
 */
enum { FAULT_NONE, FAULT_ABSENT, FAULT_EN, FAULT_READ, FAULT_WRITE };

/*
 * Valid counters (manual section 3): an event on a counter the tables do not
 * allow counts 0 here (what a real part counts then is not documented) and
 * is tallied as a violation when a write enables it. Table 3-2: ARB
 * UNC_ARB_TRK_OCCUPANCY (event 0x80) on counter 0 only.
 */
typedef struct SklConstraint {
    bool arb;                   /* ARB (else CBo) */
    uint8_t event;
    uint8_t counters;           /* bit i: counter i may count it */
} SklConstraint;

static const SklConstraint skl_constraints[] = {
    { true, 0x80, 0x1 },
};

/* What a counter counted while enabled, for tests (not migrated). */
typedef struct SklTally {
    bool counting;
    uint64_t start;             /* value when the open interval began */
    uint64_t closed;            /* sum over closed intervals */
    uint64_t starts;
} SklTally;

/* The uncore of one package. */
typedef struct SklPackage {
    uint64_t global_ctrl;
    uint64_t global_status;
    uint64_t fixed_ctrl;
    uint64_t fixed_ctr;
    uint64_t evtsel[NR_GENERIC_BOXES][MAX_COUNTERS];
    uint64_t ctr[NR_GENERIC_BOXES][MAX_COUNTERS];
    uint64_t aux[MAX_CBOS];
    uint64_t unk_397;
    /* Sub-event remainders of the clocks. */
    uint64_t fixed_frac;
    uint64_t bg_frac[NR_GENERIC_BOXES][MAX_COUNTERS];
    /* Some vCPU of the package ran at the last sample (uclk-idle-stop). */
    bool uclk_running;

    SklTally tally[NR_GENERIC_BOXES][MAX_COUNTERS];
    SklTally fixed_tally;
} SklPackage;

struct SklUncoreState {
    DeviceState parent_obj;

    /* Properties. */
    char *sku;
    char *faults;
    uint8_t cbos;
    uint8_t cbo_counters;
    uint8_t cbo_config;
    uint32_t global_ctrl_valid;
    uint16_t host_bridge_id;
    uint64_t mchbar_reset;
    bool mchbar_en_reset;
    uint64_t uclk_hz;
    bool uclk_idle_stop;
    uint64_t imc_rate[5];
    uint64_t cbo_background;
    uint64_t arb_background;
    uint64_t seed;

    /* The part, from the profile and the overrides. */
    const SklProfile *profile;
    int profile_idx;
    int slices;
    int blocks;
    int counters;
    uint64_t evtsel_valid;
    uint32_t gctrl_valid;
    int npkgs;

    QemuMutex lock;
    PCIDevice *bridge;
    PCIConfigReadFunc *bridge_read;
    PCIConfigWriteFunc *bridge_write;
    MemoryRegion mmio;
    bool mmio_mapped;
    QEMUTimer *idle_timer;

    /* Registers. */
    SklPackage pkg[MAX_PACKAGES];
    uint64_t imc[5];
    uint64_t mchbar;
    uint32_t resets;

    /* Time: the virtual clock at the last advance, and sub-tick remainders. */
    int64_t last_ns;
    uint64_t imc_frac[5];

    /* Backdoor. */
    uint32_t bd_sel;
    uint32_t bd_status;
    uint64_t bd_arg[BD_NR_ARGS];

    /* Access counts. */
    uint64_t msr_reads[NR_MSR_STATS];
    uint64_t msr_writes[NR_MSR_STATS];
    uint64_t mmio_reads[NR_MMIO_STATS];
    uint64_t cfg_reads[NR_CFG_STATS];

    /*
     * Fault modes per package and MSR ("faults", "@N" names one package),
     * tallies (#GP raised, constraint violations) per MSR.
     */
    uint8_t fault_mode[MAX_PACKAGES][NR_MSR_STATS];
    uint64_t gp_count[NR_MSR_STATS];
    uint64_t viol_count[NR_MSR_STATS];
};

/* The TCG RDMSR/WRMSR helpers have no device at hand: they find it here. */
static SklUncoreState *skl_msr_model;

static void advance(SklUncoreState *s);
static void backdoor_command(SklUncoreState *s, int pkg, uint32_t cmd);

static uint64_t width_mask(int bits)
{
    return (1ull << bits) - 1;
}

/* Whole ticks of a @rate Hz clock in @dt ns, carrying the remainder. */
static uint64_t ticks(uint64_t rate, uint64_t dt, uint64_t *frac)
{
    unsigned __int128 t = (unsigned __int128)rate * dt + *frac;

    *frac = (uint64_t)(t % NANOSECONDS_PER_SECOND);
    return (uint64_t)(t / NANOSECONDS_PER_SECOND);
}

static void bump(SklPackage *p, uint64_t *ctr, uint64_t inc, int width,
                 uint64_t ovf_bit)
{
    uint64_t sum = *ctr + inc;

    /* A wrap sets the overflow bit (an increment may wrap more than once). */
    if (inc && (sum < *ctr || (sum & ~width_mask(width)))) {
        p->global_status |= ovf_bit;
    }
    *ctr = sum & width_mask(width);
}

static bool global_en(SklPackage *p)
{
    return p->global_ctrl & GLOBAL_CTRL_EN;
}

static bool fixed_enabled(SklPackage *p)
{
    return global_en(p) && (p->fixed_ctrl & FIXED_CTRL_CNT_EN);
}

static int box_counters(SklUncoreState *s, int box)
{
    return box == ARB_BOX ? ARB_COUNTERS : s->counters;
}

static bool box_present(SklUncoreState *s, int box)
{
    return box == ARB_BOX || box < s->blocks;
}

static bool counting(SklPackage *p, int box, int idx)
{
    return global_en(p) && (p->evtsel[box][idx] & EVTSEL_EN);
}

/* Tallies: opens or closes the interval of @t as @now says. */
static void tally_edge(SklTally *t, bool now, uint64_t val, int width)
{
    if (now && !t->counting) {
        t->start = val;
        t->starts++;
    } else if (!now && t->counting) {
        t->closed += (val - t->start) & width_mask(width);
    }
    t->counting = now;
}

/* A write that is not traffic (driver, preset, loss): not in the tally. */
static void tally_rebase(SklTally *t, uint64_t old, uint64_t val, int width)
{
    if (t->counting) {
        t->closed += (old - t->start) & width_mask(width);
        t->start = val;
    }
}

static uint64_t tally_value(SklTally *t, uint64_t val, int width)
{
    return t->closed +
           (t->counting ? (val - t->start) & width_mask(width) : 0);
}

/* After any change of an enable: tallies follow the counting state. */
static void update_edges(SklUncoreState *s, SklPackage *p)
{
    int b, i;

    for (b = 0; b < NR_GENERIC_BOXES; b++) {
        if (!box_present(s, b)) {
            continue;
        }
        for (i = 0; i < box_counters(s, b); i++) {
            tally_edge(&p->tally[b][i], counting(p, b, i), p->ctr[b][i],
                       GENERIC_WIDTH);
        }
    }
    tally_edge(&p->fixed_tally, fixed_enabled(p), p->fixed_ctr, FIXED_WIDTH);
}

static void set_ctr(SklPackage *p, int box, int idx, uint64_t val)
{
    tally_rebase(&p->tally[box][idx], p->ctr[box][idx], val, GENERIC_WIDTH);
    p->ctr[box][idx] = val;
}

static void set_fixed_ctr(SklPackage *p, uint64_t val)
{
    tally_rebase(&p->fixed_tally, p->fixed_ctr, val, FIXED_WIDTH);
    p->fixed_ctr = val;
}

static void tally_reset(SklUncoreState *s, SklPackage *p)
{
    memset(p->tally, 0, sizeof(p->tally));
    memset(&p->fixed_tally, 0, sizeof(p->fixed_tally));
    update_edges(s, p);
}

/*
 * Increment of a counter programmed with @sel for @count events, modelled
 * as a burst of @count consecutive UCLK cycles with an increment of 1 each
 * (Table 2-7): THR = 0 passes the events through; otherwise a cycle counts
 * when its increment (1) is >= THR, or < THR with INV. A burst has no idle
 * cycle, so INV with THR = 1 counts nothing. E counts de-asserted to
 * asserted transitions: one per burst that counts.
 */
static uint64_t filtered_increment(uint64_t sel, uint64_t count)
{
    uint64_t thr = EVTSEL_THR(sel);
    uint64_t hits;

    if (thr == 0) {
        hits = count;
    } else if (sel & EVTSEL_INV) {
        hits = thr > 1 ? count : 0;
    } else {
        hits = thr == 1 ? count : 0;
    }
    if (sel & EVTSEL_E) {
        return hits > 0;
    }
    return hits;
}

/* Whether counter @idx of @box may count the event of @sel (section 3). */
static bool constraint_ok(int box, int idx, uint64_t sel)
{
    int i;

    for (i = 0; i < ARRAY_SIZE(skl_constraints); i++) {
        const SklConstraint *c = &skl_constraints[i];

        if (c->arb == (box == ARB_BOX) && c->event == EVTSEL_EVENT(sel)) {
            return c->counters & (1u << idx);
        }
    }
    return true;
}

/* Brings every clock and background count up to the virtual clock. */
static void advance(SklUncoreState *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint64_t dt = now > s->last_ns ? now - s->last_ns : 0;
    int n, b, i;

    s->last_ns = now;
    if (!dt) {
        return;
    }
    for (n = 0; n < s->npkgs; n++) {
        SklPackage *p = &s->pkg[n];

        if (fixed_enabled(p) && (!s->uclk_idle_stop || p->uclk_running)) {
            bump(p, &p->fixed_ctr, ticks(s->uclk_hz, dt, &p->fixed_frac),
                 FIXED_WIDTH, STATUS_FIXED_OVF);
        }
        /* LLC and ARB traffic never stops on a real part. */
        for (b = 0; b < NR_GENERIC_BOXES; b++) {
            uint64_t rate = b == ARB_BOX ? s->arb_background
                                         : s->cbo_background;

            if (!box_present(s, b) || !rate) {
                continue;
            }
            for (i = 0; i < box_counters(s, b); i++) {
                uint64_t n_ev;

                if (!counting(p, b, i)) {
                    continue;
                }
                n_ev = ticks(rate, dt, &p->bg_frac[b][i]);
                if (!constraint_ok(b, i, p->evtsel[b][i])) {
                    continue;
                }
                bump(p, &p->ctr[b][i],
                     filtered_increment(p->evtsel[b][i], n_ev), GENERIC_WIDTH,
                     b == ARB_BOX ? STATUS_ARB_OVF : STATUS_CBO_OVF);
            }
        }
    }
    for (i = 0; i < 5; i++) {
        s->imc[i] = (s->imc[i] + ticks(s->imc_rate[i], dt, &s->imc_frac[i])) &
                    width_mask(IMC_WIDTH);
    }
}

/* splitmix64: arbitrary but reproducible IMC start values from the seed. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static void reset_package(SklUncoreState *s, SklPackage *p)
{
    p->global_ctrl = 0;
    p->global_status = 0;
    p->fixed_ctrl = 0;
    p->fixed_ctr = 0;
    memset(p->evtsel, 0, sizeof(p->evtsel));
    memset(p->ctr, 0, sizeof(p->ctr));
    memset(p->aux, 0, sizeof(p->aux));
    p->unk_397 = 0;
    memset(p->bg_frac, 0, sizeof(p->bg_frac));
    p->fixed_frac = 0;
    p->uclk_running = true;
    tally_reset(s, p);
}

/* Power-on values. The access counts and MCHBAR mapping are not here. */
static void reset_registers(SklUncoreState *s)
{
    int i;

    for (i = 0; i < MAX_PACKAGES; i++) {
        reset_package(s, &s->pkg[i]);
    }
    /* The DRAM counters free-run from wherever they were: never 0. */
    for (i = 0; i < 5; i++) {
        uint64_t v = mix64(s->seed ^ mix64(((uint64_t)s->resets << 8) | i));

        s->imc[i] = (v & width_mask(IMC_WIDTH)) ?: 1;
    }
    s->resets++;
    memset(s->imc_frac, 0, sizeof(s->imc_frac));
    s->last_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* What an MSR of the model is. */
enum { R_EVTSEL, R_CTR, R_AUX4, R_AUX5, R_ABSENT };

/* CBo @box's first MSR. */
static uint32_t cbo_base(int box)
{
    return box == 7 ? MSR_UNC_CBO_7_PERFEVTSEL0
                    : MSR_UNC_CBO_0_PERFEVTSEL0 + CBO_STRIDE * box;
}

/*
 * Decodes a generic counter MSR: returns false if @msr is none. *@box is
 * the CBo number or ARB_BOX, *@idx the counter, *@kind R_* (R_ABSENT if
 * this part lacks the register).
 */
static bool decode_generic(SklUncoreState *s, uint32_t msr, int *box, int *idx,
                           int *kind)
{
    uint32_t off;

    if (msr >= MSR_UNC_ARB_PERFCTR0 && msr < MSR_UNC_ARB_PERFCTR0 + 4) {
        bool is_ctr = msr < MSR_UNC_ARB_PERFEVTSEL0;

        *box = ARB_BOX;
        *idx = is_ctr ? msr - MSR_UNC_ARB_PERFCTR0
                      : msr - MSR_UNC_ARB_PERFEVTSEL0;
        *kind = is_ctr ? R_CTR : R_EVTSEL;
        return true;
    }
    if (msr >= MSR_UNC_CBO_0_PERFEVTSEL0 &&
        msr < MSR_UNC_CBO_0_PERFEVTSEL0 + 7 * CBO_STRIDE) {
        *box = (msr - MSR_UNC_CBO_0_PERFEVTSEL0) / CBO_STRIDE;
    } else if (msr >= MSR_UNC_CBO_7_PERFEVTSEL0 &&
               msr < MSR_UNC_CBO_7_PERFEVTSEL0 + CBO_STRIDE) {
        *box = 7;
    } else {
        return false;
    }
    off = msr - cbo_base(*box);
    *idx = 0;
    *kind = R_ABSENT;
    if (*box >= s->blocks) {
        return true;
    }
    if (off < CBO_AUX4_OFFSET) {
        *idx = off;
        *kind = R_EVTSEL;
    } else if (off >= CBO_PERFCTR_OFFSET &&
               off < CBO_PERFCTR_OFFSET + MAX_COUNTERS) {
        *idx = off - CBO_PERFCTR_OFFSET;
        *kind = R_CTR;
    } else if (s->profile->aux_regs && off == CBO_AUX4_OFFSET) {
        *kind = R_AUX4;
    } else if (s->profile->aux_regs && off == CBO_AUX5_OFFSET) {
        *kind = R_AUX5;
    }
    if ((*kind == R_EVTSEL || *kind == R_CTR) && *idx >= s->counters) {
        *kind = R_ABSENT;
    }
    return true;
}

/* 0x770..0x77F are not the model's: other MSRs (HWP) on real parts. */
static bool is_model_msr(uint32_t msr)
{
    return msr == MSR_UNC_PERF_GLOBAL_CTRL ||
           msr == MSR_UNC_PERF_GLOBAL_STATUS ||
           (msr >= MSR_UNC_LEGACY_GLOBAL_CTRL && msr <= MSR_UNC_UNK_397) ||
           (msr >= MSR_UNC_ARB_PERFCTR0 && msr < MSR_UNC_ARB_PERFCTR0 + 4) ||
           (msr >= MSR_UNC_CBO_0_PERFEVTSEL0 &&
            msr < MSR_UNC_CBO_0_PERFEVTSEL0 + 7 * CBO_STRIDE) ||
           (msr >= MSR_UNC_CBO_7_PERFEVTSEL0 &&
            msr < MSR_UNC_CBO_7_PERFEVTSEL0 + CBO_STRIDE);
}

static bool is_backdoor_msr(uint32_t msr)
{
    return msr >= BD_MSR_SEL && msr <= BD_MSR_CMD;
}

/* The package of a CPU whose socket is @socket (-1 if unknown). */
static int package_index(SklUncoreState *s, int socket)
{
    return socket > 0 && socket < s->npkgs ? socket : 0;
}

static SklPackage *package_of(SklUncoreState *s, int socket)
{
    return &s->pkg[package_index(s, socket)];
}

/*
 * Backdoor, three MSRs far from any architectural or uncore MSR, so that no
 * driver reaches them and they stay out of the access counts:
 *   BD_MSR_SEL   read: magic "SKLU"; write: select argument N (0..7)
 *   BD_MSR_ARG   read/write: argument N (64 bits)
 *   BD_MSR_CMD   write: run command; read: status of the last command
 * A command takes its arguments from and leaves its results in the args,
 * and acts on the package of the CPU that writes BD_MSR_CMD. Nothing here
 * raises #GP: a refused command only sets the status.
 */
static void backdoor_rdmsr(SklUncoreState *s, uint32_t msr, uint64_t *val)
{
    switch (msr) {
    case BD_MSR_SEL:
        *val = BD_MAGIC;
        break;
    case BD_MSR_ARG:
        *val = s->bd_arg[s->bd_sel];
        break;
    case BD_MSR_CMD:
        *val = s->bd_status;
        break;
    }
}

static void backdoor_wrmsr(SklUncoreState *s, int pkg, uint32_t msr,
                           uint64_t val)
{
    switch (msr) {
    case BD_MSR_SEL:
        s->bd_sel = val % BD_NR_ARGS;
        break;
    case BD_MSR_ARG:
        s->bd_arg[s->bd_sel] = val;
        break;
    case BD_MSR_CMD:
        advance(s);
        backdoor_command(s, pkg, val);
        break;
    }
}

/* The enable bit of @msr for FAULT_EN, 0 if it has none. */
static uint64_t fault_en_bit(uint32_t msr)
{
    if (msr == MSR_UNC_PERF_GLOBAL_CTRL) {
        return GLOBAL_CTRL_EN;
    }
    if (msr == MSR_UNC_PERF_FIXED_CTRL) {
        return FIXED_CTRL_CNT_EN;
    }
    if (msr >= MSR_UNC_ARB_PERFEVTSEL0 && msr < MSR_UNC_ARB_PERFEVTSEL0 + 2) {
        return EVTSEL_EN;
    }
    /* A CBo PERFEVTSEL (+0..+3 of a block), whether or not the part has it. */
    if (msr >= MSR_UNC_CBO_0_PERFEVTSEL0 &&
        msr < MSR_UNC_CBO_0_PERFEVTSEL0 + 7 * CBO_STRIDE) {
        return (msr - MSR_UNC_CBO_0_PERFEVTSEL0) % CBO_STRIDE <
               CBO_AUX4_OFFSET ? EVTSEL_EN : 0;
    }
    if (msr >= MSR_UNC_CBO_7_PERFEVTSEL0 &&
        msr < MSR_UNC_CBO_7_PERFEVTSEL0 + CBO_AUX4_OFFSET) {
        return EVTSEL_EN;
    }
    return 0;
}

/*
 * An RDMSR or WRMSR of a model register by a CPU of @socket (lock held):
 * counted, the clocks brought up to now, the package's UCLK awake. Returns
 * the package.
 */
static SklPackage *msr_access(SklUncoreState *s, int socket, uint32_t msr,
                              bool write)
{
    SklPackage *p = package_of(s, socket);

    if (write) {
        s->msr_writes[msr]++;
    } else {
        s->msr_reads[msr]++;
    }
    advance(s);
    p->uclk_running = true;
    return p;
}

/*
 * Whether the "faults" property makes this RDMSR (or WRMSR of @val) by a CPU
 * of package @pkg #GP.
 */
static bool fault_refuses(SklUncoreState *s, int pkg, uint32_t msr,
                          bool write, uint64_t val)
{
    switch (s->fault_mode[pkg][msr]) {
    case FAULT_ABSENT:
        return true;
    case FAULT_READ:
        return !write;
    case FAULT_WRITE:
        return write;
    case FAULT_EN:
        return write && (val & fault_en_bit(msr));
    }
    return false;
}

/* One register of a "faults" entry gets @mode on package @pkg, -1 all. */
static bool fault_set(SklUncoreState *s, int pkg, uint64_t msr, int mode,
                      const char *entry, Error **errp)
{
    int n;

    if (msr >= NR_MSR_STATS || !is_model_msr(msr)) {
        error_setg(errp, "skl-uncore: faults: '%s' is not a register of the "
                   "model", entry);
        return false;
    }
    if (mode == FAULT_EN && !fault_en_bit(msr)) {
        error_setg(errp, "skl-uncore: faults: '%s': register %#" PRIx64
                   " has no enable bit", entry, msr);
        return false;
    }
    for (n = 0; n < MAX_PACKAGES; n++) {
        if (pkg < 0 || pkg == n) {
            s->fault_mode[n][msr] = mode;
        }
    }
    return true;
}

/*
 * The "faults" property: ENTRY[+ENTRY]..., ENTRY = REG:MODE[@PKG]. REG is an
 * MSR number (0x703) or evtselN / ctrN (PERFEVTSELN / PERFCTRN of every CBo).
 * MODE: absent (RDMSR and WRMSR #GP), en (WRMSR with the enable bit set
 * #GPs), read (RDMSR #GPs), write (every WRMSR #GPs). @PKG: on package PKG
 * (0 .. sockets - 1) only; without it, on every package.
 */
static bool fault_parse(SklUncoreState *s, Error **errp)
{
    static const char *const modes[] = { "", "absent", "en", "read", "write" };
    g_auto(GStrv) entries = NULL;
    int e, m, b;

    memset(s->fault_mode, FAULT_NONE, sizeof(s->fault_mode));
    if (!s->faults || !*s->faults) {
        return true;
    }
    entries = g_strsplit(s->faults, "+", -1);
    for (e = 0; entries[e]; e++) {
        const char *entry = entries[e];
        const char *colon = strchr(entry, ':');
        const char *at = colon ? strchr(colon, '@') : NULL;
        g_autofree char *reg = NULL;
        g_autofree char *mname = NULL;
        unsigned n;
        int mode = FAULT_NONE, pkg = -1;
        uint64_t msr, pkgn;

        if (colon) {
            mname = at ? g_strndup(colon + 1, at - colon - 1)
                       : g_strdup(colon + 1);
            for (m = FAULT_ABSENT; m <= FAULT_WRITE; m++) {
                if (!strcmp(mname, modes[m])) {
                    mode = m;
                }
            }
        }
        if (mode == FAULT_NONE) {
            error_setg(errp, "skl-uncore: faults: '%s' is not REG:MODE[@PKG] "
                       "(MODE absent, en, read or write)", entry);
            return false;
        }
        if (at) {
            if (qemu_strtou64(at + 1, NULL, 10, &pkgn) || pkgn >= s->npkgs) {
                error_setg(errp, "skl-uncore: faults: '%s': PKG is a package, "
                           "0..%d", entry, s->npkgs - 1);
                return false;
            }
            pkg = pkgn;
        }
        reg = g_strndup(entry, colon - entry);
        if (sscanf(reg, "evtsel%u", &n) == 1 && n < MAX_COUNTERS) {
            for (b = 0; b < MAX_CBOS; b++) {
                if (!fault_set(s, pkg, cbo_base(b) + n, mode, entry, errp)) {
                    return false;
                }
            }
        } else if (sscanf(reg, "ctr%u", &n) == 1 && n < MAX_COUNTERS) {
            for (b = 0; b < MAX_CBOS; b++) {
                if (!fault_set(s, pkg, cbo_base(b) + CBO_PERFCTR_OFFSET + n,
                               mode, entry, errp)) {
                    return false;
                }
            }
        } else if (qemu_strtou64(reg, NULL, 0, &msr) == 0) {
            if (!fault_set(s, pkg, msr, mode, entry, errp)) {
                return false;
            }
        } else {
            error_setg(errp, "skl-uncore: faults: '%s': REG is an MSR number, "
                       "evtselN or ctrN", entry);
            return false;
        }
    }
    return true;
}

bool skl_uncore_rdmsr(int socket, uint32_t msr, uint64_t *val, bool *gp)
{
    SklUncoreState *s = skl_msr_model;
    SklPackage *p;
    int box, idx, kind;

    if (!s || (!is_model_msr(msr) && !is_backdoor_msr(msr))) {
        return false;
    }
    *gp = false;
    *val = 0;
    qemu_mutex_lock(&s->lock);
    if (is_backdoor_msr(msr)) {
        backdoor_rdmsr(s, msr, val);
        qemu_mutex_unlock(&s->lock);
        return true;
    }
    p = msr_access(s, socket, msr, false);
    if (fault_refuses(s, package_index(s, socket), msr, false, 0)) {
        *gp = true;
        goto out;
    }
    switch (msr) {
    case MSR_UNC_LEGACY_GLOBAL_CTRL:
    case MSR_UNC_LEGACY_GLOBAL_STATUS:
    case MSR_UNC_LEGACY_OVF_CTRL:
        *gp = !s->profile->aux_regs;
        break;
    case MSR_UNC_UNK_397:
        *gp = !s->profile->aux_regs;
        *val = p->unk_397;
        break;
    case MSR_UNC_PERF_GLOBAL_CTRL:
        *val = p->global_ctrl;
        break;
    case MSR_UNC_PERF_GLOBAL_STATUS:
        *val = p->global_status;
        break;
    case MSR_UNC_PERF_FIXED_CTRL:
        *val = p->fixed_ctrl;
        break;
    case MSR_UNC_PERF_FIXED_CTR:
        *val = p->fixed_ctr;
        break;
    case MSR_UNC_CBO_CONFIG:
        *val = s->cbo_config;
        break;
    default:
        decode_generic(s, msr, &box, &idx, &kind);
        switch (kind) {
        case R_EVTSEL:
            *val = p->evtsel[box][idx];
            break;
        case R_CTR:
            *val = p->ctr[box][idx];
            break;
        case R_AUX4:
            *val = p->aux[box];
            break;
        case R_AUX5:
            break;
        default:
            *gp = true;
            break;
        }
        break;
    }
out:
    if (*gp) {
        *val = 0;
        s->gp_count[msr]++;
    }
    qemu_mutex_unlock(&s->lock);
    return true;
}

/* A write of the profile's reserved bits or of an absent register: #GP. */
static bool write_generic(SklUncoreState *s, SklPackage *p, uint32_t msr,
                          uint64_t val)
{
    int box, idx, kind;

    decode_generic(s, msr, &box, &idx, &kind);
    switch (kind) {
    case R_EVTSEL:
        if (val & ~s->evtsel_valid) {
            return false;
        }
        p->evtsel[box][idx] = val;
        if ((val & EVTSEL_EN) && !constraint_ok(box, idx, val)) {
            s->viol_count[msr]++;
        }
        return true;
    case R_CTR:
        if (val & ~width_mask(GENERIC_WIDTH)) {
            return false;
        }
        set_ctr(p, box, idx, val);
        return true;
    case R_AUX4:
        if (val & ~AUX_VALID) {
            return false;
        }
        p->aux[box] = val;
        return true;
    case R_AUX5:
        /* The probe: bits 3:0 accepted, the write ignored. */
        return !(val & ~AUX_VALID);
    }
    return false;
}

bool skl_uncore_wrmsr(int socket, uint32_t msr, uint64_t val, bool *gp)
{
    SklUncoreState *s = skl_msr_model;
    SklPackage *p;

    if (!s || (!is_model_msr(msr) && !is_backdoor_msr(msr))) {
        return false;
    }
    *gp = false;
    qemu_mutex_lock(&s->lock);
    if (is_backdoor_msr(msr)) {
        backdoor_wrmsr(s, package_index(s, socket), msr, val);
        qemu_mutex_unlock(&s->lock);
        return true;
    }
    p = msr_access(s, socket, msr, true);
    if (fault_refuses(s, package_index(s, socket), msr, true, val)) {
        *gp = true;
        goto out;
    }
    switch (msr) {
    case MSR_UNC_LEGACY_GLOBAL_CTRL:
        *gp = !s->profile->aux_regs || (val & ~LEGACY_GLOBAL_CTRL_IGNORED);
        break;
    case MSR_UNC_LEGACY_GLOBAL_STATUS:
        *gp = true; /* read only */
        break;
    case MSR_UNC_LEGACY_OVF_CTRL:
        *gp = !s->profile->aux_regs || (val & ~LEGACY_OVF_CTRL_IGNORED);
        break;
    case MSR_UNC_UNK_397:
        if (!s->profile->aux_regs || (val & ~UNK_397_VALID)) {
            *gp = true;
        } else {
            p->unk_397 = val;
        }
        break;
    case MSR_UNC_PERF_GLOBAL_CTRL:
        if (val & ~(uint64_t)s->gctrl_valid) {
            *gp = true;
        } else {
            p->global_ctrl = val;
        }
        break;
    case MSR_UNC_PERF_GLOBAL_STATUS:
        /* RW1C: writing 1 clears, writing 0 is ignored. */
        if (val & ~(uint64_t)s->profile->status_valid) {
            *gp = true;
        } else {
            p->global_status &= ~val;
        }
        break;
    case MSR_UNC_PERF_FIXED_CTRL:
        if (val & ~(uint64_t)FIXED_CTRL_VALID) {
            *gp = true;
        } else {
            p->fixed_ctrl = val;
        }
        break;
    case MSR_UNC_PERF_FIXED_CTR:
        if (val & ~width_mask(FIXED_WIDTH)) {
            *gp = true;
        } else {
            set_fixed_ctr(p, val);
        }
        break;
    case MSR_UNC_CBO_CONFIG:
        *gp = true; /* read only */
        break;
    default:
        *gp = !write_generic(s, p, msr, val);
        break;
    }
    update_edges(s, p);
out:
    if (*gp) {
        s->gp_count[msr]++;
    }
    qemu_mutex_unlock(&s->lock);
    return true;
}

/* Box index of (@unit, @box) for generic counters, or -1. */
static int generic_box(SklUncoreState *s, uint64_t unit, uint64_t box)
{
    if (unit == UNIT_CBOX) {
        return box < s->blocks ? box : -1;
    }
    if (unit == UNIT_ARB) {
        return box == 0 ? ARB_BOX : -1;
    }
    return -1;
}

/* The backdoor's "inject": returns how many counters saw it, or -BD_*. */
static int64_t do_inject(SklUncoreState *s, SklPackage *p, uint64_t unit,
                         uint64_t box, uint64_t event, uint64_t umask,
                         uint64_t count)
{
    int b, i, hit = 0;

    switch (unit) {
    case UNIT_CBOX:
    case UNIT_ARB:
        b = generic_box(s, unit, box);
        if (b < 0) {
            return -BD_ENOBOX;
        }
        if (event > 0xff || umask > 0xff) {
            return -BD_EBADEVENT;
        }
        for (i = 0; i < box_counters(s, b); i++) {
            uint64_t sel = p->evtsel[b][i];

            if (!counting(p, b, i) || EVTSEL_EVENT(sel) != event ||
                (EVTSEL_UMASK(sel) & umask) != umask ||
                !constraint_ok(b, i, sel)) {
                continue;
            }
            bump(p, &p->ctr[b][i], filtered_increment(sel, count),
                 GENERIC_WIDTH,
                 b == ARB_BOX ? STATUS_ARB_OVF : STATUS_CBO_OVF);
            hit++;
        }
        return hit;
    case UNIT_CLOCK:
        if (box != 0) {
            return -BD_ENOBOX;
        }
        if (!fixed_enabled(p)) {
            return 0;
        }
        bump(p, &p->fixed_ctr, count, FIXED_WIDTH, STATUS_FIXED_OVF);
        return 1;
    case UNIT_IMC:
        if (box != 0) {
            return -BD_ENOBOX;
        }
        if (umask != 0 || event < 1 || event > 5) {
            return -BD_EBADEVENT;
        }
        s->imc[event - 1] = (s->imc[event - 1] + count) &
                            width_mask(IMC_WIDTH);
        return 1;
    }
    return -BD_ENOBOX;
}

/*
 * The counter (@unit, @box, @idx) as a pointer, or NULL: COUNTER is the
 * generic index, 0 for the clock, the IMC event code (1..5) for the IMC.
 */
static uint64_t *counter_ptr(SklUncoreState *s, SklPackage *p, uint64_t unit,
                             uint64_t box, uint64_t idx, int *width)
{
    int b;

    switch (unit) {
    case UNIT_CBOX:
    case UNIT_ARB:
        b = generic_box(s, unit, box);
        if (b < 0 || idx >= box_counters(s, b)) {
            return NULL;
        }
        *width = GENERIC_WIDTH;
        return &p->ctr[b][idx];
    case UNIT_CLOCK:
        if (box != 0 || idx != 0) {
            return NULL;
        }
        *width = FIXED_WIDTH;
        return &p->fixed_ctr;
    case UNIT_IMC:
        if (box != 0 || idx < 1 || idx > 5) {
            return NULL;
        }
        *width = IMC_WIDTH;
        return &s->imc[idx - 1];
    }
    return NULL;
}

/* The backdoor's "preset": not traffic, so not in the tallies. */
static int64_t do_preset(SklUncoreState *s, SklPackage *p, uint64_t unit,
                         uint64_t box, uint64_t idx, uint64_t value)
{
    int width;
    uint64_t *c = counter_ptr(s, p, unit, box, idx, &width);

    if (!c) {
        return -BD_ENOBOX;
    }
    value &= width_mask(width);
    if (unit == UNIT_CLOCK) {
        set_fixed_ctr(p, value);
    } else if (unit == UNIT_IMC) {
        *c = value;
    } else {
        set_ctr(p, generic_box(s, unit, box), idx, value);
    }
    return 0;
}

/*
 * The backdoor's "tally": what the counters of a box counted while enabled
 * since the last tally reset (arg0), and how often counting started (arg1).
 * COUNTER selects one counter, or all of the box with ~0.
 */
static int64_t do_tally(SklUncoreState *s, SklPackage *p, uint64_t unit,
                        uint64_t box, uint64_t idx, uint64_t *sum,
                        uint64_t *starts)
{
    int b, i;

    *sum = *starts = 0;
    if (unit == UNIT_CLOCK) {
        if (box != 0 || (idx != 0 && idx != ~0ull)) {
            return -BD_ENOBOX;
        }
        *sum = tally_value(&p->fixed_tally, p->fixed_ctr, FIXED_WIDTH);
        *starts = p->fixed_tally.starts;
        return 0;
    }
    b = generic_box(s, unit, box);
    if (b < 0 || (idx != ~0ull && idx >= box_counters(s, b))) {
        return -BD_ENOBOX;
    }
    for (i = 0; i < box_counters(s, b); i++) {
        if (idx == ~0ull || idx == i) {
            *sum += tally_value(&p->tally[b][i], p->ctr[b][i], GENERIC_WIDTH);
            *starts += p->tally[b][i].starts;
        }
    }
    return 0;
}

/* The backdoor's "rate": a clock or background rate, at run time. */
static int64_t do_rate(SklUncoreState *s, uint64_t unit, uint64_t box,
                       uint64_t rate)
{
    switch (unit) {
    case UNIT_CBOX:
        s->cbo_background = rate;
        return 0;
    case UNIT_ARB:
        s->arb_background = rate;
        return 0;
    case UNIT_CLOCK:
        s->uclk_hz = rate;
        return 0;
    case UNIT_IMC:
        if (box < 1 || box > 5) {
            return -BD_ENOBOX;
        }
        s->imc_rate[box - 1] = rate;
        return 0;
    }
    return -BD_ENOBOX;
}

/* The backdoor's "lose": part of a package's state returns to 0. */
static int64_t do_lose(SklUncoreState *s, SklPackage *p, uint64_t what)
{
    int b, i;

    switch (what) {
    case LOSE_CTRL:
        /* PERFEVTSELs, FIXED_CTRL and the +4 registers; counters kept. */
        memset(p->evtsel, 0, sizeof(p->evtsel));
        memset(p->aux, 0, sizeof(p->aux));
        p->fixed_ctrl = 0;
        break;
    case LOSE_COUNTERS:
        for (b = 0; b < NR_GENERIC_BOXES; b++) {
            for (i = 0; i < MAX_COUNTERS; i++) {
                set_ctr(p, b, i, 0);
            }
        }
        set_fixed_ctr(p, 0);
        break;
    case LOSE_GLOBAL:
        p->global_ctrl = 0;
        break;
    case LOSE_ALL:
        memset(p->evtsel, 0, sizeof(p->evtsel));
        memset(p->aux, 0, sizeof(p->aux));
        p->fixed_ctrl = 0;
        p->global_ctrl = 0;
        p->global_status = 0;
        for (b = 0; b < NR_GENERIC_BOXES; b++) {
            for (i = 0; i < MAX_COUNTERS; i++) {
                set_ctr(p, b, i, 0);
            }
        }
        set_fixed_ctr(p, 0);
        break;
    default:
        return -BD_ENOBOX;
    }
    update_edges(s, p);
    return 0;
}

/*
 * The first access count at or after flat index @from: MSRs, then MCHBAR
 * dwords, then config dwords. Fills the args: 0 next index, 1 kind (0 at
 * the end), 2 address, 3 reads, 4 writes.
 */
static void stats_next(SklUncoreState *s, uint64_t from)
{
    uint64_t i;

    memset(s->bd_arg, 0, sizeof(s->bd_arg));
    for (i = from; i < NR_MSR_STATS + NR_MMIO_STATS + NR_CFG_STATS; i++) {
        if (i < NR_MSR_STATS) {
            if (s->msr_reads[i] || s->msr_writes[i]) {
                s->bd_arg[1] = STAT_MSR;
                s->bd_arg[2] = i;
                s->bd_arg[3] = s->msr_reads[i];
                s->bd_arg[4] = s->msr_writes[i];
                break;
            }
        } else if (i < NR_MSR_STATS + NR_MMIO_STATS) {
            uint64_t j = i - NR_MSR_STATS;

            if (s->mmio_reads[j]) {
                s->bd_arg[1] = STAT_MMIO;
                s->bd_arg[2] = j * 4;
                s->bd_arg[3] = s->mmio_reads[j];
                break;
            }
        } else {
            uint64_t j = i - NR_MSR_STATS - NR_MMIO_STATS;

            if (s->cfg_reads[j]) {
                s->bd_arg[1] = STAT_CFG;
                s->bd_arg[2] = j * 4;
                s->bd_arg[3] = s->cfg_reads[j];
                break;
            }
        }
    }
    s->bd_arg[0] = i + 1;
}

/*
 * The first MSR at or after @from with a #GP or a constraint violation
 * tallied: args 0 next, 1 MSR (0 at the end), 2 #GPs, 3 violations.
 */
static void faults_next(SklUncoreState *s, uint64_t from)
{
    uint64_t i;

    memset(s->bd_arg, 0, sizeof(s->bd_arg));
    for (i = from; i < NR_MSR_STATS; i++) {
        if (s->gp_count[i] || s->viol_count[i]) {
            s->bd_arg[1] = i;
            s->bd_arg[2] = s->gp_count[i];
            s->bd_arg[3] = s->viol_count[i];
            break;
        }
    }
    s->bd_arg[0] = i + 1;
}

static void backdoor_command(SklUncoreState *s, int pkg, uint32_t cmd)
{
    SklPackage *p = &s->pkg[pkg];
    uint64_t *a = s->bd_arg;
    uint64_t v;
    int width;
    int64_t r = 0;

    switch (cmd) {
    case BD_CMD_INFO:
        memset(a, 0, sizeof(s->bd_arg));
        a[0] = BD_MAGIC;
        a[1] = s->slices;
        a[2] = s->counters;
        a[3] = s->uclk_hz;
        a[4] = s->mchbar;
        a[5] = s->host_bridge_id;
        a[6] = s->cbo_config;
        a[7] = s->blocks | (s->profile_idx << 8) | (pkg << 16) |
               ((uint64_t)s->npkgs << 24);
        break;
    case BD_CMD_INJECT:
        r = do_inject(s, p, a[0], a[1], a[2], a[3], a[4]);
        if (r >= 0) {
            a[0] = r;
        }
        break;
    case BD_CMD_PRESET:
        r = do_preset(s, p, a[0], a[1], a[2], a[3]);
        break;
    case BD_CMD_PEEK: {
        uint64_t *c = counter_ptr(s, p, a[0], a[1], a[2], &width);

        if (c) {
            a[0] = *c;
        } else {
            r = -BD_ENOBOX;
        }
        break;
    }
    case BD_CMD_TALLY:
        r = do_tally(s, p, a[0], a[1], a[2], &a[0], &v);
        a[1] = v;
        break;
    case BD_CMD_TALLY_RESET:
        tally_reset(s, p);
        break;
    case BD_CMD_LOSE:
        r = do_lose(s, p, a[0]);
        break;
    case BD_CMD_RATE:
        r = do_rate(s, a[0], a[1], a[2]);
        break;
    case BD_CMD_STATS_NEXT:
        stats_next(s, a[0]);
        break;
    case BD_CMD_FAULTS_NEXT:
        faults_next(s, a[0]);
        break;
    case BD_CMD_FAULTS_RESET:
        memset(s->gp_count, 0, sizeof(s->gp_count));
        memset(s->viol_count, 0, sizeof(s->viol_count));
        break;
    case BD_CMD_STATS_RESET:
        memset(s->msr_reads, 0, sizeof(s->msr_reads));
        memset(s->msr_writes, 0, sizeof(s->msr_writes));
        memset(s->mmio_reads, 0, sizeof(s->mmio_reads));
        memset(s->cfg_reads, 0, sizeof(s->cfg_reads));
        break;
    default:
        r = -BD_ENOCMD;
        break;
    }
    s->bd_status = r < 0 ? -r : BD_OK;
}

/* MCHBAR window: the IMC counters; everything else reads 0. */
static uint64_t mchbar_read(void *opaque, hwaddr addr, unsigned size)
{
    SklUncoreState *s = opaque;
    uint64_t v = 0;
    int i;

    qemu_mutex_lock(&s->lock);
    s->mmio_reads[addr / 4]++;
    advance(s);
    for (i = 0; i < 5; i++) {
        if (addr == imc_offsets[i]) {
            v = s->imc[i];
        }
    }
    qemu_mutex_unlock(&s->lock);
    return v;
}

static void mchbar_write(void *opaque, hwaddr addr, uint64_t val,
                         unsigned size)
{
    /* The IMC counters are read only; the rest of MCHBAR is not modelled. */
}

static const MemoryRegionOps mchbar_ops = {
    .read = mchbar_read,
    .write = mchbar_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* Maps the window where MCHBAR says (BQL held). */
static void mchbar_update(SklUncoreState *s)
{
    if (s->mmio_mapped) {
        memory_region_del_subregion(get_system_memory(), &s->mmio);
        s->mmio_mapped = false;
    }
    if (s->mchbar & MCHBAR_EN) {
        memory_region_add_subregion_overlap(get_system_memory(),
                                            s->mchbar & MCHBAR_BASE_MASK,
                                            &s->mmio, 1);
        s->mmio_mapped = true;
    }
}

/* 64-bit code is the OS; the firmware runs in 16/32-bit mode. */
static bool accessor_is_os(void)
{
    if (!current_cpu) {
        return false;
    }
    return X86_CPU(current_cpu)->env.hflags & HF_LMA_MASK;
}

/* The model a host bridge was given to at realize. */
static SklUncoreState *bridge_model(PCIDevice *d)
{
    return SKL_UNCORE(object_property_get_link(OBJECT(d), TYPE_SKL_UNCORE,
                                               &error_abort));
}

/* Host bridge configuration reads: Skylake ID for the OS, MCHBAR. */
static uint32_t bridge_config_read(PCIDevice *d, uint32_t addr, int len)
{
    SklUncoreState *s = bridge_model(d);
    uint32_t v = s->bridge_read(d, addr, len);
    bool os = accessor_is_os();
    int i;

    qemu_mutex_lock(&s->lock);
    if (addr / 4 < NR_CFG_STATS) {
        s->cfg_reads[addr / 4]++;
    }
    for (i = 0; i < len; i++) {
        uint32_t a = addr + i;
        uint32_t byte;

        if (a == PCI_DEVICE_ID && os) {
            byte = s->host_bridge_id & 0xff;
        } else if (a == PCI_DEVICE_ID + 1 && os) {
            byte = s->host_bridge_id >> 8;
        } else if (a >= PCI_MCHBAR && a < PCI_MCHBAR + 8) {
            byte = (s->mchbar >> (8 * (a - PCI_MCHBAR))) & 0xff;
        } else {
            continue;
        }
        v = (v & ~(0xffu << (8 * i))) | (byte << (8 * i));
    }
    qemu_mutex_unlock(&s->lock);
    return v;
}

static void bridge_config_write(PCIDevice *d, uint32_t addr, uint32_t val,
                                int len)
{
    SklUncoreState *s = bridge_model(d);
    uint64_t m = s->mchbar;
    int i;

    if (addr + len <= PCI_MCHBAR || addr >= PCI_MCHBAR + 8) {
        s->bridge_write(d, addr, val, len);
        return;
    }
    for (i = 0; i < len; i++) {
        uint32_t a = addr + i;
        int sh;

        if (a < PCI_MCHBAR || a >= PCI_MCHBAR + 8) {
            continue;
        }
        sh = 8 * (a - PCI_MCHBAR);
        m = (m & ~(0xffull << sh)) |
            ((uint64_t)((val >> (8 * i)) & 0xff) << sh);
    }
    qemu_mutex_lock(&s->lock);
    s->mchbar = m & (MCHBAR_BASE_MASK | MCHBAR_EN);
    qemu_mutex_unlock(&s->lock);
    mchbar_update(s);
}

/* uclk-idle-stop: samples whether some vCPU of each package runs. */
static void idle_sample(void *opaque)
{
    SklUncoreState *s = opaque;
    bool running[MAX_PACKAGES] = { false };
    CPUState *cs;
    int n;

    CPU_FOREACH(cs) {
        n = package_index(s, X86_CPU(cs)->socket_id);
        if (!cs->halted) {
            running[n] = true;
        }
    }
    qemu_mutex_lock(&s->lock);
    /* The elapsed interval is charged with the previous sample. */
    advance(s);
    for (n = 0; n < s->npkgs; n++) {
        s->pkg[n].uclk_running = running[n];
    }
    qemu_mutex_unlock(&s->lock);
    timer_mod(s->idle_timer,
              qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + IDLE_SAMPLE_NS);
}

static void skl_uncore_reset_hold(Object *obj, ResetType type)
{
    SklUncoreState *s = SKL_UNCORE(obj);

    qemu_mutex_lock(&s->lock);
    reset_registers(s);
    s->mchbar = s->mchbar_reset & MCHBAR_BASE_MASK;
    if (s->mchbar && s->mchbar_en_reset) {
        s->mchbar |= MCHBAR_EN;
    }
    qemu_mutex_unlock(&s->lock);
    mchbar_update(s);
    if (s->idle_timer) {
        timer_mod(s->idle_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + IDLE_SAMPLE_NS);
    }
}

static bool skl_uncore_apply_profile(SklUncoreState *s, Error **errp)
{
    int i;

    s->profile = NULL;
    for (i = 0; i < ARRAY_SIZE(skl_profiles); i++) {
        if (!strcmp(s->sku ? s->sku : DEFAULT_SKU, skl_profiles[i].name)) {
            s->profile = &skl_profiles[i];
            s->profile_idx = i;
        }
    }
    if (!s->profile) {
        error_setg(errp, "skl-uncore: unknown sku '%s' (i7-6700K, manual, "
                   "2-core, i7-8665U, i9-9900K, i9-10900K)", s->sku);
        return false;
    }
    /* The other properties override the profile where they are set. */
    s->slices = s->cbos ? s->cbos : s->profile->slices;
    /* NO_CBO_BANKS, bits 3:0 of 0x396, holds slices + 1. */
    if (s->slices > 14) {
        error_setg(errp, "skl-uncore: cbos must be 1..14 (0x396 bits 3:0 "
                   "hold cbos + 1)");
        return false;
    }
    s->blocks = MIN(s->slices + s->profile->extra_blocks, MAX_CBOS);
    s->counters = s->cbo_counters ? s->cbo_counters : s->profile->counters;
    if (s->counters != 2 && s->counters != 4) {
        error_setg(errp, "cbo-counters must be 2 or 4");
        return false;
    }
    if (s->cbo_config == 0xff) {
        /* Section 2.4.1: software reads it and subtracts one. */
        s->cbo_config = s->slices + 1;
    } else if (s->cbo_config > 0xf) {
        error_setg(errp, "skl-uncore: cbo-config must be 0..15 (0x396 bits "
                   "3:0)");
        return false;
    }
    s->gctrl_valid = s->global_ctrl_valid ? s->global_ctrl_valid
                                          : s->profile->global_ctrl_valid;
    s->evtsel_valid = s->profile->evtsel_valid;
    return fault_parse(s, errp);
}

static void skl_uncore_realize(DeviceState *dev, Error **errp)
{
    SklUncoreState *s = SKL_UNCORE(dev);
    MachineState *ms = MACHINE(qdev_get_machine());
    Object *host;
    PCIBus *bus;
    bool ambiguous = false;

    if (!tcg_enabled()) {
        error_setg(errp, "skl-uncore: needs TCG (-accel tcg): its MSRs are "
                   "hooked into TCG's RDMSR/WRMSR helpers only");
        return;
    }
    if (skl_msr_model) {
        error_setg(errp, "only one skl-uncore device is supported");
        return;
    }
    s->npkgs = ms->smp.sockets;
    if (s->npkgs < 1 || s->npkgs > MAX_PACKAGES) {
        error_setg(errp, "skl-uncore: 1..%d sockets", MAX_PACKAGES);
        return;
    }
    /* After npkgs: a fault's @PKG is checked against it. */
    if (!skl_uncore_apply_profile(s, errp)) {
        return;
    }
    if (s->mchbar_reset & ~MCHBAR_BASE_MASK) {
        error_setg(errp, "mchbar must be 32 KiB aligned below 512 GiB");
        return;
    }
    host = object_resolve_path_type("", TYPE_PCI_HOST_BRIDGE, &ambiguous);
    if (!host) {
        error_setg(errp, "skl-uncore needs a machine with one PCI host");
        return;
    }
    bus = PCI_HOST_BRIDGE(host)->bus;
    s->bridge = pci_find_device(bus, 0, PCI_DEVFN(0, 0));
    if (!s->bridge) {
        error_setg(errp, "skl-uncore: no host bridge at 0:0.0");
        return;
    }

    qemu_mutex_init(&s->lock);
    /*
     * The host bridge (i440FX or q35 MCH) keeps its own config space; the
     * model answers for the device ID and MCHBAR, which QEMU's bridges
     * leave unimplemented at 0x48..0x4F.
     */
    object_property_add_const_link(OBJECT(s->bridge), TYPE_SKL_UNCORE,
                                   OBJECT(s));
    s->bridge_read = s->bridge->config_read;
    s->bridge_write = s->bridge->config_write;
    s->bridge->config_read = bridge_config_read;
    s->bridge->config_write = bridge_config_write;

    memory_region_init_io(&s->mmio, OBJECT(s), &mchbar_ops, s, "skl-mchbar",
                          MCHBAR_SIZE);
    if (s->uclk_idle_stop) {
        s->idle_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, idle_sample, s);
    }
    skl_msr_model = s;
    /* Not on a bus: the reset tree reaches it only when registered. */
    qemu_register_resettable(OBJECT(s));
    skl_uncore_reset_hold(OBJECT(s), RESET_TYPE_COLD);
}

/*
 * The stored control register at @msr of @p (post_load's fault check), NULL
 * for a counter, a status or a register the model does not keep.
 */
static uint64_t *control_reg(SklUncoreState *s, SklPackage *p, uint32_t msr)
{
    int box, idx, kind;

    switch (msr) {
    case MSR_UNC_PERF_GLOBAL_CTRL:
        return &p->global_ctrl;
    case MSR_UNC_PERF_FIXED_CTRL:
        return &p->fixed_ctrl;
    case MSR_UNC_UNK_397:
        return &p->unk_397;
    }
    if (!decode_generic(s, msr, &box, &idx, &kind)) {
        return NULL;
    }
    if (kind == R_EVTSEL) {
        return &p->evtsel[box][idx];
    }
    return kind == R_AUX4 ? &p->aux[box] : NULL;
}

/*
 * Package @n of a loaded stream against the part: a register the part (or
 * the machine, for a package beyond sockets=) lacks holds 0, and one a fault
 * profile refuses to write holds what a write could leave there.
 */
static int post_load_package(SklUncoreState *s, int n)
{
    SklPackage *p = &s->pkg[n];
    bool present = n < s->npkgs;
    uint64_t aux_valid = s->profile->aux_regs && present ? AUX_VALID : 0;
    int b, i;
    uint32_t msr;

    if (p->global_ctrl & ~(uint64_t)s->gctrl_valid ||
        p->fixed_ctrl & ~(uint64_t)FIXED_CTRL_VALID ||
        p->fixed_ctr & ~width_mask(FIXED_WIDTH)) {
        error_report("skl-uncore: package %d: a register holds bits the "
                     "part lacks", n);
        return -EINVAL;
    }
    if (p->global_status & ~(uint64_t)s->profile->status_valid) {
        error_report("skl-uncore: package %d: GLOBAL_STATUS %#" PRIx64
                     " has bits the part lacks", n, p->global_status);
        return -EINVAL;
    }
    if (p->unk_397 & ~aux_valid) {
        error_report("skl-uncore: package %d: 0x397 %#" PRIx64 " has bits "
                     "the part lacks", n, p->unk_397);
        return -EINVAL;
    }
    if (!present && (p->global_ctrl || p->global_status || p->fixed_ctrl ||
                     p->fixed_ctr)) {
        error_report("skl-uncore: package %d: the machine has %d packages, "
                     "but its registers are set", n, s->npkgs);
        return -EINVAL;
    }
    for (b = 0; b < NR_GENERIC_BOXES; b++) {
        bool box = present && box_present(s, b);

        if (b < MAX_CBOS && p->aux[b] & ~(box ? aux_valid : 0)) {
            error_report("skl-uncore: package %d: box %d: +4 register %#"
                         PRIx64 " has bits the part lacks", n, b, p->aux[b]);
            return -EINVAL;
        }
        for (i = 0; i < MAX_COUNTERS; i++) {
            if (p->evtsel[b][i] & ~s->evtsel_valid ||
                p->ctr[b][i] & ~width_mask(GENERIC_WIDTH)) {
                error_report("skl-uncore: package %d: box %d counter %d "
                             "holds bits the part lacks", n, b, i);
                return -EINVAL;
            }
            if ((!box || i >= box_counters(s, b)) &&
                (p->evtsel[b][i] || p->ctr[b][i])) {
                error_report("skl-uncore: package %d: box %d counter %d: "
                             "the part lacks it, but it is set", n, b, i);
                return -EINVAL;
            }
        }
    }
    /* No guest write can get past a fault (the backdoor sets counters only). */
    for (msr = 0; msr < NR_MSR_STATS; msr++) {
        int mode = s->fault_mode[n][msr];
        uint64_t *reg = mode ? control_reg(s, p, msr) : NULL;

        if (reg && (mode == FAULT_ABSENT || mode == FAULT_WRITE ?
                    *reg : *reg & fault_en_bit(msr))) {
            error_report("skl-uncore: package %d: MSR %#x holds %#" PRIx64
                         ", which its fault profile refuses to write", n, msr,
                         *reg);
            return -EINVAL;
        }
    }
    return 0;
}

static int skl_uncore_post_load(void *opaque, int version_id)
{
    SklUncoreState *s = opaque;
    int n, ret;

    /* The stream is input: every index and mask it sets is checked. */
    if (s->bd_sel >= BD_NR_ARGS) {
        error_report("skl-uncore: bd_sel %u out of range", s->bd_sel);
        return -EINVAL;
    }
    if (s->mchbar & ~(MCHBAR_BASE_MASK | MCHBAR_EN)) {
        error_report("skl-uncore: MCHBAR %#" PRIx64 " has reserved bits",
                     s->mchbar);
        return -EINVAL;
    }
    for (n = 0; n < MAX_PACKAGES; n++) {
        ret = post_load_package(s, n);
        if (ret) {
            return ret;
        }
    }
    for (n = 0; n < 5; n++) {
        if (s->imc[n] & ~width_mask(IMC_WIDTH)) {
            error_report("skl-uncore: IMC counter %d is over 32 bits", n);
            return -EINVAL;
        }
    }

    for (n = 0; n < MAX_PACKAGES; n++) {
        tally_reset(s, &s->pkg[n]);
    }
    mchbar_update(s);
    return 0;
}

static const VMStateDescription vmstate_skl_package = {
    .name = "skl-uncore/package",
    /* 2: 0x397 (version 1 was never exercised). */
    .version_id = 2,
    .minimum_version_id = 2,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(global_ctrl, SklPackage),
        VMSTATE_UINT64(global_status, SklPackage),
        VMSTATE_UINT64(fixed_ctrl, SklPackage),
        VMSTATE_UINT64(fixed_ctr, SklPackage),
        VMSTATE_UINT64_2DARRAY(evtsel, SklPackage, NR_GENERIC_BOXES,
                               MAX_COUNTERS),
        VMSTATE_UINT64_2DARRAY(ctr, SklPackage, NR_GENERIC_BOXES,
                               MAX_COUNTERS),
        VMSTATE_UINT64_ARRAY(aux, SklPackage, MAX_CBOS),
        VMSTATE_UINT64(fixed_frac, SklPackage),
        VMSTATE_UINT64_2DARRAY(bg_frac, SklPackage, NR_GENERIC_BOXES,
                               MAX_COUNTERS),
        VMSTATE_BOOL(uclk_running, SklPackage),
        VMSTATE_UINT64(unk_397, SklPackage),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_skl_uncore = {
    .name = TYPE_SKL_UNCORE,
    /* 2: 0x397 and the rates (version 1 was never exercised). */
    .version_id = 2,
    .minimum_version_id = 2,
    .post_load = skl_uncore_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(pkg, SklUncoreState, MAX_PACKAGES, 1,
                             vmstate_skl_package, SklPackage),
        VMSTATE_UINT64_ARRAY(imc, SklUncoreState, 5),
        VMSTATE_UINT64_ARRAY(imc_frac, SklUncoreState, 5),
        VMSTATE_UINT64(mchbar, SklUncoreState),
        VMSTATE_UINT32(resets, SklUncoreState),
        VMSTATE_INT64(last_ns, SklUncoreState),
        VMSTATE_UINT32(bd_sel, SklUncoreState),
        VMSTATE_UINT32(bd_status, SklUncoreState),
        VMSTATE_UINT64_ARRAY(bd_arg, SklUncoreState, BD_NR_ARGS),
        /* Rates the backdoor's "rate" changes at run time. */
        VMSTATE_UINT64(uclk_hz, SklUncoreState),
        VMSTATE_UINT64_ARRAY(imc_rate, SklUncoreState, 5),
        VMSTATE_UINT64(cbo_background, SklUncoreState),
        VMSTATE_UINT64(arb_background, SklUncoreState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property skl_uncore_properties[] = {
    /* The part; the properties below override it where they are set. */
    DEFINE_PROP_STRING("sku", SklUncoreState, sku),
    /* Faults of registers: REG:MODE[+REG:MODE]... (fault_parse). */
    DEFINE_PROP_STRING("faults", SklUncoreState, faults),
    /* CBo slices; 0: the profile's. */
    DEFINE_PROP_UINT8("cbos", SklUncoreState, cbos, 0),
    /* 0: the profile's. */
    DEFINE_PROP_UINT8("cbo-counters", SklUncoreState, cbo_counters, 0),
    /* 0xff: slices + 1 (the field counts the CBos "including ... graphics"). */
    DEFINE_PROP_UINT8("cbo-config", SklUncoreState, cbo_config, 0xff),
    /* 0: the profile's. */
    DEFINE_PROP_UINT32("global-ctrl-valid", SklUncoreState, global_ctrl_valid,
                       0),
    DEFINE_PROP_UINT16("host-bridge-id", SklUncoreState, host_bridge_id,
                       0x191f),
    DEFINE_PROP_UINT64("mchbar", SklUncoreState, mchbar_reset, 0xfed10000),
    DEFINE_PROP_BOOL("mchbar-en", SklUncoreState, mchbar_en_reset, true),
    DEFINE_PROP_UINT64("uclk-hz", SklUncoreState, uclk_hz, 1000000000),
    DEFINE_PROP_BOOL("uclk-idle-stop", SklUncoreState, uclk_idle_stop, false),
    DEFINE_PROP_UINT64("imc-data-reads", SklUncoreState, imc_rate[0],
                       16777216),
    DEFINE_PROP_UINT64("imc-data-writes", SklUncoreState, imc_rate[1],
                       8388608),
    DEFINE_PROP_UINT64("imc-gt-requests", SklUncoreState, imc_rate[2],
                       1000000),
    DEFINE_PROP_UINT64("imc-ia-requests", SklUncoreState, imc_rate[3],
                       2000000),
    DEFINE_PROP_UINT64("imc-io-requests", SklUncoreState, imc_rate[4],
                       3000000),
    /* Events per second on every enabled CBo / ARB counter. */
    DEFINE_PROP_UINT64("cbo-background", SklUncoreState, cbo_background,
                       2000000),
    DEFINE_PROP_UINT64("arb-background", SklUncoreState, arb_background,
                       1000000),
    DEFINE_PROP_UINT64("seed", SklUncoreState, seed, 0x534b4c55),
};

static void skl_uncore_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->realize = skl_uncore_realize;
    dc->desc = "Emulated Skylake client uncore PMU (MSRs, MCHBAR IMC counters)";
    dc->hotpluggable = false;
    dc->vmsd = &vmstate_skl_uncore;
    rc->phases.hold = skl_uncore_reset_hold;
    device_class_set_props(dc, skl_uncore_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo skl_uncore_info = {
    .name = TYPE_SKL_UNCORE,
    .parent = TYPE_DEVICE,
    .instance_size = sizeof(SklUncoreState),
    .class_init = skl_uncore_class_init,
};

static void skl_uncore_register_types(void)
{
    type_register_static(&skl_uncore_info);
}

type_init(skl_uncore_register_types)
