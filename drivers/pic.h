/* Legacy 8259 PICs: masked for good. The BIOS leaves IRQ0 on vector 8 (#DF). */
#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H
void pic_mask_all(void);
#endif
