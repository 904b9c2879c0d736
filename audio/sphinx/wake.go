package sphinx

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/openjibo/jibod/audio"
)

// Wake methods: how WakeCheck decides that an utterance starts with the
// wake phrase.
const (
	// WakeGrammar: the wake phrase is the start of the grammar sentence
	// recognised (the listener reads it off the text; WakeCheck changes
	// nothing).
	WakeGrammar = "grammar"
	// WakeSpotter: keyphrase spotting alone decides.
	WakeSpotter = "spotter"
	// WakeBoth: the sentence must start with the phrase and the spotter
	// must find it.
	WakeBoth = "both"
)

// KeyphraseSpotter tells whether an utterance holds the wake phrase.
type KeyphraseSpotter interface {
	Spot(ctx context.Context, pcm []int16) (bool, error)
}

// WakeCheck is a recogniser whose hypotheses start with the wake phrase
// exactly when its method says the utterance does: it adds or removes
// the phrase at the start of each hypothesis. It exists to compare wake
// methods on the same audio (jibod audio eval --wake).
type WakeCheck struct {
	Recognizer audio.Recognizer
	Spotter    KeyphraseSpotter
	Method     string
	// Wake is the wake phrase; "" means audio.WakePhrase.
	Wake string
}

// Recognize recognises pcm and applies the wake method.
func (w *WakeCheck) Recognize(ctx context.Context, pcm []int16) ([]audio.Hypothesis, error) {
	hyps, err := w.Recognizer.Recognize(ctx, pcm)
	if err != nil || w.Method == WakeGrammar || w.Method == "" {
		return hyps, err
	}
	if w.Spotter == nil {
		return nil, fmt.Errorf("wake method %q needs a keyphrase spotter", w.Method)
	}
	if w.Method != WakeSpotter && w.Method != WakeBoth {
		return nil, fmt.Errorf("wake method %q: want %s, %s or %s", w.Method, WakeGrammar, WakeSpotter, WakeBoth)
	}
	spotted, err := w.Spotter.Spot(ctx, pcm)
	if err != nil {
		return nil, err
	}
	phrase := w.Wake
	if phrase == "" {
		phrase = audio.WakePhrase
	}
	wake := strings.Fields(phrase)
	var out []audio.Hypothesis
	seen := map[string]bool{}
	for _, h := range hyps {
		words := strings.Fields(h.Text)
		has := len(words) >= len(wake) && slices.Equal(words[:len(wake)], wake)
		switch {
		case has && !spotted:
			words = words[len(wake):]
		case !has && spotted && w.Method == WakeSpotter:
			words = append(slices.Clone(wake), words...)
		}
		text := strings.Join(words, " ")
		if text == "" || seen[text] {
			continue
		}
		seen[text] = true
		out = append(out, audio.Hypothesis{Text: text, Confidence: h.Confidence})
	}
	if len(out) == 0 && spotted && w.Method == WakeSpotter {
		// Spotted, with nothing else recognised: the phrase alone.
		out = append(out, audio.Hypothesis{Text: phrase, Confidence: 0.5})
	}
	return out, nil
}
