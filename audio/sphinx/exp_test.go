//go:build sphinx

package sphinx

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio"
)

func expGrammar(garbage string) string {
	g := `#JSGF V1.0;
grammar jibo;
<cmd> = what time is it | (set | start) a timer for <num> (minutes | seconds) | how are you | what is the date | hello;
<num> = one | two | three | four | five | ten;
`
	if garbage == "" {
		return g + "public <utt> = [hey jibo] <cmd>;\n"
	}
	var ph []string
	for _, p := range Phones {
		ph = append(ph, "ph_"+strings.ToLower(p))
	}
	return g + "<phone> = " + strings.Join(ph, " | ") + ";\n<garbage> = <phone>+;\npublic <utt> = " + garbage + ";\n"
}

func TestExp(t *testing.T) {
	ctx := context.Background()
	words := map[string]string{}
	for _, p := range Phones {
		words["ph_"+strings.ToLower(p)] = p
	}
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Words: words})
	if err != nil {
		t.Fatal(err)
	}
	variants := strings.Split(os.Getenv("EXP_VARIANTS"), ";;")
	for _, v := range variants {
		parts := strings.SplitN(v, "@@", 2)
		var args []string
		if len(parts) > 1 && parts[1] != "" {
			args = strings.Fields(parts[1])
		}
		r, err := New(ctx, Config{Grammar: expGrammar(parts[0]), Lexicon: lex, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open("/tmp/asr2/list.txt")
		sc := bufio.NewScanner(f)
		okc, oko := 0, 0
		var lines []string
		for sc.Scan() {
			fn, text, _ := strings.Cut(sc.Text(), "|")
			fh, _ := os.Open(filepath.Join("/tmp/asr2", fn))
			c, _ := audio.DecodeWAV(fh)
			fh.Close()
			h, err := r.Recognize(ctx, audio.ToRecognition(c))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(h) > 0 {
				got = h[0].Text
			}
			if strings.Contains(got, "ph_") {
				got = "<garbage>"
			}
			if strings.HasPrefix(fn, "cmd") && got == text {
				okc++
			}
			if strings.HasPrefix(fn, "oog") && (got == "" || got == "<garbage>") {
				oko++
			}
			lines = append(lines, fmt.Sprintf("  %s %q -> %q", fn, text, got))
		}
		f.Close()
		r.Close()
		t.Logf("%s: cmd %d/8 oog rejected %d/10", v, okc, oko)
		if os.Getenv("EXP_V") != "" {
			t.Log(strings.Join(lines, "\n"))
		}
	}
}
