// Package deptest checks the import rules of the package map over a
// package graph that `go list -deps -json` describes: which area may import
// which, that no two areas import each other, that a binary does not pull
// in a package it must not carry, and that the pure build needs no cgo.
//
// The checks work on plain values (Package), so they are tested on
// synthetic graphs; Load fills those values from the go command for a real
// module.
package deptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// Package is one package of the graph, as `go list -json` reports it.
type Package struct {
	ImportPath string
	// Standard is true for the standard library.
	Standard bool
	// Imports are the package's non-test imports.
	Imports []string
	// CgoFiles are its files that import "C" under the build's settings.
	CgoFiles []string
	// Error is why the go command could not load the package, if it could
	// not (a missing package, or every file excluded by build constraints).
	Error *PackageError
}

// PackageError is the go command's error loading a package.
type PackageError struct {
	Err string
}

// Violation is one broken rule.
type Violation struct {
	// Package broke the rule, by importing Import when Import is set.
	Package, Import string
	// Rule says which rule, in words.
	Rule string
}

func (v Violation) String() string {
	if v.Import == "" {
		return v.Package + ": " + v.Rule
	}
	return v.Package + " imports " + v.Import + ": " + v.Rule
}

// Rule forbids the packages under From to import the packages under any
// of Forbid. Paths are relative to the module ("core", "device/ledring");
// a prefix covers the package itself and everything below it.
type Rule struct {
	From   string
	Forbid []string
	// Except are packages under From the rule does not apply to.
	Except []string
	// Why says what the rule keeps, for the violation's message.
	Why string
}

// Allowed is a known violation the check lets pass: From importing Import
// (both relative to the module, exact packages), with the reason.
type Allowed struct {
	From, Import string
	Why          string
}

// Rules is what one module must keep.
type Rules struct {
	// Module is the module path the relative paths hang under.
	Module string
	// Layers are the import rules.
	Layers []Rule
	// Allow lets these known violations of Layers and of the area cycle
	// check pass.
	Allow []Allowed
	// Areas are the prefixes whose children are areas of their own
	// ("core" makes core/bus and core/intent two areas); any other
	// top-level folder is one area.
	Areas []string
}

// under reports whether the relative path p is prefix or below it.
func under(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// rel is p relative to the module, and whether p is in it.
func (r Rules) rel(p string) (string, bool) {
	if p == r.Module {
		return "", true
	}
	if s, ok := strings.CutPrefix(p, r.Module+"/"); ok {
		return s, true
	}
	return "", false
}

// Area is the area the module-relative path p belongs to.
func (r Rules) Area(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 1 && slices.Contains(r.Areas, parts[0]) {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

func (r Rules) allowed(from, imp string) bool {
	for _, a := range r.Allow {
		if a.From == from && a.Import == imp {
			return true
		}
	}
	return false
}

// Check applies the layer rules and the area cycle check to pkgs; the
// packages outside the module are skipped. Violations come sorted.
func (r Rules) Check(pkgs []Package) []Violation {
	var out []Violation
	edges := map[[2]string]areaEdge{}
	for _, p := range pkgs {
		from, ok := r.rel(p.ImportPath)
		if !ok {
			continue
		}
		for _, ip := range p.Imports {
			imp, ok := r.rel(ip)
			if !ok || r.allowed(from, imp) {
				continue
			}
			for _, rule := range r.Layers {
				if !under(from, rule.From) || slices.ContainsFunc(rule.Except, func(e string) bool { return under(from, e) }) {
					continue
				}
				if slices.ContainsFunc(rule.Forbid, func(f string) bool { return under(imp, f) }) {
					out = append(out, Violation{Package: p.ImportPath, Import: ip, Rule: rule.Why})
				}
			}
			if fa, ia := r.Area(from), r.Area(imp); fa != ia {
				k := [2]string{fa, ia}
				if _, seen := edges[k]; !seen {
					edges[k] = areaEdge{p.ImportPath, ip}
				}
			}
		}
	}
	out = append(out, cycles(edges)...)
	sortViolations(out)
	return out
}

// areaEdge is one package import behind an import between two areas.
type areaEdge struct{ from, imp string }

// cycles reports each set of areas that import each other, directly or
// through other areas, with one package import per area edge inside it.
func cycles(edges map[[2]string]areaEdge) []Violation {
	next := map[string][]string{}
	for k := range edges {
		next[k[0]] = append(next[k[0]], k[1])
	}
	reach := func(from string) map[string]bool {
		seen := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, b := range next[a] {
				if !seen[b] {
					seen[b] = true
					stack = append(stack, b)
				}
			}
		}
		return seen
	}
	reaches := map[string]map[string]bool{}
	for a := range next {
		reaches[a] = reach(a)
	}
	done := map[string]bool{}
	var areas []string
	for a := range next {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	var out []Violation
	for _, a := range areas {
		if done[a] || !reaches[a][a] {
			continue
		}
		var group []string
		for _, b := range areas {
			if reaches[a][b] && reaches[b][a] {
				group = append(group, b)
				done[b] = true
			}
		}
		var via []string
		for k, e := range edges {
			if slices.Contains(group, k[0]) && slices.Contains(group, k[1]) {
				via = append(via, e.from+" imports "+e.imp)
			}
		}
		sort.Strings(via)
		out = append(out, Violation{Package: strings.Join(group, ", "),
			Rule: "areas import each other: " + strings.Join(via, "; ")})
	}
	return out
}

// Banned reports each of pkgs (a binary's dependencies) under one of the
// module-relative prefixes banned.
func (r Rules) Banned(pkgs []Package, banned []string, why string) []Violation {
	var out []Violation
	for _, p := range pkgs {
		rel, ok := r.rel(p.ImportPath)
		if ok && slices.ContainsFunc(banned, func(b string) bool { return under(rel, b) }) {
			out = append(out, Violation{Package: p.ImportPath, Rule: why})
		}
	}
	sortViolations(out)
	return out
}

// Pure checks a binary's dependencies listed with cgo disabled: every
// package loads (none is left with no Go files, which is what a package
// that only works with cgo turns into), and nothing pulls in runtime/cgo.
func Pure(pkgs []Package) []Violation {
	var out []Violation
	for _, p := range pkgs {
		switch {
		case p.Error != nil:
			out = append(out, Violation{Package: p.ImportPath, Rule: "does not build without cgo: " + p.Error.Err})
		case p.ImportPath == "runtime/cgo" || p.ImportPath == "C":
			out = append(out, Violation{Package: p.ImportPath, Rule: "cgo in the pure build"})
		}
	}
	sortViolations(out)
	return out
}

// NoCgo checks a binary's dependencies listed with cgo enabled and the
// default build tags: no package outside the standard library has cgo
// files, so cgo stays behind the build tags that ask for it.
func NoCgo(pkgs []Package) []Violation {
	var out []Violation
	for _, p := range pkgs {
		if !p.Standard && len(p.CgoFiles) > 0 {
			out = append(out, Violation{Package: p.ImportPath,
				Rule: fmt.Sprintf("uses cgo without a build tag (%s)", strings.Join(p.CgoFiles, ", "))})
		}
	}
	sortViolations(out)
	return out
}

func sortViolations(v []Violation) {
	sort.Slice(v, func(i, j int) bool { return v[i].String() < v[j].String() })
}

// maxListOutput bounds what Load reads from the go command.
const maxListOutput = 256 << 20

// Load lists patterns and all their dependencies with `go list -e -deps
// -json`, run in dir with env added to the process's environment (GOOS,
// CGO_ENABLED...).
func Load(ctx context.Context, dir string, env []string, patterns ...string) ([]Package, error) {
	args := append([]string{"list", "-e", "-deps", "-json=ImportPath,Standard,Imports,CgoFiles,Error"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	pkgs, derr := decode(io.LimitReader(stdout, maxListOutput))
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("go list %s: %w: %s", strings.Join(patterns, " "), err, strings.TrimSpace(stderr.String()))
	}
	if derr != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), derr)
	}
	return pkgs, nil
}

func decode(r io.Reader) ([]Package, error) {
	var out []Package
	dec := json.NewDecoder(r)
	for {
		var p Package
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading its output: %w", err)
		}
		out = append(out, p)
	}
}
