package changes

import (
	"bytes"
	"context"
	"strings"
)

// A blob is not always what the work tree held: git's checkout converts
// it (end of lines with eol=crlf or core.autocrlf, $Id$ with ident, a
// working-tree-encoding, a filter driver's smudge). A before-state read
// from the index is the text the work tree held: git's own conversions
// are asked of git (cat-file --filters); a filter driver is a program the
// repository names, which the proxy does not run, so such a file's text
// before is not shown, and the update says why.

// convAttrs are the attributes by which git's checkout makes a file's
// copy differ from its blob.
var convAttrs = []string{"filter", "eol", "text", "crlf", "ident", "working-tree-encoding"}

// builtin is a conversion of git's own.
const builtin = "\x00builtin"

// conversions says, for each of rels (relative to root), how git converts
// its blob on checkout: absent, none; builtin, git's own; else the name
// of the filter driver.
func conversions(ctx context.Context, root string, rels []string) (map[string]string, error) {
	conv := map[string]string{}
	if len(rels) == 0 {
		return conv, nil
	}
	out, err := git(ctx, root, gitEnv(literal), strings.NewReader(strings.Join(rels, "\x00")+"\x00"),
		append([]string{"check-attr", "-z", "--stdin"}, convAttrs...)...)
	if err != nil {
		return nil, err
	}
	fields := bytes.Split(out, []byte{0}) // path, attribute, value, …
	for i := 0; i+2 < len(fields); i += 3 {
		path, attr, value := string(fields[i]), string(fields[i+1]), string(fields[i+2])
		switch {
		case value == "unspecified" || value == "unset":
		case attr == "filter":
			conv[path] = value
		case conv[path] == "":
			conv[path] = builtin
		}
	}
	if autocrlf, _ := git(ctx, root, gitEnv(), nil, "config", "--get", "--type=bool", "core.autocrlf"); strings.TrimSpace(string(autocrlf)) == "true" {
		for _, rel := range rels {
			if conv[rel] == "" {
				conv[rel] = builtin
			}
		}
	}
	return conv, nil
}

// workTreeText is the blob oid as git's own conversions make it for the
// work-tree file rel (relative to root): what checkout writes.
func workTreeText(ctx context.Context, root, rel, oid string) ([]byte, error) {
	return git(ctx, root, gitEnv(), nil, "cat-file", "--filters", "--path="+rel, oid)
}

// asInWorkTree makes each shown blob's before-state the text the work tree
// held: converted by git when git converts it, said as not shown when a
// filter driver does.
func (s *gitSnap) asInWorkTree(ctx context.Context, shown []candidate, before map[string]version) error {
	var rels []string
	for _, c := range shown {
		if c.blob != nil && before[c.rel].read {
			rels = append(rels, c.rel)
		}
	}
	conv, err := conversions(ctx, s.root, rels)
	if err != nil {
		return err
	}
	for _, c := range shown {
		switch how := conv[c.rel]; how {
		case "":
		case builtin:
			text, err := workTreeText(ctx, s.root, c.rel, c.blob.oid)
			if err != nil {
				return err
			}
			v := before[c.rel]
			v.setContent(text)
			before[c.rel] = v
		default:
			before[c.rel] = version{kind: regular, size: before[c.rel].size,
				why: `its text before the command is what git's filter "` + how + `" makes of the index's copy; the proxy runs no filter program`}
		}
	}
	return nil
}
