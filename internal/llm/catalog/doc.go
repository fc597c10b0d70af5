// Package catalog knows the models Bonsai has prices and limits for: an
// embedded JSON table (models.json) of context windows, output limits,
// image and thinking support, and USD prices per million tokens, which
// config.json's "models" key can extend or override field by field.
//
// Lookup tolerates dated snapshots ("claude-sonnet-4-5-20250929",
// "gpt-4o-2024-08-06") and routers that prefix another provider's id
// ("openrouter/openai/gpt-5"). A model it does not know still works, with
// conservative defaults and a one-line warning for the caller to show.
package catalog
