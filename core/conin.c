#include "core/conin.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/spinlock.h"
#include "drivers/console.h"
#include "drivers/ioapic.h"
#include "arch/x86_64/smp.h"
#include "core/timer.h"

#define RING	 1024 /* power of two */
#define MAX_KEYS 16

static char ring[RING];
static unsigned head, tail; /* head: next write; tail: next read */
static spinlock_t lock = SPINLOCK_INIT(lock_conin);
static bool escaped;
static void (*notify)(void);
static void (*drained)(void);
struct debug_key {
	char key;
	const char *help;
	void (*fn)(void);
};
static struct debug_key keys[MAX_KEYS];
static unsigned nkeys;
static unsigned long dropped;

static void key_help(void)
{
	printk("sliver debug keys (Ctrl-] then the key; Ctrl-] twice sends one):\n");
	for (unsigned i = 0; i < nkeys; i++)
		printk("  %c  %s\n", keys[i].key, keys[i].help);
	if (dropped)
		printk("  (%lu input bytes dropped: the service domain did not read them)\n",
		       dropped);
}

/* A debug key's output goes straight to the wire (console_sync_begin): it is for when
 * something is stuck, the console's rings included. */
static bool run_key(char c)
{
	for (unsigned i = 0; i < nkeys; i++) {
		if (keys[i].key == c) {
			console_sync_begin();
			keys[i].fn();
			console_sync_end();
			return true;
		}
	}
	console_sync_begin();
	key_help();
	console_sync_end();
	return false;
}

void conin_feed(char c)
{
	if (escaped) {
		escaped = false;
		if (c != CONIN_ESCAPE) {
			run_key(c);
			return;
		}
	} else if (c == CONIN_ESCAPE) {
		escaped = true;
		return;
	}
	spin_lock(&lock);
	if (head - tail < RING)
		ring[head++ % RING] = c;
	else
		dropped++;
	spin_unlock(&lock);
}

size_t conin_read(char *buf, size_t len)
{
	size_t n = 0;
	spin_lock(&lock);
	while (n < len && tail != head)
		buf[n++] = ring[tail++ % RING];
	spin_unlock(&lock);
	return n;
}

/* IIR causes (PC16550D): bit 0 set = none pending; 0x4 received data, 0xc character
 * timeout, 0x2 transmitter empty. The loop runs until none is pending: the IRQ is
 * edge-triggered at the IOAPIC, and a cause left pending would keep the line high. */
#define IIR_NONE 0x01
#define IIR_THRE 0x02

/* The drain's watchdog (console_watchdog, drivers/console.c) runs on the drain pCPU
 * CONSOLE_WATCHDOG_MS after the last UART interrupt there: this handler (every THR-empty
 * interrupt and kick) pushes its timer back, so while output flows it never fires, and once
 * output is done it fires once and finds nothing in flight. Only when THR-empty interrupts
 * stop with bytes in flight does it look again and re-kick the drain (at most two periods
 * later, instead of at power-off). A timer every period while output flows was tried
 * first: its extra interrupts on the drain pCPU moved QEMU TCG's vCPU interleaving enough
 * to break e2e-pc-mb1-svm's periodic LAPIC timer check (46 interrupts for 40 periods). */
static struct timer watchdog_timer;

static void watchdog_fire(struct timer *t, void *arg)
{
	(void)arg;
	if (console_watchdog())
		timer_set(t, now_ns() + CONSOLE_WATCHDOG_MS * 1000000ull);
	if (drained)
		drained();
}

static void uart_irq(struct irq_frame *f)
{
	(void)f;
	unsigned before = head;
	for (unsigned i = 0; i < 64; i++) {
		uint8_t id = console_irq_id();
		if (id & IIR_NONE)
			break;
		if ((id & 0x0e) == IIR_THRE) {
			console_tx_irq();
			continue;
		}
		int c;
		while ((c = console_getc()) >= 0)
			conin_feed((char)c);
	}
	/* Also a kick from another pCPU (the same vector, sent as an IPI). */
	console_kicked();
	if (console_is_async())
		timer_set(&watchdog_timer, now_ns() + CONSOLE_WATCHDOG_MS * 1000000ull);
	if (head != before && notify)
		notify();
	if (drained) /* records went out: vCPUs waiting for room may go on */
		drained();
}

void conin_set_notify(void (*fn)(void))
{
	notify = fn;
}

void conin_set_drained(void (*fn)(void))
{
	drained = fn;
}

void conin_register_key(char key, const char *help, void (*fn)(void))
{
	if (nkeys < MAX_KEYS)
		keys[nkeys++] = (struct debug_key){key, help, fn};
}

static unsigned irq_cpu;

static void kick_irq_cpu(void)
{
	smp_send_ipi(irq_cpu, VEC_CONSOLE_RX);
}

bool conin_route(unsigned cpu)
{
	if (!ioapic_route_isa(CONSOLE_ISA_IRQ, VEC_CONSOLE_RX, percpu[cpu].apic_id))
		return false;
	irq_cpu = cpu;
	return true;
}

bool conin_start_output(unsigned cpu)
{
	/* The drain needs a UART's THR-empty interrupt: without one (a framebuffer alone,
	 * or a PCI/MMIO UART with no ISA IRQ) the console stays synchronous. */
	if (CONSOLE_ISA_IRQ >= 16 || !conin_route(cpu))
		return false;
	console_start_async(cpu, kick_irq_cpu);
	return true;
}

bool conin_init(void)
{
	conin_register_key('h', "this help", key_help);
	conin_register_key('b', "reboot (FADT reset register, 0xCF9, 8042)", hv_reboot);
	timer_init(&watchdog_timer, watchdog_fire, NULL);
	irq_register(VEC_CONSOLE_RX, uart_irq);
	if (CONSOLE_ISA_IRQ >= 16) { /* no UART (conport said so), or a PCI/MMIO one */
		if (conport_uart_on)
			printk("console: the UART has no ISA IRQ: console input is off\n");
		return false;
	}
	if (!conin_route(this_cpu()->id)) {
		printk("console: no IOAPIC: console input is off\n");
		return false;
	}
	console_enable_rx_irq();
	return true;
}
