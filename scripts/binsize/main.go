// Command binsize prints where the bytes of a Go ELF binary go: the file's
// sections, then the code and data of each package (or module), largest
// first. The binary must keep its symbol table (built without -s); the
// stripped build's sections are the same size, so the figures hold for it.
//
// scripts/binsize.sh builds jibod for a target and runs this on it.
package main

import (
	"cmp"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	by := flag.String("by", "package", "group by `package` or module")
	top := flag.Int("top", 40, "print the `n` largest groups (0: all)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: binsize [-by package|module] [-top n] BINARY")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || (*by != "package" && *by != "module") || *top < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *by, *top); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

// group is the bytes one package or module puts in the file.
type group struct {
	name       string
	text, data int64
}

func run(w io.Writer, path, by string, top int) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		return fmt.Errorf("%s has no symbol table: build it without -ldflags -s", path)
	}
	if err != nil {
		return fmt.Errorf("reading %s's symbols: %w", path, err)
	}
	var modules []string
	if by == "module" {
		bi, err := buildinfo.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading %s's build info: %w", path, err)
		}
		modules = append(modules, bi.Main.Path)
		for _, d := range bi.Deps {
			modules = append(modules, d.Path)
		}
	}

	fmt.Fprintf(w, "%s: %d bytes on disk\n\nsection            bytes\n", path, st.Size())
	var loaded int64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		loaded += int64(s.Size)
		fmt.Fprintf(w, "%-14s %10d\n", s.Name, s.Size)
	}
	fmt.Fprintf(w, "%-14s %10d\n", "(loaded)", loaded)

	groups := map[string]*group{}
	var textTotal, dataTotal int64
	for _, s := range syms {
		i := int(s.Section)
		if s.Size == 0 || i <= 0 || i >= len(f.Sections) {
			continue
		}
		sec := f.Sections[i]
		// .bss and .noptrbss take memory, not file space.
		if sec.Type == elf.SHT_NOBITS || sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		name := packageOf(s.Name)
		if by == "module" {
			name = moduleOf(name, modules)
		}
		g := groups[name]
		if g == nil {
			g = &group{name: name}
			groups[name] = g
		}
		if sec.Flags&elf.SHF_EXECINSTR != 0 {
			g.text += int64(s.Size)
			textTotal += int64(s.Size)
		} else {
			g.data += int64(s.Size)
			dataTotal += int64(s.Size)
		}
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.text+b.data, a.text+a.data), strings.Compare(a.name, b.name))
	})
	fmt.Fprintf(w, "\n%d %ss; code is also about as large again in .gopclntab (the function tables)\n\n", len(list), by)
	fmt.Fprintf(w, "%10s %10s %10s  %s\n", "code", "data", "total", by)
	for i, g := range list {
		if top > 0 && i == top {
			var rt, rd int64
			for _, r := range list[i:] {
				rt += r.text
				rd += r.data
			}
			fmt.Fprintf(w, "%10d %10d %10d  (%d more)\n", rt, rd, rt+rd, len(list)-i)
			break
		}
		fmt.Fprintf(w, "%10d %10d %10d  %s\n", g.text, g.data, g.text+g.data, g.name)
	}
	fmt.Fprintf(w, "%10d %10d %10d  (all symbols)\n", textTotal, dataTotal, textTotal+dataTotal)
	return nil
}

// packageOf names the package a linker symbol belongs to: the import path
// before the first dot after the last slash, ignoring a receiver or type
// arguments and the decorations of type descriptors. The function
// metadata (go:func.*) keeps its name; other linker-made symbols are
// "(linker)", and symbols without a package (assembly) "(assembly)".
func packageOf(sym string) string {
	s := sym
	for _, p := range []string{"type:", "go:itab.", "go:link.", "go:info."} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = rest
			break
		}
	}
	if strings.HasPrefix(s, "go:func.") {
		return "go:func.*"
	}
	if strings.HasPrefix(s, "go:") {
		return "(linker)"
	}
	s = strings.TrimLeft(s, "*[]0123456789")
	for _, p := range []string{"map[", "chan ", "func(", "struct {", "interface {", "noalg."} {
		if strings.HasPrefix(s, p) {
			return "(type descriptors)"
		}
	}
	if i := strings.IndexAny(s, "([ "); i >= 0 {
		s = s[:i]
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot < 0 {
		return "(assembly)"
	}
	return s[:slash+1+dot]
}

// moduleOf names the module a package comes from: the longest module path
// that is the package's path or a parent of it, or "std" for the standard
// library. modules[0] is the main module, whose command is package main.
func moduleOf(pkg string, modules []string) string {
	if pkg == "main" {
		return modules[0]
	}
	best := ""
	for _, m := range modules {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best != "" {
		return best
	}
	if strings.HasPrefix(pkg, "(") || strings.HasPrefix(pkg, "go:") {
		return pkg
	}
	return "std"
}
