/* uart-echo: the 2006 experiment's echo inside a Linux guest (issue 28 item 4), a hosted
 * static program that tools/linux-initramfs.sh builds into the initramfs (gcc -static).
 *
 *   uart-echo [<spin_us>/<sleep_us> [<count>]]
 *
 * It puts /dev/ttyS0 in raw mode (cfmakeraw: no echo by the tty, no output processing, 8 bits)
 * and writes back every byte it reads, one byte for one byte: the hypervisor's UART ping
 * (ping.uart=1, core/ping.c) puts one byte into COM1's receive FIFO and times the round trip
 * until that byte comes out of THR. With a duty cycle, a second process spins <spin_us> and
 * sleeps <sleep_us>, over and over, on CLOCK_MONOTONIC, as the 2006 script did ("sleeps and
 * then tries to spin for a certain amount of time, based on wall clock"): the domain then uses
 * that share of its vCPU. In 2006 the kernel answered the ICMP echo whatever the script was
 * doing; here the answering process is SCHED_FIFO, so Linux runs it as soon as its read()
 * wakes, ahead of the spinner, and what the round trip measures beyond Linux's own interrupt
 * and wake-up path is the hypervisor's scheduling of the vCPU. After <count> bytes (0: never)
 * it stops the spinner and exits. Its lines go to stdout (the console), never to ttyS0's
 * answers. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* The duty cycle, forever (the parent kills it). */
static void duty(long spin_us, long sleep_us)
{
	struct timespec nap = {.tv_sec = sleep_us / 1000000, .tv_nsec = sleep_us % 1000000 * 1000};
	for (;;) {
		long long end = now_us() + spin_us;
		while (now_us() < end)
			;
		if (sleep_us)
			nanosleep(&nap, NULL);
	}
}

int main(int argc, char **argv)
{
	long spin_us = 0, sleep_us = 0;
	unsigned long count = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	if (argc > 1 && sscanf(argv[1], "%ld/%ld", &spin_us, &sleep_us) != 2) {
		fprintf(stderr, "uart-echo: duty '%s' is not <spin_us>/<sleep_us>\n", argv[1]);
		return 2;
	}
	int fd = open("/dev/ttyS0", O_RDWR | O_NOCTTY);
	struct termios tio;
	if (fd < 0 || tcgetattr(fd, &tio)) {
		fprintf(stderr, "uart-echo: /dev/ttyS0: %s\n", strerror(errno));
		return 1;
	}
	cfmakeraw(&tio);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &tio)) {
		fprintf(stderr, "uart-echo: raw mode: %s\n", strerror(errno));
		return 1;
	}
	tcflush(fd, TCIFLUSH); /* what came before (the tty's own echo answered it) */
	pid_t spinner = 0;
	if (spin_us > 0) {
		spinner = fork();
		if (spinner == 0) {
			duty(spin_us, sleep_us);
			_exit(0);
		}
	}
	struct sched_param sp = {.sched_priority = 50};
	int fifo = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
	printf("uart-echo: ready duty=%ld/%ld count=%lu fifo=%d\n", spin_us, sleep_us, count, fifo);
	fflush(stdout);
	unsigned long answered = 0;
	while (!count || answered < count) {
		unsigned char buf[16];
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "uart-echo: read: %s\n",
				n ? strerror(errno) : "end of file");
			break;
		}
		if (write(fd, buf, (size_t)n) != n)
			fprintf(stderr, "uart-echo: write: %s\n", strerror(errno));
		answered += (unsigned long)n;
	}
	if (spinner > 0)
		kill(spinner, SIGKILL);
	printf("uart-echo: answered %lu bytes\n", answered);
	fflush(stdout);
	return 0;
}
