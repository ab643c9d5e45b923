package trace

import (
	"io"
	"strings"
	"unicode/utf8"
)

// table lays out rows for a terminal: of the first cols cells, the first
// left-aligned and the others right-aligned, two spaces apart; a further
// cell (a note) goes on a line of its own below, indented, so that the
// table stays narrow. A row of no cells is a blank line.
type table struct {
	cols int
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) error {
	widths := make([]int, t.cols)
	for _, r := range t.rows {
		for i, c := range r[:min(len(r), t.cols)] {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r[:min(len(r), t.cols)] {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
		for _, note := range r[min(len(r), t.cols):] {
			b.WriteString("    " + note + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
