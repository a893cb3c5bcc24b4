# The service domain (guests/service): the privileged shell. Built like the other guests
# (guest_rule from mk/guests.mk).
GUEST_ELFS += $(BUILD)/guests/service.elf
$(eval $(call guest_rule,service))
