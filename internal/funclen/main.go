// Command funclen lists the production functions longer than a limit (60
// lines by default): every function and method declared in a .go file of the
// module that is not a test file and not under testdata. It prints
// file:line name length, longest first, and exits 1 if it printed any.
// scripts/funclen runs it; scripts/test runs that when ACP_FUNCLEN=1.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	limit := flag.Int("max", 60, "the longest a function may be, in lines")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	long, err := longFuncs(root, *limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	for _, f := range long {
		fmt.Println(f)
	}
	if len(long) > 0 {
		os.Exit(1)
	}
}

// funcLen is one function: where it starts, its name, and its length in lines
// from the func keyword to the closing brace.
type funcLen struct {
	file  string
	line  int
	name  string
	lines int
}

func (f funcLen) String() string { return fmt.Sprintf("%s:%d %s %d", f.file, f.line, f.name, f.lines) }

// longFuncs walks root and returns the production functions over limit lines.
func longFuncs(root string, limit int) ([]funcLen, error) {
	var long []funcLen
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		for _, fl := range funcLens(fset, f) {
			if fl.lines > limit {
				long = append(long, fl)
			}
		}
		return nil
	})
	sort.SliceStable(long, func(i, j int) bool { return long[i].lines > long[j].lines })
	return long, err
}

// skipDir: testdata (fixtures and the installed agents), vendored and hidden trees.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || name == "node_modules" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// funcLens measures every function declared in f; a method is named Type.Method.
func funcLens(fset *token.FileSet, f *ast.File) []funcLen {
	var out []funcLen
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		out = append(out, funcLen{file: start.Filename, line: start.Line, name: funcName(fd), lines: end.Line - start.Line + 1})
	}
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr: // generic receiver T[P]
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
