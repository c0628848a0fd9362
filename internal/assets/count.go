package assets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Count scans the Go test files under root (skipping testdata, hidden
// folders and node_modules) and returns the tests (Test functions) that
// read the assets, by package folder: those whose body, or a function of
// the same package that they call (transitively, by name), holds the
// string "PLEAT_ASSETS" or calls this package's Dir or Require. Some of
// them use the assets only for extra cases and run without them; the rest
// skip.
func Count(root string) (map[string][]string, error) {
	byDir := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for dir, files := range byDir {
		tests, err := countDir(files)
		if err != nil {
			return nil, err
		}
		if len(tests) > 0 {
			rel, _ := filepath.Rel(root, dir)
			out[filepath.ToSlash(rel)] = tests
		}
	}
	return out, nil
}

// countDir returns the asset tests of one package folder's test files.
func countDir(files []string) ([]string, error) {
	fset := token.NewFileSet()
	calls := map[string]map[string]bool{} // function name -> names it calls
	uses := map[string]bool{}             // function reads the assets itself
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		local := importName(file)
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if calls[name] == nil {
				calls[name] = map[string]bool{}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BasicLit:
					if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && strings.Contains(s, Env) {
						uses[name] = true
					}
				case *ast.CallExpr:
					switch f := x.Fun.(type) {
					case *ast.Ident:
						calls[name][f.Name] = true
					case *ast.SelectorExpr:
						if id, ok := f.X.(*ast.Ident); ok && id.Name == local && (f.Sel.Name == "Dir" || f.Sel.Name == "Require") {
							uses[name] = true
						}
						calls[name][f.Sel.Name] = true
					}
				}
				return true
			})
		}
	}
	// Propagate through calls until nothing changes.
	for changed := true; changed; {
		changed = false
		for name, cs := range calls {
			if uses[name] {
				continue
			}
			for c := range cs {
				if uses[c] {
					uses[name], changed = true, true
					break
				}
			}
		}
	}
	var tests []string
	for name := range uses {
		if strings.HasPrefix(name, "Test") && name != "TestMain" {
			tests = append(tests, name)
		}
	}
	sort.Strings(tests)
	return tests, nil
}

// importName returns the name file gives this package (its alias, or
// "assets"), or "assets" when file does not import it.
func importName(file *ast.File) string {
	for _, im := range file.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || !strings.HasSuffix(p, "/internal/assets") {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
	}
	return "assets"
}
