package sphinx

import (
	"slices"
	"time"

	"github.com/openjibo/jibod/audio"
)

// DefaultTrimMargin is how much audio trimToSpeech keeps either side of
// an utterance's loud frames.
const DefaultTrimMargin = 200 * time.Millisecond

// MaxTrimMargin bounds Config.TrimMargin.
const MaxTrimMargin = 2 * time.Second

// trimToSpeech returns the part of pcm the decoder needs: from margin
// before its first loud 10 ms frame to margin after its last. A frame is
// loud when it is at least 6 dB, and at least a third of the range from
// the quietest tenth of the frames to the loudest tenth, over the
// quietest tenth. When the frames span under 6 dB (no speech stands out
// of the noise), pcm is returned whole.
//
// Why: the detector hands over its pre-roll (300 ms) and the silence that
// ended the utterance (500 ms), and the decoder spends as long on a frame
// of silence as on one of speech. The margin keeps the quiet onsets and
// tails of words (an h, an f, a released stop) that fall under the loud
// threshold, and some silence either side, which the decoder's silence
// model and the batch cepstral mean both expect.
func trimToSpeech(pcm []int16, margin time.Duration) []int16 {
	n := len(pcm) / floorFrame
	if n < 2 || margin < 0 {
		return pcm
	}
	db := frameLevels(pcm)
	sorted := slices.Clone(db)
	slices.Sort(sorted)
	quiet, loud := sorted[n/10], sorted[n*9/10]
	if loud-quiet < 6 {
		return pcm
	}
	threshold := quiet + max(6, (loud-quiet)/3)
	first, last := -1, -1
	for f, d := range db {
		if d >= threshold {
			if first < 0 {
				first = f
			}
			last = f
		}
	}
	if first < 0 {
		return pcm
	}
	keep := int(margin * audio.SampleRate / time.Second)
	lo := max(0, first*floorFrame-keep)
	hi := min(len(pcm), (last+1)*floorFrame+keep)
	return pcm[lo:hi]
}
