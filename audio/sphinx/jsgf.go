package sphinx

import (
	"fmt"
	"sort"
	"strings"
)

// MaxGrammarBytes bounds a JSGF grammar handed to the recognizer.
const MaxGrammarBytes = 4 << 20

// GrammarWords returns the sorted distinct words (terminals) of a JSGF
// grammar, which is what the decoder's dictionary must pronounce. It skips
// the header, comments, rule names, tags and operators; a quoted token is
// one word. Beyond finding the words it checks that there is a public rule
// and that every rule referred to is defined: pocketsphinx 5prealpha
// accepts a grammar with an undefined reference and then recognises
// nothing.
func GrammarWords(jsgf string) ([]string, error) {
	if len(jsgf) > MaxGrammarBytes {
		return nil, fmt.Errorf("grammar of %d bytes: more than %d", len(jsgf), MaxGrammarBytes)
	}
	seen := map[string]bool{}
	rules := &ruleRefs{defined: map[string]bool{}, used: map[string]bool{}}
	s, err := stripComments(jsgf)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(s); {
		end := statementEnd(s, i)
		if end < 0 {
			if strings.TrimSpace(s[i:]) != "" {
				return nil, fmt.Errorf("grammar: statement at byte %d has no ';'", i)
			}
			break
		}
		if err := statementWords(s[i:end], seen, rules); err != nil {
			return nil, fmt.Errorf("grammar: %w", err)
		}
		i = end + 1
	}
	if !rules.public {
		return nil, fmt.Errorf("grammar: no public rule")
	}
	var undefined []string
	for r := range rules.used {
		if !rules.defined[r] && r != "NULL" && r != "VOID" {
			undefined = append(undefined, "<"+r+">")
		}
	}
	if len(undefined) > 0 {
		sort.Strings(undefined)
		return nil, fmt.Errorf("grammar: rule %s used but not defined", strings.Join(undefined, ", "))
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out, nil
}

// stripComments blanks /* */ and // comments outside quotes.
func stripComments(s string) (string, error) {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '{':
			closer := byte('"')
			if b[i] == '{' {
				closer = '}'
			}
			k := strings.IndexByte(s[i+1:], closer)
			if k < 0 {
				return "", fmt.Errorf("grammar: %q at byte %d never closed", b[i], i)
			}
			i += k + 1
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			k := strings.Index(s[i+2:], "*/")
			if k < 0 {
				return "", fmt.Errorf("grammar: comment at byte %d never ends", i)
			}
			for j := i; j < i+k+4; j++ {
				b[j] = ' '
			}
			i += k + 3
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b), nil
}

// statementEnd finds the ';' ending the statement starting at i, skipping
// quoted strings and tags.
func statementEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case ';':
			return j
		case '"', '{':
			closer := byte('"')
			if s[j] == '{' {
				closer = '}'
			}
			k := strings.IndexByte(s[j+1:], closer)
			if k < 0 {
				return -1
			}
			j += k + 1
		}
	}
	return -1
}

// ruleRefs records the rules a grammar defines and uses.
type ruleRefs struct {
	defined, used map[string]bool
	public        bool
}

// statementWords adds the terminals of one statement to seen.
func statementWords(st string, seen map[string]bool, rules *ruleRefs) error {
	trim := strings.TrimSpace(st)
	if trim == "" || strings.HasPrefix(trim, "#JSGF") || strings.HasPrefix(trim, "grammar ") || strings.HasPrefix(trim, "import ") {
		return nil
	}
	eq := strings.IndexByte(st, '=')
	if eq < 0 {
		return fmt.Errorf("statement %q is not a rule definition", clip(trim))
	}
	head := strings.Fields(st[:eq])
	if len(head) == 0 || len(head) > 2 || (len(head) == 2 && head[0] != "public") {
		return fmt.Errorf("statement %q: want [public] <name> = …", clip(trim))
	}
	name := head[len(head)-1]
	if len(name) < 3 || name[0] != '<' || name[len(name)-1] != '>' {
		return fmt.Errorf("statement %q: want [public] <name> = …", clip(trim))
	}
	rules.defined[name[1:len(name)-1]] = true
	rules.public = rules.public || len(head) == 2
	body := st[eq+1:]
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '<':
			k := strings.IndexByte(body[i:], '>')
			if k < 0 {
				return fmt.Errorf("rule reference never closed in %q", clip(trim))
			}
			rules.used[body[i+1:i+k]] = true
			i += k + 1
		case c == '{':
			k := strings.IndexByte(body[i:], '}')
			if k < 0 {
				return fmt.Errorf("tag never closed in %q", clip(trim))
			}
			i += k + 1
		case c == '/':
			// A weight: /1.5/
			k := strings.IndexByte(body[i+1:], '/')
			if k < 0 {
				return fmt.Errorf("weight never closed in %q", clip(trim))
			}
			i += k + 2
		case c == '"':
			k := strings.IndexByte(body[i+1:], '"')
			if k < 0 {
				return fmt.Errorf("quote never closed in %q", clip(trim))
			}
			if w := body[i+1 : i+1+k]; w != "" {
				seen[w] = true
			}
			i += k + 2
		case strings.IndexByte("()[]|*+ \t\r\n", c) >= 0:
			i++
		default:
			j := i
			for j < len(body) && strings.IndexByte("()[]|*+<>{}/\" \t\r\n", body[j]) < 0 {
				j++
			}
			seen[body[i:j]] = true
			i = j
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
