/* SPDX-License-Identifier: MIT */
/*
 * Finding a machine description by name or path: the directories searched
 * are $TLBSIM_MODELS, the installed share/tlbsim/models relative to the
 * executable and to the shared library (an install moved elsewhere works),
 * the source tree's models/ (for an uninstalled build), and the configured
 * install prefix's share/tlbsim/models.
 */
#define _GNU_SOURCE /* dladdr() */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error_internal.h"
#include "tlbsim/machine.h"

/* Up to: $TLBSIM_MODELS, next to the executable, next to the library, the
 * source tree, the configured install prefix. */
static const char *model_dirs[5];
static char exe_models[4096], lib_models[4096];

/*
 * The installed models relative to the file at @path (the executable in
 * bindir, or libtlbsim.so in libdir): @rel is the relative path from that
 * file's directory (TLBSIM_BIN_TO_MODELS, TLBSIM_LIB_TO_MODELS, computed
 * by CMake from GNUInstallDirs), so an install moved to another prefix
 * still finds its models.  Empty when @path is unknown.
 */
static void beside(char *out, size_t size, const char *path, const char *rel)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	out[0] = 0;
	if (slash)
		snprintf(out, size, "%.*s/%s", (int)(slash - path), path, rel);
}

static unsigned dirs(void)
{
	unsigned n = 0;
	const char *env = getenv("TLBSIM_MODELS");
	char exe[4096];
	ssize_t len;
	Dl_info info;

	if (env && env[0])
		model_dirs[n++] = env;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	beside(exe_models, sizeof(exe_models), len > 0 ? exe : NULL, TLBSIM_BIN_TO_MODELS);
	if (exe_models[0])
		model_dirs[n++] = exe_models;
	/* The shared library's own file (the executable's when linked
	 * statically: then it is the case above). */
	if (dladdr((void *)tlbsim_machine_find, &info) && info.dli_fname &&
	    strcmp(info.dli_fname, exe)) {
		beside(lib_models, sizeof(lib_models), info.dli_fname, TLBSIM_LIB_TO_MODELS);
		if (lib_models[0])
			model_dirs[n++] = lib_models;
	}
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
		       "no machine named '%s' (looked in $TLBSIM_MODELS, %s%s%s, %s and %s; "
		       "'tlbsim list machines' shows them)",
		       name, exe_models, lib_models[0] ? ", " : "", lib_models,
		       TLBSIM_SOURCE_MODELS_DIR "/machines", TLBSIM_MODELS_DIR "/machines");
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
