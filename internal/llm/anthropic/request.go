package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// defaultMaxTokens is the output cap when neither the request nor the
// catalog gives one.
const defaultMaxTokens = 8192

// maxDefaultOutput caps the catalog's output limit used as a default, so a
// request does not reserve 64k output tokens it rarely needs.
const maxDefaultOutput = 32000

// params builds the SDK request from an llm.Request.
func (m *Model) params(req llm.Request) (sdk.MessageNewParams, []option.RequestOption, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = min(m.cfg.Info.MaxOutputTokens, maxDefaultOutput)
		if maxTokens <= 0 {
			maxTokens = defaultMaxTokens
		}
	}
	p := sdk.MessageNewParams{Model: sdk.Model(m.cfg.Model)}
	var opts []option.RequestOption
	if req.Thinking.Enabled() && m.cfg.Info.AdaptiveThinking {
		p.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{
			Display: sdk.ThinkingConfigAdaptiveDisplaySummarized}}
		p.OutputConfig = sdk.OutputConfigParam{Effort: sdk.OutputConfigEffort(req.Thinking)}
	} else if req.Thinking.Enabled() {
		budget := req.Thinking.ThinkingBudget()
		if maxTokens <= budget {
			maxTokens = budget + defaultMaxTokens
			if lim := m.cfg.Info.MaxOutputTokens; lim > 0 && maxTokens > lim {
				maxTokens = lim
				budget = max(1024, lim/2)
			}
		}
		p.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{BudgetTokens: int64(budget)}}
		// Thinking between tool calls needs this beta on Claude 4 models.
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", "interleaved-thinking-2025-05-14"))
	} else if req.Temperature != nil {
		// The SDK has no temperature field; the API still accepts it.
		opts = append(opts, option.WithJSONSet("temperature", *req.Temperature))
	}
	p.MaxTokens = int64(maxTokens)

	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for i, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return p, nil, err
		}
		if i == len(req.Tools)-1 {
			tool.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	msgs := req.Messages
	if !m.cfg.Info.Images {
		msgs = llm.WithoutImages(msgs)
	}
	p.Messages = messages(msgs, m.cfg.Provider)
	markCache(p.Messages)
	return p, opts, nil
}

func toolParam(t llm.ToolSpec) (sdk.ToolParam, error) {
	schema := map[string]any{}
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return sdk.ToolParam{}, &llm.Error{Kind: llm.KindInvalidRequest, Provider: "anthropic",
				Message: fmt.Sprintf("tool %s: parameters are not a JSON object: %v", t.Name, err)}
		}
	}
	in := sdk.ToolInputSchemaParam{Properties: schema["properties"]}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		if k == "type" || k == "properties" || k == "required" {
			continue
		}
		if in.ExtraFields == nil {
			in.ExtraFields = map[string]any{}
		}
		in.ExtraFields[k] = v
	}
	if in.Properties == nil {
		in.Properties = map[string]any{}
	}
	tool := sdk.ToolParam{Name: t.Name, InputSchema: in}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	return tool, nil
}

// messages converts the conversation: tool results join the user turn that
// follows the assistant's tool calls, consecutive messages of one side merge,
// and assistant messages without content (failed or aborted before any
// output) are left out because the API refuses them.
func messages(msgs []llm.Message, provider string) []sdk.MessageParam {
	var out []sdk.MessageParam
	for _, msg := range msgs {
		switch msg.Role {
		case llm.RoleAssistant:
			blocks := assistantBlocks(msg, provider)
			if len(blocks) == 0 {
				continue
			}
			// Roles must alternate: a retried or continued answer joins the
			// assistant turn before it.
			if n := len(out); n > 0 && out[n-1].OfAssistant != nil {
				out[n-1].OfAssistant.Content = append(out[n-1].OfAssistant.Content, blocks...)
				continue
			}
			out = append(out, sdk.NewAssistantMessage(blocks...))
		case llm.RoleToolResult:
			out = appendUser(out, toolResultBlock(msg))
		default:
			for _, p := range msg.Content {
				if b, ok := userBlock(p); ok {
					out = appendUser(out, b)
				}
			}
		}
	}
	return out
}

func appendUser(out []sdk.MessageParam, b sdk.ContentBlockParamUnion) []sdk.MessageParam {
	if n := len(out); n > 0 && out[n-1].OfUser != nil {
		out[n-1].OfUser.Content = append(out[n-1].OfUser.Content, b)
		return out
	}
	return append(out, sdk.NewUserMessage(b))
}

func userBlock(p llm.Part) (sdk.ContentBlockParamUnion, bool) {
	switch p.Type {
	case llm.PartText:
		if p.Text == "" {
			return sdk.ContentBlockParamUnion{}, false
		}
		return sdk.NewTextBlock(p.Text), true
	case llm.PartImage:
		return sdk.NewImageBlockBase64(p.MimeType, p.Data), true
	}
	return sdk.ContentBlockParamUnion{}, false
}

func toolResultBlock(msg llm.Message) sdk.ContentBlockParamUnion {
	r := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
	if msg.IsError {
		r.IsError = sdk.Bool(true)
	}
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
			}
		case llm.PartImage:
			img := sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
				Data: p.Data, MediaType: sdk.Base64ImageSourceMediaType(p.MimeType)}}}
			r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &img})
		}
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &r}
}

// assistantBlocks converts an assistant message. Thinking is sent back only
// when it came from this provider with a signature: signatures from other
// providers or models would be refused.
func assistantBlocks(msg llm.Message, provider string) []sdk.ContentBlockParamUnion {
	own := msg.Provider == "" || msg.Provider == provider
	var blocks []sdk.ContentBlockParamUnion
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(p.Text))
			}
		case llm.PartThinking:
			switch {
			case !own || p.Signature == "":
				continue
			case p.Redacted:
				blocks = append(blocks, sdk.NewRedactedThinkingBlock(p.Signature))
			default:
				blocks = append(blocks, sdk.NewThinkingBlock(p.Signature, p.Thinking))
			}
		case llm.PartToolCall:
			args := p.Arguments
			if !json.Valid(args) || len(args) == 0 || args[0] != '{' {
				// The API needs an object; the model's broken input was already
				// answered with an error result.
				args = json.RawMessage("{}")
			}
			blocks = append(blocks, sdk.NewToolUseBlock(p.ID, args, p.Name))
		}
	}
	return blocks
}

// markCache puts cache breakpoints on the last block of the last two user
// turns: the newest one caches the whole prefix for the next request, the
// one before lets this request read what the previous request wrote.
// Together with the system prompt and the last tool that makes four, the
// API's limit.
func markCache(msgs []sdk.MessageParam) {
	marked := 0
	for i := len(msgs) - 1; i >= 0 && marked < 2; i-- {
		u := msgs[i].OfUser
		if u == nil || len(u.Content) == 0 {
			continue
		}
		b := &u.Content[len(u.Content)-1]
		cc := sdk.NewCacheControlEphemeralParam()
		switch {
		case b.OfText != nil:
			b.OfText.CacheControl = cc
		case b.OfImage != nil:
			b.OfImage.CacheControl = cc
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = cc
		default:
			continue
		}
		marked++
	}
}
