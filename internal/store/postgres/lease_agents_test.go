package postgres_test

import "testing"

// TestLeaseRace_MaxAgents has eight workers, each with its own store
// (eight machines), race for every ticket of two projects whose agents
// work two and three tickets at once: each project ends with exactly its
// max-agents leases and no ticket is leased twice (leaseRace).
func TestLeaseRace_MaxAgents(t *testing.T) {
	maxAgents := map[string]int{"two": 2, "three": 3}
	perProject := leaseRace(t, maxAgents, 6, 0)
	for slug, n := range maxAgents {
		if perProject[slug] != n {
			t.Errorf("project %s holds %d leases, want its max-agents %d", slug, perProject[slug], n)
		}
	}
}
