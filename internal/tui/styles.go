package tui

import "charm.land/lipgloss/v2"

// The interface's styles; colours are ANSI's sixteen, so the terminal's
// theme decides their shades.
var (
	styleDim     = lipgloss.NewStyle().Faint(true)
	styleBold    = lipgloss.NewStyle().Bold(true)
	styleUser    = lipgloss.NewStyle().Foreground(lipgloss.Cyan).Bold(true)
	styleTool    = lipgloss.NewStyle().Foreground(lipgloss.Cyan)
	styleError   = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleAdd     = lipgloss.NewStyle().Foreground(lipgloss.Green)
	styleDel     = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleHunk    = lipgloss.NewStyle().Foreground(lipgloss.Magenta)
	styleCode    = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	styleHeading = lipgloss.NewStyle().Bold(true).Underline(true)
	styleStatus  = lipgloss.NewStyle().Reverse(true)
	styleAsk     = lipgloss.NewStyle().Foreground(lipgloss.Yellow).Bold(true)
)
