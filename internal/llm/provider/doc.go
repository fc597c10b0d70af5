// Package provider turns a "provider/model" id into a ready [llm.Model]:
// it picks the adapter, reads the key and base URL from the environment
// (or the caller's overrides), looks the model up in the catalog, and
// wraps the adapter with [llm.WithRetry].
//
// It is wiring: the one package below internal/cli allowed to import both
// adapters (llm/anthropic and llm/openai), so that the CLI, the heartbeat
// runner and tests resolve models the same way. Core packages must keep
// depending on [llm.Model] only.
package provider
