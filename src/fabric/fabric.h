/* SPDX-License-Identifier: MIT */
/*
 * The interconnect: core-to-core latency from the topology, and the
 * serialising broadcast engines (arm64 DVM, AMD INVLPGB) that make
 * simultaneous broadcasts wait for each other.
 *
 * Broadcast contention follows the measurement that TLBI-broadcast latency
 * grows about linearly with the number of cpus broadcasting at once, which
 * suggests one serial, system-wide broadcast engine (CALIBRATION.md 4.3):
 * a FIFO server with a fixed service time per broadcast.  k broadcasts
 * arriving together finish service 1, 2, ..., k service times later.
 */
#ifndef TLBSIM_FABRIC_H
#define TLBSIM_FABRIC_H

#include <stdint.h>

#include "tlbsim/machine.h"

/* The smallest one-way latency between two distinct cores, cycles
 * (UINT64_MAX for a one-core machine): the engine's window bound. */
uint64_t fab_min_latency(const struct tlbsim_machine *m);

/**
 * struct fab_server - a FIFO broadcast engine (also a FIFO lock: the OS
 * model's lru_lock, src/os/lru.c)
 * @service: cycles it is busy per broadcast (fab_server_accept())
 * @busy_until: time it becomes free, cycles
 * @served: broadcasts (requests) served so far
 * @queued_cycles: cycles broadcasts (requests) waited for the engine
 *        (contention)
 */
struct fab_server {
	uint64_t service;
	uint64_t busy_until;
	uint64_t served;
	uint64_t queued_cycles;
};

/*
 * A request reaches the server at @arrive and keeps it busy @service
 * cycles: returns when its service ends, max(@arrive, busy_until) +
 * @service.  Serial phase only.
 */
static inline uint64_t fab_server_hold(struct fab_server *s, uint64_t arrive, uint64_t service)
{
	uint64_t start = arrive > s->busy_until ? arrive : s->busy_until;

	s->queued_cycles += start - arrive;
	s->busy_until = start + service;
	s->served++;
	return s->busy_until;
}

/*
 * A broadcast reaches the engine at @arrive: returns when its service ends,
 * max(@arrive, busy_until) + service.  Serial phase only.
 */
static inline uint64_t fab_server_accept(struct fab_server *s, uint64_t arrive)
{
	return fab_server_hold(s, arrive, s->service);
}

#endif
