//go:build sphinx

package sphinx

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio"
)

type expItem struct {
	File, Text, Kind, Noise string
	Wake                    bool
}

func frameDB(pcm []int16, f int) float64 {
	lo, hi := f*160, min(f*160+400, len(pcm))
	if lo >= hi {
		return 0
	}
	var s float64
	for _, v := range pcm[lo:hi] {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(hi-lo)+1)
}

func TestExp3(t *testing.T) {
	ctx := context.Background()
	jsgf, _ := os.ReadFile(os.Getenv("EXP_JSGF"))
	lex, _ := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	r, err := New(ctx, Config{Grammar: string(jsgf), Lexicon: lex, Args: strings.Fields(os.Getenv("EXP_ARGS"))})
	if err != nil {
		t.Fatal(err)
	}
	d := <-r.pool
	dir := "/tmp/aset"
	mf := os.Getenv("EXP_MAN"); if mf == "" { mf = "manifest.jsonl" }; f, _ := os.Open(dir + "/" + mf)
	sc := bufio.NewScanner(f)
	out, _ := os.Create("/tmp/asr/feat.tsv")
	defer out.Close()
	var tot, audioS float64
	for sc.Scan() {
		var it expItem
		json.Unmarshal(sc.Bytes(), &it)
		fh, _ := os.Open(filepath.Join(dir, it.File))
		c, _ := audio.DecodeWAV(fh)
		fh.Close()
		pcm := audio.ToRecognition(c)
		t0 := time.Now()
		d.start()
		d.process(pcm)
		d.end()
		h := d.hyp()
		segs := d.align()
		tot += time.Since(t0).Seconds()
		audioS += float64(len(pcm)) / 16000
		nf := len(pcm) / 160
		en := make([]float64, nf)
		for i := range en {
			en[i] = frameDB(pcm, i)
		}
		sorted := append([]float64(nil), en...)
		sort.Float64s(sorted)
		floor := 0.0
		if len(sorted) > 0 {
			floor = sorted[len(sorted)/10]
		}
		var wordE []float64
		var wf int
		var wa int64
		for _, s := range segs {
			if strings.HasPrefix(s.word, "<") || strings.HasPrefix(s.word, "[") || s.word == "(NULL)" {
				continue
			}
			wf += s.end - s.start + 1
			wa += int64(s.ascr)
			for k := s.start; k <= s.end && k < nf; k++ {
				wordE = append(wordE, en[k])
			}
		}
		sort.Float64s(wordE)
		wmed := 0.0
		if len(wordE) > 0 {
			wmed = wordE[len(wordE)/2]
		}
		loud := 0
		for _, s := range segs {
			if !(strings.HasPrefix(s.word, "<") || strings.HasPrefix(s.word, "[") || s.word == "(NULL)") {
				continue
			}
			for k := s.start; k <= s.end && k < nf; k++ {
				if en[k] > wmed-10 {
					loud++
				}
			}
		}
		fmt.Fprintf(out, "%s\t%s\t%v\t%q\t%q\t%.1f\t%d\t%d\t%.1f\t%.1f\n", it.Kind, it.Noise, it.Wake, it.Text, h.text,
			float64(wa)/float64(max(wf, 1)), wf, loud, wmed-floor, wmed)
	}
	t.Logf("rtf %.3f", tot/audioS)
	r.pool <- d
	r.Close()
}
