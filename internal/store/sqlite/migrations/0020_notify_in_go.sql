-- 0020: the outbox rows of a notifying event are written by the store's
-- one event-appending function (tx.event, notifyOutbox) instead of the
-- events_notify trigger, with the same statement, in the same
-- transaction. SQLite parses every trigger of the schema whenever a
-- connection opens; this one was the largest, and every short command
-- (an idle heartbeat most of all) paid for it without appending an event.
DROP TRIGGER events_notify;
