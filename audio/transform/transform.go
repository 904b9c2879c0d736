// Package transform runs TRANSFORM-1's audio chain: the transformers that
// see the microphone's audio before voice activity detection and speech
// recognition (TRF-01's "audio" type, pre-STT).
//
// It follows the same rules as the text chains in core/pipeline (the same
// id rules, limit and cancellation keys, which core/runtime/hearing checks
// against the pipeline's and hands in as Config.ValidateID), but runs on
// the listener's own goroutine, chunk by chunk, because a goroutine and a
// timer per 20 ms chunk would cost more than the transformers. Audio
// transformers must therefore be fast and must honour their context; a
// transformer keeps per-stream state (a filter's memory) and belongs to one
// listener.
package transform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/internal/chainorder"
)

// Type is the chain's type name (TRF-01), as used in the session keys
// audio_transformers and blacklisted_audio_transformers (TRF-09), the
// context key audio_transformer_ids (TRF-03) and the list topic (TRF-10).
const Type = "audio"

// Keys and topics of the audio chain.
const (
	KeyIDs        = Type + "_transformer_ids"
	KeyPreference = Type + "_transformers"
	KeyBlacklist  = "blacklisted_" + Type + "_transformers"
	TopicList     = "ovos.transformer." + Type + ".list"
	TopicListResp = TopicList + ".response"
)

// The context keys of a cancellation (TRF-12): a transformer cancels the
// utterance by setting both.
const (
	KeyCanceled     = "canceled"
	KeyCancelReason = "cancel_reason"
)

// MaxTransformers bounds the transformers loaded in the chain.
const MaxTransformers = 64

// Chunk flows through the audio chain: SampleRate mono PCM, the language
// threaded per TRF-04 ("" = none) and a context a transformer may use to
// cancel (TRF-12: KeyCanceled and KeyCancelReason together). Context is
// nil unless a transformer sets it.
type Chunk struct {
	PCM     []int16
	Lang    string
	Context map[string]any
}

// Transformer is one stage of the audio chain. It may change in.PCM in
// place and return it; the output must have as many samples as the input.
// Lower priorities run first (TRF-08).
type Transformer interface {
	ID() string
	Priority() int
	TransformAudio(ctx context.Context, in Chunk) (Chunk, error)
}

// Config lists the loaded transformers.
type Config struct {
	Transformers []Transformer
	// Order is an explicit deployer order: when non-nil, exactly these ids
	// run, in this order (TRF-08).
	Order []string
	// ValidateID checks an id against the rules of the bus the ids are
	// announced on (TRF-01's topic syntax), on top of the chain's own:
	// non-empty, no ':'. Nil checks only the chain's own.
	ValidateID func(id string) error
	// Logger receives transformer failures; nil means slog.Default().
	Logger *slog.Logger
}

// Chain holds the loaded audio transformers.
type Chain struct {
	log   *slog.Logger
	impl  map[string]Transformer
	prio  map[string]int
	order []string
}

// New validates the transformers: TRF-01 ids, unique, at most
// MaxTransformers; a deployer order naming only loaded ids, each once.
func New(cfg Config) (*Chain, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if len(cfg.Transformers) > MaxTransformers {
		return nil, fmt.Errorf("audio chain: %d transformers, limit %d", len(cfg.Transformers), MaxTransformers)
	}
	c := &Chain{log: log.With("component", "audio-transformers"), impl: map[string]Transformer{}, prio: map[string]int{}}
	for i, t := range cfg.Transformers {
		if t == nil {
			return nil, fmt.Errorf("audio chain: transformer %d is nil", i)
		}
		id := t.ID()
		if id == "" || strings.Contains(id, ":") {
			return nil, fmt.Errorf("audio chain: transformer id %q: want a non-empty name without ':' (TRF-01)", id)
		}
		if cfg.ValidateID != nil {
			if err := cfg.ValidateID(id); err != nil {
				return nil, fmt.Errorf("audio chain: %w", err)
			}
		}
		if _, dup := c.impl[id]; dup {
			return nil, fmt.Errorf("audio chain: transformer id %q loaded twice (TRF-01)", id)
		}
		c.impl[id], c.prio[id] = t, t.Priority()
	}
	if cfg.Order != nil {
		var err error
		if c.order, err = chainorder.Deployer(cfg.Order, c.prio); err != nil {
			return nil, fmt.Errorf("audio chain: %w", err)
		}
		return c, nil
	}
	c.order = chainorder.ByPriority(c.prio)
	return c, nil
}

// List answers TopicList (TRF-10): the loaded ids in default order and
// their priorities.
func (c *Chain) List() (loaded []string, priorities map[string]int) {
	priorities = map[string]int{}
	if c == nil {
		return []string{}, priorities
	}
	for id, p := range c.prio {
		priorities[id] = p
	}
	return append([]string{}, c.order...), priorities
}

// Compose builds the chain for one utterance (TRF-09): the session's
// preference when non-empty, else the default order; only loaded ids, each
// once; minus the blacklist. A nil Chain composes an empty run.
func (c *Chain) Compose(preference, blacklist []string) *Run {
	r := &Run{log: slog.Default()}
	if c == nil {
		return r
	}
	r.log = c.log
	pref := preference
	if len(pref) == 0 {
		pref = c.order
	}
	seen := map[string]bool{}
	for _, id := range pref {
		t, ok := c.impl[id]
		if !ok {
			c.log.Warn("audio transformer not loaded; skipped", "transformer_id", id)
			continue
		}
		if seen[id] || slices.Contains(blacklist, id) {
			continue
		}
		seen[id] = true
		r.ids = append(r.ids, id)
		r.ts = append(r.ts, t)
	}
	r.fails = make([]failures, len(r.ts))
	return r
}

// Run is the chain composed for one utterance. It is used by one goroutine.
type Run struct {
	log     *slog.Logger
	ids     []string
	ts      []Transformer
	prev    []int16 // the chain's artifact before the current step
	fresh   []int16 // the copy handed to the transformer
	changed []string
	fails   []failures
}

// failures rate-limits the logging of a failing transformer.
type failures struct {
	n    int
	last time.Time
}

// IDs are the transformers this run applies, in order.
func (r *Run) IDs() []string { return append([]string(nil), r.ids...) }

// Changed lists, in order of first change, the transformers that changed
// audio since the last Reset: the utterance's audio_transformer_ids
// (TRF-03, one append per execution window).
func (r *Run) Changed() []string { return append([]string(nil), r.changed...) }

// Reset starts a new execution window (the next utterance).
func (r *Run) Reset() { r.changed = r.changed[:0] }

// Cancel is a transformer's cancellation of the utterance (TRF-12).
type Cancel struct {
	Reason string
	// By is the cancelling transformer's id, from the chain's own
	// knowledge, never from the transformer's output.
	By string
}

// Result is what one chunk came out as.
type Result struct {
	// PCM is the transformed audio: valid until the next Process.
	PCM []int16
	// Lang is the threaded language (TRF-04).
	Lang string
	// Cancel is set when a transformer cancelled (TRF-12).
	Cancel *Cancel
}

// errShape marks output that breaks the chain's contract (TRF-11).
var errShape = errors.New("wrong-shaped output")

// Process runs every transformer over pcm in order, each output feeding the
// next (TRF-02). A transformer that fails, panics or returns a different
// number of samples counts as having returned its input (TRF-11). A
// cancellation (both TRF-12 keys) stops the chain and is stamped with the
// transformer's id; one key alone is a shape violation and is ignored.
func (r *Run) Process(ctx context.Context, pcm []int16, lang string) Result {
	if len(r.ts) == 0 {
		return Result{PCM: pcm, Lang: lang}
	}
	r.prev = append(r.prev[:0], pcm...)
	for i, t := range r.ts {
		r.fresh = append(r.fresh[:0], r.prev...)
		out, err := r.call(ctx, t, Chunk{PCM: r.fresh, Lang: lang})
		if err == nil && len(out.PCM) != len(r.prev) {
			err = fmt.Errorf("%w: %d samples out for %d in", errShape, len(out.PCM), len(r.prev))
		}
		var cancel *Cancel
		if err == nil {
			cancel, err = cancelOf(out.Context)
		}
		if err != nil {
			r.failed(i, err)
			continue
		}
		if !slices.Equal(out.PCM, r.prev) {
			if !slices.Contains(r.changed, r.ids[i]) {
				r.changed = append(r.changed, r.ids[i])
			}
			r.prev = append(r.prev[:0], out.PCM...)
		}
		lang = out.Lang
		if cancel != nil {
			cancel.By = r.ids[i]
			return Result{PCM: r.prev, Lang: lang, Cancel: cancel}
		}
	}
	return Result{PCM: r.prev, Lang: lang}
}

func (r *Run) call(ctx context.Context, t Transformer, in Chunk) (out Chunk, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("transformer panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return t.TransformAudio(ctx, in)
}

// failed logs a failure, at most once a second per transformer.
func (r *Run) failed(i int, err error) {
	f := &r.fails[i]
	f.n++
	if now := time.Now(); now.Sub(f.last) >= time.Second {
		r.log.Warn("audio transformer failed; its input is kept (TRF-11)", "transformer_id", r.ids[i], "failures", f.n, "err", err)
		f.last = now
	}
}

// cancelOf reads TRF-12's keys: both, well-typed, is a cancellation; one
// alone is a shape violation.
func cancelOf(c map[string]any) (*Cancel, error) {
	cv, hasC := c[KeyCanceled]
	rv, hasR := c[KeyCancelReason]
	if !hasC && !hasR {
		return nil, nil
	}
	canceled, _ := cv.(bool)
	reason, _ := rv.(string)
	if canceled && reason != "" {
		return &Cancel{Reason: reason}, nil
	}
	if !hasC || !hasR || canceled || reason != "" {
		return nil, fmt.Errorf("%w: canceled and cancel_reason must come together (TRF-12)", errShape)
	}
	return nil, nil
}
