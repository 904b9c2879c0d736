package sphinx

import "github.com/openjibo/jibod/audio"

// digitalSilence is the shortest run of (near) zero samples taken out
// before decoding: 50 ms.
const digitalSilence = audio.SampleRate / 20

// withoutDigitalSilence returns pcm without its runs of digital silence
// (samples within ±1 of zero) of 50 ms or more. A microphone never
// gives such runs, but files and synthesised speech do, and the decoder
// normalises each utterance by its mean cepstrum, which frames of
// nothing pull far from the speech's. It returns pcm itself when there
// is nothing to take out.
func withoutDigitalSilence(pcm []int16) []int16 {
	var out []int16
	run := 0 // length of the quiet run ending at i
	flushed := 0
	for i, v := range pcm {
		if v >= -1 && v <= 1 {
			run++
			continue
		}
		if run >= digitalSilence {
			if out == nil {
				out = make([]int16, 0, len(pcm))
			}
			out = append(out, pcm[flushed:i-run]...)
			flushed = i
		}
		run = 0
	}
	if run >= digitalSilence {
		if out == nil {
			out = make([]int16, 0, len(pcm))
		}
		out = append(out, pcm[flushed:len(pcm)-run]...)
		flushed = len(pcm)
	}
	if out == nil {
		return pcm
	}
	return append(out, pcm[flushed:]...)
}
