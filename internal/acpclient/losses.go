package acpclient

import (
	"fmt"
	"strings"
)

// noteLine reports a line an agent or the proxy writes about the output
// (a saved file, a preview, what is cut) rather than the command's.
func noteLine(l string) bool {
	for _, p := range []string{"[Output truncated", "[acp-proxy:", "<persisted-output>", "</persisted-output>", "Output too large", "Preview (first", "...output truncated...", "Full output saved to"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return l == "..."
}

func withoutNotes(s string) string {
	if !strings.Contains(s, "output") && !strings.Contains(s, "Output") && !strings.Contains(s, "...") {
		return s
	}
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !noteLine(l) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// Losses compares what a client shows of every call with the proxy
// (proxied) and without it (direct), both views of the same model: for
// each call direct shows, proxied must show all of that output, once and
// in order, with the same status; for a call whose stream direct could not
// show at all, all of the agent's output. It returns one line per call
// that shows less.
func Losses(direct, proxied *View) []string { return losses(direct, proxied, true) }

// LossesOfShown is Losses for filters that do not translate streams
// (--expand-persisted-output alone): a call whose stream the client could
// not show without the proxy is not required to show it with it.
func LossesOfShown(direct, proxied *View) []string { return losses(direct, proxied, false) }

func losses(direct, proxied *View, unshownToo bool) []string {
	var losses []string
	for _, k := range direct.Calls() {
		d, p := direct.Call(k), proxied.Call(k)
		if p == nil {
			losses = append(losses, fmt.Sprintf("%v: the client never sees the call", k))
			continue
		}
		if d.Status != p.Status {
			losses = append(losses, fmt.Sprintf("%v: status %q, %q without the proxy", k, p.Status, d.Status))
		}
		want, what := direct.Output(k), "what the client shows without the proxy"
		if strings.TrimSpace(want) == "" {
			if !unshownToo {
				continue
			}
			want, what = withoutNotes(direct.AgentOutput(k)), "the agent's output"
		}
		want = pairsSplit(strings.Trim(want, "\n"))
		if want == "" {
			continue
		}
		// Once: as often as the output itself holds it.
		agent := pairsSplit(withoutNotes(direct.AgentOutput(k)))
		got, once := pairsSplit(proxied.Output(k)), max(1, strings.Count(agent, want))
		if n := strings.Count(got, want); n == 0 || n > once {
			losses = append(losses, fmt.Sprintf("%v: %s appears %d times in what it shows with the proxy: %s", k, what, n, firstDifference(want, got)))
			continue
		}
		// And its last line no more often than the agent's output holds it: a
		// late chunk shown again after the whole output shows it twice.
		if last := lastLine(want); last != "" && lineCount(got, last) > max(1, lineCount(agent, last), lineCount(want, last)) {
			losses = append(losses, fmt.Sprintf("%v: its last line %q is shown %d times with the proxy, %d in the agent's output", k, last, lineCount(got, last), lineCount(agent, last)))
		}
	}
	return losses
}

// pairsSplit is s with every character outside the BMP as the two U+FFFD
// a client shows for its surrogate pair when the agent split the pair
// between two chunks, which each decode alone: which of the two a client
// shows depends on where the agent cut its output, not on the proxy.
func pairsSplit(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x10000 }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x10000 {
			b.WriteString("\uFFFD\uFFFD")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// firstDifference shows where two texts part, not all of two long texts.
func firstDifference(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-60)
	return fmt.Sprintf("they differ at byte %d (want %d bytes, got %d):\nwant …%q…\ngot  …%q…",
		i, len(want), len(got), want[from:min(len(want), i+60)], got[from:min(len(got), i+60)])
}

// lastLine is the last line of s, without its newline.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// lineCount is how many whole lines of s are line.
func lineCount(s, line string) int {
	return strings.Count("\n"+strings.TrimRight(s, "\n")+"\n", "\n"+line+"\n")
}
