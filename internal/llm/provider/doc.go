// Package provider turns a "provider/model" id into a ready [llm.Model]:
// it finds the provider in [llm.Providers], picks the adapter of its wire
// format, reads the key and base URL from the variables the table names
// (or the caller's overrides), looks the model up in the catalog, and
// wraps the adapter with [llm.WithRetry]. The table is data in llm so that
// the CLI and the web UI read the same variables without importing this
// package.
//
// It is wiring: the one package below internal/cli allowed to import both
// adapters (llm/anthropic and llm/openai), so that the CLI, the heartbeat
// runner and tests resolve models the same way. Core packages must keep
// depending on [llm.Model] only.
package provider
