-- The known events whose receipts or snapshot row disagree on their position
-- (§4.5), with the lowest (their sort position): few, kept apart so that the
-- passes over receipts that need them join a small table, not every event.
SELECT pk, event_id, sort_pos FROM rc_known_events WHERE mutated
