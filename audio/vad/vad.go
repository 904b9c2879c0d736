// Package vad finds speech in a stream of 16 kHz mono PCM: an energy
// detector against an adaptive noise floor, with onset, hangover, silence
// and maximum-speech timeouts and pre-roll, cutting the stream into
// utterances (endpointing) for the recogniser.
//
// The detector works on 20 ms frames. A frame is loud when its level is
// ThresholdDB above the noise floor and above MinLevelDB. Speech starts
// after Onset of loud frames and ends after SilenceTimeout without one;
// its extent reaches out from the loud frames over the frames next to
// them that are EdgeThresholdDB above the floor (a double threshold):
// the soft start and end of a word ("m" of "mute", the fall of "help"),
// which in noise are often all that is under the threshold. Levels are
// measured on the voice band, 300–3400 Hz (unless FullBand): most noise
// of rooms, fans, traffic and handling lies below or above it, and most
// of speech's energy inside, so in band speech stands several dB further
// above the noise (at 5 dB SNR of pink noise the full-band level of
// vowels barely clears the floor). The noise floor
// is the quietest frame of the last FloorWindow (minimum statistics): speech
// has pauses between words, so the minimum follows the room's noise and not
// the voice, and a noise that starts (a fan) becomes the floor within one
// window instead of counting as endless speech.
// Nothing is assumed before the stream starts: the first frame is its own
// floor, so a noisy room is not taken for speech while the floor is
// learned.
//
// The floor is what a quiet room sounds like between words. A room with a
// television, music or other people talking has a background that is
// itself speech-like: its quietest frames are far below its typical ones,
// so against the floor alone it never falls silent and an utterance runs
// on to MaxSpeech. So the detector also keeps the background's typical
// level: the lowest quarter (25th percentile) of the frame levels over the
// last BackgroundWindow, speech included. A frame is loud only when it
// stands BackgroundMarginDB over that as well; the person speaking to the
// robot is nearer and louder than the room, and when they stop, what is
// left is the background, which is no longer loud. Speech included,
// because a television that starts talking starts an utterance, and the
// estimate must learn it while that utterance goes on; the lowest quarter,
// because an utterance fills much of the window, and its pauses and the
// room around it still make up the lowest quarter. The part of the window
// not heard yet counts as silence, so a stream that starts with someone
// talking has no background yet. Over steady noise (a fan, a hum) the
// lowest quarter is a dB or two over the floor: only a background whose
// typical level stands unsteadyDB over its floor counts as speech-like,
// elsewhere the floor's threshold alone serves, as before. An utterance
// that rose clear out of such a steady room is judged against that room
// until it ends: a person talking on without a pause would otherwise
// become the background and be cut long before MaxSpeech. Other talk
// that follows them without a pause runs on in that utterance to
// MaxSpeech; where it is quieter than the person, the person's part ends
// where they stopped standing over it (Segment's SpeakerEnd). Over a
// speech-like background speech goes on only where loud frames come close
// together (a syllable), not at the background's lone peaks. When an
// utterance ends over such a background, it is judged again (Segment's
// BackgroundOnly, SpeakerStart, SpeakerEnd): against the background as it
// was known when the utterance began (or, when it began before the
// background window had filled, as learnt by its end), and for where a
// talker rose over what went before it, the person nearer the robot over
// the room. Music whose notes and drums fall silent between beats looks
// like a steady room with endless speech in it: where its onsets repeat
// at a steady period (a beat; see beat.go), a frame is loud only where
// it also stands over what the music was at the same point of the
// periods before it.
package vad

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// SampleRate is the rate the detector works at (audio.SampleRate).
const SampleRate = 16000

// FrameSamples is the detector's frame: 20 ms.
const FrameSamples = SampleRate / 50

// FrameDuration is the length of one frame.
const FrameDuration = 20 * time.Millisecond

// silenceDB stands for the level of digital silence.
const silenceDB = -100.0

// Config tunes the detector. Zero values take the defaults in Defaults.
type Config struct {
	// ThresholdDB is how far above the noise floor a frame must be to be
	// loud.
	ThresholdDB float64
	// EdgeThresholdDB is how far above the noise floor a frame next to
	// loud ones must be to count as part of the speech: the soft edges of
	// words. It only widens speech that loud frames found (for MinSpeech
	// and the segment's bounds); it neither starts nor prolongs an
	// utterance. At most ThresholdDB.
	EdgeThresholdDB float64
	// MinLevelDB is the quietest level (dBFS) that can be speech at all, so
	// that faint noise over digital silence is not.
	MinLevelDB float64
	// FloorWindow is how far back the noise floor looks.
	FloorWindow time.Duration
	// Onset is how long the level must stay loud for speech to start.
	Onset time.Duration
	// Hangover is how long a quiet stretch still counts as speech: the
	// gaps between words.
	Hangover time.Duration
	// SilenceTimeout is how long speech must stay quiet (after the
	// hangover) for the utterance to end.
	SilenceTimeout time.Duration
	// MaxSpeech cuts an utterance that goes on longer.
	MaxSpeech time.Duration
	// MinSpeech drops utterances shorter than this (clicks, knocks).
	MinSpeech time.Duration
	// PreRoll is audio kept from before the onset and put at the start of
	// the utterance, so its first sound is not clipped and the speech
	// recogniser hears the noise the words are in (its noise subtraction
	// learns the noise from there).
	PreRoll time.Duration
	// FullBand measures levels over the whole band instead of the voice
	// band (300–3400 Hz).
	FullBand bool
	// BackgroundWindow is how far back the background's typical level
	// (the 25th percentile of the frame levels) looks.
	BackgroundWindow time.Duration
	// BackgroundMarginDB is how far over the background's typical level a
	// frame must be to be loud (and, less ThresholdDB−EdgeThresholdDB, to
	// be an edge): speech over a television or other talkers stands out of
	// them, and ends when only they are left. Negative turns it off.
	BackgroundMarginDB float64
}

// Defaults are the detector's defaults.
var Defaults = Config{
	ThresholdDB:     10,
	EdgeThresholdDB: 5,
	MinLevelDB:      -55,
	FloorWindow:     1500 * time.Millisecond,
	Onset:           60 * time.Millisecond,
	Hangover:        200 * time.Millisecond,
	SilenceTimeout:  500 * time.Millisecond,
	MaxSpeech:       10 * time.Second,
	MinSpeech:       200 * time.Millisecond,
	PreRoll:         500 * time.Millisecond,
	// Chosen on the tuning set's babble and music twin
	// (scripts/gen-hearing-devset.sh --tune: espeak-ng speech over
	// espeak-ng babble and sox music; docs/hearing.md).
	BackgroundWindow:   6 * time.Second,
	BackgroundMarginDB: 15,
}

// Limits on the configuration.
const (
	MaxFloorWindow = 10 * time.Second
	MaxTimeout     = 60 * time.Second
	MaxPreRoll     = 2 * time.Second
)

func (c Config) withDefaults() Config {
	d := Defaults
	if c.ThresholdDB != 0 {
		d.ThresholdDB = c.ThresholdDB
	}
	if c.EdgeThresholdDB != 0 {
		d.EdgeThresholdDB = c.EdgeThresholdDB
	} else {
		// A threshold set below the default edge takes the edge with it.
		d.EdgeThresholdDB = min(d.EdgeThresholdDB, d.ThresholdDB)
	}
	if c.MinLevelDB != 0 {
		d.MinLevelDB = c.MinLevelDB
	}
	if c.BackgroundMarginDB != 0 {
		d.BackgroundMarginDB = c.BackgroundMarginDB
	}
	d.FullBand = c.FullBand
	for _, p := range []struct{ dst, src *time.Duration }{
		{&d.FloorWindow, &c.FloorWindow}, {&d.Onset, &c.Onset}, {&d.Hangover, &c.Hangover},
		{&d.SilenceTimeout, &c.SilenceTimeout}, {&d.MaxSpeech, &c.MaxSpeech},
		{&d.MinSpeech, &c.MinSpeech}, {&d.PreRoll, &c.PreRoll}, {&d.BackgroundWindow, &c.BackgroundWindow},
	} {
		if *p.src != 0 {
			*p.dst = *p.src
		}
	}
	return d
}

// Validate checks the configuration after defaults are applied.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.ThresholdDB < 1 || c.ThresholdDB > 60:
		return fmt.Errorf("vad: threshold %v dB outside 1..60", c.ThresholdDB)
	case c.EdgeThresholdDB < 1 || c.EdgeThresholdDB > c.ThresholdDB:
		return fmt.Errorf("vad: edge threshold %v dB outside 1..%v (the threshold)", c.EdgeThresholdDB, c.ThresholdDB)
	case c.MinLevelDB < -96 || c.MinLevelDB > 0:
		return fmt.Errorf("vad: minimum level %v dBFS outside -96..0", c.MinLevelDB)
	case c.FloorWindow < FrameDuration || c.FloorWindow > MaxFloorWindow:
		return fmt.Errorf("vad: floor window %v outside %v..%v", c.FloorWindow, FrameDuration, MaxFloorWindow)
	case c.Onset < FrameDuration || c.Onset > time.Second:
		return fmt.Errorf("vad: onset %v outside %v..1s", c.Onset, FrameDuration)
	case c.Hangover < 0 || c.Hangover > MaxTimeout:
		return fmt.Errorf("vad: hangover %v outside 0..%v", c.Hangover, MaxTimeout)
	case c.SilenceTimeout < FrameDuration || c.SilenceTimeout > MaxTimeout:
		return fmt.Errorf("vad: silence timeout %v outside %v..%v", c.SilenceTimeout, FrameDuration, MaxTimeout)
	case c.MaxSpeech < time.Second || c.MaxSpeech > MaxTimeout:
		return fmt.Errorf("vad: max speech %v outside 1s..%v", c.MaxSpeech, MaxTimeout)
	case c.MinSpeech < 0 || c.MinSpeech >= c.MaxSpeech:
		return fmt.Errorf("vad: min speech %v outside 0..max speech", c.MinSpeech)
	case c.PreRoll < 0 || c.PreRoll > MaxPreRoll:
		return fmt.Errorf("vad: pre-roll %v outside 0..%v", c.PreRoll, MaxPreRoll)
	case c.BackgroundWindow < FrameDuration || c.BackgroundWindow > MaxFloorWindow:
		return fmt.Errorf("vad: background window %v outside %v..%v", c.BackgroundWindow, FrameDuration, MaxFloorWindow)
	case c.BackgroundMarginDB > 60 || math.IsNaN(c.BackgroundMarginDB):
		return fmt.Errorf("vad: background margin %v dB over 60", c.BackgroundMarginDB)
	}
	return nil
}

// EndReason says why an utterance ended.
type EndReason string

// Why utterances end.
const (
	// EndSilence: the speaker stopped for SilenceTimeout.
	EndSilence EndReason = "silence"
	// EndMaxSpeech: the utterance reached MaxSpeech and was cut.
	EndMaxSpeech EndReason = "max_speech"
	// EndStream: the stream ended while speech was going on (Flush).
	EndStream EndReason = "end_of_stream"
)

// Segment is one utterance.
type Segment struct {
	// PCM is the utterance's audio, pre-roll included, up to End plus the
	// hangover; From is the stream position of its first sample.
	PCM  []int16
	From int64
	// Start and End are stream positions in samples: where speech began
	// (after the pre-roll) and where it ended, the soft edges of its first
	// and last words included.
	Start, End int64
	// Reason is why it ended.
	Reason EndReason
	// BackgroundOnly is true when none of the utterance's frames stands
	// out of the background as a syllable does, judged against the
	// background as known when the utterance began (as learnt by its end
	// where it began before the background window had filled): it was the
	// room (a television, other talkers, music) taken for speech while the
	// background was still being learnt. Only over a speech-like
	// background, or over music with a beat learnt while the utterance
	// went on, where none of its frames stands over the beat (see
	// beat.go).
	BackgroundOnly bool
	// SpeakerStart and SpeakerEnd bound the syllables that stand out of
	// the background (as BackgroundOnly judges it): where the person
	// speaking began and stopped. Over a steady background, and in a
	// BackgroundOnly segment, they are Start and End, except that an
	// utterance that rose clear out of a steady room and ran to MaxSpeech
	// ends its speaker where they stopped standing over quieter talk
	// that followed them.
	SpeakerStart, SpeakerEnd int64
}

// Speech is how long the segment's speech lasted (without pre-roll).
func (s *Segment) Speech() time.Duration {
	return time.Duration(s.End-s.Start) * time.Second / SampleRate
}

// speakerGap is how much of an utterance must lie before (or after) the
// speaker's syllables for SpeakerPart to cut it there: the background
// heard before the person spoke, not the soft start of their own first
// word.
const speakerGap = time.Second

// speakerTail is the audio SpeakerPart keeps after the speaker's last
// syllable where it cuts the tail: the soft end of the word and silence
// to end on.
const speakerTail = 300 * time.Millisecond

// SpeakerPart is the part of the segment to recognise: the speaker's
// syllables (SpeakerStart, SpeakerEnd) with preRoll before them, where a
// second or more of background before or after them was taken into the
// utterance; else the segment as it is. PCM is a part of s's.
func (s Segment) SpeakerPart(preRoll time.Duration) Segment {
	samples := func(d time.Duration) int64 { return int64(d) * SampleRate / int64(time.Second) }
	if s.SpeakerStart-s.Start >= samples(speakerGap) {
		from := max(s.From, s.SpeakerStart-samples(preRoll))
		s.PCM = s.PCM[from-s.From:]
		s.From, s.Start = from, s.SpeakerStart
	}
	return s.SpeakerHead()
}

// SpeakerHead is the segment up to the speaker's end: where a second or
// more of background followed their last syllable, the segment cut
// speakerTail after it; else the segment as it is. Its start is kept (the
// wake phrase said there must stay whole). PCM is a part of s's.
func (s Segment) SpeakerHead() Segment {
	samples := func(d time.Duration) int64 { return int64(d) * SampleRate / int64(time.Second) }
	end := s.From + int64(len(s.PCM))
	if s.End-s.SpeakerEnd >= samples(speakerGap) {
		end = min(end, s.SpeakerEnd+samples(speakerTail))
		s.PCM = s.PCM[:end-s.From]
		s.End = s.SpeakerEnd
	}
	return s
}

// EventKind is what an Event reports.
type EventKind int

// Event kinds.
const (
	// SpeechStart: speech began at Pos (onset confirmed).
	SpeechStart EventKind = iota + 1
	// SpeechEnd: the utterance Segment ended.
	SpeechEnd
	// SpeechDropped: speech that began turned out shorter than MinSpeech.
	SpeechDropped
)

// Event is a change the detector reports.
type Event struct {
	Kind    EventKind
	Pos     int64    // stream position of the change, in samples
	Segment *Segment // SpeechEnd only
}

// Detector is a voice activity detector and endpointer. It is not safe for
// concurrent use: one goroutine feeds it.
type Detector struct {
	cfg Config
	// Frame counts derived from cfg.
	onsetN, hangN, silenceN, maxN, minN, preN int

	pos     int64   // samples consumed
	partial []int16 // samples short of a frame
	partN   int

	floorRing []float64 // frame levels over the floor window
	floorPos  int
	floorN    int // levels in the ring
	floor     float64

	// bgRing holds the frame levels over the background window; bg is
	// their 25th percentile.
	bgRing []float64
	bgPos  int
	bgN    int
	bg     float64
	bgSort []float64
	// pendBg, pendFloor and pendKnown are the background, the floor and
	// whether the background window was full just before the first loud
	// frame of a pending onset; onsetBg, onsetFloor and onsetKnown the
	// same for the utterance going on (see rejudge).
	pendBg, pendFloor, onsetBg, onsetFloor float64
	pendKnown, onsetKnown                  bool
	// onsetClear is whether the utterance going on rose clear out of a
	// room that was not speech-like (see clearOfRoom).
	onsetClear bool
	// beat tracks music with a beat (see beat.go). pendQuiet and
	// onsetQuiet are whether the room was known, steady and without a
	// beat before a pending onset and when the utterance going on began:
	// its frames are then the person's, and teach the beat nothing.
	// onsetBeat is whether a beat held when it began.
	beat                             *beatTracker
	pendQuiet, onsetQuiet, onsetBeat bool
	pendBeat                         bool
	// capEnd is where the last utterance that ran to MaxSpeech ended.
	capEnd int64
	// recent are the loud frames of the last 200 ms of speech, recentN
	// how many (see dense).
	recent  []bool
	recentN int

	pre      []int16   // ring of the last preN+onsetN frames
	preLen   int       // samples in pre
	preAt    int       // next write index in pre
	preEdge  []bool    // per frame of pre: at least at the edge threshold
	preLevel []float64 // per frame of pre: its level (silenceDB when not audible)
	// levels are the segment's frame levels, as preLevel, one per frame
	// of seg.
	levels []float64
	// margins is scratch for rejudge over a beat.
	margins []float64

	inSpeech  bool
	loudRun   int // consecutive loud frames (before onset)
	quietRun  int // consecutive quiet frames (in speech)
	frames    int // frames of speech so far
	seg       []int16
	segStart  int64
	lastLoud  int64 // stream position after the last loud frame (or edge frame following it)
	inTail    bool  // the frames since the last loud one are all edge frames
	pendStart int64 // position of the first loud frame of a pending onset
	events    []Event

	band voiceBand
}

// New builds a detector.
func New(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	frames := func(d time.Duration) int { return int((d + FrameDuration - 1) / FrameDuration) }
	d := &Detector{cfg: cfg,
		onsetN: frames(cfg.Onset), hangN: frames(cfg.Hangover), silenceN: frames(cfg.SilenceTimeout),
		maxN: frames(cfg.MaxSpeech), minN: frames(cfg.MinSpeech), preN: frames(cfg.PreRoll),
		partial: make([]int16, FrameSamples),
		band:    newVoiceBand(),
	}
	d.floorRing = make([]float64, frames(cfg.FloorWindow))
	d.floor = silenceDB
	d.bg = silenceDB
	d.bgRing = make([]float64, frames(cfg.BackgroundWindow))
	d.bgSort = make([]float64, 0, len(d.bgRing))
	d.recent = make([]bool, 10)
	d.beat = newBeatTracker(cfg.MinLevelDB)
	d.pre = make([]int16, (d.preN+d.onsetN)*FrameSamples)
	d.preEdge = make([]bool, d.preN+d.onsetN)
	d.preLevel = make([]float64, d.preN+d.onsetN)
	d.levels = make([]float64, 0, d.maxN+d.preN+d.onsetN)
	d.margins = make([]float64, 0, d.maxN+d.preN+d.onsetN)
	d.seg = make([]int16, 0, (d.maxN+d.preN+d.onsetN)*FrameSamples)
	return d, nil
}

// Config returns the detector's configuration, defaults applied.
func (d *Detector) Config() Config { return d.cfg }

// Floor is the current noise floor in dBFS, measured on the voice band
// (300–3400 Hz) unless FullBand.
func (d *Detector) Floor() float64 { return d.floor }

// Background is the background's typical level in dBFS: the 25th
// percentile of the frame levels over the background window, on the
// voice band unless FullBand.
func (d *Detector) Background() float64 { return d.bg }

// InSpeech reports whether an utterance is going on.
func (d *Detector) InSpeech() bool { return d.inSpeech }

// Pos is the number of samples consumed.
func (d *Detector) Pos() int64 { return d.pos }

// Feed consumes pcm (any length) and returns what changed. The returned
// slice and the segments in it are valid until the next Feed or Flush.
func (d *Detector) Feed(pcm []int16) []Event {
	d.events = d.events[:0]
	for len(pcm) > 0 {
		if d.partN == 0 && len(pcm) >= FrameSamples {
			d.frame(pcm[:FrameSamples])
			pcm = pcm[FrameSamples:]
			continue
		}
		n := copy(d.partial[d.partN:], pcm)
		d.partN += n
		pcm = pcm[n:]
		if d.partN == FrameSamples {
			d.frame(d.partial)
			d.partN = 0
		}
	}
	return d.events
}

// ErrMidUtterance is wrapped by Flush's error when the stream ended during
// speech.
var ErrMidUtterance = errors.New("audio stream ended mid-utterance")

// Flush ends the stream. An utterance whose speaker had already paused
// for the hangover is complete: it is returned ending with EndSilence (nil
// when shorter than MinSpeech). Speech still going on is returned ending
// with EndStream, together with an error wrapping ErrMidUtterance: the
// caller decides whether a cut-off utterance is worth recognising.
func (d *Detector) Flush() (*Segment, error) {
	d.partN = 0
	if !d.inSpeech {
		d.loudRun = 0
		return nil, nil
	}
	if d.quietRun >= d.hangN {
		seg := d.finish(EndSilence)
		if seg.End-seg.Start < int64(d.minN*FrameSamples) {
			return nil, nil
		}
		d.rejudge(seg)
		return seg, nil
	}
	seg := d.finish(EndStream)
	d.rejudge(seg)
	return seg, fmt.Errorf("%w (%v of speech so far)", ErrMidUtterance, seg.Speech().Round(10*time.Millisecond))
}

// Level is the RMS level of a frame in dBFS (silenceDB for digital
// silence).
func Level(frame []int16) float64 {
	var sum int64
	for _, s := range frame {
		v := int64(s)
		sum += v * v
	}
	if sum == 0 || len(frame) == 0 {
		return silenceDB
	}
	ms := float64(sum) / float64(len(frame)) / (32768.0 * 32768.0)
	return max(10*math.Log10(ms), silenceDB)
}

// frame processes one 20 ms frame.
func (d *Detector) frame(f []int16) {
	// MinLevelDB applies to the whole band (what is there at all), the
	// threshold to the voice band (what stands out of the noise): a
	// filter's ringing after a click is in band but over nothing.
	full := Level(f)
	level := full
	if !d.cfg.FullBand {
		level = d.band.level(f)
	}
	start := d.pos
	d.pos += FrameSamples

	// The floor: the quietest frame of the window.
	d.floorRing[d.floorPos] = level
	d.floorPos = (d.floorPos + 1) % len(d.floorRing)
	d.floorN = min(d.floorN+1, len(d.floorRing))
	low := level
	for _, v := range d.floorRing[:d.floorN] {
		low = min(low, v)
	}
	d.floor = low
	audible := full >= d.cfg.MinLevelDB
	over := d.cfg.ThresholdDB
	// Within an utterance that rose clear out of a room that was not
	// speech-like (onsetClear), the room stays what it was: a person
	// talking on without a pause fills the background window with their
	// own voice, which would otherwise become the room and end them long
	// before MaxSpeech. A television that starts talking there runs to
	// MaxSpeech instead, and is the room from then on, as the window went
	// on learning. Elsewhere the background goes on being learnt.
	if m := d.cfg.BackgroundMarginDB; m > 0 && !(d.inSpeech && d.onsetClear) && d.bg-d.floor >= unsteadyDB {
		over = max(over, d.bg+m-d.floor)
	}
	loud := audible && level >= d.floor+over
	edge := audible && level >= d.floor+over-(d.cfg.ThresholdDB-d.cfg.EdgeThresholdDB)
	predicted, beat := d.beat.predict()
	bg, floor := d.bg, d.floor
	if d.inSpeech {
		bg, floor = d.onsetBg, d.onsetFloor
	}
	// Only where the room is otherwise steady, or the beats stand
	// BackgroundMarginDB over its typical level: elsewhere the room is
	// judged by its typical level already.
	beat = beat && (!d.speechLike(bg, floor) || d.beat.peak >= bg+d.cfg.BackgroundMarginDB)
	if beat {
		// Over a beat a frame is loud only over what the music was at
		// the same point of the periods before.
		loud = loud && level >= predicted+beatMarginDB
		edge = edge && level >= predicted+beatMarginDB-(d.cfg.ThresholdDB-d.cfg.EdgeThresholdDB)
	}
	if !d.inSpeech && loud && d.loudRun == 0 {
		d.pendBg, d.pendFloor, d.pendKnown = d.bg, d.floor, d.bgN == len(d.bgRing)
		d.pendBeat = beat
		d.pendQuiet = d.pendKnown && !beat && (d.cfg.BackgroundMarginDB <= 0 || d.bg-d.floor < unsteadyDB)
	}
	d.background(level)
	heard := level
	if !audible {
		heard = silenceDB
	}
	switch {
	case d.inSpeech && d.onsetQuiet:
		// The person speaking in a quiet room is no beat: their
		// utterance teaches the beat the room as it was.
		d.beat.push(d.onsetFloor)
	case d.inSpeech && d.onsetBeat && beat:
		// An utterance begun over the beat teaches it nothing: the
		// music goes on as it predicted (until the utterance runs to
		// the cap).
		d.beat.push(predicted)
	default:
		d.beat.push(heard)
	}

	if !d.inSpeech {
		d.remember(f, edge, heard)
		if !loud {
			d.loudRun = 0
			return
		}
		if d.loudRun == 0 {
			d.pendStart = start
		}
		d.loudRun++
		if d.loudRun < d.onsetN {
			return
		}
		// Onset confirmed: the utterance starts with the pre-roll and the
		// onset frames, all in the ring; the speech, with the edge frames
		// just before the loud ones.
		d.inSpeech, d.loudRun, d.quietRun, d.inTail = true, 0, 0, true
		d.segStart = d.pendStart - int64(d.edgeBefore()*FrameSamples)
		d.seg = d.seg[:0]
		d.seg = d.appendRing(d.seg)
		d.levels = d.appendLevels(d.levels[:0])
		d.preLen, d.preAt = 0, 0
		d.frames = d.onsetN
		d.lastLoud = d.pos
		d.onsetBg, d.onsetFloor, d.onsetKnown = d.pendBg, d.pendFloor, d.pendKnown
		d.onsetClear = d.clearOfRoom()
		// A sound that goes on past MaxSpeech without a pause (music
		// begun in the quiet room) is not the person: it teaches the
		// beat from then on.
		afterCap := d.capEnd > 0 && d.segStart-d.capEnd < int64(time.Second/FrameDuration)*FrameSamples
		d.onsetQuiet, d.onsetBeat = d.pendQuiet && !afterCap, d.pendBeat
		d.events = append(d.events, Event{Kind: SpeechStart, Pos: d.segStart})
		clear(d.recent)
		d.recentN = 0
		return
	}

	d.seg = append(d.seg, f...)
	d.levels = append(d.levels, heard)
	d.frames++
	if over > d.cfg.ThresholdDB || beat {
		// Over a speech-like background or a beat a loud frame alone is
		// one of its peaks: speech goes on only where loud frames come
		// close together (denseLoud of the last len(recent)).
		loud = d.dense(loud)
	}
	switch {
	case loud:
		d.quietRun, d.inTail = 0, true
		d.lastLoud = d.pos
	case edge && d.inTail:
		// The soft end of a word: part of the speech, but the silence
		// that ends the utterance still counts from the last loud frame.
		d.quietRun++
		d.lastLoud = d.pos
	default:
		d.quietRun++
		d.inTail = false
	}
	switch {
	case d.quietRun >= d.hangN+d.silenceN:
		d.end(EndSilence)
	case d.frames >= d.maxN:
		if beat {
			// Over a beat an utterance that runs to the cap is music the
			// beat no longer predicts (louder, another song): it is
			// learnt again.
			d.beat.forget()
		}
		d.capEnd = d.pos
		d.end(EndMaxSpeech)
	}
}

// speechLike reports whether a room of typical level bg and floor floor
// is judged by its typical level.
func (d *Detector) speechLike(bg, floor float64) bool {
	return d.cfg.BackgroundMarginDB > 0 && bg-floor >= unsteadyDB
}

// unsteadyDB is how far the background's typical level must stand over
// the floor for the background to count as speech-like: a fan, hum or
// traffic noise is steady, its typical level a dB or two over its
// quietest, and the floor's threshold alone serves (raising it would lose
// speech said in 5 dB of such noise); talk and music come and go.
const unsteadyDB = 6

// denseLoud is how many of the last len(Detector.recent) frames (200 ms)
// must be loud for speech to go on over a speech-like background: a
// syllable is 100–300 ms of loud frames, a peak of the background's
// one or two.
const denseLoud = 3

// dense records whether a frame is loud and reports whether it is loud
// among enough others (denseLoud).
func (d *Detector) dense(loud bool) bool {
	i := d.frames % len(d.recent)
	if d.recent[i] {
		d.recentN--
	}
	d.recent[i] = loud
	if loud {
		d.recentN++
	}
	return loud && d.recentN >= denseLoud
}

// background adds a frame to the background's window and takes its 25th
// percentile (after the frame's own loudness was judged).
func (d *Detector) background(level float64) {
	if d.cfg.BackgroundMarginDB <= 0 {
		return
	}
	d.bgRing[d.bgPos] = level
	d.bgPos = (d.bgPos + 1) % len(d.bgRing)
	d.bgN = min(d.bgN+1, len(d.bgRing))
	// The part of the window not heard yet counts as silence: a stream
	// that starts with someone talking has no background to learn yet.
	d.bgSort = append(d.bgSort[:0], d.bgRing[:d.bgN]...)
	for len(d.bgSort) < len(d.bgRing) {
		d.bgSort = append(d.bgSort, silenceDB)
	}
	slices.Sort(d.bgSort)
	d.bg = d.bgSort[len(d.bgSort)/4]
}

// end closes the utterance and reports it, or drops it when too short.
func (d *Detector) end(why EndReason) {
	seg := d.finish(why)
	if seg.End-seg.Start < int64(d.minN*FrameSamples) {
		d.events = append(d.events, Event{Kind: SpeechDropped, Pos: d.pos})
		return
	}
	if d.onsetQuiet {
		// The frames before the onset was confirmed taught the beat the
		// person's own voice; a kept word is theirs, not the room's, so
		// it teaches the room as it was (else counting teaches a beat).
		d.beat.unlearn(int((d.pos-d.segStart)/FrameSamples), d.onsetFloor)
	}
	d.rejudge(seg)
	d.events = append(d.events, Event{Kind: SpeechEnd, Pos: d.pos, Segment: seg})
}

// finish cuts the segment after the last loud frame plus the hangover.
func (d *Detector) finish(why EndReason) *Segment {
	d.inSpeech = false
	keepTo := min(d.lastLoud+int64(d.hangN*FrameSamples), d.pos)
	segBegin := d.pos - int64(len(d.seg)) // stream position of d.seg[0]
	pcm := d.seg[:keepTo-segBegin]
	seg := &Segment{PCM: pcm, From: segBegin, Start: d.segStart, End: d.lastLoud, Reason: why,
		SpeakerStart: d.segStart, SpeakerEnd: d.lastLoud}
	return seg
}

// rejudge judges a reported segment again now that it has ended, over a
// speech-like background. The background it is judged against is the
// room as known before the utterance began: the utterance's own frames
// say nothing of the room, and once it has gone on for a background
// window they are all the window holds (a person talking on in a quiet
// room would make the room look like their own voice). Only where the
// window had not filled when the utterance began (a stream that starts
// with the television on) was nothing known of the room before it;
// there its first seconds are taken for speech while the background is
// learnt, so it is judged against the background learnt by its end. With
// the rule speech goes on by (denseLoud loud frames in len(recent)), a
// segment none of whose frames stands out of that background is the
// background alone. Then for where the person speaking began: the room's talkers
// keep their level, and the person nearer the robot stands riseDB over
// it (speakerRise). Where no one rose over what went before, the person
// spoke from the utterance's start (the room began with them, too late
// to be known) and the utterance ran on into the room after them: they
// stopped where the level stepped down to it (talkerEnd). It sets
// BackgroundOnly and the speaker's bounds.
func (d *Detector) rejudge(seg *Segment) {
	if d.beat.held && !d.onsetBeat && !d.onsetQuiet && (!d.speechLike(d.bg, d.floor) || d.beat.peak >= d.bg+d.cfg.BackgroundMarginDB) {
		// The beat was learnt while the utterance went on (music heard
		// from the stream's start): its frames are judged against it
		// now, for where the person spoke over the music, if at all.
		n := min(len(d.levels), int((seg.End-seg.From)/FrameSamples))
		d.margins = d.beat.judge(d.levels[:n], d.floor+d.cfg.ThresholdDB, d.margins)
		first, last := denseRun(d.margins, 0, len(d.recent))
		if first < 0 {
			seg.BackgroundOnly = true
			return
		}
		seg.SpeakerStart = max(seg.Start, seg.From+int64(first*FrameSamples))
		seg.SpeakerEnd = min(seg.End, seg.From+int64((last+1)*FrameSamples))
		return
	}
	if d.onsetBeat {
		// Begun over a beat, it was judged against the beat throughout:
		// its loud frames were the person's.
		return
	}
	if d.onsetClear && seg.Reason == EndMaxSpeech {
		d.talkerEnd(seg)
		return
	}
	m := d.cfg.BackgroundMarginDB
	bg, floor := d.onsetBg, d.onsetFloor
	if !d.onsetKnown {
		bg, floor = d.bg, d.floor
	}
	if m <= 0 || bg-floor < unsteadyDB {
		return
	}
	n := min(len(d.levels), int((seg.End-seg.From)/FrameSamples))
	levels := d.levels[:n]
	if first, _ := denseRun(levels, floor+max(d.cfg.ThresholdDB, bg+m-floor), len(d.recent)); first < 0 {
		seg.BackgroundOnly = true
		return
	}
	first, last := speakerRise(levels, int(speakerBefore/FrameDuration), len(d.recent))
	if first < 0 {
		if !d.onsetKnown {
			d.talkerEnd(seg)
		}
		return
	}
	seg.SpeakerStart = max(seg.Start, seg.From+int64(first*FrameSamples))
	seg.SpeakerEnd = min(seg.End, seg.From+int64((last+1)*FrameSamples))
}

// talkerEnd sets SpeakerEnd of an utterance the person spoke from its
// start and other talk ran on in after them: one that rose clear out of
// a steady room and ran to MaxSpeech (the room was held fixed for it, so
// other talk that followed the person without a pause, a television
// turned on, someone else speaking, ran on in it), or one over talkers
// or music that began with the person. At each candidate step
// the person's level is the 90th percentile of all their part before
// it, the other talk's that of all that follows up to the cut, each
// speakerGap or longer. The step taken is the first within riseDB of the
// largest, and it must be 2×riseDB or more: voices trail off, and a
// person whose later words are a few dB softer than their first steps
// down less there than to the other talk, so they are not cut where
// their voice fell. The person stopped where their last syllable riseDB
// over the other talk ended. A person who talks on to the cut keeps
// their level and is left whole.
func (d *Detector) talkerEnd(seg *Segment) {
	gap := int(speakerGap / FrameDuration)
	n := min(len(d.levels), int((seg.End-seg.From)/FrameSamples))
	levels := d.levels[:n]
	start := int((seg.Start - seg.From) / FrameSamples)
	if start < 0 || n-start < 2*gap {
		return
	}
	p90 := func(sorted []float64) float64 { return sorted[len(sorted)*9/10] }
	// before holds the frames before k, rest those from k on: each step
	// moves frame k from rest to before.
	before := slices.Sorted(slices.Values(levels[start : start+gap]))
	rest := slices.Sorted(slices.Values(levels[start+gap:]))
	type cut struct{ step, other float64 }
	var cuts []cut
	best := math.Inf(-1)
	for k := start + gap; n-k >= gap; k++ {
		c := cut{step: p90(before) - p90(rest), other: p90(rest)}
		cuts = append(cuts, c)
		best = max(best, c.step)
		i, _ := slices.BinarySearch(rest, levels[k])
		rest = slices.Delete(rest, i, i+1)
		i, _ = slices.BinarySearch(before, levels[k])
		before = slices.Insert(before, i, levels[k])
	}
	for _, c := range cuts {
		if c.step < max(2*riseDB, best-riseDB) {
			continue
		}
		if _, last := denseRun(levels, c.other+riseDB, len(d.recent)); last >= 0 {
			seg.SpeakerEnd = min(seg.End, seg.From+int64((last+1)*FrameSamples))
		}
		return
	}
}

// riseDB is how far a talker's loud frames must stand over the loud
// frames (the 90th percentile) of the audio before them to be someone
// other than the room: low enough that a command said at 5 dB SNR over
// babble rises so far over the babble before it (docs/hearing.md).
const riseDB = 3

// speakerBefore is the least audio heard before a rise for it to be
// judged one: enough of the room to know its level.
const speakerBefore = time.Second

// denseRun finds the first and last frame of syllables at or over
// threshold (denseLoud such frames within window): first is where the
// first one began, last where the last one ended; -1 when there are
// none.
func denseRun(levels []float64, threshold float64, window int) (first, last int) {
	first, last = -1, -1
	count := 0
	for i, l := range levels {
		if l >= threshold {
			count++
		}
		if i >= window && levels[i-window] >= threshold {
			count--
		}
		if l < threshold || count < denseLoud {
			continue
		}
		if first < 0 {
			first = i
			for k := max(0, i-window+1); k < i; k++ {
				if levels[k] >= threshold {
					first = k
					break
				}
			}
		}
		last = i
	}
	return first, last
}

// speakerRise finds where a talker louder than what went before begins.
// A candidate is a frame at least before frames in that starts a
// syllable (denseRun) riseDB over the 90th percentile of the frames
// before it, where the rest of the segment's 90th percentile stands
// riseDB over it too (a talker, not one loud word of the room's); its
// rise is how far. The room's own louder moments rise less than the
// person does, and the person's own louder words later on rise as far
// as their first: so the first candidate within riseDB of the largest
// rise. last is where that talker's last such syllable ends. first is
// -1 when there is none.
func speakerRise(levels []float64, before, window int) (first, last int) {
	if len(levels) <= before {
		return -1, -1
	}
	type candidate struct {
		first     int
		threshold float64
		rise      float64
	}
	var cands []candidate
	// sorted holds the frames before k, rest the frames from k on: each
	// step moves one frame from rest to sorted.
	sorted := slices.Clone(levels[:before])
	slices.Sort(sorted)
	rest := slices.Clone(levels[before:])
	slices.Sort(rest)
	best := math.Inf(-1)
	for k := before; k < len(levels); k++ {
		p90 := sorted[len(sorted)*9/10]
		threshold := p90 + riseDB
		if levels[k] >= threshold && startsSyllable(levels[k:], threshold, window) {
			if rise := rest[len(rest)*9/10] - p90; rise >= riseDB {
				cands = append(cands, candidate{first: k, threshold: threshold, rise: rise})
				best = max(best, rise)
			}
		}
		i, _ := slices.BinarySearch(rest, levels[k])
		rest = slices.Delete(rest, i, i+1)
		i, _ = slices.BinarySearch(sorted, levels[k])
		sorted = slices.Insert(sorted, i, levels[k])
	}
	for _, c := range cands {
		if c.rise >= best-riseDB {
			_, l := denseRun(levels[c.first:], c.threshold, window)
			return c.first, c.first + l
		}
	}
	return -1, -1
}

// startsSyllable reports whether denseRun over levels would find a
// syllable that starts at its first frame: denseLoud frames at or over
// threshold within its first window, the first frame among them.
func startsSyllable(levels []float64, threshold float64, window int) bool {
	if len(levels) == 0 || levels[0] < threshold {
		return false
	}
	count := 0
	for _, l := range levels[:min(window, len(levels))] {
		if l >= threshold {
			count++
		}
	}
	return count >= denseLoud
}

// clearOfRoom reports whether the utterance just begun rose clear out of
// a room that was not speech-like, known before it: every onset frame
// stands BackgroundMarginDB over the room's typical level, which stood
// under unsteadyDB over its floor. A person speaking up in a quiet room
// does; a momentary lull of a crowd's din that made its own peaks count
// as loud does not.
func (d *Detector) clearOfRoom() bool {
	m := d.cfg.BackgroundMarginDB
	if m <= 0 || !d.onsetKnown || d.onsetBg-d.onsetFloor >= unsteadyDB || len(d.levels) < d.onsetN {
		return false
	}
	for _, l := range d.levels[len(d.levels)-d.onsetN:] {
		if l < d.onsetBg+m {
			return false
		}
	}
	return true
}

// remember keeps the frame in the pre-roll ring, whether it reached the
// edge threshold, and its level.
func (d *Detector) remember(f []int16, edge bool, level float64) {
	if len(d.pre) == 0 {
		return
	}
	copy(d.pre[d.preAt:], f)
	d.preEdge[d.preAt/FrameSamples] = edge
	d.preLevel[d.preAt/FrameSamples] = level
	d.preAt = (d.preAt + FrameSamples) % len(d.pre)
	d.preLen = min(d.preLen+FrameSamples, len(d.pre))
}

// edgeBefore counts the edge frames in the ring just before the onset's
// loud frames (its newest onsetN frames), up to the pre-roll.
func (d *Detector) edgeBefore() int {
	n, held := len(d.preEdge), d.preLen/FrameSamples
	newest := (d.preAt/FrameSamples + n - 1) % n
	count := 0
	for back := d.onsetN; back < held; back++ {
		if !d.preEdge[(newest-back+n)%n] {
			break
		}
		count++
	}
	return count
}

// appendLevels appends the ring's frame levels, oldest first, as
// appendRing its samples.
func (d *Detector) appendLevels(dst []float64) []float64 {
	held, at := d.preLen/FrameSamples, d.preAt/FrameSamples
	if d.preLen < len(d.pre) {
		return append(dst, d.preLevel[:held]...)
	}
	dst = append(dst, d.preLevel[at:]...)
	return append(dst, d.preLevel[:at]...)
}

// appendRing appends the ring's samples, oldest first.
func (d *Detector) appendRing(dst []int16) []int16 {
	if d.preLen < len(d.pre) {
		return append(dst, d.pre[:d.preLen]...)
	}
	dst = append(dst, d.pre[d.preAt:]...)
	return append(dst, d.pre[:d.preAt]...)
}
