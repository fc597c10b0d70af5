-- 0006: transcripts and live files in the store, as SQLite's 0018 (issue
-- 18). On a board several machines share these rows are the transcript:
-- any worker resumes a ticket from them, any web server shows them.
CREATE TABLE transcript_lines (
    ticket_id text   NOT NULL REFERENCES tickets (id),
    n         bigint NOT NULL CHECK (n >= 0),
    line      text   NOT NULL CHECK (line <> ''),
    PRIMARY KEY (ticket_id, n)
);

CREATE TABLE transcript_live (
    ticket_id text   PRIMARY KEY REFERENCES tickets (id),
    data      text   NOT NULL,
    version   bigint NOT NULL
);
