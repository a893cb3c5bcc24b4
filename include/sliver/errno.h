/* sliver guest ABI: error codes. A hypercall returns a value >= 0 on success and the
 * negative of one of these on failure (in RAX; a 32-bit guest reads EAX as int32_t).
 * The numbers follow Linux's errno so they read naturally in traces. */
#ifndef SLIVER_ERRNO_H
#define SLIVER_ERRNO_H

#define SLIVER_EPERM  1	 /* privileged call from a non-service domain */
#define SLIVER_ENOENT 2	 /* no such port binding / nothing to report */
#define SLIVER_ESRCH  3	 /* no such domain (or it is dead) */
#define SLIVER_E2BIG  7	 /* length over the call's limit */
#define SLIVER_EAGAIN 11 /* nothing pending */
#define SLIVER_ENOMEM 12 /* out of hypervisor memory */
#define SLIVER_EFAULT 14 /* a pointer/length is outside the caller's memory */
#define SLIVER_EBUSY  16 /* state does not allow it now */
#define SLIVER_EINVAL 22 /* bad argument value */
#define SLIVER_ENOSYS 38 /* unknown hypercall number */

#endif
