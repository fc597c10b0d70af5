package ticketcmd

import (
	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
)

func newTicketLandCmd(a *cmdkit.App, approve Approver) *cobra.Command {
	return &cobra.Command{
		Use:   "land <slug>#<n>",
		Short: "Land an approved ticket's work again, after a failure",
		Long: `Land a ticket's work on the project's default branch again: after a
failure (a protected branch, a refused push, the remote down) once its cause
is fixed, or for a DONE ticket whose work never landed (approved while the
project did not land work). A ticket in VERIFICATION is approved as by
'bonsai ticket approve'. A landed ticket is left alone.`,
		Example: "  bonsai ticket land demo#3",
		Args:    cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return approveCmd(cmd, a, approve, args[0], "", true)
		},
	}
}
