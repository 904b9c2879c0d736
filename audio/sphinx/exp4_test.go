//go:build sphinx

package sphinx

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio"
)

func TestExp4(t *testing.T) {
	ctx := context.Background()
	jsgf, _ := os.ReadFile(os.Getenv("EXP_JSGF"))
	lex, _ := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	r, err := New(ctx, Config{Grammar: string(jsgf), Lexicon: lex, Args: strings.Fields(os.Getenv("EXP_ARGS"))})
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("EXP_DIR")
	f, _ := os.Open(dir + "/list.txt")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fn, text, _ := strings.Cut(sc.Text(), "|")
		fh, _ := os.Open(filepath.Join(dir, fn))
		c, _ := audio.DecodeWAV(fh)
		fh.Close()
		h, err := r.Recognize(ctx, audio.ToRecognition(c))
		got := ""
		if len(h) > 0 {
			got = h[0].Text
		}
		t.Logf("%s %q -> %q %v", fn, text, got, err)
	}
	r.Close()
}
