package board

import "testing"

func TestChannelValidateAndWants(t *testing.T) {
	ok := Channel{Name: "ci", Kind: ChannelWebhook, Kinds: []NotifyKind{NotifyQuestion}}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
	for _, c := range []Channel{{Name: "", Kind: ChannelSlack}, {Name: "a b", Kind: ChannelSlack}, {Name: "a#b", Kind: ChannelSlack},
		{Name: "x", Kind: "pager"}, {Name: "x", Kind: ChannelSlack, Kinds: []NotifyKind{"all"}}} {
		if err := c.Validate(); ErrorCode(err) != EINVALID {
			t.Errorf("Validate(%+v) = %v, want EINVALID", c, err)
		}
	}
	if !ok.Wants(NotifyQuestion) || ok.Wants(NotifyReview) || !(Channel{}).Wants(NotifyBlocked) {
		t.Error("Wants: a channel with kinds wants only those; one without wants every kind")
	}
}
