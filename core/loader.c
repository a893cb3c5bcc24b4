/* ELF32/ELF64 guest loader. Every field of the image is untrusted: offsets and sizes are
 * checked against the file and the guest memory with overflow-safe arithmetic. */
#include "core/loader.h"
#include <stdbool.h>
#include "core/elf.h"
#include "lib/fmt.h"
#include "lib/string.h"

struct seg {
	uint32_t type, flags;
	uint64_t offset, paddr, filesz, memsz;
};

static int get_seg(const void *img, int is64, uint64_t phoff, unsigned i, struct seg *s)
{
	const uint8_t *p = img;
	if (is64) {
		struct elf64_phdr ph;
		memcpy(&ph, p + phoff + (uint64_t)i * sizeof ph, sizeof ph);
		*s = (struct seg){ph.type, ph.flags, ph.offset, ph.paddr, ph.filesz, ph.memsz};
	} else {
		struct elf32_phdr ph;
		memcpy(&ph, p + phoff + (uint64_t)i * sizeof ph, sizeof ph);
		*s = (struct seg){ph.type, ph.flags, ph.offset, ph.paddr, ph.filesz, ph.memsz};
	}
	return 0;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fmt_snprintf(why, whylen, __VA_ARGS__);                                            \
		return why;                                                                        \
	} while (0)

/* Does [paddr, paddr + memsz) lie wholly inside one of the ranges? */
static int in_ranges(const struct elf_range *r, unsigned n, uint64_t paddr, uint64_t memsz)
{
	for (unsigned k = 0; k < n; k++)
		if (paddr >= r[k].lo && paddr <= r[k].hi && memsz <= r[k].hi - paddr)
			return 1;
	return 0;
}

const char *elf_check(const void *img, size_t len, uint64_t min_gpa, uint64_t mem_size,
		      struct elf_image_info *info, char *why, size_t whylen)
{
	const struct elf_range r = {min_gpa, mem_size};
	return elf_check_ranges(img, len, &r, 1, info, why, whylen);
}

const char *elf_check_ranges(const void *img, size_t len, const struct elf_range *r, unsigned n,
			     struct elf_image_info *info, char *why, size_t whylen)
{
	const uint8_t *p = img;
	uint32_t magic;
	if (!img || len < 16)
		FAIL("not an ELF image (%zu bytes)", len);
	memcpy(&magic, p, 4);
	if (magic != ELF_MAGIC)
		FAIL("not an ELF image (bad magic)");
	int cls = p[4];
	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		FAIL("ELF class %d is neither ELF32 nor ELF64", cls);
	if (p[5] != ELFDATA2LSB)
		FAIL("ELF image is not little-endian");
	int is64 = cls == ELFCLASS64;
	uint64_t entry, phoff;
	unsigned phnum, phentsize, type, machine;
	if (is64) {
		struct elf64_ehdr eh;
		if (len < sizeof eh)
			FAIL("ELF64 header truncated");
		memcpy(&eh, p, sizeof eh);
		entry = eh.entry, phoff = eh.phoff, phnum = eh.phnum;
		phentsize = eh.phentsize, type = eh.type, machine = eh.machine;
		if (machine != EM_X86_64)
			FAIL("ELF64 machine %u is not x86-64", machine);
		if (phentsize != sizeof(struct elf64_phdr))
			FAIL("bad program header size %u", phentsize);
	} else {
		struct elf32_ehdr eh;
		if (len < sizeof eh)
			FAIL("ELF32 header truncated");
		memcpy(&eh, p, sizeof eh);
		entry = eh.entry, phoff = eh.phoff, phnum = eh.phnum;
		phentsize = eh.phentsize, type = eh.type, machine = eh.machine;
		if (machine != EM_386)
			FAIL("ELF32 machine %u is not i386", machine);
		if (phentsize != sizeof(struct elf32_phdr))
			FAIL("bad program header size %u", phentsize);
	}
	if (type != ET_EXEC)
		FAIL("ELF type %u is not an executable", type);
	if (phnum == 0)
		FAIL("no program headers");
	if (phoff > len || (uint64_t)phnum * phentsize > len - phoff)
		FAIL("program headers outside the file");

	struct elf_image_info in = {.entry = entry, .lo = UINT64_MAX, .hi = 0, .is64 = is64};
	int entry_ok = 0;
	for (unsigned i = 0; i < phnum; i++) {
		struct seg s;
		get_seg(img, is64, phoff, i, &s);
		if (s.type != PT_LOAD)
			continue;
		in.nr_load++;
		if (s.filesz > s.memsz)
			FAIL("segment %u file size 0x%llx over its memory size 0x%llx", i,
			     (unsigned long long)s.filesz, (unsigned long long)s.memsz);
		if (s.offset > len || s.filesz > len - s.offset)
			FAIL("segment %u data outside the file", i);
		if (!in_ranges(r, n, s.paddr, s.memsz)) {
			int k = fmt_snprintf(
				why, whylen, "segment %u at 0x%llx+0x%llx outside guest memory", i,
				(unsigned long long)s.paddr, (unsigned long long)s.memsz);
			for (unsigned j = 0; j < n && j < 4 && k > 0 && (size_t)k < whylen; j++)
				k += fmt_snprintf(why + k, whylen - (size_t)k, "%s[0x%llx, 0x%llx)",
						  j ? " and " : " ", (unsigned long long)r[j].lo,
						  (unsigned long long)r[j].hi);
			return why;
		}
		if (s.paddr < in.lo)
			in.lo = s.paddr;
		if (s.paddr + s.memsz > in.hi)
			in.hi = s.paddr + s.memsz;
		if (entry >= s.paddr && entry < s.paddr + s.memsz)
			entry_ok = 1;
	}
	if (in.nr_load == 0)
		FAIL("no loadable segment");
	if (!entry_ok)
		FAIL("entry point 0x%llx is not inside a loaded segment",
		     (unsigned long long)entry);
	if (!is64 && entry > UINT32_MAX)
		FAIL("entry point above 4 GiB");
	if (info)
		*info = in;
	return NULL;
}

/* zero_bss false: mem is zeroed already (a restart's scrubbed memory, core/domain_end.c). */
static const char *load(const void *img, size_t len, void *mem, const struct elf_range *r,
			unsigned n, struct elf_image_info *info, char *why, size_t whylen,
			bool zero_bss)
{
	struct elf_image_info in;
	const char *err = elf_check_ranges(img, len, r, n, &in, why, whylen);
	if (err)
		return err;
	const uint8_t *p = img;
	uint8_t *m = mem;
	uint64_t phoff;
	unsigned phnum;
	if (in.is64) {
		struct elf64_ehdr eh;
		memcpy(&eh, p, sizeof eh);
		phoff = eh.phoff, phnum = eh.phnum;
	} else {
		struct elf32_ehdr eh;
		memcpy(&eh, p, sizeof eh);
		phoff = eh.phoff, phnum = eh.phnum;
	}
	for (unsigned i = 0; i < phnum; i++) {
		struct seg s;
		get_seg(img, in.is64, phoff, i, &s);
		if (s.type != PT_LOAD)
			continue;
		memcpy(m + s.paddr, p + s.offset, s.filesz);
		if (zero_bss)
			memset(m + s.paddr + s.filesz, 0, s.memsz - s.filesz);
	}
	if (info)
		*info = in;
	return NULL;
}

const char *elf_load_ranges(const void *img, size_t len, void *mem, const struct elf_range *r,
			    unsigned n, struct elf_image_info *info, char *why, size_t whylen)
{
	return load(img, len, mem, r, n, info, why, whylen, true);
}

const char *elf_load(const void *img, size_t len, void *mem, uint64_t min_gpa, uint64_t mem_size,
		     struct elf_image_info *info, char *why, size_t whylen)
{
	const struct elf_range r = {min_gpa, mem_size};
	return load(img, len, mem, &r, 1, info, why, whylen, true);
}

const char *elf_load_clean(const void *img, size_t len, void *mem, uint64_t min_gpa,
			   uint64_t mem_size, struct elf_image_info *info, char *why, size_t whylen)
{
	const struct elf_range r = {min_gpa, mem_size};
	return load(img, len, mem, &r, 1, info, why, whylen, false);
}
