package board

import "encoding/json"

// CommentOf names the comment whose files came with event e: the one its
// data names (commentId) or, for a ticket.moved event, the completion
// comment its mover posted just before it, when only that comment's files
// came between them. before are the ticket's events before e, newest
// first. "" is none.
func CommentOf(e Event, before []Event) string {
	if c := e.Field("commentId"); c != "" || e.Type != EventTicketMoved {
		return c
	}
	for _, b := range before {
		if b.Type == EventAttachmentAdded && b.Actor == e.Actor {
			continue
		}
		if b.Type == EventCommentAdded && b.Actor == e.Actor && b.Field("kind") == string(KindCompletion) {
			return b.Field("commentId")
		}
		break
	}
	return ""
}

// Field is a string field of e's data; "" when it has none.
func (e Event) Field(key string) string {
	var m map[string]any
	if json.Unmarshal(e.Data, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}
