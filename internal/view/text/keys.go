package text

import (
	"io"

	"github.com/bonsai-run/bonsai/internal/credentials"
)

// WriteKeySources prints, for `bonsai credentials list`, where each
// provider's and forge's key comes from: the environment (and whether it
// overrides a stored key), the store (and when it was set) or nowhere,
// with the last four characters; never a key.
func WriteKeySources(w io.Writer, srcs []credentials.Source) error {
	t := NewTable(w, "PROVIDER", "SOURCE", "LAST4", "SET")
	for _, c := range srcs {
		src, last, set := c.Source, "", ""
		if c.Last4 != "" {
			last = "…" + c.Last4
		}
		switch c.Source {
		case credentials.SourceEnv:
			src = "environment (" + c.Variable + ")"
			if c.Shadowed {
				src += ", overrides the stored key"
			}
		case credentials.SourceStored:
			set = c.SetAt.Local().Format("2006-01-02 15:04")
		}
		t.Row(c.Name, src, last, set)
	}
	return t.Flush()
}
