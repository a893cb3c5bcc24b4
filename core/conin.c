#include "core/conin.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/spinlock.h"
#include "drivers/console.h"
#include "drivers/ioapic.h"

#define RING	 1024 /* power of two */
#define MAX_KEYS 16

static char ring[RING];
static unsigned head, tail; /* head: next write; tail: next read */
static spinlock_t lock = SPINLOCK_INIT;
static bool escaped;
static void (*notify)(void);
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

static bool run_key(char c)
{
	for (unsigned i = 0; i < nkeys; i++) {
		if (keys[i].key == c) {
			keys[i].fn();
			return true;
		}
	}
	return false;
}

void conin_feed(char c)
{
	if (escaped) {
		escaped = false;
		if (c != CONIN_ESCAPE) {
			if (!run_key(c))
				key_help();
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

static void uart_irq(struct irq_frame *f)
{
	(void)f;
	unsigned before = head;
	int c;
	while ((c = console_getc()) >= 0)
		conin_feed((char)c);
	if (head != before && notify)
		notify();
}

void conin_set_notify(void (*fn)(void))
{
	notify = fn;
}

void conin_register_key(char key, const char *help, void (*fn)(void))
{
	if (nkeys < MAX_KEYS)
		keys[nkeys++] = (struct debug_key){key, help, fn};
}

bool conin_init(void)
{
	conin_register_key('h', "this help", key_help);
	irq_register(VEC_CONSOLE_RX, uart_irq);
	if (!ioapic_route_isa(CONSOLE_ISA_IRQ, VEC_CONSOLE_RX, this_cpu()->apic_id)) {
		printk("console: no IOAPIC: console input is off\n");
		return false;
	}
	console_enable_rx_irq();
	return true;
}
