package tracker_test

import "strconv"

func forgeItoa(n int) string { return strconv.Itoa(n) }
