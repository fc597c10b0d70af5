-- 0013: SQLite's 0025. Files on tickets and comments (issue 30). The bytes
-- are kept once per content, by SHA-256, in attachment_blobs.data, so
-- every worker and `bonsai serve` of a shared board sees them. An
-- attachment row is one attaching: the ticket (and comment) it is on, its
-- sanitised name and the media type sniffed from its content.
CREATE TABLE attachment_blobs (
    sha256 text   PRIMARY KEY,
    size   bigint NOT NULL,
    data   bytea
);

CREATE TABLE attachments (
    id          text   PRIMARY KEY,
    ticket_id   text   NOT NULL REFERENCES tickets (id),
    comment_id  text   NOT NULL DEFAULT '',
    name        text   NOT NULL,
    media_type  text   NOT NULL,
    size        bigint NOT NULL,
    sha256      text   NOT NULL REFERENCES attachment_blobs (sha256),
    author_type text   NOT NULL,
    author_name text   NOT NULL,
    created_at  bigint NOT NULL
);

CREATE INDEX attachments_ticket ON attachments (ticket_id, created_at);
