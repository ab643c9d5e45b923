// Package docs_test checks that the files and functions docs/architecture.md
// names exist, so the page cannot go stale silently.
package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page writes a file as `dir/file.go` (a * matches any run of
// characters) and a function as `Name()` or `Type.Method()`, the receiver
// type without its package; a package qualifier is allowed
// (`filters.NewMessage()`).
var (
	fileRef = regexp.MustCompile("`([A-Za-z0-9_./*-]+\\.go)`")
	funcRef = regexp.MustCompile("`(?:([A-Za-z_][A-Za-z0-9_]*)\\.)?([A-Za-z_][A-Za-z0-9_]*)\\(\\)`")
)

func TestArchitectureNamesExist(t *testing.T) {
	page, err := os.ReadFile("architecture.md")
	require.NoError(t, err)
	root := ".."
	funcs, pkgs := declaredFuncs(t, root)

	for _, m := range fileRef.FindAllStringSubmatch(string(page), -1) {
		matches, err := filepath.Glob(filepath.Join(root, m[1]))
		if assert.NoError(t, err, "docs/architecture.md names %s, which does not exist", m[1]) {
			assert.NotEmpty(t, matches, "docs/architecture.md names %s, which does not exist", m[1])
		}
	}
	for _, m := range funcRef.FindAllStringSubmatch(string(page), -1) {
		qualifier, name := m[1], m[2]
		if !funcs[qualifier+"."+name] {
			assert.True(t, pkgs[qualifier] && funcs["."+name], "docs/architecture.md names %s, which is declared nowhere in the module", strings.Trim(m[0], "`"))
		}
	}
}

// TestArchitectureCheckCatchesStaleNames makes sure the check above can fail.
func TestArchitectureCheckCatchesStaleNames(t *testing.T) {
	funcs, _ := declaredFuncs(t, "..")
	for _, stale := range []string{"Conn.NoSuchMethod", ".noSuchFunction"} {
		assert.False(t, funcs[stale], "%s should not be declared", stale)
	}
	if assert.True(t, funcs["Conn.Pump"], "declaredFuncs misses known functions") {
		assert.True(t, funcs[".NewChain"], "declaredFuncs misses known functions")
	}
	if assert.NotEmpty(t, fileRef.FindString("`proxy/relay.go`"), "the patterns miss the page's forms") {
		assert.NotEmpty(t, funcRef.FindString("`Conn.Pump()`"), "the patterns miss the page's forms")
	}
}

// declaredFuncs returns the module's non-test functions, as "Recv.Name"
// for methods and ".Name" for functions, and its package names.
func declaredFuncs(t *testing.T, root string) (funcs, pkgs map[string]bool) {
	t.Helper()
	funcs, pkgs = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkgs[f.Name.Name] = true
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				funcs[receiver(fn)+"."+fn.Name.Name] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return funcs, pkgs
}

// receiver is the name of fn's receiver type, "" for a function.
func receiver(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
