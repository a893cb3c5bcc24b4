/* Shared by the libFuzzer targets: a check that stops the run like a sanitizer report, so
 * that a broken invariant is a crash the fuzzer saves and minimises. */
#ifndef TEST_FUZZ_FUZZ_H
#define TEST_FUZZ_FUZZ_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
