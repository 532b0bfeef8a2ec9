/* SPDX-License-Identifier: MIT */
/*
 * Symbol visibility and attributes for the public API.  The library is built
 * with -fvisibility=hidden; only functions marked TLBSIM_API are exported
 * (checked by the test "exports_only_tlbsim_symbols").
 */
#ifndef TLBSIM_EXPORT_H
#define TLBSIM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define TLBSIM_API __attribute__((visibility("default")))
#define TLBSIM_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TLBSIM_API
#define TLBSIM_MUST_CHECK
#endif

#endif /* TLBSIM_EXPORT_H */
