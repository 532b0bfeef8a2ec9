/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the machine-file loader (src/config/machine.c, format in
 * models/README.md) on arbitrary text.  A loaded machine must pass
 * tlbsim_machine_validate() and survive a deep copy.  Seeds:
 * corpus/machine/.
 */
#include <string.h>

#include "fuzz.h"
#include "tlbsim/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tlbsim_machine *m = NULL, *copy;
	struct tlbsim_error err;
	char *json = malloc(size + 1);
	int rc;

	if (!json)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	tlbsim_error_clear(&err);
	rc = tlbsim_machine_load_string(json, "<fuzz>", &m, &err);
	free(json);
	if (rc) {
		fuzz_check_error(rc, &err);
		FUZZ_ASSERT(m == NULL, "a failed load returns no machine");
		return 0;
	}
	tlbsim_error_clear(&err);
	FUZZ_ASSERT(tlbsim_machine_validate(m, &err) == 0, "a loaded machine is valid");
	copy = tlbsim_machine_dup(m);
	FUZZ_ASSERT(copy != NULL, "a machine can be copied");
	tlbsim_machine_free(copy);
	tlbsim_machine_free(m);
	return 0;
}
