/* Branch hints for hot paths (GCC/Clang): the exit path lays its common case out straight,
 * so the rare cases cost a taken jump and the common one none. */
#ifndef LIB_COMPILER_H
#define LIB_COMPILER_H

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#endif
