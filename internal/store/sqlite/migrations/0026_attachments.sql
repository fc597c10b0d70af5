-- 0025: files on tickets and comments (issue 30). The bytes are kept once
-- per content, by SHA-256: on SQLite each is the file attachments/<sha256>
-- beside the database and attachment_blobs.data is NULL; a board copied
-- here from a shared store keeps them in data instead. An attachment row
-- is one attaching: the ticket (and comment) it is on, its sanitised name
-- and the media type sniffed from its content.
CREATE TABLE attachment_blobs (
    sha256 TEXT    PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB
) STRICT;

CREATE TABLE attachments (
    id          TEXT    PRIMARY KEY,
    ticket_id   TEXT    NOT NULL REFERENCES tickets (id),
    comment_id  TEXT    NOT NULL DEFAULT '',
    name        TEXT    NOT NULL,
    media_type  TEXT    NOT NULL,
    size        INTEGER NOT NULL,
    sha256      TEXT    NOT NULL REFERENCES attachment_blobs (sha256),
    author_type TEXT    NOT NULL,
    author_name TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX attachments_ticket ON attachments (ticket_id, created_at);
