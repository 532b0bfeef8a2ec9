#!/bin/sh
# SPDX-License-Identifier: MIT
#
# shell-loop: the quick start's main job (traces/samples/README.md), a
# shell running short processes the way a build or a test suite does: each
# round starts a short multi-threaded program in the background (arena_churn,
# 3 threads returning memory with munmap and madvise), meanwhile runs a
# pipeline and two more short programs, then waits for it.  Every process
# forks from the shell, execs, maps its libraries, and exits.
#
# usage: shell-loop.sh ARENA_CHURN [ROUNDS]   (ROUNDS: 3)
set -e
churn=$1
rounds=${2:-3}
i=0
while [ "$i" -lt "$rounds" ]; do
	"$churn" 3 1 4 48 &
	ls /usr/include | wc -l >/dev/null
	grep -c root /etc/passwd >/dev/null
	cat /etc/hostname >/dev/null
	wait
	i=$((i + 1))
done
