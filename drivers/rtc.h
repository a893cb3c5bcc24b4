/* The host's MC146818 real-time clock (CMOS registers 0x00-0x0B, century at 0x32), read
 * once at boot: the virtual RTC of the PC domains (core/pc_cmos.c) starts from it. */
#ifndef DRIVERS_RTC_H
#define DRIVERS_RTC_H
#include <stdbool.h>
#include <stdint.h>

struct rtc_time {
	unsigned year, mon, day, hour, min, sec; /* 4-digit year, month 1-12, day 1-31 */
};

/* The time the RTC shows (its own zone: PCs usually keep local time); false when it does
 * not answer sensibly (no RTC, an update that never ends, fields out of range). */
bool rtc_read_host(struct rtc_time *t);

#endif
