/* libFuzzer target: core/loader.c on an arbitrary image, loaded into a 1 MiB guest memory
 * starting at 0x1000. Every byte elf_load writes must be inside that memory (ASan) and the
 * reported range inside [min_gpa, mem_size). */
#include "core/loader.h"
#include "fuzz.h"

#define MEM_SIZE (1u << 20)
#define MIN_GPA	 0x1000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *mem;
	if (!mem)
		mem = malloc(MEM_SIZE);
	struct elf_image_info info;
	char why[128];
	const char *err = elf_load(data, size, mem, MIN_GPA, MEM_SIZE, &info, why, sizeof(why));
	if (err) {
		FUZZ_CHECK(err == why && why[0]);
		return 0;
	}
	FUZZ_CHECK(info.nr_load > 0);
	FUZZ_CHECK(MIN_GPA <= info.lo && info.lo < info.hi && info.hi <= MEM_SIZE);
	FUZZ_CHECK(info.lo <= info.entry && info.entry < info.hi);
	return 0;
}
