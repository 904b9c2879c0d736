package sphinx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/internal/strictjson"
)

// ProvenanceFile is the file an adapted model folder holds that says
// what it was adapted from; a folder without it is not taken for one.
const ProvenanceFile = "adapted.json"

// MAPTau is the prior weight map_adapt gives the base model's mixture
// weights, variances and transition matrices (its -fixedtau -tau): the
// frames of adaptation data a senone needs before its own counts weigh as
// much as the base model. map_adapt's default estimates tau per Gaussian,
// which moved the mixture weights too little; a small fixed tau lets a
// short enrollment count, and held on voices the model was not adapted
// to. Chosen on the tuning set (docs/hearing.md). Means keep map_adapt's
// simple Bayesian update.
const MAPTau = 0.5

// Floors are the rejection floors a recogniser uses with a model (see
// Config): a recognition is dropped below MinConfidence or MinCoverage,
// and its wake phrase below WakeMinConfidence or WakeMinCoverage. An
// adapted model scores speech it was adapted to higher, right or wrong,
// so it records its own.
type Floors struct {
	MinConfidence     float64 `json:"confidence"`
	MinCoverage       float64 `json:"coverage"`
	WakeMinConfidence float64 `json:"wake_confidence"`
	WakeMinCoverage   float64 `json:"wake_coverage"`
}

// Validate checks every floor is in [0, 1].
func (f Floors) Validate() error {
	for _, v := range []struct {
		name string
		f    float64
	}{{"confidence", f.MinConfidence}, {"coverage", f.MinCoverage}, {"wake_confidence", f.WakeMinConfidence}, {"wake_coverage", f.WakeMinCoverage}} {
		if !(v.f >= 0 && v.f <= 1) {
			return fmt.Errorf("floor %s %g is not in [0, 1]", v.name, v.f)
		}
	}
	return nil
}

// Provenance is what an adapted model's ProvenanceFile says.
type Provenance struct {
	BaseModel  string  `json:"base_model"`
	Method     string  `json:"method"`
	Tau        float64 `json:"tau,omitempty"`
	Recordings int     `json:"recordings"`
	Skipped    int     `json:"skipped"`
	NotAligned int     `json:"not_aligned"`
	Seconds    float64 `json:"seconds"`
	// Floors are the rejection floors to use with the model; nil (a
	// model adapted before they were recorded) means the recogniser's
	// defaults.
	Floors *Floors `json:"floors,omitempty"`
	// DenoiseBelowSNR is the signal-to-noise ratio (dB) under which the
	// recordings' noise was suppressed before adapting, and the
	// recogniser suppresses it with this model (Config.DenoiseBelowSNR;
	// negative: never); 0 (a model adapted before it was recorded) means
	// the recogniser's default.
	DenoiseBelowSNR float64 `json:"denoise_below_snr,omitempty"`
}

// maxProvenanceBytes bounds the provenance file read.
const maxProvenanceBytes = 64 << 10

// ReadProvenance reads and checks the ProvenanceFile of an adapted model
// folder; an error names the file and what is wrong with it.
func ReadProvenance(dir string) (Provenance, error) {
	var p Provenance
	path := filepath.Join(dir, ProvenanceFile)
	f, err := os.Open(path)
	if err != nil {
		return p, fmt.Errorf("reading the adapted model's provenance: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProvenanceBytes+1))
	if err != nil {
		return p, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxProvenanceBytes {
		return p, fmt.Errorf("reading %s: more than %d bytes", path, maxProvenanceBytes)
	}
	if err := strictjson.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("reading %s: %w", path, err)
	}
	if p.Floors != nil {
		if err := p.Floors.Validate(); err != nil {
			return p, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	if p.DenoiseBelowSNR > MaxDenoiseBelowSNR || math.IsNaN(p.DenoiseBelowSNR) {
		return p, fmt.Errorf("reading %s: noise suppression below %g dB: over %g", path, p.DenoiseBelowSNR, MaxDenoiseBelowSNR)
	}
	return p, nil
}

// Limits on an adaptation run.
const (
	MaxAdaptUtterances = 20_000
	MaxAdaptSeconds    = 30 // per utterance
)

// AdaptTools names the programs an adaptation runs: sphinxbase's feature
// extractor, pocketsphinx's model-definition converter and sphinxtrain's
// Baum-Welch and MAP tools (Debian: sphinxbase-utils, pocketsphinx,
// sphinxtrain). Empty fields take the Debian paths.
type AdaptTools struct {
	FE, MdefConvert, BW, MapAdapt string
}

func (t AdaptTools) withDefaults() AdaptTools {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return AdaptTools{FE: def(t.FE, "sphinx_fe"), MdefConvert: def(t.MdefConvert, "pocketsphinx_mdef_convert"),
		BW: def(t.BW, "/usr/lib/sphinxtrain/bw"), MapAdapt: def(t.MapAdapt, "/usr/lib/sphinxtrain/map_adapt")}
}

// AdaptUtterance is one transcribed recording.
type AdaptUtterance struct {
	WAV  string // any WAV the audio package reads; converted to 16 kHz mono
	Text string // what is said
}

// DefaultAdaptTrimMargin is the silence Adapt keeps either side of a
// recording's speech. The recogniser keeps all of an utterance's
// pre-roll, for its noise subtraction; adapting on the recordings' whole
// lead-in as well found a few more commands but let false wakes and
// everyday sentences through (docs/hearing.md).
const DefaultAdaptTrimMargin = 200 * time.Millisecond

// AdaptConfig configures Adapt.
type AdaptConfig struct {
	BaseModel  string // acoustic model folder (DefaultModelDir)
	Out        string // the adapted model's folder; must not exist
	Utterances []AdaptUtterance
	Lexicon    *Lexicon
	Tools      AdaptTools
	// FloorBelowDB prepares the audio as the Recognizer does (0 takes the
	// same default), so the adapted model sees what it will decode; the
	// recordings are enrollment's, read in a quiet room, so the speech
	// enhancement, which the Recognizer runs only over a fluctuating
	// background, is not run on them.
	// TrimMargin is the silence kept either side of each recording's
	// speech: 0 means DefaultAdaptTrimMargin, a negative margin keeps the
	// whole recording.
	FloorBelowDB float64
	TrimMargin   time.Duration
	// DenoiseBelowSNR is as the Recognizer's, recorded in the model's
	// ProvenanceFile for the recogniser to use with it: 0 means
	// AdaptedDenoiseBelowSNR.
	DenoiseBelowSNR float64
	// Floors, when set, are recorded in the model's ProvenanceFile as the
	// rejection floors to use with it; they must be valid.
	Floors *Floors
	Log    *slog.Logger
}

// AdaptReport says what an adaptation used.
type AdaptReport struct {
	Used, Skipped, NotAligned int
	Seconds                   float64
	Skips                     []string `json:",omitempty"` // why each skipped utterance was
}

// Adapt MAP-adapts the acoustic model to a set of transcribed recordings
// (the robot's microphone and its people, or a test set's voices) and
// writes the adapted model to cfg.Out, a folder JIBOD_SPHINX_MODEL can
// name. MAP moves each Gaussian's mean and variance towards what the
// recordings show, in proportion to how much of them it explains, so
// sounds the recordings lack keep the base model's values.
//
// Recordings whose words the lexicon cannot pronounce, or that cannot be
// read, are skipped and listed; the run fails when none is left or when
// Baum-Welch aligns none. The model is written to a temporary folder and
// renamed into place at the end: a failed run leaves nothing at Out.
func Adapt(ctx context.Context, cfg AdaptConfig) (AdaptReport, error) {
	var rep AdaptReport
	var err error
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	tools := cfg.Tools.withDefaults()
	if cfg.FloorBelowDB == 0 {
		cfg.FloorBelowDB = DefaultFloorBelow
	}
	if cfg.TrimMargin == 0 {
		cfg.TrimMargin = DefaultAdaptTrimMargin
	}
	if cfg.DenoiseBelowSNR == 0 {
		cfg.DenoiseBelowSNR = AdaptedDenoiseBelowSNR
	}
	if cfg.DenoiseBelowSNR > MaxDenoiseBelowSNR || math.IsNaN(cfg.DenoiseBelowSNR) {
		return rep, fmt.Errorf("adapting the acoustic model: noise suppression below %g dB over %g", cfg.DenoiseBelowSNR, MaxDenoiseBelowSNR)
	}
	if cfg.Lexicon == nil {
		return rep, errors.New("adapting the acoustic model: no lexicon")
	}
	if cfg.Floors != nil {
		if err := cfg.Floors.Validate(); err != nil {
			return rep, fmt.Errorf("adapting the acoustic model: %w", err)
		}
	}
	if len(cfg.Utterances) == 0 || len(cfg.Utterances) > MaxAdaptUtterances {
		return rep, fmt.Errorf("adapting the acoustic model: %d recordings; want 1 to %d", len(cfg.Utterances), MaxAdaptUtterances)
	}
	// The tools run in a work folder: every path they get is absolute.
	if cfg.Out, err = filepath.Abs(cfg.Out); err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	if cfg.BaseModel, err = filepath.Abs(cfg.BaseModel); err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	if _, err := os.Lstat(cfg.Out); err == nil {
		return rep, fmt.Errorf("adapting the acoustic model: %s already exists", cfg.Out)
	}
	base, err := readBaseModel(cfg.BaseModel)
	if err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	for _, p := range []string{tools.FE, tools.MdefConvert, tools.BW, tools.MapAdapt} {
		if _, err := exec.LookPath(p); err != nil {
			return rep, fmt.Errorf("adapting the acoustic model: %s not found (Debian: apt install sphinxtrain sphinxbase-utils pocketsphinx): %w", p, err)
		}
	}
	work, err := os.MkdirTemp("", "jibod-adapt-")
	if err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	defer os.RemoveAll(work)

	// Transcripts: words as the grammar spells them, each pronounced.
	type utt struct {
		wav   string
		words []string
	}
	// skip leaves a recording out, saying why in the report and, at
	// level, the log.
	skipAt := func(level slog.Level, why string) {
		rep.Skipped++
		rep.Skips = append(rep.Skips, why)
		log.Log(ctx, level, "adapting the acoustic model: recording skipped", "why", why)
	}
	skip := func(why string) { skipAt(slog.LevelWarn, why) }
	var utts []utt
	all := map[string]bool{}
	for _, u := range cfg.Utterances {
		ws := adaptWords(u.Text)
		if len(ws) == 0 {
			skip(u.WAV + ": no words")
			continue
		}
		utts = append(utts, utt{u.WAV, ws})
		for _, w := range ws {
			all[w] = true
		}
	}
	words := make([]string, 0, len(all))
	for w := range all {
		words = append(words, w)
	}
	sort.Strings(words)
	log.Debug("adapting the acoustic model: looking up pronunciations", "words", len(words), "dictionary", cfg.Lexicon.Path())
	prons, err := cfg.Lexicon.Lookup(ctx, words)
	var missing *MissingWordsError
	switch {
	case errors.As(err, &missing):
		log.Warn("adapting the acoustic model: words without a pronunciation; their recordings are skipped", "words", missing.Words)
	case err != nil:
		return rep, fmt.Errorf("adapting the acoustic model: looking up the pronunciations of %d words: %w", len(words), err)
	}

	wavDir := filepath.Join(work, "wav")
	if err := os.MkdirAll(wavDir, 0o755); err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	var ids, trans bytes.Buffer
	for _, u := range utts {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("adapting the acoustic model: %w", err)
		}
		if w := firstMissing(u.words, prons); w != "" {
			// The words were warned of once, above.
			skipAt(slog.LevelDebug, fmt.Sprintf("%s: no pronunciation for %q", u.wav, w))
			continue
		}
		pcm, err := readAdaptWAV(u.wav)
		if err != nil {
			skip(err.Error())
			continue
		}
		pcm = prepareAudio(pcm, cfg.DenoiseBelowSNR, cfg.FloorBelowDB, cfg.TrimMargin)
		id := fmt.Sprintf("u%05d", rep.Used+1)
		if err := writeAdaptWAV(filepath.Join(wavDir, id+".wav"), pcm); err != nil {
			return rep, err
		}
		rep.Used++
		rep.Seconds += float64(len(pcm)) / audio.SampleRate
		fmt.Fprintln(&ids, id)
		fmt.Fprintf(&trans, "<s> %s </s> (%s)\n", strings.Join(u.words, " "), id)
	}
	if rep.Used == 0 {
		return rep, errors.New("adapting the acoustic model: no usable recording (see the skips)")
	}
	files := map[string][]byte{"adapt.fileids": ids.Bytes(), "adapt.transcription": trans.Bytes(), "adapt.dict": []byte(dictText(prons))}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(work, name), b, 0o644); err != nil {
			return rep, fmt.Errorf("adapting the acoustic model: %w", err)
		}
	}

	// The base model in the forms sphinxtrain reads.
	hmm := filepath.Join(work, "hmm")
	if err := os.MkdirAll(hmm, 0o755); err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	for _, f := range []string{"means", "variances", "transition_matrices", "noisedict"} {
		if err := copyFile(filepath.Join(base.dir, f), filepath.Join(hmm, f)); err != nil {
			return rep, err
		}
	}
	if base.binaryMdef {
		if err := run(ctx, log, work, tools.MdefConvert, "-text", filepath.Join(base.dir, "mdef"), filepath.Join(hmm, "mdef")); err != nil {
			return rep, err
		}
	} else if err := copyFile(filepath.Join(base.dir, "mdef"), filepath.Join(hmm, "mdef")); err != nil {
		return rep, err
	}
	if base.sendump {
		if err := sendumpToMixw(filepath.Join(base.dir, "sendump"), filepath.Join(hmm, "mixture_weights")); err != nil {
			return rep, err
		}
	} else if err := copyFile(filepath.Join(base.dir, "mixture_weights"), filepath.Join(hmm, "mixture_weights")); err != nil {
		return rep, err
	}

	mfc := filepath.Join(work, "mfc")
	acc := filepath.Join(work, "acc")
	for _, d := range []string{mfc, acc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return rep, fmt.Errorf("adapting the acoustic model: %w", err)
		}
	}
	if err := run(ctx, log, work, tools.FE, "-argfile", filepath.Join(base.dir, "feat.params"), "-samprate", "16000",
		"-c", "adapt.fileids", "-di", wavDir, "-do", mfc, "-ei", "wav", "-eo", "mfc", "-mswav", "yes"); err != nil {
		return rep, err
	}
	bwArgs := []string{"-hmmdir", hmm, "-moddeffn", filepath.Join(hmm, "mdef"), "-ts2cbfn", base.ts2cb,
		"-feat", base.param("feat", "1s_c_d_dd"), "-cmn", base.param("cmn", "batch"), "-agc", base.param("agc", "none"),
		"-dictfn", "adapt.dict", "-fdictfn", filepath.Join(hmm, "noisedict"),
		"-ctlfn", "adapt.fileids", "-lsnfn", "adapt.transcription", "-cepdir", mfc, "-accumdir", acc}
	if sv := base.param("svspec", ""); sv != "" {
		bwArgs = append(bwArgs, "-svspec", sv)
	}
	out, err := runOutput(ctx, work, tools.BW, bwArgs...)
	if err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %s: %w\n%s", tools.BW, err, tail(out, 20))
	}
	rep.NotAligned = bytes.Count(out, []byte("Failed to align audio"))
	log.Debug("adapting the acoustic model: step done", "tool", filepath.Base(tools.BW), "not_aligned", rep.NotAligned)
	if rep.NotAligned >= rep.Used {
		return rep, fmt.Errorf("adapting the acoustic model: Baum-Welch aligned none of the %d recordings (transcripts wrong, or audio not speech?)", rep.Used)
	}

	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(cfg.Out)), "."+filepath.Base(cfg.Out)+".tmp-")
	if err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; left only on failure
	if err := run(ctx, log, work, tools.MapAdapt, "-moddeffn", filepath.Join(hmm, "mdef"), "-ts2cbfn", base.ts2cb,
		"-meanfn", filepath.Join(hmm, "means"), "-varfn", filepath.Join(hmm, "variances"),
		"-mixwfn", filepath.Join(hmm, "mixture_weights"), "-tmatfn", filepath.Join(hmm, "transition_matrices"),
		"-accumdir", acc, "-mapmeanfn", filepath.Join(tmp, "means"), "-mapvarfn", filepath.Join(tmp, "variances"),
		"-mapmixwfn", filepath.Join(tmp, "mixture_weights"), "-maptmatfn", filepath.Join(tmp, "transition_matrices"),
		"-fixedtau", "yes", "-tau", strconv.FormatFloat(MAPTau, 'g', -1, 64)); err != nil {
		return rep, err
	}
	// pocketsphinx reads the original (binary) mdef and takes
	// mixture_weights when there is no sendump.
	for _, f := range []string{"mdef", "feat.params", "noisedict"} {
		if err := copyFile(filepath.Join(base.dir, f), filepath.Join(tmp, f)); err != nil {
			return rep, err
		}
	}
	prov, _ := json.MarshalIndent(Provenance{BaseModel: base.dir, Method: "MAP (sphinxtrain map_adapt)", Tau: MAPTau,
		Recordings: rep.Used, Skipped: rep.Skipped, NotAligned: rep.NotAligned, Seconds: rep.Seconds, Floors: cfg.Floors,
		DenoiseBelowSNR: cfg.DenoiseBelowSNR}, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, ProvenanceFile), append(prov, '\n'), 0o644); err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	if err := os.Rename(tmp, cfg.Out); err != nil {
		return rep, fmt.Errorf("adapting the acoustic model: %w", err)
	}
	return rep, nil
}

type baseModel struct {
	dir                 string
	binaryMdef, sendump bool
	ts2cb               string
	params              map[string]string
}

func (b baseModel) param(name, def string) string {
	if v, ok := b.params[name]; ok {
		return v
	}
	return def
}

// readBaseModel checks the model folder has what adaptation needs.
func readBaseModel(dir string) (baseModel, error) {
	b := baseModel{dir: dir, params: map[string]string{}}
	for _, f := range []string{"mdef", "means", "variances", "transition_matrices", "feat.params", "noisedict"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return b, fmt.Errorf("acoustic model %s: no %s file", dir, f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "mixture_weights")); err != nil {
		if _, err := os.Stat(filepath.Join(dir, "sendump")); err != nil {
			return b, fmt.Errorf("acoustic model %s: neither mixture_weights nor sendump", dir)
		}
		b.sendump = true
	}
	head := make([]byte, 4)
	if f, err := os.Open(filepath.Join(dir, "mdef")); err == nil {
		_, _ = f.Read(head)
		f.Close()
	}
	b.binaryMdef = string(head) == "BMDF"
	params, err := os.ReadFile(filepath.Join(dir, "feat.params"))
	if err != nil {
		return b, fmt.Errorf("acoustic model %s: %w", dir, err)
	}
	f := strings.Fields(string(params))
	for i := 0; i+1 < len(f); i += 2 {
		b.params[strings.TrimPrefix(f[i], "-")] = f[i+1]
	}
	switch b.param("model", "cont") {
	case "ptm":
		b.ts2cb = ".ptm."
	case "semi":
		b.ts2cb = ".semi."
	default:
		b.ts2cb = ".cont."
	}
	return b, nil
}

// adaptWords spells a transcript as the dictionary does: lower case,
// letters and apostrophes; anything else separates words.
func adaptWords(text string) []string {
	b := []byte(strings.ToLower(text))
	for i, c := range b {
		if (c < 'a' || c > 'z') && c != '\'' {
			b[i] = ' '
		}
	}
	var out []string
	for _, w := range strings.Fields(string(b)) {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func firstMissing(words []string, prons map[string][]string) string {
	for _, w := range words {
		if len(prons[w]) == 0 {
			return w
		}
	}
	return ""
}

// readAdaptWAV reads a recording as 16 kHz mono.
func readAdaptWAV(path string) ([]int16, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	clip, err := audio.DecodeWAV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pcm := audio.ToRecognition(clip)
	if len(pcm) == 0 || len(pcm) > MaxAdaptSeconds*audio.SampleRate {
		return nil, fmt.Errorf("%s: %.1f s of audio; want some, at most %d s", path, float64(len(pcm))/audio.SampleRate, MaxAdaptSeconds)
	}
	return pcm, nil
}

func writeAdaptWAV(path string, pcm []int16) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("adapting the acoustic model: %w", err)
	}
	if err := audio.EncodeWAV(f, audio.SampleRate, 1, pcm); err != nil {
		f.Close()
		return fmt.Errorf("adapting the acoustic model: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("adapting the acoustic model: writing %s: %w", path, err)
	}
	return nil
}

func sendumpToMixw(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("adapting the acoustic model: %w", err)
	}
	defer in.Close()
	mw, err := ReadSendump(in)
	if err != nil {
		return fmt.Errorf("adapting the acoustic model: %s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("adapting the acoustic model: %w", err)
	}
	if err := WriteMixtureWeights(out, mw); err != nil {
		out.Close()
		return fmt.Errorf("adapting the acoustic model: writing %s: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("adapting the acoustic model: writing %s: %w", dst, err)
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("adapting the acoustic model: %w", err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return fmt.Errorf("adapting the acoustic model: %w", err)
	}
	return nil
}

// run runs a tool in dir; its output is shown only when it fails.
func run(ctx context.Context, log *slog.Logger, dir, name string, args ...string) error {
	out, err := runOutput(ctx, dir, name, args...)
	if err != nil {
		return fmt.Errorf("adapting the acoustic model: %s: %w\n%s", name, err, tail(out, 20))
	}
	log.Debug("adapting the acoustic model: step done", "tool", filepath.Base(name))
	return nil
}

func runOutput(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
