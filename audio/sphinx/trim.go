package sphinx

import (
	"slices"
	"time"

	"github.com/openjibo/jibod/audio"
)

// DefaultLeadMargin and DefaultTrailMargin are the audio the recogniser
// decodes by default before and after an utterance's loud frames.
// pocketsphinx's noise subtraction and its batch cepstral mean learn from
// the frames they are given, so some of the utterance's own noise goes
// first; after the words the decoder needs only the silence that ends
// its sentence. The rest costs decoding time and, measured with Debian's
// model on the tuning set, changes nothing else: the batch mean hardly
// depends on how much silence it averages (docs/hearing.md). The noise
// suppression (denoise) runs before the cut and still hears all of it.
const (
	DefaultLeadMargin  = 200 * time.Millisecond
	DefaultTrailMargin = 200 * time.Millisecond
)

// MaxTrimMargin bounds Config.TrimMargin.
const MaxTrimMargin = 2 * time.Second

// prepareAudio readies an utterance for the decoder (and for adaptation, so
// the model learns from what it will decode): its noise suppressed when
// it is noisy, a noise floor under it when it is too clean, both
// measured on the whole utterance, whose pre-roll and trailing silence
// show the recording's noise; then the silence beyond the trim margins
// cut off.
func prepareAudio(pcm []int16, denoiseBelow, floorBelow float64, margin time.Duration) []int16 {
	return prepareAudioAt(pcm, quietSNR(pcm), denoiseBelow, floorBelow, margin)
}

// prepareAudioAt is prepareAudio of pcm whose quietSNR is snr, which
// the suppression is gated on.
func prepareAudioAt(pcm []int16, snr, denoiseBelow, floorBelow float64, margin time.Duration) []int16 {
	lead, trail := trimMargins(margin)
	return trimToSpeech(withNoiseFloor(denoiseAt(pcm, snr, denoiseBelow), floorBelow), lead, trail)
}

// trimMargins turns a configured margin into trimToSpeech's: 0 is the
// default (DefaultLeadMargin before, DefaultTrailMargin after), a
// positive margin applies to both sides, a negative one to neither.
func trimMargins(margin time.Duration) (lead, trail time.Duration) {
	switch {
	case margin == 0:
		return DefaultLeadMargin, DefaultTrailMargin
	case margin < 0:
		return -1, -1
	}
	return margin, margin
}

// trimToSpeech returns the part of pcm the decoder needs: from lead
// before its first loud 10 ms frame to trail after its last; a negative
// margin keeps that side whole. A frame is loud when it is at least 6 dB,
// and at least a third of the range from the quietest tenth of the frames
// to the loudest tenth, over the quietest tenth. When the frames span
// under 6 dB (no speech stands out of the noise), pcm is returned whole.
//
// Why: the decoder spends as long on a frame of silence as on one of
// speech, and the detector hands over the silence that ended the
// utterance (500 ms and its hangover). The margins keep the quiet onsets
// and tails of words (an h, an f, a released stop) that fall under the
// loud threshold, and silence either side, which the decoder's silence
// model, its noise subtraction and the batch cepstral mean all expect.
func trimToSpeech(pcm []int16, lead, trail time.Duration) []int16 {
	n := len(pcm) / floorFrame
	if n < 2 || (lead < 0 && trail < 0) {
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
	lo, hi := 0, len(pcm)
	if lead >= 0 {
		lo = max(0, first*floorFrame-int(lead*audio.SampleRate/time.Second))
	}
	if trail >= 0 {
		hi = min(len(pcm), (last+1)*floorFrame+int(trail*audio.SampleRate/time.Second))
	}
	return pcm[lo:hi]
}
