package ticketcmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCommentCmd returns `bonsai comment` and its subcommand.
func NewCommentCmd(a *cmdkit.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "comment",
		Short: "Comment on tickets",
	}
	cmd.AddCommand(newCommentAddCmd(a))
	return cmd
}

func newCommentAddCmd(a *cmdkit.App) *cobra.Command {
	var attach []string
	cmd := &cobra.Command{
		Use:   "add <slug>#<n> <text>",
		Short: "Comment on a ticket as a person; answers the agent's question",
		Long: `Comment on a ticket as a person. When the agent is blocked waiting on an
answer, your comment unblocks the ticket and the next heartbeat picks it up
first. Give - as the text to read it from standard input.`,
		Example: `  bonsai comment add demo#3 "Use the v2 API, not v1."
  bonsai comment add demo#3 "The button overlaps here." --attach shot.png`,
		Args: cmdkit.ExactArgs("<slug>#<n>", "<text>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			body := args[1]
			if body == "-" {
				b, err := io.ReadAll(io.LimitReader(a.Stdin, board.MaxComment+1))
				if err != nil {
					return cmdkit.Usagef("read comment: %v", err)
				}
				if len(b) > board.MaxComment {
					return cmdkit.Usagef("comment on standard input is over the limit of %d bytes", board.MaxComment)
				}
				body = string(b)
			}
			c := board.Comment{AuthorType: board.Human, AuthorName: a.Author(), Kind: board.KindNote, Content: body}
			if err := c.Validate(); err != nil {
				return err
			}
			limits := attachLimits(a)
			files, err := readAttachments(a, attach, limits)
			if err != nil {
				return err
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			added, err := s.AddComment(cmd.Context(), ref, c)
			if err != nil {
				return err
			}
			if err := storeAttachments(cmd.Context(), a, s, ref, added.ID, files, limits); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Commented on %s", ref)
			if t, err := s.Ticket(cmd.Context(), ref); err == nil {
				fmt.Fprint(a.Stdout, text.WhoReads(t))
			}
			fmt.Fprintln(a.Stdout)
			return nil
		},
	}
	addAttachFlag(cmd.Flags(), &attach)
	return cmd
}
