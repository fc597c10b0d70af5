package openai

import (
	"errors"
	"sync"
)

// The values of Config.ReasoningSummary.
const (
	// SummaryAuto asks the Responses API for reasoning summaries
	// (reasoning.summary "auto"); "" means the same.
	SummaryAuto = "auto"
	// SummaryOff asks for none: OpenAI gives them only to verified
	// organisations and answers the others HTTP 400.
	SummaryOff = "off"
)

// errSummaryRefused is the underlying error of the HTTP 400 OpenAI
// answers a request asking for reasoning summaries the organisation may
// not have (code unsupported_value, param reasoning.summary).
var errSummaryRefused = errors.New("reasoning summaries refused")

// summaryRefusals holds, for this process, the accounts (see
// [accountOf]) that were refused reasoning summaries:
// their later requests leave them out, and the refusal is reported once.
var summaryRefusals sync.Map

// summaryRefused reports whether account was refused summaries.
func summaryRefused(account string) bool {
	_, ok := summaryRefusals.Load(account)
	return ok
}

// refuseSummary records that account was refused summaries and reports
// whether this is the first time.
func refuseSummary(account string) bool {
	_, loaded := summaryRefusals.LoadOrStore(account, struct{}{})
	return !loaded
}
