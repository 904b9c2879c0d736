//go:build sphinx

package sphinx

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openjibo/jibod/audio"
)

func rms(pcm []int16) float64 {
	if len(pcm) == 0 {
		return 0
	}
	var s float64
	for _, v := range pcm {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(len(pcm))+1)
}

func TestExp2(t *testing.T) {
	ctx := context.Background()
	r, err := New(ctx, Config{Grammar: expGrammar(""), Args: strings.Fields(os.Getenv("EXP_ARGS"))})
	if err != nil {
		t.Fatal(err)
	}
	d := <-r.pool
	dir := os.Getenv("EXP_DIR")
	if dir == "" {
		dir = "/tmp/asr2"
	}
	f, _ := os.Open(dir + "/list.txt")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fn, text, _ := strings.Cut(sc.Text(), "|")
		fh, _ := os.Open(filepath.Join(dir, fn))
		c, _ := audio.DecodeWAV(fh)
		fh.Close()
		pcm := audio.ToRecognition(c)
		d.start()
		d.process(pcm)
		d.end()
		h := d.hyp()
		segs := d.align()
		var wf, sf int
		var wa int64
		var we, se []int16
		var maxSil int
		for _, s := range segs {
			lo, hi := s.start*160, min((s.end+1)*160, len(pcm))
			if lo >= hi {
				continue
			}
			if strings.HasPrefix(s.word, "<") || strings.HasPrefix(s.word, "[") || s.word == "(NULL)" {
				sf += s.end - s.start + 1
				se = append(se, pcm[lo:hi]...)
				if rms(pcm[lo:hi]) > 0 {
					maxSil = max(maxSil, s.end-s.start+1)
				}
				continue
			}
			wf += s.end - s.start + 1
			wa += int64(s.ascr)
			we = append(we, pcm[lo:hi]...)
		}
		t.Logf("%-10s %-52q -> %-40q word a/f=%6.1f wf=%3d sf=%3d  E word=%.1f sil=%.1f", fn, text, h.text, float64(wa)/float64(max(wf, 1)), wf, sf, rms(we), rms(se))
	}
	r.pool <- d
	r.Close()
}
