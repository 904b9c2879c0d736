package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Report is a run's results and their summaries.
type Report struct {
	Results []Result
	// WakeOnly says the run measured the wake word alone (Options).
	WakeOnly bool
	// Overall covers every file; ByNoise, ByVoice and ByKind break it down
	// by the manifest's optional fields, ByWake by whether the file says
	// the wake phrase (WithWake, WithoutWake).
	Overall Summary
	ByNoise map[string]Summary
	ByVoice map[string]Summary
	ByKind  map[string]Summary
	ByWake  map[string]Summary
}

// ByWake's keys.
const (
	WithWake    = "wake phrase"
	WithoutWake = "no wake phrase"
)

// Summary holds the figures of a set of files.
type Summary struct {
	Files int `json:"files"`
	// Errors counts files that could not be read.
	Errors int `json:"errors"`
	// AudioSeconds is the audio heard; Utterances the detector found.
	AudioSeconds float64 `json:"audio_s"`
	Utterances   int     `json:"utterances"`

	// WakeFiles have the wake phrase; WakeHits of them woke the robot.
	WakeFiles int     `json:"wake_files"`
	WakeHits  int     `json:"wake_hits"`
	WakeRate  float64 `json:"wake_hit_rate"`
	// FalseWakes happened in NonWakeSeconds of audio without the phrase.
	FalseWakes     int     `json:"false_wakes"`
	NonWakeSeconds float64 `json:"non_wake_s"`
	FalseWakesPerH float64 `json:"false_wakes_per_hour"`
	// Commands are files whose text means something to the robot;
	// CommandsHeard of them gave a command at all, CommandsCorrect the
	// right intent with the right slots.
	Commands        int     `json:"commands"`
	CommandsCorrect int     `json:"commands_correct"`
	CommandsHeard   int     `json:"commands_heard"`
	CommandAccuracy float64 `json:"command_accuracy"`
	// OtherFiles are everyday speech; OtherAsCommands of them were sent as
	// a command (the window was open), OtherActedOn matched an intent.
	OtherFiles      int `json:"other_files"`
	OtherAsCommands int `json:"other_as_commands"`
	OtherActedOn    int `json:"other_acted_on"`
	// WrongActions counts files the robot acted on with a meaning they do
	// not have: a command heard as another command (not merely missed),
	// and everyday speech acted on (OtherActedOn). OppositeActions are
	// the commands among them heard as their opposite (Opposite): volume
	// up for down, cancel for set. WrongActionRate is WrongActions over
	// Commands: a miss makes the robot ask again, a wrong action does
	// something nobody asked for.
	WrongActions    int     `json:"wrong_actions"`
	OppositeActions int     `json:"opposite_actions"`
	WrongActionRate float64 `json:"wrong_action_rate"`
	// LostBy counts the commands not acted on (neither right nor another
	// command) by where they were lost (Result.Lost).
	LostBy map[string]int `json:"lost_by,omitempty"`
	// Unscored files are commands by the manifest's kind whose text the
	// skills do not understand (see Report.Unscored).
	Unscored int `json:"unscored"`
	// RealTimeFactor is recogniser wall time over the audio it was given
	// (the utterances the detector handed it), CPURealTimeFactor its CPU
	// time over it (0 where not measured).
	RealTimeFactor    float64 `json:"rtf"`
	CPURealTimeFactor float64 `json:"cpu_rtf"`
	// CPUPerAudioSecond is the recogniser's CPU time over all the audio
	// of the files (AudioSeconds), silence and noise between utterances
	// included: the recogniser's CPU averaged over all the set's audio
	// (the wake detector's is not in it), where CPURealTimeFactor is what
	// each utterance costs (0 where not measured).
	CPUPerAudioSecond float64 `json:"cpu_per_audio_s"`
	// Latency from the end of speech detected to the recognition on the
	// bus.
	LatencyP50Millis float64 `json:"latency_p50_ms"`
	LatencyP95Millis float64 `json:"latency_p95_ms"`
	LatencyMaxMillis float64 `json:"latency_max_ms"`
	// WakeCPURealTimeFactor is the wake word detector's CPU time over all
	// the audio (it hears every sample); 0 where not measured.
	WakeCPURealTimeFactor float64 `json:"wake_cpu_rtf"`

	recognize, cpu, heard, wakeCPU time.Duration
	latencies                      []time.Duration
}

func (r *Report) summarise() {
	r.ByNoise, r.ByVoice, r.ByKind, r.ByWake = map[string]Summary{}, map[string]Summary{}, map[string]Summary{}, map[string]Summary{}
	for _, res := range r.Results {
		add(&r.Overall, res, r.WakeOnly)
		wk := WithoutWake
		if res.Item.Wake {
			wk = WithWake
		}
		ws := r.ByWake[wk]
		add(&ws, res, r.WakeOnly)
		r.ByWake[wk] = ws
		if k := res.Item.Noise; k != "" {
			s := r.ByNoise[k]
			add(&s, res, r.WakeOnly)
			r.ByNoise[k] = s
		}
		if k := voiceName(res.Item.Voice); k != "" {
			s := r.ByVoice[k]
			add(&s, res, r.WakeOnly)
			r.ByVoice[k] = s
		}
		if k := res.Item.Kind; k != "" {
			s := r.ByKind[k]
			add(&s, res, r.WakeOnly)
			r.ByKind[k] = s
		}
	}
	finish(&r.Overall)
	for _, m := range []map[string]Summary{r.ByNoise, r.ByVoice, r.ByKind, r.ByWake} {
		for k, s := range m {
			finish(&s)
			m[k] = s
		}
	}
}

// voiceName is the voice without its speed and pitch ("en-us/175/50").
func voiceName(v string) string {
	name, _, _ := strings.Cut(v, "/")
	return name
}

// add counts one file into s; wakeOnly counts only what the wake word
// did.
func add(s *Summary, res Result, wakeOnly bool) {
	s.Files++
	if res.Err != "" {
		s.Errors++
		return
	}
	h := res.Heard
	s.AudioSeconds += res.Duration.Seconds()
	s.wakeCPU += h.WakeCPU
	s.recognize += h.RecognizeTime
	s.cpu += h.RecognizeCPU
	s.heard += h.Speech
	s.latencies = append(s.latencies, h.Latencies...)
	s.Utterances += h.Utterances
	if res.Item.Wake {
		s.WakeFiles++
		if h.Wakes > 0 {
			s.WakeHits++
		}
	} else {
		s.FalseWakes += h.Wakes
		s.NonWakeSeconds += res.Duration.Seconds()
	}
	if wakeOnly {
		return
	}
	switch {
	case res.TruthOK:
		s.Commands++
		if len(h.Commands) > 0 {
			s.CommandsHeard++
		}
		if res.Lost != "" {
			if s.LostBy == nil {
				s.LostBy = map[string]int{}
			}
			s.LostBy[res.Lost]++
		}
		switch {
		case res.GotOK && res.Got.equal(res.Truth):
			s.CommandsCorrect++
		case res.GotOK:
			s.WrongActions++
			if Opposite(res.Truth.Intent, res.Got.Intent) {
				s.OppositeActions++
			}
		}
	case isUnscored(res):
		s.Unscored++
	case !isBareWake(res):
		s.OtherFiles++
		if len(h.Commands) > 0 {
			s.OtherAsCommands++
			if res.GotOK {
				s.OtherActedOn++
				s.WrongActions++
			}
		}
	}
}

// Opposites are pairs of intents, by name (after the skill id), that
// undo or reverse each other: hearing one for the other is the worst
// mistake the robot can make.
var Opposites = [][2]string{
	{"volume_up", "volume_down"},
	{"mute", "unmute"},
	{"set_timer", "cancel_timer"},
}

// Opposite reports whether intents a and b ("<skill>:<intent>") are
// opposites of one skill (Opposites).
func Opposite(a, b string) bool {
	sa, na, _ := strings.Cut(a, ":")
	sb, nb, _ := strings.Cut(b, ":")
	if sa != sb {
		return false
	}
	for _, p := range Opposites {
		if (na == p[0] && nb == p[1]) || (na == p[1] && nb == p[0]) {
			return true
		}
	}
	return false
}

// isBareWake reports a file that says only the wake phrase.
func isBareWake(res Result) bool { return res.BareWake }

// isUnscored reports a file the set calls a command whose text means
// nothing to the skills: neither a command nor other speech.
func isUnscored(res Result) bool {
	return res.Item.Kind == KindCommand && !res.TruthOK && !res.BareWake
}

func finish(s *Summary) {
	s.WakeRate = ratio(s.WakeHits, s.WakeFiles)
	s.CommandAccuracy = ratio(s.CommandsCorrect, s.Commands)
	s.WrongActionRate = ratio(s.WrongActions-s.OtherActedOn, s.Commands)
	if s.NonWakeSeconds > 0 {
		s.FalseWakesPerH = float64(s.FalseWakes) / (s.NonWakeSeconds / 3600)
	}
	if s.AudioSeconds > 0 {
		s.WakeCPURealTimeFactor = s.wakeCPU.Seconds() / s.AudioSeconds
		s.CPUPerAudioSecond = s.cpu.Seconds() / s.AudioSeconds
	}
	if s.heard > 0 {
		s.RealTimeFactor = s.recognize.Seconds() / s.heard.Seconds()
		s.CPURealTimeFactor = s.cpu.Seconds() / s.heard.Seconds()
	}
	if n := len(s.latencies); n > 0 {
		l := slices.Clone(s.latencies)
		slices.Sort(l)
		ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e4) / 100 }
		s.LatencyP50Millis = ms(l[n/2])
		s.LatencyP95Millis = ms(l[min(n-1, n*95/100)])
		s.LatencyMaxMillis = ms(l[n-1])
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Mistake is a file the robot got wrong.
type Mistake struct {
	File string `json:"file"`
	Text string `json:"text"`
	// What went wrong: missed wake, false wake, no command (nothing sent),
	// no intent (sent, nothing matched: the robot asks), wrong action,
	// opposite action, other speech as command, other speech acted on.
	What  string `json:"what"`
	Heard string `json:"heard"`
	Want  string `json:"want,omitempty"`
	Got   string `json:"got,omitempty"`
	// Why tells where it was lost: the utterances the detector found
	// (against where the speech is, when the set says), and what the
	// recogniser was given, found and dropped.
	Why string `json:"why,omitempty"`
}

// Mistakes lists every file the robot got wrong, in run order.
func (r *Report) Mistakes() []Mistake {
	var out []Mistake
	for _, res := range r.Results {
		if len(out) == maxReportedMistakes {
			break
		}
		h := res.Heard
		heard := strings.Join(h.Recognized, " | ")
		m := Mistake{File: res.Item.File, Text: res.Item.Text, Heard: heard}
		switch {
		case res.Err != "":
			m.What, m.Heard = "unreadable", res.Err
		case res.Item.Wake && h.Wakes == 0:
			m.What = "missed wake"
		case !res.Item.Wake && h.Wakes > 0:
			m.What = "false wake"
		case res.TruthOK && len(h.Commands) == 0:
			m.What, m.Want = "no command", res.Truth.String()
		case res.TruthOK && !(res.GotOK && res.Got.equal(res.Truth)):
			m.What, m.Want = "wrong command", res.Truth.String()
			switch {
			case !res.GotOK:
				m.What, m.Got = "no intent", "(no intent)"
			case Opposite(res.Truth.Intent, res.Got.Intent):
				m.What, m.Got = "opposite action", res.Got.String()
			default:
				m.What, m.Got = "wrong action", res.Got.String()
			}
		case !res.TruthOK && !isBareWake(res) && !isUnscored(res) && len(h.Commands) > 0:
			m.What = "other speech as command"
			if res.GotOK {
				m.What, m.Got = "other speech acted on", res.Got.String()
			}
		default:
			continue
		}
		m.Why = why(res)
		out = append(out, m)
	}
	return out
}

// why describes how a file was heard, for a mistake: the utterances
// the detector found, ended by what, against where the speech is; and
// each recognition's audio, sentence, measures and what dropped it.
func why(res Result) string {
	h := res.Heard
	sec := func(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }
	var b strings.Builder
	if len(h.Spans) == 0 {
		b.WriteString("no utterance")
	} else {
		b.WriteString("utterances")
		for i, sp := range h.Spans {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s–%s s (%s)", sec(sp.Start), sec(sp.End), sp.Reason)
		}
	}
	if it := res.Item; it.SpeechTo > 0 {
		fmt.Fprintf(&b, " for speech at %.2f–%.2f s", it.SpeechFrom, it.SpeechTo)
	}
	for _, d := range h.Decisions {
		fmt.Fprintf(&b, "; recognised %s s (SNR %.0f dB", sec(d.Audio), d.SNR)
		if d.Background > 0 {
			fmt.Fprintf(&b, ", background %.1f dB", d.Background)
		}
		if d.Enhanced {
			b.WriteString(", enhanced")
		}
		b.WriteString("): ")
		if d.Sentence == "" {
			b.WriteString("no sentence")
		} else {
			fmt.Fprintf(&b, "%q confidence %.2f coverage %.2f", d.Sentence, d.Confidence, d.Coverage)
			if d.Accept > 0 {
				fmt.Fprintf(&b, " acceptance %.2f", d.Accept)
			}
			if d.Rival != "" {
				fmt.Fprintf(&b, " rival %q by %.1f a frame", d.Rival, d.RivalMargin)
			}
		}
		if d.Dropped != "" && d.Sentence != "" {
			fmt.Fprintf(&b, ", dropped by %s", d.Dropped)
		}
		if d.Fallback != "" {
			b.WriteString("; fallback: ")
			if d.Transcript != "" {
				fmt.Fprintf(&b, "%q confidence %.2f coverage %.2f", d.Transcript, d.TranscriptConfidence, d.TranscriptCoverage)
				if d.Claim != "" {
					fmt.Fprintf(&b, " claimed by %s at %.2f", d.Claim, d.ClaimScore)
				}
				b.WriteString(", ")
			}
			b.WriteString(d.Fallback)
			if d.SlotSentence != "" {
				fmt.Fprintf(&b, " (the intent's own search: %q, slots at %.2f)", d.SlotSentence, d.SlotConfidence)
			}
		}
	}
	return b.String()
}

// Unscored lists, once each, the texts of items of kind "command" that the
// robot's intent engines do not read as any command: the set says they are
// commands, but none can be scored, so a skill or intent change that stops
// understanding a wording shows here instead of shrinking the figures.
func (r *Report) Unscored() []string {
	if r.WakeOnly {
		return nil
	}
	var out []string
	for _, res := range r.Results {
		if !isUnscored(res) || slices.Contains(out, res.Item.Text) {
			continue
		}
		out = append(out, res.Item.Text)
	}
	return out
}

// WriteText prints the figures against the goals, the breakdowns and the
// first mistakes.
func (r *Report) WriteText(w io.Writer) error {
	o := r.Overall
	pct := func(x float64) string {
		if math.IsNaN(x) {
			return "-"
		}
		return fmt.Sprintf("%.1f %%", 100*x)
	}
	mark := func(ok bool) string {
		if ok {
			return "meets the goal"
		}
		return "BELOW the goal"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "files             %d (%d unreadable), %.1f min of audio, %d utterances\n",
		o.Files, o.Errors, o.AudioSeconds/60, o.Utterances)
	fmt.Fprintf(&b, "wake hits         %s (%d of %d)  goal ≥ %.0f %%: %s\n", pct(o.WakeRate), o.WakeHits, o.WakeFiles,
		100*GoalWakeHits, mark(o.WakeRate >= GoalWakeHits))
	fmt.Fprintf(&b, "false wakes       %.1f per hour (%d in %.1f min without the wake phrase)  goal ≤ %.0f: %s\n",
		o.FalseWakesPerH, o.FalseWakes, o.NonWakeSeconds/60, GoalFalseWakesPerH, mark(o.FalseWakesPerH <= GoalFalseWakesPerH))
	if !r.WakeOnly {
		fmt.Fprintf(&b, "command accuracy  %s (%d of %d; %d heard as some command)  goal ≥ %.0f %%: %s\n", pct(o.CommandAccuracy),
			o.CommandsCorrect, o.Commands, o.CommandsHeard, 100*GoalCommandAccuracy, mark(o.CommandAccuracy >= GoalCommandAccuracy))
		fmt.Fprintf(&b, "wrong actions     %s of commands (%d commands heard as another)  goal ≤ %.0f %%: %s\n", pct(o.WrongActionRate),
			o.WrongActions-o.OtherActedOn, 100*GoalWrongActions, mark(!(o.WrongActionRate > GoalWrongActions)))
		fmt.Fprintf(&b, "opposite actions  %d (volume up for down, cancel for set…)\n", o.OppositeActions)
		if len(o.LostBy) > 0 {
			b.WriteString("commands lost    ")
			for i, k := range slices.SortedFunc(maps.Keys(o.LostBy), func(x, y string) int {
				return cmp.Or(cmp.Compare(o.LostBy[y], o.LostBy[x]), cmp.Compare(x, y))
			}) {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, " %s %d", k, o.LostBy[k])
			}
			b.WriteString(" (not acted on, by where)\n")
		}
		fmt.Fprintf(&b, "other speech      %d of %d files taken for a command with the window open, %d of them acted on (wrong actions; goal: none)\n",
			o.OtherAsCommands, o.OtherFiles, o.OtherActedOn)
		if o.CPURealTimeFactor > 0 {
			// CPU time: what the recogniser costs, whatever else the machine
			// runs meanwhile.
			fmt.Fprintf(&b, "real-time factor  %.3f CPU (%.3f wall)  goal ≤ %.2f: %s\n", o.CPURealTimeFactor, o.RealTimeFactor,
				GoalRealTimeFactor, mark(o.CPURealTimeFactor <= GoalRealTimeFactor))
			fmt.Fprintf(&b, "recogniser CPU    %.4f s per second of all the audio (%.1f of %.1f min handed to it)\n",
				o.CPUPerAudioSecond, o.heard.Minutes(), o.AudioSeconds/60)
		} else {
			fmt.Fprintf(&b, "real-time factor  %.3f wall  goal ≤ %.2f: %s\n", o.RealTimeFactor,
				GoalRealTimeFactor, mark(o.RealTimeFactor <= GoalRealTimeFactor))
		}
		fmt.Fprintf(&b, "latency           p50 %.0f ms, p95 %.0f ms, max %.0f ms (end of speech detected → recognition on the bus)\n",
			o.LatencyP50Millis, o.LatencyP95Millis, o.LatencyMaxMillis)
	}
	if o.WakeCPURealTimeFactor > 0 {
		fmt.Fprintf(&b, "wake word CPU     %.4f of real time (the detector hears all the audio)\n", o.WakeCPURealTimeFactor)
	}
	for _, g := range []struct {
		name string
		m    map[string]Summary
	}{{"noise", r.ByNoise}, {"voice", r.ByVoice}, {"kind", r.ByKind}, {"wake", r.ByWake}} {
		if len(g.m) == 0 {
			continue
		}
		keys := slices.SortedFunc(maps.Keys(g.m), cmp.Compare[string])
		width := 16 // the names' column
		for _, k := range keys {
			width = max(width, utf8.RuneCountInString(k))
		}
		if r.WakeOnly {
			fmt.Fprintf(&b, "\nby %-*s files  wake hits  false wakes (per hour)\n", width, g.name)
		} else {
			fmt.Fprintf(&b, "\nby %-*s files  wake hits  false wakes/h  commands  wrong  opposite  other→cmd\n", width, g.name)
		}
		for _, k := range keys {
			s := g.m[k]
			if r.WakeOnly {
				fmt.Fprintf(&b, "   %-*s %5d  %9s  %d (%.1f)\n", width, k, s.Files, pct(s.WakeRate), s.FalseWakes, s.FalseWakesPerH)
				continue
			}
			fmt.Fprintf(&b, "   %-*s %5d  %9s  %13.1f  %8s  %5d  %8d  %d/%d\n", width, k, s.Files, pct(s.WakeRate), s.FalseWakesPerH,
				pct(s.CommandAccuracy), s.WrongActions, s.OppositeActions, s.OtherAsCommands, s.OtherFiles)
		}
	}
	if !r.WakeOnly && r.wakeVoicesApart() {
		b.WriteString("\nNOTE: no voice says commands both with and without the wake phrase: the difference by wake is the voices' as much as the phrase's\n")
	}
	if un := r.Unscored(); len(un) > 0 {
		fmt.Fprintf(&b, "\nWARNING: %d command texts (%d files) mean nothing to the skills as text, so those files are not scored:\n", len(un), o.Unscored)
		for _, t := range un {
			fmt.Fprintf(&b, "  %q\n", t)
		}
	}
	ms := r.Mistakes()
	if len(ms) > 0 {
		fmt.Fprintf(&b, "\nmistakes: %d (first %d; --json lists all)\n", len(ms), min(len(ms), maxMistakesInSummary))
		for _, m := range ms[:min(len(ms), maxMistakesInSummary)] {
			fmt.Fprintf(&b, "  %s %s: %q heard %q", m.What, m.File, m.Text, m.Heard)
			if m.Want != "" {
				fmt.Fprintf(&b, " want %s", m.Want)
			}
			if m.Got != "" {
				fmt.Fprintf(&b, " got %s", m.Got)
			}
			fmt.Fprintf(&b, "\n      %s\n", m.Why)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FileResult is one file's outcome in the JSON report.
type FileResult struct {
	File        string    `json:"file"`
	Kind        string    `json:"kind,omitempty"`
	Noise       string    `json:"noise,omitempty"`
	Voice       string    `json:"voice,omitempty"`
	Wake        bool      `json:"wake"`
	Text        string    `json:"text"`
	Wakes       int       `json:"wakes"`
	Recognized  []string  `json:"recognized"`
	Confidences []float64 `json:"confidences"`
	Command     string    `json:"command,omitempty"`
	Want        string    `json:"want,omitempty"`
	Got         string    `json:"got,omitempty"`
	Correct     bool      `json:"correct"`
	// Lost says where a command not acted on was lost (Result.Lost).
	Lost  string `json:"lost,omitempty"`
	Error string `json:"error,omitempty"`
	// Utterances are where the detector found each utterance in the
	// file, in order, for telling the speech's from the background's.
	Utterances []FileSpan `json:"utterances,omitempty"`
	// Decisions are the recogniser's verdicts, one per recognition.
	Decisions []FileDecision `json:"decisions,omitempty"`
}

// FileSpan is one utterance the detector found: its speech's start and
// end in the file, in seconds, and why it ended.
type FileSpan struct {
	Start  float64 `json:"start_s"`
	End    float64 `json:"end_s"`
	Reason string  `json:"reason,omitempty"`
}

// FileDecision is one recognition's verdict in the JSON report
// (audio.Verdict).
type FileDecision struct {
	AudioSeconds float64   `json:"audio_s"`
	Sentence     string    `json:"sentence,omitempty"`
	Confidence   float64   `json:"confidence"`
	Coverage     float64   `json:"coverage"`
	Accept       float64   `json:"accept,omitempty"`
	SNR          float64   `json:"snr"`
	Background   float64   `json:"background,omitempty"`
	Enhanced     bool      `json:"enhanced,omitempty"`
	Dropped      string    `json:"dropped,omitempty"`
	Features     []float64 `json:"features,omitempty"`
	// What the fallback made of a refused sentence (audio.Verdict).
	Fallback              string    `json:"fallback,omitempty"`
	Transcript            string    `json:"transcript,omitempty"`
	TranscriptConfidence  float64   `json:"transcript_confidence,omitempty"`
	TranscriptCoverage    float64   `json:"transcript_coverage,omitempty"`
	TranscriptWords       []float64 `json:"transcript_words,omitempty"`
	TranscriptRival       string    `json:"transcript_rival,omitempty"`
	TranscriptRivalMargin *float64  `json:"transcript_rival_margin,omitempty"`
	// The fallback's next transcripts and how much lower each scored per
	// frame, where it reads more than one (audio.Verdict).
	Transcripts       []string  `json:"transcripts,omitempty"`
	TranscriptMargins []float64 `json:"transcript_margins,omitempty"`
	Claim             string    `json:"claim,omitempty"`
	ClaimScore        float64   `json:"claim_score,omitempty"`
	SlotSentence      string    `json:"slot_sentence,omitempty"`
	SlotConfidence    float64   `json:"slot_confidence,omitempty"`
	// The best sentence of another meaning and the sentence's margin over
	// it per frame (audio.Verdict).
	Rival       string  `json:"rival,omitempty"`
	RivalMargin float64 `json:"rival_margin,omitempty"`
	// The sentence's words and each one's posterior in the search's
	// lattice, where measured (audio.Verdict).
	Words          []string  `json:"words,omitempty"`
	WordPosteriors []float64 `json:"word_posteriors,omitempty"`
	// How much audio the decoder heard after trimming, and the searches
	// that went through it (audio.Verdict).
	DecodedSeconds float64  `json:"decoded_s,omitempty"`
	Searches       []string `json:"searches,omitempty"`
	// The sentence was found with filler words after it over no one
	// talking, and measured without them (audio.Verdict).
	QuietTail bool `json:"quiet_tail,omitempty"`
}

// Files lists every file's outcome.
func (r *Report) Files() []FileResult {
	out := make([]FileResult, 0, len(r.Results))
	for _, res := range r.Results {
		f := FileResult{File: res.Item.File, Kind: res.Item.Kind, Noise: res.Item.Noise, Voice: res.Item.Voice,
			Wake: res.Item.Wake, Text: res.Item.Text, Wakes: res.Heard.Wakes, Recognized: res.Heard.Recognized,
			Confidences: res.Heard.Confidences, Lost: res.Lost, Error: res.Err}
		if len(res.Heard.Commands) > 0 && len(res.Heard.Commands[0]) > 0 {
			f.Command = res.Heard.Commands[0][0]
		}
		if res.TruthOK {
			f.Want = res.Truth.String()
		}
		if res.GotOK {
			f.Got = res.Got.String()
		}
		f.Correct = res.TruthOK && res.GotOK && res.Got.equal(res.Truth)
		for _, sp := range res.Heard.Spans {
			f.Utterances = append(f.Utterances, FileSpan{Start: sp.Start.Seconds(), End: sp.End.Seconds(), Reason: sp.Reason})
		}
		for _, d := range res.Heard.Decisions {
			f.Decisions = append(f.Decisions, FileDecision{AudioSeconds: d.Audio.Seconds(), Sentence: d.Sentence,
				Confidence: d.Confidence, Coverage: d.Coverage, Accept: d.Accept, SNR: d.SNR, Background: d.Background, Enhanced: d.Enhanced, Dropped: d.Dropped, Features: d.Features,
				Fallback: d.Fallback, Transcript: d.Transcript, TranscriptConfidence: d.TranscriptConfidence,
				TranscriptCoverage: d.TranscriptCoverage, TranscriptWords: d.TranscriptWords,
				TranscriptRival: d.TranscriptRival, TranscriptRivalMargin: d.TranscriptRivalMargin,
				Transcripts: d.Transcripts, TranscriptMargins: d.TranscriptMargins, Claim: d.Claim, ClaimScore: d.ClaimScore,
				SlotSentence: d.SlotSentence, SlotConfidence: d.SlotConfidence,
				Rival: d.Rival, RivalMargin: d.RivalMargin, Words: d.Words, WordPosteriors: d.WordPosteriors, DecodedSeconds: d.Decoded.Seconds(), Searches: d.Searches, QuietTail: d.QuietTail})
		}
		out = append(out, f)
	}
	return out
}

// WriteJSON writes the summaries, the mistakes and every file's outcome as
// one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{
		"overall":   clean(r.Overall),
		"by_noise":  cleanMap(r.ByNoise),
		"by_voice":  cleanMap(r.ByVoice),
		"by_kind":   cleanMap(r.ByKind),
		"by_wake":   cleanMap(r.ByWake),
		"mistakes":  r.Mistakes(),
		"unscored":  r.Unscored(),
		"wake_only": r.WakeOnly,
		"files":     r.Files(),
		"goals": map[string]float64{"wake_hit_rate": GoalWakeHits, "false_wakes_per_hour": GoalFalseWakesPerH,
			"command_accuracy": GoalCommandAccuracy, "rtf": GoalRealTimeFactor, "wrong_action_rate": GoalWrongActions},
	})
}

// clean replaces NaN (no files of a kind) with -1, which JSON can carry.
func clean(s Summary) Summary {
	for _, p := range []*float64{&s.WakeRate, &s.CommandAccuracy, &s.WrongActionRate} {
		if math.IsNaN(*p) {
			*p = -1
		}
	}
	return s
}

func cleanMap(m map[string]Summary) map[string]Summary {
	out := make(map[string]Summary, len(m))
	for k, s := range m {
		out[k] = clean(s)
	}
	return out
}

// wakeVoicesApart reports whether the commands said with the wake phrase
// and those said without it are both there, with voices named, and no
// voice says both: then comparing the two halves compares voices too.
func (r *Report) wakeVoicesApart() bool {
	voices := map[bool]map[string]bool{true: {}, false: {}}
	for _, res := range r.Results {
		v := voiceName(res.Item.Voice)
		if res.Item.Kind != KindCommand || v == "" || res.BareWake {
			continue
		}
		voices[res.Item.Wake][v] = true
	}
	if len(voices[true]) == 0 || len(voices[false]) == 0 {
		return false
	}
	for v := range voices[true] {
		if voices[false][v] {
			return false
		}
	}
	return true
}
