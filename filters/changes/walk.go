package changes

import (
	"cmp"
	"strings"
)

// A scan outside git walks the tree depth first, each folder's entries in
// the order of their names, so that the files come in walkOrder: the
// before-state is a list in that order, and a report's scan, walking the
// same way, meets each file where the list has it, with no map of the
// tree built a second time (its memory and its time).

// walkOrder compares slash-separated paths as the walk meets them: folder
// by folder, by name (as if '/' were the lowest byte: "a/b" comes before
// "a.txt", the folder "a" before the file "a.txt").
func walkOrder(a, b string) int {
	for k := range min(len(a), len(b)) {
		ca, cb := a[k], b[k]
		switch {
		case ca == cb:
			continue
		case ca == '/':
			return -1
		case cb == '/':
			return 1
		}
		return cmp.Compare(ca, cb)
	}
	return cmp.Compare(len(a), len(b))
}

// walkOrderOf is walkOrder of a and folder+name, without joining them.
func walkOrderOf(a, folder, name string) int {
	if strings.HasPrefix(a, folder) {
		return walkOrder(a[len(folder):], name)
	}
	return walkOrder(a, folder) // they differ within folder, or a is shorter
}
