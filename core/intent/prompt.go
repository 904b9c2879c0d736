package intent

import "strings"

// RenderPrompt fills a .prompt (RES-07): each well-formed {{name}}, name as
// in GRM-04, whose name is in values is replaced by its value. Everything
// else stays byte for byte: unfilled {{name}}, single-brace {x}, lone braces
// and JSON. Values are inserted as given and not scanned again.
func RenderPrompt(prompt string, values map[string]string) string {
	var b strings.Builder
	b.Grow(len(prompt))
	for {
		i := strings.Index(prompt, "{{")
		if i < 0 {
			b.WriteString(prompt)
			return b.String()
		}
		b.WriteString(prompt[:i])
		rest := prompt[i+2:]
		end := strings.Index(rest, "}}")
		if end >= 0 && validName(rest[:end]) {
			if v, ok := values[rest[:end]]; ok {
				b.WriteString(v)
				prompt = rest[end+2:]
				continue
			}
		}
		// Not a well-formed {{name}}: keep one brace and look again from the
		// next, so "{{{x}}}" still finds "{{x}}".
		b.WriteByte('{')
		prompt = prompt[i+1:]
	}
}
