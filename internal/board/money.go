package board

import (
	"math"
	"strconv"
)

// USD formats a cost in US dollars for people: cents from a cent up
// ("$12.35", "$0.25"), and below a cent two significant digits ("$0.0045",
// "$0.000031"), so that a small run never reads "$0.00". Zero is "$0.00".
func USD(v float64) string {
	dec := 2
	if v > 0 && v < 0.01 {
		dec = 1 - int(math.Floor(math.Log10(v)))
		// Rounding up to the next power of ten (0.00999 → 0.0100) would
		// show a third significant digit.
		if math.Round(v*math.Pow10(dec)) >= 100 {
			dec--
		}
		dec = max(dec, 2)
	}
	return "$" + strconv.FormatFloat(v, 'f', dec, 64)
}
