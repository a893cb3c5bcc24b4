/* VMX instructions, each checked: they return false on VMfailInvalid/VMfailValid
 * (CF or ZF set, SDM 30.2). Callers never ignore the result. */
#ifndef ARCH_X86_64_VMX_OPS_H
#define ARCH_X86_64_VMX_OPS_H
#include <stdbool.h>
#include <stdint.h>

static inline bool vmxon(uint64_t pa)
{
	bool fail;
	__asm__ volatile("vmxon %1; setbe %0" : "=q"(fail) : "m"(pa) : "cc", "memory");
	return !fail;
}
static inline bool vmclear(uint64_t pa)
{
	bool fail;
	__asm__ volatile("vmclear %1; setbe %0" : "=q"(fail) : "m"(pa) : "cc", "memory");
	return !fail;
}
static inline bool vmptrld(uint64_t pa)
{
	bool fail;
	__asm__ volatile("vmptrld %1; setbe %0" : "=q"(fail) : "m"(pa) : "cc", "memory");
	return !fail;
}
static inline bool vmread_checked(uint64_t field, uint64_t *val)
{
	bool fail;
	__asm__ volatile("vmread %2, %1; setbe %0" : "=q"(fail), "=rm"(*val) : "r"(field) : "cc");
	return !fail;
}
static inline bool vmwrite_checked(uint64_t field, uint64_t val)
{
	bool fail;
	__asm__ volatile("vmwrite %2, %1; setbe %0" : "=q"(fail) : "r"(field), "rm"(val) : "cc");
	return !fail;
}
struct invept_desc {
	uint64_t eptp, zero;
};
static inline bool invept(uint64_t type, uint64_t eptp)
{
	struct invept_desc d = {eptp, 0};
	bool fail;
	__asm__ volatile("invept %1, %2; setbe %0"
			 : "=q"(fail)
			 : "m"(d), "r"(type)
			 : "cc", "memory");
	return !fail;
}
struct invvpid_desc {
	uint64_t vpid, addr;
};
static inline bool invvpid(uint64_t type, uint16_t vpid)
{
	struct invvpid_desc d = {vpid, 0};
	bool fail;
	__asm__ volatile("invvpid %1, %2; setbe %0"
			 : "=q"(fail)
			 : "m"(d), "r"(type)
			 : "cc", "memory");
	return !fail;
}

#endif
