package board

// ClipDetail cuts s, a detail a log keeps (a hook delivery's, a tracker
// limit's), to at most MaxDeliveryDetail bytes on a rune boundary.
func ClipDetail(s string) string {
	n := MaxDeliveryDetail
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
