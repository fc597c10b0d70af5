// Package outbox is the notification work every bonsai process shares,
// between the store's outbox and the channels of internal/notify:
//
//   - [Sealed], the store as the commands, delivery and the web page get
//     it: channel secrets sealed with the credentials key on the way in
//     and unsealed on the way out, so bonsai.db alone never holds them;
//   - [Deliver] and [Every], delivering what is due with the errors
//     stored and logged scrubbed of secrets, and [Pending];
//   - [NoteBlockers], the beat's note of why a project's agents could not
//     run, so that each new cause notifies once;
//   - [NewChannel], [SendTest] and [List], what `bonsai notify` does with
//     channels, and [WriteList], the channel list for a terminal.
//
// It takes the credentials key and the process's secrets as small
// interfaces and functions: internal/cli wires them.
package outbox
