package config

import "strings"

// nearestKey returns the schema key a mistyped name was most likely meant
// to be ("model" for "modle", "budget.ticketUSD" for "budget.ticketusd"):
// the closest within two edits, letter case aside; "" when none is.
func nearestKey(name string) string {
	best, bestDist := "", 3
	for _, k := range keys {
		if d := EditDistance(strings.ToLower(name), strings.ToLower(k.name)); d < bestDist {
			best, bestDist = k.name, d
		}
	}
	return best
}

// didYouMean is ` (did you mean "<key>"?)` for nearestKey(name), or "".
func didYouMean(name string) string {
	if near := nearestKey(name); near != "" && near != name {
		return ` (did you mean "` + near + `"?)`
	}
	return ""
}

// EditDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbours. The
// CLI's "did you mean" for flags uses it as config's keys do.
func EditDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
