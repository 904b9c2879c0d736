package sphinx

import (
	"strings"
)

// Wake decoys for "hey jibo": the phrase with "jibo" replaced by a
// syllable that starts as "jibo" does, /dʒ/ and a vowel, alone or closed
// by a consonant ("hey jay", "hey jim", "hey jack"). A grammar sentence
// must start with the wake phrase for the robot to wake, so speech
// addressed to someone else was forced onto it whenever "jibo" was the
// nearest word the grammar had ("Hey Joe, are you coming to the party
// tonight?" heard as "hey jibo are you a fan of pop"); with the decoys in
// the grammar (grammar.Options.Decoys) it is nearer to one of them, and
// the recogniser drops it.
//
// The decoy words are not English words but their sounds, spelled "jh"
// and the phones' names ("jhey", "jhaek"), so no command or open slot can
// hold one. Syllables on the vowels of "jibo" as it is said and as it may
// be said (/iː/, /ɪ/) are left out: they took the wake phrase itself
// ("jee", "jeed", "jeem"; docs/hearing.md).
var (
	decoyVowels = []string{"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "OW", "OY", "UH", "UW"}
	decoyCodas  = []string{"", "M", "K", "N", "L", "F", "S", "T", "Z", "D"}
)

// DecoyWeight is the decoys' prior against the wake phrase
// (grammar.Options.DecoyWeight). pocketsphinx adds its logarithm to a
// path's score once, not scaled by the language weight, so it takes a
// tiny number to matter: the weight that keeps nearly every wake phrase
// while the decoys still take the false wakes away (docs/hearing.md).
const DecoyWeight = 1e-20

// WakeDecoys returns decoys of the wake phrase (phrases for
// grammar.Options.Decoys) and their words' pronunciations (for
// LexiconOptions.Words); none for a wake phrase other than "hey jibo".
func WakeDecoys(wake string) (phrases []string, words map[string]string) {
	f := strings.Fields(strings.ToLower(wake))
	if len(f) != 2 || f[0] != "hey" || f[1] != "jibo" {
		return nil, nil
	}
	words = map[string]string{}
	for _, v := range decoyVowels {
		for _, c := range decoyCodas {
			w := "jh" + strings.ToLower(v+c)
			words[w] = strings.TrimSpace("JH " + v + " " + c)
			phrases = append(phrases, "hey "+w)
		}
	}
	return phrases, words
}
