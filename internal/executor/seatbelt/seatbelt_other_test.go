//go:build !darwin

package seatbelt

import (
	"strings"
	"testing"
)

func TestNewRefusesOffMacOS(t *testing.T) {
	_, err := New(t.TempDir(), Options{})
	if err == nil || !strings.Contains(err.Error(), "Seatbelt runs on macOS only") {
		t.Fatalf("New off macOS: %v", err)
	}
	if Available() == nil {
		t.Fatal("Available off macOS")
	}
}
