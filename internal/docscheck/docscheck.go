// Package docscheck reads the repository's Markdown for what its tests
// check: the relative links of a page and the headings they may point at,
// and the requirement IDs (REG-09, CTX-11, STOP-1 …) that code, tests and
// docs cite. The spec digests the IDs come from are not part of the
// repository, so docs/requirements.md says what each cited ID means, and
// a test fails when an ID is cited that the index lacks.
//
// The package depends on the standard library only.
package docscheck

import (
	"go/scanner"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is a Markdown link or image target found on a page.
type Link struct {
	Line   int    // 1-based line of the link
	Target string // as written: a path, path#fragment, #fragment or URL
}

// External reports whether the link leaves the repository (a URL or a mail
// address), so there is no file to check.
func (l Link) External() bool {
	return strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:")
}

// linkRE matches the target of an inline link or image: ](target) or
// ](target "title").
var linkRE = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// Links returns the inline link targets of a Markdown page, leaving out
// what is code: fenced blocks, indented blocks after a blank line, and
// code spans.
func Links(md []byte) []Link {
	var out []Link
	for i, line := range proseLines(md) {
		if line == "" {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			out = append(out, Link{Line: i + 1, Target: m[1]})
		}
	}
	return out
}

// proseLines returns the page's lines with every line of code replaced by
// "", so line numbers stay those of the page.
func proseLines(md []byte) []string {
	lines := strings.Split(strings.ReplaceAll(string(md), "\r\n", "\n"), "\n")
	out := make([]string, len(lines))
	fence := ""
	prevBlank, indented := true, false
	for i, line := range lines {
		blank := strings.TrimSpace(line) == ""
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			continue
		case !blank && (strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")) && (prevBlank || indented):
			// An indented code block: it starts after a blank line and
			// ends at the first line that is not indented.
			indented, prevBlank = true, false
			continue
		}
		if !blank {
			indented = false
		}
		out[i] = line
		prevBlank = blank
	}
	return out
}

// stripCodeSpans blanks out `code spans` of a line (any run of backticks
// closed by the same run).
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		ticks := line[i:n]
		end := strings.Index(line[n:], ticks)
		if end < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		line = line[n+end+len(ticks):]
	}
}

// Anchors returns the fragments a page's headings can be linked by, as
// GitHub makes them: lower case, punctuation dropped, spaces as hyphens,
// and -1, -2 … after a repeated one.
func Anchors(md []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(md) {
		t := strings.TrimSpace(line)
		level := len(t) - len(strings.TrimLeft(t, "#"))
		if level == 0 || level > 6 || len(t) == level || t[level] != ' ' {
			continue
		}
		slug := Slug(strings.TrimSpace(t[level:]))
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Slug is a heading's anchor: letters, digits, hyphens and underscores
// kept (letters in lower case), spaces turned into hyphens, the rest
// dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range heading {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// idRE matches a requirement ID: upper-case words joined by hyphens, a
// number, and optionally a sub-item (STOP-03.6).
var idRE = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+(?:\.[0-9]+)?\b`)

// notRequirements look like requirement IDs but name standards and
// encodings.
var notRequirements = map[string]bool{
	"BCP-47": true, "CRC-32": true, "DEP-11": true, "GPL-3.0": true, "ISO-8601": true,
	"LICENSE-2.0": true, "UTF-16": true, "UTF-8": true, "RFC-8949": true,
}

// CitedIDs returns the requirement IDs a text cites, each once, in the
// order first cited. A sub-item is cited as its requirement (STOP-03.6 as
// STOP-03).
func CitedIDs(text []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range idRE.FindAll(text, -1) {
		id := string(m)
		if notRequirements[id] {
			continue
		}
		if i := strings.IndexByte(id, '.'); i >= 0 {
			id = id[:i]
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// GoProse returns the comments and string literals of Go source, one per
// line: where a Go file can cite a requirement. Code is left out, so an
// expression such as n&(NFFT-1) is no citation. Source that does not
// scan is returned as it is.
func GoProse(src []byte) []byte {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, scanner.ScanComments)
	var out []byte
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT || tok == token.STRING || tok == token.CHAR {
			out = append(out, lit...)
			out = append(out, '\n')
		}
	}
	if bad {
		return src
	}
	return out
}

// IndexRow is one requirement of docs/requirements.md: a table row whose
// first cell is the ID.
type IndexRow struct {
	Line    int
	ID      string
	Meaning string
	Files   []string // the code spans of the last cell that name files
}

// rowRE matches a table row whose first cell is an ID, in backticks or not.
var rowRE = regexp.MustCompile("^\\|\\s*`?([A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+)`?\\s*\\|")

// spanRE matches a code span.
var spanRE = regexp.MustCompile("`([^`]+)`")

// Index reads the requirement rows of the index page.
func Index(md []byte) []IndexRow {
	var out []IndexRow
	for i, line := range proseLines(md) {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		row := IndexRow{Line: i + 1, ID: m[1]}
		if len(cells) > 1 {
			row.Meaning = strings.TrimSpace(cells[1])
		}
		if len(cells) > 2 {
			for _, s := range spanRE.FindAllStringSubmatch(cells[len(cells)-1], -1) {
				if strings.Contains(s[1], "/") {
					row.Files = append(row.Files, s[1])
				}
			}
		}
		out = append(out, row)
	}
	return out
}
