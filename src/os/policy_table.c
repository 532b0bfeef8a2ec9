/* SPDX-License-Identifier: MIT */
/*
 * The built-in policies (one NULL-terminated table, as Lua's stdlibs[]),
 * policies registered by experiments (sqlite3_vfs_register()), and
 * resolving a user's policy string: "name", "name:key=value,...", and the
 * composition "a+b" of a flush policy with a table-free strategy, where
 * each hook b defines replaces a's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "os/os.h"
#include "policies/policies.h"

static const struct tlbsim_policy *const builtin[] = {
	&tlbsim_policy_x86_stock,
	&tlbsim_policy_x86_lazy_cpumask,
	&tlbsim_policy_x86_invlpgb,
	&tlbsim_policy_arm64_stock,
	&tlbsim_policy_arm64_nr_active_mm,
	&tlbsim_policy_rcu_table_free,
	&tlbsim_policy_flush_all,
	NULL,
};

/* Registered from outside; not thread-safe, as documented. */
static const struct tlbsim_policy **registered;
static unsigned nr_registered;

const struct tlbsim_policy *tlbsim_policy_at(unsigned i)
{
	unsigned nb = sizeof(builtin) / sizeof(builtin[0]) - 1;

	if (i < nb)
		return builtin[i];
	i -= nb;
	return i < nr_registered ? registered[i] : NULL;
}

static const struct tlbsim_policy *find_len(const char *name, size_t len)
{
	const struct tlbsim_policy *p;
	unsigned i;

	for (i = 0; (p = tlbsim_policy_at(i)); i++)
		if (strlen(p->name) == len && !strncmp(p->name, name, len))
			return p;
	return NULL;
}

const struct tlbsim_policy *tlbsim_policy_find(const char *name, enum tlbsim_isa isa)
{
	if (!name)
		return isa == TLBSIM_ISA_ARM64 ? &tlbsim_policy_arm64_stock : &tlbsim_policy_x86_stock;
	return find_len(name, strlen(name));
}

int tlbsim_policy_register(const struct tlbsim_policy *p)
{
	const struct tlbsim_policy **n;

	if (!p || !p->name || !p->name[0] || p->abi != TLBSIM_POLICY_ABI ||
	    strpbrk(p->name, "+:,") ||
	    (!p->switch_mm && !p->flush_range && !p->ipi_handler && !p->free_tables &&
	     !p->exit_mm && !p->enter_lazy))
		return -TLBSIM_EINVAL;
	if (find_len(p->name, strlen(p->name)))
		return -TLBSIM_EEXIST;
	n = realloc(registered, (nr_registered + 1) * sizeof(*n));
	if (!n)
		return -TLBSIM_ENOMEM;
	registered = n;
	registered[nr_registered++] = p;
	return 0;
}

static void known_names(char *buf, size_t size, enum tlbsim_isa isa)
{
	const struct tlbsim_policy *p;
	size_t used = 0;
	unsigned i;

	buf[0] = 0;
	for (i = 0; (p = tlbsim_policy_at(i)) && used < size; i++)
		if (p->isa_mask & TLBSIM_ISA_BIT(isa))
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
						 p->name);
}

static void take_hooks(struct os_policy *pol, unsigned slot)
{
	const struct tlbsim_policy *p = pol->part[slot];

	if (p->switch_mm)
		pol->switch_mm = (struct os_hook){p, slot};
	if (p->flush_range)
		pol->flush_range = (struct os_hook){p, slot};
	if (p->ipi_handler)
		pol->ipi_handler = (struct os_hook){p, slot};
	if (p->free_tables)
		pol->free_tables = (struct os_hook){p, slot};
	if (p->exit_mm)
		pol->exit_mm = (struct os_hook){p, slot};
	if (p->enter_lazy)
		pol->enter_lazy = (struct os_hook){p, slot};
}

int os_policy_resolve(struct os_policy *pol, const char *spec, enum tlbsim_isa isa,
		      struct tlbsim_error *err)
{
	char names[512], src[160];
	const char *s;
	unsigned slot;

	memset(pol, 0, sizeof(*pol));
	if (!spec)
		spec = tlbsim_policy_find(NULL, isa)->name;
	/* The error's source names the policy, as "<gen:NAME>" a generator. */
	snprintf(src, sizeof(src), "<policy:%.140s>", spec);
	snprintf(pol->name, sizeof(pol->name), "%s", spec);
	for (s = spec, slot = 0; *s; slot++) {
		size_t len = strcspn(s, "+"), nlen = strcspn(s, "+:");
		const struct tlbsim_policy *p;
		char params[128] = "";
		int rc;

		if (slot == TLBSIM_POLICY_SLOTS)
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, -1, NULL,
				       "at most %d policies can be composed, found more in '%s'",
				       TLBSIM_POLICY_SLOTS, spec);
		if (!nlen) {
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, -1, NULL,
				       "a policy name expected in '%s' (\"a+b\" composes two)", spec);
		}
		p = find_len(s, nlen);
		if (!p) {
			known_names(names, sizeof(names), isa);
			return err_set(err, -TLBSIM_ENOENT, src, -1, -1, -1, NULL,
				       "unknown policy '%.*s'; known for %s: %s", (int)nlen, s,
				       tlbsim_isa_name(isa), names);
		}
		if (!(p->isa_mask & TLBSIM_ISA_BIT(isa))) {
			known_names(names, sizeof(names), isa);
			return err_set(err, -TLBSIM_ENOTSUP, src, -1, -1, -1, NULL,
				       "policy '%s' does not support %s; known for %s: %s", p->name,
				       tlbsim_isa_name(isa), tlbsim_isa_name(isa), names);
		}
		if (nlen < len)
			snprintf(params, sizeof(params), "%.*s", (int)(len - nlen - 1), s + nlen + 1);
		if (slot > 0 && p->flush_range)
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, -1, NULL,
				       "'%s' composes two flush policies; the part after '+' must be a "
				       "table-free strategy such as rcu-table-free", spec);
		pol->part[slot] = p;
		pol->nr = slot + 1;
		if (p->init) {
			rc = p->init(params, &pol->state[slot]);
			if (rc)
				return err_set(err, rc, src, -1, -1, -1, NULL,
					       "bad parameters '%s' for policy '%s'", params, p->name);
		} else if (params[0]) {
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, -1, NULL,
				       "policy '%s' takes no parameters, got '%s'", p->name, params);
		}
		take_hooks(pol, slot);
		s += len;
		if (*s == '+' && !*++s)
			return err_set(err, -TLBSIM_EINVAL, src, -1, -1, -1, NULL,
				       "a policy name expected after '+' in '%s'", spec);
	}
	if (!pol->flush_range.p)
		return err_set(err, -TLBSIM_EINVAL, src, -1, -1, -1, NULL,
			       "'%s' has no flush policy (a table-free strategy composes with one: "
			       "x86-stock+rcu-table-free)", spec);
	return 0;
}

void os_policy_fini(struct os_policy *pol)
{
	unsigned i;

	for (i = 0; i < TLBSIM_POLICY_SLOTS; i++)
		free(pol->state[i]);
	memset(pol, 0, sizeof(*pol));
}

/*
 * Built-in policies that need a hardware feature the machine may lack: on
 * a machine without it they would run as another policy (x86-invlpgb's
 * mms never get INVLPGB and are flushed by IPIs as under x86-stock), so
 * they are refused instead.
 */
int os_policy_check_machine(const struct os_policy *pol, const struct tlbsim_machine *m,
			    struct tlbsim_error *err)
{
	for (unsigned i = 0; i < pol->nr; i++)
		if (!strcmp(pol->part[i]->name, "x86-invlpgb") && !m->costs.invlpgb_max_pages)
			return err_set(err, -TLBSIM_ENOTSUP, m->name, -1, -1, -1, NULL,
				       "policy x86-invlpgb needs INVLPGB, which machine %s lacks "
				       "(costs.invlpgb_max_pages 0; AMD Zen 3 and later have it: "
				       "milan-36, genoa-2s, turin-2s)",
				       m->name);
	return 0;
}
