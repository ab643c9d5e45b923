package shellcorpus

import (
	"fmt"
	"sort"
	"strings"
)

// Table renders r as the Markdown tables of BENCHMARKS.md: one row per
// form, then the writes whose bytes follow from the command (every form but
// "other"), then all writes; and one row per source.
func Table(r Result) string {
	var b strings.Builder
	total, known := Count{}, Count{}
	for _, f := range Forms {
		if c := r.ByForm[f]; c != nil {
			total.add(*c)
			if f != FormOther {
				known.add(*c)
			}
		}
	}
	b.WriteString("| form, as models write it | commands (with repeats) | share | shown | of which in part | shown and exact | shown wrongly |\n|---|---|---|---|---|---|---|\n")
	for _, f := range Forms {
		c := Count{}
		if r.ByForm[f] != nil {
			c = *r.ByForm[f]
		}
		row(&b, f.String(), c, total.Commands, r.Ran)
	}
	row(&b, "**writes whose bytes follow from the command** (all but other)", known, total.Commands, r.Ran)
	row(&b, "**all writes**", total, total.Commands, r.Ran)
	b.WriteString("\n| source | commands (with repeats) | shown | shown and exact | shown wrongly |\n|---|---|---|---|---|\n")
	ids := make([]string, 0, len(r.BySource))
	for id := range r.BySource {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c := r.BySource[id]
		fmt.Fprintf(&b, "| %s | %d (%d) | %s | %s | %d |\n", id, c.Commands, c.Repeats, share(c.Shown, c.Commands), exact(*c, r.Ran), c.Wrong)
	}
	return b.String()
}

func row(b *strings.Builder, name string, c Count, total int, ran bool) {
	fmt.Fprintf(b, "| %s | %d (%d) | %s | %s | %d | %s | %d |\n", name, c.Commands, c.Repeats,
		pct(c.Commands, total), share(c.Shown, c.Commands), c.Part, exact(c, ran), c.Wrong)
}

func exact(c Count, ran bool) string {
	if !ran {
		return "not run"
	}
	return share(c.Exact, c.Commands)
}

func share(n, of int) string { return fmt.Sprintf("%d (%s)", n, pct(n, of)) }

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}
