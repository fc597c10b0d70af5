// Package scheduletool holds the board tools that let an agent schedule
// work in its own project (docs/schedules.md): schedule_create,
// schedule_list and schedule_cancel. The heartbeat offers them only to
// agents of projects whose ScheduleTools setting is on.
//
// What an agent may do is narrower than what a person may: its schedules
// always skip a firing while their previous ticket is open, have no
// pre-check (a command that would run unattended on every firing), are
// capped in number per project, and it may cancel only schedules an agent
// created. Refusals are results the model reads, never Go errors.
package scheduletool
