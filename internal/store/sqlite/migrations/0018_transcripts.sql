-- 0018: transcripts and live files in the store (issue 18,
-- docs/postgres.md). A ticket's transcript is kept line by line, each line
-- exactly as the session file holds it without its newline, numbered from
-- 0 (the header); lines are only ever appended. On a board several
-- machines share these rows are the transcript; on one machine the session
-- file is, and rows come only from a board copied here.
CREATE TABLE transcript_lines (
    ticket_id TEXT    NOT NULL REFERENCES tickets (id),
    n         INTEGER NOT NULL CHECK (n >= 0),
    line      TEXT    NOT NULL CHECK (line <> ''),
    PRIMARY KEY (ticket_id, n)
) STRICT;

-- The live file: the assistant message being streamed, replaced by each
-- new message and appended to while it streams; version counts the writes.
CREATE TABLE transcript_live (
    ticket_id TEXT    PRIMARY KEY REFERENCES tickets (id),
    data      TEXT    NOT NULL,
    version   INTEGER NOT NULL
) STRICT;
