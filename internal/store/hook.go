package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Hooks keep the inbound webhooks of docs/webhooks.md and their delivery
// log. A hook is named by its name, unique on the board. Neither writes
// events: what a delivery does (a ticket created, a schedule fired)
// writes its own.
type Hooks interface {
	// CreateHook validates h and stores it with an ID; its Secret is
	// kept as given (the caller seals it). A taken name is ECONFLICT, an
	// unknown project ENOTFOUND.
	CreateHook(ctx context.Context, h board.Hook) (board.Hook, error)
	// Hook returns one hook, secret included; an unknown name is
	// ENOTFOUND.
	Hook(ctx context.Context, name string) (board.Hook, error)
	// HookList lists the hooks by name, secrets included.
	HookList(ctx context.Context) ([]board.Hook, error)
	// DeleteHook removes a hook and its delivery log.
	DeleteHook(ctx context.Context, name string) error
	// StartDelivery records a delivery to the hook d.HookName as
	// received at the store's time, with d's fields, and returns it with
	// its ID. A DeliveryID the hook received before is ECONFLICT and
	// nothing is written, unless that delivery failed: it is then
	// received again (a redelivery retries) under its old ID. The log
	// keeps the newest MaxDeliveries of each hook.
	StartDelivery(ctx context.Context, d board.HookDelivery) (board.HookDelivery, error)
	// FinishDelivery records what became of delivery id: its status,
	// outcome, detail and ticket, finished at the store's time.
	FinishDelivery(ctx context.Context, d board.HookDelivery) (board.HookDelivery, error)
	// HookDeliveries lists the newest deliveries of the hook name (""
	// for every hook), newest first; a limit of 0 or less means 50.
	HookDeliveries(ctx context.Context, name string, limit int) ([]board.HookDelivery, error)
}

// MaxDeliveries is how many deliveries the log keeps per hook.
const MaxDeliveries = 200
