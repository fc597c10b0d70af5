package insights

import (
	"encoding/csv"
	"io"
	"strconv"
)

// csvHeader names the columns WriteCSV writes.
var csvHeader = []string{"group", "landed", "one_shot", "one_shot_rate", "returns", "runs", "tokens", "cost_usd",
	"questions", "returns_per_landed", "runs_per_landed", "tokens_per_landed", "cost_usd_per_landed",
	"questions_per_landed", "timed", "median_hours_to_land", "mean_hours_to_land"}

// WriteCSV writes the report's groups, then the total as group "all", one
// row each under a header: what a spreadsheet wants of `bonsai stats`.
func WriteCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, f := range append(r.Groups, r.Total) {
		if err := cw.Write(csvRow(f)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(f Figures) []string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	itoa := strconv.Itoa
	return []string{safeCell(f.Key), itoa(f.Landed), itoa(f.OneShot), num(f.OneShotRate), itoa(f.Returns), itoa(f.Runs),
		strconv.FormatInt(f.Tokens, 10), num(f.CostUSD), itoa(f.Questions), num(f.PerLanded.Returns), num(f.PerLanded.Runs),
		num(f.PerLanded.Tokens), num(f.PerLanded.CostUSD), num(f.PerLanded.Questions), itoa(f.Timed),
		num(f.MedianHours), num(f.MeanHours)}
}

// safeCell keeps a spreadsheet from reading a cell (a project slug or a
// model id a person typed) as a formula.
func safeCell(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@') {
		return "'" + s
	}
	return s
}
