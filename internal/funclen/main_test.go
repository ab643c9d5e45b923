package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// body returns a function declaration n lines long, func line and brace included.
func body(decl string, n int) string {
	return decl + " {\n" + strings.Repeat("\t_ = 0\n", n-2) + "}\n"
}

func TestLongFuncs(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		path := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	}
	write("a/a.go", "package a\n\ntype T[P any] struct{}\n\n"+
		body("func Short()", 5)+body("func AtLimit()", 6)+body("func Over()", 7)+
		body("func (t *T[P]) Method()", 8))
	write("a/a_test.go", "package a\n\n"+body("func TestLong()", 50))
	write("a/testdata/b.go", "package b\n\n"+body("func Fixture()", 50))
	write(".hidden/c.go", "package c\n\n"+body("func Hidden()", 50))

	long, err := longFuncs(root, 6)
	require.NoError(t, err)
	var got []string
	for _, f := range long {
		rel, err := filepath.Rel(root, f.file)
		require.NoError(t, err)
		f.file = rel
		got = append(got, f.String())
	}
	assert.Equal(t, []string{"a/a.go:23 T.Method 8", "a/a.go:16 Over 7"}, got)
}

func TestLongFuncsReportsParseErrors(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "bad.go"), []byte("package bad\nfunc {"), 0o644))
	_, err := longFuncs(root, 60)
	assert.ErrorContains(t, err, "bad.go")
}
