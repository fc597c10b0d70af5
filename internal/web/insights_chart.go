package web

import (
	"fmt"
	"slices"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/insights"
)

// The charts of the Insights page are SVG drawn on the server, in a
// coordinate box a 420 px screen shows at about its own size, so their
// text stays readable there; each has a table beside it with the same
// figures, which is what screen readers read.
const (
	chartW     = 360 // the viewBox width
	labelW     = 120 // the bar charts' label column
	valueW     = 64  // the bar charts' value column
	barRowH    = 22
	stackH     = 160 // the stacked chart's plot height
	stackTop   = 16
	stackLeft  = 8
	stackRight = 8
)

// palette colours the series of a stacked chart; the legend and the
// table name them, so colour is never the only cue.
var palette = []string{"#2f6db5", "#d9822b", "#3d9a5b", "#b5405a", "#7b5ab5", "#5c8a8a", "#a68b2c", "#6b6b6b"}

// barChart is a horizontal bar chart, one bar a row.
type barChart struct {
	Title  string
	Height int
	Bars   []bar
}

// bar is one row of a barChart, laid out.
type bar struct {
	Label, Full, Value string
	Y, TextY, W        int
}

// newBarChart lays out rows of (label, value) scaled to the largest.
func newBarChart(title string, labels []string, values []float64, format func(float64) string) barChart {
	c := barChart{Title: title, Height: max(1, len(labels))*barRowH + 4}
	top := 0.0
	for _, v := range values {
		top = max(top, v)
	}
	for i, l := range labels {
		w := 0
		if top > 0 {
			w = int(values[i] / top * float64(chartW-labelW-valueW))
		}
		y := 2 + i*barRowH
		c.Bars = append(c.Bars, bar{Label: shorten(l, 17), Full: l, Value: format(values[i]), Y: y + 3, TextY: y + 15, W: max(w, 1)})
	}
	return c
}

// shorten cuts s to n characters with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// stackChart is the spend per day, one column a day, stacked by series.
type stackChart struct {
	Title          string
	Height         int
	Cols           []stackCol
	Series         []series
	Budget         *hline
	MaxLabel       string
	FirstX, LastX  int
	First, Last    string
	BaseY, LabelsY int
}

type stackCol struct {
	Day   string
	Parts []rect
}

type rect struct {
	X, Y, W, H int
	Fill       string
	Title      string
}

type series struct{ Name, Fill string }

type hline struct {
	Y     int
	Label string
}

// newStackChart lays out days (oldest first) stacked by their ByKey.
func newStackChart(title string, days []insights.Day) stackChart {
	c := stackChart{Title: title, BaseY: stackTop + stackH, LabelsY: stackTop + stackH + 14}
	c.Height = c.LabelsY + 6
	names := []string{}
	top := 0.0
	for _, d := range days {
		for k := range d.ByKey {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
		top = max(top, d.CostUSD, d.BudgetUSD)
	}
	slices.Sort(names)
	fill := map[string]string{}
	for i, n := range names {
		fill[n] = palette[i%len(palette)]
		c.Series = append(c.Series, series{Name: n, Fill: fill[n]})
	}
	if len(days) == 0 || top == 0 {
		c.Height = 28
		return c
	}
	c.MaxLabel = money(top)
	plotW := chartW - stackLeft - stackRight
	step := float64(plotW) / float64(len(days))
	w := min(max(1, int(step*0.8)), 28)
	scale := func(v float64) int { return int(v / top * stackH) }
	for i, d := range days {
		x := stackLeft + int(float64(i)*step)
		col := stackCol{Day: d.Day}
		y := c.BaseY
		for _, n := range names {
			v := d.ByKey[n]
			h := scale(v)
			if v <= 0 || h == 0 {
				continue
			}
			y -= h
			col.Parts = append(col.Parts, rect{X: x, Y: y, W: w, H: h, Fill: fill[n], Title: fmt.Sprintf("%s %s: %s", d.Day, n, money(v))})
		}
		c.Cols = append(c.Cols, col)
	}
	c.First, c.Last = days[0].Day, days[len(days)-1].Day
	c.FirstX, c.LastX = stackLeft, chartW-stackRight
	if b := days[len(days)-1].BudgetUSD; b > 0 {
		c.Budget = &hline{Y: c.BaseY - scale(b), Label: "daily budget " + money(b)}
	}
	return c
}

// money shows dollars as the rest of the UI does.
func money(v float64) string { return board.USD(v) }
