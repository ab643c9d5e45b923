package changes

import (
	"fmt"
	"testing"
)

// Past maxSessions, the rest let go of is the one used least recently: a
// session whose commands keep running keeps its rest however many others
// come and go.
func TestTheRestOfAnActiveSessionIsKept(t *testing.T) {
	var r rests
	for i := range maxSessions {
		r.ask(fmt.Sprint("old", i), "/d", sincePrompt, 0, nil)
	}
	for i := range 50 {
		if _, ok := r.get("old0"); !ok {
			t.Fatalf("after %d new sessions, the session used at each one's start lost its rest", i)
		}
		r.ask(fmt.Sprint("new", i), "/d", sincePrompt, 0, nil)
	}
	if len(r.m) != maxSessions {
		t.Errorf("%d rests held, want %d", len(r.m), maxSessions)
	}
}
