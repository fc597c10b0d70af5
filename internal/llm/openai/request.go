package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// defaultMaxTokens is the output cap when neither the request nor the
// catalog gives one.
const defaultMaxTokens = 8192

// maxDefaultOutput caps the catalog's output limit used as a default.
const maxDefaultOutput = 32000

func (m *Model) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.cfg.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = min(m.cfg.Info.MaxOutputTokens, maxDefaultOutput)
	}
	if maxTokens > 0 {
		if m.cfg.LegacyMaxTokens {
			p.MaxTokens = sdk.Int(int64(maxTokens))
		} else {
			p.MaxCompletionTokens = sdk.Int(int64(maxTokens))
		}
	}
	reasoning := m.cfg.Info.Thinking
	if reasoning && req.Thinking.Enabled() {
		p.ReasoningEffort = shared.ReasoningEffort(req.Thinking)
	}
	// Reasoning models refuse any temperature but the default.
	if req.Temperature != nil && !reasoning {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if req.SessionID != "" && m.cfg.Provider == "openai" {
		p.PromptCacheKey = sdk.String(req.SessionID)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &fn.Parameters); err != nil {
				return p, &llm.Error{Kind: llm.KindInvalidRequest, Provider: m.cfg.Provider,
					Message: fmt.Sprintf("tool %s: parameters are not a JSON object: %v", t.Name, err)}
			}
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionToolUnionParam{OfFunction: &sdk.ChatCompletionFunctionToolParam{Function: fn}})
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	msgs := req.Messages
	if !m.cfg.Info.Images {
		msgs = llm.WithoutImages(msgs)
	}
	p.Messages = append(p.Messages, messages(msgs)...)
	return p, nil
}

// messages converts the conversation. Thinking is not sent back (Chat
// Completions has no field for it); assistant messages left empty are
// dropped; images from tool results follow the turn's tool messages in a
// user message.
func messages(msgs []llm.Message) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	var images []sdk.ChatCompletionContentPartUnionParam
	flush := func() {
		if len(images) > 0 {
			parts := append([]sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart("Images returned by the tool calls above:")}, images...)
			out = append(out, sdk.UserMessage(parts))
			images = nil
		}
	}
	for _, msg := range msgs {
		if msg.Role != llm.RoleToolResult {
			flush()
		}
		switch msg.Role {
		case llm.RoleAssistant:
			if a, ok := assistant(msg); ok {
				out = append(out, a)
			}
		case llm.RoleToolResult:
			text := joinText(msg.Content)
			for _, p := range msg.Content {
				if p.Type == llm.PartImage {
					images = append(images, imagePart(p))
				}
			}
			if msg.IsError && text == "" {
				text = "error"
			}
			out = append(out, sdk.ToolMessage(text, msg.ToolCallID))
		default:
			out = append(out, user(msg))
		}
	}
	flush()
	return out
}

func user(msg llm.Message) sdk.ChatCompletionMessageParamUnion {
	if len(msg.Content) == 1 && msg.Content[0].Type == llm.PartText {
		return sdk.UserMessage(msg.Content[0].Text)
	}
	var parts []sdk.ChatCompletionContentPartUnionParam
	for _, p := range msg.Content {
		switch p.Type {
		case llm.PartText:
			parts = append(parts, sdk.TextContentPart(p.Text))
		case llm.PartImage:
			parts = append(parts, imagePart(p))
		}
	}
	return sdk.UserMessage(parts)
}

func imagePart(p llm.Part) sdk.ChatCompletionContentPartUnionParam {
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: "data:" + p.MimeType + ";base64," + p.Data})
}

func assistant(msg llm.Message) (sdk.ChatCompletionMessageParamUnion, bool) {
	a := sdk.ChatCompletionAssistantMessageParam{}
	if text := joinText(msg.Content); text != "" {
		a.Content.OfString = sdk.String(text)
	}
	for _, p := range msg.Content {
		if p.Type != llm.PartToolCall {
			continue
		}
		a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{ID: p.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: p.Name, Arguments: string(llm.ToolArguments(p.Arguments))}}})
	}
	if !a.Content.OfString.Valid() && len(a.ToolCalls) == 0 {
		return sdk.ChatCompletionMessageParamUnion{}, false
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, true
}

func joinText(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
