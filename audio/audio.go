package audio

import (
	"context"
	"time"
)

// SampleRate is the rate, in Hz, of the mono 16-bit PCM that sources yield
// and recognition works on.
const SampleRate = RecognitionRate

// WakePhrase is the phrase that wakes the robot.
const WakePhrase = "hey jibo"

// Source yields 16 kHz mono int16 PCM (SampleRate) for recognition.
type Source interface {
	// Read fills buf, returning the samples read; io.EOF at the end of a
	// finite source.
	Read(ctx context.Context, buf []int16) (int, error)
	Close() error
}

// Sink plays PCM at the given rate (mono).
type Sink interface {
	Write(ctx context.Context, pcm []int16, rate int) error
	Close() error
}

// Hypothesis is one recognition of an utterance.
type Hypothesis struct {
	Text       string
	Confidence float64 // in [0,1]
	// Open marks a transcript of the open-vocabulary pass (Transcriber):
	// any words, not a sentence the robot's grammar holds.
	Open bool
}

// Recognizer turns one endpointed utterance of SampleRate mono PCM into
// n-best hypotheses, best first; none for no speech or out-of-grammar.
type Recognizer interface {
	Recognize(ctx context.Context, pcm []int16) ([]Hypothesis, error)
}

// AnswerRecognizer is a Recognizer that can also recognise against a
// second, small grammar of answers to skills' questions: the listener uses
// it for an utterance heard while a question waits.
type AnswerRecognizer interface {
	Recognizer
	// RecognizeAnswer is Recognize against the answers; none when the
	// speech is no answer.
	RecognizeAnswer(ctx context.Context, pcm []int16) ([]Hypothesis, error)
}

// Transcriber is a Recognizer with an open-vocabulary pass: it
// transcribes an utterance in any words (a statistical language model),
// for speech its grammar refuses, so that the intent engines, not the
// grammar, decide what a paraphrase means.
type Transcriber interface {
	Recognizer
	// Transcribe returns n-best transcripts, best first, marked Open;
	// none when nothing was heard.
	Transcribe(ctx context.Context, pcm []int16) ([]Hypothesis, error)
}

// Verdict says what a recogniser found in one utterance and why it
// returned what it did: for measuring the hearing (jibod audio eval),
// never for acting on.
type Verdict struct {
	// Sentence is the search's best sentence; "" when no path reached a
	// sentence's end.
	Sentence string
	// Confidence and Coverage are what the rejection floors measured of
	// it (0 when there was no sentence to measure).
	Confidence, Coverage float64
	// Dropped names what dropped the sentence ("" when it was kept): "no
	// sentence", "decoy", "coverage", "confidence", "coverage and
	// confidence", "acceptance", "verify", "phone loop", "rival".
	Dropped string
	// Decoded is how much audio the decoder heard, after trimming.
	Decoded time.Duration
	// SNR is the utterance's signal-to-noise ratio as the recogniser's
	// noise suppression measures it (dB).
	SNR float64
	// Background is how much the spectral shape of the utterance's
	// quiet frames changes from frame to frame (dB): low for steady
	// noise and silence, high for other talkers and music; 0 when it was
	// not measured. Enhanced says
	// whether the recogniser's speech enhancement ran on the utterance.
	Background float64
	Enhanced   bool
	// Fallback says what the fallback made of a refused sentence, ""
	// when it did not run: "too long", "no transcript", "floors" (the transcript's
	// own), "no claim", "guess" (claimed, but not parsed surely), "slots"
	// (the claim binds slots, and the intent's own search did not vouch
	// for them), "weak claim", "rival" (a transcript of another meaning
	// scored nearly as well), "acted", "agreed" (the garbage path's
	// sentence before a few filler words heard: the transcript means
	// the same).
	Fallback string
	// SlotSentence is the sentence the search of the claimed intent's
	// own sentences found, where the fallback's claim binds slots, and
	// SlotConfidence the confidence of its slots' words.
	SlotSentence   string
	SlotConfidence float64
	// Transcript is the fallback's transcript, with its confidence and
	// coverage; Claim the intent that claims it and ClaimScore the
	// claim's score (the claim's confidence times the transcript's).
	Transcript                               string
	TranscriptConfidence, TranscriptCoverage float64
	// TranscriptWords is the confidence of each of the transcript's
	// words, in order, measured as TranscriptConfidence is.
	TranscriptWords []float64
	// TranscriptRival is the best transcript of another meaning than the
	// claim's in the fallback's n-best list ("" for none: the margin is
	// then the one from the list's first to its last), and
	// TranscriptRivalMargin how much better per frame the list's first
	// scored; both only where the claim was checked for rivals and the
	// list held two transcripts or more (nil margin: not measured).
	TranscriptRival       string
	TranscriptRivalMargin *float64
	// Transcripts are the fallback's next distinct transcripts after
	// Transcript, best first, where it reads more than one, and
	// TranscriptMargins how much lower each path scored per frame than
	// the n-best list's first (the lattice's scores: compare them with
	// each other, not as likelihood ratios).
	Transcripts       []string
	TranscriptMargins []float64
	Claim             string
	ClaimScore        float64
	// Accept is the acceptance model's probability that the sentence is
	// right (0 without one), and Features what it was computed from
	// (the sphinx recogniser's AcceptFeatureNames).
	Accept   float64
	Features []float64
	// Rival is the best sentence of another meaning than Sentence's among
	// the search's n-best ("" when none was looked for or found), and
	// RivalMargin how much better per frame the sentence's meaning scored
	// than it.
	Rival       string
	RivalMargin float64
	// Words are the sentence's words and WordPosteriors each one's
	// posterior in the search's word lattice, where they were measured.
	Words          []string
	WordPosteriors []float64
	// Searches names the decoder's searches of the utterance in the
	// order they ran ("grammar", "grammar-wide", "grammar-untailed",
	// "fallback", "slots <intent>"…): each goes through the Decoded
	// audio once, so they are what the utterance cost.
	Searches []string
	// QuietTail says the search found the sentence with filler words
	// after it that covered no one talking (a release, a breath, the
	// room), and it was measured by the search without them.
	QuietTail bool
}

// VerdictRecognizer is a Recognizer that also says why (Verdict).
type VerdictRecognizer interface {
	Recognizer
	// RecognizeVerdict is Recognize, with its verdict.
	RecognizeVerdict(ctx context.Context, pcm []int16) ([]Hypothesis, Verdict, error)
}

// Device is one capture device a backend offers.
type Device struct {
	// ID is what goes after "backend:" in a source spec.
	ID string
	// Name is the device's human-readable name.
	Name string
	// Default marks the device the backend opens when no ID is given.
	Default bool
	// Channels and SampleRate are the device's native input format.
	Channels   int
	SampleRate int
}

// Backend is a source backend supplied from outside this package (for
// example portaudio, which needs cgo and a build tag): cmd/jibod puts it in
// Opener.Backends under the name that selects it in a spec.
type Backend struct {
	// Open opens the device named by arg (the text after "name:"; empty for
	// the default device). The Source it returns must yield SampleRate mono
	// PCM, converting whatever the device gives.
	Open func(ctx context.Context, arg string) (Source, error)
	// Devices lists the backend's capture devices; nil when it cannot list.
	Devices func(ctx context.Context) ([]Device, error)
	// Live marks a device that can vanish and return: the Opener reopens it
	// with backoff after a read error instead of giving up.
	Live bool
}
