/* SPDX-License-Identifier: MIT */
/*
 * Finding a machine description by name or path: the directories searched
 * are $TLBSIM_MODELS, the source tree's models/ (for an uninstalled build),
 * and the installed share/tlbsim/models.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error_internal.h"
#include "tlbsim/machine.h"

static const char *model_dirs[3];

static unsigned dirs(void)
{
	unsigned n = 0;
	const char *env = getenv("TLBSIM_MODELS");

	if (env && env[0])
		model_dirs[n++] = env;
	model_dirs[n++] = TLBSIM_SOURCE_MODELS_DIR;
	model_dirs[n++] = TLBSIM_MODELS_DIR;
	return n;
}

static int looks_like_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json"));
}

int tlbsim_machine_path(const char *name, char *buf, size_t len, struct tlbsim_error *err)
{
	unsigned i, n;

	if (!name || !buf || !len)
		return -TLBSIM_EINVAL;
	if (looks_like_path(name)) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len)
			return err_set(err, -TLBSIM_ERANGE, name, -1, -1, -1, NULL,
				       "path longer than %zu bytes", len - 1);
		return 0;
	}
	n = dirs();
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(buf, len, "%s/machines/%s.json", model_dirs[i], name) >= len)
			continue;
		if (!access(buf, R_OK))
			return 0;
	}
	return err_set(err, -TLBSIM_ENOENT, name, -1, -1, -1, NULL,
		       "no machine named '%s' (looked in $TLBSIM_MODELS, %s and %s; "
		       "'tlbsim list machines' shows them)",
		       name, TLBSIM_SOURCE_MODELS_DIR "/machines", TLBSIM_MODELS_DIR "/machines");
}

int tlbsim_machine_find(const char *name, struct tlbsim_machine **out, struct tlbsim_error *err)
{
	char path[4096];
	int rc;

	if (!name || !out)
		return -TLBSIM_EINVAL;
	*out = NULL;
	rc = tlbsim_machine_path(name, path, sizeof(path), err);
	return rc ? rc : tlbsim_machine_load_file(path, out, err);
}

int tlbsim_machine_list(void (*fn)(void *arg, const char *name, const char *path), void *arg)
{
	char *names[512], *paths[512];
	unsigned i, n, count = 0, k;
	char dir[4096];

	n = dirs();
	for (i = 0; i < n; i++) {
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "%s/machines", model_dirs[i]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d)) && count < 512) {
			size_t len = strlen(e->d_name);
			int dup = 0;

			if (len <= 5 || strcmp(e->d_name + len - 5, ".json"))
				continue;
			for (k = 0; k < count; k++)
				dup |= !strncmp(names[k], e->d_name, len - 5) && !names[k][len - 5];
			if (dup)
				continue;
			names[count] = strndup(e->d_name, len - 5);
			paths[count] = malloc(strlen(dir) + len + 2);
			if (!names[count] || !paths[count]) {
				free(names[count]);
				free(paths[count]);
				continue;
			}
			sprintf(paths[count], "%s/%s", dir, e->d_name);
			count++;
		}
		closedir(d);
	}
	/* Sort names, and paths with them. */
	for (i = 0; i < count; i++)
		for (k = i + 1; k < count; k++)
			if (strcmp(names[k], names[i]) < 0) {
				char *t = names[i];

				names[i] = names[k];
				names[k] = t;
				t = paths[i];
				paths[i] = paths[k];
				paths[k] = t;
			}
	for (i = 0; i < count; i++) {
		fn(arg, names[i], paths[i]);
		free(names[i]);
		free(paths[i]);
	}
	return (int)count;
}
