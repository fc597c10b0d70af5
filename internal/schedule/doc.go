// Package schedule computes when a schedule fires next: cron expressions
// (five fields or a name such as @daily) in an IANA time zone, `every` a
// duration from an anchor, and `at` one time. It is pure: no I/O, no clock
// of its own; callers pass the time to compute from.
//
// Cron expressions are matched by github.com/adhocore/gronx, but gronx steps
// in the wall clock of a time.Location and so can land on a time a DST
// change skips or repeats. This package therefore asks gronx only for the
// next matching wall-clock time in a frame without DST (the wall clock read
// as UTC) and maps that wall-clock time to an instant itself: a time skipped
// by spring-forward fires once at the first moment after the gap, and a
// time repeated by fall-back fires once, at its first occurrence.
//
// The IANA time zone database is embedded (time/tzdata), so zones resolve
// on machines without zoneinfo.
package schedule
