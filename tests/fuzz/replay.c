/* SPDX-License-Identifier: MIT */
/*
 * Replays inputs through a fuzz harness without libFuzzer, so that the
 * seed corpora and the regression inputs run in the ordinary test suite
 * (and under the ordinary sanitizer build).  Each argument is a file or a
 * directory of files (not recursive); every file is one input.  A harness
 * that finds a broken promise aborts; otherwise this prints how many
 * inputs ran and exits 0.  Exit 2 when an argument cannot be read or names
 * no input at all (a typo must not pass as "nothing failed").
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned inputs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;
		DIR *d;
		struct dirent *de;

		if (stat(argv[i], &sb)) {
			perror(argv[i]);
			return 2;
		}
		if (!S_ISDIR(sb.st_mode)) {
			if (run_file(argv[i]))
				return 2;
			inputs++;
			continue;
		}
		if (!(d = opendir(argv[i]))) {
			perror(argv[i]);
			return 2;
		}
		while ((de = readdir(d))) {
			char path[4096];

			if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			if (stat(path, &sb) || !S_ISREG(sb.st_mode))
				continue;
			if (run_file(path)) {
				closedir(d);
				return 2;
			}
			inputs++;
		}
		closedir(d);
	}
	if (!inputs) {
		fprintf(stderr, "replay: no input found\n");
		return 2;
	}
	printf("replay: %u inputs, no broken promise\n", inputs);
	return 0;
}
