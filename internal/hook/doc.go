// Package hook verifies and reads the deliveries of inbound webhooks
// (docs/webhooks.md): the sender's proof for each scheme (GitHub's and
// Gitea's HMAC-SHA256 signatures, GitLab's token, a generic HMAC over a
// timestamp, a nonce and the body), the delivery's id and event, and the
// payload's fields a hook's template and conditions name. It does no I/O:
// the web server reads the request and acts on what Verify returns.
package hook
