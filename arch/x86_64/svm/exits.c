/* #VMEXIT decoding: a const table of the EXITCODEs sliver intercepts (APM Vol. 2 appendix
 * C), whose position is the dense reason index counted per domain, turns each exit into a
 * normalized struct hv_exit: operands from EXITINFO1/2 (I/O 15.10.2, MSR 15.11, NPF
 * 15.25.6) or, for MOV CR/DR, CLTS, LMSW, from the instruction itself (decode.c), and the
 * instruction length from NRIP (15.7.1) or the decoder. EXITCODEs outside the table decode
 * as HV_EXIT_UNHANDLED: core/ crashes the domain, it never skips them. */
#include "arch/x86_64/panic.h"
#include "arch/x86_64/svm/svm.h"

struct exit_desc {
	uint64_t code;
	const char *name;
	uint8_t kind;
};

/* The kinds follow docs/vmx.md's pass-through audit, so a guest sees the same thing on
 * both vendors: INVD/WBINVD complete as no-ops, RDPMC is #GP(0) (no counters), RDTSCP,
 * MONITOR/MWAIT, XSETBV and every SVM instruction but VMMCALL are #UD (CPUID hides them);
 * SMI exits only to be taken by the host after STGI (like INTR); task switches stay
 * unhandled as under VMX. */
#define X(c, n, k)                                                                                 \
	{                                                                                          \
		VMEXIT_##c, n, HV_EXIT_##k                                                         \
	}
#define DR(i)                                                                                      \
	{VMEXIT_DR0_READ + i, "MOV from DR" #i, HV_EXIT_DR},                                       \
	{                                                                                          \
		VMEXIT_DR0_WRITE + i, "MOV to DR" #i, HV_EXIT_DR                                   \
	}
static const struct exit_desc exit_table[] = {
	X(INTR, "physical interrupt", EXTINT),
	X(NMI, "NMI", NMI),
	X(SMI, "SMI", EXTINT),
	X(VINTR, "virtual interrupt window", INTWIN),
	X(CPUID, "CPUID", CPUID),
	X(HLT, "HLT", HLT),
	X(IOIO, "I/O instruction", IO),
	X(MSR, "RDMSR/WRMSR", RDMSR),
	X(VMMCALL, "VMMCALL", HYPERCALL),
	X(CR0_READ, "MOV from CR0", CR),
	X(CR0_WRITE, "CR0 write", CR),
	X(CR4_WRITE, "CR4 write", CR),
	X(CR8_READ, "MOV from CR8", CR),
	X(CR8_WRITE, "MOV to CR8", CR),
	DR(0),
	DR(1),
	DR(2),
	DR(3),
	DR(4),
	DR(5),
	DR(6),
	DR(7),
	X(PAUSE, "PAUSE", PAUSE),
	X(INVD, "INVD", NOP),
	X(WBINVD, "WBINVD", NOP),
	X(RDPMC, "RDPMC", GP),
	X(RDTSCP, "RDTSCP", UD),
	X(MONITOR, "MONITOR", UD),
	X(MWAIT, "MWAIT", UD),
	X(MWAIT_COND, "MWAIT (conditional)", UD),
	X(XSETBV, "XSETBV", UD),
	X(VMRUN, "VMRUN", UD),
	X(VMLOAD, "VMLOAD", UD),
	X(VMSAVE, "VMSAVE", UD),
	X(STGI, "STGI", UD),
	X(CLGI, "CLGI", UD),
	X(SKINIT, "SKINIT", UD),
	X(INVLPGA, "INVLPGA", UD),
	X(TASK_SWITCH, "task switch", UNHANDLED),
	X(SHUTDOWN, "shutdown (triple fault)", TRIPLE_FAULT),
	X(NPF, "nested page fault", EPT),
	X(INVALID, "VMRUN: invalid guest state", ENTRY_FAIL),
	X(IRET, "IRET (NMI blocking)", NMI_WINDOW), /* 50 */
};
#undef X
#undef DR
#define NR_EXITS (sizeof exit_table / sizeof exit_table[0])
_Static_assert(NR_EXITS < HV_NR_EXIT_REASONS, "dense SVM reasons fit the counters");

/* EXITCODE -> dense index + 1 for the codes below 0x100 (every one but NPF and INVALID),
 * 0 for those outside the table: filled by svm_exits_init at detection. */
static uint8_t code_index[0x100];

void svm_exits_init(void)
{
	for (unsigned i = 0; i < NR_EXITS; i++)
		if (exit_table[i].code < sizeof code_index)
			code_index[exit_table[i].code] = (uint8_t)(i + 1);
	if (exit_table[SVM_REASON_CPUID].code != VMEXIT_CPUID ||
	    exit_table[SVM_REASON_VMMCALL].code != VMEXIT_VMMCALL)
		panic("svm: SVM_REASON_CPUID / SVM_REASON_VMMCALL are not the table's");
}

static unsigned find_exit(uint64_t code)
{
	if (code < sizeof code_index)
		return code_index[code] ? code_index[code] - 1u : NR_EXITS;
	unsigned i = 0;
	while (i < NR_EXITS && exit_table[i].code != code)
		i++;
	return i;
}

const char *svm_exit_reason_name(unsigned reason)
{
	return reason < NR_EXITS ? exit_table[reason].name : "unknown";
}

/* VMRUN has no instruction-error numbers: a failed VMRUN is VMEXIT_INVALID. */
const char *svm_insn_error_name(uint32_t err)
{
	(void)err;
	return "VMRUN: illegal VMCB state (APM 15.5.1)";
}

static void fail(struct hv_exit *e, const char *why)
{
	e->kind = HV_EXIT_UNHANDLED;
	e->fail.why = why;
}

/* The expected opcode of exits completed by core/ with hv_skip_insn. */
static bool opcode_is(const struct svm_insn *in, uint8_t a, uint8_t b, uint8_t c, unsigned n)
{
	return in->nop == n && in->op[0] == a && (n < 2 || in->op[1] == b) &&
	       (n < 3 || in->op[2] == c);
}

static bool expected_opcode(uint64_t code, const struct svm_insn *in, uint32_t info1)
{
	switch (code) {
	case VMEXIT_CPUID:
		return opcode_is(in, 0x0f, 0xa2, 0, 2);
	case VMEXIT_HLT:
		return opcode_is(in, 0xf4, 0, 0, 1);
	case VMEXIT_PAUSE:
		return opcode_is(in, 0x90, 0, 0, 1) && in->rep;
	case VMEXIT_INVD:
	case VMEXIT_WBINVD:
		/* Either: QEMU 7.2 reports INVD with the WBINVD EXITCODE (both are no-ops). */
		return opcode_is(in, 0x0f, 0x08, 0, 2) || opcode_is(in, 0x0f, 0x09, 0, 2);
	case VMEXIT_VMMCALL:
		return opcode_is(in, 0x0f, 0x01, 0xd9, 3);
	case VMEXIT_MSR:
		return opcode_is(in, 0x0f, info1 ? 0x30 : 0x32, 0, 2);
	default:
		return true;
	}
}

/* Length of the instruction the exit reports: NRIP when the CPU saves it, else the bytes
 * at RIP (svm_plain_length, or the decoder). */
static inline __attribute__((always_inline)) bool insn_length(struct svm_vcpu *s, struct hv_exit *e,
							      uint64_t code)
{
	struct vmcb *vb = s->vmcb;
	if ((s->exit_len = (uint8_t)svm_plain_length(s, code, (uint32_t)vb->exitinfo1)))
		return true;
	struct svm_insn in;
	const char *why;
	if (!svm_fetch_decode(s, &in, &why)) {
		fail(e, why);
		return false;
	}
	if (!expected_opcode(code, &in, (uint32_t)vb->exitinfo1)) {
		fail(e, "instruction bytes do not match the exit");
		return false;
	}
	s->exit_len = in.len;
	return true;
}

/* MOV to/from CR0/CR4/CR8, CLTS, LMSW (and SMSW, which a CR0 read intercept may catch). */
static void dec_cr(struct svm_vcpu *s, struct hv_exit *e, uint64_t code)
{
	struct svm_insn in;
	const char *why;
	if (!svm_fetch_decode(s, &in, &why)) {
		fail(e, why);
		return;
	}
	unsigned cr = code & 0xf;
	bool write = code >= VMEXIT_CR0_WRITE;
	unsigned reg = (in.modrm >> 3) & 7, rm = (in.modrm & 7) | (in.rex_b ? 8 : 0);
	s->exit_len = in.len;
	e->cr.cr = (uint8_t)cr;
	if (in.nop == 3 && in.op[0] == 0x0f && (in.op[1] == 0x20 || in.op[1] == 0x22)) {
		/* LOCK MOV CR0 is MOV CR8 outside 64-bit mode (AMD's CR8LEG). */
		unsigned n = (reg | (in.rex_r ? 8 : 0)) + (in.lock ? 8 : 0);
		if (n != cr || (in.op[1] == 0x22) != write) {
			fail(e, "MOV CR operands do not match the exit");
			return;
		}
		e->cr.type = write ? HV_CR_WRITE : HV_CR_READ;
		e->cr.gpr = (uint8_t)rm;
	} else if (opcode_is(&in, 0x0f, 0x06, 0, 2) && cr == 0 && write) {
		e->cr.type = HV_CR_CLTS; /* CLTS */
	} else if (in.nop == 3 && in.op[0] == 0x0f && in.op[1] == 0x01 && reg == 6 && cr == 0 &&
		   write) {
		e->cr.type = HV_CR_LMSW; /* LMSW r16 */
		e->cr.lmsw = (uint16_t)svm_gpr_get((struct hv_vcpu *)s, rm);
	} else if (in.nop == 3 && in.op[0] == 0x0f && in.op[1] == 0x01 && reg == 4 && cr == 0 &&
		   !write) {
		e->cr.type = HV_CR_READ; /* SMSW r: the guest's CR0 */
		e->cr.gpr = (uint8_t)rm;
	} else {
		fail(e, "unexpected instruction for a CR intercept");
	}
}

static void dec_dr(struct svm_vcpu *s, struct hv_exit *e, uint64_t code)
{
	struct svm_insn in;
	const char *why;
	if (!svm_fetch_decode(s, &in, &why)) {
		fail(e, why);
		return;
	}
	unsigned dr = code & 0xf;
	bool write = code >= VMEXIT_DR0_WRITE;
	if (in.nop != 3 || in.op[0] != 0x0f || in.op[1] != (write ? 0x23 : 0x21) ||
	    (((in.modrm >> 3) & 7) | (in.rex_r ? 8 : 0)) != dr) {
		fail(e, "MOV DR operands do not match the exit");
		return;
	}
	s->exit_len = in.len;
	e->dr.dr = (uint8_t)dr;
	e->dr.read = !write;
	e->dr.gpr = (uint8_t)((in.modrm & 7) | (in.rex_b ? 8 : 0));
}

/* QEMU 7.2 ends VMRUN with VMEXIT_INVALID when the guest executes MOV to CR3 with bits set
 * above MAXPHYADDR in long mode, where the CPU raises #GP(0) (SDM/APM "MOV CRn"). RIP still
 * points at that MOV: give the guest its #GP instead of crashing the domain for it. */
static bool qemu_cr3_quirk(struct svm_vcpu *s)
{
	struct svm_insn in;
	const char *why;
	if (!(s->efer & EFER_LMA) || !svm_fetch_decode(s, &in, &why) || in.nop != 3 ||
	    in.op[0] != 0x0f || in.op[1] != 0x22 ||
	    (((in.modrm >> 3) & 7) | (in.rex_r ? 8 : 0)) != 3)
		return false;
	unsigned maxphy =
		cpuid(0x80000000u, 0).eax >= 0x80000008u ? cpuid(0x80000008u, 0).eax & 0xff : 36;
	uint64_t val = svm_gpr_get((struct hv_vcpu *)s, (in.modrm & 7) | (in.rex_b ? 8 : 0));
	return maxphy < 64 && (val >> maxphy);
}

void svm_decode_exit(struct svm_vcpu *s, struct hv_exit *e)
{
	struct vmcb *vb = s->vmcb;
	uint64_t code = vb->exitcode;
	if ((uint32_t)code == 0xffffffffu)
		code = VMEXIT_INVALID; /* QEMU 7.2 stores -1 as a 32-bit value */
	unsigned i = find_exit(code);
	e->fail.detail = vb->exitinfo1;
	if (i == NR_EXITS) {
		e->reason = HV_NR_EXIT_REASONS - 1; /* counted, and named "unknown" */
		e->kind = HV_EXIT_UNHANDLED;
		e->fail.error = (uint32_t)code;
		e->fail.why = "EXITCODE outside the table";
		return;
	}
	e->reason = (uint16_t)i;
	e->kind = exit_table[i].kind;
	switch (e->kind) {
	case HV_EXIT_ENTRY_FAIL:
		if (qemu_cr3_quirk(s)) {
			e->kind = HV_EXIT_GP;
			return;
		}
		e->fail.error = 0;
		e->fail.why = "VMRUN: invalid guest state (VMEXIT_INVALID, APM 15.5.1)";
		e->fail.detail = s->last_eventinj; /* the event it was to inject, if any */
		return;
	case HV_EXIT_IO:
		e->io.in = vb->exitinfo1 & IOIO_TYPE_IN;
		e->io.string = vb->exitinfo1 & IOIO_STR;
		e->io.rep = vb->exitinfo1 & IOIO_REP;
		e->io.size = (vb->exitinfo1 >> IOIO_SZ_SHIFT) & 7; /* SZ8/16/32: 1, 2, 4 */
		e->io.port = (uint16_t)(vb->exitinfo1 >> 16);
		s->exit_len = (uint8_t)(vb->exitinfo2 - vb->rip); /* EXITINFO2 = next RIP */
		return;
	case HV_EXIT_RDMSR:
		e->msr.index = (uint32_t)s->g.r[HV_RCX];
		if (vb->exitinfo1 & 1) {
			e->kind = HV_EXIT_WRMSR;
			e->msr.value = (s->g.r[HV_RDX] << 32) | (uint32_t)s->g.r[HV_RAX];
		}
		insn_length(s, e, code);
		return;
	case HV_EXIT_EPT:
		e->ept.gpa = vb->exitinfo2;
		e->ept.write = vb->exitinfo1 & NPF_WRITE;
		e->ept.fetch = vb->exitinfo1 & NPF_FETCH;
		e->ept.read = !e->ept.write && !e->ept.fetch;
		e->ept.gla_valid = false;
		return;
	case HV_EXIT_CR:
		dec_cr(s, e, code);
		return;
	case HV_EXIT_DR:
		dec_dr(s, e, code);
		return;
	case HV_EXIT_PAUSE:
		if (s->ple_on) {
			/* The filter's count ran out: a PAUSE loop (15.14.4). RIP is at the PAUSE,
			 * which completes (F3 90, 2 bytes: NRIP or the decoder say). */
			e->kind = HV_EXIT_PAUSE_LOOP;
			svm_ple_exit(s);
		}
		insn_length(s, e, code);
		return;
	case HV_EXIT_CPUID:
	case HV_EXIT_HLT:
	case HV_EXIT_NOP:
	case HV_EXIT_HYPERCALL:
		insn_length(s, e, code);
		return;
	default:
		return;
	}
}
