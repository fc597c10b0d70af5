package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/view"
)

// TestPingVerdict covers the provider answers the doctor script cannot
// easily provoke: a model the provider does not list, a busy provider, a
// wrong base URL, no answer in time.
func TestPingVerdict(t *testing.T) {
	m := view.ModelStatus{Model: "openai/gpt-5", KeySource: credentials.SourceStored}
	mid := llm.ModelID{Provider: "openai", Model: "gpt-5"}
	base := "https://user:secret@proxy.example/v1"
	tests := []struct {
		listing llm.Listing
		err     error
		want    Status
		detail  string
		fix     string
	}{
		{llm.Listing{Models: []string{"gpt-5", "gpt-5-mini"}}, nil, OK, "openai accepts the stored key (5ms)", ""},
		{llm.Listing{}, nil, OK, "openai accepts the stored key", ""},
		{llm.Listing{Models: []string{"gpt-4o", "gpt-4.1", "o3", "o4-mini"}}, nil, Warn, "but does not list gpt-5", "openai lists gpt-4o, gpt-4.1, o3, …"},
		{llm.Listing{}, &llm.Error{Kind: llm.KindRateLimit, Status: 429, Message: "slow down"}, Warn, "openai is busy: slow down", "wait"},
		{llm.Listing{}, &llm.Error{Kind: llm.KindInvalidRequest, Status: 404, Message: "Not Found"}, Fail, "no model list at https://user:xxxxx@proxy.example/v1", "providers.openai.baseURL"},
		{llm.Listing{}, &llm.Error{Kind: llm.KindAuth, Status: 403, Message: "forbidden"}, Fail, "openai refused the stored key (HTTP 403: forbidden)", "replace it: bonsai credentials set openai"},
		{llm.Listing{}, &llm.Error{Kind: llm.KindInvalidRequest, Status: 400, Message: "bad"}, Fail, "openai answered HTTP 400: bad", "check the network"},
		{llm.Listing{}, context.DeadlineExceeded, Fail, "did not answer within 10s", "check the network"},
		{llm.Listing{}, errors.New("dial tcp: connection refused"), Fail, "cannot reach openai at https://user:xxxxx@proxy.example/v1: dial tcp", "check the network"},
	}
	for _, tt := range tests {
		st, detail, fix := pingVerdict(m, mid, tt.listing, base, 5*time.Millisecond, tt.err)
		if st != tt.want || !strings.Contains(detail, tt.detail) || !strings.Contains(fix, tt.fix) || strings.Contains(detail+fix, "secret") {
			t.Errorf("pingVerdict(%v, %v) = %s, %q, %q; want %s with %q, fix %q", tt.listing.Models, tt.err, st, detail, fix, tt.want, tt.detail, tt.fix)
		}
	}
}
