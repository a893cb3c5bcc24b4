/* The few ELF definitions the loader needs (System V ABI, ELF-32 and ELF-64). */
#ifndef CORE_ELF_H
#define CORE_ELF_H
#include <stdint.h>

#define ELF_MAGIC   0x464c457fu /* "\x7fELF" little-endian */
#define ELFCLASS32  1
#define ELFCLASS64  2
#define ELFDATA2LSB 1
#define ET_EXEC	    2
#define EM_386	    3
#define EM_X86_64   62
#define PT_LOAD	    1
#define PF_X	    1

struct elf32_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf32_phdr {
	uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};
struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

#endif
